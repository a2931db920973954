"""The window's remembered layout (ui/window_state.py): size, splitters and table columns come
back after a restart; a damaged layout file means the default layout, never a crash."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PySide6.QtCore import QPoint, QSize
from PySide6.QtWidgets import QApplication, QSplitter
from pytestqt.qtbot import QtBot

from liveagent_memory.domain import config
from liveagent_memory.domain.sorting import SortField
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.models import column_of
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.window import MainWindow
from liveagent_memory.ui.window_state import LayoutState, state_path
from tests.helpers.diskstore import memory_files
from tests.helpers.waiting import until
from tests.ui.test_memories_page import memories_page, slugs
from tests.ui.test_memory_table import action, click_header, open_popup

DEFAULT_SIZE = QSize(1100, 720)
CONFIDENCE, RISK = column_of(SortField.CONFIDENCE), column_of(SortField.RISK)
UPDATED, TITLE = column_of(SortField.UPDATED), column_of(SortField.TITLE)
# The sample memories by title: API…, Likes…, No…, then the Chinese one.
BY_TITLE = ["api-docs", "tea-preference", "no-emoji", "build-command"]

Reopen = Callable[[], Awaitable[MainWindow]]


@pytest_asyncio.fixture
async def start_app(qapp: QApplication, home: Path) -> AsyncIterator[Reopen]:
    """Start the app's window as ui/app.py does, with this machine's layout file (the
    conftest's `ui_state_file`, from $LIVEAGENT_MEMORY_UI_STATE); `close` it as a person does.

    Closing the last window would end the test's loop (Qt quits): here the app stays.
    """
    windows: list[MainWindow] = []
    qapp.setQuitOnLastWindowClosed(False)

    async def start() -> MainWindow:
        window = MainWindow(app_context(home), Bridge(), layout_state=LayoutState(state_path()))
        windows.append(window)
        window.show()
        await window.start()
        await until(lambda: memories_page(window).current is not None, what="the first memory")
        return window

    yield start
    for window in windows:
        if not window.disposed:
            await close(window)
    qapp.setQuitOnLastWindowClosed(True)


async def close(window: MainWindow) -> None:
    """Close the window (the layout is written), then end the app as ui/app.py does."""
    window.close()
    await window.aclose()
    window.dispose()


def split_of(page: MemoriesPage) -> QSplitter:
    split = page.findChild(QSplitter, "memory_split")
    assert isinstance(split, QSplitter)
    return split


def test_the_layout_file_is_this_machines_never_the_stores(ui_state_file: Path) -> None:
    assert state_path() == ui_state_file  # the tests' own folder: ~/.config is never touched
    default = state_path({})
    assert default.parts[-2:] == config.UI_STATE_PARTS
    assert default != ui_state_file


@pytest.mark.asyncio
async def test_size_splitter_and_columns_come_back_after_a_restart(
    qtbot: QtBot,
    start_app: Reopen,
    memories: list[dict[str, Any]],
    home: Path,
    ui_state_file: Path,
) -> None:
    before = memory_files(home)
    window = await start_app()
    assert window.size() == DEFAULT_SIZE  # nothing remembered yet
    # The offscreen screen is 800 px square and Qt fits a restored window to its screen: a
    # height below 800 and the narrowest width the window allows come back unchanged.
    size = QSize(window.minimumSizeHint().width(), 700)
    window.resize(size)
    page = memories_page(window)
    split = split_of(page)
    split.setSizes([760, 300])
    header = page.list.horizontalHeader()
    menu = open_popup(qtbot, header.viewport(), QPoint(10, 4))
    action(menu, "Confidence").trigger()  # show a hidden column
    action(menu, "Risk").trigger()  # hide a shown one
    menu.close()
    header.moveSection(header.visualIndex(UPDATED), 1)  # Updated right after the title
    header.resizeSection(UPDATED, 130)
    click_header(qtbot, page, TITLE)
    await until(lambda: slugs(page) == BY_TITLE, what="the title order")
    sizes = split.sizes()
    await close(window)

    assert ui_state_file.is_file()
    assert memory_files(home) == before  # the memories' folder holds no layout
    assert not list(home.rglob("*.ini"))

    again = await start_app()
    page = memories_page(again)
    header = page.list.horizontalHeader()
    assert again.size() == size
    assert split_of(page).sizes() == sizes
    assert not header.isSectionHidden(CONFIDENCE)
    assert header.isSectionHidden(RISK)
    assert header.visualIndex(UPDATED) == 1
    assert header.sectionSize(UPDATED) == 130
    assert header.sortIndicatorSection() == TITLE
    assert slugs(page) == BY_TITLE  # the first listing is already sorted


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff\xfe garbage \x01\x02",
        b"[General]\nversion=99\nwindow\\geometry=@ByteArray(zzz)\n",
        b"[General]\nversion=1\n[window]\ngeometry=not a geometry\n"
        b"[memories]\nsplitter-0=1, x\nmemory_table_header=@ByteArray(nonsense)\n"
        b"memory_table_header-columns=7\n",
    ],
    ids=["not-ini", "other-version", "bad-values"],
)
async def test_a_damaged_layout_file_means_the_default_layout_and_a_log_line(
    start_app: Reopen,
    memories: list[dict[str, Any]],
    ui_state_file: Path,
    content: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ui_state_file.parent.mkdir(parents=True, exist_ok=True)
    ui_state_file.write_bytes(content)
    caplog.set_level(logging.WARNING, logger="liveagent_memory.ui.window_state")

    window = await start_app()

    assert window.size() == DEFAULT_SIZE
    page = memories_page(window)
    header = page.list.horizontalHeader()
    assert header.isSectionHidden(CONFIDENCE) and not header.isSectionHidden(RISK)
    assert header.sortIndicatorSection() == -1
    assert any("window layout" in r.getMessage() for r in caplog.records)
    assert window.error_bar.isHidden()  # not a bug
    assert len(page.model.index(0).data() or "") > 0  # the page works

    size = QSize(window.minimumSizeHint().width(), 760)
    window.resize(size)
    await close(window)  # a good layout replaces the damaged file
    again = await start_app()
    assert again.size() == size


@pytest.mark.asyncio
async def test_a_layout_that_cannot_be_written_is_a_log_line(
    home: Path,
    memories: list[dict[str, Any]],
    ui_state_file: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ui_state_file.parent.parent.mkdir(parents=True, exist_ok=True)
    ui_state_file.parent.write_text("a file where the folder should be")
    window = MainWindow(app_context(home), Bridge(), layout_state=LayoutState(state_path()))
    window.show()
    await window.start()

    await window.aclose()
    window.dispose()  # closes the window: the layout is written, or said why not

    assert any("could not be written" in r.getMessage() for r in caplog.records)
    assert ui_state_file.parent.read_text() == "a file where the folder should be"
    assert window.disposed

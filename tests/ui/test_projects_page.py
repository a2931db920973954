"""The Projects page: every project with counts and quota, the global scope first."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.projects import (
    COL_DAILY,
    COL_EXISTS,
    COL_FEEDBACK,
    COL_FOLDER,
    COL_HEADROOM,
    COL_LEVEL,
    COL_PROJECT,
    COL_REFERENCE,
    COL_UNREVIEWED,
    COL_USED,
    COL_USER,
    FOLDER_WIDTH,
    ProjectsPage,
)
from liveagent_memory.ui.pages.projects_rows import LADDER_COLORS, MISSING_COLOR
from liveagent_memory.ui.window import MainWindow
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.git_repos import bare_repository, clone
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, seed


def memory(
    slug: str, memory_type: str, workdir: Path | None = None, **extra: Any
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "slug": slug,
        "scope": "project" if workdir else "global",
        "type": memory_type,
        "description": f"About {slug}",
        "body": f"Body of {slug}.",
        **extra,
    }
    if workdir is not None:
        item["workdir"] = str(workdir)
    return item


@pytest.fixture
def folders(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    """Global memories and two projects; the second project's folder is deleted afterwards."""
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    seed(
        home,
        [
            memory("tea", "user", actor="extractor"),  # unreviewed
            memory("no-emoji", "feedback"),
            memory("build", "project", alpha),
            memory("deploy", "project", alpha),
            memory("api-docs", "reference", alpha),
            memory("guess", "project", alpha, actor="extractor"),
            memory("lint", "reference", beta),
        ],
    )
    shutil.rmtree(beta)
    return alpha, beta


async def open_projects(open_window: OpenWindow) -> tuple[MainWindow, ProjectsPage]:
    window = await open_window()
    page = window.page("projects")
    assert isinstance(page, ProjectsPage)
    window.open_page("projects")
    await until(lambda: page.table.rowCount() > 0, what="the table")
    return window, page


def table_item(page: ProjectsPage, row: int, column: int) -> QTableWidgetItem:
    found = page.table.item(row, column)
    assert found is not None, (row, column)
    return found


def cell(page: ProjectsPage, row: int, column: int) -> str:
    return table_item(page, row, column).text()


def row_of(page: ProjectsPage, folder: Path) -> int:
    texts = [cell(page, row, COL_FOLDER) for row in range(page.table.rowCount())]
    return texts.index(str(folder.resolve()))


async def settle(window: MainWindow) -> None:
    """Let the page we switched to finish what showing it started, while the loop runs.

    (Qt events left for the test's teardown would reach slots after the loop has stopped.)
    """
    await asyncio.sleep(0.1)
    await until(lambda: window.bridge.pending == 0, what="the pages' background work")


def double_click(qtbot: QtBot, page: ProjectsPage, row: int) -> None:
    rect = page.table.visualRect(page.table.model().index(row, COL_FOLDER))
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.mark.asyncio
async def test_two_projects_and_global_with_their_counts(
    open_window: OpenWindow, folders: tuple[Path, Path]
) -> None:
    alpha, beta = folders
    _, page = await open_projects(open_window)

    assert page.table.rowCount() == 3
    assert cell(page, 0, COL_FOLDER) == "Global"  # first, always
    assert cell(page, 0, COL_EXISTS) == "—"
    counts = (COL_USER, COL_FEEDBACK, COL_PROJECT, COL_REFERENCE, COL_DAILY)
    assert [cell(page, 0, c) for c in counts] == ["1", "1", "0", "0", "0"]
    assert cell(page, 0, COL_UNREVIEWED) == "1"
    a = row_of(page, alpha)
    assert [cell(page, a, c) for c in counts] == ["0", "0", "3", "1", "0"]
    assert cell(page, a, COL_UNREVIEWED) == "1"
    assert cell(page, a, COL_USED) == "4 / 500"
    assert cell(page, a, COL_HEADROOM) == "496"
    assert cell(page, a, COL_EXISTS) == "Yes"
    tip = f"{alpha.resolve()}\nProject key: {workdir_hash(str(alpha))}"
    assert table_item(page, a, COL_FOLDER).toolTip() == tip
    b = row_of(page, beta)
    assert cell(page, b, COL_EXISTS) == "Missing"  # the folder was deleted
    assert table_item(page, b, COL_EXISTS).foreground().color() == QColor(MISSING_COLOR)
    assert cell(page, b, COL_REFERENCE) == "1" and cell(page, b, COL_USED) == "1 / 500"
    for row in range(3):
        assert cell(page, row, COL_LEVEL) == "plenty of room"
        level = table_item(page, row, COL_LEVEL).background().color()
        assert level == QColor(LADDER_COLORS["normal"])
    assert page.count.text() == "2 projects"
    assert page.empty.isHidden()

    page.table.selectRow(a)
    page.retranslate()  # a language switch re-labels in place: nothing is lost
    assert page.table.rowCount() == 3 and cell(page, b, COL_EXISTS) == "Missing"
    assert (selected := page.selected()) is not None and selected["workdir"] == str(alpha.resolve())


@pytest.mark.asyncio
async def test_a_project_near_its_limit_shows_the_ladder_level_in_colour(
    open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    seed(home, [memory("first", "project", crowded)])  # the project's folder and marker
    project = workdir_hash(str(crowded))
    for number in range(1, 455):  # 455 in all: headroom 45
        write_file(
            home, f"projects/{project}/note-{number:03d}.md", memory_text(f"note-{number:03d}")
        )

    window, page = await open_projects(open_window)

    row = row_of(page, crowded)
    assert cell(page, row, COL_USED) == "455 / 500"
    # Plain words (issue 14): no "Headroom" or "Quota ladder" where a person reads them.
    headers = [page.table.horizontalHeaderItem(column) for column in (COL_HEADROOM, COL_LEVEL)]
    assert [item.text() if item else None for item in headers] == ["Room left", "Memory space"]
    await until(lambda: window.banner.isVisible(), what="the quota banner")
    assert window.banner.text.text().startswith("<b>Memory space: getting full.</b> Project ")
    assert "45 left" in window.banner.text.text()
    assert cell(page, row, COL_HEADROOM) == "45"
    assert cell(page, row, COL_LEVEL) == "getting full"
    assert table_item(page, row, COL_LEVEL).background().color() == QColor(
        LADDER_COLORS["degraded"]
    )
    assert cell(page, 0, COL_LEVEL) == "plenty of room"  # each scope has its own level


@pytest.mark.asyncio
async def test_double_click_opens_the_memories_page_for_that_project(
    qtbot: QtBot,
    open_window: OpenWindow,
    folders: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alpha, _ = folders
    window, page = await open_projects(open_window)
    shown: list[str] = []
    memories = window.page("memories")
    # The hook the Memories page may offer; the Projects page uses it when it is there.
    monkeypatch.setattr(memories, "show_project", shown.append)

    double_click(qtbot, page, row_of(page, alpha))

    await until(lambda: window.stack.currentWidget() is memories, what="the Memories page")
    assert shown == [workdir_hash(str(alpha))]

    window.open_page("projects")
    page.table.selectRow(0)
    assert page.open_button.isEnabled()
    qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)  # the button does the same

    assert window.stack.currentWidget() is memories
    assert shown == [workdir_hash(str(alpha)), ""]  # '' = the global scope
    await settle(window)


@pytest.mark.asyncio
async def test_enter_opens_the_memories_page_even_without_the_hook(
    qtbot: QtBot, open_window: OpenWindow, folders: tuple[Path, Path]
) -> None:
    window, page = await open_projects(open_window)
    page.table.setFocus()
    page.table.selectRow(1)

    qtbot.keyClick(page.table, Qt.Key.Key_Return)

    assert window.stack.currentWidget() is window.page("memories")
    await settle(window)


@pytest.mark.asyncio
async def test_a_folder_deleted_while_open_is_marked_after_a_refresh(
    open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    gamma = tmp_path / "gamma"
    gamma.mkdir()
    seed(home, [memory("build", "project", gamma)])
    _, page = await open_projects(open_window)
    assert cell(page, row_of(page, gamma), COL_EXISTS) == "Yes"
    page.table.selectRow(1)

    shutil.rmtree(gamma)
    page.refresh()

    await until(lambda: cell(page, 1, COL_EXISTS) == "Missing", what="the folder marked")
    assert (selected := page.selected()) is not None and selected["workdir_hash"] == workdir_hash(
        str(gamma)
    )  # the chosen row stays chosen


@pytest.mark.asyncio
async def test_an_empty_store_shows_the_global_row_and_explains(open_window: OpenWindow) -> None:
    _, page = await open_projects(open_window)

    assert page.table.rowCount() == 1
    assert cell(page, 0, COL_FOLDER) == "Global"
    assert cell(page, 0, COL_USED) == "0 / 500"
    assert page.count.text() == "0 projects"
    assert page.empty.isVisibleTo(page)
    assert page.empty.text().startswith("No project has memories yet.")
    assert not page.open_button.isEnabled()  # nothing chosen yet


@pytest.mark.asyncio
async def test_show_memories_follows_the_selection_not_only_the_current_row(
    open_window: OpenWindow, folders: tuple[Path, Path]
) -> None:
    _, page = await open_projects(open_window)
    page.table.selectRow(1)
    assert page.open_button.isEnabled()

    page.table.clearSelection()  # the current row stays row 1

    assert not page.open_button.isEnabled()
    page.table.selectRow(1)  # the same current row, selected again
    assert page.open_button.isEnabled()


@pytest.mark.asyncio
async def test_at_1024x640_every_row_and_its_folder_can_be_read(
    open_window: OpenWindow, folders: tuple[Path, Path], english: Translations
) -> None:
    """The table took 140 px under the other-stores box and its folder column shrank to "…"
    beside the figures; now its rows show and the folder keeps a readable width."""
    window, page = await open_projects(open_window)
    window.resize(1024, 640)
    try:
        for language in ("en", "zh_CN"):  # the headers' widths differ
            english.switch(language)
            await asyncio.sleep(0.05)  # layouts settle on the loop
            viewport = page.table.viewport().rect()
            for row in range(page.table.rowCount()):
                rect = page.table.visualRect(page.table.model().index(row, COL_FOLDER))
                assert viewport.contains(rect), (language, row, rect, viewport)
            assert page.table.columnWidth(COL_FOLDER) >= FOLDER_WIDTH
    finally:
        english.switch("en")


@pytest.mark.asyncio
async def test_the_folder_takes_a_wide_windows_room_and_every_figure_keeps_its_words(
    open_window: OpenWindow, folders: tuple[Path, Path], english: Translations
) -> None:
    """A stretched last column got only what the others left: at 1280 px "Memory space" and
    its words were cut. Now the folder column takes what is over, never under FOLDER_WIDTH."""
    window, page = await open_projects(open_window)
    header = page.table.horizontalHeader()
    last = header.count() - 1
    try:
        for width in (1024, 1280, 1920):
            window.resize(width, 800)
            for language in ("en", "zh_CN"):
                english.switch(language)
                await asyncio.sleep(0.05)  # layouts settle on the loop
                assert header.sectionSize(last) >= header.sectionSizeHint(last), width
                assert page.table.columnWidth(COL_FOLDER) >= FOLDER_WIDTH
                used = sum(header.sectionSize(i) for i in range(header.count()))
                room = page.table.viewport().width()
                if page.table.columnWidth(COL_FOLDER) > FOLDER_WIDTH:
                    assert used == room, (width, language)  # the folder filled the rest
                else:
                    assert used >= room, (width, language)  # narrow: the figures scroll
        assert page.table.columnWidth(COL_FOLDER) > FOLDER_WIDTH  # 1920 px leaves room over
    finally:
        english.switch("en")


@pytest.fixture
def one_project_two_paths(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path]:
    """One repository cloned at two paths: written from the first on "laptop", opened from
    the second on "desktop" (issue 19: portable projects)."""
    server = bare_repository(tmp_path / "server" / "shop.git")
    first = clone(server, tmp_path / "laptop" / "shop")
    second = clone(server, tmp_path / "desktop" / "checkout")
    monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "laptop")
    seed(home, [memory("build", "project", first), memory("deploy", "project", first)])
    monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "desktop")
    with MemoryStore.open(home) as store:
        assert store.project_key(str(second)) == workdir_hash(str(first))
    return first.resolve(), second.resolve()


@pytest.mark.asyncio
async def test_a_project_seen_at_two_paths_is_one_row_listing_both(
    open_window: OpenWindow, one_project_two_paths: tuple[Path, Path], english: Translations
) -> None:
    first, second = one_project_two_paths
    _, page = await open_projects(open_window)

    assert page.table.rowCount() == 2 and page.count.text() == "1 project"
    assert cell(page, 1, COL_FOLDER) == f"{first}\n{second} (on desktop)"
    assert cell(page, 1, COL_PROJECT) == "2" and cell(page, 1, COL_EXISTS) == "Yes"
    tip = table_item(page, 1, COL_FOLDER).toolTip().splitlines()
    assert tip[:3] == [
        str(first),
        f"{second} (on desktop)",
        f"Project key: {workdir_hash(str(first))}",
    ]
    assert tip[3].startswith("Found on every machine by: git:")
    # Both lines show: the row is as tall as its two lines.
    lines = page.table.fontMetrics().lineSpacing() * 2
    assert page.table.rowHeight(1) >= lines > page.table.rowHeight(0)

    english.switch("zh_CN")
    try:
        await asyncio.sleep(0.05)
        await page.load()
        assert cell(page, 1, COL_FOLDER) == f"{first}\n{second}（在 desktop 上）"
        assert "在每台机器上凭此识别：git:" in table_item(page, 1, COL_FOLDER).toolTip()
    finally:
        english.switch("en")

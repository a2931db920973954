"""The Memories page's table: columns, sorting over every memory, the header's column menu,
and what a row's context menu and shortcuts do (copy slug, open the file, show its folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QApplication, QHeaderView, QMenu
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.sorting import SortField
from liveagent_memory.ui.models import column_of
from liveagent_memory.ui.pages.memories import MemoriesPage
from tests.helpers.diskstore import memory_files, memory_text, set_age, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, RecordingClient, UrlCatcher, record_calls, seed
from tests.ui.test_memories_page import (
    GONE,
    click_row,
    current_file,
    memories_page,
    open_page,
    press,
    row_point,
    slugs,
)

TITLE, SCOPE = column_of(SortField.TITLE), column_of(SortField.SCOPE)


def titles(page: MemoriesPage) -> list[str]:
    return [str(page.model.index(row).data()) for row in range(page.model.rowCount())]


def cell(page: MemoriesPage, row: int, field: SortField, role: int = 0) -> Any:
    return page.model.index(row, column_of(field)).data(role)


def first_pages(client: RecordingClient) -> list[dict[str, Any]]:
    """The sort of each listing's first page asked for (a reload; later pages have offsets)."""
    return [
        {k: v for k, v in p.items() if k in ("sort", "direction")}
        for p in client.payloads("memory_list")
        if "offset" not in p
    ]


def click_header(qtbot: QtBot, page: MemoriesPage, column: int) -> None:
    """Click a column's header as a person would (sorts by it)."""
    header = page.list.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 4))


def open_popup(qtbot: QtBot, widget: Any, point: QPoint) -> QMenu:
    """Right-click `widget` at `point` and return the context menu that opened.

    The press selects what is under the mouse; the context-menu event is the one the window
    system sends with a right click (the offscreen platform sends none by itself).
    """
    qtbot.mouseClick(widget, Qt.MouseButton.RightButton, pos=point)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, widget.mapToGlobal(point))
    QApplication.sendEvent(widget, event)
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu), "no context menu opened"
    return menu


def entries(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def action(menu: QMenu, text: str) -> Any:
    return next(a for a in menu.actions() if a.text() == text)


# --- columns and sorting ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_table_shows_each_fact_in_its_own_column(
    open_window: OpenWindow, memories: list[dict[str, Any]], workdir: str
) -> None:
    _, page = await open_page(open_window)
    header = page.list.horizontalHeader()
    labels = [page.model.headerData(c, Qt.Orientation.Horizontal) for c in range(header.count())]
    assert labels == ["Title", "Type", "Scope", "Review", "Confidence", "Risk", "Updated"]
    # Type and confidence start hidden (the filters cover them): the title keeps its room.
    shown = [labels[c] for c in range(header.count()) if not header.isSectionHidden(c)]
    assert shown == ["Title", "Scope", "Review", "Risk", "Updated"]

    row = slugs(page).index("tea-preference")
    assert titles(page)[row] == "Likes green tea"  # no marks appended to the title
    assert cell(page, row, SortField.TYPE) == "user"
    assert cell(page, row, SortField.SCOPE) == "global"
    assert cell(page, row, SortField.REVIEWED) == "Unreviewed"
    assert cell(page, row, SortField.CONFIDENCE) == "high"
    assert cell(page, row, SortField.RISK) == ""
    assert cell(page, row, SortField.UPDATED) == "2026-11-30"
    project = slugs(page).index("build-command")
    assert cell(page, project, SortField.SCOPE) == "project"  # the folder's name
    tip = cell(page, project, SortField.SCOPE, Qt.ItemDataRole.ToolTipRole)
    assert tip == str(Path(workdir).resolve())
    assert cell(page, project, SortField.REVIEWED) == ""  # reviewed: nothing to mark


@pytest.mark.asyncio
async def test_identical_titles_from_two_projects_are_told_apart(
    open_window: OpenWindow, home: Path, tmp_path: Path, clock: FakeClock
) -> None:
    folders = [tmp_path / "work" / "shop", tmp_path / "home" / "blog"]
    for folder in folders:
        folder.mkdir(parents=True)
    seed(
        home,
        [
            {
                "slug": "build",
                "scope": "project",
                "workdir": str(folder),
                "type": "project",
                "description": "Build with make",
                "body": f"In {folder.name}, run make.\n",
            }
            for folder in folders
        ],
        clock=clock,
    )
    _, page = await open_page(open_window)

    assert titles(page) == ["Build with make", "Build with make"]
    assert [cell(page, r, SortField.SCOPE) for r in (0, 1)] == ["blog", "shop"]
    tips = [cell(page, r, SortField.SCOPE, Qt.ItemDataRole.ToolTipRole) for r in (0, 1)]
    assert tips == [str(folders[1].resolve()), str(folders[0].resolve())]
    assert str(folders[1].resolve()) in cell(page, 0, SortField.TITLE, Qt.ItemDataRole.ToolTipRole)


@pytest.mark.timeout(60)
@pytest.mark.asyncio
async def test_a_header_click_sorts_every_memory_not_only_the_loaded_page(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    total = 450  # three pages: the first title alphabetically is the oldest, on the last one
    for n in range(total):
        text = memory_text(f"note-{n:03d}", description=f"Entry {n + 100}")
        set_age(write_file(home, f"global/note-{n:03d}.md", text), total - n)
    before = memory_files(home)
    window = await open_window()
    page = memories_page(window)
    await until(lambda: page.current is not None, what="the first memory")
    client = record_calls(page)
    assert titles(page)[0] == "Entry 549"  # newest first
    assert page.model.row_of(("global", "", "note-000")) == -1  # "Entry 100": not loaded

    click_header(qtbot, page, TITLE)

    await until(lambda: titles(page)[:1] == ["Entry 100"], what="the title order")
    assert first_pages(client) == [{"sort": "title", "direction": "asc"}]
    assert page.list.horizontalHeader().sortIndicatorSection() == TITLE
    assert page.count.text() == "450 memories"
    page.list.scrollToBottom()
    await until(lambda: page.model.is_loaded(total - 1), what="the last page")
    assert titles(page)[-3:] == ["Entry 547", "Entry 548", "Entry 549"]

    click_header(qtbot, page, TITLE)  # again: the other way round
    await until(lambda: len(first_pages(client)) == 2, what="the list again")
    assert first_pages(client)[-1] == {"sort": "title", "direction": "desc"}
    await until(lambda: titles(page)[:2] == ["Entry 549", "Entry 548"], what="descending")

    click_header(qtbot, page, TITLE)  # a third time: the default order, newest first
    await until(lambda: len(first_pages(client)) == 3, what="the list again")
    assert first_pages(client)[-1] == {}
    assert page.list.horizontalHeader().sortIndicatorSection() == -1
    assert memory_files(home) == before  # sorting reads; nothing on disk changed


@pytest.mark.asyncio
async def test_search_matches_stay_in_relevance_order_until_a_header_is_clicked(
    qtbot: QtBot, open_window: OpenWindow, home: Path, clock: FakeClock
) -> None:
    seed(
        home,
        [
            {
                "slug": f"tea-{name}",
                "scope": "global",
                "type": "reference",
                "description": description,
                "body": body,
            }
            for name, description, body in (
                ("a", "Zen tea ceremony", "Tea, tea and more tea: the tea ceremony.\n"),
                ("b", "Morning drinks", "Coffee mostly, tea sometimes.\n"),
                ("c", "Kettle notes", "The kettle boils water for tea.\n"),
            )
        ],
        clock=clock,
    )
    window, page = await open_page(open_window)
    ranked = await window.bridge.run_store(
        dispatch, window.app_context.store, "memory_search", {"query": "tea", "limit": 32}
    )
    relevance = [hit["slug"] for hit in ranked["matches"]]
    by_title = ["tea-c", "tea-b", "tea-a"]  # Kettle, Morning, Zen
    assert relevance[0] == "tea-a" and relevance != by_title

    page.search.setText("tea")
    await until(lambda: slugs(page) == relevance, what="the matches, most relevant first")

    click_header(qtbot, page, TITLE)
    await until(lambda: slugs(page) == by_title, what="the matches by title")
    assert page.count.text() == "3 memories"  # the same matches, sorted
    click_header(qtbot, page, TITLE)
    await until(lambda: slugs(page) == by_title[::-1], what="descending")
    click_header(qtbot, page, TITLE)
    await until(lambda: slugs(page) == relevance, what="relevance again")


@pytest.mark.asyncio
async def test_columns_are_shown_and_hidden_from_the_header_menu(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    header: QHeaderView = page.list.horizontalHeader()
    confidence, risk = column_of(SortField.CONFIDENCE), column_of(SortField.RISK)

    menu = open_popup(qtbot, header.viewport(), QPoint(10, 4))
    assert entries(menu) == ["Title", "Type", "Scope", "Review", "Confidence", "Risk", "Updated"]
    assert not action(menu, "Title").isEnabled()  # the title always stays
    assert not action(menu, "Confidence").isChecked()
    action(menu, "Confidence").trigger()
    menu.close()
    assert not header.isSectionHidden(confidence)

    menu = open_popup(qtbot, header.viewport(), QPoint(10, 4))
    assert action(menu, "Confidence").isChecked()
    action(menu, "Risk").trigger()
    menu.close()
    assert header.isSectionHidden(risk)
    assert not header.isSectionHidden(TITLE)


# --- a row's actions --------------------------------------------------------------------------


@pytest.fixture
def opened(qapp: QApplication) -> Iterator[UrlCatcher]:
    """Every file URL the app opens, instead of a real editor or file manager."""
    catcher = UrlCatcher()
    # PySide6 6.11 takes the slot's name as str at run time (bytes is refused); its stub says
    # bytes.
    QDesktopServices.setUrlHandler("file", catcher, "open")  # type: ignore[arg-type]
    yield catcher
    QDesktopServices.unsetUrlHandler("file")


@pytest.mark.asyncio
async def test_a_rows_context_menu_copies_its_slug_and_opens_its_file(
    qtbot: QtBot,
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    home: Path,
    opened: UrlCatcher,
) -> None:
    _, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    path = current_file(page, home)

    menu = open_popup(qtbot, page.list.viewport(), row_point(page, "api-docs"))
    assert entries(menu)[:3] == ["Copy slug", "Open in editor", "Show in folder"]
    assert {"Edit…", "Accept", "History…", "Delete"} <= set(entries(menu))
    action(menu, "Copy slug").trigger()
    menu.close()
    assert QGuiApplication.clipboard().text() == "api-docs"
    assert page.notice.text() == "Copied api-docs."

    menu = open_popup(qtbot, page.list.viewport(), row_point(page, "api-docs"))
    action(menu, "Open in editor").trigger()
    menu.close()
    assert [url.toLocalFile() for url in opened.urls] == [str(path)]

    menu = open_popup(qtbot, page.list.viewport(), row_point(page, "api-docs"))
    action(menu, "Show in folder").trigger()
    menu.close()
    assert opened.urls[-1].toLocalFile() == str(path.parent)
    assert path.is_file()  # opening reads nothing and changes nothing


@pytest.mark.asyncio
async def test_row_shortcuts_act_on_the_selection(
    qtbot: QtBot,
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    home: Path,
    opened: UrlCatcher,
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "build-command")
    path = current_file(page, home)

    press(window, page.list, "Ctrl+O")
    press(window, page.list, "Ctrl+Shift+R")
    assert [url.toLocalFile() for url in opened.urls] == [str(path), str(path.parent)]

    await click_row(qtbot, page, "no-emoji", Qt.KeyboardModifier.ControlModifier)
    await until(lambda: "2 memories selected" in page.detail.toPlainText(), what="the two")
    press(window, page.list, "Ctrl+Shift+C")
    assert QGuiApplication.clipboard().text().splitlines() == ["no-emoji", "build-command"]
    assert page.notice.text() == "Copied 2 slugs."
    assert not page.open_file_action.isEnabled()  # one file at a time
    press(window, page.list, "Ctrl+O")
    assert len(opened.urls) == 2


@pytest.mark.asyncio
async def test_opening_a_file_deleted_behind_the_apps_back_says_so(
    qtbot: QtBot,
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    home: Path,
    opened: UrlCatcher,
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    current_file(page, home).unlink()

    press(window, page.list, "Ctrl+O")

    await until(lambda: window.statusBar().currentMessage() == GONE, what="the error line")
    assert opened.urls == []
    assert window.error_bar.isHidden()  # a typed error, not a bug
    assert "no-emoji" in slugs(page)  # the rest of the list is untouched

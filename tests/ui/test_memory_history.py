"""A memory's history: versions with time, who and what under the current one, any version's
text, diffs between versions, and restoring one brings its text back."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.widgets.history_view import HistoryView
from tests.helpers.checks import present
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, sample_memories, seed
from tests.ui.test_memories_page import (
    choose,
    click_row,
    current_file,
    detail_lines,
    open_page,
    press,
    read,
    slugs,
)
from tests.ui.test_memory_editor import open_editor, save

ORIGINAL = "The user **prefers** green tea in the morning."


@pytest.fixture
def memories(home: Path, workdir: str) -> list[dict[str, Any]]:
    # The real clock: the app's edits must come after the seed's writes in the history.
    items = sample_memories(workdir)
    seed(home, items)
    return items


def rows(view: HistoryView) -> list[tuple[str, str]]:
    """(who, what) of every version, newest first."""
    table = view.table
    return [
        (present(table.topLevelItem(n)).text(1), present(table.topLevelItem(n)).text(2))
        for n in range(table.topLevelItemCount())
    ]


async def open_history(qtbot: QtBot, page: MemoriesPage) -> HistoryView:
    qtbot.mouseClick(page.history_button, Qt.MouseButton.LeftButton)
    view = page.history
    assert view is not None and view.isVisible()
    await until(lambda: view.table.topLevelItemCount() > 0, what="the versions")
    return view


async def edit_body(qtbot: QtBot, page: MemoriesPage, body: str) -> None:
    editor = open_editor(qtbot, page)
    editor.body.setPlainText(body)
    await save(qtbot, page, editor)
    assert page.editor is None, editor.error.text()


@pytest.mark.asyncio
async def test_history_lists_versions_and_restore_brings_an_earlier_text_back(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    started = datetime.now().date()
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    path = current_file(page, home)
    await edit_body(qtbot, page, "# Tea\n\nNow the user prefers oolong.")
    await edit_body(qtbot, page, "# Tea\n\nNow the user prefers coffee.")
    assert "coffee" in path.read_text(encoding="utf-8")

    view = await open_history(qtbot, page)

    assert view.windowTitle() == "History of tea-preference"
    assert rows(view) == [
        ("", "Current version"),
        ("a person", "Changed"),
        ("a person", "Changed"),
        ("extraction", "Created"),
    ]
    # The app runs on the real clock: each version is dated today, whatever year that is.
    days = (started.isoformat(), datetime.now().date().isoformat())  # a test across midnight
    assert all(present(view.table.topLevelItem(n)).text(0)[:10] in days for n in range(1, 4))
    # The first version was written by extraction: nothing earlier to restore.
    view.select_version(view.entries[2]["version"])
    assert not view.restore_button.isEnabled()
    assert "nothing to restore" in view.preview.toPlainText()
    # The first change kept the text as extraction wrote it.
    view.select_version(view.entries[1]["version"])
    assert view.restore_button.isEnabled()

    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)

    await until(lambda: ORIGINAL in path.read_text(encoding="utf-8"), what="the file restored")
    assert "coffee" not in path.read_text(encoding="utf-8")
    stored = await read(window, "tea-preference")
    assert stored["evidence"]["source_quote"] == "I always drink green tea"  # evidence too
    await until(lambda: rows(view)[1] == ("a person", "Restored"), what="the history to grow")
    assert len(rows(view)) == 5  # the replaced text is kept: the restore can be undone
    assert view.status.text().startswith("Restored.")
    await until(lambda: (view.selected() or {}).get("version") == "current", what="now")
    assert ORIGINAL in view.preview.toPlainText()  # the restored text is the current one
    await until(
        lambda: "The user prefers green tea in the morning." in detail_lines(page),
        what="the detail to show the restored text",
    )
    assert page.current is not None and page.current["slug"] == "tea-preference"

    # Undo the restore from the same history: coffee comes back.
    view.select_version(view.entries[0]["version"])
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    await until(lambda: "coffee" in path.read_text(encoding="utf-8"), what="the undo")


@pytest.mark.asyncio
async def test_a_memory_written_once_has_nothing_to_restore(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")

    press(window, page.list, "Ctrl+H")
    view = page.history
    assert view is not None
    await until(lambda: view.table.topLevelItemCount() == 2, what="the one version")

    assert rows(view) == [("", "Current version"), ("a person", "Created")]
    assert not view.restore_button.isEnabled()
    view.reject()
    assert page.history is None


@pytest.mark.asyncio
async def test_restoring_a_version_that_vanished_says_so_and_changes_nothing(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "no-emoji")
    path = current_file(page, home)
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: "no-emoji" not in slugs(page), what="the deletion")
    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.current is not None and page.current["slug"] == "no-emoji",
                what="the memory back")  # fmt: skip
    view = await open_history(qtbot, page)
    # Undo put back the very file the trash holds: that copy's text is the current one.
    assert ("unknown", "Deleted (copy in the trash) (same text as now)") in rows(view)
    trash_row = next(n for n, e in enumerate(view.entries) if e["source"] == "trash")
    view.select_version(view.entries[trash_row]["version"])
    assert "Keep commit messages plain text." in view.preview.toPlainText()
    before = path.read_bytes()
    for copy in (home / "global" / ".trash").glob("no-emoji*"):
        copy.unlink()  # the trash was emptied behind the app's back

    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)

    await until(lambda: not view.status.isHidden(), what="the error")
    assert view.status.text() == "That version is no longer available."
    assert window.statusBar().currentMessage() == "That version is no longer available."
    assert path.read_bytes() == before
    assert view.restore_button.isEnabled()  # the person may try another version


@pytest.mark.asyncio
async def test_history_shows_any_versions_text_and_diffs_it_with_another_or_the_current(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    await edit_body(qtbot, page, "# Tea\n\nNow the user prefers oolong.")
    await edit_body(qtbot, page, "# Tea\n\nNow the user prefers coffee.")

    view = await open_history(qtbot, page)

    assert view.selected() == view.current_entry()  # the current version first, chosen
    assert view.caption.text() == "The memory as it is now."
    assert "Now the user prefers coffee." in view.preview.toPlainText()
    assert not view.restore_button.isEnabled()  # it is already the current one
    view.select_version(view.entries[0]["version"])  # just before the coffee edit
    assert "Now the user prefers oolong." in view.preview.toPlainText()
    assert view.caption.text().startswith("The memory just before this change")

    tab_bar = view.tabs.tabBar()
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(1).center())

    assert view.tabs.currentIndex() == 1
    assert view.compare.currentText() == "the current version"
    diff = view.diff.browser.toPlainText()
    assert "-Now the user prefers oolong." in diff and "+Now the user prefers coffee." in diff
    assert view.diff.caption.text().endswith("· Changed to the current version")
    # What a person reads, not the file's bookkeeping (the Text tab shows the whole file).
    assert "updatedAt" not in diff and "createdAt" not in diff

    choose(view.compare, view.version_name(view.entries[1]))  # pick a second version
    diff = view.diff.browser.toPlainText()
    assert f"-{ORIGINAL}" in diff and "+Now the user prefers oolong." in diff  # older → newer
    assert "coffee" not in diff
    assert "-Needs review\n+Reviewed" in diff  # the person's edit reviewed the agent's memory

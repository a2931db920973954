"""The Memories page offers a sync conflict as two versions of one memory (issue 19): side by
side, keep this one, keep the other, or a merged text, the loser kept in the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.pages.memory_sync import SyncConflictDialog, differing_words
from liveagent_memory.ui.window import MainWindow
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow

COPY = "global/tea-note (conflicted copy 2026-01-02).md"


def page_of(window: MainWindow) -> MemoriesPage:
    page = window.page("memories")
    assert isinstance(page, MemoriesPage)
    return page


def seed_conflict(home: Path) -> None:
    write_file(home, "global/tea-note.md", memory_text("tea-note", body="Green tea at nine."))
    write_file(home, COPY, memory_text("tea-note", body="Black tea at ten."))


async def open_conflict(qtbot: QtBot, open_window: OpenWindow, home: Path) -> MemoriesPage:
    seed_conflict(home)
    window = await open_window()
    page = page_of(window)
    await until(lambda: page.problems_button.isVisible(), what="the problems button")
    qtbot.mouseClick(page.problems_button, Qt.MouseButton.LeftButton)
    resolve = page.problems_panel.resolve_button
    assert resolve.isVisible() and resolve.isEnabled()
    assert page.problems_panel.selected_conflict() == COPY
    qtbot.mouseClick(resolve, Qt.MouseButton.LeftButton)
    await until(lambda: page.sync_dialog is not None, what="the two versions")
    return page


def shown(dialog: SyncConflictDialog, side: str) -> str:
    return dialog.views[side].toPlainText()


def test_what_differs_is_the_words_the_other_side_lacks() -> None:
    assert differing_words("Green tea at nine.", "Black tea at ten.") == ["Green", "nine"]
    assert differing_words("Roll back by switching back.", "Roll back by switching back.") == []


@pytest.mark.asyncio
async def test_keeping_the_other_version_writes_it_and_keeps_this_one_in_history(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    page = await open_conflict(qtbot, open_window, home)
    dialog = page.sync_dialog
    assert dialog is not None
    assert "Green tea at nine." in shown(dialog, "original")
    assert "Black tea at ten." in shown(dialog, "copy")
    assert "#ffe08a" in dialog.views["copy"].toHtml().lower()  # what differs is marked

    qtbot.mouseClick(dialog.keep_copy_button, Qt.MouseButton.LeftButton)

    await until(lambda: not (home / COPY).exists(), what="the copy to go")
    await until(lambda: not page.problems_button.isVisible(), what="no problem left")
    assert "Black tea" in (home / "global" / "tea-note.md").read_text("utf-8")
    assert "one version kept" in page.notice.text()
    history = dispatch(
        page.client.context, "memory_history", {"slug": "tea-note", "with_text": True}
    )
    texts = [entry.get("text") or "" for entry in history["entries"] if entry["restorable"]]
    assert any("Green tea at nine." in text for text in texts)


@pytest.mark.asyncio
async def test_a_merged_text_is_written_as_edited(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    page = await open_conflict(qtbot, open_window, home)
    dialog = page.sync_dialog
    assert dialog is not None
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    assert dialog.stack.currentWidget() is dialog.editor and dialog.save_button.isVisible()
    merged = memory_text("tea-note", body="Green tea at nine, black tea at ten.")
    dialog.editor.setPlainText(merged)

    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    await until(lambda: not (home / COPY).exists(), what="the copy to go")
    assert "Green tea at nine, black tea at ten." in (home / "global" / "tea-note.md").read_text()


@pytest.mark.asyncio
async def test_cancel_changes_nothing(qtbot: QtBot, open_window: OpenWindow, home: Path) -> None:
    page = await open_conflict(qtbot, open_window, home)
    dialog = page.sync_dialog
    assert dialog is not None
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.sync_dialog is None, what="the dialog to close")
    assert (home / COPY).exists()
    answer: Any = dispatch(page.client.context, "sync_status", {})
    assert answer["count"] == 1


GIT_COPY = "global/tea-note.git-conflict-20260102-101010-0a1b2c3.md"


@pytest.mark.asyncio
async def test_a_git_sync_copy_is_offered_as_two_versions_not_as_markers(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    # What store/git_sync.py leaves for a memory edited on two machines: ours in place, theirs
    # beside it (tool "git", like a file with markers, but a copy).
    write_file(home, "global/tea-note.md", memory_text("tea-note", body="Green tea at nine."))
    write_file(home, GIT_COPY, memory_text("tea-note", body="Black tea at ten."))
    window = await open_window()
    page = page_of(window)
    await until(lambda: page.problems_button.isVisible(), what="the problems button")
    qtbot.mouseClick(page.problems_button, Qt.MouseButton.LeftButton)
    assert page.problems_panel.selected_conflict() == GIT_COPY
    qtbot.mouseClick(page.problems_panel.resolve_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.sync_dialog is not None, what="the two versions")
    dialog = page.sync_dialog
    assert dialog is not None
    assert shown(dialog, "original").startswith("This version")
    assert shown(dialog, "copy").startswith("The other version")
    assert "Black tea at ten." in shown(dialog, "copy")
    qtbot.mouseClick(dialog.keep_copy_button, Qt.MouseButton.LeftButton)
    await until(lambda: not (home / GIT_COPY).exists(), what="the copy to go")
    assert "Black tea" in (home / "global" / "tea-note.md").read_text("utf-8")

"""Undo on the Memories page: the last accept, edit or delete, through one store call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from tests.helpers.diskstore import memory_files
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_calls, sample_memories, seed
from tests.ui.test_memories_page import click_row, current_file, fact, open_page, read
from tests.ui.test_memory_editor import open_editor, save

CHANGED = "This memory changed since, so undo would overwrite that; nothing was changed."


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    items = sample_memories(workdir)
    seed(home, items, clock=clock)
    return items


@pytest.mark.asyncio
async def test_undo_an_accept_puts_back_the_unreviewed_file_exactly(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    calls = record_calls(page)
    await click_row(qtbot, page, "tea-preference")
    before = memory_files(home)
    assert page.undo_button.text() == "Undo" and not page.undo_button.isEnabled()

    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)
    await until(lambda: fact(page, "Review") == "reviewed", what="the detail reviewed")
    assert page.undo_button.text() == "Undo accept" and page.undo_button.isEnabled()
    assert memory_files(home) != before

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: fact(page, "Review") == "unreviewed", what="the detail unreviewed")
    assert memory_files(home) == before  # byte for byte, every file
    assert page.notice.text() == "Undid accepting 1 memory: it waits for review again."
    assert not page.undo_button.isEnabled() and page.undo_button.text() == "Undo"
    assert page.accept_button.isEnabled()
    (accept,) = calls.payloads("memory_accept")
    assert calls.payloads("memory_undo") == [{**accept, "change": "audit:5"}]


@pytest.mark.asyncio
async def test_undo_an_edit_brings_the_text_back_as_a_new_version(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    path = current_file(page, home)
    original = path.read_bytes()
    editor = open_editor(qtbot, page)
    editor.body.setPlainText("The API reference moved to the handbook.")
    await save(qtbot, page, editor)
    assert page.undo_button.text() == "Undo edit"

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: path.read_bytes() == original, what="the text before the edit")
    await until(
        lambda: page.notice.text() == "Undid the edit: the text before it is back.",
        what="the notice",
    )
    stored = await read(window, "api-docs")
    assert stored["content"] == "The API reference is on the team wiki."
    store = window.app_context.store
    entries = dispatch(store, "memory_history", {"slug": "api-docs", "with_text": True})["entries"]
    assert [e["op"] for e in entries] == ["restore", "update", "write"]
    assert "handbook" in entries[0]["text"]  # the edit is kept: it can be restored


@pytest.mark.asyncio
async def test_undo_after_a_change_on_disk_is_refused_and_keeps_it(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    path = current_file(page, home)
    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)
    await until(lambda: fact(page, "Review") == "reviewed", what="the accept")
    edited = path.read_text(encoding="utf-8").replace("green tea", "jasmine tea")
    path.write_text(edited, encoding="utf-8")  # someone edits the file by hand

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: window.statusBar().currentMessage() == CHANGED, what="the refusal")
    assert path.read_text(encoding="utf-8") == edited  # never overwritten
    assert page.undo_button.isEnabled()  # still on offer: the person may look and decide

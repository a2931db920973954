"""The journal apart from the memories: the Memories page never lists or finds a journal day,
and the Journal page links a day's sources to their entries and an entry to its memories."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.pages.journal import CHOSEN_BG, JournalPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.checks import present
from tests.helpers.memories import memory_payload
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_searches
from tests.ui.test_journal_page import detail, open_journal
from tests.ui.test_memories_page import current_slug, memories_page, open_page, slugs


def extraction(
    store: MemoryStore, conversation: str, line: str, *items: dict[str, Any], **batch: Any
) -> None:
    """What post-turn extraction sends: its memories and a journal line in one batch."""
    dispatch(
        store,
        "memory_apply_batch",
        {
            "actor": "extractor",
            "conversation_id": conversation,
            "model": "test-model",
            "trigger": "post-turn",
            "items": [{"op": "upsert", **item} for item in items],
            "daily_append": {"bullet": line},
            **batch,
        },
    )


@pytest.fixture
def journal(home: Path, workdir: str) -> None:
    """Today's journal: two entries of conv-tea (one with a memory), one of conv-build (a
    project memory) and one appended by hand, in that order."""
    with MemoryStore.open(home) as store:
        tea = memory_payload("tea-pref", type="user", description="Likes green tea")
        extraction(store, "conv-tea", "Learned the user likes tea.", tea)
        build = memory_payload("build-cmd", scope="project", type="project", description="Build")
        extraction(store, "conv-build", "Found the build command.", build, workdir=workdir)
        extraction(store, "conv-tea", "The user also likes it hot.")
        dispatch(store, "memory_daily_append", {"body": "A note by hand.", "actor": "user"})


def click_link(qtbot: QtBot, browser: QTextBrowser, href: str) -> None:
    """Scroll to the link whose target is `href` and click it, as a person would."""
    document = browser.document()
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                where = browser.cursorRect(cursor).center()
                assert browser.anchorAt(where) == href
                qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=where)
                return
            fragments += 1
        block = block.next()
    raise AssertionError(f"no link to {href} is shown")


def highlighted(page: JournalPage) -> int:
    """How many entries are shown highlighted (their box's background)."""
    return page.detail.toHtml().count(f'bgcolor="{CHOSEN_BG}"')


async def opened(open_window: OpenWindow) -> tuple[MainWindow, JournalPage]:
    window, page = await open_journal(open_window)
    await until(lambda: "A note by hand." in detail(page) and page.entries is not None,
                what="today's entries")  # fmt: skip
    return window, page


@pytest.mark.asyncio
async def test_a_source_selects_the_entries_of_its_conversation(
    qtbot: QtBot, open_window: OpenWindow, journal: None
) -> None:
    window, page = await opened(open_window)
    assert page.entries is not None and page.entries["paired"] is True
    assert page.chosen == set() and highlighted(page) == 0
    text = detail(page)
    assert text.index("Learned the user likes tea.") < text.index("A note by hand.")

    click_link(qtbot, page.detail, f"{page._scheme}:source/2")  # the third source: conv-tea

    await until(lambda: page.chosen == {0, 2}, what="conv-tea's entries chosen")
    assert highlighted(page) == 2  # on screen

    click_link(qtbot, page.detail, f"{page._scheme}:source/3")  # by hand: no conversation
    await until(lambda: page.chosen == {3}, what="the hand-written entry alone")
    assert highlighted(page) == 1


@pytest.mark.asyncio
async def test_an_entry_leads_to_the_memory_it_came_from(
    qtbot: QtBot, open_window: OpenWindow, journal: None, workdir: str
) -> None:
    window, page = await opened(open_window)
    assert "Memories from this conversation: Build" in detail(page)

    click_link(qtbot, page.detail, f"{page._scheme}:memory/1/0")  # the build entry's memory

    memories = memories_page(window)
    assert window.nav.currentRow() == window.pages.index(memories)
    # Its project's list, the other filters cleared, and it selected.
    await until(lambda: slugs(memories) == ["build-cmd"], what="the project's list")
    await until(lambda: current_slug(memories) == "build-cmd", what="the memory shown")
    assert memories.project.currentData() == present(memories.current)["workdir_hash"]


@pytest.mark.asyncio
async def test_a_link_in_an_entrys_own_text_does_nothing(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    with MemoryStore.open(home) as store:
        extraction(store, "conv-1", "See [the notes](source/0) and [more](memory/0/0).")
    window, page = await open_journal(open_window)
    await until(lambda: "See the notes" in detail(page), what="the entry")
    before = page.detail.toHtml()

    click_link(qtbot, page.detail, "source/0")
    click_link(qtbot, page.detail, "memory/0/0")
    await asyncio.sleep(0.05)

    assert page.chosen == set() and page.detail.toHtml() == before
    assert window.nav.currentRow() == window.pages.index(page)


@pytest.mark.asyncio
async def test_the_memories_search_finds_no_journal_day(
    qtbot: QtBot, open_window: OpenWindow, journal: None, home: Path
) -> None:
    window, page = await open_page(open_window)
    searches = record_searches(page)
    assert sorted(slugs(page)) == ["build-cmd", "tea-pref"]

    qtbot.keyClicks(page.search, "tea")  # the journal mentions tea twice

    await until(lambda: searches.results != [], what="the search")
    await until(lambda: slugs(page) == ["tea-pref"], what="the one memory found")
    assert searches.payloads[0]["include_daily"] is False
    assert not any(hit["type"] == "daily" for hit in searches.results[0]["matches"])
    # The same search with the agent's defaults still finds the journal day.
    with MemoryStore.open(home) as store:
        found = dispatch(store, "memory_search", {"query": "tea", "include_all_projects": True})
    assert any(hit["type"] == "daily" for hit in found["matches"])

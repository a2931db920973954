"""The lazy memory list model: pages on demand, coalesced, newest query wins."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtTest import QSignalSpy
from PySide6.QtWidgets import QApplication, QListView
from pytestqt.qtbot import QtBot

from liveagent_memory.domain.errors import IndexUnavailable
from liveagent_memory.ui.models import (
    ENTRY_ROLE,
    KEY_ROLE,
    MemoryListModel,
    OneLineDelegate,
)
from tests.helpers.waiting import until
from tests.ui.conftest import ended

PAGE = 10  # a small page keeps the fake listings short


def row(number: int) -> dict[str, Any]:
    return {
        "slug": f"note-{number:03d}",
        "scope": "global",
        "workdir_hash": "",
        "type": "reference",
        "description": f"Note {number}",
        "unreviewed": number % 2 == 0,
    }


class FakeListing:
    """memory_list over `total` rows, recording each fetch; `gate` holds fetches back."""

    def __init__(
        self,
        total: int,
        *,
        fail_offsets: set[int] | None = None,
        failure: Exception | None = None,
    ) -> None:
        self.total = total
        self.fetches: list[int] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_offsets = fail_offsets or set()
        self.failure = failure or IndexUnavailable("the index is locked")
        self.tasks: list[asyncio.Task[None]] = []

    async def fetch(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        self.fetches.append(offset)
        await self.gate.wait()
        if offset in self.fail_offsets:
            raise self.failure
        rows = [row(n) for n in range(offset, min(offset + limit, self.total))]
        return rows, self.total

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self.tasks.append(asyncio.get_running_loop().create_task(coro))

    def first_page(self) -> dict[int, list[dict[str, Any]]]:
        return {0: [row(n) for n in range(min(PAGE, self.total))]}


@pytest.fixture
def owner(qapp: QApplication) -> Iterator[QObject]:
    """The models' Qt parent, as a page is in the app: freed after the test, on this thread
    (a failed fetch's traceback puts a model in a reference cycle)."""
    parent = QObject()
    yield parent
    shiboken6.delete(parent)


def paged(listing: FakeListing, owner: QObject | None = None) -> MemoryListModel:
    model = MemoryListModel(owner, page_size=PAGE)
    model.set_paged(listing.total, listing.first_page(), listing.fetch, listing.spawn)
    return model


def test_set_rows_shows_a_small_result_directly(qapp: QApplication) -> None:
    model = MemoryListModel()
    resets = QSignalSpy(model.modelReset)
    rows: list[dict[str, Any]] = [
        {"slug": "tea", "scope": "global", "workdir_hash": "", "type": "user",
         "description": "Likes tea", "unreviewed": True},
        {"slug": "make", "scope": "project", "workdir_hash": "abc", "type": "project",
         "description": "", "risk_flag": "low"},
    ]  # fmt: skip

    model.set_rows(rows)
    rows.clear()  # the model keeps its own list

    assert resets.count() == 1
    assert model.rowCount() == 2
    assert model.rowCount(model.index(0)) == 0  # a flat list: rows have no children
    first, second = model.index(0), model.index(1)
    assert first.data() == "Likes tea •"
    assert second.data() == "make ⚠"  # no description: the slug; flagged: a warning mark
    assert first.data(Qt.ItemDataRole.ToolTipRole) == "tea (global/user)"
    assert second.data(KEY_ROLE) == ("project", "abc", "make")
    assert first.data(ENTRY_ROLE)["description"] == "Likes tea"
    assert model.data(first, Qt.ItemDataRole.DecorationRole) is None
    assert model.data(QModelIndex()) is None
    assert model.data(model.index(5)) is None
    assert model.row_of(("project", "abc", "make")) == 1
    assert model.row_of(("global", "", "make")) == -1

    model.set_rows([])
    assert model.rowCount() == 0
    assert resets.count() == 2


@pytest.mark.asyncio
async def test_rows_not_loaded_show_a_placeholder_and_load_their_page_once() -> None:
    listing = FakeListing(45)
    model = paged(listing)
    changed = QSignalSpy(model.dataChanged)

    assert model.rowCount() == 45
    assert model.index(3).data() == "Note 3"  # the first page came with the listing
    assert model.index(42).data() == "Loading…"
    assert model.index(42).data(KEY_ROLE) is None
    assert model.index(42).data(Qt.ItemDataRole.ForegroundRole) is not None  # greyed
    for number in range(40, 45):  # a view paints the whole page: still one fetch
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, KEY_ROLE):
            model.index(number).data(role)

    await until(lambda: model.is_loaded(42), what="the last page")
    assert listing.fetches == [40]
    assert model.index(42).data() == "Note 42 •"
    assert model.index(44).data(KEY_ROLE) == ("global", "", "note-044")
    assert changed.count() == 1
    first, last = changed.at(0)[0], changed.at(0)[1]
    assert (first.row(), last.row()) == (40, 44)
    assert model.row_of(("global", "", "note-043")) == 43
    assert model.row_of(("global", "", "note-025")) == -1  # its page is not loaded
    assert model.loaded_rows() == 15


@pytest.mark.asyncio
async def test_the_page_asked_for_last_loads_first() -> None:
    listing = FakeListing(100)
    listing.gate.clear()
    model = paged(listing)

    model.index(15).data()  # page 1 starts loading and waits at the gate
    await until(lambda: listing.fetches == [10], what="the first fetch")
    for number in (25, 35, 95):  # a fast scroll past pages 2 and 3 to page 9
        model.index(number).data()
    listing.gate.set()

    await until(lambda: all(model.is_loaded(n) for n in (15, 25, 35, 95)), what="all four")
    assert listing.fetches == [10, 90, 30, 20]  # where the scroll stopped, then back


@pytest.mark.asyncio
async def test_a_newer_query_discards_pages_of_the_old_one() -> None:
    old = FakeListing(50)
    old.gate.clear()
    model = paged(old)
    generation = model.generation
    model.index(33).data()
    await until(lambda: old.fetches == [30], what="the old page on its way")

    new = FakeListing(50)
    model.set_paged(new.total, new.first_page(), new.fetch, new.spawn)
    changed = QSignalSpy(model.dataChanged)
    old.gate.set()
    await asyncio.gather(*old.tasks)

    assert model.generation == generation + 1
    assert not model.is_loaded(33)  # the stale page was dropped, not shown
    assert changed.count() == 0
    model.index(33).data()  # the new query loads it again, from its own source
    await until(lambda: model.is_loaded(33), what="the new page")
    assert new.fetches == [30]


@pytest.mark.asyncio
async def test_a_failed_page_is_reported_once_and_not_retried(owner: QObject) -> None:
    listing = FakeListing(30, fail_offsets={20})
    model = paged(listing, owner)
    failures = QSignalSpy(model.fetch_did_fail)

    model.index(25).data()
    await until(lambda: failures.count() == 1, what="the failure")
    assert isinstance(failures.at(0)[0], IndexUnavailable)
    for _ in range(3):
        assert model.index(25).data() == "Loading…"
    await asyncio.sleep(0.05)
    assert listing.fetches == [20]
    assert failures.count() == 1
    model.index(15).data()  # other pages still load
    await until(lambda: model.is_loaded(15), what="another page")


@pytest.mark.asyncio
async def test_a_bug_in_a_page_fetch_leaves_the_task_once_and_is_not_retried(
    owner: QObject,
) -> None:
    bug = TypeError("a row without its slug")
    listing = FakeListing(30, fail_offsets={20}, failure=bug)
    model = paged(listing, owner)
    failures = QSignalSpy(model.fetch_did_fail)

    model.index(25).data()
    [task] = listing.tasks
    await ended(task)

    assert task.exception() is bug  # the owner's task fails: the bridge reports it as a bug
    assert failures.count() == 0  # not shown as a typed error
    for _ in range(3):
        assert model.index(25).data() == "Loading…"
    await asyncio.sleep(0.05)
    assert listing.fetches == [20]  # not asked again on every repaint
    assert len(listing.tasks) == 1
    model.index(15).data()  # other pages still load
    await until(lambda: model.is_loaded(15), what="another page")


@pytest.mark.asyncio
async def test_a_changed_total_asks_the_owner_to_query_again() -> None:
    listing = FakeListing(30)
    model = paged(listing)
    drift = QSignalSpy(model.total_did_change)
    listing.total = 28  # two memories were deleted by another process

    model.index(25).data()
    await until(lambda: model.is_loaded(25), what="the page")

    assert drift.count() == 1
    assert not model.is_loaded(29)  # rows past the new end stay placeholders until requeried


@pytest.mark.asyncio
async def test_ensure_rows_loads_every_page_of_a_selection_now() -> None:
    listing = FakeListing(60)
    model = paged(listing)

    entries = await model.ensure_rows([5, 25, 26, 55, 99])

    assert [e["slug"] for e in entries] == ["note-005", "note-025", "note-026", "note-055"]
    assert listing.fetches == [20, 50]  # page 0 was known; 99 is past the end


@pytest.mark.asyncio
async def test_keyboard_search_looks_only_at_loaded_rows(qtbot: QtBot) -> None:
    listing = FakeListing(60)
    model = paged(listing)
    view = QListView()
    qtbot.addWidget(view)
    view.setModel(model)

    hits = model.match(model.index(0), Qt.ItemDataRole.DisplayRole, "note 5", -1)
    assert [index.row() for index in hits] == [5]  # 50..59 are not loaded: not searched
    view.keyboardSearch("note 7")
    assert view.currentIndex().row() == 7
    await asyncio.sleep(0.05)
    assert listing.fetches == []


@pytest.mark.asyncio
async def test_a_list_view_of_thousands_reads_only_what_it_shows(qtbot: QtBot) -> None:
    listing = FakeListing(5000)
    model = paged(listing)
    view = QListView()
    qtbot.addWidget(view)
    view.setUniformItemSizes(True)
    view.setItemDelegate(OneLineDelegate(view))
    view.setModel(model)
    view.resize(300, 240)
    view.show()
    await until(lambda: model.is_loaded(10), what="the rows on screen")
    # Only pages on screen were read: sizing the rows read none (Qt samples the last row).
    on_screen = view.viewport().height() // view.sizeHintForRow(0) + 1
    assert view.sizeHintForRow(0) > 5
    assert listing.fetches and max(listing.fetches) < on_screen
    listing.fetches.clear()

    view.scrollToBottom()
    await until(lambda: model.is_loaded(4999), what="the last row")
    assert listing.fetches[0] == 4990  # the last row's page first
    assert min(listing.fetches) >= 5000 - on_screen - PAGE  # and nothing far from the screen

"""The Learning page: contexts counted per day drawn as charts, and the patterns and skills
contexts used, on a real store and window (offscreen)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTableWidget

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.pages.learning import (
    COL_EPISODES,
    COL_KIND,
    COL_MEMORY,
    COL_TIMES,
    COL_WHAT,
    LearningPage,
)
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.episodes import charge_card_failures
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_calls
from tests.ui.test_memories_page import current_slug, memories_page

DAY_MS = 24 * 3600 * 1000
SKILL = {
    "slug": "login-recovery",
    "scope": "global",
    "type": "skill",
    "description": "Recover the login service",
    "body": "## When to use\n\nThe login service is down.\n\n## Steps\n\n1. Restart it.\n",
}


def ask(store: MemoryStore, query: str, task_type: str | None = None) -> None:
    payload: dict[str, object] = {"query": query, "providers": []}
    if task_type is not None:
        payload["task_type"] = task_type
    dispatch(store, "memory_context", payload)


def seed_contexts(home: Path) -> None:
    """A skill, two contexts two days ago (one finds nothing), one today that uses the skill."""
    now = system_clock()
    with MemoryStore.open(home, clock=lambda: now - 2 * DAY_MS) as store:
        dispatch(store, "memory_write", SKILL)
        ask(store, "restart the login service", "implementation")
        ask(store, "zebra crossings", "exploration")
    with MemoryStore.open(home) as store:
        ask(store, "write the login service recovery", "implementation")


def cell(page: LearningPage, row: int, column: int) -> str:
    item = page.used.item(row, column)
    assert item is not None
    return item.text()


async def open_learning(open_window: OpenWindow) -> tuple[MainWindow, LearningPage]:
    window = await open_window()
    page = window.page("learning")
    assert isinstance(page, LearningPage)
    window.open_page("learning")
    await until(lambda: page.report is not None, what="the metrics report")
    return window, page


@pytest.mark.asyncio
async def test_each_day_is_charted_and_the_skill_used_is_listed(
    open_window: OpenWindow, home: Path
) -> None:
    seed_contexts(home)
    window, page = await open_learning(open_window)

    assert page.summary.text().startswith("3 contexts since ")
    chart = page.charts["contexts"][1]
    assert len(chart.days) == 30
    assert chart.bars[0].values[-3:] == [2, 0, 1]
    assert chart.line is not None and chart.line.values[-3:] == [0.5, None, 1.0]
    types = {series.name: series.values[-3:] for series in page.charts["task_types"][1].bars}
    assert types["implementation"] == [1, 0, 1] and types["exploration"] == [1, 0, 0]
    # Every day with contexts is said in words, for screen readers and the tooltip alike.
    today = chart.days[-1]
    assert f"{today}\ncontexts: 1\nhit rate: 100%" in chart.accessibleDescription()
    assert chart.day_text(len(chart.days) - 2).endswith("hit rate: —")
    assert chart.day_at(chart.slot(len(chart.days) - 1).center().x()) == len(chart.days) - 1

    assert page.used.isVisible() and not page.used_empty.isVisible()
    assert page.used.rowCount() == 1
    row = [cell(page, 0, c) for c in (COL_MEMORY, COL_KIND, COL_TIMES)]
    assert row == ["Recover the login service", "skill", "2"]

    page.used.itemActivated.emit(page.used.item(0, COL_MEMORY))
    memories = memories_page(window)
    assert window.nav.currentRow() == window.pages.index(memories)
    await until(lambda: current_slug(memories) == "login-recovery", what="the skill shown")


@pytest.mark.asyncio
async def test_the_period_asks_for_its_days(open_window: OpenWindow, home: Path) -> None:
    seed_contexts(home)
    _window, page = await open_learning(open_window)
    calls = record_calls(page)

    page.period.setCurrentIndex(page.period.findData(7))

    await until(lambda: len(page.charts["saved"][1].days) == 7, what="a week of days")
    assert calls.payloads("memory_metrics")[-1]["days"] == 7
    assert page.period.currentText() == "Last 7 days"


@pytest.mark.asyncio
async def test_an_empty_store_says_what_will_be_counted(open_window: OpenWindow) -> None:
    _window, page = await open_learning(open_window)

    assert page.summary.text().startswith("No contexts yet")
    assert page.used_empty.isVisible() and not page.used.isVisible()
    assert page.proposed_empty.isVisible() and not page.proposed.isVisible()
    for _title, chart in page.charts.values():
        assert chart.empty() and chart.accessibleDescription() == "No contexts in these days"
    image = QImage(page.charts["fallbacks"][1].size(), QImage.Format.Format_ARGB32)
    page.charts["fallbacks"][1].render(image, QPoint(0, 0))  # paints the empty state
    assert not image.isNull()


def test_days_counted_are_relative_to_the_store_clock(home: Path) -> None:
    # The seed's "two days ago" is the journal's day of that moment, as the page charts it.
    seed_contexts(home)
    with MemoryStore.open(home) as store:
        days = dispatch(store, "memory_metrics", {"days": 3})["days"]
        assert [d["day"] for d in days][0] == (store.today() - timedelta(days=2)).isoformat()
    assert [d["contexts"] for d in days] == [2, 0, 1]


@pytest.mark.asyncio
async def test_what_consolidation_proposed_is_listed_and_leads_to_its_review_queue(
    open_window: OpenWindow, home: Path
) -> None:
    with MemoryStore.open(home) as store:
        ids = charge_card_failures(store)
        run_id = dispatch(store, "organize_consolidate", {"offline": True})["run"]["run_id"]
    window, page = await open_learning(open_window)

    assert page.proposed.isVisible() and not page.proposed_empty.isVisible()
    assert page.proposed.rowCount() == 1
    cells = [cell_of(page.proposed, 0, c) for c in range(5)]
    assert cells[1:] == [
        "New anti-pattern",
        cells[2],
        "2",
        "pending",
    ] and cells[2].startswith("Avoid")
    episodes = page.proposed.item(0, COL_EPISODES)
    assert episodes is not None and episodes.toolTip().split("\n") == ids

    page.proposed.itemActivated.emit(page.proposed.item(0, COL_WHAT))
    organizer = window.page("organizer")
    assert isinstance(organizer, OrganizerPage)
    assert window.stack.currentWidget() is organizer
    await until(
        lambda: organizer.selected_run is not None and organizer.selected_run["run_id"] == run_id,
        what="the proposal's run selected",
    )
    await until(lambda: len(organizer.queue_items()) == 1, what="its review queue")
    await until(lambda: window.bridge.pending == 0, what="background work to finish")


def cell_of(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()

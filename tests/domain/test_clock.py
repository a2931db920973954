"""The length of a day in milliseconds has one home: domain/clock.py's MS_PER_DAY."""

from __future__ import annotations

from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MS_PER_DAY, age_days
from liveagent_memory.domain.requests import (
    DeleteRequest,
    RecentRejectionsRequest,
    WriteRequest,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

PACKAGE = Path(__file__).resolve().parents[2] / "liveagent_memory"


def test_a_day_is_24_hours_of_milliseconds() -> None:
    assert MS_PER_DAY == 24 * 60 * 60 * 1000
    assert age_days(5 * MS_PER_DAY, 2 * MS_PER_DAY) == 3.0
    assert age_days(0, MS_PER_DAY) == 0.0  # never negative


def test_no_other_module_spells_a_day_in_milliseconds() -> None:
    spelled = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if any(n in path.read_text(encoding="utf-8") for n in ("86_400_000", "86400000"))
    ]
    assert spelled == ["domain/clock.py"]


def test_recent_rejections_count_their_window_in_days(store: MemoryStore, clock: FakeClock) -> None:
    store.write(
        WriteRequest(
            slug="old-note", scope="global", type="reference", description="x", body="A note."
        )
    )
    store.delete(DeleteRequest(slug="old-note", actor="user", reason="wrong"))
    days = config.REJECTIONS_DEFAULT_DAYS
    clock.advance(ms=days * MS_PER_DAY)  # exactly the window: still inside
    assert [r.slug for r in store.recent_rejections(RecentRejectionsRequest())] == ["old-note"]
    clock.advance(ms=1)
    assert store.recent_rejections(RecentRejectionsRequest()) == []

"""Organizer scheduling: due-time arithmetic (incl. DST) and the scheduler with a fake timer."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import local_datetime
from liveagent_memory.domain.errors import IndexUnavailable, SettingsInvalid
from liveagent_memory.organizer.runs import create_run
from liveagent_memory.organizer.service import OrganizerScheduler, next_run_at, previous_due_at
from liveagent_memory.settings import OrganizerSettings, Settings
from liveagent_memory.store import runs as store_runs
from liveagent_memory.store.store import MemoryStore
from tests.helpers.checks import present
from tests.helpers.cli import cli_call_ok
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import dead_owner

HOUR = 3_600_000
MINUTE = 60_000


# --- helpers --------------------------------------------------------------------------------
def utc(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0) -> int:
    return int(datetime(y, mo, d, h, mi, s, tzinfo=UTC).timestamp() * 1000)


# The schedules of most tests were saved long before any due moment they look at: every
# missed due moment counts (tests below save one later, or leave the mark out).
SAVED_LONG_AGO = utc(2020, 1, 1)


def daily(at: str = "03:00", **fields: Any) -> OrganizerSettings:
    fields.setdefault("saved_at", SAVED_LONG_AGO)
    return OrganizerSettings(schedule="daily", time_of_day=at, **fields)


def weekly(weekday: int, at: str = "03:00") -> OrganizerSettings:
    return OrganizerSettings(
        schedule="weekly", time_of_day=at, weekday=weekday, saved_at=SAVED_LONG_AGO
    )


@contextmanager
def local_zone(name: str) -> Iterator[None]:
    """Run a block with the machine's local time zone set to `name` (conftest pins UTC)."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if previous is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = previous
        time.tzset()


class FakeTimer:
    """A one-shot timer the test fires by hand (the desktop app uses a single-shot QTimer)."""

    def __init__(self) -> None:
        self.owner: OrganizerScheduler | None = None  # whose bookkeeping a firing starts
        self.delay_ms: int | None = None
        self.callback: Callable[[], None] | None = None
        self.starts: list[int] = []
        self.cancels = 0

    def start(self, delay_ms: int, callback: Callable[[], None]) -> None:
        self.delay_ms = delay_ms
        self.callback = callback
        self.starts.append(delay_ms)

    def cancel(self) -> None:
        self.delay_ms = None
        self.callback = None
        self.cancels += 1

    def fire(self) -> None:
        callback = self.callback
        assert callback is not None, "the timer is not armed"
        self.delay_ms = None
        self.callback = None
        callback()


async def ring(timer: FakeTimer) -> None:
    """Fire the timer and wait until the bookkeeping it started is done."""
    timer.fire()
    assert timer.owner is not None, "the timer belongs to no scheduler"
    await timer.owner.idle()


async def fire(clock: FakeClock, timer: FakeTimer, *, early_ms: int = 0) -> None:
    """Let the armed delay pass on the clock (minus `early_ms`), then fire the timer."""
    assert timer.delay_ms is not None, "the timer is not armed"
    clock.advance(ms=timer.delay_ms - early_ms)
    await ring(timer)


async def fire_until(clock: FakeClock, timer: FakeTimer, target_ms: int) -> int:
    """Fire wake after wake until the clock reaches `target_ms`; return how many fired."""
    fired = 0
    while clock.ms < target_ms:
        await fire(clock, timer)
        fired += 1
        assert fired < 500, "the timer never reached the target"
    return fired


class SettingsBox:
    """A settings provider whose value a test changes (like the settings drawer would)."""

    def __init__(self, value: OrganizerSettings) -> None:
        self.value = value

    def __call__(self) -> OrganizerSettings:
        return self.value


class Runner:
    """Stands in for the pipeline: records calls, then finishes the run (or fails/blocks)."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        error: Exception | None = None,
        block: bool = False,
        finish: bool = True,
    ) -> None:
        self.store = store
        self.error = error
        self.release = asyncio.Event()
        if not block:
            self.release.set()
        self.finish = finish
        self.calls: list[dict[str, Any]] = []
        self.saw_cancel = False

    async def __call__(self, run: dict[str, Any]) -> None:
        self.calls.append(run)
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.saw_cancel = True
            raise
        if self.error is not None:
            raise self.error
        if self.finish:
            dispatch(
                self.store, "organize_run_update", {"run_id": run["run_id"], "status": "succeeded"}
            )


@asynccontextmanager
async def scheduler_for(
    store: MemoryStore, clock: FakeClock, box: SettingsBox, runner: Runner
) -> AsyncIterator[tuple[OrganizerScheduler, FakeTimer]]:
    timer = FakeTimer()
    scheduler = OrganizerScheduler(store, timer=timer, clock=clock, settings=box, runner=runner)
    timer.owner = scheduler
    try:
        yield scheduler, timer
    finally:
        await scheduler.aclose()


async def settle(scheduler: OrganizerScheduler) -> None:
    """Wait for the scheduler's run (if any) to end, errors included, and its end recorded."""
    await scheduler.idle()
    task = scheduler.running
    if task is not None:
        await asyncio.gather(task, return_exceptions=True)
    await scheduler.idle()
    assert scheduler.running is None


def runs(store: MemoryStore) -> list[dict[str, Any]]:
    """The run history, newest first."""
    return list(dispatch(store, "organize_run_list", {})["runs"])


def read_run(store: MemoryStore, run_id: str) -> dict[str, Any]:
    return dict(dispatch(store, "organize_run_read", {"run_id": run_id})["run"])


def seed_run(
    store: MemoryStore,
    clock: FakeClock,
    *,
    at_ms: int,
    trigger: str = "scheduled",
    status: str = "succeeded",
) -> dict[str, Any]:
    """Record a finished run made at `at_ms` (a scheduled one is due then), as if long ago."""
    now = clock.ms
    clock.ms = at_ms
    payload: dict[str, Any] = {"trigger": trigger}
    if trigger == "scheduled":
        payload["due_at"] = at_ms
    created = dispatch(store, "organize_run_create", payload)
    assert created["claimed"]
    if trigger == "scheduled":
        assert dispatch(store, "organize_due_claim", {"now": at_ms})["run"] is not None
    run_id = created["run"]["run_id"]
    dispatch(store, "organize_run_update", {"run_id": run_id, "status": status})
    clock.ms = now
    return read_run(store, run_id)


# --- next_run_at / previous_due_at ----------------------------------------------------------
# The conftest clock starts on Monday 2026-11-30 12:00 UTC; the zone is UTC here.
NEXT_RUN_CASES = [
    ("daily, before the time today", daily(), utc(2026, 11, 30, 1), utc(2026, 11, 30, 3)),
    ("daily, exactly at the time", daily(), utc(2026, 11, 30, 3), utc(2026, 12, 1, 3)),
    ("daily, after the time today", daily(), utc(2026, 11, 30, 12), utc(2026, 12, 1, 3)),
    ("daily, a minute early", daily("23:59"), utc(2026, 11, 30, 23, 58), utc(2026, 11, 30, 23, 59)),
    ("daily, month end", daily(), utc(2026, 1, 31, 12), utc(2026, 2, 1, 3)),
    ("daily, February", daily(), utc(2026, 2, 28, 12), utc(2026, 3, 1, 3)),
    ("daily, leap day", daily(), utc(2028, 2, 28, 12), utc(2028, 2, 29, 3)),
    ("daily, year end", daily("00:00"), utc(2026, 12, 31, 0), utc(2027, 1, 1, 0)),
    ("weekly Monday, later today", weekly(1), utc(2026, 11, 30, 1), utc(2026, 11, 30, 3)),
    ("weekly Monday, wraps a week", weekly(1), utc(2026, 11, 30, 12), utc(2026, 12, 7, 3)),
    ("weekly Tuesday", weekly(2), utc(2026, 11, 30, 12), utc(2026, 12, 1, 3)),
    ("weekly Wednesday", weekly(3), utc(2026, 11, 30, 12), utc(2026, 12, 2, 3)),
    ("weekly Thursday", weekly(4), utc(2026, 11, 30, 12), utc(2026, 12, 3, 3)),
    ("weekly Friday", weekly(5), utc(2026, 11, 30, 12), utc(2026, 12, 4, 3)),
    ("weekly Saturday", weekly(6), utc(2026, 11, 30, 12), utc(2026, 12, 5, 3)),
    ("weekly Sunday", weekly(7), utc(2026, 11, 30, 12), utc(2026, 12, 6, 3)),
    ("weekly Friday, year end", weekly(5), utc(2026, 12, 31, 12), utc(2027, 1, 1, 3)),
    ("weekly Sunday, year wrap", weekly(7), utc(2026, 12, 27, 3), utc(2027, 1, 3, 3)),
    ("none", OrganizerSettings(), utc(2026, 11, 30, 12), None),
]


@pytest.mark.parametrize(
    ("settings_", "after", "expected"),
    [case[1:] for case in NEXT_RUN_CASES],
    ids=[case[0] for case in NEXT_RUN_CASES],
)
def test_next_run_at(settings_: OrganizerSettings, after: int, expected: int | None) -> None:
    assert next_run_at(settings_, after_ms=after) == expected


PREVIOUS_CASES = [
    ("daily, earlier today", daily(), utc(2026, 11, 30, 12), utc(2026, 11, 30, 3)),
    ("daily, exactly at the time", daily(), utc(2026, 11, 30, 3), utc(2026, 11, 30, 3)),
    ("daily, a second early", daily(), utc(2026, 11, 30, 2, 59, 59), utc(2026, 11, 29, 3)),
    ("daily, new year", daily(), utc(2027, 1, 1, 1), utc(2026, 12, 31, 3)),
    ("weekly Tuesday", weekly(2), utc(2026, 11, 30, 12), utc(2026, 11, 24, 3)),
    ("weekly Monday, before the time", weekly(1), utc(2026, 11, 30, 2), utc(2026, 11, 23, 3)),
    ("none", OrganizerSettings(), utc(2026, 11, 30, 12), None),
]


@pytest.mark.parametrize(
    ("settings_", "at", "expected"),
    [case[1:] for case in PREVIOUS_CASES],
    ids=[case[0] for case in PREVIOUS_CASES],
)
def test_previous_due_at(settings_: OrganizerSettings, at: int, expected: int | None) -> None:
    assert previous_due_at(settings_, at_or_before_ms=at) == expected


@pytest.mark.parametrize(
    "bad",
    [
        OrganizerSettings(schedule="hourly"),
        daily("3am"),
        daily("24:00"),
        daily("03:60"),
        weekly(0),
        weekly(8),
    ],
    ids=["schedule", "time text", "hour", "minute", "weekday 0", "weekday 8"],
)
def test_bad_settings_are_a_typed_error(bad: OrganizerSettings) -> None:
    with pytest.raises(SettingsInvalid):
        next_run_at(bad, after_ms=utc(2026, 11, 30))
    with pytest.raises(SettingsInvalid):
        previous_due_at(bad, at_or_before_ms=utc(2026, 11, 30))


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/New_York"])
@settings(max_examples=150, deadline=None)
@given(
    after=st.integers(min_value=utc(2020, 1, 1), max_value=utc(2035, 12, 31)),
    hour=st.integers(min_value=0, max_value=23),
    minute=st.integers(min_value=0, max_value=59),
    weekday=st.one_of(st.none(), st.integers(min_value=1, max_value=7)),
)
def test_due_moments_are_consistent(
    zone: str, after: int, hour: int, minute: int, weekday: int | None
) -> None:
    at = f"{hour:02d}:{minute:02d}"
    plan = daily(at) if weekday is None else weekly(weekday, at)
    with local_zone(zone):
        nxt = next_run_at(plan, after_ms=after)
        prev = previous_due_at(plan, at_or_before_ms=after)
        assert nxt is not None and prev is not None
        assert prev <= after < nxt
        # No due moment lies between the two: each finds the other.
        assert next_run_at(plan, after_ms=prev) == nxt
        assert previous_due_at(plan, at_or_before_ms=nxt - 1) == prev
        assert previous_due_at(plan, at_or_before_ms=nxt) == nxt
        assert nxt - prev <= (7 if weekday else 1) * 24 * HOUR + HOUR
        wall = local_datetime(nxt)
        if weekday is not None:
            assert wall.isoweekday() == weekday
        if (wall.hour, wall.minute) != (hour, minute):
            # Only a wall time inside a spring-forward gap moves (forward, by the gap).
            before_jump = local_datetime(nxt - 3 * HOUR)
            assert wall.utcoffset() != before_jump.utcoffset()
            assert present(wall.utcoffset()) > present(before_jump.utcoffset())


# --- DST (Europe/Berlin: CET +01:00, CEST +02:00) -------------------------------------------
def test_spring_forward_gap_runs_once_shifted_forward_by_the_gap() -> None:
    # 2026-03-29 02:00 CET the clock jumps to 03:00 CEST: 02:30 does not exist that day.
    with local_zone("Europe/Berlin"):
        first = next_run_at(daily("02:30"), after_ms=utc(2026, 3, 28, 11))
        assert first == utc(2026, 3, 29, 1, 30)
        assert local_datetime(first).isoformat() == "2026-03-29T03:30:00+02:00"
        # The next day is back to 02:30 (now CEST): still one run a day.
        assert next_run_at(daily("02:30"), after_ms=first) == utc(2026, 3, 30, 0, 30)
        assert previous_due_at(daily("02:30"), at_or_before_ms=first - 1) == utc(2026, 3, 28, 1, 30)
        # Weekly on Sunday (the DST day) behaves the same.
        assert next_run_at(weekly(7, "02:30"), after_ms=utc(2026, 3, 23)) == first


def test_spring_forward_day_is_23_hours_for_an_existing_time() -> None:
    with local_zone("Europe/Berlin"):
        saturday = utc(2026, 3, 28, 2)  # 03:00 CET
        sunday = next_run_at(daily(), after_ms=saturday)
        assert sunday == utc(2026, 3, 29, 1)  # 03:00 CEST
        assert sunday - saturday == 23 * HOUR


def test_fall_back_overlap_runs_once_at_the_first_occurrence() -> None:
    # 2026-10-25 03:00 CEST the clock goes back to 02:00 CET: 02:30 happens twice.
    with local_zone("Europe/Berlin"):
        first = next_run_at(daily("02:30"), after_ms=utc(2026, 10, 24, 10))
        assert first == utc(2026, 10, 25, 0, 30)
        assert local_datetime(first).isoformat() == "2026-10-25T02:30:00+02:00"
        # The second 02:30 (CET, 01:30 UTC) is not due; the next run is the following day.
        assert next_run_at(daily("02:30"), after_ms=first) == utc(2026, 10, 26, 1, 30)
        assert previous_due_at(daily("02:30"), at_or_before_ms=utc(2026, 10, 25, 1, 45)) == first


@pytest.mark.asyncio
async def test_scheduler_runs_once_through_the_fall_back_night(
    store: MemoryStore, clock: FakeClock
) -> None:
    with local_zone("Europe/Berlin"):
        seed_run(store, clock, at_ms=utc(2026, 10, 24, 0, 30))  # Saturday 02:30 CEST
        clock.ms = utc(2026, 10, 24, 23)  # Sunday 01:00 CEST
        runner = Runner(store)
        async with scheduler_for(store, clock, SettingsBox(daily("02:30")), runner) as (s, timer):
            await s.start()
            await fire_until(clock, timer, utc(2026, 10, 25, 4))  # past both 02:30s
            await settle(s)
        scheduled = [r for r in runs(store) if r["trigger"] == "scheduled"]
        assert [r["due_at"] for r in scheduled] == [
            utc(2026, 10, 25, 0, 30),
            utc(2026, 10, 24, 0, 30),
        ]
        assert len(runner.calls) == 1


# --- start-up and missed runs ---------------------------------------------------------------
@pytest.mark.asyncio
async def test_missed_days_run_once_at_start_up(store: MemoryStore, clock: FakeClock) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 25, 3))
    clock.advance(days=5)  # the app was closed; 12:00 on 2026-12-05
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(daily(scope="global")), runner) as (
        s,
        timer,
    ):
        await s.start()
        await settle(s)
        history = runs(store)
        assert len(history) == 2  # one catch-up run, not one per missed day
        catch_up = history[0]
        assert catch_up["trigger"] == "scheduled"
        assert catch_up["scope"] == "global"
        assert catch_up["due_at"] == utc(2026, 12, 5, 3)  # recorded for the latest due moment
        assert catch_up["status"] == "succeeded"
        assert [call["run_id"] for call in runner.calls] == [catch_up["run_id"]]
        assert s.next_due_ms == utc(2026, 12, 6, 3)
        assert timer.delay_ms == config.ORGANIZE_WAKE_MAX_MS
        await fire(clock, timer)  # the next wake does not run it again
        await settle(s)
        assert len(runs(store)) == 2 and len(runner.calls) == 1


@pytest.mark.asyncio
async def test_first_start_with_a_schedule_and_no_history_runs_once(
    store: MemoryStore, clock: FakeClock
) -> None:
    # Decision: with no scheduled run on record, the latest due moment counts as missed.
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(weekly(5)), runner) as (s, _timer):
        await s.start()
        await settle(s)
    assert [r["due_at"] for r in runs(store)] == [utc(2026, 11, 27, 3)]
    assert len(runner.calls) == 1


@pytest.mark.asyncio
async def test_a_daily_schedule_saved_after_its_time_waits_for_tomorrow(
    store: MemoryStore, clock: FakeClock
) -> None:
    """Issue 14: a schedule for 03:00 saved at 10:00 did not miss today's 03:00."""
    runner = Runner(store)
    box = SettingsBox(daily(saved_at=utc(2026, 11, 30, 10)))
    async with scheduler_for(store, clock, box, runner) as (s, timer):
        await s.start()  # 12:00, the first start since the save
        await settle(s)
        assert runs(store) == [] and runner.calls == []
        assert s.next_due_ms == utc(2026, 12, 1, 3)
        await fire_until(clock, timer, utc(2026, 12, 1, 3))
        await settle(s)
    assert [(r["trigger"], r["due_at"]) for r in runs(store)] == [
        ("scheduled", utc(2026, 12, 1, 3))
    ]
    assert len(runner.calls) == 1


@pytest.mark.asyncio
async def test_a_run_missed_after_the_schedule_was_saved_runs_at_start_up(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store)
    box = SettingsBox(daily(saved_at=utc(2026, 11, 29, 10)))  # yesterday, after 03:00
    async with scheduler_for(store, clock, box, runner) as (s, _timer):
        await s.start()
        await settle(s)
    assert [r["due_at"] for r in runs(store)] == [utc(2026, 11, 30, 3)]
    assert len(runner.calls) == 1


@pytest.mark.asyncio
async def test_a_schedule_without_a_saved_mark_counts_as_saved_now(
    store: MemoryStore, clock: FakeClock
) -> None:
    """An old settings file (no saved_at) never brings a surprise run at start-up."""
    runner = Runner(store)
    old_file = OrganizerSettings(schedule="daily", time_of_day="03:00")
    assert old_file.saved_at is None
    async with scheduler_for(store, clock, SettingsBox(old_file), runner) as (s, timer):
        await s.start()
        await settle(s)
        assert runs(store) == [] and runner.calls == []
        assert s.next_due_ms == utc(2026, 12, 1, 3)
        await fire_until(clock, timer, utc(2026, 12, 1, 3))  # later due moments do run
        await settle(s)
    assert [r["due_at"] for r in runs(store)] == [utc(2026, 12, 1, 3)]


@pytest.mark.asyncio
async def test_a_schedule_saved_elsewhere_after_the_last_wake_is_not_missed(
    store: MemoryStore, clock: FakeClock
) -> None:
    """Another program saves 12:10 at 12:20; the 13:00 wake does not run it as missed."""
    runner = Runner(store)
    seed_run(store, clock, at_ms=utc(2026, 11, 30, 3))
    box = SettingsBox(daily())
    async with scheduler_for(store, clock, box, runner) as (s, timer):
        await s.start()  # 12:00; no reschedule follows the change below
        clock.advance(seconds=20 * 60)
        box.value = daily("12:10", saved_at=clock.ms)
        await fire(clock, timer)  # the hourly wake
        await settle(s)
        assert runner.calls == [] and len(runs(store)) == 1
        assert s.next_due_ms == utc(2026, 12, 1, 12, 10)


@pytest.mark.asyncio
async def test_no_missed_run_when_the_schedule_is_none(
    store: MemoryStore, clock: FakeClock
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 20, 3))
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(OrganizerSettings()), runner) as (s, timer):
        await s.start()
        await settle(s)
        assert len(runs(store)) == 1
        assert runner.calls == []
        assert s.next_due_ms is None
        assert timer.starts == [] and timer.callback is None


@pytest.mark.parametrize("status", ["succeeded", "failed", "skipped"])
@pytest.mark.asyncio
async def test_no_missed_run_when_a_scheduled_run_happened_after_the_due_time(
    store: MemoryStore, clock: FakeClock, status: str
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 30, 3), status=status)
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(daily()), runner) as (s, timer):
        await s.start()
        await settle(s)
        assert len(runs(store)) == 1
        assert runner.calls == []
        assert timer.delay_ms == config.ORGANIZE_WAKE_MAX_MS


@pytest.mark.asyncio
async def test_weekly_run_within_the_week_is_not_missed(
    store: MemoryStore, clock: FakeClock
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 24, 3))  # last Tuesday
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(weekly(2)), runner) as (s, _timer):
        await s.start()
        await settle(s)
        assert runner.calls == []
        assert s.next_due_ms == utc(2026, 12, 1, 3)


@pytest.mark.asyncio
async def test_a_manual_run_does_not_stand_in_for_a_missed_scheduled_run(
    store: MemoryStore, clock: FakeClock
) -> None:
    # Decision: manual runs only queue decisions for review; the scheduled run auto-applies.
    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    seed_run(store, clock, at_ms=utc(2026, 11, 30, 5), trigger="manual")
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(daily()), runner) as (s, _timer):
        await s.start()
        await settle(s)
    assert runs(store)[0]["trigger"] == "scheduled"
    assert runs(store)[0]["due_at"] == utc(2026, 11, 30, 3)
    assert len(runner.calls) == 1


@pytest.mark.asyncio
async def test_start_runs_a_pending_run_left_behind(store: MemoryStore, clock: FakeClock) -> None:
    # A pending row nobody claimed (crash between create and claim) would block every run.
    left = dispatch(
        store, "organize_run_create", {"trigger": "scheduled", "due_at": utc(2026, 11, 30, 3)}
    )["run"]
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(OrganizerSettings()), runner) as (s, _):
        await s.start()
        await settle(s)
    assert [call["run_id"] for call in runner.calls] == [left["run_id"]]
    assert read_run(store, left["run_id"])["status"] == "succeeded"


# --- the timer --------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_timer_is_armed_for_the_due_time(store: MemoryStore, clock: FakeClock) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    clock.ms = utc(2026, 11, 30, 2, 30)
    async with scheduler_for(store, clock, SettingsBox(daily()), Runner(store)) as (s, timer):
        await s.start()
        assert timer.delay_ms == 30 * MINUTE
        assert s.next_due_ms == utc(2026, 11, 30, 3)


@pytest.mark.asyncio
async def test_timer_delay_is_capped_at_one_hour(store: MemoryStore, clock: FakeClock) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 26, 3))
    async with scheduler_for(store, clock, SettingsBox(weekly(4)), Runner(store)) as (s, timer):
        await s.start()
        assert s.next_due_ms == utc(2026, 12, 3, 3)  # three days away
        assert timer.delay_ms == config.ORGANIZE_WAKE_MAX_MS == HOUR


@pytest.mark.asyncio
async def test_a_fire_before_the_due_time_only_re_arms(
    store: MemoryStore, clock: FakeClock
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 30, 3))
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(daily()), runner) as (s, timer):
        await s.start()
        await fire(clock, timer)  # 13:00, fourteen hours early
        assert len(runs(store)) == 1 and runner.calls == []
        assert timer.delay_ms == HOUR
        assert s.next_due_ms == utc(2026, 12, 1, 3)
        fired = await fire_until(clock, timer, utc(2026, 12, 1, 2))
        assert fired == 13 and runner.calls == [] and len(runs(store)) == 1
        assert timer.delay_ms == HOUR
        # A timer that fires a little early (coarse timers do) still just re-arms.
        await fire(clock, timer, early_ms=5 * MINUTE)
        assert runner.calls == [] and timer.delay_ms == 5 * MINUTE
        await fire(clock, timer, early_ms=2 * MINUTE)
        assert runner.calls == [] and timer.delay_ms == 2 * MINUTE
        assert len(runs(store)) == 1
        await fire(clock, timer)  # 03:00 exactly
        await settle(s)
        newest = runs(store)[0]
        assert (newest["trigger"], newest["status"]) == ("scheduled", "succeeded")
        assert newest["due_at"] == utc(2026, 12, 1, 3)
        assert len(runner.calls) == 1
        assert s.next_due_ms == utc(2026, 12, 2, 3)


@pytest.mark.asyncio
async def test_a_fire_while_another_run_is_active_records_a_skipped_run(
    store: MemoryStore, clock: FakeClock
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    clock.ms = utc(2026, 11, 30, 2, 30)
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(daily()), runner) as (s, timer):
        await s.start()
        other = dispatch(store, "organize_run_create", {"trigger": "manual"})  # e.g. the CLI
        assert other["claimed"]
        await fire(clock, timer)  # 03:00
        await settle(s)
        newest = runs(store)[0]
        assert newest["trigger"] == "scheduled"
        assert newest["status"] == "skipped"
        assert newest["error"] == "already_running"
        assert newest["due_at"] == utc(2026, 11, 30, 3)
        assert runner.calls == []
        assert read_run(store, other["run"]["run_id"])["status"] == "running"
        assert s.next_due_ms == utc(2026, 12, 1, 3) and timer.delay_ms == HOUR


# --- run_now ----------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_run_now_uses_the_settings_scope_and_mode(
    store: MemoryStore, clock: FakeClock
) -> None:
    box = SettingsBox(OrganizerSettings(scope="global", mode="standard"))
    runner = Runner(store)
    async with scheduler_for(store, clock, box, runner) as (s, _timer):
        run = await s.run_now()
        assert (run["trigger"], run["status"]) == ("manual", "running")
        assert (run["scope"], run["mode"], run["dry_run"]) == ("global", "standard", False)
        assert s.running is not None
        await settle(s)
    assert [call["run_id"] for call in runner.calls] == [run["run_id"]]
    assert read_run(store, run["run_id"])["status"] == "succeeded"


@pytest.mark.asyncio
async def test_run_now_with_explicit_choices(store: MemoryStore, clock: FakeClock) -> None:
    runner = Runner(store)
    async with scheduler_for(store, clock, SettingsBox(OrganizerSettings()), runner) as (s, _):
        run = await s.run_now(scope="projects", mode="aggressive", dry_run=True)
        await settle(s)
    stored = read_run(store, run["run_id"])
    assert (stored["scope"], stored["mode"], stored["dry_run"]) == ("projects", "aggressive", True)
    assert stored["status"] == "succeeded"


@pytest.mark.asyncio
async def test_run_now_while_a_run_is_active_returns_the_skipped_run(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store, block=True)
    async with scheduler_for(store, clock, SettingsBox(OrganizerSettings()), runner) as (s, _):
        first = await s.run_now()
        await asyncio.sleep(0)  # the runner starts and waits
        second = await s.run_now()
        assert (second["status"], second["error"]) == ("skipped", "already_running")
        assert second["run_id"] != first["run_id"]
        runner.release.set()
        await settle(s)
    assert [call["run_id"] for call in runner.calls] == [first["run_id"]]
    assert read_run(store, first["run_id"])["status"] == "succeeded"


# --- failures and cancellation ----------------------------------------------------------------
@pytest.mark.asyncio
async def test_runner_exception_fails_the_run_and_the_scheduler_goes_on(
    store: MemoryStore, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    runner = Runner(store, error=ValueError("model exploded"))
    async with scheduler_for(store, clock, SettingsBox(daily()), runner) as (s, timer):
        with caplog.at_level(logging.ERROR, logger="liveagent_memory.organizer.service"):
            await s.start()  # no history: the missed run starts, and fails
            await settle(s)
        failed = runs(store)[0]
        assert failed["status"] == "failed"
        assert failed["error"] == "ValueError: model exploded"
        assert any(
            record.exc_info and "model exploded" in str(record.exc_info[1])
            for record in caplog.records
        )
        # The scheduler is still alive: the timer is armed and the next run works.
        assert timer.delay_ms == HOUR
        runner.error = None
        await fire_until(clock, timer, utc(2026, 12, 1, 3))
        await settle(s)
        assert runs(store)[0]["status"] == "succeeded"
        assert len(runner.calls) == 2


@pytest.mark.asyncio
async def test_runner_that_does_not_finish_its_run_fails_it(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store, finish=False)
    async with scheduler_for(store, clock, SettingsBox(OrganizerSettings()), runner) as (s, _):
        run = await s.run_now()
        await settle(s)
    stored = read_run(store, run["run_id"])
    assert (stored["status"], stored["error"]) == ("failed", "runner_unfinished")


@pytest.mark.asyncio
async def test_aclose_cancels_a_running_run(store: MemoryStore, clock: FakeClock) -> None:
    runner = Runner(store, block=True)
    timer = FakeTimer()
    scheduler = OrganizerScheduler(
        store, timer=timer, clock=clock, settings=SettingsBox(daily()), runner=runner
    )
    await scheduler.start()  # the missed run starts and blocks
    await asyncio.sleep(0)
    assert scheduler.running is not None and runner.calls
    await scheduler.aclose()
    assert runner.saw_cancel
    assert scheduler.running is None
    assert read_run(store, runner.calls[0]["run_id"])["status"] == "cancelled"
    assert timer.callback is None and scheduler.next_due_ms is None
    with pytest.raises(RuntimeError):
        await scheduler.run_now()


@pytest.mark.asyncio
async def test_aclose_before_the_run_started_still_records_cancelled(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store)
    scheduler = OrganizerScheduler(
        store,
        timer=FakeTimer(),
        clock=clock,
        settings=SettingsBox(OrganizerSettings()),
        runner=runner,
    )
    run = await scheduler.run_now()
    await scheduler.aclose()  # the task never got a turn
    assert runner.calls == []
    assert read_run(store, run["run_id"])["status"] == "cancelled"


# --- settings changes -------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_reschedule_after_a_settings_change(store: MemoryStore, clock: FakeClock) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 30, 3))
    box = SettingsBox(daily())
    runner = Runner(store)
    async with scheduler_for(store, clock, box, runner) as (s, timer):
        await s.start()
        assert s.next_due_ms == utc(2026, 12, 1, 3)

        # A time moved to a moment that just passed (12:10, changed at 12:20, after the last
        # wake at 12:00) is not "missed": nothing runs until tomorrow.
        clock.advance(seconds=20 * 60)
        box.value = daily("12:10")
        await s.reschedule()
        assert s.next_due_ms == utc(2026, 12, 1, 12, 10)
        await fire(clock, timer)
        assert runner.calls == [] and len(runs(store)) == 1

        box.value = daily("13:50")  # now 13:20
        await s.reschedule()
        assert s.next_due_ms == utc(2026, 11, 30, 13, 50)
        assert timer.delay_ms == 30 * MINUTE

        box.value = OrganizerSettings()
        await s.reschedule()
        assert s.next_due_ms is None and timer.callback is None

        box.value = weekly(3)
        await s.reschedule()
        assert s.next_due_ms == utc(2026, 12, 2, 3)
        assert timer.delay_ms == HOUR
        assert len(runs(store)) == 1


@pytest.mark.asyncio
async def test_reschedule_after_the_armed_time_passed_still_runs_it(
    store: MemoryStore, clock: FakeClock
) -> None:
    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    clock.ms = utc(2026, 11, 30, 2, 30)
    box = SettingsBox(daily())
    runner = Runner(store)
    async with scheduler_for(store, clock, box, runner) as (s, _timer):
        await s.start()
        clock.advance(seconds=30 * 60 + 5)  # 03:00:05, the timer not yet fired
        box.value = daily(mode="standard")
        await s.reschedule()
        await settle(s)
    newest = runs(store)[0]
    assert (newest["due_at"], newest["mode"], newest["status"]) == (
        utc(2026, 11, 30, 3),
        "standard",
        "succeeded",
    )
    assert len(runner.calls) == 1


# --- runs queued or abandoned by other processes (issue 12) ------------------------------------
# Another program (a web "Run now") on the same store: `liveagent-memory call NAME JSON`.


@asynccontextmanager
async def polling_scheduler(
    store: MemoryStore, clock: FakeClock, runner: Runner
) -> AsyncIterator[tuple[OrganizerScheduler, FakeTimer]]:
    poll = FakeTimer()
    scheduler = OrganizerScheduler(
        store,
        timer=FakeTimer(),
        clock=clock,
        settings=SettingsBox(OrganizerSettings()),
        runner=runner,
        poll=poll,
    )
    poll.owner = scheduler
    try:
        yield scheduler, poll
    finally:
        await scheduler.aclose()


@pytest.mark.asyncio
async def test_the_poll_starts_a_run_another_process_queued(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store)
    async with polling_scheduler(store, clock, runner) as (s, poll):
        await s.start()
        assert poll.delay_ms == config.ORGANIZE_PENDING_POLL_MS
        await ring(poll)  # nothing queued yet: nothing starts
        assert runner.calls == [] and poll.delay_ms == config.ORGANIZE_PENDING_POLL_MS

        queued = cli_call_ok(store.root, clock, "organize_run_create", {"scope": "global"})["run"]
        assert queued["status"] == "pending"
        clock.advance(ms=config.ORGANIZE_PENDING_POLL_MS)
        await ring(poll)
        await settle(s)

        assert [call["run_id"] for call in runner.calls] == [queued["run_id"]]
        done = read_run(store, queued["run_id"])
        assert (done["status"], done["scope"], done["claimed_at"]) == (
            "succeeded",
            "global",
            clock.ms,
        )
        assert poll.delay_ms == config.ORGANIZE_PENDING_POLL_MS  # still polling


@pytest.mark.asyncio
async def test_the_poll_leaves_queued_runs_alone_while_its_own_run_goes(
    store: MemoryStore, clock: FakeClock
) -> None:
    runner = Runner(store, block=True)
    async with polling_scheduler(store, clock, runner) as (s, poll):
        await s.start()
        own = await s.run_now()
        await asyncio.sleep(0)
        await ring(poll)
        assert [call["run_id"] for call in runner.calls] == [own["run_id"]]
        assert read_run(store, own["run_id"])["status"] == "running"
        assert poll.delay_ms == config.ORGANIZE_PENDING_POLL_MS
        runner.release.set()
        await settle(s)
    assert read_run(store, own["run_id"])["status"] == "succeeded"


@pytest.mark.asyncio
async def test_the_poll_fails_a_crashed_processes_run_so_run_now_works(
    store: MemoryStore, clock: FakeClock
) -> None:
    # A `liveagent-memory organize` killed mid-run: its row says running, its pid is dead.
    owner = dead_owner()
    with store.index.write() as conn:
        crashed, _ = store_runs.create(conn, clock.ms, owner=owner, trigger="manual")
    runner = Runner(store)
    async with polling_scheduler(store, clock, runner) as (s, poll):
        await s.start()
        await ring(poll)
        stored = read_run(store, crashed.run_id)
        assert (stored["status"], stored["error"]) == ("failed", "abandoned")
        assert runner.calls == []  # nothing was queued; the crashed run is not re-run

        run = await s.run_now()
        await settle(s)
    assert read_run(store, run["run_id"])["status"] == "succeeded"


@pytest.mark.asyncio
async def test_aclose_stops_the_poll(store: MemoryStore, clock: FakeClock) -> None:
    runner = Runner(store)
    async with polling_scheduler(store, clock, runner) as (s, poll):
        await s.start()
        callback = poll.callback
        assert callback is not None
    assert poll.callback is None and poll.cancels >= 1
    cli_call_ok(store.root, clock, "organize_run_create", {})
    callback()  # a poll already on its way when the app closed
    await asyncio.sleep(0)
    assert runner.calls == [] and poll.callback is None
    assert runs(store)[0]["status"] == "pending"


@pytest.mark.asyncio
async def test_a_scheduled_run_is_followed_by_learning_when_chosen(
    store: MemoryStore, clock: FakeClock
) -> None:
    # Issue 18: OrganizerSettings.learn -> a consolidation after each scheduled run that
    # succeeded, one run at a time; manual runs and failed runs are not followed.
    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    runner = Runner(store)
    box = SettingsBox(daily(learn=True))
    async with scheduler_for(store, clock, box, runner) as (s, timer):
        await s.start()  # today's 03:00 was missed: a catch-up run, then learning
        await settle(s)
        await settle(s)
        assert [bool(call.get("consolidate")) for call in runner.calls] == [False, True]
        learned, scheduled = runs(store)[:2]
        assert (scheduled["trigger"], learned["trigger"]) == ("scheduled", "scheduled")
        assert learned["created_at"] >= scheduled["finished_at"]  # after, never beside it

        await s.run_now()  # a manual run is not followed
        await settle(s)
        assert [bool(call.get("consolidate")) for call in runner.calls] == [False, True, False]

        runner.error = RuntimeError("boom")  # a failed scheduled run is not followed either
        await fire_until(clock, timer, utc(2026, 12, 1, 3, 1))
        await settle(s)
        assert [bool(c.get("consolidate")) for c in runner.calls] == [False, True, False, False]


@pytest.mark.asyncio
async def test_a_busy_index_skips_that_learning_with_a_warning_and_the_next_one_runs(
    store: MemoryStore, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    # The index is locked by another program just when learning would start: that learning is
    # skipped (the next consolidation's window covers its episodes), the end of the scheduled
    # run is still announced, and the schedule goes on.
    creates: list[str] = []

    async def busy_for_the_first_learning(fn: Callable[..., Any], *args: Any) -> Any:
        if fn is create_run:
            creates.append(args[1].trigger)
            if len(creates) == 2:
                raise IndexUnavailable("the index is locked by another program")
        return fn(*args)

    seed_run(store, clock, at_ms=utc(2026, 11, 29, 3))
    runner = Runner(store)
    ended: list[str] = []

    async def on_end(run_id: str) -> None:
        ended.append(run_id)

    timer = FakeTimer()
    scheduler = OrganizerScheduler(
        store,
        timer=timer,
        clock=clock,
        settings=SettingsBox(daily(learn=True)),
        runner=runner,
        store_call=busy_for_the_first_learning,
        on_end=on_end,
    )
    timer.owner = scheduler
    try:
        with caplog.at_level(logging.WARNING, logger="liveagent_memory.organizer.service"):
            await scheduler.start()  # the catch-up run, then learning meets the busy index
            await settle(scheduler)
            await settle(scheduler)
        assert [bool(call.get("consolidate")) for call in runner.calls] == [False]
        scheduled = runs(store)[0]  # the newest: no learning run was created after it
        assert (scheduled["trigger"], scheduled["status"]) == ("scheduled", "succeeded")
        assert ended == [scheduled["run_id"]]
        assert "could not start learning after run " + scheduled["run_id"] in caplog.text
        assert "locked by another program" in caplog.text

        await fire_until(clock, timer, utc(2026, 12, 1, 3, 1))  # the next day's run
        await settle(scheduler)
        await settle(scheduler)
        assert [bool(call.get("consolidate")) for call in runner.calls] == [False, False, True]
    finally:
        await scheduler.aclose()


def test_learning_after_scheduled_runs_is_a_checked_setting() -> None:
    assert Settings.from_dict({"organizer": {"learn": True}}).organizer.learn is True
    assert Settings.from_dict({}).organizer.learn is False
    with pytest.raises(SettingsInvalid) as bad:
        Settings.from_dict({"organizer": {"learn": "yes"}})
    assert bad.value.field == "organizer.learn"

"""The organizer scheduler: when scheduled runs are due, and who starts and owns them.

Its bookkeeping (create, claim, the history read, the poll, recording how a run ended) awaits
each store call through a `domain/calls.py` `SyncCall`: in place by default, on the store
worker in the desktop app, whose event loop then never waits on the store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import date, datetime, timedelta
from typing import Any, Protocol, TypeVar

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.clock import Clock, local_datetime
from liveagent_memory.domain.errors import MemoryDomainError, SettingsInvalid
from liveagent_memory.domain.requests import (
    DueClaimRequest,
    RunCreateRequest,
    RunListRequest,
    RunReadRequest,
    RunUpdateRequest,
    parse_request,
)
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.organizer.run_record import run_view
from liveagent_memory.organizer.runs import create_run, list_runs, update_run
from liveagent_memory.settings import ORGANIZE_SCHEDULES, OrganizerSettings, valid_time_of_day
from liveagent_memory.store.runs import ACTIVE
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)
T = TypeVar("T")

Runner = Callable[[dict[str, Any]], Awaitable[None]]
SettingsProvider = Callable[[], OrganizerSettings]
RunEnded = Callable[[str], Awaitable[None]]

# Local dates searched around a moment: a week for "weekly", plus a day on each side because a
# DST shift can push a wall time onto the neighbouring date's instants. Not a tunable.
_SEARCH_DAYS = 9


class Timer(Protocol):
    """A one-shot timer (the desktop app wraps a single-shot QTimer; tests use a fake)."""

    def start(self, delay_ms: int, callback: Callable[[], None]) -> None:
        """Call `callback` once after `delay_ms`; starting again replaces the pending call."""

    def cancel(self) -> None:
        """Drop the pending call, if any."""


class Spawn(Protocol):
    """Starts a task the caller owns (the desktop app passes its bridge's `spawn`)."""

    def __call__(
        self, coro: Coroutine[Any, Any, T], *, name: str | None = None
    ) -> asyncio.Task[T]: ...


def own_task(coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
    """The default Spawn: a task on the running loop whose failure is logged."""
    task = asyncio.get_running_loop().create_task(coro, name=name)
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("organizer task %s failed", task.get_name(), exc_info=task.exception())


# --- Due times ------------------------------------------------------------------------------
def _parse(settings: OrganizerSettings) -> tuple[int, int] | None:
    """Return (hour, minute) of a daily/weekly schedule, None for "none"; bad values raise."""
    if settings.schedule not in ORGANIZE_SCHEDULES:
        raise SettingsInvalid(
            f"The organizer's schedule must be one of {', '.join(ORGANIZE_SCHEDULES)}",
            field="organizer.schedule",
        )
    if settings.schedule == "none":
        return None
    if not valid_time_of_day(settings.time_of_day):  # the settings file's own rule
        raise SettingsInvalid(
            "The organizer's time of day must be HH:MM, e.g. 03:00.", field="organizer.time_of_day"
        )
    hour, _, minute = settings.time_of_day.partition(":")
    if settings.schedule == "weekly" and not 1 <= settings.weekday <= 7:
        raise SettingsInvalid(
            "The organizer's weekday must be 1 (Monday) … 7 (Sunday).", field="organizer.weekday"
        )
    return int(hour), int(minute)


def _due_on(day: date, hour: int, minute: int) -> int:
    """Epoch ms of the local wall time `day hour:minute`.

    A naive datetime's timestamp() is the PEP 495 `fold=0` reading of local time:
    - a wall time that does not exist (spring-forward gap, e.g. 02:30 in Berlin on the last
      Sunday of March) is read with the offset from before the jump, i.e. shifted forward by
      the gap: the run happens at 03:30 CEST, once, on that day;
    - an ambiguous wall time (autumn fall-back, 02:30 happens twice) is its first occurrence
      (02:30 CEST); the second one is not a due moment, so the run happens once.
    """
    return int(datetime(day.year, day.month, day.day, hour, minute).timestamp() * 1000)


def _candidates(settings: OrganizerSettings, around_ms: int, days: range) -> list[int]:
    parsed = _parse(settings)
    if parsed is None:
        return []
    hour, minute = parsed
    anchor = local_datetime(around_ms).date()
    found: list[int] = []
    for offset in days:
        day = anchor + timedelta(days=offset)
        if settings.schedule == "weekly" and day.isoweekday() != settings.weekday:
            continue
        found.append(_due_on(day, hour, minute))
    return found


def next_run_at(settings: OrganizerSettings, *, after_ms: int) -> int | None:
    """Return the first due moment strictly after `after_ms` (local time), None for "none"."""
    later = [ms for ms in _candidates(settings, after_ms, range(-1, _SEARCH_DAYS)) if ms > after_ms]
    return min(later, default=None)


def previous_due_at(settings: OrganizerSettings, *, at_or_before_ms: int) -> int | None:
    """Return the last due moment at or before `at_or_before_ms`, None for "none"."""
    earlier = [
        ms
        for ms in _candidates(settings, at_or_before_ms, range(-_SEARCH_DAYS, 2))
        if ms <= at_or_before_ms
    ]
    return max(earlier, default=None)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, MemoryDomainError):
        text = f"{exc.code}: {exc.message}"
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text[: config.ORGANIZE_ERROR_MAX_CHARS]


# --- Scheduler ------------------------------------------------------------------------------
class OrganizerScheduler:
    """Arms a timer for the next scheduled run, starts runs and owns their tasks.

    Plain Python: the desktop app passes a QTimer-backed `Timer`, the real clock, the pipeline
    as `runner`, its store worker as `store_call` and its bridge's `spawn`. Await `start()`,
    `run_now()` and `reschedule()` on the running event loop; `aclose()` cancels the timer and
    any run in progress. Timer callbacks start their bookkeeping as tasks (`idle()` waits for
    it); one lock keeps each piece of bookkeeping whole, as if it ran at once.

    With a `poll` timer it also starts runs other processes queued (a web "Run now",
    `liveagent-memory call organize_run_create`): every ORGANIZE_PENDING_POLL_MS while none of
    its own runs is going, it claims the oldest due pending run (issue 12).

    Every store access is a typed call (organizer/runs.py for the run rows) awaited through
    `store_call`: each is one short SQLite transaction, like the pipeline's own updates.
    `on_end(run_id)` is awaited once a run's end is on its row.
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        timer: Timer,
        clock: Clock,
        settings: SettingsProvider,
        runner: Runner,
        poll: Timer | None = None,
        store_call: SyncCall = call_here,
        spawn: Spawn = own_task,
        on_end: RunEnded | None = None,
    ) -> None:
        self._store = store
        self._timer = timer
        self._poll = poll
        self._clock = clock
        self._settings = settings
        self._runner = runner
        self._store_call = store_call
        self._spawn_task = spawn
        self._on_end = on_end
        self._tasks: dict[asyncio.Task[BaseException | None], str] = {}  # run task -> run_id
        self._learn_after: set[str] = set()  # scheduled runs a consolidation follows
        self._chores: set[asyncio.Task[None]] = set()  # bookkeeping started by callbacks
        self._lock = asyncio.Lock()
        self._next_due: int | None = None
        self._checked_ms: int | None = None  # due moments up to here have been handled
        self._closed = False

    # --- state for the UI -----------------------------------------------------------------
    @property
    def next_due_ms(self) -> int | None:
        """The next scheduled due moment (epoch ms), None when nothing is scheduled."""
        return self._next_due

    @property
    def running(self) -> asyncio.Task[BaseException | None] | None:
        """The task of the run this scheduler started and that is still going, if any."""
        live = [task for task in self._tasks if not task.done()]
        return live[-1] if live else None

    # --- lifecycle ------------------------------------------------------------------------
    async def start(self) -> None:
        """Recover due pending runs, run a missed scheduled run once, then arm the timer."""
        self._require_open()
        async with self._lock:
            now = self._clock()
            # A pending row is a run someone created but nobody started (the app died between
            # create and claim): it would block every later run, since only running rows go
            # stale.
            await self._claim_due(now)
            settings = self._settings()
            due = previous_due_at(settings, at_or_before_ms=now)
            # A due moment before the schedule was saved was never missed: a daily time set
            # after it passed today waits for tomorrow (no mark: an old file, "saved now").
            saved = settings.saved_at if settings.saved_at is not None else now
            if due is not None and due > saved and not await self._covered(due):
                # SPEC 4: runs missed while the app was closed run once at start-up, however
                # many due moments passed; the run is recorded for the latest one.
                log.info("running the scheduled organizer run missed at %s", due)
                await self._start_scheduled(settings, due_at=due, now=now)
            self._checked_ms = now
            self._arm(now)
            self._arm_poll()

    async def reschedule(self) -> None:
        """Re-arm the timer after a settings change; only future due moments count."""
        self._require_open()
        async with self._lock:
            now = self._clock()
            if self._next_due is not None and now >= self._next_due:
                # Trigger: the armed due moment passed but its timer has not fired yet.
                # Outcome: handle it now, so a settings change cannot swallow a due run.
                await self._tick(now)
                return
            # Why: a time moved to earlier today must not count as missed and run right away.
            self._checked_ms = now
            self._arm(now)

    async def aclose(self) -> None:
        """Stop the timers and cancel the run in progress (its row becomes `cancelled`)."""
        self._closed = True
        self._timer.cancel()
        if self._poll is not None:
            self._poll.cancel()
        self._next_due = None
        # Bookkeeping under way finishes first (a run it claims must be cancelled below, not
        # left running with nobody to run it); closed, it starts nothing new.
        await self.idle()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.idle()  # each run's end is recorded

    async def idle(self) -> None:
        """Wait until the bookkeeping started so far (timer, poll, runs' ends) is done."""
        while self._chores:
            await asyncio.gather(*self._chores, return_exceptions=True)

    # --- runs -----------------------------------------------------------------------------
    async def run_now(
        self,
        *,
        scope: str | None = None,
        mode: str | None = None,
        dry_run: bool = False,
        consolidate: bool = False,
    ) -> dict[str, Any]:
        """Start a manual run (the settings' scope and mode unless given) and return its row.

        `consolidate` makes it a consolidation (issue 18: learning from episodes) rather than
        an organizing run: the runner finds `consolidate` in the row it is handed. Returns the
        `skipped` row instead when another run is active; the runner is not called.
        """
        self._require_open()
        async with self._lock:
            self._require_open()
            settings = self._settings()
            fields = {
                "trigger": "manual",
                "scope": scope or settings.scope,
                "mode": mode or settings.mode,
                "dry_run": dry_run,
            }
            created, claimed = await self._create(fields)
            run = run_view(created)
            if consolidate:
                run["consolidate"] = True  # for the runner; not a field of the row
            if claimed:
                self._spawn(run)
            return run

    async def _create(self, fields: dict[str, Any]) -> tuple[OrganizeRun, bool]:
        # Settings and callers' values are outside text: checked as the create command would.
        request = parse_request(RunCreateRequest, fields, label="organize_run_create")
        return await self._store_call(create_run, self._store, request)

    def _on_timer(self) -> None:
        if not self._closed:
            self._chore(self._timer_fired(), name="organizer-timer")

    async def _timer_fired(self) -> None:
        async with self._lock:
            if not self._closed:
                await self._tick(self._clock())

    async def _tick(self, now: int) -> None:
        """Start the scheduled run that came due since the last check, then re-arm."""
        try:
            settings = self._settings()
            due = previous_due_at(settings, at_or_before_ms=now)
            checked = self._checked_ms if self._checked_ms is not None else now
            # The schedule may have been saved (by another program) after the last check.
            checked = max(checked, settings.saved_at or checked)
            if due is not None and due > checked:
                await self._start_scheduled(settings, due_at=due, now=now)
            self._checked_ms = now
        except MemoryDomainError:
            # An environmental failure (locked index, unreadable settings): the next wake,
            # at most an hour away, tries again because _checked_ms did not move.
            log.exception("the scheduled organizer run could not be started")
        finally:
            self._arm(now)

    def _on_poll(self) -> None:
        if not self._closed:
            self._chore(self._poll_fired(), name="organizer-poll")

    async def _poll_fired(self) -> None:
        try:
            async with self._lock:
                # One run at a time: the claim would find ours anyway.
                if self.running is None and not self._closed:
                    await self._claim_due(self._clock())
        except MemoryDomainError as exc:
            # A locked or busy index: the next poll, seconds away, tries again.
            log.warning("could not look for queued organizer runs: %s", exc.message)
        finally:
            self._arm_poll()

    def _arm_poll(self) -> None:
        if self._poll is not None and not self._closed:
            self._poll.start(config.ORGANIZE_PENDING_POLL_MS, self._on_poll)

    async def _start_scheduled(self, settings: OrganizerSettings, *, due_at: int, now: int) -> None:
        created, claimed = await self._create(
            {
                "trigger": "scheduled",
                "scope": settings.scope,
                "mode": settings.mode,
                "due_at": due_at,
            }
        )
        if not claimed:
            # REFERENCE A10: another run is active; the skipped row is the record.
            log.info("scheduled organizer run skipped: another run is active")
            return
        if settings.learn:
            self._learn_after.add(created.run_id)
        await self._claim_due(now)

    async def _claim_due(self, now: int) -> None:
        """Start the oldest due pending run, if nothing is running."""
        request = parse_request(DueClaimRequest, {"now": now}, label="organize_due_claim")
        run = await self._store_call(self._store.organize_due_claim, request.now)
        if run is not None:
            self._spawn(run_view(run))

    async def _covered(self, due: int) -> bool:
        """Whether a scheduled run was recorded for `due` or later (any outcome counts)."""
        request = RunListRequest(limit=config.ORGANIZE_RUN_LIST_MAX)
        rows = await self._store_call(list_runs, self._store, request)
        for row in rows:  # newest first
            if row.trigger == "scheduled":
                return max(row.created_at, row.due_at or 0) >= due
        return False

    def _arm(self, now: int) -> None:
        if self._closed:
            return
        self._next_due = next_run_at(self._settings(), after_ms=now)
        if self._next_due is None:
            self._timer.cancel()
            return
        # REFERENCE A10 wake cap: sleep and clock changes are noticed within an hour.
        delay = min(self._next_due - now, config.ORGANIZE_WAKE_MAX_MS)
        self._timer.start(delay, self._on_timer)

    # --- tasks ----------------------------------------------------------------------------
    def _chore(self, coro: Coroutine[Any, Any, None], *, name: str) -> None:
        task = self._spawn_task(coro, name=name)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    def _spawn(self, run: dict[str, Any]) -> None:
        run_id = str(run["run_id"])
        task = self._spawn_task(self._execute(run), name=f"organizer-{run_id}")
        self._tasks[task] = run_id
        task.add_done_callback(self._task_done)

    async def _execute(self, run: dict[str, Any]) -> BaseException | None:
        # The runner is called inside the task, so a task cancelled before its first step
        # leaves no un-awaited coroutine behind. Its failure is the task's result: recorded on
        # the run's row (_task_done), not raised to whoever owns the task.
        try:
            await self._runner(run)
        except Exception as exc:
            return exc
        return None

    def _task_done(self, task: asyncio.Task[BaseException | None]) -> None:
        run_id = self._tasks.pop(task)
        # Also covers a task cancelled before it started: the runner never saw it.
        if task.cancelled():
            status, error = "cancelled", None
        elif (exc := task.result()) is not None:
            log.error("organizer run %s failed", run_id, exc_info=exc)
            status, error = "failed", _error_text(exc)
        else:
            status, error = "failed", "runner_unfinished"
        self._chore(self._ended(run_id, status, error), name=f"organizer-end-{run_id}")

    async def _ended(self, run_id: str, status: str, error: str | None) -> None:
        async with self._lock:
            ended = await self._finish(run_id, status, error=error)
        if ended and error == "runner_unfinished":
            # Why: a row left running would block every run for 6 hours (stale limit).
            log.error("organizer run %s: the runner returned without finishing it", run_id)
        if self._on_end is not None:
            await self._on_end(run_id)
        if run_id in self._learn_after:  # announced first: the learning run is the next one
            self._learn_after.discard(run_id)
            try:
                async with self._lock:
                    await self._learn(run_id)
            except MemoryDomainError as exc:
                # A locked or busy index: this time's learning is skipped; the next scheduled
                # run's consolidation reads these episodes too (its window starts earlier).
                log.warning("could not start learning after run %s: %s", run_id, exc.message)

    async def _learn(self, after: str) -> None:
        """The consolidation that follows scheduled run `after` (OrganizerSettings.learn),
        when that run ended as it should and nothing else runs; with the lock held."""
        if self._closed:
            return
        request = parse_request(RunReadRequest, {"run_id": after}, label="organize_run_read")
        finished = await self._store_call(self._store.organize_run_read, request.run_id)
        if finished.status != "succeeded":
            return  # a failed or cancelled run is not followed: the person looks first
        created, claimed = await self._create({"trigger": "scheduled"})
        if claimed:
            run = run_view(created)
            run["consolidate"] = True
            self._spawn(run)

    async def _finish(self, run_id: str, status: str, *, error: str | None = None) -> bool:
        """End the run unless the runner already did; return whether this call ended it."""
        payload: dict[str, Any] = {"run_id": run_id, "status": status}
        if error is not None:
            payload["error"] = error
        request = parse_request(RunUpdateRequest, payload, label="organize_run_update")
        try:
            return await self._store_call(_end_if_active, self._store, request)
        except MemoryDomainError:
            # A locked or broken index: the stale limit fails the row later.
            log.exception("could not record the end of organizer run %s", run_id)
            return False

    def _require_open(self) -> None:
        if self._closed:
            raise RuntimeError("the organizer scheduler is closed")


def _end_if_active(store: MemoryStore, request: RunUpdateRequest) -> bool:
    """Record `request` (a run's end) unless the run already ended; whether it was recorded."""
    if store.organize_run_read(request.run_id).status not in ACTIVE:
        return False
    update_run(store, request)
    return True

"""The app's organizer service: runs as tasks on the app's loop with every store call on the store
worker, a responsive window during a run, cancellation, the QTimer schedule."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from sqlalchemy import event

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.organizer.service import next_run_at
from liveagent_memory.settings import (
    OrganizerSettings,
    SecretStore,
    Settings,
    load_settings,
    save_settings,
)
from liveagent_memory.store import runs as store_runs
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.organizer_service import OrganizerService, QtTimer
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fake_llm import API_KEY, MODEL, FakeLLMServer, Reply, completion_body
from tests.helpers.organizer import keep_all, planner, read_run, write
from tests.helpers.waiting import WAIT_S, until

WAIT_MS = int(WAIT_S * 1000)

# An offline run plans nothing; it embeds the three seeded memories for the duplicate check
# by meaning (organizer/candidates.py) and says how far it is.
EMBEDDING = [f"embedding memories for the duplicate check: {done}/3" for done in (0, 3)]
PHASES = ["scan", "cluster", *EMBEDDING, "gate", "apply"]
STORE_WORKER = "store_0"  # the bridge's one store thread (ThreadPoolExecutor's naming)
# A run over this many memories reads every file and runs the offline duplicate finder: work
# that takes about a second here, and would freeze the window for that long on the UI thread.
MANY_MEMORIES = 2000
TICK_MS = 10  # the QTimer that stands in for the window's own painting and input
MAX_TICK_GAP_S = 0.2  # a window that answers within this feels responsive


class ThreadRecordingClock:
    """The real clock, noting which threads ask for the time (the store asks on every write)."""

    def __init__(self, offset_ms: int = 0) -> None:
        self.offset_ms = offset_ms
        self.threads: set[str] = set()

    def __call__(self) -> int:
        self.threads.add(threading.current_thread().name)
        return time.time_ns() // 1_000_000 + self.offset_ms


class Events:
    """What the service announced, and on which thread each announcement arrived."""

    def __init__(self, service: OrganizerService) -> None:
        self.started: list[dict[str, Any]] = []
        self.progress: list[tuple[str, str]] = []
        self.finished: list[dict[str, Any]] = []
        self.threads: set[str] = set()
        self.schedule_changes = 0
        service.run_did_start.connect(self._started)
        service.run_did_progress.connect(self._progress)
        service.run_did_finish.connect(self._finished)
        service.schedule_did_change.connect(self._schedule)

    def _note(self) -> None:
        self.threads.add(threading.current_thread().name)

    def _started(self, run: dict[str, Any]) -> None:
        self._note()
        self.started.append(run)

    def _progress(self, run_id: str, message: str) -> None:
        self._note()
        self.progress.append((run_id, message))

    def _finished(self, run: dict[str, Any]) -> None:
        self._note()
        self.finished.append(run)

    def _schedule(self) -> None:
        self.schedule_changes += 1


Make = Callable[..., OrganizerService]


def opened_context(home: Path, clock: Callable[[], int] | None = None) -> AppContext:
    """The app's AppContext on `home`, its store open (the window opens it before the service)."""
    context = app_context(home, clock=clock) if clock else app_context(home)
    context.open_store()
    return context


@pytest_asyncio.fixture
async def make(qapp: QApplication, home: Path) -> AsyncIterator[Make]:
    """Build services on the app's contexts (each closed, with its bridge, after the test)."""
    made: list[tuple[OrganizerService, Bridge, AppContext]] = []

    def maker(*, clock: Callable[[], int] | None = None) -> OrganizerService:
        context = opened_context(home, clock)
        bridge = Bridge()
        service = OrganizerService(context, bridge=bridge)
        made.append((service, bridge, context))
        return service

    yield maker
    for service, bridge, context in made:
        await service.aclose()
        shiboken6.delete(service)  # freed on the UI thread, as MainWindow.aclose does
        await bridge.close()
        context.close()


def seed_duplicates(home: Path) -> None:
    with MemoryStore.open(home) as store:
        write(store, "tea-a", "I drink green tea every morning.", description="Morning tea")
        write(store, "tea-b", "I drink green tea every morning.", description="Morning tea")
        write(store, "coffee", "No coffee after 2pm.", description="Coffee rule")


def use_fake_model(home: Path, server: FakeLLMServer) -> None:
    """The organizer's model in settings.json points at the fake server; the key is stored."""
    home.mkdir(parents=True, exist_ok=True)
    save_settings(
        home,
        Settings.from_dict({"organizer_model": {"model": MODEL, "api_base": server.base_url}}),
    )
    SecretStore().set("organizer", API_KEY)


def store_of(service: OrganizerService) -> MemoryStore:
    return service._store  # the store of the test's context, handed to the service by `make`


def sql_threads(store: MemoryStore) -> set[str]:
    """The threads on which `store` runs SQL from now on (SQLAlchemy's own event hook)."""
    threads: set[str] = set()

    def note(*_args: Any) -> None:
        threads.add(threading.current_thread().name)

    event.listen(store.index.engine, "before_cursor_execute", note)
    return threads


def seed_many(home: Path, count: int) -> None:
    """`count` memories written by hand (as a big store's files are), every fifth a duplicate
    of the one before (its description too: "About note-3" / "About note-4" name two different
    things), so the duplicate finder has work; the store indexes them when opened."""
    words = [f"word{i}" for i in range(3000)]
    for i in range(count):
        source = i - 1 if i % 5 == 4 else i
        body = " ".join(words[(source * 37 + k * 101) % len(words)] for k in range(40))
        text = memory_text(f"note-{i}", description=f"About note-{source}", body=body)
        write_file(home, f"global/note-{i}.md", text)


async def finished(events: Events, count: int = 1, timeout: float = 40) -> dict[str, Any]:
    await until(lambda: len(events.finished) >= count, timeout, what="the run to finish")
    return events.finished[count - 1]


# --- runs off the UI thread -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_run_is_a_task_on_the_loop_and_every_store_call_runs_on_the_store_worker(
    make: Make, home: Path
) -> None:
    seed_duplicates(home)
    clock = ThreadRecordingClock()
    service = make(clock=clock)
    events = Events(service)
    await service.start()
    clock.threads.clear()
    threads = sql_threads(store_of(service))

    run = await service.run_now()
    assert (run["trigger"], run["status"]) == ("manual", "running")
    assert service.running
    final = await finished(events)

    # Every SQL statement of the run, its creation and the recording of its end ran on the
    # store worker; the store's clock was asked there too (it stamps every write).
    assert threads == {STORE_WORKER}
    assert STORE_WORKER in clock.threads
    assert not any(name.startswith("organizer") for name in clock.threads)  # no thread of its own
    # Every announcement arrived on the UI thread, progress included.
    assert events.threads == {threading.main_thread().name}
    assert [message for _id, message in events.progress] == PHASES
    assert {run_id for run_id, _ in events.progress} == {run["run_id"]}
    assert events.started[0]["run_id"] == run["run_id"]
    assert (final["run_id"], final["status"], final["phase"]) == (
        run["run_id"],
        "succeeded",
        "done",
    )
    # No model configured: the offline duplicate check proposed the tea merge for review.
    decisions = final["report"]["report"]["safeDecisions"]
    assert sorted(d["op"] for d in decisions) == ["delete", "upsert"]
    assert {d["slug"] for d in decisions} == {"tea-a", "tea-b"}
    assert not service.running and service.current_run is None


@pytest.mark.asyncio
async def test_the_loop_stays_responsive_during_a_run(make: Make, home: Path) -> None:
    seed_many(home, MANY_MEMORIES)
    service = make()
    events = Events(service)
    ticks: list[float] = []
    ticker = QTimer()
    ticker.timeout.connect(lambda: ticks.append(time.monotonic()))
    ticker.start(TICK_MS)
    try:
        started = time.monotonic()
        await service.run_now(scope="global")
        final = await finished(events)
        took = time.monotonic() - started
    finally:
        ticker.stop()

    assert (final["status"], final["input_count"]) == ("succeeded", MANY_MEMORIES), final
    assert took > 2 * MAX_TICK_GAP_S, took  # long enough to show a frozen loop
    assert len(ticks) >= took / 0.1  # the timer kept firing all along ...
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:], strict=False)]
    assert max(gaps) < MAX_TICK_GAP_S, max(gaps)  # ... never held up by the run's work
    assert final["report"]["report"]["safeDecisions"]  # the duplicates were found


@pytest.mark.asyncio
async def test_the_model_comes_from_the_settings_file(
    make: Make, home: Path, llm_server: FakeLLMServer
) -> None:
    seed_duplicates(home)
    use_fake_model(home, llm_server)
    llm_server.push(planner(keep_all))
    service = make()
    events = Events(service)
    await service.start()

    await service.run_now(scope="global", mode="standard")
    final = await finished(events)

    assert final["status"] == "succeeded", final
    assert len(llm_server.requests) == 1
    assert llm_server.requests[0]["model"] == "fake-model"
    assert llm_server.headers[0]["authorization"] == f"Bearer {API_KEY}"
    assert (final["scope"], final["mode"]) == ("global", "standard")
    assert final["token_usage_total"] > 0
    # issue 15: a model run embeds its memories for the duplicate check too (its findings
    # go into the plan calls), before it plans
    assert [m for _id, m in events.progress][:5] == ["scan", "cluster", *EMBEDDING, "plan"]
    (request,) = llm_server.requests
    assert "- tea-a / tea-b: exact copies" in request["messages"][-1]["content"]


@pytest.mark.asyncio
async def test_a_broken_settings_file_at_run_time_fails_the_run_with_its_code(
    make: Make, home: Path
) -> None:
    seed_duplicates(home)
    service = make()
    events = Events(service)
    await service.start()
    (home / "settings.json").write_text("{not json", encoding="utf-8")

    await service.run_now()
    final = await finished(events)

    assert final["status"] == "failed"
    assert final["error"].startswith("settings_invalid: ")


@pytest.mark.asyncio
async def test_a_broken_settings_file_at_start_keeps_the_defaults(make: Make, home: Path) -> None:
    service = make()
    (home / "settings.json").write_text('{"organizer": {"schedule": "hourly"}}', "utf-8")
    await service.start()  # no exception: the schedule stays off
    assert service.next_due_ms is None
    assert service.settings == Settings()


@pytest.mark.asyncio
async def test_run_now_while_a_run_is_active_returns_a_skipped_row(
    make: Make, home: Path, llm_server: FakeLLMServer
) -> None:
    seed_duplicates(home)
    use_fake_model(home, llm_server)
    llm_server.push(Reply(completion_body(content="slow"), delay=1.0))
    service = make()
    events = Events(service)
    first = await service.run_now()
    await until(lambda: llm_server.requests, 40, what="the model call")

    second = await service.run_now()

    assert (second["status"], second["error"]) == ("skipped", "already_running")
    assert second["run_id"] != first["run_id"]
    assert service.cancel()
    await finished(events)
    assert [run["run_id"] for run in events.started] == [first["run_id"]]


# --- cancellation -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_cancel_waits_until_the_pipeline_recorded_cancelled(
    make: Make, home: Path, llm_server: FakeLLMServer
) -> None:
    seed_duplicates(home)
    use_fake_model(home, llm_server)
    llm_server.push(Reply(completion_body(content="too late"), delay=3.0))
    service = make()
    events = Events(service)
    run = await service.run_now()
    await until(lambda: llm_server.requests, 40, what="the model call")
    started = time.monotonic()

    assert service.cancel() is True
    final = await finished(events)

    assert time.monotonic() - started < 2.5  # the slow reply was not waited for
    assert final["run_id"] == run["run_id"]
    # phase "done" and error "cancelled" are the pipeline's own record (the scheduler's
    # fallback would only set the status): the cancel reached the other loop and was awaited.
    assert (final["status"], final["phase"], final["error"]) == ("cancelled", "done", "cancelled")
    assert not service.running
    assert service.cancel() is False  # nothing left to cancel
    # The service runs the next one as before.
    llm_server.push(planner(keep_all))
    await service.run_now(scope="global")
    assert (await finished(events, 2))["status"] == "succeeded"


@pytest.mark.asyncio
async def test_aclose_cancels_the_run_and_waits_for_its_record(
    qapp: QApplication, home: Path, llm_server: FakeLLMServer
) -> None:
    seed_duplicates(home)
    use_fake_model(home, llm_server)
    llm_server.push(Reply(completion_body(content="too late"), delay=3.0))
    context = opened_context(home)
    bridge = Bridge()
    service = OrganizerService(context, bridge=bridge)
    try:
        run = await service.run_now()
        await until(lambda: llm_server.requests, 40, what="the model call")
        started = time.monotonic()

        await service.aclose()

        assert time.monotonic() - started < 2.5  # the slow reply was not waited for
        assert not service.running
        stored = read_run(context.store, run["run_id"])
        assert (stored["status"], stored["error"]) == ("cancelled", "cancelled")
        with pytest.raises(RuntimeError):
            await service.run_now()
    finally:
        shiboken6.delete(service)
        await bridge.close()
        context.close()


# --- the schedule ---------------------------------------------------------------------------


def test_qt_timer_calls_back_once_and_can_be_cancelled_or_replaced(qtbot: QtBot) -> None:
    timer = QtTimer()
    calls: list[str] = []
    with qtbot.waitSignal(timer.did_fire, timeout=WAIT_MS):
        timer.start(10, lambda: calls.append("first"))
    qtbot.wait(50)  # a second call would come within this
    assert calls == ["first"] and not timer.active

    timer.start(20, lambda: calls.append("dropped"))
    timer.cancel()
    timer.start(10, lambda: calls.append("replaced"))
    with qtbot.waitSignal(timer.did_fire, timeout=WAIT_MS):
        timer.start(10, lambda: calls.append("replacement"))
    qtbot.wait(50)
    assert calls == ["first", "replacement"]
    assert timer.remaining_ms == -1


@pytest.mark.asyncio
async def test_the_qt_timer_starts_the_scheduled_run_when_it_is_due(make: Make, home: Path) -> None:
    seed_duplicates(home)
    # A clock running just before a 03:00 due time, in real time, so the QTimer really waits.
    due = int(datetime(2030, 5, 6, 3, 0, tzinfo=UTC).timestamp() * 1000)
    clock = ThreadRecordingClock()
    service = make(clock=clock)
    events = Events(service)
    daily = Settings(organizer=OrganizerSettings(schedule="daily", time_of_day="03:00"))
    clock.offset_ms = due - 400 - time.time_ns() // 1_000_000

    await service.reschedule(daily)  # only future due moments count: nothing runs yet
    assert service.next_due_ms == due
    assert 0 < service.timer.remaining_ms <= 1000  # a coarse timer rounds a little
    assert events.started == [] and events.schedule_changes == 1

    final = await finished(events)

    assert (final["trigger"], final["due_at"], final["status"]) == ("scheduled", due, "succeeded")
    assert STORE_WORKER in clock.threads
    # Re-armed for tomorrow, and the page was told (a coarse timer that fires a little
    # early only re-arms for the rest, which is one more change).
    assert service.next_due_ms == next_run_at(daily.organizer, after_ms=due)
    assert events.schedule_changes >= 2
    # An offline run only proposes: nothing was applied by the scheduled run.
    assert final["safe_applied"] == 0
    listing = dispatch(store_of(service), "memory_list", {"include_all_projects": True})
    assert len(listing["entries"]) == 3


@pytest.mark.asyncio
async def test_reschedule_reads_the_saved_settings_when_none_are_given(
    make: Make, home: Path
) -> None:
    service = make()
    await service.start()
    assert service.next_due_ms is None
    weekly = {"schedule": "weekly", "time_of_day": "07:30", "weekday": 3}
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"organizer": weekly}), "utf-8")

    await service.reschedule()

    assert service.settings == load_settings(home)
    due = service.next_due_ms
    assert due is not None
    moment = datetime.fromtimestamp(due / 1000, tz=UTC)
    assert (moment.isoweekday(), moment.hour, moment.minute) == (3, 7, 30)
    assert service.timer.active


# --- runs from other processes (issue 12) -------------------------------------------------------
# The app claims a queued run at its next poll; the margin covers a slow, shared machine.
CLAIM_WITHIN_S = config.ORGANIZE_PENDING_POLL_MS / 1000 + 10

CRASHING_OWNER = """
import os, signal, sys
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.store.store import MemoryStore
store = MemoryStore.open(sys.argv[1])
run = dispatch(store, "organize_run_create", {"trigger": "manual"})["run"]
print(run["run_id"], run["status"], flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # dies mid-run, like kill -9 during `organize`
"""


def on_disk(store: MemoryStore, run_id: str) -> OrganizeRun:
    """The row as stored, read without the reaping a command would do on its own."""
    with store.index.read() as conn:
        return store_runs.read(conn, run_id)


@pytest.mark.asyncio
async def test_the_app_runs_a_run_queued_through_call_within_seconds(
    make: Make, home: Path
) -> None:
    seed_duplicates(home)
    service = make()
    events = Events(service)
    await service.start()
    assert service.poll_timer.active

    # Another program (a web "Run now") queues a run through the command line.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "liveagent_memory",
            "call",
            "organize_run_create",
            '{"trigger": "manual", "scope": "global"}',
            "--home",
            str(home),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-800:]
    queued = json.loads(done.stdout)["run"]
    assert queued["status"] == "pending"

    await until(lambda: events.started, CLAIM_WITHIN_S, what="the app to claim the queued run")
    final = await finished(events)

    assert events.started[0]["run_id"] == queued["run_id"]
    assert (final["run_id"], final["status"], final["scope"]) == (
        queued["run_id"],
        "succeeded",
        "global",
    )
    assert final["owner_pid"] == os.getpid()  # the app ran it, not the `call` process
    assert [message for _id, message in events.progress] == PHASES
    assert service.poll_timer.active  # it keeps listening


@pytest.mark.asyncio
async def test_the_app_fails_a_killed_owners_run_and_runs_again(make: Make, home: Path) -> None:
    seed_duplicates(home)
    service = make()
    events = Events(service)
    await service.start()
    store = store_of(service)

    child = subprocess.run(
        [sys.executable, "-c", CRASHING_OWNER, str(home)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-800:]
    run_id, status = child.stdout.split()
    assert status == "running"

    # Nobody but the app's poll looks at the runs here.
    await until(
        lambda: on_disk(store, run_id).status == "failed",
        CLAIM_WITHIN_S,
        what="the app to fail the run of the killed process",
    )
    assert on_disk(store, run_id).error == "abandoned"
    assert events.started == []  # a crashed run is failed, not re-run

    run = await service.run_now()
    assert run["status"] == "running"
    final = await finished(events)
    assert (final["run_id"], final["status"]) == (run["run_id"], "succeeded")


def test_importing_the_app_does_not_import_litellm() -> None:
    probe = (
        "import sys\n"
        "import liveagent_memory.ui.window, liveagent_memory.ui.organizer_service\n"
        "assert 'litellm' not in sys.modules, 'litellm imported at app start'\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-800:]

"""The organizer in the desktop app: its scheduler on a QTimer, its runs on their own thread.

`OrganizerService` wires the plain-Python `OrganizerScheduler` (organizer/service.py) to Qt:

- `QtTimer` is the scheduler's one-shot timer (a single-shot QTimer on the UI thread), and a
  second one polls for runs other processes queued (a web "Run now", `call`);
- each claimed run executes `OrganizerPipeline.run` on `OrganizerThread`, one long-lived
  thread with its own asyncio loop. The pipeline calls the store synchronously (a phase update,
  a listing, a whole apply batch) and awaits the model, so running it on the UI loop would
  freeze the window during every store call. One thread for the app's lifetime keeps litellm's
  async HTTP clients on one loop, and litellm's slow first import happens there too.
- progress messages cross back to the UI thread through a queued Qt signal, and cancelling a
  run (the Cancel button, or closing the app) cancels the pipeline task on the organizer loop
  and waits until it has recorded `cancelled` on its row.

Honest limits: the scheduler's own bookkeeping still runs on the UI loop, because
`OrganizerScheduler` calls `dispatch` synchronously — creating and claiming a run, reading the
history once at start-up to find a missed run, the poll for queued runs (one indexed read every
few seconds when none is queued), and recording how a run ended. Each is one short
SQLite transaction (milliseconds), but it can wait on the store's write lock while the
organizer thread or the store worker holds it for a write. Settings are read from disk on the
UI thread only at `start()`; `reschedule()` takes the settings the page just saved. The model
settings and the API key (keyring) are read on the organizer thread when a run begins.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import Clock
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.organizer.service import OrganizerScheduler
from liveagent_memory.settings import (
    OrganizerSettings,
    SecretStore,
    Settings,
    load_settings,
    model_config,
)
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge

log = logging.getLogger(__name__)
T = TypeVar("T")

THREAD_NAME = "organizer"  # the organizer thread's name (logs, tests)
# How long closing the app waits for a cancelled run to unwind on its thread. Cancellation
# lands at the pipeline's next await; only a store call already in progress delays it.
CANCEL_WAIT_S = 10.0
THREAD_STOP_WAIT_S = 5.0  # how long aclose waits for the organizer loop to shut down


class QtTimer(QObject):
    """The scheduler's one-shot timer (organizer.service.Timer) on a single-shot QTimer.

    The scheduler caps each delay at an hour, well inside QTimer's int range. A coarse timer
    may fire a little early; the scheduler then simply re-arms for the rest.

    Signals:
        did_fire: emitted after the callback ran (the service re-reads the next due time).
    """

    did_fire = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._fire)
        self._callback: Callable[[], None] | None = None

    def start(self, delay_ms: int, callback: Callable[[], None]) -> None:
        """Call `callback` once after `delay_ms`; starting again replaces the pending call."""
        self._callback = callback
        self._timer.start(max(0, int(delay_ms)))

    def cancel(self) -> None:
        """Drop the pending call, if any."""
        self._timer.stop()
        self._callback = None

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    @property
    def remaining_ms(self) -> int:
        """Milliseconds until the pending call (-1 when none is armed)."""
        return self._timer.remainingTime()

    def _fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            callback()  # the scheduler re-arms inside, so the callback is taken first
        self.did_fire.emit()


class OrganizerThread:
    """One daemon thread running an asyncio loop for organizer runs, started on first use."""

    def __init__(self, *, name: str = THREAD_NAME) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopped: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._closed = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _ensure_started(self) -> asyncio.AbstractEventLoop:
        if self._closed:
            raise RuntimeError("the organizer thread is closed")
        if self._loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()
            self._thread = threading.Thread(
                target=self._main, args=(loop, ready), name=self._name, daemon=True
            )
            self._thread.start()
            ready.wait()
            self._loop = loop
        return self._loop

    def _main(self, loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        try:
            loop.run_forever()
        finally:
            try:
                pending = asyncio.all_tasks(loop)
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()
                self._stopped.set_result(None)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the organizer loop and return its result to the awaiting loop.

        Cancelling the awaiting task cancels `coro`'s task on the organizer loop and waits
        (up to CANCEL_WAIT_S) until it has finished unwinding before re-raising.
        """
        try:
            loop = self._ensure_started()
        except RuntimeError:
            coro.close()  # never scheduled: no "coroutine was never awaited" warning
            raise
        done: concurrent.futures.Future[T] = concurrent.futures.Future()
        holder: list[asyncio.Task[T]] = []

        def begin() -> None:  # on the organizer loop
            if done.cancelled():  # cancelled before it was scheduled
                coro.close()
                return
            task = loop.create_task(coro)
            holder.append(task)
            task.add_done_callback(lambda finished: _copy_outcome(finished, done))

        def stop() -> None:  # on the organizer loop, after begin() (the queue is FIFO)
            if holder:
                holder[0].cancel()
            elif not done.done():
                done.cancel()

        loop.call_soon_threadsafe(begin)
        waiter = asyncio.wrap_future(done)
        try:
            # shield: a cancelled caller must not cancel `done`, which reports the real end.
            return await asyncio.shield(waiter)
        except asyncio.CancelledError:
            if not waiter.done():
                loop.call_soon_threadsafe(stop)
                await _wait_quietly(waiter, CANCEL_WAIT_S)
            raise

    async def aclose(self) -> None:
        """Stop the loop (after what it is running unwinds) and let the thread end."""
        self._closed = True
        if self._loop is None:
            return
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._loop.stop)
        try:
            await asyncio.wait_for(asyncio.wrap_future(self._stopped), THREAD_STOP_WAIT_S)
        except TimeoutError:
            # The thread is a daemon: a store call stuck on a lock cannot keep the app alive.
            log.warning("the organizer thread did not stop within %.0f s", THREAD_STOP_WAIT_S)
            return
        if self._thread is not None:
            # Its loop is closed and its last statement ran: this join returns at once.
            self._thread.join(THREAD_STOP_WAIT_S)


def _copy_outcome(task: asyncio.Task[T], done: concurrent.futures.Future[T]) -> None:
    if done.done():
        return
    if task.cancelled():
        done.cancel()
        return
    error = task.exception()
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(task.result())


async def _wait_quietly(waiter: asyncio.Future[Any], timeout: float) -> None:
    """Wait until `waiter` ends, however it ends, even if the caller is cancelled again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not waiter.done():
        remaining = deadline - loop.time()
        if remaining <= 0:
            log.warning("a cancelled organizer run did not unwind within %.0f s", timeout)
            return
        try:
            # asyncio.wait neither raises the waiter's outcome nor cancels it on a timeout.
            await asyncio.wait({waiter}, timeout=remaining)
        except asyncio.CancelledError:
            continue  # a second cancel (closing the app): the run still records its end
    if not waiter.cancelled() and waiter.exception() is not None:
        # The pipeline failed while unwinding; it recorded that on the run row already.
        log.error("organizer run failed while cancelling", exc_info=waiter.exception())


class OrganizerService(QObject):
    """The window's organizer: schedule, Run now, Cancel, and runs off the UI thread.

    Signals:
        run_did_start(dict): a run this service owns began (its row as created/claimed).
        run_did_progress(str, str): run id and a progress message ("scan", "plan 1/3: …");
            always delivered on the UI thread.
        run_did_finish(dict): a run ended (its final row, with the report view).
        schedule_did_change: the next scheduled run time (`next_due_ms`) may have changed.
    """

    run_did_start = Signal(dict)
    run_did_progress = Signal(str, str)
    run_did_finish = Signal(dict)
    schedule_did_change = Signal()
    # Emitted on the organizer thread; the queued connection hands it to the UI thread.
    _progress_arrived = Signal(str, str)

    def __init__(
        self,
        store: MemoryStore,
        *,
        home: Path,
        secrets: SecretStore,
        bridge: Bridge,
        clock: Clock | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._home = home
        self._secrets = secrets
        self._bridge = bridge
        self._settings = Settings()
        self._thread = OrganizerThread()
        self.timer = QtTimer(self)
        self.timer.did_fire.connect(self.schedule_did_change)
        self.poll_timer = QtTimer(self)
        self._current: dict[str, Any] | None = None
        self._progress_arrived.connect(self.run_did_progress, Qt.ConnectionType.QueuedConnection)
        self._scheduler = OrganizerScheduler(
            store,
            timer=self.timer,
            clock=clock or store.now_ms,
            settings=self._organizer_settings,
            runner=self._run,
            poll=self.poll_timer,
        )

    # --- state --------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a run this service started is still going."""
        return self._scheduler.running is not None

    @property
    def current_run(self) -> dict[str, Any] | None:
        """The row of the run in progress (as it was when it began), if any."""
        return self._current if self.running else None

    @property
    def next_due_ms(self) -> int | None:
        """The next scheduled run (epoch ms), None when nothing is scheduled."""
        return self._scheduler.next_due_ms

    @property
    def settings(self) -> Settings:
        """The settings the schedule was last armed from."""
        return self._settings

    @property
    def thread_name(self) -> str:
        return self._thread.name

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Read the settings, start a due pending or missed run, and arm the timer."""
        self._settings = self._read_settings()
        self._scheduler.start()
        self.schedule_did_change.emit()

    def reschedule(self, settings: Settings | None = None) -> None:
        """Re-arm after a settings change (`settings`: what was just saved; else read them)."""
        self._settings = settings if settings is not None else self._read_settings()
        self._scheduler.reschedule()
        self.schedule_did_change.emit()

    def run_now(self, scope: str | None = None, mode: str | None = None) -> dict[str, Any]:
        """Start a manual run; returns its row (a `skipped` row when another run is active)."""
        return self._scheduler.run_now(scope=scope, mode=mode)

    def cancel(self) -> bool:
        """Cancel the run in progress; return whether there was one."""
        task = self._scheduler.running
        if task is None:
            return False
        task.cancel()
        return True

    async def aclose(self) -> None:
        """Cancel the run in progress (its row records `cancelled`), then stop the thread."""
        await self._scheduler.aclose()
        await self._thread.aclose()

    # --- settings -----------------------------------------------------------------------------
    def _organizer_settings(self) -> OrganizerSettings:
        return self._settings.organizer

    def _read_settings(self) -> Settings:
        try:
            return load_settings(self._home)
        except SettingsInvalid as exc:
            # A broken settings file must not stop the app; the page shows the same error when
            # it loads the settings, and the schedule stays as it was.
            log.warning("organizer settings unreadable, keeping the last ones: %s", exc.message)
            return self._settings

    # --- runs ---------------------------------------------------------------------------------
    async def _run(self, run: dict[str, Any]) -> None:
        """The scheduler's runner (on the UI loop): the pipeline runs on the organizer thread."""
        run_id = str(run["run_id"])
        task = asyncio.current_task()
        if task is not None:
            # Added after the scheduler's own done callback, so it runs once the end is recorded.
            task.add_done_callback(lambda _task: self._did_end(run_id))
        self._current = run
        self.run_did_start.emit(run)
        await self._thread.run(self._pipeline(run))

    async def _pipeline(self, run: dict[str, Any]) -> dict[str, Any]:
        """One run, on the organizer loop: the model settings are read when the run begins."""
        run_id = str(run["run_id"])
        settings = load_settings(self._home)
        config = model_config(settings, self._secrets, "organizer")
        offline = not config.model  # SPEC 4: no model configured -> the offline planner
        pipeline = OrganizerPipeline(self._store, None if offline else LLMClient(config))
        return await pipeline.run(
            run,
            offline=offline,
            progress=lambda message: self._progress_arrived.emit(run_id, message),
        )

    def _did_end(self, run_id: str) -> None:
        if self._current is not None and self._current.get("run_id") == run_id:
            self._current = None
        self._bridge.spawn(self._announce_end(run_id), name=f"organizer-end-{run_id}")

    async def _announce_end(self, run_id: str) -> None:
        final = await self._bridge.run_store(
            dispatch, self._store, "organize_run_read", {"run_id": run_id}
        )
        self.run_did_finish.emit(final["run"])

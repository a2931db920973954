"""The organizer in the desktop app: its scheduler on QTimers, its runs as tasks on the app's loop.

`OrganizerService` wires the plain-Python `OrganizerScheduler` (organizer/service.py) and
`OrganizerPipeline` to Qt and to the app's one loop (docs/ARCHITECTURE.md "Threads and loops of
the app"):

- `QtTimer` is the scheduler's one-shot timer (a single-shot QTimer on the UI thread), and a
  second one polls for runs other processes queued (a web "Run now", `call`);
- a claimed run is a plain task on the qasync loop, owned by the bridge: the pipeline awaits
  every store call on the bridge's store worker, the offline duplicate finder (CPU work) on its
  compute worker, and the model on the loop (litellm's first import runs on a thread). Its
  progress is a signal emitted on the UI thread; Cancel is `task.cancel()`, and the pipeline
  records `cancelled` on the run's row before the task ends;
- the scheduler's bookkeeping (create, claim, the poll, recording how a run ended) awaits the
  store worker too, so the loop never waits on the store's write lock.

The app's AppContext is the only source of settings and keys: the schedule is armed from the
context's current settings (`start()`, or what the page just saved), and each run takes its
model client from the context's factory (`llm("organizer")`, read on the store worker when the
run begins: settings.json again only if it changed, the key as the context keeps it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.organizer.consolidate import Consolidation
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.organizer.service import OrganizerScheduler
from liveagent_memory.settings import OrganizerSettings, Settings
from liveagent_memory.ui.bridge import Bridge

log = logging.getLogger(__name__)


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


class OrganizerService(QObject):
    """The window's organizer: schedule, Run now, Cancel, and runs on the app's loop.

    Built on the window's AppContext once its store is open (the window opens it on the store
    worker first).

    Signals:
        run_did_start(dict): a run this service owns began (its row as created/claimed).
        run_did_progress(str, str): run id and a progress message ("scan", "plan 1/3: …").
        run_did_finish(dict): a run ended (its final row, with the report view).
        schedule_did_change: the next scheduled run time (`next_due_ms`) may have changed.
    """

    run_did_start = Signal(dict)
    run_did_progress = Signal(str, str)
    run_did_finish = Signal(dict)
    schedule_did_change = Signal()

    def __init__(
        self, context: AppContext, *, bridge: Bridge, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._store = context.store
        self._bridge = bridge
        self._settings = Settings()
        self.timer = QtTimer(self)
        self.timer.did_fire.connect(self.schedule_did_change)
        self.poll_timer = QtTimer(self)
        self._current: dict[str, Any] | None = None
        self._scheduler = OrganizerScheduler(
            self._store,
            timer=self.timer,
            clock=context.clock,
            settings=self._organizer_settings,
            runner=self._run,
            poll=self.poll_timer,
            store_call=bridge.run_store,
            spawn=bridge.spawn,
            on_end=self._did_end,
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

    # --- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        """Take the current settings, start a due pending or missed run, and arm the timer."""
        self._settings = await self._bridge.run_store(self._current_settings)
        await self._scheduler.start()
        self.schedule_did_change.emit()

    async def reschedule(self, settings: Settings | None = None) -> None:
        """Re-arm after a settings change (`settings`: what was just saved; else the current)."""
        if settings is None:
            settings = await self._bridge.run_store(self._current_settings)
        self._settings = settings
        await self._scheduler.reschedule()
        self.schedule_did_change.emit()

    async def run_now(self, scope: str | None = None, mode: str | None = None) -> dict[str, Any]:
        """Start a manual run; returns its row (a `skipped` row when another run is active)."""
        return await self._scheduler.run_now(scope=scope, mode=mode)

    async def consolidate_now(self) -> dict[str, Any]:
        """Start a consolidation (learn from the episodes since the last one, proposals for
        review only); returns its row (`skipped` when another run is active)."""
        return await self._scheduler.run_now(consolidate=True)

    def cancel(self) -> bool:
        """Cancel the run in progress; return whether there was one."""
        task = self._scheduler.running
        if task is None:
            return False
        task.cancel()
        return True

    async def aclose(self) -> None:
        """Cancel the run in progress and wait until its row records `cancelled`."""
        await self._scheduler.aclose()

    # --- settings -----------------------------------------------------------------------------
    def _organizer_settings(self) -> OrganizerSettings:
        return self._settings.organizer

    def _current_settings(self) -> Settings:
        """The context's current settings (on the store worker: the file may be read)."""
        try:
            return self._context.settings.current()
        except SettingsInvalid as exc:
            # A broken settings file must not stop the app; the page shows the same error when
            # it loads the settings, and the schedule stays as it was.
            log.warning("organizer settings unreadable, keeping the last ones: %s", exc.message)
            return self._settings

    # --- runs ---------------------------------------------------------------------------------
    async def _run(self, run: dict[str, Any]) -> None:
        """The scheduler's runner: one run of the pipeline, a task on the app's loop."""
        run_id = str(run["run_id"])
        self._current = run
        self.run_did_start.emit(run)
        # The model settings and key are read when the run begins (a broken settings file
        # fails the run with its code); SPEC 4: no model configured -> the offline planner.
        model = await self._bridge.run_store(self._context.llm, "organizer")
        offline = not model.config.model

        def progress(message: str) -> None:
            self.run_did_progress.emit(run_id, message)

        if run.get("consolidate"):
            # SPEC 4's rule holds here too: no model, the offline extractor (issue 18).
            learner = Consolidation(
                self._store, None if offline else model, store_call=self._bridge.run_store
            )
            await learner.run(run, offline=offline, progress=progress)
            return
        pipeline = OrganizerPipeline(
            self._store,
            None if offline else model,
            store_call=self._bridge.run_store,
            compute=self._bridge.run_compute,
            # The app builds the vectors in the background: a run embeds only a few new
            # memories itself, and goes by words while the rest are still being built.
            meanings=self._context.meanings(embed_limit=config.MEANING_APP_EMBED_LIMIT),
        )
        await pipeline.run(run, offline=offline, progress=progress)

    async def _did_end(self, run_id: str) -> None:
        """The run's end is on its row: announce its final row."""
        if self._current is not None and self._current.get("run_id") == run_id:
            self._current = None
        final = await self._bridge.run_store(
            dispatch, self._context, "organize_run_read", {"run_id": run_id}
        )
        self.run_did_finish.emit(final["run"])

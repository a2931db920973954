"""The Projects page's Sync bar (issue 19, git sync): whether this store syncs with a git remote,
the last sync's result, "Sync now" and the sync timer (off by default, every N minutes).

On the Projects page because that page is about this store across folders and machines: its
projects seen at several paths, the other stores found. The timer lives here, with the page,
which lives as long as the window. Starting to sync (`sync init REMOTE`) stays on the command
line: choosing a remote for every memory is a step a person takes once, deliberately.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDateTime, Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import PagePart
from liveagent_memory.ui.strings import error_text

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage

MS_PER_MINUTE = 60_000


class SyncBar(QWidget, PagePart):
    """The git sync's line, Sync now, and the timer's switch and interval.

    Signals:
        sync_did_finish(object): a sync ended; its `sync_run` result (memories may have come).
        error_did_occur(object): a sync the person started failed (a timer's failure is only
            said in the line: it must not raise a message every few minutes).
    """

    sync_did_finish = Signal(object)
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage) -> None:
        super().__init__(page)
        self.page = page
        self.git: dict[str, Any] = {"initialised": False}  # sync_status's `git`
        self.conflicts = 0  # sync conflicts waiting for a person
        self.busy = False
        self.result: dict[str, Any] | None = None  # this session's last sync, if any
        self.failure: str | None = None  # why this session's last sync failed, translated
        self.status = QLabel()
        self.status.setObjectName("syncStatus")
        self.status.setWordWrap(True)
        self.timer_check = QCheckBox()
        self.timer_check.setObjectName("syncTimerCheck")
        self.interval = QSpinBox()
        self.interval.setObjectName("syncInterval")
        self.interval.setRange(config.SYNC_INTERVAL_MINUTES_MIN, config.SYNC_INTERVAL_MINUTES_MAX)
        self.interval.setValue(config.SYNC_INTERVAL_MINUTES_DEFAULT)
        self.sync_button = QPushButton()
        self.sync_button.setObjectName("syncNowButton")
        self.timer = QTimer(self)
        self.timer.setObjectName("syncTimer")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status, 1)
        row.addWidget(self.timer_check)
        row.addWidget(self.interval)
        row.addWidget(self.sync_button)
        self.sync_button.clicked.connect(lambda: self.start(by_timer=False))
        self.timer.timeout.connect(lambda: self.start(by_timer=True))
        # `clicked` and `editingFinished`: a person's change, not show() setting the values.
        self.timer_check.clicked.connect(lambda _on: self._timer_changed())
        self.interval.editingFinished.connect(self._timer_changed)
        self.retranslate()
        self._update()

    def retranslate(self) -> None:
        """Set every visible string (again on a language switch)."""
        self.timer_check.setText(self.tr("Sync every"))
        self.timer_check.setToolTip(
            self.tr("Sync with the git remote on a timer while the app runs")
        )
        self.interval.setSuffix(self.tr(" min"))
        self.sync_button.setText(self.tr("Sync now"))
        self.sync_button.setToolTip(
            self.tr("Commit this store's changes, take the remote's and push (never forced)")
        )
        self._update()

    def show_state(self, status: dict[str, Any], interval_minutes: int) -> None:
        """The git state and conflicts (`sync_status`) and the saved timer (settings.json)."""
        self.git = dict(status.get("git") or {"initialised": False})
        self.conflicts = int(status.get("count") or 0)
        self.timer_check.setChecked(interval_minutes > 0)
        if interval_minutes > 0:
            self.interval.setValue(interval_minutes)
        self._arm()
        self._update()

    def start(self, *, by_timer: bool) -> None:
        """Sync (nothing when one is running or the store does not sync): the fetch on the
        bridge's network worker, so a slow remote holds no other store call, then the rest on
        the store worker."""
        if self.busy or not self.git.get("initialised") or not loop_is_running():
            return
        self.busy = True
        self._update()
        self.client.bridge.spawn(self._run(by_timer=by_timer))

    async def _run(self, *, by_timer: bool) -> None:
        try:
            await self.client.call_network("sync_fetch", {})
            result = await self.client.call("sync_run", {"fetched": True})
            self.result, self.failure = result, None
        except MemoryDomainError as exc:
            self.failure = error_text(exc)
            if not by_timer:
                self.error_did_occur.emit(exc)
            return
        finally:
            self.busy = False
            await self.reload()
        self.sync_did_finish.emit(result)

    async def reload(self) -> None:
        """Ask for the git state again (after a sync: ahead, behind, conflicts)."""
        try:
            status = await self.client.call("sync_status", {})
        except MemoryDomainError:
            self._update()  # the line keeps what it said
            return
        self.git = dict(status.get("git") or {"initialised": False})
        self.conflicts = int(status.get("count") or 0)
        self._arm()
        self._update()

    def _timer_changed(self) -> None:
        self._arm()
        minutes = self.interval.value() if self.timer_check.isChecked() else 0
        if loop_is_running():
            self.client.bridge.spawn(self._save(minutes))

    async def _save(self, minutes: int) -> None:
        # Only this field is sent: settings_save_memory merges it into the saved settings.
        payload = {"settings": {"sync_interval_minutes": minutes}}
        try:
            await self.client.call("settings_save_memory", payload)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)

    def _arm(self) -> None:
        """Run the timer when it is switched on and the store syncs; stop it otherwise."""
        on = self.timer_check.isChecked() and bool(self.git.get("initialised"))
        period = self.interval.value() * MS_PER_MINUTE
        if not on:
            self.timer.stop()
        elif not self.timer.isActive() or self.timer.interval() != period:
            # A reload of the page (after any change) must not restart the countdown.
            self.timer.start(period)

    def _update(self) -> None:
        syncs = bool(self.git.get("initialised")) and "error" not in self.git
        self.sync_button.setEnabled(syncs and not self.busy)
        self.timer_check.setEnabled(syncs)
        self.interval.setEnabled(syncs and self.timer_check.isChecked())
        self.status.setText(self._status_text())
        self.status.setToolTip(str(self.git.get("remote") or ""))

    def _status_text(self) -> str:
        if "error" in self.git:
            return self.tr("Git sync cannot run: git is not installed.")
        if not self.git.get("initialised"):
            return self.tr(
                "Git sync is off. To sync this store between machines, run "
                "liveagent-memory sync init REMOTE once in a terminal."
            )
        if self.busy:
            return self.tr("Syncing with %1…").replace("%1", self._remote())
        parts = [self.tr("Syncs with %1").replace("%1", self._remote())]
        if self.failure is not None:
            parts.append(self.tr("last sync failed: %1").replace("%1", self.failure))
        elif self.result is not None:
            parts.append(self.tr("synced: %n files pulled", "", int(self.result["pulled"])))
        else:
            last = self.git.get("last_sync")
            if last:
                when = _local_time(str(last["at"]))
                word = self.tr("last sync %1") if last["ok"] else self.tr("last sync %1 failed")
                parts.append(word.replace("%1", when))
        if self.conflicts:
            parts.append(
                self.tr("%n conflicts to resolve on the Memories page", "", self.conflicts)
            )
        return " · ".join(parts)

    def _remote(self) -> str:
        remote = str(self.git.get("remote") or "")
        return remote.rstrip("/").rsplit("/", 1)[-1] or remote  # the repository's name


def _local_time(stamp: str) -> str:
    """An RFC 3339 UTC time (`sync_status`) as this machine's local date and minute."""
    moment = QDateTime.fromString(stamp, Qt.DateFormat.ISODateWithMs)
    if not moment.isValid():
        return stamp
    return moment.toLocalTime().toString("yyyy-MM-dd HH:mm")

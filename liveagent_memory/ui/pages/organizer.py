"""The Organizer page: schedule settings, Run now with live progress, history, review queue.

Runs belong to the window's `OrganizerService` (context.organizer): the page starts, cancels and
watches them through its signals. Everything else goes through commands: the settings
(`settings_get` / `settings_save_memory`), the history (`organize_run_list`, `…_clear_history`),
one run with its report view (`organize_run_read`), and a person's choice from a manual run's
review queue (`organize_apply`). Reports an older version wrote are shown read-only.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QLocale,
    QModelIndex,
    Qt,
    QTime,
    QTimer,
)
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTextBrowser,
    QTimeEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.organizer.apply import auto_safe
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.settings import Settings
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.run_view import (
    ACTIVE,
    RUN_ID_ROLE,
    RunHistoryModel,
    action_text,
    empty_html,
    local_time,
    run_html,
    word,
)
from liveagent_memory.ui.strings import run_error_text
from liveagent_memory.ui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext
    from liveagent_memory.ui.organizer_service import OrganizerService

PHASES = ("scan", "cluster", "plan", "gate", "apply")  # SPEC 4, in order
OPEN_QUEUE = ("pending", "partial")  # manualApplyState values a person can still act on
# REFERENCE A10: the panel polls every 2 s, and only while a run it did not start is active
# (a run from the CLI or another window); its own runs report through signals.
ACTIVE_POLL_MS = 2000
HISTORY_LIMIT = 100
HISTORY_HEIGHT = 170  # initial height of the history table: about five runs
DIFF_WIDTH = 420  # initial width of the diff preview beside the queue
DETAILS_MAX_HEIGHT = 120  # the run summary above the review queue; it scrolls beyond
KEY_ROLE = Qt.ItemDataRole.UserRole + 2


def decision_key(index: int, decision: dict[str, Any]) -> str:
    """The decision key `organize_apply` takes (REFERENCE A10), computed by the core's shape."""
    return SafeDecision.from_report(decision).key(index)


class OrganizerPage(DrawerPage):
    """Settings, Run now / Cancel with progress, run history and the review queue."""

    NAME = "organizer"
    ORDER = 20

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.organizer: OrganizerService | None = context.organizer
        self.selected_run: dict[str, Any] | None = None  # the run shown, as organize_run_read
        self.decisions: list[tuple[str, dict[str, Any]]] = []  # (key, decision) of that run
        self._checks: dict[str, dict[str, bool]] = {}  # run id -> key -> checked by the person
        self._settings_dirty = False
        self._queue_editable = False
        self._filling = False
        self._settings: dict[str, Any] = {}
        self._progress: tuple[str, str] | None = None  # (phase, message) of the run in progress
        self._finished_note = ""
        self._prefer: str | None = None  # the run the next history load selects

        self._build_settings()
        self._build_run_bar()
        self._build_history()
        self._build_detail()
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("organizerSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(self.history_panel)
        split.addWidget(self.detail_panel)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([HISTORY_HEIGHT, 2 * HISTORY_HEIGHT])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.settings_group)
        layout.addLayout(self.run_bar)
        layout.addWidget(split, 1)

        self._poll = QTimer(self)
        self._poll.setSingleShot(True)
        self._poll.setInterval(ACTIVE_POLL_MS)
        self._poll.timeout.connect(self._poll_history)
        self._shortcuts()
        if self.organizer is not None:
            self.organizer.run_did_start.connect(self._run_did_start)
            self.organizer.run_did_progress.connect(self._run_did_progress)
            self.organizer.run_did_finish.connect(self._run_did_finish)
            self.organizer.schedule_did_change.connect(self._show_next_run)
        self.retranslate()
        self._show_run(None)
        self._update_run_buttons()

    # --- construction -------------------------------------------------------------------------
    def _build_settings(self) -> None:
        self.settings_group = QGroupBox()
        self.settings_group.setObjectName("organizerSettings")
        self.frequency = QComboBox()
        self.frequency.setObjectName("organizerFrequency")
        self.time = QTimeEdit()
        self.time.setObjectName("organizerTime")
        self.time.setDisplayFormat("HH:mm")
        self.weekday = QComboBox()
        self.weekday.setObjectName("organizerWeekday")
        self.scope = QComboBox()
        self.scope.setObjectName("organizerScope")
        self.mode = QComboBox()
        self.mode.setObjectName("organizerMode")
        self.model_edit = QLineEdit()
        self.model_edit.setObjectName("organizerModel")
        self.base_url = QLineEdit()
        self.base_url.setObjectName("organizerBaseUrl")
        self.model_hint = QLabel()
        self.model_hint.setObjectName("organizerModelHint")
        self.model_hint.setProperty("role", "muted")
        self.next_run = QLabel()
        self.next_run.setObjectName("organizerNextRun")
        self.save_button = QPushButton()
        self.save_button.setObjectName("organizerSave")
        self.labels = {name: QLabel() for name in ("frequency", "time", "weekday", "scope")}
        self.labels.update({name: QLabel() for name in ("mode", "model", "base_url")})
        grid = QGridLayout(self.settings_group)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        for column, (name, widget) in enumerate(
            (("frequency", self.frequency), ("time", self.time), ("weekday", self.weekday))
        ):
            grid.addWidget(self.labels[name], 0, column * 2)
            grid.addWidget(widget, 0, column * 2 + 1)
        for column, (name, widget) in enumerate((("scope", self.scope), ("mode", self.mode))):
            grid.addWidget(self.labels[name], 1, column * 2)
            grid.addWidget(widget, 1, column * 2 + 1)
        grid.addWidget(self.save_button, 1, 5, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.labels["model"], 2, 0)
        grid.addWidget(self.model_edit, 2, 1, 1, 3)
        grid.addWidget(self.labels["base_url"], 2, 4)
        grid.addWidget(self.base_url, 2, 5)
        grid.addWidget(self.model_hint, 3, 1, 1, 5)
        for column in (1, 3, 5):
            grid.setColumnStretch(column, 1)
        for combo in (self.frequency, self.weekday, self.scope, self.mode):
            combo.currentIndexChanged.connect(self._settings_edited)
        self.time.timeChanged.connect(self._settings_edited)
        self.model_edit.textEdited.connect(self._settings_edited)
        self.model_edit.textEdited.connect(lambda _text: self._update_model_hint())
        self.base_url.textEdited.connect(self._settings_edited)
        self.save_button.clicked.connect(self.save_settings)

    def _build_run_bar(self) -> None:
        self.run_button = QPushButton()
        self.run_button.setObjectName("organizerRunNow")
        self.run_button.setProperty("primary", True)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("organizerCancel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("organizerProgress")
        self.progress_bar.setRange(0, len(PHASES))
        self.progress_bar.setMaximumWidth(180)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("organizerProgressLabel")
        self.run_bar = QHBoxLayout()
        self.run_bar.setContentsMargins(0, 6, 0, 6)
        self.run_bar.addWidget(self.run_button)
        self.run_bar.addWidget(self.cancel_button)
        self.run_bar.addWidget(self.progress_bar)
        self.run_bar.addWidget(self.progress_label, 1)
        self.run_bar.addWidget(self.next_run)
        self.run_button.clicked.connect(self.run_now)
        self.cancel_button.clicked.connect(self.cancel_run)

    def _build_history(self) -> None:
        self.history_model = RunHistoryModel(self)
        self.history = QTableView()
        self.history.setObjectName("organizerHistory")
        self.history.setModel(self.history_model)
        self.history.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.history.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history.verticalHeader().setVisible(False)
        self.history.setAlternatingRowColors(True)
        self.history.setWordWrap(False)
        header = self.history.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.history.selectionModel().currentRowChanged.connect(self._on_history_row)
        self.history_empty = QLabel()
        self.history_empty.setObjectName("organizerHistoryEmpty")
        self.history_empty.setProperty("role", "empty")
        self.history_empty.setWordWrap(True)
        self.history_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.history_stack = QStackedWidget()
        self.history_stack.addWidget(self.history_empty)
        self.history_stack.addWidget(self.history)
        self.history_title = QLabel()
        self.history_title.setProperty("role", "heading")
        self.clear_button = QPushButton()
        self.clear_button.setObjectName("organizerClearHistory")
        self.clear_button.setProperty("danger", True)
        self.clear_button.clicked.connect(self.clear_history)
        top = QHBoxLayout()
        top.addWidget(self.history_title)
        top.addStretch(1)
        top.addWidget(self.clear_button)
        self.history_panel = QWidget()
        layout = QVBoxLayout(self.history_panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.history_stack, 1)

    def _build_detail(self) -> None:
        self.details = QTextBrowser()
        self.details.setObjectName("organizerDetails")
        self.details.setOpenLinks(False)
        self.details.setMaximumHeight(DETAILS_MAX_HEIGHT)
        self.queue_title = QLabel()
        self.queue_title.setProperty("role", "heading")
        self.queue = QTreeWidget()
        self.queue.setObjectName("organizerQueue")
        self.queue.setRootIsDecorated(False)
        self.queue.setUniformRowHeights(True)
        self.queue.setColumnCount(6)
        self.queue.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.queue.header().setStretchLastSection(True)
        self.queue.itemChanged.connect(self._queue_item_changed)
        self.queue.currentItemChanged.connect(self._on_decision)
        self.queue_empty = QLabel()
        self.queue_empty.setObjectName("organizerQueueEmpty")
        self.queue_empty.setProperty("role", "empty")
        self.queue_empty.setWordWrap(True)
        self.queue_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.queue_stack = QStackedWidget()
        self.queue_stack.addWidget(self.queue_empty)
        self.queue_stack.addWidget(self.queue)
        self.apply_button = QPushButton()
        self.apply_button.setObjectName("organizerApplySelected")
        self.apply_button.setProperty("primary", True)
        self.apply_safe_button = QPushButton()
        self.apply_safe_button.setObjectName("organizerApplySafe")
        self.reject_button = QPushButton()
        self.reject_button.setObjectName("organizerReject")
        self.reject_button.setProperty("danger", True)
        self.apply_button.clicked.connect(self.apply_selected)
        self.apply_safe_button.clicked.connect(self.apply_all_safe)
        self.reject_button.clicked.connect(self.reject_queue)
        self.queue_buttons = QWidget()
        buttons = QHBoxLayout(self.queue_buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        for button in (self.apply_button, self.apply_safe_button, self.reject_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.outcome = QLabel()
        self.outcome.setObjectName("organizerOutcome")
        self.outcome.setWordWrap(True)
        self.diff = DiffView()
        self.diff.setObjectName("organizerDiff")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.details)
        left_layout.addWidget(self.queue_title)
        left_layout.addWidget(self.queue_stack, 1)
        left_layout.addWidget(self.queue_buttons)
        left_layout.addWidget(self.outcome)
        self.detail_panel = QSplitter(Qt.Orientation.Horizontal)
        self.detail_panel.setChildrenCollapsible(False)
        self.detail_panel.addWidget(left)
        self.detail_panel.addWidget(self.diff)
        self.detail_panel.setStretchFactor(0, 3)
        self.detail_panel.setStretchFactor(1, 2)
        self.detail_panel.setSizes([3 * DIFF_WIDTH // 2, DIFF_WIDTH])

    def _shortcuts(self) -> None:
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (
            (QKeySequence("Ctrl+R"), self.run_now),
            (QKeySequence(QKeySequence.StandardKey.Cancel), self.cancel_run),
            (QKeySequence(QKeySequence.StandardKey.Save), self.save_settings),
            (QKeySequence("Ctrl+Return"), self.apply_selected),
        ):
            shortcut = QShortcut(keys, self)
            shortcut.setContext(context)
            shortcut.activated.connect(slot)

    # --- labels -------------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Organizer")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self._retranslate_settings()
        self.run_button.setText(self.tr("Run now"))
        self.run_button.setToolTip(self.tr("Organize with the chosen scope and mode (Ctrl+R)"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the run in progress (Esc)"))
        self.history_title.setText(self.tr("Run history"))
        self.clear_button.setText(self.tr("Clear history"))
        self.clear_button.setToolTip(self.tr("Delete the records of finished runs"))
        self.history_empty.setText(
            self.tr(
                "No organizer runs yet. Press “Run now” to look for duplicates and "
                "memories to tidy up; nothing changes until you review it."
            )
        )
        self._retranslate_queue()
        self.history_model.headerDataChanged.emit(
            Qt.Orientation.Horizontal, 0, len(RunHistoryModel.COLUMNS) - 1
        )
        self._update_model_hint()
        self._show_next_run()
        self._show_progress()
        self._show_run(self.selected_run)

    def _retranslate_settings(self) -> None:
        """The schedule and model group: its choices, labels and hints."""
        self._filling = True
        try:
            self._fill_combo(
                self.frequency,
                [
                    (self.tr("Never (manual only)"), "none"),
                    (self.tr("Daily"), "daily"),
                    (self.tr("Weekly"), "weekly"),
                ],
            )
            days = [QLocale().dayName(day) for day in range(1, 8)]
            self._fill_combo(self.weekday, [(name, n) for n, name in enumerate(days, start=1)])
            self._fill_combo(
                self.scope,
                [
                    (self.tr("All memories"), "all"),
                    (self.tr("Global memories"), "global"),
                    (self.tr("Project memories"), "projects"),
                ],
            )
            self._fill_combo(
                self.mode,
                [
                    (self.tr("Conservative"), "conservative"),
                    (self.tr("Standard"), "standard"),
                    (self.tr("Aggressive"), "aggressive"),
                ],
            )
        finally:
            self._filling = False
        self.settings_group.setTitle(self.tr("Schedule and model"))
        for name, text in (
            ("frequency", self.tr("Frequency")),
            ("time", self.tr("Time")),
            ("weekday", self.tr("Weekday")),
            ("scope", self.tr("Scope")),
            ("mode", self.tr("Mode")),
            ("model", self.tr("Model")),
            ("base_url", self.tr("Base URL")),
        ):
            self.labels[name].setText(text)
        self.mode.setToolTip(
            self.tr(
                "Conservative merges only near-identical memories; aggressive also merges "
                "across types and scopes. Manual runs always wait for your review."
            )
        )
        self.model_edit.setPlaceholderText(self.tr("Empty: use the default model"))
        self.base_url.setPlaceholderText(self.tr("Optional, e.g. http://localhost:11434"))
        self.save_button.setText(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save the organizer settings (Ctrl+S)"))

    def _retranslate_queue(self) -> None:
        self.queue_title.setText(self.tr("Review queue"))
        self.queue.setHeaderLabels(
            [
                self.tr("Decision"),
                self.tr("Memory"),
                self.tr("Risk"),
                self.tr("Confidence"),
                self.tr("State"),
                self.tr("Reason"),
            ]
        )
        self.apply_button.setText(self.tr("Apply selected"))
        self.apply_button.setToolTip(self.tr("Apply the checked decisions (Ctrl+Enter)"))
        self.apply_safe_button.setText(self.tr("Apply all safe"))
        self.apply_safe_button.setToolTip(
            self.tr("Apply every low-risk decision that needs no acknowledgement")
        )
        self.reject_button.setText(self.tr("Reject"))
        self.reject_button.setToolTip(self.tr("Dismiss every decision not applied yet"))

    @staticmethod
    def _fill_combo(combo: QComboBox, items: list[tuple[str, Any]]) -> None:
        """Replace the items, keeping the current value (and an unknown one the file holds)."""
        current = combo.currentData()
        extra = [
            (combo.itemText(i), combo.itemData(i))
            for i in range(combo.count())
            if combo.itemData(i) not in [value for _label, value in items]
        ]
        combo.blockSignals(True)
        combo.clear()
        for label, value in [*items, *extra]:
            combo.addItem(label, value)
        index = combo.findData(current)
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    # --- background work ----------------------------------------------------------------------
    def _background(self, coro: Coroutine[Any, Any, None], *, name: str | None = None) -> None:
        """Run `coro` on the bridge; with `name`, a newer task of that name replaces the older.

        Trigger: Qt delivers a signal (a selection change, a timer) while no asyncio loop runs,
        i.e. while the app is closing. Outcome: the work is dropped; nothing is left to show.
        """
        if not loop_is_running():
            coro.close()
            return
        if name is None:
            self.client.bridge.spawn(coro)
        else:
            self.client.bridge.preempt(name, coro)

    # --- loading ------------------------------------------------------------------------------
    async def load(self) -> None:
        """Load the settings (unless being edited) and the run history."""
        if not self._settings_dirty:
            try:
                view = await self.client.call("settings_get", {})
            except MemoryDomainError as exc:  # shown to the person; the form keeps its values
                self.error_did_occur.emit(exc)
            else:
                self._fill_settings(view["settings"])
        await self.load_history()

    async def load_history(self) -> None:
        """Re-query the run history and keep the selected run selected."""
        try:
            listing = await self.client.call("organize_run_list", {"limit": HISTORY_LIMIT})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        rows = listing["runs"]
        keep = self._prefer or (self.selected_run["run_id"] if self.selected_run else None)
        self._prefer = None
        self.history_model.set_rows(rows)
        self.history_stack.setCurrentWidget(self.history if rows else self.history_empty)
        self.clear_button.setEnabled(any(r["status"] not in ACTIVE for r in rows))
        row = self.history_model.row_of(keep) if keep else -1
        if row < 0 and rows:
            row = 0
        if row >= 0:
            self.history.selectRow(row)
        else:
            self._show_run(None)
        foreign = any(r["status"] in ACTIVE for r in rows) and not self._own_run_active()
        if foreign and not self._poll.isActive():
            self._poll.start()
        self._update_run_buttons()

    def _poll_history(self) -> None:
        self._background(self.load_history(), name="organizer-history")

    def _fill_settings(self, settings: dict[str, Any]) -> None:
        self._settings = settings
        organizer = settings.get("organizer", {})
        model = settings.get("organizer_model", {})
        self._filling = True
        try:
            self._choose(self.frequency, organizer.get("schedule", "none"))
            self._choose(self.weekday, organizer.get("weekday", 1))
            self._choose(self.scope, organizer.get("scope", "all"))
            self._choose(self.mode, organizer.get("mode", "conservative"))
            self.time.setTime(QTime.fromString(organizer.get("time_of_day", "03:00"), "HH:mm"))
            self.model_edit.setText(model.get("model", ""))
            self.base_url.setText(model.get("api_base", ""))
        finally:
            self._filling = False
        self._set_dirty(False)
        self._update_schedule_widgets()
        self._update_model_hint()

    @staticmethod
    def _choose(combo: QComboBox, value: Any) -> None:
        index = combo.findData(value)
        if index < 0:  # a value set elsewhere (the CLI): offered as it is, not replaced
            combo.addItem(str(value), value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    # --- settings -----------------------------------------------------------------------------
    def _settings_edited(self, *_args: Any) -> None:
        if self._filling:
            return
        self._set_dirty(True)
        self._update_schedule_widgets()

    def _set_dirty(self, dirty: bool) -> None:
        self._settings_dirty = dirty
        self.save_button.setEnabled(dirty)

    def _update_schedule_widgets(self) -> None:
        frequency = self.frequency.currentData()
        self.time.setEnabled(frequency != "none")
        self.weekday.setEnabled(frequency == "weekly")

    def _update_model_hint(self) -> None:
        own = self.model_edit.text().strip()
        default = (self._settings.get("default") or {}).get("model", "")
        if own:
            text = self.tr("Runs use %1.").replace("%1", own)
        elif default:
            text = self.tr("Runs use the default model, %1.").replace("%1", default)
        else:
            text = self.tr("No model configured: runs use the offline duplicate check.")
        self.model_hint.setText(text)

    def _settings_payload(self) -> dict[str, Any]:
        """The schedule as shown, and the organizer model only where it was edited here.

        Why: the Model page edits the organizer model too; sending the value this page loaded
        would put it back over a change saved there in the meantime.
        """
        payload: dict[str, Any] = {
            "organizer": {
                "schedule": self.frequency.currentData(),
                "time_of_day": self.time.time().toString("HH:mm"),
                "weekday": self.weekday.currentData(),
                "scope": self.scope.currentData(),
                "mode": self.mode.currentData(),
            },
        }
        loaded = self._settings.get("organizer_model") or {}
        shown = {"model": self.model_edit.text().strip(), "api_base": self.base_url.text().strip()}
        changed = {k: v for k, v in shown.items() if v != (loaded.get(k) or "")}
        if changed:
            payload["organizer_model"] = changed
        return payload

    def save_settings(self) -> None:
        """Save the form through `settings_save_memory`, then re-arm the schedule."""
        if self._settings_dirty:
            self._background(self._save_settings(self._settings_payload()))

    async def _save_settings(self, payload: dict[str, Any]) -> None:
        try:
            view = await self.client.call("settings_save_memory", {"settings": payload})
        except MemoryDomainError as exc:  # e.g. settings_invalid: nothing saved, the form stays
            self.error_did_occur.emit(exc)
            return
        self._fill_settings(view["settings"])
        if self.organizer is not None:
            await self.organizer.reschedule(Settings.from_dict(view["settings"]))
        self.changes_did_apply.emit()

    def _show_next_run(self) -> None:
        due = self.organizer.next_due_ms if self.organizer is not None else None
        if self.organizer is None:
            text = self.tr("The organizer is not available in this window.")
        elif due is None:
            text = self.tr("No scheduled runs. Choose daily or weekly to organize automatically.")
        else:
            when = local_time(due, "ddd yyyy-MM-dd HH:mm")
            text = self.tr("Next scheduled run: %1").replace("%1", when)
        self.next_run.setText(text)

    # --- running ------------------------------------------------------------------------------
    def _own_run_active(self) -> bool:
        return self.organizer is not None and self.organizer.running

    def _update_run_buttons(self) -> None:
        running = self._own_run_active()
        self.run_button.setEnabled(self.organizer is not None and not running)
        self.cancel_button.setEnabled(running)
        self.progress_bar.setVisible(running or self._progress is not None)

    def run_now(self) -> None:
        """Start a manual run with the scope and mode shown in the form."""
        if self.organizer is None or self.organizer.running or not self.run_button.isEnabled():
            return
        self.run_button.setEnabled(False)  # at once: the run is created on the store worker
        self._background(self._run_now(self.organizer, self.scope.currentData()))

    async def _run_now(self, organizer: OrganizerService, scope: str) -> None:
        try:
            run = await organizer.run_now(scope=scope, mode=self.mode.currentData())
        except MemoryDomainError as exc:  # e.g. a locked index: nothing started
            self.error_did_occur.emit(exc)
            run = {}
        if run.get("status") == "skipped":
            self._progress = None
            self._finished_note = self.tr(
                "Another organizer run is active; this one was recorded as skipped."
            )
            self._show_progress()
        self._update_run_buttons()
        self._background(self.load_history(), name="organizer-history")

    def cancel_run(self) -> None:
        """Cancel the run in progress (it ends as `cancelled`)."""
        if self.organizer is not None and self.organizer.cancel():
            self.cancel_button.setEnabled(False)
            self.progress_label.setText(self.tr("Cancelling…"))

    def _run_did_start(self, run: dict[str, Any]) -> None:
        self._progress = ("", "")
        self._finished_note = ""
        self._show_progress()
        self._update_run_buttons()
        self._prefer = str(run["run_id"])  # show the new run once the history has it
        self._background(self.load_history(), name="organizer-history")

    def _run_did_progress(self, _run_id: str, message: str) -> None:
        phase = message.split(" ", 1)[0].split(":", 1)[0]
        if phase in PHASES:
            previous = self._progress[0] if self._progress else ""
            self._progress = (phase, message)
            if phase != previous:  # the history shows the phase too
                self._background(self.load_history(), name="organizer-history")
        elif self._progress is not None:
            self._progress = (self._progress[0], message)
        self._show_progress()

    def _run_did_finish(self, run: dict[str, Any]) -> None:
        self._progress = None
        status = run.get("status")
        note = self.tr("Last run: %1").replace("%1", word(status))
        if run.get("final_summary"):
            note += " — " + str(run["final_summary"])
        elif run.get("error"):
            note += " — " + run_error_text(run["error"])
        self._finished_note = note
        self._show_progress()
        self._update_run_buttons()
        self._prefer = str(run["run_id"])  # select it: its review queue is the next step
        self.changes_did_apply.emit()
        self._background(self.load_history(), name="organizer-history")

    def _show_progress(self) -> None:
        if self._progress is None:
            self.progress_bar.setValue(0)
            self.progress_label.setText(self._finished_note)
            self.progress_bar.setVisible(False)
            return
        phase, message = self._progress
        step = PHASES.index(phase) + 1 if phase in PHASES else 0
        self.progress_bar.setVisible(True)
        self.progress_bar.setValue(step)
        if not phase:
            self.progress_label.setText(self.tr("Starting…"))
            return
        text = (
            self.tr("Phase %1 of %2: %3")
            .replace("%1", str(step))
            .replace("%2", str(len(PHASES)))
            .replace("%3", word(phase))
        )
        detail = message[len(phase) :].lstrip(" :")
        self.progress_label.setText(f"{text} — {detail}" if detail else text)

    # --- history ------------------------------------------------------------------------------
    def clear_history(self) -> None:
        """Delete the records of finished runs."""
        self._background(self._clear_history())

    async def _clear_history(self) -> None:
        try:
            await self.client.call("organize_run_clear_history", {})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.selected_run = None
        self._checks.clear()
        await self.load_history()

    def _on_history_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        run_id = current.data(RUN_ID_ROLE) if current.isValid() else None
        if run_id is None:
            self._show_run(None)
            return
        self._background(self._load_run(str(run_id)), name="organizer-detail")

    async def _load_run(self, run_id: str) -> None:
        try:
            data = await self.client.call("organize_run_read", {"run_id": run_id})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self._show_run(data["run"])

    # --- one run ------------------------------------------------------------------------------
    def _show_run(self, run: dict[str, Any] | None) -> None:
        """Show a run's details and its review queue (or the right empty state)."""
        same = (
            run is not None
            and self.selected_run is not None
            and run["run_id"] == self.selected_run["run_id"]
        )
        current_key = self._current_key() if same else None
        self.selected_run = run
        self.outcome.setText("" if not same else self.outcome.text())
        if run is None:
            self.details.setHtml(empty_html(self.tr("Select a run to see its details.")))
            self._fill_queue([], editable=False)
            self.queue_empty.setText(self.tr("Select a run to review its decisions."))
            self.queue_buttons.setVisible(False)
            self.diff.show_message(self.tr("Select a decision to preview its change."))
            return
        view = run.get("report") or {}
        report = view.get("report") or {}
        legacy = bool(view.get("legacy"))
        self.details.setHtml(run_html(run, view))
        state = report.get("manualApplyState") or {}
        decisions = report.get("safeDecisions") or []
        editable = (
            not legacy
            and run["status"] == "succeeded"
            and bool(decisions)
            and state.get("status") in OPEN_QUEUE
        )
        self.decisions = [(decision_key(i, d), d) for i, d in enumerate(decisions)]
        if legacy:
            self.decisions = []
            self.queue_empty.setText(
                self.tr("This run was recorded by an older version; its report is read-only.")
            )
        elif run["status"] in ACTIVE:
            self.queue_empty.setText(
                self.tr("This run is in progress. Its decisions appear here when it finishes.")
            )
        else:
            self.queue_empty.setText(self.tr("No decisions are waiting for review in this run."))
        self._fill_queue(self.decisions, editable=editable, state=state)
        # Legacy reports are read-only: no apply buttons at all (REFERENCE A10).
        self.queue_buttons.setVisible(not legacy and bool(self.decisions))
        self._update_queue_buttons()
        if self.decisions:
            self._select_key(current_key)
        else:
            self.diff.show_message(self.tr("Nothing to preview."))

    # --- the review queue ---------------------------------------------------------------------
    def _fill_queue(
        self,
        decisions: list[tuple[str, dict[str, Any]]],
        *,
        editable: bool,
        state: dict[str, Any] | None = None,
    ) -> None:
        state = state or {}
        applied = set(state.get("appliedDecisionKeys") or [])
        failed = set(state.get("failedDecisionKeys") or [])
        closed = state.get("status") in ("applied", "rejected")
        run_id = self.selected_run["run_id"] if self.selected_run else ""
        checks = self._checks.setdefault(run_id, {}) if run_id else {}
        self._filling = True
        self.queue.blockSignals(True)
        try:
            self.queue.clear()
            for key, decision in decisions:
                item = QTreeWidgetItem()
                handled = key in applied
                confidence = decision.get("confidence")
                if handled:
                    item_state = word("applied")
                elif key in failed:
                    item_state = word("failed")
                elif closed:
                    item_state = word(state.get("status"))
                else:
                    item_state = word("pending")
                item.setText(0, action_text(decision))
                item.setText(1, decision["slug"])
                item.setText(2, word(decision.get("riskLevel")))
                item.setText(3, f"{confidence:.2f}" if isinstance(confidence, int | float) else "—")
                item.setText(4, item_state)
                item.setText(5, decision.get("reason") or "")
                item.setToolTip(5, decision.get("reason") or "")
                item.setData(0, KEY_ROLE, key)
                flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                if editable and not handled:
                    flags |= Qt.ItemFlag.ItemIsUserCheckable
                    # REFERENCE A10: low-risk decisions needing no acknowledgement start checked.
                    safe = auto_safe(SafeDecision.from_report(decision))
                    checked = checks.get(key, safe and key not in failed)
                    item.setCheckState(
                        0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                    )
                item.setFlags(flags)
                self.queue.addTopLevelItem(item)
        finally:
            self.queue.blockSignals(False)
            self._filling = False
        self.queue_stack.setCurrentWidget(self.queue if decisions else self.queue_empty)
        self._queue_editable = editable

    def _queue_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0 or self.selected_run is None:
            return
        key = item.data(0, KEY_ROLE)
        checked = item.checkState(0) == Qt.CheckState.Checked
        self._checks.setdefault(self.selected_run["run_id"], {})[str(key)] = checked
        self._update_queue_buttons()

    def checked_keys(self) -> list[str]:
        """The decision keys a person has checked (in queue order)."""
        return [
            str(item.data(0, KEY_ROLE))
            for item in self.queue_items()
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable
            and item.checkState(0) == Qt.CheckState.Checked
        ]

    def queue_items(self) -> list[QTreeWidgetItem]:
        """The review queue's rows, in order."""
        count = self.queue.topLevelItemCount()
        return [item for row in range(count) if (item := self.queue.topLevelItem(row))]

    def _update_queue_buttons(self) -> None:
        editable = self._queue_editable
        self.apply_button.setEnabled(editable and bool(self.checked_keys()))
        state = ((self.selected_run or {}).get("report") or {}).get("report") or {}
        applied = set((state.get("manualApplyState") or {}).get("appliedDecisionKeys") or [])
        safe = [
            key
            for key, d in self.decisions
            if auto_safe(SafeDecision.from_report(d)) and key not in applied
        ]
        self.apply_safe_button.setEnabled(editable and bool(safe))
        self.reject_button.setEnabled(editable)

    def _current_key(self) -> str | None:
        item = self.queue.currentItem()
        return str(item.data(0, KEY_ROLE)) if item is not None else None

    def _select_key(self, key: str | None) -> None:
        """Make the decision with `key` current (else the first one): its diff shows."""
        items = self.queue_items()
        chosen = next((i for i in items if i.data(0, KEY_ROLE) == key), items[0] if items else None)
        if chosen is not None:
            self.queue.setCurrentItem(chosen)

    def _on_decision(self, current: QTreeWidgetItem | None, _previous: Any) -> None:
        if current is None:
            self.diff.show_message(self.tr("Select a decision to preview its change."))
            return
        key = current.data(0, KEY_ROLE)
        decision = next((d for k, d in self.decisions if k == key), None)
        if decision is None:
            return
        self._background(self._preview(decision), name="organizer-diff")

    async def _preview(self, decision: dict[str, Any]) -> None:
        """Diff before → after: a merge's target body, or the text a delete would remove."""
        slug = decision["slug"]
        before = decision.get("previousBody")
        if before is None:
            target: dict[str, Any] = {"slug": slug, "scope": decision["scope"]}
            if decision.get("workdirHash"):
                target["workdir_hash"] = decision["workdirHash"]
            try:
                before = (await self.client.call("memory_read", target))["content"]
            except MemoryDomainError:
                # Trigger: the memory is gone (applied already, or deleted by hand).
                self.diff.show_message(self.tr("%1 no longer exists.").replace("%1", slug))
                return
        if decision["op"] == "delete":
            caption = self.tr("%1 moves to the trash (it can be restored).").replace("%1", slug)
            self.diff.set_texts(before, "", caption=caption)
        else:
            caption = self.tr("%1: current text → after the change").replace("%1", slug)
            self.diff.set_texts(before, decision.get("body") or "", caption=caption)

    # --- applying -----------------------------------------------------------------------------
    def apply_selected(self) -> None:
        """Apply the checked decisions of the shown run."""
        keys = self.checked_keys()
        if self.selected_run is not None and keys and self.apply_button.isEnabled():
            self._background(self._apply({"keys": keys}))

    def apply_all_safe(self) -> None:
        """Apply every low-risk decision that needs no acknowledgement."""
        if self.selected_run is not None and self.apply_safe_button.isEnabled():
            self._background(self._apply({"all_safe": True}))

    def reject_queue(self) -> None:
        """Dismiss the decisions not applied yet; the run's queue closes."""
        if self.selected_run is not None and self.reject_button.isEnabled():
            self._background(self._apply({"reject": True}))

    async def _apply(self, choice: dict[str, Any]) -> None:
        assert self.selected_run is not None
        run_id = self.selected_run["run_id"]
        for button in (self.apply_button, self.apply_safe_button, self.reject_button):
            button.setEnabled(False)  # one apply at a time
        result: dict[str, Any] | None = None
        try:
            result = await self.client.call("organize_apply", {"run_id": run_id, **choice})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        finally:
            if result is None:  # a typed error or a bug: the buttons work again
                self._update_queue_buttons()
        self._checks.pop(run_id, None)
        if result["status"] == "rejected":
            outcome = self.tr("The decisions not applied were rejected.")
        else:
            outcome = self.tr("%n decision(s) applied", "", len(result["applied"]))
            if result["failed"]:
                outcome += "; " + self.tr("%n failed", "", len(result["failed"]))
            outcome += ". " + self.tr("Memories now: %1.").replace("%1", str(result["final_count"]))
        self.changes_did_apply.emit()
        try:
            data = await self.client.call("organize_run_read", {"run_id": run_id})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self._show_run(data["run"])
        self.outcome.setText(outcome)
        await self.load_history()

    # --- screenshots --------------------------------------------------------------------------
    async def prepare_screenshot(self) -> None:
        """Show the newest run with a review queue, its first decision's diff selected."""
        for row, run in enumerate(self.history_model.rows):
            if run["status"] == "succeeded" and run["trigger"] == "manual":
                self.history.selectRow(row)
                data = await self.client.call("organize_run_read", {"run_id": run["run_id"]})
                self._show_run(data["run"])
                return

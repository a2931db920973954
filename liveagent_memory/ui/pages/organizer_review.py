"""The Organizer page's review queue: a finished manual run's decisions, which of them a person
checked, and the buttons that apply the checked ones, every safe one, or reject the rest.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.organizer.apply import auto_safe
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.ui.pages.run_view import ACTIVE, action_text, word

OPEN_QUEUE = ("pending", "partial")  # manualApplyState values a person can still act on
KEY_ROLE = Qt.ItemDataRole.UserRole + 2


def decision_key(index: int, decision: dict[str, Any]) -> str:
    """The decision key `organize_apply` takes (REFERENCE A10), computed by the core's shape."""
    return SafeDecision.from_report(decision).key(index)


class ReviewQueue(QWidget):
    """The decisions of the run shown, one row each (what, which memory, risk, confidence,
    state, why), checkable while the run's queue is open; the outcome of the last apply.

    The page connects the buttons (it applies) and shows the current decision's change.

    Signals:
        decision_did_change(object): the current decision (a report's safe decision), or
            None when no decision is current.
    """

    decision_did_change = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decisions: list[tuple[str, dict[str, Any]]] = []  # (key, decision) of the run
        self._checks: dict[str, dict[str, bool]] = {}  # run id -> key -> checked by the person
        self._run_id = ""  # of the run shown ('' = none)
        self._applied: set[str] = set()  # its decisions applied already
        self._editable = False
        self._filling = False
        self.title = QLabel()
        self.title.setProperty("role", "heading")
        self.queue = QTreeWidget()
        self.queue.setObjectName("organizerQueue")
        self.queue.setRootIsDecorated(False)
        self.queue.setUniformRowHeights(True)
        self.queue.setColumnCount(6)
        self.queue.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.queue.header().setStretchLastSection(True)
        self.queue.itemChanged.connect(self._item_changed)
        self.queue.currentItemChanged.connect(self._current_changed)
        self.empty = QLabel()
        self.empty.setObjectName("organizerQueueEmpty")
        self.empty.setProperty("role", "empty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.queue)
        self.outcome = QLabel()
        self.outcome.setObjectName("organizerOutcome")
        self.outcome.setWordWrap(True)
        self._build_buttons()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.buttons)
        layout.addWidget(self.outcome)

    def _build_buttons(self) -> None:
        self.apply_button = QPushButton()
        self.apply_button.setObjectName("organizerApplySelected")
        self.apply_button.setProperty("primary", True)
        self.apply_safe_button = QPushButton()
        self.apply_safe_button.setObjectName("organizerApplySafe")
        self.reject_button = QPushButton()
        self.reject_button.setObjectName("organizerReject")
        self.reject_button.setProperty("danger", True)
        self.buttons = QWidget()
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 0, 0, 0)
        for button in (self.apply_button, self.apply_safe_button, self.reject_button):
            row.addWidget(button)
        row.addStretch(1)

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch
        (and then shows its run again, which says why the queue is empty)."""
        self.title.setText(self.tr("Review queue"))
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

    # --- the run shown ----------------------------------------------------------------------
    def show_none(self) -> None:
        """No run is selected: an empty queue that says so."""
        self.outcome.setText("")
        self._run_id = ""
        self._applied = set()
        self.decisions = []
        self._fill(editable=False, state={})
        self.empty.setText(self.tr("Select a run to review its decisions."))
        self.buttons.setVisible(False)

    def show_run(self, run: dict[str, Any], *, same: bool) -> bool:
        """Show the decisions of `run` (organize_run_read's run); with `same` (the run shown
        before, re-read) the current decision and the outcome stay. False when the run has
        no decision to show."""
        current_key = self._current_key() if same else None
        if not same:
            self.outcome.setText("")
        view = run.get("report") or {}
        report = view.get("report") or {}
        legacy = bool(view.get("legacy"))
        state = report.get("manualApplyState") or {}
        decisions = report.get("safeDecisions") or []
        editable = (
            not legacy
            and run["status"] == "succeeded"
            and bool(decisions)
            and state.get("status") in OPEN_QUEUE
        )
        self._run_id = run["run_id"]
        self._applied = set(state.get("appliedDecisionKeys") or [])
        self.decisions = [(decision_key(i, d), d) for i, d in enumerate(decisions)]
        if legacy:
            self.decisions = []
            self.empty.setText(
                self.tr("This run was recorded by an older version; its report is read-only.")
            )
        elif run["status"] in ACTIVE:
            self.empty.setText(
                self.tr("This run is in progress. Its decisions appear here when it finishes.")
            )
        else:
            self.empty.setText(self.tr("No decisions are waiting for review in this run."))
        self._fill(editable=editable, state=state)
        # Legacy reports are read-only: no apply buttons at all (REFERENCE A10).
        self.buttons.setVisible(not legacy and bool(self.decisions))
        self.update_buttons()
        if self.decisions:
            self._select_key(current_key)
        return bool(self.decisions)

    def _fill(self, *, editable: bool, state: dict[str, Any]) -> None:
        failed = set(state.get("failedDecisionKeys") or [])
        closed = state.get("status") in ("applied", "rejected")
        checks = self._checks.setdefault(self._run_id, {}) if self._run_id else {}
        self._filling = True
        self.queue.blockSignals(True)
        try:
            self.queue.clear()
            for key, decision in self.decisions:
                handled = key in self._applied
                if handled:
                    item_state = word("applied")
                elif key in failed:
                    item_state = word("failed")
                elif closed:
                    item_state = word(state.get("status"))
                else:
                    item_state = word("pending")
                item = self._item(key, decision, item_state)
                if editable and not handled:
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    # REFERENCE A10: low-risk decisions needing no acknowledgement start checked.
                    safe = auto_safe(SafeDecision.from_report(decision))
                    checked = checks.get(key, safe and key not in failed)
                    item.setCheckState(
                        0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                    )
                self.queue.addTopLevelItem(item)
        finally:
            self.queue.blockSignals(False)
            self._filling = False
        self.stack.setCurrentWidget(self.queue if self.decisions else self.empty)
        self._editable = editable

    @staticmethod
    def _item(key: str, decision: dict[str, Any], state: str) -> QTreeWidgetItem:
        """One decision's row, not checkable (yet)."""
        item = QTreeWidgetItem()
        confidence = decision.get("confidence")
        item.setText(0, action_text(decision))
        item.setText(1, decision["slug"])
        item.setText(2, word(decision.get("riskLevel")))
        item.setText(3, f"{confidence:.2f}" if isinstance(confidence, int | float) else "—")
        item.setText(4, state)
        item.setText(5, decision.get("reason") or "")
        item.setToolTip(5, decision.get("reason") or "")
        item.setData(0, KEY_ROLE, key)
        item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
        return item

    # --- checks and buttons -----------------------------------------------------------------
    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0 or not self._run_id:
            return
        key = item.data(0, KEY_ROLE)
        checked = item.checkState(0) == Qt.CheckState.Checked
        self._checks.setdefault(self._run_id, {})[str(key)] = checked
        self.update_buttons()

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

    def forget(self, run_id: str | None = None) -> None:
        """Forget what a person checked in the queue of `run_id` (None: of every run)."""
        if run_id is None:
            self._checks.clear()
        else:
            self._checks.pop(run_id, None)

    def set_busy(self) -> None:
        """An apply is under way: one at a time (`update_buttons` ends it)."""
        for button in (self.apply_button, self.apply_safe_button, self.reject_button):
            button.setEnabled(False)

    def update_buttons(self) -> None:
        """Enable what applies to the open queue: the checked, the safe ones not applied yet."""
        editable = self._editable
        self.apply_button.setEnabled(editable and bool(self.checked_keys()))
        safe = [
            key
            for key, d in self.decisions
            if auto_safe(SafeDecision.from_report(d)) and key not in self._applied
        ]
        self.apply_safe_button.setEnabled(editable and bool(safe))
        self.reject_button.setEnabled(editable)

    # --- the current decision ---------------------------------------------------------------
    def _current_key(self) -> str | None:
        item = self.queue.currentItem()
        return str(item.data(0, KEY_ROLE)) if item is not None else None

    def _select_key(self, key: str | None) -> None:
        """Make the decision with `key` current (else the first one): its diff shows."""
        items = self.queue_items()
        chosen = next((i for i in items if i.data(0, KEY_ROLE) == key), items[0] if items else None)
        if chosen is not None:
            self.queue.setCurrentItem(chosen)

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: Any) -> None:
        if current is None:
            self.decision_did_change.emit(None)
            return
        key = current.data(0, KEY_ROLE)
        decision = next((d for k, d in self.decisions if k == key), None)
        if decision is not None:
            self.decision_did_change.emit(decision)

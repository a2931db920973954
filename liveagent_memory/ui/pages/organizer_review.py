"""The Organizer page's review queue: a finished manual run's decisions, which of them a person
checked (or edited), and the buttons that apply the checked ones, every safe one, or reject.

A merge and its deletions are one decision (organizer/review.py): one checkable row, its parts
below it when expanded; it is applied or rejected whole. Each decision can be rejected on its
own (Reject, or Delete on the queue), and a rejected one is struck through.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
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

from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.organizer.review import DecisionGroup, report_groups
from liveagent_memory.organizer.run_record import ManualApplyState, Report, parse_report
from liveagent_memory.ui.pages.run_view import ACTIVE, action_text, part_text, word
from liveagent_memory.ui.run_words import reason_text

KEY_ROLE = Qt.ItemDataRole.UserRole + 2  # a row's decision key: the group's, or its part's
COLUMNS = ("decision", "memory", "risk", "confidence", "state", "reason")
# How the text columns share the queue's width (the rest fit their contents), so that risk,
# confidence, state and reason stay on screen (issue 14: a 600-px Decision column pushed them
# off at 1200 px); their text is cut with "…", whole in the tooltip.
# The decision says what would happen (its memory's slug is beside it): it gets the most room.
TEXT_SHARES = {"decision": 0.46, "memory": 0.27, "reason": 0.27}
TEXT_MIN_WIDTH = 70
REJECTED_COLOUR = "#8a939e"  # a rejected decision is greyed and struck through
FAILED_COLOUR = "#a33a2f"


class ReviewQueue(QWidget):
    """The decisions of the run shown, one row each (what, which memory, risk, confidence,
    state, why), checkable while the run's queue is open; the outcome of the last apply.

    The page connects the buttons (it applies and rejects) and shows the current row's change.

    Signals:
        decision_did_change(object): the report's decision under the cursor (a merge row's
            write; a part's own), or None when no row is current.
    """

    decision_did_change = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decisions: list[tuple[str, dict[str, Any]]] = []  # (key, decision) of the run
        self.groups: list[DecisionGroup] = []
        self._manual = ManualApplyState()
        self._checks: dict[str, dict[str, bool]] = {}  # run id -> group key -> checked
        self._edits: dict[str, dict[str, str]] = {}  # run id -> write key -> edited text
        self._run_id = ""  # of the run shown ('' = none)
        self._editable = False
        self._filling = False
        self.title = QLabel()
        self.title.setProperty("role", "heading")
        self.compare_button = QPushButton()  # the page opens the compare view of a merge
        self.compare_button.setObjectName("organizerCompareButton")
        self.queue = QTreeWidget()
        self.queue.setObjectName("organizerQueue")
        self.queue.setUniformRowHeights(True)
        self.queue.setColumnCount(len(COLUMNS))
        self.queue.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.queue.itemChanged.connect(self._item_changed)
        self.queue.currentItemChanged.connect(self._current_changed)
        self._size_columns()
        self.empty = QLabel()
        self.empty.setObjectName("organizerQueueEmpty")
        self.empty.setProperty("role", "empty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.queue)
        self.safe_hint = QLabel()
        self.safe_hint.setObjectName("organizerSafeHint")
        self.safe_hint.setProperty("role", "muted")
        self.safe_hint.setWordWrap(True)
        self.outcome = QLabel()
        self.outcome.setObjectName("organizerOutcome")
        self.outcome.setWordWrap(True)
        self._build_buttons()
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.compare_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.buttons)
        layout.addWidget(self.safe_hint)
        layout.addWidget(self.outcome)

    def _size_columns(self) -> None:
        header = self.queue.header()
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(TEXT_MIN_WIDTH // 2)
        for column in range(len(COLUMNS)):
            fitted = COLUMNS[column] in ("risk", "confidence", "state")
            header.setSectionResizeMode(
                column,
                QHeaderView.ResizeMode.ResizeToContents
                if fitted
                else QHeaderView.ResizeMode.Interactive,
            )
        self.queue.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.queue.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Share the queue's width between the text columns so that every column shows:
        risk, confidence and state fit their contents; decision, memory and reason get the
        rest (their text is cut with "…", whole in the tooltip)."""
        header = self.queue.header()
        fixed = sum(
            header.sectionSize(c)
            for c, name in enumerate(COLUMNS)
            if name in ("risk", "confidence", "state")
        )
        room = max(0, self.queue.viewport().width() - fixed)
        # The decision column also holds the tree's branch and a check box before its text.
        overhead = self.queue.indentation() * 2
        room -= overhead
        for name, share in TEXT_SHARES.items():
            width = max(TEXT_MIN_WIDTH, int(room * share)) + (overhead if name == "decision" else 0)
            header.resizeSection(COLUMNS.index(name), width)

    def _build_buttons(self) -> None:
        self.apply_button = QPushButton()
        self.apply_button.setObjectName("organizerApplySelected")
        self.apply_button.setProperty("primary", True)
        self.apply_safe_button = QPushButton()
        self.apply_safe_button.setObjectName("organizerApplySafe")
        self.reject_button = QPushButton()
        self.reject_button.setObjectName("organizerReject")
        self.reject_rest_button = QPushButton()
        self.reject_rest_button.setObjectName("organizerRejectRest")
        self.reject_rest_button.setProperty("danger", True)
        self.buttons = QWidget()
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 0, 0, 0)
        for button in (
            self.apply_button,
            self.apply_safe_button,
            self.reject_button,
            self.reject_rest_button,
        ):
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
        self.reject_button.setText(self.tr("Reject"))
        self.reject_button.setToolTip(self.tr("Reject the current decision (Delete)"))
        self.reject_rest_button.setText(self.tr("Reject the rest"))
        self.reject_rest_button.setToolTip(
            self.tr("Reject every decision not applied yet; the queue closes")
        )
        self.update_buttons()

    # --- the run shown ----------------------------------------------------------------------
    def show_none(self) -> None:
        """No run is selected: an empty queue that says so."""
        self.outcome.setText("")
        self._run_id = ""
        self._manual = ManualApplyState()
        self.decisions, self.groups = [], []
        self._fill(editable=False)
        self.empty.setText(self.tr("Select a run to review its decisions."))
        self.buttons.setVisible(False)
        self.update_buttons()

    def show_run(self, run: dict[str, Any], *, same: bool) -> bool:
        """Show the decisions of `run` (organize_run_read's run); with `same` (the run shown
        before, re-read) the current row and the outcome stay. False when the run has no
        decision to show."""
        current_key = self._current_key() if same else None
        if not same:
            self.outcome.setText("")
        view = run.get("report") or {}
        legacy = bool(view.get("legacy"))
        self._run_id = run["run_id"]
        self._read_report(view.get("report") if not legacy else None)
        editable = (
            not legacy
            and run["status"] == "succeeded"
            and bool(self.groups)
            and self._manual.status in ("pending", "partial")
        )
        if legacy:
            self.empty.setText(
                self.tr("This run was recorded by an older version; its report is read-only.")
            )
        elif run["status"] in ACTIVE:
            self.empty.setText(
                self.tr("This run is in progress. Its decisions appear here when it finishes.")
            )
        else:
            self.empty.setText(self.tr("No decisions are waiting for review in this run."))
        self._fill(editable=editable)
        # Legacy reports are read-only: no apply buttons at all (REFERENCE A10).
        self.buttons.setVisible(bool(self.groups))
        self.update_buttons()
        if self.groups:
            self._select_key(current_key)
        return bool(self.groups)

    def _read_report(self, report: dict[str, Any] | None) -> None:
        """The decisions, their groups and the queue's state from a v4 report view."""
        self.decisions, self.groups, self._manual = [], [], ManualApplyState()
        if not report or not report.get("safeDecisions"):
            return
        try:
            parsed = parse_report(report)
        except InvalidArgument:  # the view is parsed already; a bad one shows no queue
            return
        self._manual = parsed.manualApplyState or ManualApplyState()
        self.groups = report_groups(parsed)
        self.decisions = [
            (key, dict(decision))
            for group in self.groups
            for (key, _part), decision in zip(group.parts, self._dicts(parsed, group), strict=True)
        ]

    @staticmethod
    def _dicts(parsed: Report, group: DecisionGroup) -> list[dict[str, Any]]:
        """The report's stored decisions of `group`'s parts (by their position in the key)."""
        stored = parsed.safeDecisions or []
        return [stored[int(key.split(":", 1)[0])] for key in group.keys]

    def _fill(self, *, editable: bool) -> None:
        checks = self._checks.setdefault(self._run_id, {}) if self._run_id else {}
        self._filling = True
        self.queue.blockSignals(True)
        try:
            self.queue.clear()
            for group in self.groups:
                self.queue.addTopLevelItem(self._group_item(group, editable, checks))
        finally:
            self.queue.blockSignals(False)
            self._filling = False
        self.queue.setRootIsDecorated(any(len(g.parts) > 1 for g in self.groups))
        self.stack.setCurrentWidget(self.queue if self.groups else self.empty)
        self._editable = editable

    def _group_item(
        self, group: DecisionGroup, editable: bool, checks: dict[str, bool]
    ) -> QTreeWidgetItem:
        """A decision's row (its parts below it), checkable while it can still be applied."""
        state = group.state(self._manual)
        main = self.decision(self._write_key(group))
        if group.kind == "merge":
            text = self.tr("Merge %n memories", "", len(group.parts))
        else:
            text = action_text(main)
        if self._write_key(group) in self.edits():
            text = self.tr("%1 (edited)").replace("%1", text)
        item = self._row(group.key, text, main, group.risk_level, group.confidence, state)
        if group.kind == "merge":
            item.setToolTip(1, f"{group.main.slug} ← {', '.join(group.merged_slugs)}")
            for key, part in group.parts:
                part_state = "applied" if key in self._manual.appliedDecisionKeys else state
                decision = self.decision(key)
                child = self._row(
                    key,
                    part_text(decision),
                    decision,
                    part.risk_level,
                    part.confidence,
                    part_state,
                )
                item.addChild(child)
        if editable and group.is_open(self._manual):
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            # REFERENCE A10: low-risk decisions needing no acknowledgement start checked.
            checked = checks.get(group.key, group.safe and state != "failed")
            item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        return item

    @staticmethod
    def _row(
        key: str,
        text: str,
        decision: dict[str, Any],
        risk: str,
        confidence: float | None,
        state: str,
    ) -> QTreeWidgetItem:
        """One row, not checkable (yet): its look says its state."""
        item = QTreeWidgetItem()
        reason = reason_text(decision)
        for column, value in enumerate(
            (
                text,
                decision["slug"],
                word(risk),
                f"{confidence:.2f}" if isinstance(confidence, int | float) else "—",
                word(state),
                reason,
            )
        ):
            item.setText(column, value)
        item.setToolTip(0, text)
        item.setToolTip(1, decision["slug"])
        item.setToolTip(5, reason)
        item.setData(0, KEY_ROLE, key)
        item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
        if state == "rejected":
            font = item.font(0)
            font.setStrikeOut(True)
            for column in range(len(COLUMNS)):
                item.setFont(column, font)
                item.setForeground(column, QBrush(QColor(REJECTED_COLOUR)))
        elif state == "failed":
            item.setForeground(4, QBrush(QColor(FAILED_COLOUR)))
        return item

    # --- decisions ----------------------------------------------------------------------------
    def decision(self, key: str) -> dict[str, Any]:
        """The report's decision with `key`."""
        return next(d for k, d in self.decisions if k == key)

    @staticmethod
    def _write_key(group: DecisionGroup) -> str:
        """The key of a group's write (its first part when it writes nothing)."""
        return next((k for k, d in group.parts if d.op == "upsert"), group.key)

    def group_of(self, key: str) -> DecisionGroup | None:
        """The group a decision key belongs to."""
        return next((g for g in self.groups if key in g.keys), None)

    def current_group(self) -> DecisionGroup | None:
        key = self._current_key()
        return self.group_of(key) if key is not None else None

    def is_open(self, group: DecisionGroup) -> bool:
        """Whether a person may still apply or reject `group`."""
        return self._editable and group.is_open(self._manual)

    # --- edits --------------------------------------------------------------------------------
    def edits(self) -> dict[str, str]:
        """The merge texts a person edited in the run shown, by write key."""
        return dict(self._edits.get(self._run_id, {}))

    def merged_text(self, group: DecisionGroup) -> str:
        """What a merge would write now: the person's edit, else the proposal."""
        key = self._write_key(group)
        return self.edits().get(key, self.decision(key).get("body") or "")

    def set_edit(self, group: DecisionGroup, text: str) -> None:
        """Keep `text` as the merge's text (the proposal again: no edit)."""
        key = self._write_key(group)
        edits = self._edits.setdefault(self._run_id, {})
        if text == (self.decision(key).get("body") or ""):
            edits.pop(key, None)
        else:
            edits[key] = text
        current = self._current_key()
        self._fill(editable=self._editable)
        self._select_key(current)

    # --- checks and buttons -----------------------------------------------------------------
    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0 or not self._run_id:
            return
        key = item.data(0, KEY_ROLE)
        checked = item.checkState(0) == Qt.CheckState.Checked
        self._checks.setdefault(self._run_id, {})[str(key)] = checked
        self.update_buttons()

    def checked_keys(self) -> list[str]:
        """The keys of the decisions a person has checked (in queue order)."""
        return [
            str(item.data(0, KEY_ROLE))
            for item in self.queue_items()
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable
            and item.checkState(0) == Qt.CheckState.Checked
        ]

    def queue_items(self) -> list[QTreeWidgetItem]:
        """The review queue's decision rows, in order (their parts are their children)."""
        count = self.queue.topLevelItemCount()
        return [item for row in range(count) if (item := self.queue.topLevelItem(row))]

    def forget(self, run_id: str | None = None) -> None:
        """Forget what a person checked and edited in the queue of `run_id` (None: of every
        run)."""
        if run_id is None:
            self._checks.clear()
            self._edits.clear()
        else:
            self._checks.pop(run_id, None)
            self._edits.pop(run_id, None)

    def set_busy(self) -> None:
        """An apply is under way: one at a time (`update_buttons` ends it)."""
        for button in (
            self.apply_button,
            self.apply_safe_button,
            self.reject_button,
            self.reject_rest_button,
        ):
            button.setEnabled(False)

    def update_buttons(self) -> None:
        """Enable what applies to the open queue, and say why "Apply all safe" is off."""
        open_groups = [g for g in self.groups if self.is_open(g)]
        safe = [g for g in open_groups if g.safe]
        current = self.current_group()
        self.apply_button.setEnabled(bool(self.checked_keys()))
        self.apply_safe_button.setEnabled(bool(safe))
        self.reject_button.setEnabled(current is not None and self.is_open(current))
        self.reject_rest_button.setEnabled(bool(open_groups))
        why = self._safe_off_reason(open_groups) if not safe else ""
        self.safe_hint.setText(why)
        self.safe_hint.setVisible(bool(why))
        self.apply_safe_button.setToolTip(
            why or self.tr("Apply every low-risk decision that needs no acknowledgement")
        )

    def _safe_off_reason(self, open_groups: list[DecisionGroup]) -> str:
        """Why "Apply all safe" has nothing to take ('' when the queue is not shown)."""
        if not self.groups:
            return ""
        if not self._editable:
            return self.tr("This run's review is finished.")
        if not open_groups:
            return self.tr("Every decision was handled.")
        return self.tr(
            "Every remaining proposal needs your review: none is low-risk without an "
            "acknowledgement, so “Apply all safe” has nothing to apply."
        )

    # --- the current row --------------------------------------------------------------------
    def _current_key(self) -> str | None:
        item = self.queue.currentItem()
        return str(item.data(0, KEY_ROLE)) if item is not None else None

    def _select_key(self, key: str | None) -> None:
        """Make the row with `key` current (else the first decision): its change shows."""
        found = self.queue.findItems(
            "*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive, 0
        )
        chosen = next((i for i in found if i.data(0, KEY_ROLE) == key), None)
        items = self.queue_items()
        chosen = chosen or (items[0] if items else None)
        if chosen is not None:
            self.queue.setCurrentItem(chosen)

    def select_next_open(self, after: str) -> None:
        """Move to the first open decision after the one with key `after` (else before it)."""
        items = self.queue_items()
        keys = [str(item.data(0, KEY_ROLE)) for item in items]
        start = keys.index(after) + 1 if after in keys else 0
        for item in items[start:] + items[:start]:
            group = self.group_of(str(item.data(0, KEY_ROLE)))
            if group is not None and self.is_open(group):
                self.queue.setCurrentItem(item)
                return

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: Any) -> None:
        self.update_buttons()
        if current is None:
            self.decision_did_change.emit(None)
            return
        key = str(current.data(0, KEY_ROLE))
        group = self.group_of(key)
        if group is not None and current.parent() is None and group.kind == "merge":
            key = self._write_key(group)  # a merge's row previews its merged text
        self.decision_did_change.emit(self.decision(key))

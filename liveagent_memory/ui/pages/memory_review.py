"""The Memories page's review mode: the unreviewed memories one at a time, by keyboard.

Each memory shows in full (text, type, scope, confidence, risk, who wrote it) under a line
that says why it waits for review. One key per command, shown on its button: A accept, E edit,
D delete with a reason, U undo, P previous, N next, S skip (to the end of the queue), Esc
leave. After an accept, an edit or a delete the next memory shows. Accept is the list's own
call (`memory_accept` by a person), so the review gate of issue 12 holds; every change goes
to the page's one Undo (memory_undo.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import Row, key_of
from liveagent_memory.ui.pages.base import PagePart
from liveagent_memory.ui.pages.memory_undo import ACCEPT, DELETE, MemoryUndo
from liveagent_memory.ui.payloads import target
from liveagent_memory.ui.widgets.evidence_view import EvidenceView

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage
    from liveagent_memory.ui.pages.memory_dialogs import MemoryDialogs

DELETE_REASON = "deleted in the app"  # the audit log's reason when the person gives none
# (name, keys): one key per command, the first shown on its button.
KEYS = {
    "accept": ("A",),
    "edit": ("E",),
    "delete": ("D",),
    "undo": ("U", "Ctrl+Z"),
    "previous": ("P",),
    "next": ("N",),
    "skip": ("S",),
    "leave": ("Esc",),
}


class ReviewMode(QWidget, PagePart):
    """The unreviewed queue of the page's filters, one memory at a time.

    Signals:
        left: the person left the review mode.
        memories_did_change: a memory was accepted, changed, deleted or put back.
        error_did_occur(object): a command failed with a MemoryDomainError.
    """

    left = Signal()
    memories_did_change = Signal()
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage, undo: MemoryUndo, dialogs: MemoryDialogs) -> None:
        super().__init__()
        self.setObjectName("memory_review_mode")
        self.page, self.undo, self.dialogs = page, undo, dialogs
        self.queue: list[Row] = []  # the memories still to review, in the list's order
        self.position = 0  # of the memory shown in the queue
        self.shown: dict[str, Any] | None = None  # its memory_read result
        self.loaded = False  # the queue was fetched (until then: no empty-queue message)
        self.busy = False  # a command runs: keys wait for it
        self.filters: dict[str, Any] = {}
        self._build()
        self.retranslate()
        undo.offer_did_change.connect(self.undo_enabled)

    # --- construction -----------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel()
        self.title.setObjectName("review_title")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.count = QLabel()
        self.count.setObjectName("review_count")
        self.why = QLabel()
        self.why.setObjectName("review_why")
        self.why.setWordWrap(True)
        self.detail = EvidenceView()
        self.detail.setObjectName("review_detail")
        self.status = QLabel()
        self.status.setObjectName("review_status")
        self.status.setProperty("role", "muted")
        self.status.setWordWrap(True)
        self.reason_bar = QFrame()
        self.reason_label = QLabel()
        self.reason = QLineEdit()
        self.reason.setObjectName("review_reason")
        self.reason_confirm = QPushButton()
        self.reason_confirm.setProperty("danger", True)
        reason_row = QHBoxLayout(self.reason_bar)
        reason_row.setContentsMargins(0, 0, 0, 0)
        reason_row.addWidget(self.reason_label)
        reason_row.addWidget(self.reason, 1)
        reason_row.addWidget(self.reason_confirm)
        self.reason_bar.hide()
        self.actions_by_name: dict[str, QAction] = {}
        self.buttons: dict[str, QPushButton] = {}
        for name, keys in KEYS.items():
            action = QAction(self)
            action.setShortcuts([QKeySequence(key) for key in keys])
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _checked=False, name=name: self._run(name))
            self.addAction(action)
            self.actions_by_name[name] = action
            button = QPushButton()
            button.setObjectName(f"review_{name}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys go to the review, not a button
            button.clicked.connect(lambda _checked=False, action=action: action.trigger())
            self.buttons[name] = button
        self.buttons["accept"].setProperty("primary", True)
        self.buttons["delete"].setProperty("danger", True)
        self._lay_out()
        self.reason.returnPressed.connect(self._confirm_delete)
        self.reason_confirm.clicked.connect(self._confirm_delete)

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.count)
        top.addWidget(self.buttons["leave"])
        commands = QHBoxLayout()
        for name in ("accept", "edit", "delete", "undo"):
            commands.addWidget(self.buttons[name])
        commands.addStretch(1)
        for name in ("previous", "skip", "next"):
            commands.addWidget(self.buttons[name])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.why)
        layout.addWidget(self.detail, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.reason_bar)
        layout.addLayout(commands)

    def retranslate(self) -> None:
        """Set every visible string (the page calls it again on a language switch)."""
        self.title.setText(self.tr("Review unreviewed memories"))
        labels = {
            "accept": (self.tr("Accept"), self.tr("Mark this memory reviewed; then the next")),
            "edit": (self.tr("Edit…"), self.tr("Change its text; saving marks it reviewed")),
            "delete": (self.tr("Delete…"), self.tr("Move it to the trash, with a reason")),
            "undo": (self.tr("Undo"), self.tr("Take back the last accept, edit or delete")),
            "previous": (self.tr("Previous"), self.tr("The memory before this one")),
            "next": (self.tr("Next"), self.tr("The memory after this one")),
            "skip": (self.tr("Skip"), self.tr("Leave it for later: it moves to the end")),
            "leave": (self.tr("Back to the list"), self.tr("Leave the review mode")),
        }
        for name, (text, tip) in labels.items():
            key = (
                self.actions_by_name[name]
                .shortcut()
                .toString(QKeySequence.SequenceFormat.NativeText)
            )
            shown = self.tr("%1 (%2)").replace("%1", text).replace("%2", key)
            self.actions_by_name[name].setText(shown)
            self.buttons[name].setText(shown)
            self.buttons[name].setToolTip(tip)
        self.reason_label.setText(self.tr("Why delete it?"))
        self.reason.setPlaceholderText(self.tr("A reason, kept in its history (optional)"))
        self.reason_confirm.setText(self.tr("Delete"))
        self._render()

    # --- the queue --------------------------------------------------------------------------
    def start(self, filters: dict[str, Any]) -> None:
        """Open on the unreviewed memories that `filters` (the list's fields) keep."""
        self.filters = {**filters, "unreviewed": True, "include_daily": False}
        self.queue, self.position, self.shown, self.loaded = [], 0, None, False
        self.status.clear()
        self._close_reason()
        self._render()
        self.detail.setFocus(Qt.FocusReason.OtherFocusReason)
        self.client.bridge.spawn(self._load())

    async def _load(self) -> None:
        try:
            result = await self.client.call(
                "memory_list", {**self.filters, "limit": config.LIST_MAX_LIMIT}
            )
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.queue = list(result["entries"])
        self.loaded = True
        await self._show_current()

    def current(self) -> Row | None:
        """The memory shown, if the queue has one."""
        return self.queue[self.position] if self.queue else None

    async def _show_current(self) -> None:
        """Read the memory at `position` and show it (one gone meanwhile leaves the queue)."""
        while self.queue:
            self.position = min(self.position, len(self.queue) - 1)
            entry = self.queue[self.position]
            try:
                self.shown = await self.client.call("memory_read", target(entry))
            except MemoryDomainError as exc:
                self.error_did_occur.emit(exc)
                self.queue.pop(self.position)
                continue
            break
        else:
            self.shown = None
        self._render()

    def _render(self) -> None:
        self.undo_enabled()
        if self.shown is None or not self.queue:
            self.count.clear()
            self.why.clear()
            if self.loaded:
                self.detail.show_message(self.tr("No memory waits for review."))
            else:
                self.detail.show_message(self.tr("Loading the unreviewed memories…"))
            for name in ("accept", "edit", "delete", "previous", "next", "skip"):
                self.actions_by_name[name].setEnabled(False)
                self.buttons[name].setEnabled(False)
            self._set_primary(self.buttons["leave"], True)
            return
        self._set_primary(self.buttons["leave"], False)
        self.count.setText(
            self.tr("%1 of %2")
            .replace("%1", str(self.position + 1))
            .replace("%2", str(len(self.queue)))
        )
        self.why.setText(self.why_text(self.shown))
        self.detail.show_memory(self.shown)
        for name, enabled in (
            ("accept", True),
            ("edit", True),
            ("delete", True),
            ("previous", self.position > 0),
            ("next", self.position < len(self.queue) - 1),
            ("skip", len(self.queue) > 1),
        ):
            self.actions_by_name[name].setEnabled(enabled)
            self.buttons[name].setEnabled(enabled)

    @staticmethod
    def _set_primary(button: QPushButton, primary: bool) -> None:
        """Style `button` as the page's main one or not (the style sheet reads the property)."""
        if bool(button.property("primary")) != primary:
            button.setProperty("primary", primary)
            button.style().unpolish(button)
            button.style().polish(button)

    def undo_enabled(self) -> None:
        """Offer Undo when the page's Undo has something to take back."""
        enabled = self.undo.kind is not None
        self.actions_by_name["undo"].setEnabled(enabled)
        self.buttons["undo"].setEnabled(enabled)

    def why_text(self, data: dict[str, Any]) -> str:
        """Why this memory waits for a person: who wrote it, and any risk or lowered quote."""
        entry, source = data["entry"], data.get("source") or {}
        reasons = []
        if entry.get("risk_flag"):
            reasons.append(self.tr("It reads like an instruction to the agent."))
        who = self.detail.who(source)
        if source.get("trigger") == "user":
            reasons.append(self.tr("Written by %1.").replace("%1", who))
        else:
            reasons.append(
                self.tr("Written by %1: what a model writes waits for a person.").replace("%1", who)
            )
        if (data.get("evidence") or {}).get("auto_downgraded"):
            reasons.append(self.tr("Its confidence was lowered: the quote is too short."))
        return self.tr("Waiting for review: %1").replace("%1", " ".join(reasons))

    # --- commands ---------------------------------------------------------------------------
    def _run(self, name: str) -> None:
        if name == "leave":
            self._leave()
            return
        if self.busy or self.reason_bar.isVisible():
            return  # one command at a time; the reason bar has its own keys
        handlers = {
            "accept": lambda: self._spawn(self._accept()),
            "edit": self._edit,
            "delete": self._ask_reason,
            "undo": lambda: self._spawn(self._undo()),
            "previous": lambda: self._move(-1),
            "next": lambda: self._move(1),
            "skip": self._skip,
        }
        if self.actions_by_name[name].isEnabled():
            handlers[name]()

    def _spawn(self, coro: Any) -> None:
        self.busy = True
        self.client.bridge.spawn(coro)

    def _leave(self) -> None:
        if self.reason_bar.isVisible():
            self._close_reason()  # Esc first closes the question, then the review
            return
        self.left.emit()

    def _move(self, step: int) -> None:
        self.position = max(0, min(self.position + step, len(self.queue) - 1))
        self.status.clear()
        self._spawn(self._show_and_release())

    def _skip(self) -> None:
        self.queue.append(self.queue.pop(self.position))
        self.status.setText(self.tr("Skipped: it comes again at the end."))
        self._spawn(self._show_and_release())

    async def _show_and_release(self) -> None:
        try:
            await self._show_current()
        finally:
            self.busy = False

    async def _accept(self) -> None:
        try:
            entry = self.current()
            if entry is None:
                return
            try:
                result = await self.client.call("memory_accept", target(entry))
            except MemoryDomainError as exc:
                self.error_did_occur.emit(exc)
                return
            self.undo.remember(ACCEPT, [(entry, str(result["change"]))])
            await self._done(self.tr("Accepted “%1”.").replace("%1", self._name()))
        finally:
            self.busy = False

    def _edit(self) -> None:
        if self.shown is not None:
            self.dialogs.edit(self.shown)

    def edited(self, entry: Row, result: dict[str, Any]) -> None:
        """The editor saved `entry` (its update `result`): reviewed now, the next one shows."""
        current = self.current()
        if current is None or key_of(current) != key_of(entry):
            return
        self.busy = True
        if result.get("unreviewed"):
            self.status.setText(self.tr("Saved; it still needs review (it reads risky)."))
            self._spawn(self._show_and_release())
            return
        self._spawn(self._done_and_release(self.tr("Saved “%1”.").replace("%1", self._name())))

    async def _done_and_release(self, notice: str) -> None:
        try:
            await self._done(notice)
        finally:
            self.busy = False

    def _ask_reason(self) -> None:
        self.reason.clear()
        self.reason_bar.show()
        self.reason.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _close_reason(self) -> None:
        self.reason_bar.hide()
        self.detail.setFocus(Qt.FocusReason.OtherFocusReason)

    def _confirm_delete(self) -> None:
        if self.reason_bar.isVisible() and not self.busy:
            reason = self.reason.text().strip() or DELETE_REASON
            self._close_reason()
            self._spawn(self._delete(reason))

    async def _delete(self, reason: str) -> None:
        try:
            entry = self.current()
            if entry is None:
                return
            payload = {**target(entry), "actor": "user", "reason": reason}
            try:
                result = await self.client.call("memory_delete", payload)
            except MemoryDomainError as exc:
                self.error_did_occur.emit(exc)
                return
            self.undo.remember(DELETE, [(entry, str(result["change"]))])
            await self._done(self.tr("Deleted “%1”.").replace("%1", self._name()))
        finally:
            self.busy = False

    async def _done(self, notice: str) -> None:
        """The memory shown left the queue: say so, then show the next."""
        self.queue.pop(self.position)
        key = (
            self.actions_by_name["undo"].shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        )
        self.status.setText(
            self.tr("%1 Undo (%2) takes it back.").replace("%1", notice).replace("%2", key)
        )
        self.memories_did_change.emit()
        await self._show_current()

    async def _undo(self) -> None:
        try:
            undone = await self.undo.undo()
            if undone is None:
                return
            _kind, entries = undone
            for entry in entries:
                await self._requeue(entry)
            if entries:
                self.status.setText(self.tr("Undone."))
                self.memories_did_change.emit()
            await self._show_current()
        finally:
            self.busy = False

    async def _requeue(self, entry: Row) -> None:
        """Put a memory an undo made unreviewed again back in the queue, shown next."""
        try:
            data = await self.client.call("memory_read", target(entry))
        except MemoryDomainError:
            return  # not there after all: nothing to review
        if not data["entry"]["unreviewed"]:
            return
        keys = [key_of(row) for row in self.queue]
        if key_of(data["entry"]) in keys:
            self.queue.pop(keys.index(key_of(data["entry"])))
        self.position = min(self.position, len(self.queue))
        self.queue.insert(self.position, data["entry"])

    def _name(self) -> str:
        entry = (self.shown or {}).get("entry") or {}
        return str(entry.get("description") or entry.get("slug") or "")

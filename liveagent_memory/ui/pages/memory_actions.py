"""The Memories page's commands: its keyboard shortcuts, the buttons that mirror them, when
each is enabled, and the bar that confirms deleting many memories at once.

While the review mode is open (`suspended`), every command of the list is off: its Delete or
Accept would act on the list's selection, which the review mode hides.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from liveagent_memory.ui.models import Row


class MemoryActions(QObject):
    """One QAction per command, window-wide while `host` is shown, and a push button for each
    but Search. The host connects each action's `triggered` to what it does.
    """

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)

        def make(keys: list[QKeySequence]) -> QAction:
            action = QAction(host)
            action.setShortcuts(keys)
            host.addAction(action)  # window-wide while the page is shown; line edits keep
            return action  # their own Delete and Ctrl+Z (they claim those keys first)

        standard = QKeySequence.StandardKey
        self.find_action = make([QKeySequence(standard.Find)])
        self.new_action = make([QKeySequence(standard.New)])
        self.edit_action = make([QKeySequence("Ctrl+E"), QKeySequence("F2")])
        self.accept_action = make([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.delete_action = make([QKeySequence(standard.Delete)])
        self.undo_action = make([QKeySequence(standard.Undo)])
        self.history_action = make([QKeySequence("Ctrl+H")])
        self.review_action = make([QKeySequence("Ctrl+R")])
        self.undo_kind: str | None = None  # what Undo takes back: accept, edit, delete
        self.suspended = False
        self.new_button = self._button(self.new_action, "memory_new")
        self.edit_button = self._button(self.edit_action, "memory_edit")
        self.accept_button = self._button(self.accept_action, "memory_accept")
        self.delete_button = self._button(self.delete_action, "memory_delete")
        self.delete_button.setProperty("danger", True)
        self.undo_button = self._button(self.undo_action, "memory_undo")
        self.history_button = self._button(self.history_action, "memory_history")
        self.review_button = self._button(self.review_action, "memory_review")
        self.new_button.setProperty("primary", True)

    @staticmethod
    def _button(action: QAction, name: str) -> QPushButton:
        """A push button that shows and triggers `action` (text, tooltip, enabled state)."""
        button = QPushButton()
        button.setObjectName(name)
        button.clicked.connect(lambda _checked=False: action.trigger())

        def sync() -> None:
            button.setText(action.text())
            button.setToolTip(action.toolTip())
            button.setEnabled(action.isEnabled())

        action.changed.connect(sync)
        sync()
        return button

    def button_row(self) -> QHBoxLayout:
        """The buttons in a row, left-aligned."""
        row = QHBoxLayout()
        for button in (
            self.new_button,
            self.edit_button,
            self.accept_button,
            self.delete_button,
            self.undo_button,
            self.history_button,
        ):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.review_button)
        return row

    def retranslate(self) -> None:
        """The actions' texts, and tooltips that name their shortcut: the page calls it once
        laid out, and on a language switch."""
        labels = (
            (
                self.find_action,
                self.tr("Search"),
                self.tr("Search memories"),
            ),
            (
                self.new_action,
                self.tr("New…"),
                self.tr("Write a new memory"),
            ),
            (
                self.edit_action,
                self.tr("Edit…"),
                self.tr("Change this memory's text or evidence"),
            ),
            (
                self.accept_action,
                self.tr("Accept"),
                self.tr("Mark the selected memories reviewed"),
            ),
            (
                self.delete_action,
                self.tr("Delete"),
                self.tr("Move the selected memories to the trash"),
            ),
            (
                self.undo_action,
                self.undo_text(),
                self.tr("Take back the last accept, edit or delete"),
            ),
            (
                self.history_action,
                self.tr("History…"),
                self.tr("Earlier versions; restore one"),
            ),
            (
                self.review_action,
                self.tr("Review…"),
                self.tr("Go through the unreviewed memories one at a time, by keyboard"),
            ),
        )
        for action, text, tip in labels:
            action.setText(text)
            shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)

    def undo_text(self) -> str:
        """Undo's label: what it takes back."""
        labels = {
            "accept": self.tr("Undo accept"),
            "edit": self.tr("Undo edit"),
            "delete": self.tr("Undo delete"),
        }
        return labels.get(self.undo_kind or "", self.tr("Undo"))

    def set_undo(self, kind: str | None) -> None:
        """Say what Undo takes back (None: nothing); enabled unless suspended."""
        self.undo_kind = kind
        self.undo_action.setText(self.undo_text())
        self.undo_action.setEnabled(kind is not None and not self.suspended)

    def enable(self, *, current: Row | None, selected: int, loaded: list[Row]) -> None:
        """Enable what applies to the memory shown (`current`) or to the `selected` rows (of
        which `loaded` are loaded, when more than one is selected); nothing while suspended."""
        if self.suspended:
            for action in self.all_actions():
                action.setEnabled(False)
            return
        for action in (self.find_action, self.new_action, self.review_action):
            action.setEnabled(True)
        single = current is not None and selected <= 1
        many = selected > 1
        some_unreviewed = len(loaded) < selected or any(e.get("unreviewed") for e in loaded)
        self.edit_action.setEnabled(single)
        self.history_action.setEnabled(single)
        self.accept_action.setEnabled(
            (single and bool(current and current["unreviewed"])) or (many and some_unreviewed)
        )
        self.delete_action.setEnabled(single or many)
        self.undo_action.setEnabled(self.undo_kind is not None)

    def all_actions(self) -> list[QAction]:
        """Every action of the list."""
        return [
            self.find_action,
            self.new_action,
            self.edit_action,
            self.accept_action,
            self.delete_action,
            self.undo_action,
            self.history_action,
            self.review_action,
        ]


class DeleteConfirmBar(QFrame):
    """One non-blocking confirmation before many memories are deleted (Undo still works after).

    Signals:
        confirmed(list): "Delete them" was pressed for these list rows.
    """

    confirmed = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory_confirm_delete")
        self._pending: list[int] = []  # rows of a bulk delete awaiting confirmation
        self.label = QLabel()
        self.confirm_button = QPushButton()
        self.confirm_button.setProperty("danger", True)
        self.cancel_button = QPushButton()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.confirm_button)
        layout.addWidget(self.cancel_button)
        self.hide()
        self.confirm_button.clicked.connect(self._confirm)
        self.cancel_button.clicked.connect(self.cancel)

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.confirm_button.setText(self.tr("Delete them"))
        self.cancel_button.setText(self.tr("Cancel"))

    def ask(self, rows: list[int]) -> None:
        """Ask whether to delete the memories in `rows`."""
        self._pending = rows
        self.label.setText(self.tr("Delete %n memories? Undo brings them back.", "", len(rows)))
        self.show()
        self.confirm_button.setFocus()

    def cancel(self) -> None:
        """Forget the question (the selection changed, or Cancel was pressed)."""
        self._pending = []
        self.hide()

    def _confirm(self) -> None:
        rows, self._pending = self._pending, []
        self.hide()
        if rows:
            self.confirmed.emit(rows)

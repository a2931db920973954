"""The history of one memory: its versions (when, who, what) and "Restore this version"."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.widgets.evidence_view import local_time

VERSION_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's position in `entries`
PREVIEW_KEYS = ("text", "content", "preview")  # where a version's text would be, if given
ERROR_STYLE = "color: #a33a2f;"


class HistoryView(QDialog):
    """Lists `memory_history` entries newest first; restores the selected one on request.

    Signals:
        restore_requested(str): "Restore this version" was pressed for this version id.
    """

    restore_requested = Signal(str)

    def __init__(self, slug: str, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory_history")
        self.slug = slug
        self.entries: list[dict[str, Any]] = []
        self.table = QTreeWidget()
        self.table.setObjectName("history_versions")
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setColumnCount(4)
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("history_preview")
        self.preview.setReadOnly(True)
        self.explain = QLabel()
        self.explain.setProperty("role", "muted")
        self.explain.setWordWrap(True)
        self.status = QLabel()
        self.status.setObjectName("history_status")
        self.status.setWordWrap(True)
        self.status.hide()
        self.restore_button = QPushButton()
        self.restore_button.setObjectName("history_restore")
        self.restore_button.setProperty("primary", True)
        self.restore_button.setEnabled(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.preview)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        actions = QHBoxLayout()
        actions.addWidget(self.restore_button)
        actions.addStretch(1)
        actions.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(self.explain)
        layout.addWidget(self.status)
        layout.addLayout(actions)
        self.resize(720, 560)

        self.table.currentItemChanged.connect(lambda _c, _p: self._show_selected())
        self.restore_button.clicked.connect(self._restore_clicked)
        self.buttons.rejected.connect(self.reject)
        self.retranslate()

    # --- labels -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.setWindowTitle(self.tr("History of %1").replace("%1", self.slug))
        self.table.setHeaderLabels(
            [self.tr("When"), self.tr("Who"), self.tr("What"), self.tr("Note")]
        )
        self.restore_button.setText(self.tr("Restore this version"))
        self.explain.setText(
            self.tr(
                "Restoring a change brings back the memory as it was just before that change; "
                "restoring a deleted copy brings that copy back. The text it replaces stays in "
                "this history, so a restore can itself be undone."
            )
        )
        self.set_entries(self.entries)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def who_text(self, who: str) -> str:
        labels = {
            "user": self.tr("a person"),
            "tool": self.tr("an agent's memory tool"),
            "extraction": self.tr("extraction"),
            "organizer": self.tr("the organizer"),
            "reconcile": self.tr("a change on disk"),
        }
        return labels.get(who, who or self.tr("unknown"))

    def what_text(self, entry: dict[str, Any]) -> str:
        if entry.get("source") == "trash":
            return self.tr("Deleted (copy in the trash)")
        if entry.get("source") == "snapshot":
            return self.tr("Before an organizer change")
        labels = {
            "write": self.tr("Created"),
            "update": self.tr("Changed"),
            "accept": self.tr("Accepted"),
            "restore": self.tr("Restored"),
            "delete": self.tr("Deleted"),
            "batch": self.tr("Changed in a batch"),
            "reconcile": self.tr("Changed on disk"),
            "wipe": self.tr("Moved to quarantine"),
        }
        op = str(entry.get("op") or "")
        return labels.get(op, op)

    # --- content ----------------------------------------------------------------------------
    def set_entries(self, entries: list[dict[str, Any]]) -> None:
        """Show these versions (newest first, as memory_history returns them)."""
        selected = self.selected()
        self.entries = list(entries)
        self.table.clear()
        for position, entry in enumerate(self.entries):
            note = entry.get("reason") or entry.get("description") or ""
            item = QTreeWidgetItem(
                [
                    local_time(entry.get("ts")),
                    self.who_text(str(entry.get("who") or "")),
                    self.what_text(entry),
                    str(note),
                ]
            )
            item.setData(0, VERSION_ROLE, position)
            if not entry.get("restorable"):
                item.setToolTip(2, self.tr("Nothing to restore: this change kept no earlier text"))
            self.table.addTopLevelItem(item)
        for column in range(3):
            self.table.resizeColumnToContents(column)
        if not self.entries:
            self.preview.setPlainText(self.tr("This memory has no recorded history yet."))
            self.restore_button.setEnabled(False)
            return
        wanted = selected["version"] if selected else None
        row = next((n for n, e in enumerate(self.entries) if e["version"] == wanted), 0)
        self._select_row(row)
        self._show_selected()

    def selected(self) -> dict[str, Any] | None:
        item = self.table.currentItem()
        if item is None:
            return None
        position = item.data(0, VERSION_ROLE)
        return self.entries[position] if isinstance(position, int) else None

    def select_version(self, version: str) -> None:
        """Make the row of `version` the selected one."""
        for row, entry in enumerate(self.entries):
            if entry["version"] == version:
                self._select_row(row)
                return
        raise KeyError(version)

    def _select_row(self, row: int) -> None:
        item = self.table.topLevelItem(row)
        if item is not None:
            self.table.setCurrentItem(item)

    def _show_selected(self) -> None:
        entry = self.selected()
        if entry is None:
            self.restore_button.setEnabled(False)
            return
        self.restore_button.setEnabled(bool(entry.get("restorable")))
        text = next((entry[k] for k in PREVIEW_KEYS if isinstance(entry.get(k), str)), None)
        if text is not None:
            self.preview.setPlainText(text)
            return
        lines = []
        if entry.get("description"):
            lines.append(self.tr("Description then: %1").replace("%1", entry["description"]))
        if entry.get("reason"):
            lines.append(self.tr("Reason: %1").replace("%1", entry["reason"]))
        if entry.get("conversation_id"):
            lines.append(self.tr("Conversation: %1").replace("%1", entry["conversation_id"]))
        if entry.get("model"):
            lines.append(self.tr("Model: %1").replace("%1", entry["model"]))
        lines.append(
            self.tr("A preview of this version's text is not available; restore it to see it.")
            if entry.get("restorable")
            else self.tr("This change kept no earlier text, so there is nothing to restore.")
        )
        self.preview.setPlainText("\n".join(lines))

    # --- restoring --------------------------------------------------------------------------
    def _restore_clicked(self) -> None:
        entry = self.selected()
        if entry is not None and entry.get("restorable"):
            self.set_busy(True)
            self.restore_requested.emit(entry["version"])

    def set_busy(self, busy: bool) -> None:
        self.restore_button.setEnabled(not busy and bool((self.selected() or {}).get("restorable")))

    def show_error(self, text: str) -> None:
        self.set_busy(False)
        self.status.setStyleSheet(ERROR_STYLE)
        self.status.setText(text)
        self.status.show()

    def show_notice(self, text: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(text)
        self.status.show()

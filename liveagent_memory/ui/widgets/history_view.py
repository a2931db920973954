"""The history of one memory: its versions (when, who, what), any version's text, a diff
between two versions (or one and the current text), and "Restore this version".

The first row is the current version (the file as it is now); a version whose text is the
current one says so. `memory_history` with `with_text` gives every text, so choosing rows and
comparing them needs no further call. A diff compares what a person reads in each version (its
`parts`: description, type, scope, review state, confidence and quote, text), not the file's
bookkeeping (times, source); the Text tab shows the whole file.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.strings import value_text
from liveagent_memory.ui.widgets.diff_view import DiffView
from liveagent_memory.ui.widgets.evidence_view import local_time

VERSION_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's position in `entries` (-1: current)
CURRENT = "current"  # the version id of the first row: the file as it is now
ERROR_STYLE = "color: #a33a2f;"


class HistoryView(QDialog):
    """Lists `memory_history` entries newest first under the current version; shows the
    chosen one's text and its diff against another; restores it on request.

    Signals:
        restore_requested(str): "Restore this version" was pressed for this version id.
    """

    restore_requested = Signal(str)

    def __init__(self, slug: str, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory_history")
        self.slug = slug
        self.entries: list[dict[str, Any]] = []
        self.current_text: str | None = None  # the file now; None when the memory is gone
        self.current_parts: dict[str, Any] | None = None  # what a person reads in it now
        self._build()
        self.table.currentItemChanged.connect(lambda _c, _p: self._show_selected())
        self.compare.currentIndexChanged.connect(lambda _i: self._show_diff())
        self.restore_button.clicked.connect(self._restore_clicked)
        self.buttons.rejected.connect(self.reject)
        self.retranslate()

    def _build(self) -> None:
        self.table = QTreeWidget()
        self.table.setObjectName("history_versions")
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setColumnCount(4)
        self.caption = QLabel()
        self.caption.setObjectName("history_caption")
        self.caption.setProperty("role", "muted")
        self.caption.setWordWrap(True)
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("history_preview")
        self.preview.setReadOnly(True)
        self.compare_label = QLabel()
        self.compare = QComboBox()
        self.compare.setObjectName("history_compare")
        self.diff = DiffView()
        self.diff.setObjectName("history_diff")
        text_tab, diff_tab = QWidget(), QWidget()
        text_layout = QVBoxLayout(text_tab)
        text_layout.addWidget(self.caption)
        text_layout.addWidget(self.preview, 1)
        compare_row = QHBoxLayout()
        compare_row.addWidget(self.compare_label)
        compare_row.addWidget(self.compare, 1)
        diff_layout = QVBoxLayout(diff_tab)
        diff_layout.addLayout(compare_row)
        diff_layout.addWidget(self.diff, 1)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("history_tabs")
        self.tabs.addTab(text_tab, "")
        self.tabs.addTab(diff_tab, "")
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
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        actions = QHBoxLayout()
        actions.addWidget(self.restore_button)
        actions.addStretch(1)
        actions.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(self.explain)
        layout.addWidget(self.status)
        layout.addLayout(actions)
        self.resize(760, 600)

    # --- labels -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.setWindowTitle(self.tr("History of %1").replace("%1", self.slug))
        self.table.setHeaderLabels(
            [self.tr("When"), self.tr("Who"), self.tr("What"), self.tr("Note")]
        )
        self.tabs.setTabText(0, self.tr("Text"))
        self.tabs.setTabText(1, self.tr("Changes"))
        self.compare_label.setText(self.tr("Compare with:"))
        self.restore_button.setText(self.tr("Restore this version"))
        self.explain.setText(
            self.tr(
                "Restoring a change brings back the memory as it was just before that change; "
                "restoring a deleted copy brings that copy back. The text it replaces stays in "
                "this history, so a restore can itself be undone."
            )
        )
        self.set_entries(self.entries, current=self.current_text, current_parts=self.current_parts)

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
        if entry.get("version") == CURRENT:
            return self.tr("Current version")
        if entry.get("source") == "trash":
            return self.tr("Deleted (copy in the trash)")
        if entry.get("source") == "snapshot":
            return self.tr("Before an organizer change")
        if entry.get("undo_of"):
            return self.tr("Undone")
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

    def version_name(self, entry: dict[str, Any]) -> str:
        """A version as the compare list names it: its number (the oldest is 1; two versions
        of one minute stay apart), when, and what happened."""
        if entry.get("version") == CURRENT:
            return self.tr("the current version")
        number = len(self.entries) - self.entries.index(entry)
        return f"#{number} · {local_time(entry.get('ts'))} · {self.what_text(entry)}"

    # --- content ----------------------------------------------------------------------------
    def set_entries(
        self,
        entries: list[dict[str, Any]],
        *,
        current: str | None = None,
        current_parts: dict[str, Any] | None = None,
    ) -> None:
        """Show these versions (newest first, as memory_history returns them) under the
        current text (`current`, None when the memory does not exist now; `current_parts`
        what a person reads in it)."""
        selected = self.selected()
        self.entries, self.current_text = list(entries), current
        self.current_parts = current_parts
        self.table.clear()
        if current is not None:
            self._add_row(-1, self.current_entry())
        for position, entry in enumerate(self.entries):
            self._add_row(position, entry)
        for column in range(3):
            self.table.resizeColumnToContents(column)
        self._fill_compare()
        if self.table.topLevelItemCount() == 0:
            self.preview.setPlainText(self.tr("This memory has no recorded history yet."))
            self.caption.clear()
            self.diff.show_message("")
            self.restore_button.setEnabled(False)
            return
        wanted = selected["version"] if selected else None
        if not self._select(wanted):
            self._select_row(0)
        self._show_selected()

    def current_entry(self) -> dict[str, Any]:
        """The first row: the memory's file as it is now."""
        return {
            "version": CURRENT,
            "text": self.current_text,
            "parts": self.current_parts,
            "restorable": False,
        }

    def _add_row(self, position: int, entry: dict[str, Any]) -> None:
        note = str(entry.get("reason") or entry.get("description") or "")
        what = self.what_text(entry)
        if entry.get("current"):
            what = self.tr("%1 (same text as now)").replace("%1", what)
        when = "" if position < 0 else local_time(entry.get("ts"))
        who = "" if position < 0 else self.who_text(str(entry.get("who") or ""))
        item = QTreeWidgetItem([when, who, what, note])
        item.setData(0, VERSION_ROLE, position)
        if position < 0:
            font = QFont(item.font(2))
            font.setBold(True)
            item.setFont(2, font)
        elif not entry.get("restorable"):
            item.setToolTip(2, self.tr("Nothing to restore: this change kept no earlier text"))
        self.table.addTopLevelItem(item)

    def _fill_compare(self) -> None:
        """The versions a diff can compare with: every one whose text is known."""
        keep = self.compare.currentData()
        self.compare.blockSignals(True)
        self.compare.clear()
        for entry in self._with_text():
            self.compare.addItem(self.version_name(entry), entry["version"])
        index = self.compare.findData(keep)
        self.compare.setCurrentIndex(max(index, 0))
        self.compare.blockSignals(False)

    def _with_text(self) -> list[dict[str, Any]]:
        """Every row whose text is known, newest (the current one) first."""
        rows = [self.current_entry()] if self.current_text is not None else []
        return rows + [e for e in self.entries if isinstance(e.get("text"), str)]

    def selected(self) -> dict[str, Any] | None:
        item = self.table.currentItem()
        if item is None:
            return None
        position = item.data(0, VERSION_ROLE)
        if position == -1:
            return self.current_entry()
        return self.entries[position] if isinstance(position, int) else None

    def select_version(self, version: str) -> None:
        """Make the row of `version` (CURRENT: the first row) the selected one."""
        if not self._select(version):
            raise KeyError(version)

    def _select(self, version: str | None) -> bool:
        for row in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(row)
            position = item.data(0, VERSION_ROLE) if item is not None else None
            found = CURRENT if position == -1 else None
            if isinstance(position, int) and position >= 0:
                found = self.entries[position]["version"]
            if version is not None and found == version:
                self._select_row(row)
                return True
        return False

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
        self.caption.setText(self._caption(entry))
        text = entry.get("text")
        self.preview.setPlainText(text if isinstance(text, str) else self._no_text(entry))
        if self.compare.currentData() == entry["version"]:
            others = [e["version"] for e in self._with_text() if e["version"] != entry["version"]]
            if others:  # compare with another version than itself: the newest other one
                self.compare.setCurrentIndex(self.compare.findData(others[0]))
                return  # the combo's signal shows the diff
        self._show_diff()

    def _caption(self, entry: dict[str, Any]) -> str:
        if entry["version"] == CURRENT:
            return self.tr("The memory as it is now.")
        if entry.get("source") == "trash":
            return self.tr("The copy that was moved to the trash.")
        if entry.get("source") == "snapshot":
            return self.tr("The copy taken before the organizer changed it.")
        return self.tr("The memory just before this change: what restoring it brings back.")

    def _no_text(self, entry: dict[str, Any]) -> str:
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
            self.tr("The text of this version can no longer be read.")
            if entry.get("restorable")
            else self.tr("This change kept no earlier text, so there is nothing to restore.")
        )
        return "\n".join(lines)

    def _show_diff(self) -> None:
        """The selected version against the one chosen to compare with, older → newer."""
        entry = self.selected()
        rows = self._with_text()
        versions = [row["version"] for row in rows]
        other = self.compare.currentData()
        if entry is None or entry["version"] not in versions or other not in versions:
            self.diff.show_message(self.tr("This version has no text to compare."))
            return
        mine, theirs = versions.index(entry["version"]), versions.index(other)
        older, newer = (rows[mine], rows[theirs]) if mine > theirs else (rows[theirs], rows[mine])
        caption = (
            self.tr("From %1 to %2")
            .replace("%1", self.version_name(older))
            .replace("%2", self.version_name(newer))
        )
        if older.get("parts") and newer.get("parts"):
            before, after = self.readable(older["parts"]), self.readable(newer["parts"])
        else:  # a file that cannot be parsed: compare the files as they are
            before, after = str(older["text"]), str(newer["text"])
        self.diff.set_texts(before, after, caption=caption)

    def readable(self, parts: dict[str, Any]) -> str:
        """A version as a person reads it: a few labelled lines above its text."""
        lines = [
            self.tr("Description: %1").replace("%1", str(parts["description"])),
            self.tr("Type: %1 · Scope: %2")
            .replace("%1", value_text(parts["type"]))
            .replace("%2", value_text(parts["scope"])),
            self.tr("Needs review") if parts["unreviewed"] else self.tr("Reviewed"),
        ]
        if parts["source_quote"]:
            lines.append(
                self.tr("Confidence: %1 · Quote: %2")
                .replace("%1", value_text(parts["confidence"]))
                .replace("%2", str(parts["source_quote"]))
            )
        return "\n".join([*lines, "", str(parts["content"])])

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

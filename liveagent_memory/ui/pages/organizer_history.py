"""The Organizer page's run history: the table of runs (`organize_run_list`), its empty state,
and Clear history.

The table never scrolls sideways: when its columns do not fit, it hides the least needed ones
(HIDE_WHEN_NARROW, first to go first); the run's details beside it say every figure.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.pages.run_view import ACTIVE, RUN_ID_ROLE, RunHistoryModel

# The columns hidden, in this order, when the history is too narrow for all of them.
HIDE_WHEN_NARROW = ("tokens", "ratio", "duration", "trigger", "applied", "phase")


class RunHistoryPanel(QWidget):
    """The runs, newest first, one of them selected (its details show below).

    Signals:
        run_selected(object): the selected run's id, or None when no run is selected.
        clear_requested: Clear history was pressed.
    """

    run_selected = Signal(object)
    clear_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RunHistoryModel(self)
        self.table = QTableView()
        self.table.setObjectName("organizerHistory")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.viewport().installEventFilter(self)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.empty = QLabel()
        self.empty.setObjectName("organizerHistoryEmpty")
        self.empty.setProperty("role", "empty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)
        self.title = QLabel()
        self.title.setProperty("role", "heading")
        self.clear_button = QPushButton()
        self.clear_button.setObjectName("organizerClearHistory")
        self.clear_button.setProperty("danger", True)
        self.clear_button.clicked.connect(lambda _checked=False: self.clear_requested.emit())
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.title.setText(self.tr("Run history"))
        self.clear_button.setText(self.tr("Clear history"))
        self.clear_button.setToolTip(self.tr("Delete the records of finished runs"))
        self.empty.setText(
            self.tr(
                "No organizer runs yet. Press “Run now” to look for duplicates and "
                "memories to tidy up; nothing changes until you review it."
            )
        )
        self.model.headerDataChanged.emit(
            Qt.Orientation.Horizontal, 0, len(RunHistoryModel.COLUMNS) - 1
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Show every column that fits, hiding HIDE_WHEN_NARROW's from the first on."""
        header = self.table.horizontalHeader()
        columns = RunHistoryModel.COLUMNS
        for column in range(len(columns)):
            self.table.setColumnHidden(column, False)
        room = self.table.viewport().width()
        for name in HIDE_WHEN_NARROW:
            # The sections at their contents' width now (they resize lazily otherwise); the
            # last one stretches only when they all fit, so the header's length is their sum.
            self.table.resizeColumnsToContents()
            if header.length() <= room:
                return
            self.table.setColumnHidden(columns.index(name), True)
        self.table.resizeColumnsToContents()

    def hidden_columns(self) -> list[str]:
        """The columns hidden because the history is narrow (for tests and screenshots)."""
        return [
            name
            for column, name in enumerate(RunHistoryModel.COLUMNS)
            if self.table.isColumnHidden(column)
        ]

    def show_runs(self, rows: list[dict[str, Any]], keep: str | None) -> bool:
        """Show `rows` (organize_run_list's runs) and select the run `keep`, else the newest;
        False when there is none to select."""
        self.model.set_rows(rows)
        self._fit_columns()
        self.stack.setCurrentWidget(self.table if rows else self.empty)
        self.clear_button.setEnabled(any(r["status"] not in ACTIVE for r in rows))
        row = self.model.row_of(keep) if keep else -1
        if row < 0 and rows:
            row = 0
        if row < 0:
            return False
        self.table.selectRow(row)
        return True

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        run_id = current.data(RUN_ID_ROLE) if current.isValid() else None
        self.run_selected.emit(None if run_id is None else str(run_id))

"""Qt item models over command results (STYLE 4: rows are fetched by the page, models hold them)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # (scope, workdir_hash, slug): a memory's identity
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2  # the row as the command returned it


class MemoryListModel(QAbstractListModel):
    """Memories as returned by memory_list / memory_search, one row each."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            mark = " •" if row.get("unreviewed") else ""
            return f"{row.get('description') or row['slug']}{mark}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row['slug']} ({row['scope']}/{row['type']})"
        if role == KEY_ROLE:
            return (row["scope"], row.get("workdir_hash", ""), row["slug"])
        if role == ENTRY_ROLE:
            return row
        return None

    def row_of(self, key: tuple[str, str, str]) -> int:
        for number, row in enumerate(self._rows):
            if (row["scope"], row.get("workdir_hash", ""), row["slug"]) == key:
                return number
        return -1

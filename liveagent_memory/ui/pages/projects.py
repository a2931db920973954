"""The Projects page: every project with memories, its counts and quota, the global scope first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.pages.base import DrawerPage

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

HASH_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's workdir_hash ('' for the global scope)
TYPE_COLUMNS = ("user", "feedback", "project", "reference", "skill", "daily")
# Column order; the headers are set (translated) in retranslate().
(
    COL_FOLDER,
    COL_EXISTS,
    COL_USER,
    COL_FEEDBACK,
    COL_PROJECT,
    COL_REFERENCE,
    COL_SKILL,
    COL_DAILY,
    COL_UNREVIEWED,
    COL_USED,
    COL_HEADROOM,
    COL_LEVEL,
) = range(12)
# Ladder colours (SPEC 1.7): light tints so the text stays readable in both themes' tables.
LADDER_COLORS = {
    "normal": "#dcedc8",
    "notice": "#fff59d",
    "degraded": "#ffcc80",
    "critical": "#ef9a9a",
    "exhausted": "#e57373",
}
LADDER_TEXT_COLOR = "#202020"  # on the tints above, whatever the palette's text colour
MISSING_COLOR = "#c62828"  # a project whose folder is gone


class ProjectsPage(DrawerPage):
    """A table of the store's scopes: counts per type, unreviewed, quota and its ladder level."""

    NAME = "projects"
    ORDER = 40

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.rows: list[dict[str, Any]] = []

        self.table = QTableWidget(0, COL_LEVEL + 1)
        self.table.setObjectName("projectsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long paths keep both ends
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_FOLDER, QHeaderView.ResizeMode.Stretch)
        self.empty = QLabel()
        self.empty.setObjectName("projectsEmpty")
        self.empty.setWordWrap(True)
        self.count = QLabel()
        self.count.setObjectName("projectsCount")
        self.open_button = QPushButton()
        self.open_button.setObjectName("showMemoriesButton")
        self.open_button.setEnabled(False)

        actions = QHBoxLayout()
        actions.addWidget(self.count)
        actions.addStretch(1)
        actions.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(actions)

        # `activated`: a double-click, or Enter on the current row.
        self.table.activated.connect(lambda _index: self.open_memories())
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.open_button.clicked.connect(self.open_memories)
        self.retranslate()

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Projects")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Folder"),
                self.tr("Exists"),
                self.tr("User"),
                self.tr("Feedback"),
                self.tr("Project"),
                self.tr("Reference"),
                self.tr("Skill"),
                self.tr("Journal"),
                self.tr("Unreviewed"),
                self.tr("Used / limit"),
                self.tr("Headroom"),
                self.tr("Quota level"),
            ]
        )
        self.open_button.setText(self.tr("Show memories"))
        self.open_button.setToolTip(self.tr("Open the Memories page for this row (Enter)"))
        self.empty.setText(
            self.tr(
                "No project has memories yet. When an agent remembers something about a "
                "folder it works in, that project is listed here."
            )
        )
        self._fill()

    def _level_text(self, level: str) -> str:
        names = {
            "normal": self.tr("Normal"),
            "notice": self.tr("Notice"),
            "degraded": self.tr("Degraded"),
            "critical": self.tr("Critical"),
            "exhausted": self.tr("Exhausted"),
        }
        return names.get(level, level)

    # --- loading ----------------------------------------------------------------------------
    async def load(self) -> None:
        """Fetch every project's figures (one command, one query in the store)."""
        try:
            result = await self.client.call("memory_projects", {})
        except Exception as exc:  # shown to the person; the table keeps its rows
            self.error_did_occur.emit(exc)
            return
        self.rows = list(result["projects"])
        self._fill()

    def _fill(self) -> None:
        chosen = self.selected()
        keep = (chosen["scope"], chosen["workdir_hash"]) if chosen else None
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.rows))
        for number, row in enumerate(self.rows):
            for column, item in enumerate(self._items(row)):
                item.setData(HASH_ROLE, row["workdir_hash"])
                self.table.setItem(number, column, item)
            if keep == (row["scope"], row["workdir_hash"]):
                self.table.selectRow(number)
        projects = sum(row["scope"] == "project" for row in self.rows)
        self.empty.setVisible(bool(self.rows) and projects == 0)
        self.count.setText(self.tr("%n projects", "", projects))
        self._on_current()

    def _items(self, row: dict[str, Any]) -> list[QTableWidgetItem]:
        """The cells of one row, in column order."""
        if row["scope"] == "global":
            folder = QTableWidgetItem(self.tr("Global"))
            font = folder.font()
            font.setBold(True)
            folder.setFont(font)
            exists = QTableWidgetItem("—")
        else:
            folder = QTableWidgetItem(
                row["workdir"] or self.tr("Unknown folder (%1)").replace("%1", row["workdir_hash"])
            )
            if row["folder_exists"] is None:
                exists = QTableWidgetItem(self.tr("Unknown"))
            elif row["folder_exists"]:
                exists = QTableWidgetItem(self.tr("Yes"))
            else:
                exists = QTableWidgetItem(self.tr("Missing"))
                exists.setForeground(QBrush(QColor(MISSING_COLOR)))
                folder.setForeground(QBrush(QColor(MISSING_COLOR)))
                exists.setToolTip(self.tr("The folder was moved or deleted; its memories remain."))
        if row["workdir_hash"]:
            key = self.tr("Project key: %1").replace("%1", row["workdir_hash"])
            folder.setToolTip(f"{row['workdir']}\n{key}" if row["workdir"] else key)
        else:
            folder.setToolTip(self.tr("Memories shared by every project"))
        counts = [QTableWidgetItem(str(row["counts"].get(t, 0))) for t in TYPE_COLUMNS]
        unreviewed = QTableWidgetItem(str(row["unreviewed"]))
        used = QTableWidgetItem(f"{row['used']} / {row['limit']}")
        headroom = QTableWidgetItem(str(row["headroom"]))
        level = QTableWidgetItem(self._level_text(row["ladder"]))
        level.setBackground(QBrush(QColor(LADDER_COLORS.get(row["ladder"], "#ffffff"))))
        level.setForeground(QBrush(QColor(LADDER_TEXT_COLOR)))
        level.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        for item in (*counts, unreviewed, used, headroom):
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return [folder, exists, *counts, unreviewed, used, headroom, level]

    async def prepare_screenshot(self) -> None:
        """Select the first project, so the action button shows enabled."""
        self.table.selectRow(1 if len(self.rows) > 1 else 0)

    # --- actions ----------------------------------------------------------------------------
    def selected(self) -> dict[str, Any] | None:
        """The row chosen in the table (its memory_projects entry), if any."""
        row = self.table.currentRow()
        if not 0 <= row < len(self.rows) or not self.table.selectionModel().hasSelection():
            return None
        return self.rows[row]

    def _on_current(self, *_args: QModelIndex) -> None:
        self.open_button.setEnabled(self.selected() is not None)

    def open_memories(self) -> None:
        """Show the Memories page, narrowed to the chosen project when that page can do it."""
        row = self.selected()
        if row is None:
            return
        self.context.open_page("memories")
        # The Memories page may offer `show_project(workdir_hash)` ('' = the global scope);
        # the window is the one place that knows every page.
        find = getattr(self.window(), "page", None)
        if not callable(find):
            return
        try:
            memories = find("memories")
        except KeyError:
            return
        show = getattr(memories, "show_project", None)
        if callable(show):
            show(row["workdir_hash"])

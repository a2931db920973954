"""The cells of one row of the Projects page's table: a scope's folder (every path a portable
project was seen at, issue 19), whether it is there, its counts, quota and ladder level.

The words stay in the page's translation context ("ProjectsPage"), so they translate as the
page's own (docs/ARCHITECTURE.md "Inside the app").
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTableWidgetItem

from liveagent_memory.ui.strings import quota_level_text

TYPE_COLUMNS = ("user", "feedback", "project", "reference", "skill", "daily")
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


def row_items(row: dict[str, Any]) -> list[QTableWidgetItem]:
    """The cells of one memory_projects row, in the table's column order."""
    if row["scope"] == "global":
        folder = QTableWidgetItem(QCoreApplication.translate("ProjectsPage", "Global"))
        font = folder.font()
        font.setBold(True)
        folder.setFont(font)
        folder.setToolTip(
            QCoreApplication.translate("ProjectsPage", "Memories shared by every project")
        )
        exists = QTableWidgetItem("—")
    else:
        folder, exists = _folder_items(row)
    counts = [QTableWidgetItem(str(row["counts"].get(t, 0))) for t in TYPE_COLUMNS]
    unreviewed = QTableWidgetItem(str(row["unreviewed"]))
    used = QTableWidgetItem(f"{row['used']} / {row['limit']}")
    headroom = QTableWidgetItem(str(row["headroom"]))
    level = QTableWidgetItem(quota_level_text(row["ladder"]))
    level.setBackground(QBrush(QColor(LADDER_COLORS.get(row["ladder"], "#ffffff"))))
    level.setForeground(QBrush(QColor(LADDER_TEXT_COLOR)))
    level.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    for item in (*counts, unreviewed, used, headroom):
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return [folder, exists, *counts, unreviewed, used, headroom, level]


def _folder_items(row: dict[str, Any]) -> tuple[QTableWidgetItem, QTableWidgetItem]:
    """A project's folder cell (this machine's path first, then the other paths it was seen
    at, one a line) and its "exists" cell."""
    key = row["workdir_hash"]
    shown = row["workdir"] or QCoreApplication.translate("ProjectsPage", "Unknown folder (%1)")
    shown = shown.replace("%1", key)
    others = [_path_text(p) for p in row.get("paths", []) if p["path"] != row["workdir"]]
    folder = QTableWidgetItem("\n".join([shown, *others]))
    if row["folder_exists"] is None:
        exists = QTableWidgetItem(QCoreApplication.translate("ProjectsPage", "Unknown"))
    elif row["folder_exists"]:
        exists = QTableWidgetItem(QCoreApplication.translate("ProjectsPage", "Yes"))
    else:
        exists = QTableWidgetItem(QCoreApplication.translate("ProjectsPage", "Missing"))
        exists.setForeground(QBrush(QColor(MISSING_COLOR)))
        folder.setForeground(QBrush(QColor(MISSING_COLOR)))
        exists.setToolTip(
            QCoreApplication.translate(
                "ProjectsPage", "The folder was moved or deleted; its memories remain."
            )
        )
    tip = [row["workdir"]] if row["workdir"] else []
    tip += others
    tip.append(QCoreApplication.translate("ProjectsPage", "Project key: %1").replace("%1", key))
    if row.get("project_id"):
        tip.append(
            QCoreApplication.translate("ProjectsPage", "Found on every machine by: %1").replace(
                "%1", row["project_id"]
            )
        )
    if len(row.get("folders", [])) > 1:
        tip.append(
            QCoreApplication.translate(
                "ProjectsPage", "Kept in %1 folders; searches read the first: %2"
            )
            .replace("%1", str(len(row["folders"])))
            .replace("%2", ", ".join(row["folders"]))
        )
    if row.get("marker_problem"):
        tip.append(
            QCoreApplication.translate(
                "ProjectsPage", "Its .workdir.json cannot be read: the folder it names is unknown."
            )
        )
    folder.setToolTip("\n".join(tip))
    return folder, exists


def _path_text(path: dict[str, Any]) -> str:
    """Another path of the project, with the machine it was seen on when known."""
    if path.get("machine"):
        return (
            QCoreApplication.translate("ProjectsPage", "%1 (on %2)")
            .replace("%1", path["path"])
            .replace("%2", path["machine"])
        )
    return str(path["path"])

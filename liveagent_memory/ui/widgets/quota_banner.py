"""The quota banner: shown on every page while the memory space is not `normal` (SPEC 1.7)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from liveagent_memory.ui.resources import icon
from liveagent_memory.ui.strings import quota_level_text

ICON_SIZE = 20


class QuotaBanner(QFrame):
    """A one-line warning with the tightest scope's figures and a button to the organizer.

    Signals:
        organize_requested: the person asked to open the organizer.
    """

    organize_requested = Signal()

    def __init__(self, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("quotaBanner")
        self.summary: dict[str, Any] | None = None
        self.icon = QLabel()
        self.icon.setPixmap(icon("warning").pixmap(QSize(ICON_SIZE, ICON_SIZE)))
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.button = QPushButton()
        self.button.clicked.connect(self.organize_requested.emit)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.icon)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self.retranslate()
        self.setVisible(False)

    @property
    def level(self) -> str:
        return str(self.summary["ladder"]) if self.summary else "normal"

    def show_summary(self, summary: dict[str, Any]) -> None:
        """Show `memory_quota_summary`'s result; hidden while the ladder is normal."""
        self.summary = summary
        self.setProperty("level", self.level)
        self.style().unpolish(self)  # a dynamic property changed: re-apply the stylesheet
        self.style().polish(self)
        self.retranslate()
        self.setVisible(self.level != "normal")

    def _level_text(self) -> str:
        """How full the memory space is, in the words every page uses (ui/strings.py)."""
        text = self.tr("Memory space: %1.").replace("%1", quota_level_text(self.level))
        if self.level == "exhausted":
            text += " " + self.tr("New memories will be refused.")
        return text

    def retranslate(self) -> None:
        self.button.setText(self.tr("Open organizer"))
        self.button.setToolTip(self.tr("Merge and prune memories to make room"))
        if not self.summary or self.level == "normal":
            self.text.setText("")
            return
        tight = min(self.summary["scopes"], key=lambda s: s["headroom"])
        where = (
            self.tr("Global memories")
            if tight["scope"] == "global"
            else self.tr("Project %1").replace("%1", tight.get("workdir") or tight["workdir_hash"])
        )
        figures = (
            self.tr("%1: %2 of %3 used, %4 left, %5 unreviewed.")
            .replace("%1", where)
            .replace("%2", str(tight["used"]))
            .replace("%3", str(tight["limit"]))
            .replace("%4", str(tight["headroom"]))
            .replace("%5", str(tight["unreviewed"]))
        )
        self.text.setText(f"<b>{html.escape(self._level_text())}</b> {html.escape(figures)}")

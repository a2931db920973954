"""A one-line label that never widens its window: the text is cut with "…" to the space it
gets, and the whole text is its tooltip.

Why: a plain QLabel asks for the width of its whole text as its minimum. One long status line
("Last run: succeeded — 545 memories in 114 clusters; …") made the Organizer page, and so the
window with every page, 1,471 px wide.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARS = 8  # the narrowest it gets: a few characters and "…"


class ElidedLabel(QLabel):
    """A QLabel for one line of plain text that shrinks to `MIN_CHARS`, eliding the rest.

    `text()` stays the whole text (tests and callers read it); only the painting is cut.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance("M" * MIN_CHARS) + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def elided(self) -> bool:
        """Whether the text is cut at the current width."""
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def paintEvent(self, event: QPaintEvent) -> None:
        rect = self.contentsRect()
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            rect,
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            shown,
            self.foregroundRole(),
        )

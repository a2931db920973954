"""The internal-error line: a bug's message, shown until dismissed or replaced by the next."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from liveagent_memory.ui.resources import icon

ICON_SIZE = 20


class ErrorBar(QFrame):
    """Says that something failed that is not an expected, typed error: a bug in the app.

    Expected failures (MemoryDomainError) go to the status bar; this line is for the rest.
    Unlike a status-bar message it does not time out, so a bug is not missed; the traceback
    is in the log (the window logs it before showing this).
    """

    def __init__(self, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBar")
        self.failure: BaseException | None = None
        self.icon = QLabel()
        self.icon.setPixmap(icon("warning").pixmap(QSize(ICON_SIZE, ICON_SIZE)))
        self.text = QLabel()
        self.text.setObjectName("errorBarText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # an exception's text is not markup
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dismiss_button = QPushButton()
        self.dismiss_button.setObjectName("errorBarDismiss")
        self.dismiss_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.icon)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.dismiss_button)
        self.retranslate()
        self.setVisible(False)

    def show_failure(self, exc: BaseException) -> None:
        """Show `exc` (replacing what was shown) until dismissed."""
        self.failure = exc
        self.retranslate()
        self.setVisible(True)

    def dismiss(self) -> None:
        """Hide the line (the person has read it)."""
        self.failure = None
        self.setVisible(False)

    def retranslate(self) -> None:
        self.dismiss_button.setText(self.tr("Dismiss"))
        if self.failure is None:
            self.text.setText("")
            return
        first_line = (str(self.failure).strip().splitlines() or [""])[0]
        what = type(self.failure).__name__ + (f": {first_line}" if first_line else "")
        self.text.setText(
            self.tr(
                "Internal error: %1. This is a bug in the app, not something you did; the "
                "details are in the log. The page may be out of date: View → Refresh reloads it."
            ).replace("%1", what)
        )

"""The Organizer page's compare view: the memories of a proposed merge side by side, the kept
one first, beside the merged text, which a person may edit before it is applied.

What is written is the text in the editor; it passes the same gates as any write (size,
secrets) when it is applied (`organize_apply` with `edits`), and a refusal applies nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

COLUMN_MIN_WIDTH = 180  # a column still shows a sentence a line; more columns scroll sideways
SIZE_SHARE = 0.9  # of the window the dialog opens over


@dataclass(frozen=True)
class ComparedMemory:
    """One memory of the merge as it is now (`text` None: it no longer exists)."""

    slug: str
    kept: bool  # the merge's target (its text is kept; the others are merged in and deleted)
    description: str
    text: str | None


class CompareDialog(QDialog):
    """Each memory of a merge in a column, then the merged text in an editor.

    `choice` says how it closed: "use" (keep the edited text for the queue), "apply" (keep it
    and apply this merge now) or "" (cancelled: the text stays as it was).
    """

    def __init__(
        self,
        memories: list[ComparedMemory],
        *,
        merged: str,
        proposal: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("organizerCompare")
        self.choice = ""
        self.proposal = proposal
        kept = next((m.slug for m in memories if m.kept), "")
        self.setWindowTitle(self.tr("Compare and edit the merge into %1").replace("%1", kept))
        self.heading = QLabel(
            self.tr(
                "The memories of this merge side by side, and the text that will replace "
                "%1. Edit it before you apply; the others move to the trash."
            ).replace("%1", kept)
        )
        self.heading.setWordWrap(True)
        self.columns = QSplitter(Qt.Orientation.Horizontal)
        self.columns.setChildrenCollapsible(False)
        self.sources: list[QPlainTextEdit] = []
        for memory in memories:
            self.columns.addWidget(self._memory_column(memory))
        scroll = QScrollArea()  # many memories scroll sideways; the merged text stays in view
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.columns)
        self.editor = QPlainTextEdit(merged)
        self.editor.setObjectName("compareMerged")
        self.panes = QSplitter(Qt.Orientation.Horizontal)
        self.panes.setChildrenCollapsible(False)
        self.panes.addWidget(scroll)
        self.panes.addWidget(self._merged_column())
        self.panes.setStretchFactor(0, 3)
        self.panes.setStretchFactor(1, 2)
        self._build(self.panes)
        if parent is not None:
            size = parent.window().size()
            self.resize(int(size.width() * SIZE_SHARE), int(size.height() * SIZE_SHARE))

    def _memory_column(self, memory: ComparedMemory) -> QWidget:
        title = (
            self.tr("%1 (kept)") if memory.kept else self.tr("%1 (merged in, then deleted)")
        ).replace("%1", memory.slug)
        text = QPlainTextEdit(
            memory.text if memory.text is not None else self.tr("(This memory no longer exists.)")
        )
        text.setObjectName("compareSource")
        text.setReadOnly(True)
        self.sources.append(text)
        return self._column(title, memory.description, text)

    def _merged_column(self) -> QWidget:
        return self._column(
            self.tr("Merged text (what will be written)"),
            self.tr("Checked for secrets and size when it is applied."),
            self.editor,
        )

    @staticmethod
    def _column(title: str, note: str, text: QPlainTextEdit) -> QWidget:
        column = QWidget()
        column.setMinimumWidth(COLUMN_MIN_WIDTH)
        heading = QLabel(title)
        heading.setStyleSheet("font-weight: 600;")
        heading.setWordWrap(True)
        detail = QLabel(note)
        detail.setProperty("role", "muted")
        detail.setWordWrap(True)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading)
        layout.addWidget(detail)
        layout.addWidget(text, 1)
        return column

    def _build(self, panes: QWidget) -> None:
        self.reset_button = QPushButton(self.tr("Back to the proposal"))
        self.reset_button.setObjectName("compareReset")
        self.reset_button.clicked.connect(lambda: self.editor.setPlainText(self.proposal))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("compareCancel")
        self.cancel_button.clicked.connect(self.reject)
        self.use_button = QPushButton(self.tr("Use this text"))
        self.use_button.setObjectName("compareUse")
        self.use_button.setToolTip(self.tr("Keep the text for this merge; apply it later"))
        self.use_button.clicked.connect(lambda: self._close_with("use"))
        self.apply_button = QPushButton(self.tr("Apply this merge"))
        self.apply_button.setObjectName("compareApply")
        self.apply_button.setProperty("primary", True)
        self.apply_button.clicked.connect(lambda: self._close_with("apply"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.reset_button)
        buttons.addStretch(1)
        for button in (self.cancel_button, self.use_button, self.apply_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(panes, 1)
        layout.addLayout(buttons)

    def merged_text(self) -> str:
        """The text in the editor: what the merge writes if it is used."""
        return self.editor.toPlainText()

    def _close_with(self, choice: str) -> None:
        self.choice = choice
        self.accept()

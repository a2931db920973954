"""Two versions of one memory (issue 19): a sync conflict side by side, and a person's choice.

A file-sync tool that met an edit on two machines kept both versions (store/conflicts.py);
the Memories page's problems list offers "Resolve…" on such a row, and this dialog shows the
two texts the way the organizer shows a contradiction (organizer_contradictions.py: both
sides, what differs marked in each) with three answers: keep this version, keep the other,
or edit a merged text. The page sends the answer (`sync_resolve`); the version that loses
stays in the memory's history.
"""

from __future__ import annotations

import difflib
import html
import re
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.pages.organizer_contradictions import MARK_STYLE, VIEW_MARGIN

DIALOG_SIZE = (860, 520)  # both texts readable side by side inside a 1024×640 window
_TOKEN = re.compile(r"\w+|\W", re.UNICODE)  # words, and every other character alone


def differing_words(text: str, other: str) -> list[str]:
    """The words of `text` in runs that `other` does not share, in order (a word diff)."""
    mine, theirs = _TOKEN.findall(text), _TOKEN.findall(other)
    matcher = difflib.SequenceMatcher(None, mine, theirs, autojunk=False)
    return [
        token
        for tag, start, end, _, _ in matcher.get_opcodes()
        if tag != "equal"
        for token in mine[start:end]
        if any(ch.isalnum() for ch in token)
    ]


def diff_html(text: str, other: str) -> str:
    """`text` as HTML (line breaks kept) with the runs `other` does not share marked, in the
    contradiction view's colour."""
    mine, theirs = _TOKEN.findall(text), _TOKEN.findall(other)
    matcher = difflib.SequenceMatcher(None, mine, theirs, autojunk=False)
    out = []
    for tag, start, end, _, _ in matcher.get_opcodes():
        chunk = html.escape("".join(mine[start:end]))
        marked = tag != "equal" and any(ch.isalnum() for ch in "".join(mine[start:end]))
        out.append(f'<span style="{MARK_STYLE}">{chunk}</span>' if marked else chunk)
    return "".join(out).replace("\n", "<br>")


class SyncConflictDialog(QDialog):
    """The two versions of a memory side by side; `answer()` says what the person chose:
    ("original" | "copy" | "merged", the merged text or None) once it closed accepted."""

    def __init__(self, versions: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("syncConflictDialog")
        self.versions = versions
        self.choice = ""
        self.setWindowTitle(self.tr("Two versions of one memory"))
        self.heading = QLabel(
            self.tr(
                "A sync tool kept two versions of %1. Keep one, or write the text that joins "
                "them; the other version stays in the memory's history."
            ).replace("%1", versions["original_path"])
        )
        self.heading.setWordWrap(True)
        self.views = {side: QTextBrowser() for side in ("original", "copy")}
        for side, view in self.views.items():
            view.setObjectName(f"syncConflict{side.title()}")
            view.setOpenLinks(False)
            view.document().setDocumentMargin(VIEW_MARGIN)
            view.setHtml(self._side_html(side))
        self.editor = QPlainTextEdit(str(versions["original"]))
        self.editor.setObjectName("syncConflictMerged")
        self.stack = QStackedWidget()
        sides = QWidget()
        row = QHBoxLayout(sides)
        row.setContentsMargins(0, 0, 0, 0)
        for view in self.views.values():
            row.addWidget(view, 1)
        self.stack.addWidget(sides)
        self.stack.addWidget(self.editor)
        self._build_buttons()
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.stack, 1)
        layout.addLayout(self.button_row)
        self.resize(*DIALOG_SIZE)

    def _side_html(self, side: str) -> str:
        markers = self.versions["path"] == self.versions["original_path"]  # else a copy
        if side == "original":
            title = self.tr("Its first side (ours)") if markers else self.tr("This version")
            path = self.versions["original_path"]
        else:
            title = self.tr("Its second side (theirs)") if markers else self.tr("The other version")
            path = self.versions["path"]
        other = "copy" if side == "original" else "original"
        text = str(self.versions[side] or "")
        head = f"<b>{html.escape(title)}</b><br><code>{html.escape(path)}</code>"
        return f"<p>{head}</p><p>{diff_html(text, str(self.versions[other] or ''))}</p>"

    def _build_buttons(self) -> None:
        self.keep_original_button = QPushButton(self.tr("Keep this version"))
        self.keep_original_button.setObjectName("syncKeepOriginal")
        self.keep_copy_button = QPushButton(self.tr("Keep the other version"))
        self.keep_copy_button.setObjectName("syncKeepCopy")
        self.edit_button = QPushButton(self.tr("Edit a merged text…"))
        self.edit_button.setObjectName("syncEditMerged")
        self.save_button = QPushButton(self.tr("Save the merged text"))
        self.save_button.setObjectName("syncSaveMerged")
        self.save_button.setProperty("primary", True)
        self.save_button.hide()
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("syncCancel")
        self.keep_original_button.clicked.connect(lambda: self._close_with("original"))
        self.keep_copy_button.clicked.connect(lambda: self._close_with("copy"))
        self.edit_button.clicked.connect(self.start_editing)
        self.save_button.clicked.connect(lambda: self._close_with("merged"))
        self.cancel_button.clicked.connect(self.reject)
        self.editor.textChanged.connect(
            lambda: self.save_button.setEnabled(bool(self.editor.toPlainText().strip()))
        )
        self.button_row = QHBoxLayout()
        for button in (self.keep_original_button, self.keep_copy_button, self.edit_button):
            self.button_row.addWidget(button)
        self.button_row.addStretch(1)
        self.button_row.addWidget(self.save_button)
        self.button_row.addWidget(self.cancel_button)

    def start_editing(self) -> None:
        """Show the editor, prefilled with this version's text, instead of the two sides."""
        self.stack.setCurrentWidget(self.editor)
        for button in (self.keep_original_button, self.keep_copy_button, self.edit_button):
            button.hide()
        self.save_button.show()
        self.editor.setFocus()

    def answer(self) -> tuple[str, str | None]:
        """What to keep, and the merged text when that is the answer."""
        text = self.editor.toPlainText() if self.choice == "merged" else None
        return self.choice, text

    def _close_with(self, choice: str) -> None:
        self.choice = choice
        self.accept()

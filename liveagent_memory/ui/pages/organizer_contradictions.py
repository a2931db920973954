"""The Organizer page's contradictions: two memories of a run that disagree, side by side, and
a person's answer (organizer/contradictions.py; issue 15).

The panel asks "These two disagree — which one is current?" over the two memories as they are
now (what differs is marked in both texts and listed below them) and offers the four answers:
keep A, keep B, keep both, or edit (a dialog prefilled with the text that stays). It shows a
run's contradictions one at a time (a picker when there are several) and says how each was
answered, or why it can no longer be (a memory changed since the run). The page runs the
answers (`organize_resolve`) and hands the panel the run's list (`organize_contradictions`).
"""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

MARK_STYLE = "background-color:#ffe08a;color:#1d1d1d"  # what differs, in both texts
SIDES = ("first", "second")
VIEW_MARGIN = 6  # px around a memory's text: tight, so a few lines show at 1024×640
EDIT_SIZE = (560, 320)  # the edit dialog's first size: a few lines of text, the choice above


def _pattern(terms: list[str]) -> re.Pattern[str] | None:
    """What marks `terms` (what differs, as the organizer compared it: folded, English words
    stemmed) in a text: a term's spaces match any spacing ("5 次" marks "5次"), an English
    word's ending may follow ("allow 5" marks "allows 5"), and a number is never part of a
    longer one."""
    words = sorted({" ".join(t.split()) for t in terms if t.strip()}, key=len, reverse=True)
    if not words:
        return None

    def word(part: str) -> str:
        ending = "[A-Za-z]*" if part[-1].isascii() and part[-1].isalpha() else ""
        digits = r"(?!\d)" if part[-1].isdigit() else ""
        return re.escape(part) + ending + digits

    return re.compile("|".join(r"\s*".join(map(word, w.split())) for w in words), re.IGNORECASE)


def marked_html(text: str, terms: list[str]) -> str:
    """`text` as HTML (line breaks kept) with what `terms` names marked (`_pattern`)."""
    pattern = _pattern(terms)
    if pattern is None:
        return html.escape(text).replace("\n", "<br>")
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        out.append(f'<span style="{MARK_STYLE}">{html.escape(match.group(0))}</span>')
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out).replace("\n", "<br>")


def found_phrases(texts: list[str], terms: list[str]) -> list[str]:
    """What `terms` names, as the texts say it (each phrase once, in order); the terms as
    they are when no text says them."""
    pattern = _pattern(terms)
    found = [m.group(0).strip() for t in texts for m in pattern.finditer(t)] if pattern else []
    return list(dict.fromkeys(found)) or list(terms)


class ContradictionPanel(QWidget):
    """A run's contradictions, one at a time: the question, both memories, the answers.

    Signals:
        answer_requested(str, str, object, str): the contradiction's key, the resolution
            (keep_first | keep_second | keep_both | edit), the edit (None unless edit: its
            `body` and `description`) and which memory stays with it (first | second).
    """

    answer_requested = Signal(str, str, object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("organizerContradictions")
        self.items: list[dict[str, Any]] = []  # organize_contradictions' list
        self.edit_dialog: ContradictionEditDialog | None = None  # the open editor, if any
        self.picker = QComboBox()
        self.picker.setObjectName("contradictionPicker")
        self.picker.currentIndexChanged.connect(lambda _index: self._render())
        self.question = QLabel()
        self.question.setObjectName("contradictionQuestion")
        self.question.setProperty("role", "heading")
        self.question.setWordWrap(True)
        self.views = {side: QTextBrowser() for side in SIDES}
        for side, view in self.views.items():
            view.setObjectName(f"contradiction{side.title()}")
            view.setOpenLinks(False)
            view.document().setDocumentMargin(VIEW_MARGIN)
        self.differs = QLabel()
        self.differs.setObjectName("contradictionDiffers")
        self.differs.setProperty("role", "muted")
        self.differs.setWordWrap(True)
        self.state_line = QLabel()
        self.state_line.setObjectName("contradictionState")
        self.state_line.setWordWrap(True)
        self._build_buttons()
        self._lay_out()

    def _build_buttons(self) -> None:
        self.keep_first_button = QPushButton()
        self.keep_first_button.setObjectName("contradictionKeepFirst")
        self.keep_second_button = QPushButton()
        self.keep_second_button.setObjectName("contradictionKeepSecond")
        self.keep_both_button = QPushButton()
        self.keep_both_button.setObjectName("contradictionKeepBoth")
        self.edit_button = QPushButton()
        self.edit_button.setObjectName("contradictionEdit")
        self.keep_first_button.clicked.connect(lambda: self._answer("keep_first"))
        self.keep_second_button.clicked.connect(lambda: self._answer("keep_second"))
        self.keep_both_button.clicked.connect(lambda: self._answer("keep_both"))
        self.edit_button.clicked.connect(self.open_editor)

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.picker)
        sides = QHBoxLayout()
        for view in self.views.values():
            sides.addWidget(view, 1)
        buttons = QHBoxLayout()
        for button in self.buttons():
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(sides, 1)
        layout.addWidget(self.differs)
        layout.addLayout(buttons)
        layout.addWidget(self.state_line)

    def buttons(self) -> list[QPushButton]:
        """The four answers, in the order shown."""
        return [
            self.keep_first_button,
            self.keep_second_button,
            self.keep_both_button,
            self.edit_button,
        ]

    def retranslate(self) -> None:
        """Set every visible string (the page calls it once laid out and on a switch)."""
        self.question.setText(self.tr("These two disagree — which one is current?"))
        self.keep_first_button.setText(self.tr("Keep A"))
        self.keep_second_button.setText(self.tr("Keep B"))
        self.keep_both_button.setText(self.tr("Keep both"))
        self.keep_both_button.setToolTip(
            self.tr("Both stay as they are; later runs do not ask again while neither changes")
        )
        self.edit_button.setText(self.tr("Edit…"))
        self.edit_button.setToolTip(
            self.tr(
                "Write the current text: it is kept, reviewed, and the other moves to the trash"
            )
        )
        self.show_items(self.items, keep=True)

    # --- the contradictions shown ---------------------------------------------------------
    def show_items(self, items: list[dict[str, Any]], *, keep: bool = False) -> bool:
        """Show a run's contradictions (organize_contradictions' list); with `keep`, the one
        shown stays current. False when there are none."""
        current = self.current()
        key = current["key"] if keep and current else None
        self.items = list(items)
        self.picker.blockSignals(True)
        try:
            self.picker.clear()
            for item in self.items:
                self.picker.addItem(self._pick_text(item), item["key"])
            keys = [item["key"] for item in self.items]
            first_open = next((i for i, item in enumerate(self.items) if item["open"]), 0)
            self.picker.setCurrentIndex(keys.index(key) if key in keys else first_open)
        finally:
            self.picker.blockSignals(False)
        self.picker.setVisible(len(self.items) > 1)
        self._render()
        return bool(self.items)

    def _pick_text(self, item: dict[str, Any]) -> str:
        mark = "✓ " if item["state"]["status"] == "resolved" else ""
        return f"{mark}{item['number'] + 1}. {item['first']['slug']} / {item['second']['slug']}"

    def current(self) -> dict[str, Any] | None:
        """The contradiction shown (None when there is none)."""
        index = self.picker.currentIndex()
        return self.items[index] if 0 <= index < len(self.items) else None

    def _render(self) -> None:
        item = self.current()
        if item is None:
            for view in self.views.values():
                view.clear()
            self.differs.setText("")
            self.state_line.setText("")
            self.update_buttons()
            return
        for side, view in self.views.items():
            view.setHtml(self._side_html(item, side))
        self.differs.setText(self._differs_text(item))
        self.keep_first_button.setToolTip(self._keep_tip(item, "first", "second"))
        self.keep_second_button.setToolTip(self._keep_tip(item, "second", "first"))
        state = self._state_text(item)
        self.state_line.setText(state)
        self.state_line.setVisible(bool(state))
        self.update_buttons()

    def _side_html(self, item: dict[str, Any], side: str) -> str:
        memory = item[side]
        letter = "A" if side == "first" else "B"  # the same letters in every language
        head = f"<b>{html.escape(letter)}</b> · <code>{html.escape(memory['slug'])}</code>"
        if not memory["exists"]:
            gone = self.tr("This memory no longer exists.")
            return f"<p>{head}<br><i>{html.escape(gone)}</i></p>"
        terms = [word for d in item["differences"] for word in d.get(side) or []]
        description = marked_html(memory["description"], terms)
        text = marked_html(memory["text"], terms)
        return f"<p>{head}<br><i>{description}</i></p><p>{text}</p>"

    def _differs_text(self, item: dict[str, Any]) -> str:
        """What differs, as each text says it: "A: allows 5 · B: allows 10"."""
        parts = []
        for side, letter in zip(SIDES, ("A", "B"), strict=True):
            terms = [word for d in item["differences"] for word in d.get(side) or []]
            memory = item[side]
            said = found_phrases([memory["description"], memory["text"]], terms) if terms else []
            if said:
                parts.append(f"{letter}: {', '.join(said)}")
        if not parts:
            return ""
        return self.tr("What differs: %1").replace("%1", " · ".join(parts))

    def _keep_tip(self, item: dict[str, Any], keep: str, gone: str) -> str:
        return (
            self.tr("Keep %1; %2 moves to the trash (it can be restored)")
            .replace("%1", item[keep]["slug"])
            .replace("%2", item[gone]["slug"])
        )

    def _state_text(self, item: dict[str, Any]) -> str:
        """How it was answered, or why it cannot be ('' while it waits for an answer)."""
        state = item["state"]
        if state["status"] == "resolved":
            kept = ", ".join(state.get("kept") or [])
            return {
                "keep_first": self.tr("Answered: %1 kept, the other moved to the trash."),
                "keep_second": self.tr("Answered: %1 kept, the other moved to the trash."),
                "keep_both": self.tr("Answered: both kept (%1)."),
                "edit": self.tr("Answered: %1 now holds your text, the other moved to the trash."),
            }.get(str(state.get("resolution")), self.tr("Answered.")).replace("%1", kept)
        if item["stale"]:
            return self.tr(
                "A memory changed or was deleted since this run: run the organizer again to "
                "compare them as they are now."
            )
        if not item["open"]:
            return self.tr("This run stored nothing to answer (a dry run).")
        if state["status"] == "failed":
            return self.tr("The last answer failed (%1); try again.").replace(
                "%1", str(state.get("error"))
            )
        return ""

    def update_buttons(self, *, busy: bool = False) -> None:
        """The answers are on while the contradiction shown can be answered."""
        item = self.current()
        can = item is not None and bool(item["open"]) and not busy
        for button in self.buttons():
            button.setEnabled(can)

    # --- answering ------------------------------------------------------------------------
    def _answer(
        self, resolution: str, edit: dict[str, str] | None = None, keep: str = "first"
    ) -> None:
        item = self.current()
        if item is None or not item["open"]:
            return
        self.update_buttons(busy=True)  # one answer at a time; the page shows the outcome
        self.answer_requested.emit(item["key"], resolution, edit, keep)

    def open_editor(self) -> None:
        """Open the editor of the current text, prefilled with A's (the choice of which
        memory stays switches the prefill while it is unedited)."""
        item = self.current()
        if item is None or not item["open"] or self.edit_dialog is not None:
            return
        dialog = ContradictionEditDialog(item, parent=self)
        dialog.finished.connect(lambda result: self._editor_closed(dialog, result))
        self.edit_dialog = dialog
        dialog.open()

    def _editor_closed(self, dialog: ContradictionEditDialog, result: int) -> None:
        self.edit_dialog = None
        dialog.deleteLater()
        if result == QDialog.DialogCode.Accepted:
            edit = {"body": dialog.text(), "description": dialog.description()}
            self._answer("edit", edit, dialog.keep())


class ContradictionEditDialog(QDialog):
    """The current text of a contradiction, written by the person: which memory stays (A by
    default), its description and its text, prefilled with that memory's (the old description
    may state the old value: "Checkout API: 5 requests per second")."""

    def __init__(self, item: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contradictionEditDialog")
        self.setWindowTitle(self.tr("Write the current text"))
        self.item = item
        self.keep_choice = QComboBox()
        self.keep_choice.setObjectName("contradictionKeepChoice")
        for side, letter in zip(SIDES, ("A", "B"), strict=True):
            if item[side]["exists"]:
                label = self.tr("Keep %1 (%2) with this text").replace("%1", letter)
                self.keep_choice.addItem(label.replace("%2", item[side]["slug"]), side)
        self.description_edit = QLineEdit(self._prefill(self.keep(), "description"))
        self.description_edit.setObjectName("contradictionDescription")
        self.description_edit.setPlaceholderText(self.tr("Description (one line)"))
        self.editor = QPlainTextEdit(self._prefill(self.keep()))
        self.editor.setObjectName("contradictionEditor")
        self.keep_choice.currentIndexChanged.connect(self._switch)
        hint = QLabel(self.tr("It is saved as reviewed; the other memory moves to the trash."))
        hint.setProperty("role", "muted")
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText(self.tr("Save as current"))
        self.editor.textChanged.connect(self._enable_save)
        self.description_edit.textChanged.connect(self._enable_save)
        fields = QFormLayout()
        fields.addRow(self.tr("Description"), self.description_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(self.keep_choice)
        layout.addLayout(fields)
        layout.addWidget(self.editor, 1)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.resize(*EDIT_SIZE)

    def keep(self) -> str:
        """Which memory stays: first | second."""
        return str(self.keep_choice.currentData() or "first")

    def text(self) -> str:
        return self.editor.toPlainText()

    def description(self) -> str:
        return self.description_edit.text().strip()

    def _enable_save(self) -> None:
        self.save_button.setEnabled(bool(self.text().strip() and self.description()))

    def _prefill(self, side: str, part: str = "text") -> str:
        return str(self.item[side][part])

    def _switch(self, _index: int) -> None:
        # Unedited fields follow the choice; a person's own words are never thrown away.
        shown = [side for side in SIDES if self.item[side]["exists"]]
        if self.text() in (self._prefill(side) for side in shown):
            self.editor.setPlainText(self._prefill(self.keep()))
        if self.description() in (self._prefill(side, "description") for side in shown):
            self.description_edit.setText(self._prefill(self.keep(), "description"))

"""The dialog that creates a memory or edits one: text, type, description and evidence."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain.config import MAX_DESCRIPTION_CHARS
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType
from liveagent_memory.domain.skills import TEMPLATE as SKILL_TEMPLATE
from liveagent_memory.ui.strings import error_detail, error_text

# The writable types (SPEC 1.2), in the schema's order: the order the Type box offers them.
TYPES = tuple(t.value for t in MemoryType if t in WRITABLE_TYPES)
CONFIDENCES = (None, "high", "medium", "low")  # None: no evidence given
ERROR_STYLE = "color: #a33a2f;"  # the stylesheet has no error role for labels yet


def split_aliases(text: str) -> list[str]:
    """Comma- (or 、/，-) separated aliases, trimmed, empties dropped."""
    for mark in ("，", "、"):
        text = text.replace(mark, ",")
    return [part.strip() for part in text.split(",") if part.strip()]


class MemoryEditor(QDialog):
    """Create (no `data`) or edit (`data` = a memory_read result) one memory.

    The dialog checks only what it can see (nothing left empty); the core checks the rest
    and the page shows its answer with `show_error`, leaving every field as typed. The page
    closes the dialog (`accept()`) once the save succeeded.

    Signals:
        save_requested(dict): Save was pressed; the values as `values()` returns them.
    """

    save_requested = Signal(dict)

    def __init__(
        self,
        *,
        data: dict[str, Any] | None = None,
        projects: list[str] | None = None,
        scope: str = "global",
        workdir: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("memory_editor")
        self.data = data
        self.creating = data is None
        self.failure: MemoryDomainError | None = None  # the typed error shown, re-labelled
        self._build_fields(projects or [])
        self._build_layout()
        self.buttons.accepted.connect(self._save_clicked)
        self.buttons.rejected.connect(self.reject)
        self.scope.currentIndexChanged.connect(lambda _i: self._scope_changed())
        self.type.currentIndexChanged.connect(lambda _i: self._type_changed())
        self.retranslate()
        self._fill(scope, workdir)

    def _build_fields(self, projects: list[str]) -> None:
        self.slug = QLineEdit()
        self.slug.setObjectName("editor_slug")
        self.scope = QComboBox()
        self.scope.setObjectName("editor_scope")
        self.workdir = QComboBox()
        self.workdir.setObjectName("editor_workdir")
        self.workdir.setEditable(True)  # a folder with no memories yet can be typed in
        self.workdir.addItems(projects)
        self.type = QComboBox()
        self.type.setObjectName("editor_type")
        self.description = QLineEdit()
        self.description.setObjectName("editor_description")
        self.description.setMaxLength(MAX_DESCRIPTION_CHARS)
        self.body = QPlainTextEdit()
        self.body.setObjectName("editor_body")
        self.body.setTabChangesFocus(True)
        self.confidence = QComboBox()
        self.confidence.setObjectName("editor_confidence")
        self.quote = QLineEdit()
        self.quote.setObjectName("editor_quote")
        self.reasoning = QLineEdit()
        self.reasoning.setObjectName("editor_reasoning")
        self.aliases = QLineEdit()
        self.aliases.setObjectName("editor_aliases")
        self.contract = QLabel()
        self.contract.setProperty("role", "muted")
        self.contract.setWordWrap(True)
        self.error = QLabel()
        self.error.setObjectName("editor_error")
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        assert save is not None
        self.save_button: QPushButton = save
        self.save_button.setProperty("primary", True)
        self.save_button.setObjectName("editor_save")

    def _build_layout(self) -> None:
        """The memory's fields, its body, the evidence box, the error line and the buttons."""
        self.form = QFormLayout()
        self.evidence_box = QGroupBox()
        self.evidence_form = QFormLayout(self.evidence_box)
        self.labels: dict[QWidget, QLabel] = {}
        for form, fields in (
            (self.form, (self.slug, self.scope, self.workdir, self.type, self.description)),
            (self.evidence_form, (self.confidence, self.quote, self.reasoning, self.aliases)),
        ):
            for field in fields:
                label = self.labels[field] = QLabel()
                label.setBuddy(field)
                form.addRow(label, field)
        self.evidence_form.addRow(self.contract)
        self.body_label = QLabel()
        self.body_label.setBuddy(self.body)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.body_label)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.evidence_box)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(640, 640)

    # --- labels -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        if self.creating:
            self.setWindowTitle(self.tr("New memory"))
        else:
            assert self.data is not None
            self.setWindowTitle(self.tr("Edit %1").replace("%1", self.data["entry"]["slug"]))
        labels: tuple[tuple[QWidget, str], ...] = (
            (self.slug, self.tr("&Slug")),
            (self.scope, self.tr("S&cope")),
            (self.workdir, self.tr("Project &folder")),
            (self.type, self.tr("&Type")),
            (self.description, self.tr("&Description")),
            (self.confidence, self.tr("C&onfidence")),
            (self.quote, self.tr("Source &quote")),
            (self.reasoning, self.tr("&Reasoning")),
            (self.aliases, self.tr("&Aliases")),
        )
        for field, text in labels:
            self.labels[field].setText(text)
        self.slug.setPlaceholderText(self.tr("lowercase-words-with-dashes, e.g. tea-preference"))
        self.description.setPlaceholderText(self.tr("One line the agent sees in its index"))
        self.body.setPlaceholderText(self.tr("What to remember (Markdown)"))
        self.quote.setPlaceholderText(self.tr("The person's own words, verbatim"))
        self.reasoning.setPlaceholderText(self.tr("Why this is worth remembering"))
        self.aliases.setPlaceholderText(self.tr("Other names, separated by commas"))
        line = self.workdir.lineEdit()
        if line is not None:
            line.setPlaceholderText(self.tr("The project's folder"))
        self.body_label.setText(self.tr("Te&xt"))
        self.evidence_box.setTitle(self.tr("Evidence"))
        self.contract.setText(
            self.tr(
                "High confidence needs a verbatim quote of at least 5 characters and medium "
                "needs a quote; otherwise the memory is saved with a lower confidence."
            )
        )
        type_labels = {
            "user": self.tr("User"),
            "feedback": self.tr("Feedback"),
            "project": self.tr("Project"),
            "reference": self.tr("Reference"),
            "skill": self.tr("Skill"),
        }
        for combo, items in (
            (self.scope, [(self.tr("Global"), "global"), (self.tr("Project"), "project")]),
            (self.type, [(type_labels.get(name, name), name) for name in TYPES]),
            (
                self.confidence,
                [
                    (self.tr("Not set"), None),
                    (self.tr("High"), "high"),
                    (self.tr("Medium"), "medium"),
                    (self.tr("Low"), "low"),
                ],
            ),
        ):
            current = combo.currentIndex()
            combo.blockSignals(True)
            combo.clear()
            for text, value in items:
                combo.addItem(text, value)
            combo.setCurrentIndex(max(current, 0))
            combo.blockSignals(False)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            if self.failure is not None and not self.error.isHidden():
                self.show_failure(self.failure)
        super().changeEvent(event)

    # --- values -----------------------------------------------------------------------------
    def _fill(self, scope: str, workdir: str | None) -> None:
        if self.data is None:
            self.scope.setCurrentIndex(max(self.scope.findData(scope), 0))
            if workdir:
                self.workdir.setCurrentText(workdir)
            self.type.setCurrentIndex(TYPES.index("project" if scope == "project" else "user"))
            self._scope_changed()
            return
        entry = self.data["entry"]
        evidence: dict[str, Any] = self.data.get("evidence") or {}
        self.slug.setText(entry["slug"])
        self.scope.setCurrentIndex(max(self.scope.findData(entry["scope"]), 0))
        self.workdir.setCurrentText(entry.get("workdir") or entry.get("workdir_hash") or "")
        for field in (self.slug, self.scope, self.workdir):
            field.setEnabled(False)  # a memory keeps its identity; create a new one to move it
        self._scope_changed()
        type_index = self.type.findData(entry["type"])
        self.type.setCurrentIndex(max(type_index, 0))
        self.description.setText(entry.get("description") or "")
        self.body.setPlainText(self.data.get("content") or "")
        confidence = evidence.get("confidence")
        self.confidence.setCurrentIndex(max(self.confidence.findData(confidence), 0))
        self.quote.setText(evidence.get("source_quote") or "")
        self.reasoning.setText(evidence.get("reasoning") or "")
        self.aliases.setText(", ".join(evidence.get("aliases") or []))

    def _type_changed(self) -> None:
        """A new skill starts from its sections (English headings: the file format's, in any
        language); leaving the type while the template is untouched takes it away again."""
        if not self.creating:
            return
        text = self.body.toPlainText()
        if self.type.currentData() == "skill" and not text.strip():
            self.body.setPlainText(SKILL_TEMPLATE)
        elif self.type.currentData() != "skill" and text == SKILL_TEMPLATE:
            self.body.clear()

    def _scope_changed(self) -> None:
        is_project = self.scope.currentData() == "project"
        if self.creating:
            self.workdir.setEnabled(is_project)
        self.form.setRowVisible(self.workdir, is_project)  # only a project memory has one

    def values(self) -> dict[str, Any]:
        """What the fields hold now (text trimmed; evidence as the command's fields)."""
        return {
            "slug": self.slug.text().strip(),
            "scope": self.scope.currentData(),
            "workdir": self.workdir.currentText().strip() or None,
            "type": self.type.currentData(),
            "description": self.description.text().strip(),
            "body": self.body.toPlainText().strip(),
            "confidence": self.confidence.currentData(),
            "source_quote": self.quote.text().strip(),
            "reasoning": self.reasoning.text().strip(),
            "aliases": split_aliases(self.aliases.text()),
        }

    # --- saving -----------------------------------------------------------------------------
    def _save_clicked(self) -> None:
        problem = self._problem(self.values())
        if problem:
            self.show_error(problem)
            return
        self.error.hide()
        self.save_requested.emit(self.values())

    def _problem(self, values: dict[str, Any]) -> str | None:
        """What the dialog itself can tell is missing (the core checks everything else)."""
        if self.creating and not values["slug"]:
            return self.tr("Give the memory a slug.")
        if self.creating and values["scope"] == "project" and not values["workdir"]:
            return self.tr("Choose the project folder this memory belongs to.")
        had_description = bool(self.data and self.data["entry"].get("description"))
        if not values["description"] and (self.creating or had_description):
            return self.tr("Write a one-line description.")
        if not values["body"]:
            # An empty text would leave the memory unchanged (the core reads it as an
            # evidence-only update), so say so instead of pretending it was saved.
            return self.tr("The text cannot be empty.")
        return None

    def show_error(self, text: str) -> None:
        """Show why the save failed; every field keeps what was typed."""
        self.failure = None
        self._show_error_text(text, "")

    def show_failure(self, exc: MemoryDomainError) -> None:
        """Show a typed error the save met: its code's sentence in the current language (again
        after a language switch), the core's English message as a details line."""
        self.failure = exc
        detail = error_detail(exc)
        text = error_text(exc)
        if detail:
            text += "\n" + self.tr("Details: %1").replace("%1", detail)
        self._show_error_text(text, detail)

    def _show_error_text(self, text: str, detail: str) -> None:
        self.set_busy(False)
        self.error.setText(text)
        self.error.setToolTip(detail)
        self.error.show()

    def set_busy(self, busy: bool) -> None:
        """While a save runs, Save is disabled (one save at a time)."""
        self.save_button.setEnabled(not busy)
        self.save_button.setText(self.tr("Saving…") if busy else self.tr("Save"))

"""The Memories page's search and filter bar: the query, the place (scope, project) and the
review filters, turned into the filter fields `memory_list` and `memory_search` share
(domain/filters.py).

The bar's words translate in the page's context (`MemoriesPage`, named in each
`QCoreApplication.translate` call for lupdate): the filter vocabulary (types, review, scopes)
is the page's, and the catalogue keeps it there (tests/ui/test_skill_ui.py reads "Skill").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from liveagent_memory.domain.sorting import project_name

SEARCH_DEBOUNCE_MS = 250  # wait for a pause in typing before searching
# Pixels between the six filter combos: with the default spacing their row alone made the
# window 1,026 px wide at least, more than a 1024 px screen.
FILTER_SPACING = 4
FILTER_MIN_WIDTH = 80  # a filter narrower than its entries still shows a word of each


class Place(NamedTuple):
    """Where a new memory goes by default: the filters' place, and the folders to offer."""

    projects: list[str]  # the known project folders
    scope: str
    workdir: str | None


class MemoryFilterBar(QWidget):
    """The search line (with `beside_search` next to it) above a row of filter combos.

    Signals:
        filters_did_change: a filter changed (at once) or the query did (after a pause in
            typing); the list reloads. Changes made by `show_project` and `set_projects`
            send nothing: their caller reloads once.
    """

    filters_did_change = Signal()

    def __init__(self, *, beside_search: QWidget | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.projects: list[dict[str, Any]] = []  # quota scopes of the projects with memories
        self.search = QLineEdit()
        self.search.setObjectName("memory_search")
        self.search.setClearButtonEnabled(True)
        self.scope = QComboBox()
        self.project = QComboBox()
        self.project.setObjectName("memory_project_filter")
        self.project.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.project.addItem("", None)  # "All projects"; the projects follow (set_projects)
        self.type = QComboBox()
        self.review = QComboBox()
        self.confidence = QComboBox()
        self.risk = QComboBox()
        self._build_layout(beside_search)
        self._connect()

    def _build_layout(self, beside_search: QWidget | None) -> None:
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        if beside_search is not None:
            top.addWidget(beside_search)
        filters = QHBoxLayout()
        filters.setSpacing(FILTER_SPACING)
        for combo in self._combos():
            # Issue 14: sized to their longest entry (a long project name), the six filters
            # made the page, and so the window, wider than 1024 px. They shrink, eliding.
            combo.setMinimumWidth(FILTER_MIN_WIDTH)
            filters.addWidget(combo)
        filters.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(filters)

    def _combos(self) -> tuple[QComboBox, ...]:
        return (self.scope, self.project, self.type, self.review, self.confidence, self.risk)

    def _connect(self) -> None:
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.filters_did_change.emit)
        self.search.textChanged.connect(lambda _text: self._debounce.start())
        self.scope.currentIndexChanged.connect(lambda _i: self._scope_changed())
        self.project.currentIndexChanged.connect(lambda _i: self._project_changed())
        for combo in (self.type, self.review, self.confidence, self.risk):
            combo.currentIndexChanged.connect(lambda _i: self.filters_did_change.emit())

    # --- labels -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        for combo, items in self._filter_choices():
            current = combo.currentIndex()
            combo.blockSignals(True)
            combo.clear()
            for label, value in items:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(current, 0))
            combo.blockSignals(False)
        self.project.setItemText(0, QCoreApplication.translate("MemoriesPage", "All projects"))
        self.scope.setToolTip(
            QCoreApplication.translate(
                "MemoriesPage", "Global memories, or the ones bound to a project"
            )
        )
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        self.review.setToolTip(
            QCoreApplication.translate(
                "MemoriesPage", "Unreviewed memories were written by an agent"
            )
        )
        self.risk.setToolTip(
            QCoreApplication.translate(
                "MemoriesPage", "Flagged memories read like instructions to the agent; review them"
            )
        )
        self.search.setPlaceholderText(
            QCoreApplication.translate("MemoriesPage", "Search memories (English or 中文)…")
        )

    def _filter_choices(self) -> list[tuple[QComboBox, list[tuple[str, Any]]]]:
        """Each filter combo with its (label, value) items, the first one "any"."""
        return [
            (
                self.scope,
                [
                    (QCoreApplication.translate("MemoriesPage", "All scopes"), None),
                    (QCoreApplication.translate("MemoriesPage", "Global"), "global"),
                    (QCoreApplication.translate("MemoriesPage", "Projects"), "project"),
                ],
            ),
            (
                self.type,
                [
                    (QCoreApplication.translate("MemoriesPage", "All types"), None),
                    (QCoreApplication.translate("MemoriesPage", "User"), "user"),
                    (QCoreApplication.translate("MemoriesPage", "Feedback"), "feedback"),
                    (QCoreApplication.translate("MemoriesPage", "Project"), "project"),
                    (QCoreApplication.translate("MemoriesPage", "Reference"), "reference"),
                    (QCoreApplication.translate("MemoriesPage", "Skill"), "skill"),
                ],
            ),
            (
                self.review,
                [
                    (QCoreApplication.translate("MemoriesPage", "Reviewed and unreviewed"), None),
                    (QCoreApplication.translate("MemoriesPage", "Unreviewed"), True),
                    (QCoreApplication.translate("MemoriesPage", "Reviewed"), False),
                ],
            ),
            (
                self.confidence,
                [
                    (QCoreApplication.translate("MemoriesPage", "Any confidence"), None),
                    (QCoreApplication.translate("MemoriesPage", "High confidence"), "high"),
                    (QCoreApplication.translate("MemoriesPage", "Medium confidence"), "medium"),
                    (QCoreApplication.translate("MemoriesPage", "Low confidence"), "low"),
                    (QCoreApplication.translate("MemoriesPage", "Unknown confidence"), "unknown"),
                ],
            ),
            (
                self.risk,
                [
                    (QCoreApplication.translate("MemoriesPage", "Any risk flag"), None),
                    (QCoreApplication.translate("MemoriesPage", "Risk flagged"), True),
                    (QCoreApplication.translate("MemoriesPage", "Not flagged"), False),
                ],
            ),
        ]

    # --- what the filters say ---------------------------------------------------------------
    def query(self) -> str:
        """The search text ('' = list, no search)."""
        return self.search.text().strip()

    def payload(self) -> dict[str, Any]:
        """The filter fields of `memory_list` / `memory_search` for the combos' choices."""
        payload: dict[str, Any] = {"include_all_projects": True}
        project = self.project.currentData()
        if project:
            payload.update(scope="project", workdir_hash=project, include_all_projects=False)
        elif self.scope.currentData() is not None:
            payload["scope"] = self.scope.currentData()
        if self.type.currentData() is not None:
            payload["type"] = self.type.currentData()
        if self.review.currentData() is not None:
            payload["unreviewed"] = self.review.currentData()
        if self.confidence.currentData() is not None:
            payload["confidence"] = self.confidence.currentData()
        if self.risk.currentData() is not None:
            payload["risk_flagged"] = self.risk.currentData()
        return payload

    def narrowed(self) -> bool:
        """True when a query or a filter leaves some memories out."""
        return bool(self.query()) or any(key != "include_all_projects" for key in self.payload())

    def new_memory_place(self) -> Place:
        """The place the filters show, as the default of a new memory."""
        project = self.project.currentData()
        scope = "project" if project or self.scope.currentData() == "project" else "global"
        workdirs = sorted({p["workdir"] for p in self.projects if p.get("workdir")})
        return Place(workdirs, scope, self._workdir_of(project) if project else None)

    def _workdir_of(self, workdir_hash: str) -> str | None:
        return next(
            (p["workdir"] for p in self.projects if p["workdir_hash"] == workdir_hash), None
        )

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # --- changing the filters ---------------------------------------------------------------
    def _scope_changed(self) -> None:
        # A project is a part of the project scope: choosing "Global" clears the project.
        is_global = self.scope.currentData() == "global"
        if is_global and self.project.currentIndex() != 0:
            self._set_combo(self.project, 0)
        self.project.setEnabled(not is_global)
        self.filters_did_change.emit()

    def _project_changed(self) -> None:
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        if self.project.currentData() is not None and self.scope.currentData() is None:
            self._set_combo(self.scope, self.scope.findData("project"))
        self.filters_did_change.emit()

    @staticmethod
    def _set_combo(combo: QComboBox, index: int) -> None:
        """Change a filter without triggering its reload (the caller reloads once)."""
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def show_project(self, workdir_hash: str) -> None:
        """Filter on one project ('' = the global scope), the other filters and the query
        cleared."""
        for combo in (self.type, self.review, self.confidence, self.risk):
            self._set_combo(combo, 0)
        self._debounce.stop()
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        if not workdir_hash:
            self._set_combo(self.scope, self.scope.findData("global"))
            self._set_combo(self.project, 0)
            self.project.setEnabled(False)
        else:
            self._set_combo(self.scope, self.scope.findData("project"))
            index = self.project.findData(workdir_hash)
            if index < 0:  # not listed yet: the reload below names it
                self.project.addItem(workdir_hash[:12], workdir_hash)
                index = self.project.count() - 1
            self._set_combo(self.project, index)
            self.project.setEnabled(True)

    def set_projects(self, scopes: list[dict[str, Any]]) -> None:
        """Fill the project filter: folder names, full paths as tooltips; keep the choice."""
        self.projects = scopes
        chosen, chosen_text = self.project.currentData(), self.project.currentText()

        names = [project_name(s.get("workdir"), s["workdir_hash"]) for s in scopes]
        self.project.blockSignals(True)
        while self.project.count() > 1:
            self.project.removeItem(1)
        for scope, label in sorted(zip(scopes, names, strict=True), key=lambda p: p[1].lower()):
            if names.count(label) > 1 and scope.get("workdir"):
                parent = Path(scope["workdir"]).parent.name
                label = f"{label} ({parent})" if parent else label
            self.project.addItem(label, scope["workdir_hash"])
            tip = scope.get("workdir") or QCoreApplication.translate(
                "MemoriesPage", "Folder unknown (project %1)"
            ).replace("%1", scope["workdir_hash"])
            self.project.setItemData(self.project.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        index = self.project.findData(chosen) if chosen else 0
        if index < 0:  # its last memory is gone; keep the choice rather than widen the list
            self.project.addItem(chosen_text, chosen)
            index = self.project.count() - 1
        self.project.setCurrentIndex(index)
        self.project.blockSignals(False)
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")

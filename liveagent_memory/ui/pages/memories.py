"""The Memories page: filter and search, read, create, edit, accept, delete, undo and history."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError, VersionNotFound
from liveagent_memory.ui.models import (
    PAGE_SIZE,
    Key,
    MemoryListModel,
    OneLineDelegate,
    Row,
    key_of,
    loop_is_running,
)
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.payloads import (
    batch_failure,
    batch_target,
    target,
    update_payload,
    write_payload,
)
from liveagent_memory.ui.strings import error_text
from liveagent_memory.ui.widgets.evidence_view import EvidenceView
from liveagent_memory.ui.widgets.history_view import HistoryView
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

SEARCH_DEBOUNCE_MS = 250  # wait for a pause in typing before searching
SEARCH_LIMIT = config.SEARCH_MAX_LIMIT  # search shows its best matches, not a listing
PROBLEM_ROWS_SHOWN = 5  # the problems panel scrolls beyond this many files
DELETE_REASON = "deleted in the app"  # recorded in the audit log (recent rejections read it)


class MemoriesPage(DrawerPage):
    """Lists memories with filters and search; shows, changes, creates and restores them.

    The list model holds only the pages of rows looked at (STYLE 4), so 10k memories scroll
    smoothly; a search shows its (few) best matches directly.
    """

    NAME = "memories"
    ORDER = 10

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.model = MemoryListModel(self)
        self.current: Row | None = None  # the memory shown in the detail pane (its entry)
        self.current_data: dict[str, Any] | None = None  # ...and its memory_read result
        self.last_deleted: list[Row] = []  # what Undo brings back
        self.projects: list[dict[str, Any]] = []  # quota scopes of the projects with memories
        self.problems: list[dict[str, str]] = []
        self.editor: MemoryEditor | None = None
        self.history: HistoryView | None = None
        self._selected_key: Key | None = None  # re-selected after every reload
        self._fallback_row = 0  # selected instead when that memory is gone (e.g. deleted)
        self._pending_delete: list[int] = []  # rows of a bulk delete awaiting confirmation
        self._list_generation = 0  # a list load finishing after a newer one is dropped

        self._build_widgets()
        self._build_actions()
        self._build_layout()
        self._connect()
        self.retranslate()
        self._show_nothing()

    # --- construction -----------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.search = QLineEdit()
        self.search.setObjectName("memory_search")
        self.search.setClearButtonEnabled(True)
        self.problems_button = QPushButton()
        self.problems_button.setObjectName("memory_problems_button")
        self.problems_button.setCheckable(True)
        self.problems_button.hide()
        self.scope = QComboBox()
        self.project = QComboBox()
        self.project.setObjectName("memory_project_filter")
        self.project.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.type = QComboBox()
        self.review = QComboBox()
        self.confidence = QComboBox()
        self.risk = QComboBox()
        self.filters = (self.scope, self.project, self.type, self.review, self.confidence)
        self.problems_panel = QFrame()
        self.problems_panel.setObjectName("memory_problems")
        self.problems_intro = QLabel()
        self.problems_intro.setWordWrap(True)
        self.problems_intro.setProperty("role", "muted")
        self.problems_list = QListWidget()
        self.problems_panel.hide()
        self.count = QLabel()
        self.count.setProperty("role", "muted")
        self.list = QListView()
        self.list.setObjectName("memory_list")
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)  # one size query for 10k rows, not 10k
        self.list.setItemDelegate(OneLineDelegate(self.list))  # ...which reads no row
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.detail = EvidenceView()
        self.notice = QLabel()
        self.notice.setObjectName("memory_notice")
        self.notice.setWordWrap(True)
        self.notice.setProperty("role", "muted")
        self.confirm_bar = QFrame()
        self.confirm_bar.setObjectName("memory_confirm_delete")
        self.confirm_label = QLabel()
        self.confirm_button = QPushButton()
        self.confirm_button.setProperty("danger", True)
        self.cancel_button = QPushButton()
        self.confirm_bar.hide()

    def _build_actions(self) -> None:
        def make(keys: list[QKeySequence], slot: Callable[[], None]) -> QAction:
            action = QAction(self)
            action.setShortcuts(keys)
            action.triggered.connect(lambda _checked=False: slot())
            self.addAction(action)  # window-wide while the page is shown; line edits keep
            return action  # their own Delete and Ctrl+Z (they claim those keys first)

        standard = QKeySequence.StandardKey
        self.find_action = make([QKeySequence(standard.Find)], self._focus_search)
        self.new_action = make([QKeySequence(standard.New)], self._new)
        self.edit_action = make([QKeySequence("Ctrl+E"), QKeySequence("F2")], self._edit)
        self.accept_action = make(
            [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")], self._accept
        )
        self.delete_action = make([QKeySequence(standard.Delete)], self._delete)
        self.undo_action = make([QKeySequence(standard.Undo)], self._undo)
        self.history_action = make([QKeySequence("Ctrl+H")], self._show_history)
        self.new_button = self._button(self.new_action, "memory_new")
        self.edit_button = self._button(self.edit_action, "memory_edit")
        self.accept_button = self._button(self.accept_action, "memory_accept")
        self.delete_button = self._button(self.delete_action, "memory_delete")
        self.delete_button.setProperty("danger", True)
        self.undo_button = self._button(self.undo_action, "memory_undo")
        self.history_button = self._button(self.history_action, "memory_history")
        self.new_button.setProperty("primary", True)

    @staticmethod
    def _button(action: QAction, name: str) -> QPushButton:
        """A push button that shows and triggers `action` (text, tooltip, enabled state)."""
        button = QPushButton()
        button.setObjectName(name)
        button.clicked.connect(lambda _checked=False: action.trigger())

        def sync() -> None:
            button.setText(action.text())
            button.setToolTip(action.toolTip())
            button.setEnabled(action.isEnabled())

        action.changed.connect(sync)
        sync()
        return button

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.problems_button)
        filters = QHBoxLayout()
        for combo in (*self.filters, self.risk):
            filters.addWidget(combo)
        filters.addStretch(1)
        problems = QVBoxLayout(self.problems_panel)
        problems.setContentsMargins(0, 0, 0, 0)
        problems.addWidget(self.problems_intro)
        problems.addWidget(self.problems_list)
        confirm = QHBoxLayout(self.confirm_bar)
        confirm.setContentsMargins(0, 0, 0, 0)
        confirm.addWidget(self.confirm_label, 1)
        confirm.addWidget(self.confirm_button)
        confirm.addWidget(self.cancel_button)
        actions = QHBoxLayout()
        for button in (
            self.new_button,
            self.edit_button,
            self.accept_button,
            self.delete_button,
            self.undo_button,
            self.history_button,
        ):
            actions.addWidget(button)
        actions.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.confirm_bar)
        right_layout.addLayout(actions)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.count)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(filters)
        layout.addWidget(self.problems_panel)
        layout.addWidget(split, 1)

    def _connect(self) -> None:
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._reload_list)
        self.search.textChanged.connect(lambda _text: self._debounce.start())
        self.scope.currentIndexChanged.connect(lambda _i: self._scope_changed())
        self.project.currentIndexChanged.connect(lambda _i: self._project_changed())
        for combo in (self.type, self.review, self.confidence, self.risk):
            combo.currentIndexChanged.connect(lambda _i: self._reload_list())
        # Selection and current row both change on a click: one zero-time timer coalesces them.
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._apply_selection)
        selection = self.list.selectionModel()
        selection.currentChanged.connect(lambda _c, _p: self._selection_timer.start())
        selection.selectionChanged.connect(lambda _s, _d: self._selection_timer.start())
        self.list.doubleClicked.connect(lambda _index: self._edit())
        self.model.fetch_did_fail.connect(self.error_did_occur.emit)
        self.model.total_did_change.connect(self._reload_list)
        self.problems_button.toggled.connect(self.problems_panel.setVisible)
        self.confirm_button.clicked.connect(self._confirm_delete)
        self.cancel_button.clicked.connect(self._cancel_delete)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Memories")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        for combo, items in self._filter_choices():
            current = combo.currentIndex()
            combo.blockSignals(True)
            combo.clear()
            for label, value in items:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(current, 0))
            combo.blockSignals(False)
        if self.project.count() == 0:
            self.project.addItem("", None)
        self.project.setItemText(0, self.tr("All projects"))
        self.scope.setToolTip(self.tr("Global memories, or the ones bound to a project"))
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        self.review.setToolTip(self.tr("Unreviewed memories were written by an agent"))
        self.risk.setToolTip(
            self.tr("Flagged memories read like instructions to the agent; review them")
        )
        self.search.setPlaceholderText(self.tr("Search memories (English or 中文)…"))
        self._retranslate_actions()
        self.problems_intro.setText(
            self.tr(
                "These files could not be read, so they are not listed. They stay on disk "
                "untouched; fix or remove them by hand."
            )
        )
        self.confirm_button.setText(self.tr("Delete them"))
        self.cancel_button.setText(self.tr("Cancel"))
        self._show_problems(self.problems)
        self._update_count()
        self.detail.retranslate()
        if self.current is None and not self._selected_rows():
            self._show_nothing()

    def _filter_choices(self) -> list[tuple[QComboBox, list[tuple[str, Any]]]]:
        """Each filter combo with its (label, value) items, the first one "any"."""
        return [
            (
                self.scope,
                [
                    (self.tr("All scopes"), None),
                    (self.tr("Global"), "global"),
                    (self.tr("Projects"), "project"),
                ],
            ),
            (
                self.type,
                [
                    (self.tr("All types"), None),
                    (self.tr("User"), "user"),
                    (self.tr("Feedback"), "feedback"),
                    (self.tr("Project"), "project"),
                    (self.tr("Reference"), "reference"),
                    (self.tr("Skill"), "skill"),
                ],
            ),
            (
                self.review,
                [
                    (self.tr("Reviewed and unreviewed"), None),
                    (self.tr("Unreviewed"), True),
                    (self.tr("Reviewed"), False),
                ],
            ),
            (
                self.confidence,
                [
                    (self.tr("Any confidence"), None),
                    (self.tr("High confidence"), "high"),
                    (self.tr("Medium confidence"), "medium"),
                    (self.tr("Low confidence"), "low"),
                    (self.tr("Unknown confidence"), "unknown"),
                ],
            ),
            (
                self.risk,
                [
                    (self.tr("Any risk flag"), None),
                    (self.tr("Risk flagged"), True),
                    (self.tr("Not flagged"), False),
                ],
            ),
        ]

    def _retranslate_actions(self) -> None:
        """The actions' texts, and tooltips that name their shortcut."""
        labels = (
            (self.find_action, self.tr("Search"), self.tr("Search memories")),
            (self.new_action, self.tr("New…"), self.tr("Write a new memory")),
            (self.edit_action, self.tr("Edit…"), self.tr("Change this memory's text or evidence")),
            (self.accept_action, self.tr("Accept"), self.tr("Mark the selected memories reviewed")),
            (
                self.delete_action,
                self.tr("Delete"),
                self.tr("Move the selected memories to the trash"),
            ),
            (self.undo_action, self.tr("Undo delete"), self.tr("Bring back what was just deleted")),
            (self.history_action, self.tr("History…"), self.tr("Earlier versions; restore one")),
        )
        for action, text, tip in labels:
            action.setText(text)
            shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)

    def _update_count(self) -> None:
        self.count.setText(self.tr("%n memories", "", self.model.rowCount()))

    # --- filters ----------------------------------------------------------------------------
    def _scope_changed(self) -> None:
        # A project is a part of the project scope: choosing "Global" clears the project.
        is_global = self.scope.currentData() == "global"
        if is_global and self.project.currentIndex() != 0:
            self._set_combo(self.project, 0)
        self.project.setEnabled(not is_global)
        self._reload_list()

    def _project_changed(self) -> None:
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        if self.project.currentData() is not None and self.scope.currentData() is None:
            self._set_combo(self.scope, self.scope.findData("project"))
        self._reload_list()

    @staticmethod
    def _set_combo(combo: QComboBox, index: int) -> None:
        """Change a filter without triggering its reload (the caller reloads once)."""
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def show_project(self, workdir_hash: str) -> None:
        """Show every memory of one project ('' = the global scope), other filters cleared."""
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
        self._selected_key = None
        self._fallback_row = 0
        self.refresh()

    def _list_filters(self) -> dict[str, Any]:
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

    # --- loading ----------------------------------------------------------------------------
    async def load(self) -> None:
        """Load the list for the current filters, then the project list and problems."""
        await self._load_list()
        await self._load_side()

    def _reload_list(self) -> None:
        if not loop_is_running():
            return  # Qt event outside the loop (shutting down): nothing can load now
        self.client.bridge.preempt(f"{self.NAME}-load", self._load_list())

    async def _load_list(self) -> None:
        self._list_generation += 1
        generation = self._list_generation
        query = self.search.text().strip()
        filters = self._list_filters()
        try:
            if query:
                rows = await self._search_rows(query, filters)
            else:
                total, pages = await self._first_pages(filters)
        except MemoryDomainError as exc:  # shown to the person; the list keeps its old rows
            self.error_did_occur.emit(exc)
            return
        if generation != self._list_generation:
            return  # a newer load (another filter, more typing) already replaced this one
        if query:
            self.model.set_rows(rows)
        else:
            fetch = self._page_fetcher(filters)
            self.model.set_paged(total, pages, fetch, self.client.bridge.spawn)
        self._update_count()
        self._reselect()

    async def _first_pages(self, filters: dict[str, Any]) -> tuple[int, dict[int, list[Row]]]:
        """The first page, plus the page of the selected row so it can be selected again."""
        first = await self.client.call("memory_list", {**filters, "limit": PAGE_SIZE})
        pages = {0: first["entries"]}
        total = int(first["total"])
        near = self.list.currentIndex().row() // PAGE_SIZE
        if near > 0 and near * PAGE_SIZE < total:
            rows, _ = await self._page_fetcher(filters)(near * PAGE_SIZE, PAGE_SIZE)
            pages[near] = rows
        return total, pages

    def _page_fetcher(self, filters: dict[str, Any]) -> Callable[[int, int], Any]:
        async def fetch(offset: int, limit: int) -> tuple[list[Row], int]:
            page = await self.client.call(
                "memory_list", {**filters, "offset": offset, "limit": limit}
            )
            return page["entries"], int(page["total"])

        return fetch

    async def _search_rows(self, query: str, filters: dict[str, Any]) -> list[Row]:
        """The best matches of `query` among the memories the filters keep.

        memory_search takes the list's filter (domain/filters.py) and applies it before its
        limit, so a filtered search shows matches however far down the unfiltered ranking.
        """
        payload = {**filters, "query": query, "limit": SEARCH_LIMIT}
        return list((await self.context.search.search(payload))["matches"])

    def _workdir_of(self, workdir_hash: str) -> str | None:
        return next(
            (p["workdir"] for p in self.projects if p["workdir_hash"] == workdir_hash), None
        )

    async def _load_side(self) -> None:
        """The projects that have memories (the project filter) and unreadable files."""
        try:
            quota = await self.client.call("memory_quota_summary", {})
            problems = (await self.client.call("memory_problems", {}))["problems"]
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self._set_projects([s for s in quota["scopes"] if s["scope"] == "project"])
        self._show_problems(problems)

    def _set_projects(self, scopes: list[dict[str, Any]]) -> None:
        """Fill the project filter: folder names, full paths as tooltips; keep the choice."""
        self.projects = scopes
        chosen, chosen_text = self.project.currentData(), self.project.currentText()

        def name(scope: dict[str, Any]) -> str:
            workdir = scope.get("workdir")
            return Path(workdir).name or workdir if workdir else scope["workdir_hash"][:12]

        names = [name(s) for s in scopes]
        self.project.blockSignals(True)
        while self.project.count() > 1:
            self.project.removeItem(1)
        for scope, label in sorted(zip(scopes, names, strict=True), key=lambda p: p[1].lower()):
            if names.count(label) > 1 and scope.get("workdir"):
                parent = Path(scope["workdir"]).parent.name
                label = f"{label} ({parent})" if parent else label
            self.project.addItem(label, scope["workdir_hash"])
            tip = scope.get("workdir") or self.tr("Folder unknown (project %1)").replace(
                "%1", scope["workdir_hash"]
            )
            self.project.setItemData(self.project.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        index = self.project.findData(chosen) if chosen else 0
        if index < 0:  # its last memory is gone; keep the choice rather than widen the list
            self.project.addItem(chosen_text, chosen)
            index = self.project.count() - 1
        self.project.setCurrentIndex(index)
        self.project.blockSignals(False)
        self.project.setToolTip(self.project.currentData(Qt.ItemDataRole.ToolTipRole) or "")

    def _show_problems(self, problems: list[dict[str, str]]) -> None:
        # SPEC 1.1: unparsable files are reported (path + reason), never deleted.
        self.problems = problems
        count = len(problems)
        self.problems_button.setText(self.tr("Problems (%n)", "", count))
        self.problems_button.setToolTip(
            self.tr("Files in the memory folder that could not be read")
        )
        self.problems_button.setVisible(count > 0)
        if count == 0:
            self.problems_button.setChecked(False)
        self.problems_list.clear()
        for problem in problems:
            self.problems_list.addItem(f"{problem['path']} — {problem['reason']}")
            self.problems_list.item(self.problems_list.count() - 1).setToolTip(problem["reason"])
        # As tall as its rows, up to a few: the list of memories keeps the room.
        shown = min(max(count, 1), PROBLEM_ROWS_SHOWN)
        frame = 2 * self.problems_list.frameWidth() + 4
        row_height = self.problems_list.sizeHintForRow(0) if count else 0
        self.problems_list.setFixedHeight(shown * max(row_height, 18) + frame)

    # --- selection and detail ---------------------------------------------------------------
    def _selected_rows(self) -> list[int]:
        return sorted(index.row() for index in self.list.selectionModel().selectedRows())

    def _reselect(self) -> None:
        """After a reload: select the memory selected before, else its neighbour, else none."""
        row = self.model.row_of(self._selected_key) if self._selected_key else -1
        if row < 0 and self.model.rowCount():
            row = min(self._fallback_row, self.model.rowCount() - 1)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        else:
            self._show_nothing()

    def _apply_selection(self) -> None:
        if not loop_is_running():
            return  # Qt event outside the loop (shutting down): nothing can load now
        self._cancel_delete()
        rows = self._selected_rows()
        if len(rows) > 1:
            self.client.bridge.preempt(f"{self.NAME}-detail", self._show_many(rows))
        elif rows:
            self._fallback_row = rows[0]
            self.client.bridge.preempt(f"{self.NAME}-detail", self._load_detail(rows[0]))
        else:
            self._show_nothing()

    async def _show_many(self, rows: list[int]) -> None:
        self.current = self.current_data = None
        loaded = [entry for entry in map(self.model.entry, rows) if entry is not None]
        self.detail.show_selection(loaded, len(rows))
        self._update_actions()

    async def _load_detail(self, row: int) -> None:
        entries = await self.model.ensure_rows([row])
        if not entries:
            return
        self._selected_key = key_of(entries[0])
        try:
            data = await self.client.call("memory_read", target(entries[0]))
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self._show_detail(data)

    def _show_detail(self, data: dict[str, Any]) -> None:
        self.current = data["entry"]
        self.current_data = data
        self.detail.show_memory(data)
        self._update_actions()

    def _show_nothing(self) -> None:
        self.current = self.current_data = None
        if self.model.rowCount():
            text = self.tr("No memory selected.")
        elif self.search.text().strip() or any(
            key != "include_all_projects" for key in self._list_filters()
        ):
            text = self.tr("No memory matches the search and filters.")
        else:
            text = self.tr(
                "No memories yet. An agent adds them as it works, or press New to write one."
            )
        self.detail.show_message(text)
        self._update_actions()

    def _shown(self) -> Row | None:
        """The memory shown, if it is also the one (and only one) selected in the list."""
        rows = self._selected_rows()
        if self.current is None or len(rows) != 1:
            return None
        entry = self.model.entry(rows[0])
        return self.current if entry is not None and key_of(entry) == key_of(self.current) else None

    def _update_actions(self) -> None:
        rows = self._selected_rows()
        single = self.current is not None and len(rows) <= 1
        many = len(rows) > 1
        loaded = [e for e in map(self.model.entry, rows) if e is not None] if many else []
        some_unreviewed = len(loaded) < len(rows) or any(e.get("unreviewed") for e in loaded)
        self.edit_action.setEnabled(single)
        self.history_action.setEnabled(single)
        self.accept_action.setEnabled(
            (single and bool(self.current and self.current["unreviewed"]))
            or (many and some_unreviewed)
        )
        self.delete_action.setEnabled(single or many)
        self.undo_action.setEnabled(bool(self.last_deleted))

    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # --- accept, delete, undo ---------------------------------------------------------------
    def _accept(self) -> None:
        rows = self._selected_rows()
        if len(rows) > 1:
            self.client.bridge.spawn(self._accept_many(rows))
        elif (entry := self._shown()) is not None and entry["unreviewed"]:
            self.client.bridge.spawn(self._accept_one(entry))

    async def _accept_one(self, entry: Row) -> None:
        try:
            await self.client.call("memory_accept", target(entry))
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.notice.setText(self.tr("Accepted."))
        await self._changed()

    async def _accept_many(self, rows: list[int]) -> None:
        entries = [e for e in await self.model.ensure_rows(rows) if e.get("unreviewed")]
        if not entries:
            self.notice.setText(self.tr("The selected memories are already reviewed."))
            return
        items = [{"op": "accept", **batch_target(e)} for e in entries]
        try:
            result = await self.client.call("memory_apply_batch", {"actor": "user", "items": items})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if (failure := batch_failure(result)) is not None:
            self.error_did_occur.emit(failure)
        self.notice.setText(self.tr("Accepted %n memories.", "", int(result["applied"])))
        await self._changed()

    def _delete(self) -> None:
        rows = self._selected_rows()
        if len(rows) > 1:
            # One non-blocking confirmation for many: the bar asks, Undo still works after.
            self._pending_delete = rows
            self.confirm_label.setText(
                self.tr("Delete %n memories? Undo brings them back.", "", len(rows))
            )
            self.confirm_bar.show()
            self.confirm_button.setFocus()
        elif (entry := self._shown()) is not None:
            self.client.bridge.spawn(self._delete_many([entry]))

    def _confirm_delete(self) -> None:
        rows, self._pending_delete = self._pending_delete, []
        self.confirm_bar.hide()
        if rows:
            self.client.bridge.spawn(self._delete_rows(rows))

    def _cancel_delete(self) -> None:
        self._pending_delete = []
        self.confirm_bar.hide()

    async def _delete_rows(self, rows: list[int]) -> None:
        await self._delete_many(await self.model.ensure_rows(rows))

    async def _delete_many(self, entries: list[Row]) -> None:
        if not entries:
            return
        try:
            if len(entries) == 1:
                payload = {**target(entries[0]), "actor": "user", "reason": DELETE_REASON}
                await self.client.call("memory_delete", payload)
                deleted = entries
            else:
                items = [
                    {"op": "delete", "reason": DELETE_REASON, **batch_target(e)} for e in entries
                ]
                result = await self.client.call(
                    "memory_apply_batch", {"actor": "user", "items": items}
                )
                deleted = [
                    entries[item["index"]]
                    for item in result["items"]
                    if item["status"] == "applied"
                ]
                if (failure := batch_failure(result)) is not None:
                    self.error_did_occur.emit(failure)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if not deleted:
            return
        # The undo target changes only once a delete succeeded: a failed delete must not
        # replace what Undo would bring back.
        self.last_deleted = [dict(entry) for entry in deleted]
        self._selected_key = None
        if self.current is not None and key_of(self.current) in {key_of(e) for e in deleted}:
            self.current = self.current_data = None  # gone: nothing may act on it any more
        self.notice.setText(
            self.tr("Deleted %n memories. Undo (%1) brings them back.", "", len(deleted)).replace(
                "%1", self.undo_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            )
        )
        await self._changed()

    def _undo(self) -> None:
        if self.last_deleted:
            self.client.bridge.spawn(self._restore_deleted(list(self.last_deleted)))

    async def _restore_deleted(self, entries: list[Row]) -> None:
        restored: list[Row] = []
        failed: list[Row] = []
        error: BaseException | None = None
        for entry in entries:
            try:
                history = await self.client.call("memory_history", target(entry))
                version = next(
                    (h["version"] for h in history["entries"] if h["source"] == "trash"), None
                )
                if version is None:  # the trash copy was removed behind the app's back
                    raise VersionNotFound(f"no trash copy of {entry['slug']} is left to restore")
                await self.client.call("memory_restore", {**target(entry), "version": version})
            except MemoryDomainError as exc:
                failed.append(entry)
                error = exc
                continue
            restored.append(entry)
        self.last_deleted = failed
        if error is not None:
            self.error_did_occur.emit(error)
        if restored:
            self._selected_key = key_of(restored[0])
            self.notice.setText(self.tr("Brought back %n memories.", "", len(restored)))
            await self._changed()
        else:
            self._update_actions()

    async def _changed(self) -> None:
        """After a mutation: tell the other pages, then reload (the selection is kept)."""
        self._update_actions()
        self.changes_did_apply.emit()
        await self.load()

    # --- create and edit --------------------------------------------------------------------
    def _new(self) -> None:
        project = self.project.currentData()
        scope = "project" if project or self.scope.currentData() == "project" else "global"
        workdirs = sorted({p["workdir"] for p in self.projects if p.get("workdir")})
        editor = MemoryEditor(
            projects=workdirs,
            scope=scope,
            workdir=self._workdir_of(project) if project else None,
            parent=self,
        )
        self._open_editor(editor)

    def _edit(self) -> None:
        if self._shown() is not None and self.current_data is not None:
            self._open_editor(MemoryEditor(data=self.current_data, parent=self))

    def _open_editor(self, editor: MemoryEditor) -> None:
        if self.editor is not None:
            self.editor.reject()
        self.editor = editor
        editor.save_requested.connect(
            lambda values: self.client.bridge.spawn(self._save(editor, values))
        )
        editor.finished.connect(lambda _result: self._dialog_closed(editor))
        editor.setWindowModality(Qt.WindowModality.WindowModal)
        editor.open()

    def _dialog_closed(self, dialog: QObject) -> None:
        if self.editor is dialog:
            self.editor = None
        if self.history is dialog:
            self.history = None
        dialog.deleteLater()

    async def _save(self, editor: MemoryEditor, values: dict[str, Any]) -> None:
        editor.set_busy(True)
        try:
            if editor.data is None:
                result = await self.client.call("memory_write", write_payload(values))
            else:
                payload = update_payload(editor.data, values)
                if payload is None:  # nothing changed: nothing to write
                    editor.accept()
                    return
                result = await self.client.call("memory_update", payload)
        except MemoryDomainError as exc:
            if self.editor is editor:  # still open: the person sees why, with their text
                editor.show_error(error_text(exc))
            self.error_did_occur.emit(exc)
            return
        finally:
            if self.editor is editor:  # after a bug too: Save can be pressed again
                editor.set_busy(False)
        if self.editor is editor:
            editor.accept()
        self._selected_key = (result["scope"], result["workdir_hash"], result["slug"])
        self.notice.setText(self._saved_text(result))
        await self._changed()

    def _saved_text(self, result: dict[str, Any]) -> str:
        if result.get("auto_downgraded"):
            # SPEC 1.4: a downgrade is reported, not hidden.
            return self.tr(
                "Saved with %1 confidence: high needs a verbatim quote of at least 5 "
                "characters, medium needs a quote."
            ).replace("%1", str(result.get("applied_confidence")))
        if result.get("risk_flag"):
            return self.tr(
                "Saved and marked for review: the text reads like an instruction to the agent."
            )
        return self.tr("Saved.")

    # --- history ----------------------------------------------------------------------------
    def _show_history(self) -> None:
        entry = self._shown()
        if entry is None:
            return
        if self.history is not None:
            self.history.reject()
        view = HistoryView(entry["slug"], parent=self)
        self.history = view
        view.restore_requested.connect(
            lambda version: self.client.bridge.spawn(self._restore_version(view, entry, version))
        )
        view.finished.connect(lambda _result: self._dialog_closed(view))
        view.show()
        self.client.bridge.spawn(self._load_history(view, entry))

    async def _load_history(self, view: HistoryView, entry: Row) -> None:
        try:
            result = await self.client.call("memory_history", target(entry))
        except MemoryDomainError as exc:
            if self.history is view:
                view.show_error(error_text(exc))
            self.error_did_occur.emit(exc)
            return
        if self.history is view:
            view.set_entries(result["entries"])

    async def _restore_version(self, view: HistoryView, entry: Row, version: str) -> None:
        try:
            await self.client.call("memory_restore", {**target(entry), "version": version})
        except MemoryDomainError as exc:
            if self.history is view:
                view.show_error(error_text(exc))
            self.error_did_occur.emit(exc)
            return
        self._selected_key = key_of(entry)
        text = self.tr("Restored. The text it replaced is the newest version in the history.")
        self.notice.setText(text)
        if self.history is view:
            view.show_notice(text)
        await self._changed()
        if self.history is view:
            await self._load_history(view, entry)

"""The Projects page: this store's scopes with their counts and quota, the global scope first,
and below them the other memory stores found under folders the person names (SPEC 6)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.projects_import import LokiImportBar
from liveagent_memory.ui.pages.projects_merge import MergeFoldersBar
from liveagent_memory.ui.pages.projects_rows import MISSING_COLOR, row_items
from liveagent_memory.ui.pages.projects_sync import SyncBar
from liveagent_memory.ui.strings import value_text
from liveagent_memory.ui.widgets.fill_column import FillColumn

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

HASH_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's workdir_hash ('' for the global scope)
LOKI_ROLE = Qt.ItemDataRole.UserRole + 2  # a found row's Loki store folder (None: not Loki)
# Column order; the headers are set (translated) in retranslate().
(
    COL_FOLDER,
    COL_EXISTS,
    COL_USER,
    COL_FEEDBACK,
    COL_PROJECT,
    COL_REFERENCE,
    COL_SKILL,
    COL_DAILY,
    COL_UNREVIEWED,
    COL_USED,
    COL_HEADROOM,
    COL_LEVEL,
) = range(12)

# The table of other stores (a tree: each store, then its scopes); headers in retranslate().
(
    DCOL_PATH,
    DCOL_KIND,
    DCOL_PROJECTS,
    DCOL_TOTAL,
    DCOL_CONTENTS,
    DCOL_PROBLEMS,
) = range(6)
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter  # numbers line up
ROOTS_VISIBLE_ROWS = 3  # the folder list's height: a few roots show without scrolling
PROBLEMS_VISIBLE_ROWS = 4  # the problem list's height before it scrolls
FOLDER_WIDTH = 240  # the projects table's folder column: a path's two ends stay readable
PROGRESS_WIDTH = 140  # the busy bar next to Search: a hint, not a gauge
SPLIT_SIZES = (300, 260)  # this store's table above, other stores below (pixels, then ratio):
# at a 640 px window the table keeps room for its header and four rows


class ProjectsPage(DrawerPage):
    """A table of the store's scopes: counts per type, unreviewed, quota and its ladder level."""

    NAME = "projects"
    ORDER = 40

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.rows: list[dict[str, Any]] = []

        self.table = QTableWidget(0, COL_LEVEL + 1)
        self.table.setObjectName("projectsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long paths keep both ends
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The folder takes what a wide window leaves over and keeps a readable width on a
        # narrow one (the figures scroll beside it); every figure keeps its contents' width.
        header.setSectionResizeMode(COL_FOLDER, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.folder_width = FillColumn(self.table, COL_FOLDER, FOLDER_WIDTH)
        self.empty = QLabel()
        self.empty.setObjectName("projectsEmpty")
        self.empty.setWordWrap(True)
        self.count = QLabel()
        self.count.setObjectName("projectsCount")
        self.open_button = QPushButton()
        self.open_button.setObjectName("showMemoriesButton")
        self.open_button.setEnabled(False)

        self.merge_bar = self._merge_bar()
        actions = QHBoxLayout()
        actions.addWidget(self.count)
        actions.addStretch(1)
        actions.addWidget(self.merge_bar.button)
        actions.addWidget(self.open_button)
        this_store = QWidget()
        top = QVBoxLayout(this_store)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.table, 1)
        top.addWidget(self.empty)
        top.addLayout(actions)
        top.addWidget(self.merge_bar)
        self.sync_bar = SyncBar(self)  # issue 19: this store synced with git
        top.addWidget(self.sync_bar)
        self.sync_bar.error_did_occur.connect(self.error_did_occur.emit)
        # A sync can bring memories: the other pages re-query, and so does this table.
        self.sync_bar.sync_did_finish.connect(lambda _result: self.changes_did_apply.emit())
        self.sync_bar.sync_did_finish.connect(lambda _result: self.refresh())

        # Other stores (SPEC 6): the folders searched, the search, what it found.
        self.roots: list[str] = []  # settings.json `discovery_roots`, in the person's order
        self.discovery: dict[str, Any] | None = None  # the last projects_discover result
        self.missing_roots: dict[str, str] = {}  # root -> the core's message, last search
        self.searched = False  # a search finished (found or not) since the page opened
        self.searching = False
        self._build_discovery()

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("projectsSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(this_store)
        split.addWidget(self.discovery_group)
        split.setStretchFactor(0, SPLIT_SIZES[0])
        split.setStretchFactor(1, SPLIT_SIZES[1])
        split.setSizes(list(SPLIT_SIZES))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

        # `activated`: a double-click, or Enter on the current row.
        self.table.activated.connect(lambda _index: self.open_memories())
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        # Selecting the row that is already current changes no current row: follow both.
        self.table.selectionModel().selectionChanged.connect(self._on_current)
        self.open_button.clicked.connect(self.open_memories)
        self._shortcuts()
        self.retranslate()

    def _merge_bar(self) -> MergeFoldersBar:
        """Merge folders… for a project kept in several folders (issue 19)."""
        bar = MergeFoldersBar(self)
        bar.error_did_occur.connect(self.error_did_occur.emit)
        # A merge moves memories: the other pages re-query, and so does this table.
        bar.merge_did_finish.connect(lambda _result: self.changes_did_apply.emit())
        bar.merge_did_finish.connect(lambda _result: self.refresh())
        return bar

    def _build_discovery(self) -> None:
        self.discovery_group = QGroupBox()
        self.discovery_group.setObjectName("discoveryGroup")
        self.discovery_hint = QLabel()
        self.discovery_hint.setObjectName("discoveryHint")
        self.discovery_hint.setProperty("role", "muted")
        self.discovery_hint.setWordWrap(True)
        roots_row = self._roots_row()
        search_row = self._search_row()
        self._build_results()
        self.problems_heading = QLabel()
        self.problems_heading.setObjectName("discoveryProblemsHeading")
        self.problems = QListWidget()
        self.problems.setObjectName("discoveryProblems")
        self.problems.setTextElideMode(Qt.TextElideMode.ElideMiddle)

        group = QVBoxLayout(self.discovery_group)
        group.addWidget(self.discovery_hint)
        group.addLayout(roots_row)
        group.addLayout(search_row)
        group.addWidget(self.results_view, 1)
        self.loki_import = LokiImportBar(self)  # issue 18: import the chosen Loki store
        group.addWidget(self.loki_import)
        group.addWidget(self.problems_heading)
        group.addWidget(self.problems)
        self.results.currentItemChanged.connect(
            lambda item, _old: self.loki_import.choose(item.data(0, LOKI_ROLE) if item else None)
        )
        self.loki_import.error_did_occur.connect(self.error_did_occur.emit)
        # An import adds memories: the other pages re-query, and so does this table.
        self.loki_import.import_did_finish.connect(lambda _result: self.changes_did_apply.emit())
        self.loki_import.import_did_finish.connect(lambda _result: self.refresh())

        self.add_root_button.clicked.connect(self.add_root)
        self.remove_root_button.clicked.connect(self.remove_root)
        self.search_button.clicked.connect(self.search)
        self.roots_list.itemSelectionChanged.connect(self._update_discovery_buttons)

    def _roots_row(self) -> QHBoxLayout:
        """The folders to search, with Add and Remove beside them."""
        self.roots_list = QListWidget()
        self.roots_list.setObjectName("discoveryRoots")
        self.roots_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.roots_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        row_height = self.roots_list.fontMetrics().height() + 6
        self.roots_list.setFixedHeight(ROOTS_VISIBLE_ROWS * row_height + 8)
        self._row_height = row_height
        self.add_root_button = QPushButton()
        self.add_root_button.setObjectName("addRootButton")
        self.remove_root_button = QPushButton()
        self.remove_root_button.setObjectName("removeRootButton")
        self.remove_root_button.setEnabled(False)
        root_buttons = QVBoxLayout()
        root_buttons.addWidget(self.add_root_button)
        root_buttons.addWidget(self.remove_root_button)
        root_buttons.addStretch(1)
        roots_row = QHBoxLayout()
        roots_row.addWidget(self.roots_list, 1)
        roots_row.addLayout(root_buttons)
        return roots_row

    def _search_row(self) -> QHBoxLayout:
        """Search, its busy bar and the totals of the last search."""
        self.search_button = QPushButton()
        self.search_button.setObjectName("discoverButton")
        self.search_button.setProperty("primary", True)
        self.search_progress = QProgressBar()
        self.search_progress.setObjectName("discoverProgress")
        self.search_progress.setRange(0, 0)  # busy: the walk reports no steps
        self.search_progress.setTextVisible(False)
        self.search_progress.setFixedWidth(PROGRESS_WIDTH)
        self.search_progress.hide()
        self.totals = QLabel()
        self.totals.setObjectName("discoveryTotals")
        self.totals.setWordWrap(True)
        search_row = QHBoxLayout()
        search_row.addWidget(self.search_button)
        search_row.addWidget(self.search_progress)
        search_row.addWidget(self.totals, 1)
        return search_row

    def _build_results(self) -> None:
        """The stores found, or the sentence saying why there are none, in one place."""
        self.results = QTreeWidget()
        self.results.setObjectName("discoveryResults")
        self.results.setColumnCount(DCOL_PROBLEMS + 1)
        self.results.setRootIsDecorated(True)
        self.results.setUniformRowHeights(True)
        self.results.setAlternatingRowColors(True)
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # A store is told apart by its end (…/web-shop/.loki/memory); the start is the root.
        self.results.setTextElideMode(Qt.TextElideMode.ElideLeft)
        header = self.results.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The paths take the room the figures leave (whole in the tooltip).
        header.setSectionResizeMode(DCOL_PATH, QHeaderView.ResizeMode.Stretch)
        self.results_empty = QLabel()
        self.results_empty.setObjectName("discoveryEmpty")
        self.results_empty.setProperty("role", "empty")
        self.results_empty.setWordWrap(True)
        self.results_empty.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # The found stores, or the sentence saying why there are none, in the same place.
        self.results_view = QStackedWidget()
        self.results_view.setObjectName("discoveryView")
        self.results_view.addWidget(self.results)
        self.results_view.addWidget(self.results_empty)

    def _shortcuts(self) -> None:
        self.add_root_keys = QKeySequence(QKeySequence.StandardKey.Open)
        self.search_keys = QKeySequence(QKeySequence.StandardKey.Find)
        page = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.add_root_shortcut = QShortcut(self.add_root_keys, self)
        self.search_shortcut = QShortcut(self.search_keys, self)
        for shortcut, slot in (
            (self.add_root_shortcut, self.add_root),
            (self.search_shortcut, self.search),
        ):
            shortcut.setContext(page)
            shortcut.activated.connect(slot)
        # Delete removes the chosen folder only while the folder list has the focus.
        self.remove_keys = QKeySequence(QKeySequence.StandardKey.Delete)
        self.remove_shortcut = QShortcut(self.remove_keys, self.roots_list)
        self.remove_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.remove_shortcut.activated.connect(self.remove_root)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Projects")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Folder"),
                self.tr("Exists"),
                self.tr("User"),
                self.tr("Feedback"),
                self.tr("Project"),
                self.tr("Reference"),
                self.tr("Skill"),
                self.tr("Journal"),
                self.tr("Unreviewed"),
                self.tr("Used / limit"),
                self.tr("Room left"),
                self.tr("Memory space"),
            ]
        )
        self.open_button.setText(self.tr("Show memories"))
        self.open_button.setToolTip(self.tr("Open the Memories page for this row (Enter)"))
        self.empty.setText(
            self.tr(
                "No project has memories yet. When an agent remembers something about a "
                "folder it works in, that project is listed here."
            )
        )
        self._fill()
        self.discovery_group.setTitle(self.tr("Other memory stores"))
        self.discovery_hint.setText(
            self.tr(
                "LiveAgent and Loki Mode memory stores in these folders and their subfolders "
                "(up to %n levels deep), only read, never changed.",
                "",
                config.PROJECTS_DEFAULT_MAX_DEPTH,
            )
        )
        # What the Help menu's shortcut list says each key does (ui/help.py).
        self.add_root_shortcut.setWhatsThis(self.tr("Add a folder to search"))
        self.search_shortcut.setWhatsThis(self.tr("Look for memory stores in these folders"))
        self.remove_shortcut.setWhatsThis(self.tr("Stop searching the chosen folder"))
        self.add_root_button.setText(self.tr("Add folder…"))
        self.add_root_button.setToolTip(
            self.tr("Add a folder to search (%1)").replace("%1", _keys(self.add_root_keys))
        )
        self.remove_root_button.setText(self.tr("Remove"))
        self.remove_root_button.setToolTip(
            self.tr("Stop searching the chosen folder (%1)").replace("%1", _keys(self.remove_keys))
        )
        self.search_button.setText(self.tr("Search"))
        self.search_button.setToolTip(
            self.tr("Look for memory stores in these folders (%1)").replace(
                "%1", _keys(self.search_keys)
            )
        )
        self.results.setHeaderLabels(
            [
                self.tr("Folder"),
                self.tr("Kind"),
                self.tr("Projects /\nnamespaces"),
                self.tr("Total"),
                self.tr("Contents"),
                self.tr("Problems"),
            ]
        )
        self.problems_heading.setText(self.tr("Problems"))
        self.loki_import.retranslate()
        self.merge_bar.retranslate()
        self.sync_bar.retranslate()
        self._fill_roots()
        self._fill_discovery()

    # --- loading ----------------------------------------------------------------------------
    async def load(self) -> None:
        """Fetch every project's figures (one command, one query in the store) and the folders
        searched for other stores (settings.json); the search itself runs only on request."""
        try:
            result = await self.client.call("memory_projects", {})
        except MemoryDomainError as exc:  # shown to the person; the table keeps its rows
            self.error_did_occur.emit(exc)
        else:
            self.rows = list(result["projects"])
            self._fill()
        try:
            view = await self.client.call("settings_get", {})
        except MemoryDomainError as exc:  # a broken settings.json: the list keeps what it shows
            self.error_did_occur.emit(exc)
            return
        self.roots = [str(root) for root in view["settings"].get("discovery_roots", ())]
        self._fill_roots()
        self._fill_discovery()
        try:
            status = await self.client.call("sync_status", {})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.sync_bar.show_state(status, int(view["settings"].get("sync_interval_minutes", 0)))

    def _fill(self) -> None:
        chosen = self.selected()
        keep = (chosen["scope"], chosen["workdir_hash"]) if chosen else None
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.rows))
        for number, row in enumerate(self.rows):
            for column, item in enumerate(row_items(row)):
                item.setData(HASH_ROLE, row["workdir_hash"])
                self.table.setItem(number, column, item)
            if keep == (row["scope"], row["workdir_hash"]):
                self.table.selectRow(number)
        self.table.resizeRowsToContents()  # a project seen at several paths lists them all
        self.folder_width.fit()
        projects = sum(row["scope"] == "project" for row in self.rows)
        self.empty.setVisible(bool(self.rows) and projects == 0)
        self.count.setText(self.tr("%n projects", "", projects))
        self._on_current()

    async def prepare_screenshot(self) -> None:
        """Select the first project, so the action button shows enabled; search the saved
        folders for other stores, if any, so the lower half shows what it is for."""
        self.table.selectRow(1 if len(self.rows) > 1 else 0)
        if self.roots and not self.searching and not self.searched:
            self._set_searching(True)
            await self._search(list(self.roots))

    # --- actions ----------------------------------------------------------------------------
    def selected(self) -> dict[str, Any] | None:
        """The row chosen in the table (its memory_projects entry), if any."""
        row = self.table.currentRow()
        if not 0 <= row < len(self.rows) or not self.table.selectionModel().hasSelection():
            return None
        return self.rows[row]

    def _on_current(self, *_args: object) -> None:
        self.open_button.setEnabled(self.selected() is not None)
        self.merge_bar.choose(self.selected())

    def open_memories(self) -> None:
        """Show the Memories page, narrowed to the chosen project when that page can do it."""
        row = self.selected()
        if row is None:
            return
        self.context.open_page("memories")
        # The Memories page may offer `show_project(workdir_hash)` ('' = the global scope).
        show = getattr(self.other_page("memories"), "show_project", None)
        if callable(show):
            show(row["workdir_hash"])

    # --- other stores: the folders searched ---------------------------------------------------
    def _fill_roots(self) -> None:
        chosen = self.chosen_root()
        self.roots_list.clear()
        for root in self.roots:
            item = QListWidgetItem(root)
            if root in self.missing_roots:
                item.setForeground(QBrush(QColor(MISSING_COLOR)))
                item.setToolTip(
                    self.tr("%1\nNot found in the last search: moved or deleted?").replace(
                        "%1", root
                    )
                )
            else:
                item.setToolTip(root)
            self.roots_list.addItem(item)
            if root == chosen:
                self.roots_list.setCurrentItem(item)
        self._update_discovery_buttons()

    def chosen_root(self) -> str | None:
        """The folder chosen in the list, if any."""
        items = self.roots_list.selectedItems()
        return items[0].text() if items else None

    def _update_discovery_buttons(self) -> None:
        self.add_root_button.setEnabled(len(self.roots) < config.PROJECTS_MAX_ROOTS)
        self.remove_root_button.setEnabled(self.chosen_root() is not None)
        self.search_button.setEnabled(bool(self.roots) and not self.searching)

    def add_root(self) -> None:
        """Ask for a folder and add it to the searched folders (saved in settings.json)."""
        if len(self.roots) >= config.PROJECTS_MAX_ROOTS:
            return
        start = self.chosen_root() or str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a folder to search"), start)
        if not folder:
            return  # the person cancelled
        if folder not in self.roots:
            self.roots.append(folder)
            self._save_roots()
        self._fill_roots()
        self.roots_list.setCurrentRow(self.roots.index(folder))
        self._fill_discovery()

    def remove_root(self) -> None:
        """Stop searching the chosen folder (saved in settings.json); found stores stay shown."""
        root = self.chosen_root()
        if root is None or root not in self.roots:
            return
        row = self.roots.index(root)
        self.roots.remove(root)
        self.missing_roots.pop(root, None)
        self._save_roots()
        self._fill_roots()
        if self.roots:
            self.roots_list.setCurrentRow(min(row, len(self.roots) - 1))
        self._fill_discovery()

    def _save_roots(self) -> None:
        if loop_is_running():
            self.client.bridge.spawn(self._save_roots_now(list(self.roots)))

    async def _save_roots_now(self, roots: list[str]) -> None:
        # Only this field is sent: settings_save_memory merges it into the saved settings.
        # No changes_did_apply: no memory changed, and other pages need not re-query.
        try:
            await self.client.call("settings_save_memory", {"settings": {"discovery_roots": roots}})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)

    # --- other stores: the search -------------------------------------------------------------
    def search(self) -> None:
        """Walk the folders for other stores on the store worker; the page stays usable."""
        if self.searching or not self.roots or not loop_is_running():
            return
        self._set_searching(True)
        self.client.bridge.spawn(self._search(list(self.roots)))

    def _set_searching(self, searching: bool) -> None:
        self.searching = searching
        self.search_progress.setVisible(searching)
        self._update_discovery_buttons()
        self._fill_discovery()

    async def _search(self, roots: list[str]) -> None:
        try:
            result, missing = await self._discover(roots)
        except MemoryDomainError as exc:  # shown to the person; the last results stay
            self.error_did_occur.emit(exc)
            return
        finally:
            self._set_searching(False)
        self.discovery = result
        self.missing_roots = missing
        self.searched = True
        self._fill_roots()
        self._fill_discovery()

    async def _discover(self, roots: list[str]) -> tuple[dict[str, Any] | None, dict[str, str]]:
        """The discovery over the roots that still exist, and the roots that do not.

        Trigger: the command refuses a request naming a folder that is gone (InvalidArgument
        with field `roots.<i>`, before any walk). Outcome: that root is reported and the
        others are searched; None when no root is left.
        """
        remaining = list(roots)
        missing: dict[str, str] = {}
        while remaining:
            try:
                result = await self.client.call("projects_discover", {"roots": remaining})
            except InvalidArgument as exc:
                index = _root_index(exc.field)
                if index is None or index >= len(remaining):
                    raise
                missing[remaining.pop(index)] = exc.message
                continue
            return result, missing
        return None, missing

    # --- other stores: what was found ---------------------------------------------------------
    def _fill_discovery(self) -> None:
        found = self.discovery["discovered"] if self.discovery else []
        top = [self.results.topLevelItem(i) for i in range(self.results.topLevelItemCount())]
        expanded = {item.toolTip(DCOL_PATH) for item in top if item and item.isExpanded()}
        self.results.clear()
        for store in found:
            item = self._store_item(store)
            self.results.addTopLevelItem(item)
            item.setExpanded(store["path"] in expanded)  # a re-label keeps what was open
        self.results_empty.setText(self._empty_text())
        self.results_view.setCurrentWidget(self.results if found else self.results_empty)
        self.totals.setText(self._totals_text())
        self._fill_problems()

    def _empty_text(self) -> str:
        if self.searching:
            return self.tr("Searching…")
        if not self.roots:
            return self.tr(
                "Add a folder to search, for example the one that holds your code projects."
            )
        if not self.searched:
            return self.tr("Press Search to look for memory stores in these folders.")
        if self.discovery is None:
            return self.tr("None of these folders could be searched: see the problems below.")
        return self.tr("No other memory stores were found in these folders.")

    def _totals_text(self) -> str:
        if self.searching:
            return self.tr("Searching %n folders…", "", len(self.roots))
        if self.discovery is None:
            return ""
        totals = self.discovery["totals"]
        parts = [
            self.tr("%n stores found", "", totals["stores"]),
            self.tr("%n projects", "", totals["projects"]),
            self.tr("%n LiveAgent memories", "", totals["memories"]),
            self.tr("%n episodes", "", totals["episodes"]),
            self.tr("%n patterns", "", totals["patterns"]),
            self.tr("%n skills", "", totals["skills"]),
            self._scanned_text(totals["dirs_scanned"], self.discovery["duration_ms"]),
        ]
        text = " · ".join(parts)
        if any(store["is_this_store"] for store in self.discovery["discovered"]):
            text += "\n" + self.tr("This store is listed but not counted in the totals.")
        if totals["depth_limited"]:
            text += "\n" + self.tr(
                "%n folders lie deeper than %1 levels and were not searched.",
                "",
                totals["depth_limited"],
            ).replace("%1", str(self.discovery["max_depth"]))
        return text

    def _scanned_text(self, folders: int, duration_ms: float) -> str:
        if duration_ms < 1000:
            took = self.tr("%n folders searched in %1 ms", "", folders)
            return took.replace("%1", str(round(duration_ms)))
        took = self.tr("%n folders searched in %1 s", "", folders)
        return took.replace("%1", f"{duration_ms / 1000:.1f}")

    def _kind_text(self, kind: str) -> str:
        names = {"liveagent": self.tr("LiveAgent"), "loki": self.tr("Loki Mode")}
        return names.get(kind, kind)

    def _contents_text(self, kind: str, counts: dict[str, int], episodes: int) -> str:
        """What a store or scope holds: memories per type (LiveAgent), or Loki Mode's kinds."""
        if kind == "loki":
            parts = [
                (self.tr("episodes"), counts.get("episodic", 0)),
                (self.tr("patterns"), counts.get("semantic", 0)),
                (self.tr("skills"), counts.get("skills", 0)),
            ]
            return " · ".join(f"{label} {n}" for label, n in parts)
        shown = [f"{value_text(name)} {n}" for name, n in counts.items() if n]
        if episodes:
            label = self.tr("episodes")
            shown.append(f"{label} {episodes}")
        return " · ".join(shown) or self.tr("empty")

    def _store_item(self, store: dict[str, Any]) -> QTreeWidgetItem:
        """A found store's row, with a child row per scope (global, project or namespace)."""
        kind = store["kind"]
        path = store["path"]
        scopes = store["scopes"]
        # LiveAgent: projects with memories; Loki Mode: its namespaces, `default` included.
        projects = store["project_count"] if kind == "liveagent" else len(scopes)
        item = QTreeWidgetItem()
        if store["is_this_store"]:
            item.setText(DCOL_PATH, self.tr("%1 (this store)").replace("%1", path))
        else:
            item.setText(DCOL_PATH, path)
        item.setToolTip(DCOL_PATH, path)
        item.setData(DCOL_PATH, LOKI_ROLE, path if kind == "loki" else None)
        font = item.font(DCOL_PATH)
        font.setBold(True)
        item.setFont(DCOL_PATH, font)
        item.setText(DCOL_KIND, self._kind_text(kind))
        item.setText(DCOL_PROJECTS, str(projects))
        item.setText(DCOL_TOTAL, str(store["total"]))
        episodes = store["episodes"] if kind == "liveagent" else 0  # Loki: in its counts
        contents = self._contents_text(kind, store["counts"], episodes)
        item.setText(DCOL_CONTENTS, contents)
        item.setToolTip(DCOL_CONTENTS, contents)
        problems = store["problems"]
        item.setText(DCOL_PROBLEMS, str(len(problems)) if problems else "—")
        if problems:
            item.setForeground(DCOL_PROBLEMS, QBrush(QColor(MISSING_COLOR)))
            lines = [self._problem_text(p["code"], p["path"]) for p in problems]
            item.setToolTip(DCOL_PROBLEMS, "\n".join(lines))
        for column in (DCOL_PROJECTS, DCOL_TOTAL, DCOL_PROBLEMS):
            item.setTextAlignment(column, RIGHT)
        for scope in scopes:
            child = self._scope_item(kind, path, scope)
            child.setData(DCOL_PATH, LOKI_ROLE, item.data(DCOL_PATH, LOKI_ROLE))
            item.addChild(child)
        return item

    def _scope_item(self, kind: str, store_path: str, scope: dict[str, Any]) -> QTreeWidgetItem:
        child = QTreeWidgetItem()
        if scope["scope"] == "global":
            child.setText(DCOL_PATH, self.tr("Global"))
            child.setToolTip(DCOL_PATH, self.tr("Memories shared by every project"))
        elif scope["scope"] == "project":
            workdir = scope["workdir"]
            unknown = self.tr("Unknown folder (%1)").replace("%1", scope["key"])
            child.setText(DCOL_PATH, workdir or unknown)
            key = self.tr("Project key: %1").replace("%1", scope["key"])
            folder = str(Path(store_path) / "projects" / scope["key"])
            child.setToolTip(DCOL_PATH, f"{workdir or unknown}\n{key}\n{folder}")
        else:
            child.setText(DCOL_PATH, scope["key"])
            child.setToolTip(DCOL_PATH, self.tr("Loki Mode namespace"))
        child.setText(DCOL_TOTAL, str(scope["total"]))
        child.setTextAlignment(DCOL_TOTAL, RIGHT)
        contents = self._contents_text(kind, scope["counts"], 0)
        child.setText(DCOL_CONTENTS, contents)
        child.setToolTip(DCOL_CONTENTS, contents)
        return child

    def _problem_text(self, code: str, path: str) -> str:
        """A problem the walk or the count met, as one line naming the folder or file."""
        templates = {
            "missing_root": self.tr("Folder not found: %1"),
            "permission_denied": self.tr("Permission denied: %1"),
            "unreadable": self.tr("Could not be read: %1"),
            "vanished": self.tr("Removed during the search: %1"),
            "symlink_loop": self.tr("A link to a folder already searched: %1"),
            "corrupt_json": self.tr("Not valid JSON: %1"),
            "too_large": self.tr("Too large to read: %1"),
            "unexpected_shape": self.tr("Not in the expected format: %1"),
            "not_a_project_folder": self.tr("Not a project folder (wrong name): %1"),
        }
        template = templates.get(code)
        return template.replace("%1", path) if template else f"{code}: {path}"

    def _fill_problems(self) -> None:
        """Missing roots, folders the walk could not enter, and files a count could not use."""
        self.problems.clear()
        lines: list[tuple[str, str, bool]] = []  # (text, the core's detail, the folder is gone)
        for root, message in self.missing_roots.items():
            lines.append((self._problem_text("missing_root", root), message, True))
        if self.discovery is not None:
            for skip in self.discovery["skipped"]:
                lines.append(
                    (self._problem_text(skip["reason"], skip["path"]), skip["message"], False)
                )
            for store in self.discovery["discovered"]:
                for problem in store["problems"]:
                    text = self._problem_text(problem["code"], problem["path"])
                    lines.append((text, problem["message"], False))
        for text, detail, gone in lines:
            item = QListWidgetItem(text)
            item.setToolTip(f"{text}\n{detail}" if detail else text)
            if gone:
                item.setForeground(QBrush(QColor(MISSING_COLOR)))
            self.problems.addItem(item)
        if self.discovery is not None:
            more = self.discovery["skipped_total"] - len(self.discovery["skipped"])
            if more > 0:
                self.problems.addItem(
                    self.tr("…and %n more folders that could not be searched", "", more)
                )
        rows = self.problems.count()
        self.problems_heading.setVisible(rows > 0)
        self.problems.setVisible(rows > 0)
        # As tall as its lines, up to a few; then it scrolls.
        self.problems.setFixedHeight(
            min(max(rows, 1), PROBLEMS_VISIBLE_ROWS) * self._row_height + 8
        )


def _keys(keys: QKeySequence) -> str:
    """A shortcut as the platform writes it (Ctrl+O, ⌘O)."""
    return keys.toString(QKeySequence.SequenceFormat.NativeText)


def _root_index(field: str | None) -> int | None:
    """The root a projects_discover InvalidArgument names (`roots.<i>`), if any."""
    prefix = "roots."
    if field is None or not field.startswith(prefix) or not field[len(prefix) :].isdigit():
        return None
    return int(field[len(prefix) :])

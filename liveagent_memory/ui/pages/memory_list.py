"""The Memories page's table: the memories a filter keeps, a page at a time, or a search's
best matches, sortable by any column, with a count below and a selection that survives a
reload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.sorting import SortField
from liveagent_memory.ui.models import (
    COLUMNS,
    PAGE_SIZE,
    TITLE_COLUMN,
    Key,
    MemoryListModel,
    OneLineDelegate,
    Row,
    column_of,
    sort_request,
)
from liveagent_memory.ui.pages.base import PagePart

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage

SEARCH_LIMIT = config.SEARCH_MAX_LIMIT  # search shows its best matches, not a listing
# Starting widths of the columns after the title (which takes the rest): what each shows at
# its widest in English (Chinese words are narrower), measured in the table's font.
COLUMN_SAMPLES = {
    SortField.TYPE: "reference",
    SortField.SCOPE: "my-project",  # longer names are elided; the tooltip has the path
    SortField.REVIEWED: "Unreviewed",
    SortField.CONFIDENCE: "medium",
    SortField.RISK: "⚠ medium",
    SortField.UPDATED: "2026-12-31",
}
CELL_PADDING = 16  # pixels beside a cell's text, and for the bold of a mark
# Hidden until the person shows them (the header's context menu): at 1024 px the title
# keeps room to be read; the filters above cover type and confidence.
HIDDEN_AT_FIRST = (SortField.TYPE, SortField.CONFIDENCE)


class MemoryTable(QTableView):
    """The table view, knowing whether a selection change came from a person.

    A click, a drag or a key pressed in the table is a person choosing rows
    (`person_acting`); a reload re-selecting a memory, or a page's own code moving the
    selection, is not.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.person_acting = False

    def _by_person(self, handle: Callable[[], None]) -> None:
        self.person_acting = True
        try:
            handle()
        finally:
            self.person_acting = False

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._by_person(lambda: super(MemoryTable, self).mousePressEvent(event))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._by_person(lambda: super(MemoryTable, self).mouseMoveEvent(event))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._by_person(lambda: super(MemoryTable, self).mouseReleaseEvent(event))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self._by_person(lambda: super(MemoryTable, self).keyPressEvent(event))


class MemoryListPane(QWidget, PagePart):
    """The table of memories and its count.

    The model holds only the pages of rows looked at (STYLE 4), so 10k memories scroll
    smoothly; a search shows its (few) best matches. A click on a column's header sorts by
    it over every memory the filters keep (the store sorts: `memory_list`'s `sort`), a
    second click turns the order round, a third goes back to newest first (a search: most
    relevant first). The header's context menu hides and shows columns. After a reload the
    memory selected before (`selected_key`) is selected again, else the row where it was
    (`fallback_row`).

    Signals:
        selection_did_change: the selected rows or the current row changed (a click changes
            both: one signal for the two).
        person_did_select: ...and a person did it (a click or a key in the table).
        row_activated: a row was double-clicked.
        error_did_occur(object): a load failed with a MemoryDomainError.
        sort_did_change: a header click changed the order; the owner reloads.
    """

    selection_did_change = Signal()
    person_did_select = Signal()
    row_activated = Signal()
    error_did_occur = Signal(object)
    sort_did_change = Signal()

    def __init__(self, page: DrawerPage, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page = page
        self.model = MemoryListModel(self)
        self.selected_key: Key | None = None  # re-selected after every reload
        self.fallback_row = 0  # selected instead when that memory is gone (e.g. deleted)
        self._generation = 0  # a load finishing after a newer one is dropped
        self._by_person = False  # the pending selection signal comes from a person
        self.count = QLabel()
        self.count.setProperty("role", "muted")
        self.list = MemoryTable()
        self.list.setObjectName("memory_list")
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setItemDelegate(OneLineDelegate(self.list))  # sizes rows without reading one
        self.list.setShowGrid(False)
        self.list.setWordWrap(False)
        self.list.setCornerButtonEnabled(False)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._set_up_rows()
        self.header = self.list.horizontalHeader()
        self._set_up_header()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.count)
        self._connect()

    def _set_up_rows(self) -> None:
        """One fixed height for every row: nothing is read to size 10k rows."""
        rows = self.list.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        option = QStyleOptionViewItem()
        option.initFrom(self.list)
        height = self.list.itemDelegate().sizeHint(option, QModelIndex()).height()
        rows.setDefaultSectionSize(height)
        rows.setMinimumSectionSize(height)

    def _set_up_header(self) -> None:
        header = self.header
        header.setObjectName("memory_table_header")  # its state is remembered by this name
        header.setSectionsMovable(True)
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicatorClearable(True)  # a third click: back to the default order
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.setStretchLastSection(False)
        header.setHighlightSections(False)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TITLE_COLUMN, QHeaderView.ResizeMode.Stretch)
        self._size_columns()
        for field in HIDDEN_AT_FIRST:
            header.setSectionHidden(column_of(field), True)

    def _size_columns(self) -> None:
        """Each column after the title as wide as its widest word (bold: a mark is) or its
        header with the sort arrow, whichever is wider."""
        bold = QFont(self.list.font())
        bold.setBold(True)
        cells, heads = QFontMetrics(bold), QFontMetrics(self.header.font())
        arrow = self.header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize)
        for field, sample in COLUMN_SAMPLES.items():
            column = column_of(field)
            label = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            width = max(cells.horizontalAdvance(sample), heads.horizontalAdvance(label) + arrow)
            self.header.resizeSection(column, width + CELL_PADDING)

    def _connect(self) -> None:
        # Selection and current row both change on a click: one zero-time timer coalesces them.
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._selection_settled)
        selection = self.list.selectionModel()
        selection.currentChanged.connect(lambda _c, _p: self._selection_moved())
        selection.selectionChanged.connect(lambda _s, _d: self._selection_moved())
        self.list.doubleClicked.connect(lambda _index: self.row_activated.emit())
        self.model.fetch_did_fail.connect(self.error_did_occur.emit)
        self.header.sortIndicatorChanged.connect(lambda _c, _o: self.sort_did_change.emit())
        self.header.customContextMenuRequested.connect(self._header_menu)

    def _selection_moved(self) -> None:
        self._by_person = self._by_person or self.list.person_acting
        self._selection_timer.start()

    def _selection_settled(self) -> None:
        by_person, self._by_person = self._by_person, False
        self.selection_did_change.emit()
        if by_person:
            self.person_did_select.emit()

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.model.retranslate()
        self.update_count()

    def update_count(self) -> None:
        self.count.setText(self.tr("%n memories", "", self.model.rowCount()))

    # --- columns ----------------------------------------------------------------------------
    def column_menu(self) -> QMenu:
        """A menu with a checkable entry per column; the title column always stays."""
        menu = QMenu(self)
        for column in range(len(COLUMNS)):
            label = self.model.headerData(column, Qt.Orientation.Horizontal)
            action = QAction(str(label), menu)
            action.setCheckable(True)
            action.setChecked(not self.header.isSectionHidden(column))
            action.setEnabled(column != TITLE_COLUMN)
            action.toggled.connect(
                lambda shown, column=column: self.header.setSectionHidden(column, not shown)
            )
            menu.addAction(action)
        return menu

    def _header_menu(self, point: QPoint) -> None:
        menu = self.column_menu()
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(self.header.mapToGlobal(point))

    def sort_fields(self) -> dict[str, str]:
        """The sort the header shows, as `memory_list` fields ({} for the default order)."""
        if not self.header.isSortIndicatorShown():
            return {}
        return sort_request(self.header.sortIndicatorSection(), self.header.sortIndicatorOrder())

    # --- loading ----------------------------------------------------------------------------
    async def load(self, query: str, filters: dict[str, Any]) -> bool:
        """Show the matches of `query` ('' = list them all) among the memories `filters` keep.

        False when nothing changed: the load failed (the list keeps its old rows) or a newer
        load (another filter, more typing, a header click) already replaced this one.
        """
        self._generation += 1
        generation = self._generation
        filters = {**filters, **self.sort_fields()}
        try:
            if query:
                rows = await self._search_rows(query, filters)
            else:
                total, pages = await self._first_pages(filters)
        except MemoryDomainError as exc:  # shown to the person; the list keeps its old rows
            self.error_did_occur.emit(exc)
            return False
        if generation != self._generation:
            return False
        if query:
            self.model.set_rows(rows)
        else:
            fetch = self._page_fetcher(filters)
            self.model.set_paged(total, pages, fetch, self.client.bridge.spawn)
        self.update_count()
        return True

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
        """The best matches of `query` among the memories the filters keep, as list rows.

        memory_search takes the list's filter (domain/filters.py) and applies it before its
        limit, so a filtered search shows matches however far down the unfiltered ranking.
        memory_list then gives the matches' rows (every column), most relevant first, or
        sorted as the header says.
        """
        sort: dict[str, Any] = {k: filters.pop(k) for k in ("sort", "direction") if k in filters}
        payload = {**filters, "query": query, "limit": SEARCH_LIMIT}
        matches = (await self.page.context.search.search(payload))["matches"]
        if not matches:
            return []
        keys = [
            {"scope": m["scope"], "workdir_hash": m.get("workdir_hash") or "", "slug": m["slug"]}
            for m in matches
        ]
        # Journal days a search finds are listed as the search found them.
        listing: dict[str, Any] = {**filters, **sort, "keys": keys}
        listing.update(include_daily=True, limit=len(keys))
        return list((await self.client.call("memory_list", listing))["entries"])

    # --- selection --------------------------------------------------------------------------
    def selected_rows(self) -> list[int]:
        return sorted(index.row() for index in self.list.selectionModel().selectedRows())

    def selected_entries(self) -> list[Row]:
        """The selected rows that are loaded (a 10k selection may hold placeholders)."""
        rows = (self.model.entry(row) for row in self.selected_rows())
        return [entry for entry in rows if entry is not None]

    def reselect(self) -> bool:
        """After a reload: select the memory selected before, else its neighbour; False when
        the list is empty."""
        row = self.model.row_of(self.selected_key) if self.selected_key else -1
        if row < 0 and self.model.rowCount():
            row = min(self.fallback_row, self.model.rowCount() - 1)
        if row < 0:
            return False
        self.list.setCurrentIndex(self.model.index(row))
        return True

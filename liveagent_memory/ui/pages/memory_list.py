"""The Memories page's list: the memories a filter keeps, a page at a time, or a search's
best matches, with a count below and a selection that survives a reload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QLabel, QListView, QVBoxLayout, QWidget

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import PAGE_SIZE, Key, MemoryListModel, OneLineDelegate, Row

if TYPE_CHECKING:
    from liveagent_memory.ui.bridge import StoreClient
    from liveagent_memory.ui.pages.base import DrawerPage

SEARCH_LIMIT = config.SEARCH_MAX_LIMIT  # search shows its best matches, not a listing


class MemoryListPane(QWidget):
    """The list of memories and its count.

    The model holds only the pages of rows looked at (STYLE 4), so 10k memories scroll
    smoothly; a search shows its (few) best matches directly. After a reload the memory
    selected before (`selected_key`) is selected again, else the row where it was
    (`fallback_row`).

    Signals:
        selection_did_change: the selected rows or the current row changed (a click changes
            both: one signal for the two).
        row_activated: a row was double-clicked.
        error_did_occur(object): a load failed with a MemoryDomainError.
    """

    selection_did_change = Signal()
    row_activated = Signal()
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page = page
        self.model = MemoryListModel(self)
        self.selected_key: Key | None = None  # re-selected after every reload
        self.fallback_row = 0  # selected instead when that memory is gone (e.g. deleted)
        self._generation = 0  # a load finishing after a newer one is dropped
        self.count = QLabel()
        self.count.setProperty("role", "muted")
        self.list = QListView()
        self.list.setObjectName("memory_list")
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)  # one size query for 10k rows, not 10k
        self.list.setItemDelegate(OneLineDelegate(self.list))  # ...which reads no row
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.count)
        self._connect()

    def _connect(self) -> None:
        # Selection and current row both change on a click: one zero-time timer coalesces them.
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self.selection_did_change.emit)
        selection = self.list.selectionModel()
        selection.currentChanged.connect(lambda _c, _p: self._selection_timer.start())
        selection.selectionChanged.connect(lambda _s, _d: self._selection_timer.start())
        self.list.doubleClicked.connect(lambda _index: self.row_activated.emit())
        self.model.fetch_did_fail.connect(self.error_did_occur.emit)

    @property
    def client(self) -> StoreClient:
        """The page's command client, read when used (a test may swap the page's)."""
        return self.page.client

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.update_count()

    def update_count(self) -> None:
        self.count.setText(self.tr("%n memories", "", self.model.rowCount()))

    # --- loading ----------------------------------------------------------------------------
    async def load(self, query: str, filters: dict[str, Any]) -> bool:
        """Show the matches of `query` ('' = list them all) among the memories `filters` keep.

        False when nothing changed: the load failed (the list keeps its old rows) or a newer
        load (another filter, more typing) already replaced this one.
        """
        self._generation += 1
        generation = self._generation
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
        """The best matches of `query` among the memories the filters keep.

        memory_search takes the list's filter (domain/filters.py) and applies it before its
        limit, so a filtered search shows matches however far down the unfiltered ranking.
        """
        payload = {**filters, "query": query, "limit": SEARCH_LIMIT}
        return list((await self.page.context.search.search(payload))["matches"])

    # --- selection --------------------------------------------------------------------------
    def selected_rows(self) -> list[int]:
        return sorted(index.row() for index in self.list.selectionModel().selectedRows())

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

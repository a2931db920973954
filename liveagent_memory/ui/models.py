"""Qt item models over command results (STYLE 4: models hold rows by position, fetched lazily)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QMargins,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from liveagent_memory.domain.errors import MemoryDomainError

Index = QModelIndex | QPersistentModelIndex
Row = dict[str, Any]
Key = tuple[str, str, str]
KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # (scope, workdir_hash, slug): a memory's identity
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2  # the row as the command returned it
# Rows per memory_list call: a screen shows ~30 rows, so one call fills several screens while
# each stays a few milliseconds on a 10k-memory store (and well under LIST_MAX_LIMIT).
PAGE_SIZE = 200
PLACEHOLDER_COLOR = QColor("#9aa3ae")  # a row still loading reads as "not there yet"
ROW_PADDING = 6  # pixels above and below a row's line of text: rows are easier to hit

# fetch(offset, limit) -> (rows, total matching now); spawn(coro) starts an owned task.
PageFetcher = Callable[[int, int], Awaitable[tuple[list[Row], int]]]
Spawner = Callable[[Coroutine[Any, Any, None]], object]


def loop_is_running() -> bool:
    """True inside the asyncio loop; false when Qt delivers an event outside it (a synchronous
    processEvents, e.g. while the app shuts down), when no task can be started."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def key_of(row: Row) -> Key:
    """A memory's identity in a row: (scope, workdir_hash, slug)."""
    return (row["scope"], row.get("workdir_hash") or "", row["slug"])


class MemoryListModel(QAbstractListModel):
    """Memories as returned by memory_list / memory_search, one row each, loaded in pages.

    `set_rows` shows a small result (a search) directly. `set_paged` shows a listing of
    `total` rows of which only some pages are known; `data()` for a row not loaded yet returns
    a placeholder and asks for its page once. Pages load one at a time, the most recently
    asked first (the one on screen after a fast scroll), and a page that arrives after the
    next reset (a newer query) is dropped.

    Signals:
        fetch_did_fail(object): loading a page failed with a MemoryDomainError; the rows stay
            placeholders.
        total_did_change(): a page reported a different total: the listing changed underneath,
            so the owner should query again.
    """

    fetch_did_fail = Signal(object)
    total_did_change = Signal()

    def __init__(self, parent: QObject | None = None, *, page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent)
        self.page_size = page_size
        self._total = 0
        self._pages: dict[int, list[Row]] = {}
        self._wanted: dict[int, None] = {}  # pages asked for and not loaded, oldest first
        self._failed: set[int] = set()
        self._fetch: PageFetcher | None = None
        self._spawn: Spawner | None = None
        self._generation = 0
        self._loading = False

    # --- filling ----------------------------------------------------------------------------
    def set_rows(self, rows: list[Row]) -> None:
        """Show these rows (all of them known): a search result."""
        self._reset(len(rows), self._chunk(rows), None, None)

    def set_paged(
        self, total: int, pages: dict[int, list[Row]], fetch: PageFetcher, spawn: Spawner
    ) -> None:
        """Show a listing of `total` rows; `pages` are already known, the rest load on demand."""
        self._reset(total, {n: list(rows) for n, rows in pages.items()}, fetch, spawn)

    def _chunk(self, rows: list[Row]) -> dict[int, list[Row]]:
        size = self.page_size
        return {n // size: list(rows[n : n + size]) for n in range(0, len(rows), size)}

    def _reset(
        self,
        total: int,
        pages: dict[int, list[Row]],
        fetch: PageFetcher | None,
        spawn: Spawner | None,
    ) -> None:
        self.beginResetModel()
        self._generation += 1  # pages of the previous query still in flight are dropped
        self._total = total
        self._pages = pages
        self._wanted.clear()
        self._failed.clear()
        self._fetch, self._spawn = fetch, spawn
        self._loading = False
        self.endResetModel()

    @property
    def generation(self) -> int:
        """Bumped by every reset; a page fetched for an older generation is dropped."""
        return self._generation

    @property
    def total(self) -> int:
        return self._total

    # --- reading ----------------------------------------------------------------------------
    def entry(self, row: int) -> Row | None:
        """The row at `row` when its page is loaded, else None."""
        if not 0 <= row < self._total:
            return None
        page = self._pages.get(row // self.page_size)
        if page is None:
            return None
        offset = row % self.page_size
        return page[offset] if offset < len(page) else None

    def is_loaded(self, row: int) -> bool:
        return self.entry(row) is not None

    def loaded_rows(self) -> int:
        """How many rows are in memory (a 10k listing keeps only the pages looked at)."""
        return sum(len(page) for page in self._pages.values())

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else self._total

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self._total:
            return None
        row = self.entry(index.row())
        if row is None:
            self._want(index.row() // self.page_size)
            if role == Qt.ItemDataRole.DisplayRole:
                return QCoreApplication.translate("MemoryListModel", "Loading…")
            if role == Qt.ItemDataRole.ForegroundRole:
                return PLACEHOLDER_COLOR
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            marks = (" •" if row.get("unreviewed") else "") + (" ⚠" if row.get("risk_flag") else "")
            return f"{row.get('description') or row['slug']}{marks}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row['slug']} ({row['scope']}/{row['type']})"
        if role == KEY_ROLE:
            return key_of(row)
        if role == ENTRY_ROLE:
            return row
        return None

    def match(
        self,
        start: Index,
        role: int,
        value: Any,
        hits: int = 1,
        flags: Qt.MatchFlag = Qt.MatchFlag.MatchStartsWith | Qt.MatchFlag.MatchWrap,
    ) -> list[QModelIndex]:
        """Find rows among the loaded ones only (typing in the list must not load 10k rows).

        Text is matched case-insensitively from its start (or anywhere with MatchContains),
        from `start` on, wrapping when asked; that is what a view's keyboard search needs.
        """
        needle = str(value).casefold()
        first = start.row() if start.isValid() else 0
        rows = list(range(first, self._total))
        if flags & Qt.MatchFlag.MatchWrap:
            rows += list(range(0, first))
        found: list[QModelIndex] = []
        for row in rows:
            if self.entry(row) is None:
                continue
            text = str(self.data(self.index(row), role) or "").casefold()
            hit = needle in text if flags & Qt.MatchFlag.MatchContains else text.startswith(needle)
            if hit:
                found.append(self.index(row))
                if hits != -1 and len(found) >= hits:
                    break
        return found

    def row_of(self, key: Key) -> int:
        """The row of the memory `key` among the loaded rows, or -1."""
        for number, page in sorted(self._pages.items()):
            for offset, row in enumerate(page):
                if key_of(row) == key:
                    return number * self.page_size + offset
        return -1

    # --- loading ----------------------------------------------------------------------------
    def _want(self, page: int) -> None:
        if self._fetch is None or self._spawn is None or page in self._failed:
            return
        if not loop_is_running():
            return  # not asked for yet: the next paint inside the loop asks again
        self._wanted.pop(page, None)
        self._wanted[page] = None  # newest last: a fast scroll loads where it stopped first
        if not self._loading:
            self._loading = True
            self._spawn(self._load_wanted(self._generation))

    async def _load_wanted(self, generation: int) -> None:
        try:
            while self._wanted and generation == self._generation:
                page = next(reversed(self._wanted))
                del self._wanted[page]
                if page not in self._pages:
                    await self._load_page(page, generation)
        finally:
            if generation == self._generation:
                self._loading = False

    async def _load_page(self, page: int, generation: int) -> None:
        assert self._fetch is not None
        try:
            rows, total = await self._fetch(page * self.page_size, self.page_size)
        except MemoryDomainError as exc:  # reported once; not asked for again this query
            if generation == self._generation:
                self._failed.add(page)
                self.fetch_did_fail.emit(exc)
            return
        except Exception:
            # A bug: the task's failure reaches the window's one handler. The page is not asked
            # for again this query, or every repaint would raise it once more.
            if generation == self._generation:
                self._failed.add(page)
            raise
        if generation != self._generation:
            return  # a newer query replaced the list while this page was on its way
        self._pages[page] = list(rows[: self.page_size])
        first = page * self.page_size
        last = min(first + self.page_size, self._total) - 1
        if last >= first:
            self.dataChanged.emit(self.index(first), self.index(last))
        if total != self._total:
            self.total_did_change.emit()

    async def ensure_rows(self, rows: Iterable[int]) -> list[Row]:
        """Load every page holding `rows` (now, not lazily) and return those rows' entries.

        Rows that are still unknown afterwards (the listing shrank, or a fetch failed and was
        reported) are left out.
        """
        wanted = sorted({row for row in rows if 0 <= row < self._total})
        generation = self._generation
        for page in sorted({row // self.page_size for row in wanted}):
            if page not in self._pages and self._fetch is not None:
                await self._load_page(page, generation)
            if generation != self._generation:
                return []
        return [entry for entry in (self.entry(row) for row in wanted) if entry is not None]


class OneLineDelegate(QStyledItemDelegate):
    """Sizes every row as one line of text without reading the row.

    Qt sizes uniform rows by sampling the model's *last* row; through `data()` that would
    fetch the last page of a 10k listing before anything else. Rows are one line, so the
    size comes from the font alone.
    """

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        sample = QStyleOptionViewItem(option)
        sample.text = "Xg"  # one line of text: ascender and descender
        sample.features |= QStyleOptionViewItem.ViewItemFeature.HasDisplay
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        size = style.sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, sample, QSize(), widget)
        return size.grownBy(QMargins(0, ROW_PADDING // 2, 0, ROW_PADDING // 2))

"""Qt item models over command results (STYLE 4: models hold rows by position, fetched lazily)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from datetime import datetime
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QMargins,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.sorting import SortDirection, SortField, project_name
from liveagent_memory.ui.resources import icon
from liveagent_memory.ui.strings import value_text

Index = QModelIndex | QPersistentModelIndex
Row = dict[str, Any]
Key = tuple[str, str, str]
KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # (scope, workdir_hash, slug): a memory's identity
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2  # the row as the command returned it
# Rows per memory_list call: a screen shows ~30 rows, so one call fills several screens while
# each stays a few milliseconds on a 10k-memory store (and well under LIST_MAX_LIMIT).
PAGE_SIZE = 200
PLACEHOLDER_COLOR = QColor("#9aa3ae")  # a row still loading reads as "not there yet"
MARK_COLOR = QColor("#a35a00")  # an unreviewed or flagged row's mark: stands out, not an error
DAY_FORMAT = "%Y-%m-%d"  # the Updated column: the day (the tooltip has the time)
TIME_FORMAT = "%Y-%m-%d %H:%M"
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


class Column(NamedTuple):
    """A column of the memory table: the listing's sort field it shows, and its header."""

    field: SortField
    title: str  # translated in the MemoryListModel context
    first_order: Qt.SortOrder  # the direction a first click on its header sorts in


def _tr(text: str) -> str:
    return QCoreApplication.translate("MemoryListModel", text)


ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
# A first click shows what asks for attention first: unreviewed, flagged, the surest, newest.
COLUMNS: tuple[Column, ...] = (
    Column(SortField.TITLE, str(QT_TRANSLATE_NOOP("MemoryListModel", "Title")), ASC),
    Column(SortField.TYPE, str(QT_TRANSLATE_NOOP("MemoryListModel", "Type")), ASC),
    Column(SortField.SCOPE, str(QT_TRANSLATE_NOOP("MemoryListModel", "Scope")), ASC),
    Column(SortField.REVIEWED, str(QT_TRANSLATE_NOOP("MemoryListModel", "Review")), DESC),
    Column(SortField.CONFIDENCE, str(QT_TRANSLATE_NOOP("MemoryListModel", "Confidence")), DESC),
    Column(SortField.RISK, str(QT_TRANSLATE_NOOP("MemoryListModel", "Risk")), DESC),
    Column(SortField.UPDATED, str(QT_TRANSLATE_NOOP("MemoryListModel", "Updated")), DESC),
)
TITLE_COLUMN = 0


def column_of(field: SortField) -> int:
    """The column that shows `field`."""
    return next(n for n, column in enumerate(COLUMNS) if column.field is field)


def sort_request(column: int, order: Qt.SortOrder) -> dict[str, str]:
    """The sort fields of `memory_list` for a header's sort indicator ({} for none)."""
    if not 0 <= column < len(COLUMNS):
        return {}
    way = SortDirection.DESC if order == DESC else SortDirection.ASC
    return {"sort": COLUMNS[column].field.value, "direction": way.value}


def _local(ms: Any, fmt: str) -> str:
    return datetime.fromtimestamp(int(ms) / 1000).strftime(fmt) if ms else ""


def place_text(row: Row) -> str:
    """Where a memory is: "global", or its project's folder name."""
    if row.get("scope") != "project":
        return value_text(row.get("scope"))
    return project_name(row.get("workdir"), row.get("workdir_hash") or "")


def place_tip(row: Row) -> str:
    """The place in full: a project's folder path."""
    if row.get("scope") != "project":
        return value_text(row.get("scope"))
    if row.get("workdir"):
        return str(row["workdir"])
    return QCoreApplication.translate("MemoryListModel", "Folder unknown (project %1)").replace(
        "%1", row.get("workdir_hash") or ""
    )


class MemoryListModel(QAbstractTableModel):
    """Memories as returned by memory_list / memory_search, one row each, loaded in pages.

    The columns are `COLUMNS`: title, type, scope or project, review state, confidence, risk
    flag, last update. Unreviewed and flagged rows are marked in their own columns, with a
    short word. `set_rows` shows a small result (a search) directly. `set_paged` shows a
    listing of `total` rows of which only some pages are known; `data()` for a row not loaded
    yet returns a placeholder and asks for its page once. Pages load one at a time, the most
    recently asked first (the one on screen after a fast scroll), and a page that arrives
    after the next reset (a newer query) is dropped.

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
        self._bold = QFont()
        self._bold.setBold(True)

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

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(COLUMNS)

    def index(
        self,
        row: int,
        column: int = TITLE_COLUMN,
        parent: Index = QModelIndex(),  # noqa: B008 - Qt's signature
    ) -> QModelIndex:
        """A cell; the title's when no column is named (a row as a whole)."""
        return super().index(row, column, parent)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return _tr(COLUMNS[section].title)
        if role == Qt.ItemDataRole.InitialSortOrderRole:
            return COLUMNS[section].first_order
        return None

    def retranslate(self) -> None:
        """The headers and the words in the cells, again in the current language."""
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)
        if self._total:
            last = self.index(self._total - 1, len(COLUMNS) - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self._total:
            return None
        row = self.entry(index.row())
        if row is None:
            self._want(index.row() // self.page_size)
            if role == Qt.ItemDataRole.DisplayRole and index.column() == TITLE_COLUMN:
                return QCoreApplication.translate("MemoryListModel", "Loading…")
            if role == Qt.ItemDataRole.ForegroundRole:
                return PLACEHOLDER_COLOR
            return None
        if role == KEY_ROLE:
            return key_of(row)
        if role == ENTRY_ROLE:
            return row
        return self._cell(row, COLUMNS[index.column()].field, role)

    def _cell(self, row: Row, field: SortField, role: int) -> Any:
        """What a loaded row shows in the column of `field`, for `role`."""
        marked = (field is SortField.REVIEWED and row.get("unreviewed")) or (
            field is SortField.RISK and row.get("risk_flag")
        )
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, field)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(row, field)
        if role == Qt.ItemDataRole.ForegroundRole and marked:
            return MARK_COLOR
        if role == Qt.ItemDataRole.FontRole and marked:
            return self._bold
        if role == Qt.ItemDataRole.DecorationRole and field is SortField.RISK and marked:
            return icon("warning")
        return None

    def _text(self, row: Row, field: SortField) -> str:
        if field is SortField.TITLE:
            return str(row.get("description") or row["slug"])
        if field is SortField.TYPE:
            return value_text(row.get("type"))
        if field is SortField.SCOPE:
            return place_text(row)
        if field is SortField.REVIEWED:
            return (
                QCoreApplication.translate("MemoryListModel", "Unreviewed")
                if row.get("unreviewed")
                else ""
            )
        if field is SortField.CONFIDENCE:  # no evidence (unknown) stays blank: less to read
            confidence = row.get("confidence")
            return value_text(confidence) if confidence and confidence != "unknown" else ""
        if field is SortField.RISK:
            return value_text(row["risk_flag"]) if row.get("risk_flag") else ""
        return _local(row.get("updated_at"), DAY_FORMAT)

    def _tip(self, row: Row, field: SortField) -> str | None:
        if field is SortField.TITLE:
            return f"{row['slug']} ({value_text(row.get('type'))}, {place_tip(row)})"
        if field is SortField.SCOPE:
            return place_tip(row)
        if field is SortField.REVIEWED and row.get("unreviewed"):
            return QCoreApplication.translate("MemoryListModel", "Not reviewed by a person yet")
        if field is SortField.RISK and row.get("risk_flag"):
            return QCoreApplication.translate(
                "MemoryListModel", "Reads like an instruction to the agent: review it"
            )
        if field is SortField.UPDATED:
            return _local(row.get("updated_at"), TIME_FORMAT) or None
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
        column = start.column() if start.isValid() else TITLE_COLUMN
        rows = list(range(first, self._total))
        if flags & Qt.MatchFlag.MatchWrap:
            rows += list(range(0, first))
        found: list[QModelIndex] = []
        for row in rows:
            if self.entry(row) is None:
                continue
            text = str(self.data(self.index(row, column), role) or "").casefold()
            hit = needle in text if flags & Qt.MatchFlag.MatchContains else text.startswith(needle)
            if hit:
                found.append(self.index(row, column))
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
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))
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

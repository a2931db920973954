"""The Journal page: browse the daily journal by date, read a day with its sources, search it.

A day shows entry by entry (`memory_journal_entries`): each appended text under when and how
it came, with links to the memories written in its conversation; a source in the Sources
table is a link that selects the entries of its conversation. The links use a scheme made
up per page, so a link inside an entry's own text can never act as one of them.
"""

from __future__ import annotations

import html
import re
import secrets
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate, QDateTime, QLocale, Qt, QTimer, QUrl
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut, QTextCharFormat
from PySide6.QtWidgets import (
    QCalendarWidget,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import parse_rfc3339_ms
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.strings import value_text
from liveagent_memory.ui.widgets.safe_text import SafeTextBrowser, markdown_html

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

SEARCH_DEBOUNCE_MS = 250  # wait for a pause in typing before searching (as on Memories)
DAYS_LIMIT = 1000  # days fetched at once (~3 years); past that a calendar month is fetched
SEARCH_LIMIT = config.SEARCH_MAX_LIMIT  # the store's search maximum
SNIPPET_CHARS = 90  # of a search match, shown beside its date in the list
SNIPPET_LEAD_CHARS = 12  # characters kept before the match, so the match itself shows
DATE_ROLE = Qt.ItemDataRole.UserRole + 1  # a list row's journal date, YYYY-MM-DD
# Episodes shown under a journal day: episode_list's default page (its maximum is
# config.EPISODE_LIST_MAX_LIMIT).
EPISODES_PER_DAY = config.EPISODE_LIST_DEFAULT_LIMIT
CALENDAR_MIN_HEIGHT = 230  # px: month bar, weekday row and six weeks, in English and Chinese
ARCHIVED_COLOR = "#7a7a7a"  # archived days: greyed on the calendar (read-only)
ALL_SCOPES = "all"
GLOBAL_SCOPE = "global"
PROJECT_PREFIX = "project:"
CHOSEN_BG, CHOSEN_FG = "#fff1b8", "#1f1a00"  # the entries of the source clicked
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.DOTALL)


def _fragment(document_html: str) -> str:
    """The body of an HTML document (markdown_html's), to place inside a page."""
    found = _BODY.search(document_html)
    return found.group(1) if found else document_html


def _appended(value: Any) -> str:
    """A source's appendedAt as local date and time ('' when unknown)."""
    ms = parse_rfc3339_ms(str(value or ""))
    return QDateTime.fromMSecsSinceEpoch(ms).toString("yyyy-MM-dd HH:mm") if ms is not None else ""


def _qdate(text: str) -> QDate:
    return QDate.fromString(text, "yyyy-MM-dd")


def _iso(day: QDate) -> str:
    return day.toString("yyyy-MM-dd")


def _around_match(snippet: str) -> str:
    """A short piece of a search snippet that starts just before its first [match]."""
    text = snippet.replace("**", "").replace("`", "")
    start = max(text.find("["), 0)
    start = max(start - SNIPPET_LEAD_CHARS, 0)
    piece = text[start : start + SNIPPET_CHARS]
    if start > 0:
        piece = "…" + piece.lstrip(".… ")
    if start + SNIPPET_CHARS < len(text):
        piece += "…"
    return piece


class JournalPage(DrawerPage):
    """The daily journal: a calendar and a list of days, the chosen day's text and sources."""

    NAME = "journal"
    ORDER = 30

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.days: dict[str, dict[str, Any]] = {}  # date -> memory_journal_days row
        self.order: list[str] = []  # dates with entries, newest first
        self.matches: list[dict[str, Any]] | None = None  # search hits, None when not searching
        self.current: dict[str, Any] | None = None  # the memory_read result shown
        self.entries: dict[str, Any] | None = None  # its memory_journal_entries result
        self.chosen: set[int] = set()  # entries of the source clicked, highlighted
        self._scheme = f"journal{secrets.token_hex(4)}"  # this page's own links
        # The agent's episodes (task traces) of the chosen journal day: (day, rows).
        self.episodes: tuple[str, list[dict[str, Any]]] = ("", [])
        self.truncated = False
        self.days_limit = DAYS_LIMIT
        self.today = ""
        self._loaded = False
        self._months: set[tuple[int, int]] = set()  # months fetched on their own (truncated)

        self._build_widgets()
        self._build_layout()
        self._connect()
        self.retranslate()

    def _build_widgets(self) -> None:
        self.scope = QComboBox()
        self.scope.setObjectName("journalScope")
        self.search = QLineEdit()
        self.search.setObjectName("journalSearch")
        self.search.setClearButtonEnabled(True)
        self.calendar = QCalendarWidget()
        self.calendar.setObjectName("journalCalendar")
        self.calendar.setGridVisible(False)
        self.calendar.setVerticalHeaderFormat(QCalendarWidget.VerticalHeaderFormat.NoVerticalHeader)
        # Its size hint leaves no room for the weekday row under the styled month bar.
        self.calendar.setMinimumHeight(CALENDAR_MIN_HEIGHT)
        self.list_title = QLabel()
        self.list_title.setObjectName("journalListTitle")
        self.days_list = QListWidget()
        self.days_list.setObjectName("journalDays")
        self.days_list.setUniformItemSizes(True)
        # Long rows (search snippets) are elided, not scrolled sideways.
        self.days_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.days_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.count = QLabel()
        self.count.setObjectName("journalCount")
        self.count.setWordWrap(True)
        self.heading = QLabel()
        self.heading.setObjectName("journalHeading")
        heading_font = self.heading.font()
        heading_font.setPointSizeF(heading_font.pointSizeF() * 1.3)
        heading_font.setBold(True)
        self.heading.setFont(heading_font)
        self.badge = QLabel()
        self.badge.setObjectName("archivedBadge")
        self.badge.setStyleSheet(
            "QLabel#archivedBadge { background: #eeeeee; color: #555555; "
            "border: 1px solid #bbbbbb; border-radius: 8px; padding: 1px 8px; }"
        )
        self.badge.hide()
        # The day's text is the agent's: no raw HTML, no link followed, no image loaded.
        self.detail = SafeTextBrowser()
        self.detail.setObjectName("journalBody")

    def _build_layout(self) -> None:
        filters = QHBoxLayout()
        filters.addWidget(self.scope)
        filters.addWidget(self.search, 1)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.calendar)
        left_layout.addWidget(self.list_title)
        left_layout.addWidget(self.days_list, 1)
        left_layout.addWidget(self.count)
        header = QHBoxLayout()
        header.addWidget(self.heading)
        header.addWidget(self.badge)
        header.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(header)
        right_layout.addWidget(self.detail, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(split, 1)

    def _connect(self) -> None:
        """Signals, the search debounce and the page's shortcuts."""
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._search_now)
        self.search.textChanged.connect(lambda _text: self._debounce.start())
        self.scope.currentIndexChanged.connect(lambda _i: self.refresh())
        self.calendar.selectionChanged.connect(self._on_date)
        self.calendar.currentPageChanged.connect(self._on_month)
        self.days_list.currentItemChanged.connect(self._on_item)
        self.detail.anchorClicked.connect(self._on_link)

        shortcuts = (
            (QKeySequence(QKeySequence.StandardKey.Find), self._focus_search),
            (QKeySequence("Alt+Left"), lambda: self.step(-1)),
            (QKeySequence("Alt+Right"), lambda: self.step(1)),
        )
        self.page_shortcuts: list[QShortcut] = []  # described in retranslate (the Help list)
        for key, slot in shortcuts:
            shortcut = QShortcut(key, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
            self.page_shortcuts.append(shortcut)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Journal")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self._fill_scopes()
        self.search.setPlaceholderText(self.tr("Search the journal (English or 中文)…"))
        self.search.setToolTip(self.tr("Search journal entries only (Ctrl+F)"))
        self.calendar.setToolTip(
            self.tr("Bold days have journal entries. Alt+Left / Alt+Right: previous / next one.")
        )
        described = (
            self.tr("Search the journal"),
            self.tr("Previous day with entries"),
            self.tr("Next day with entries"),
        )
        for shortcut, text in zip(self.page_shortcuts, described, strict=True):
            shortcut.setWhatsThis(text)  # what the Help menu's shortcut list says (ui/help.py)
        self.badge.setText(self.tr("Archived — read-only"))
        self.badge.setToolTip(
            self.tr("Journals older than the retention period are archived and cannot change.")
        )
        self._fill_list()
        self._mark_calendar()
        self._render()

    def _fill_scopes(self) -> None:
        """The scope choices: every journal, the global one, and any project that has days."""
        keep = self.scope.currentData() or ALL_SCOPES
        projects = sorted(
            {(d["workdir_hash"], d.get("workdir") or "") for d in self.days.values()} - {("", "")}
        )
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem(self.tr("All journals"), ALL_SCOPES)
        self.scope.addItem(self.tr("Global journal"), GLOBAL_SCOPE)
        for project, folder in projects:
            self.scope.addItem(folder or project, PROJECT_PREFIX + project)
        index = self.scope.findData(keep)
        self.scope.setCurrentIndex(max(index, 0))
        self.scope.blockSignals(False)

    def _entries_text(self, day: dict[str, Any]) -> str:
        text = self.tr("%n entries", "", int(day["entry_count"]))
        if day["archived"]:
            text = self.tr("%1 (archived, read-only)").replace("%1", text)
        return text

    # --- loading ----------------------------------------------------------------------------
    def _filters(self) -> dict[str, Any]:
        choice = self.scope.currentData() or ALL_SCOPES
        if choice == GLOBAL_SCOPE:
            return {"scope": "global"}
        if choice.startswith(PROJECT_PREFIX):
            return {"scope": "project", "workdir_hash": choice.removeprefix(PROJECT_PREFIX)}
        return {"include_all_projects": True}

    async def load(self) -> None:
        """Fetch the days with entries (and the search's matches), then show the chosen day."""
        try:
            result = await self.client.call(
                "memory_journal_days", {**self._filters(), "limit": self.days_limit}
            )
            query = self.search.text().strip()
            matches = await self._find(query) if query else None
        except MemoryDomainError as exc:  # shown to the person; the page keeps what it showed
            self.error_did_occur.emit(exc)
            return
        self.days = {day["date"]: day for day in result["days"]}
        self.truncated = bool(result["truncated"])
        self.today = result["today"]
        self._months.clear()
        self._reorder()
        self.matches = matches
        if self.scope.currentData() == ALL_SCOPES:
            self._fill_scopes()
        self._fill_list()
        self._mark_calendar()
        if not self._loaded:
            # First load: open on the newest day that has entries (else the journal's today).
            self._loaded = True
            first = self.order[0] if self.order else self.today
            if _iso(self.calendar.selectedDate()) != first:
                self.calendar.setSelectedDate(_qdate(first))  # selectionChanged shows it
                return
        self._on_date()

    def _reorder(self) -> None:
        self.order = sorted(self.days, reverse=True)

    async def _find(self, query: str) -> list[dict[str, Any]]:
        filters = self._filters()
        project = filters.pop("workdir_hash", None)
        if project is not None:  # search takes a project's folder, not its key: filter below
            filters["include_all_projects"] = True
        result = await self.context.search.search(
            {**filters, "query": query, "type": "daily", "limit": SEARCH_LIMIT}
        )
        return [
            hit
            for hit in result["matches"]
            if hit["type"] == "daily" and (project is None or hit["workdir_hash"] == project)
        ]

    def _search_now(self) -> None:
        self.client.bridge.preempt("journal-search", self._run_search())

    async def _run_search(self) -> None:
        query = self.search.text().strip()
        try:
            matches = await self._find(query) if query else None
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.matches = matches
        self._fill_list()

    async def _load_month(self, year: int, month: int) -> None:
        """Mark one calendar month's days when the first load could not fetch them all."""
        try:
            result = await self.client.call(
                "memory_journal_days",
                {**self._filters(), "month": f"{year:04d}-{month:02d}", "limit": 31},
            )
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.days.update({day["date"]: day for day in result["days"]})
        self._reorder()
        self._mark_calendar()

    # --- showing ----------------------------------------------------------------------------
    def _fill_list(self) -> None:
        """The list under the calendar: every day with entries, or the search's matches."""
        chosen = _iso(self.calendar.selectedDate())
        self.days_list.blockSignals(True)
        self.days_list.clear()
        if self.matches is None:
            self.list_title.setText(self.tr("Days with entries"))
            for day in self.order:
                entry = self.days[day]
                parts = [day, self.tr("%n entries", "", int(entry["entry_count"]))]
                if entry["archived"]:
                    parts.append(self.tr("archived"))
                text = "  ·  ".join(parts)
                item = QListWidgetItem(text)
                item.setData(DATE_ROLE, day)
                item.setToolTip(self._entries_text(entry))
                self.days_list.addItem(item)
            if not self.order:
                self.count.setText(self.tr("No journal entries yet."))
            elif self.truncated:
                self.count.setText(
                    self.tr(
                        "Showing the newest %n days; the calendar shows the rest.",
                        "",
                        len(self.order),
                    )
                )
            else:
                self.count.setText(self.tr("%n days with entries", "", len(self.order)))
        else:
            self.list_title.setText(self.tr("Matching days"))
            for hit in self.matches:
                day = hit["slug"].removeprefix("daily-")
                snippet = " ".join(str(hit.get("snippet") or "").split())
                short = _around_match(snippet)
                item = QListWidgetItem(f"{day}  ·  {short}" if short else day)
                item.setData(DATE_ROLE, day)
                item.setToolTip(snippet)
                self.days_list.addItem(item)
            if self.matches:
                self.count.setText(self.tr("%n matching days", "", len(self.matches)))
            else:
                self.count.setText(
                    self.tr("No journal entry mentions “%1”.").replace(
                        "%1", self.search.text().strip()
                    )
                )
        self._select_in_list(chosen)
        self.days_list.blockSignals(False)

    def _select_in_list(self, day: str) -> None:
        for row in range(self.days_list.count()):
            item = self.days_list.item(row)
            if item.data(DATE_ROLE) == day:
                self.days_list.setCurrentItem(item)
                return
        self.days_list.setCurrentRow(-1)

    def _mark_calendar(self) -> None:
        """Bold the days that have entries (grey when archived); the tooltip counts them."""
        self.calendar.setDateTextFormat(QDate(), QTextCharFormat())  # a null date clears all
        for day in self.days.values():
            fmt = QTextCharFormat()
            fmt.setFontWeight(QFont.Weight.Bold)
            if day["archived"]:
                fmt.setFontItalic(True)
                fmt.setForeground(QColor(ARCHIVED_COLOR))
            fmt.setToolTip(self._entries_text(day))
            self.calendar.setDateTextFormat(_qdate(day["date"]), fmt)

    def _on_month(self, year: int, month: int) -> None:
        if self.truncated and (year, month) not in self._months:
            self._months.add((year, month))
            self.client.bridge.preempt("journal-month", self._load_month(year, month))

    def _on_item(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            self.calendar.setSelectedDate(_qdate(str(item.data(DATE_ROLE))))

    def _on_date(self) -> None:
        """The calendar's date changed: read that day's journal, or say there is none."""
        day = _iso(self.calendar.selectedDate())
        self.days_list.blockSignals(True)
        self._select_in_list(day)
        self.days_list.blockSignals(False)
        self.client.bridge.preempt("journal-episodes", self._read_episodes(day))
        entry = self.days.get(day)
        if entry is None:
            self.current = None  # a read still under way is dropped when it ends (_read)
            self._render()
            return
        self.client.bridge.preempt("journal-detail", self._read(entry))

    async def _read_episodes(self, day: str) -> None:
        """The episodes recorded on this journal day (same 04:00 rollover as the journal)."""
        try:
            result = await self.client.call(
                "episode_list", {"date_local": day, "limit": EPISODES_PER_DAY}
            )
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if _iso(self.calendar.selectedDate()) != day:
            return  # another day was chosen meanwhile
        self.episodes = (day, list(result["episodes"]))
        self._render()

    async def _read(self, day: dict[str, Any]) -> None:
        target = {"slug": day["slug"], "scope": day["scope"]}
        if day["scope"] == "project":
            target["workdir_hash"] = day["workdir_hash"]
        try:
            data = await self.client.call("memory_read", target)
            entries = await self.client.call("memory_journal_entries", {"date": day["date"]})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if _iso(self.calendar.selectedDate()) != day["date"]:
            return  # another day was chosen meanwhile
        if self.current is None or self.current["entry"]["slug"] != data["entry"]["slug"]:
            self.chosen = set()  # another day: nothing of it was clicked yet
        self.current, self.entries = data, entries
        self._render()

    def _render(self) -> None:
        """Show the chosen day: its entries as Markdown, then where they came from."""
        day = self.calendar.selectedDate()
        self.heading.setText(QLocale().toString(day, QLocale.FormatType.LongFormat))
        data = self.current
        episodes = self._episodes_html(_iso(day))
        if data is None or data["entry"].get("date_local") != _iso(day):
            self.badge.hide()
            if episodes:
                self.detail.setHtml(episodes)
                return
            text = (
                self.tr("Nothing on this day.")
                if self.order
                else self.tr("No journal entries yet. The agent adds a page for each day it works.")
            )
            self.detail.setHtml(f"<p><i>{html.escape(text)}</i></p>")
            return
        entry = data["entry"]
        self.badge.setVisible(bool(entry["archived"]))
        count = self.tr("%n entries", "", max(int(entry["append_count"]), 1))
        sources = list((data.get("source") or {}).get("sources") or [])
        paired = self._paired(data)
        parts = [f"<p><b>{html.escape(count)}</b></p>"]
        if paired is not None:
            parts.append(self._entries_html(paired))
        else:  # entries not matched to sources (edited by hand): the day's text as it is
            parts.append(markdown_html(data["content"], self.detail.font()))
        sources_title = self.tr("Sources")
        parts.append(f"<hr/><h4>{html.escape(sources_title)}</h4>")
        if sources:
            head = "".join(
                f"<th align='left'>{html.escape(label)}</th>"
                for label in (
                    self.tr("Appended"),
                    self.tr("Trigger"),
                    self.tr("Model"),
                    self.tr("Conversation"),
                )
            )
            rows = "".join(
                self._source_row(source, self._source_link(n) if paired else None)
                for n, source in enumerate(sources)
            )
            parts.append(f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{rows}</table>")
        else:
            none = self.tr("No sources recorded.")
            parts.append(f"<p><i>{html.escape(none)}</i></p>")
        if episodes:
            parts.append("<hr/>" + episodes)
        self.detail.setHtml("".join(parts))

    def _episodes_html(self, day: str) -> str:
        """The day's episodes as a table (time, outcome, task type, goal); "" when none."""
        shown_day, rows = self.episodes
        if shown_day != day or not rows:
            return ""
        title = self.tr("Agent episodes (%n)", "", len(rows))
        head = "".join(
            f"<th align='left'>{html.escape(label)}</th>"
            for label in (self.tr("Started"), self.tr("Outcome"), self.tr("Task"), self.tr("Goal"))
        )
        outcomes = {
            "success": self.tr("succeeded"),
            "failure": self.tr("failed"),
            "partial": self.tr("partly done"),
        }
        body = ""
        for row in rows:
            ms = parse_rfc3339_ms(str(row.get("timestamp") or ""))
            when = QDateTime.fromMSecsSinceEpoch(ms).toString("HH:mm") if ms is not None else ""
            outcome = outcomes.get(str(row.get("outcome")), "—")
            cells = (when, outcome, value_text(row.get("task_type")))
            body += (
                "<tr>"
                + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells)
                + f"<td>{html.escape(str(row.get('goal') or ''))}</td></tr>"
            )
        table = f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{body}</table>"
        return f"<h4>{html.escape(title)}</h4>{table}"

    @staticmethod
    def _source_row(source: Any, link: str | None = None) -> str:
        """One row of the Sources table; its time links to its entries when `link` is given."""
        if not isinstance(source, dict):
            return ""
        when = _appended(source.get("appendedAt"))
        trigger = value_text(source.get("trigger")) if source.get("trigger") else None
        cells = [
            html.escape(str(cell or "—"))
            for cell in (when, trigger, source.get("model"), source.get("conversationId"))
        ]
        if link is not None:
            cells[0] = f"<a href='{link}'>{cells[0]}</a>"
        return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"

    # --- entries and their links ------------------------------------------------------------
    def _paired(self, data: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The shown day's entries when each is matched to its source, else None."""
        result = self.entries
        if result is None or result["slug"] != data["entry"]["slug"] or not result["paired"]:
            return None
        return list(result["entries"])

    def _source_link(self, source: int) -> str:
        return f"{self._scheme}:source/{source}"

    def _entries_html(self, entries: list[dict[str, Any]]) -> str:
        """Each entry in a box of its own: when and how it came, its text, its memories."""
        parts = []
        for n, entry in enumerate(entries):
            trigger = value_text(entry["trigger"]) if entry.get("trigger") else ""
            when = _appended(entry.get("appended_at"))
            head = " · ".join(part for part in (when, trigger, entry.get("model")) if part)
            links = ", ".join(
                f"<a href='{self._scheme}:memory/{n}/{m}'>"
                f"{html.escape(memory['description'] or memory['slug'])}</a>"
                for m, memory in enumerate(entry.get("memories") or [])
            )
            came = self.tr("Memories from this conversation:")
            memories = f"<p><small>{html.escape(came)} {links}</small></p>" if links else ""
            style = (
                f" bgcolor='{CHOSEN_BG}' style='color: {CHOSEN_FG};'" if n in self.chosen else ""
            )
            text = _fragment(markdown_html(entry["text"], self.detail.font()))
            parts.append(
                f"<a name='entry-{n}'></a><table width='100%' cellspacing='0' cellpadding='4'>"
                f"<tr><td{style}><small>{html.escape(head)}</small>{text}{memories}</td></tr>"
                "</table>"
            )
        return "".join(parts)

    def _on_link(self, url: QUrl) -> None:
        """One of the page's links was clicked (any other link is not followed)."""
        if url.scheme() != self._scheme or self.entries is None:
            return
        entries = list(self.entries["entries"])
        kind, *numbers = url.path().split("/")
        if not all(n.isdigit() for n in numbers) or not numbers:
            return
        n = int(numbers[0])
        if not 0 <= n < len(entries):
            return
        if kind == "source":
            self.show_source(n)
        elif kind == "memory" and len(numbers) == 2:
            memories = entries[n].get("memories") or []
            if 0 <= int(numbers[1]) < len(memories):
                self.open_entry_memory(memories[int(numbers[1])])

    def show_source(self, source: int) -> None:
        """Select the entries that came from `source`: its own and its conversation's."""
        entries = list((self.entries or {}).get("entries") or [])
        conversation = entries[source].get("conversation_id")
        self.chosen = {
            n
            for n, entry in enumerate(entries)
            if n == source or (conversation and entry.get("conversation_id") == conversation)
        }
        self._render()
        self.detail.scrollToAnchor(f"entry-{min(self.chosen)}")

    def open_entry_memory(self, memory: dict[str, Any]) -> None:
        """Show the memory an entry came from on the Memories page."""
        self.open_memory(memory["scope"], memory["workdir_hash"], memory["slug"])

    async def prepare_screenshot(self) -> None:
        """Show the newest day, read and rendered."""
        if self.order:
            self.calendar.setSelectedDate(_qdate(self.order[0]))
            await self._read(self.days[self.order[0]])

    # --- keyboard ---------------------------------------------------------------------------
    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def step(self, direction: int) -> None:
        """Go to the previous (-1) or next (+1) day that has entries."""
        day = _iso(self.calendar.selectedDate())
        if direction < 0:
            target = next((d for d in self.order if d < day), None)
        else:
            target = next((d for d in reversed(self.order) if d > day), None)
        if target is not None:
            self.calendar.setSelectedDate(_qdate(target))

"""The Learning page (issue 18): how contexts served the agent over time, and which of the
patterns, skills and anti-patterns it learned were used.

At the top, what consolidation proposed (`organize_learned`: each proposal of the newest
consolidate runs, with its state and the episodes it came from; double-clicking one opens its
run's review queue on the Organizer page, where a person accepts or rejects it). Then, from
`memory_metrics` (retrieval/metrics.py: the counts per journal day and what contexts showed):
four small charts over the chosen days (contexts with their hit rate, tokens saved against
loading everything, contexts that fell back to keywords, task types) and a table of the learned
memories contexts used, most recent first; double-clicking a row shows the memory on the
Memories page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDateTime, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.task_types import TaskType
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.run_view import local_time
from liveagent_memory.ui.run_words import learned_action
from liveagent_memory.ui.strings import value_text
from liveagent_memory.ui.widgets.day_chart import DayChart, Series

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

PERIODS = (7, 30, 90)  # days the charts can cover
DEFAULT_PERIOD = 30
USED_ROWS = 50  # learned memories listed (most recently used first)
PROPOSED_ROWS = 6  # proposals shown before their table scrolls: the charts stay in view
COL_MEMORY, COL_KIND, COL_TIMES, COL_LAST = range(4)
COL_WHEN, COL_WHAT, COL_LEARNED, COL_EPISODES, COL_STATE = range(5)
REF_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's memory ref {slug, scope, workdir_hash}
RUN_ROLE = Qt.ItemDataRole.UserRole + 2  # a proposal row's run id
# One colour per figure, readable on the light and the dark palette.
CONTEXTS_COLOR = QColor("#4e79a7")
HIT_RATE_COLOR = QColor("#e15759")
SAVED_COLOR = QColor("#59a14f")
FALLBACK_COLOR = QColor("#f28e2b")
TASK_COLORS = {
    TaskType.EXPLORATION: QColor("#4e79a7"),
    TaskType.IMPLEMENTATION: QColor("#59a14f"),
    TaskType.DEBUGGING: QColor("#e15759"),
    TaskType.REVIEW: QColor("#b07aa1"),
    TaskType.REFACTORING: QColor("#edc948"),
}


class LearningPage(DrawerPage):
    """What consolidation proposed, charts of the contexts per day, and the learned memories
    contexts used."""

    NAME = "learning"
    ORDER = 35  # after the Journal (what happened), before Projects

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.report: dict[str, Any] | None = None
        self.proposals: list[dict[str, Any]] = []
        self._build()
        self.retranslate()

    # --- building -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.period = QComboBox()
        self.period.setObjectName("learningPeriod")
        self.period.currentIndexChanged.connect(lambda _i: self.refresh())
        self.summary = QLabel()
        self.summary.setObjectName("learningSummary")
        self.summary.setWordWrap(True)
        self.charts: dict[str, tuple[QLabel, DayChart]] = {}
        grid = QGridLayout()
        for position, name in enumerate(("contexts", "saved", "fallbacks", "task_types")):
            title, chart = QLabel(), DayChart()
            title.setObjectName(f"chartTitle_{name}")
            chart.setObjectName(f"chart_{name}")
            self.charts[name] = (title, chart)
            cell = QVBoxLayout()
            cell.addWidget(title)
            cell.addWidget(chart)
            grid.addLayout(cell, position // 2, position % 2)
        self.used_title = QLabel()
        self.used = _table(4, "learningUsed", stretch=COL_MEMORY)
        self.used.itemActivated.connect(self._open_row)
        self.used_empty = QLabel()
        self.used_empty.setWordWrap(True)

        self.proposed_title = QLabel()
        self.proposed = _table(5, "learningProposed", stretch=COL_LEARNED)
        self.proposed.itemActivated.connect(self._open_run)
        self.proposed_empty = QLabel()
        self.proposed_empty.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.period)
        content = QWidget()
        column = QVBoxLayout(content)
        column.addWidget(self.proposed_title)
        column.addWidget(self.proposed_empty)
        column.addWidget(self.proposed)
        column.addLayout(top)
        column.addLayout(grid)
        column.addWidget(self.used_title)
        column.addWidget(self.used_empty)
        column.addWidget(self.used, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

    def title(self) -> str:
        return self.tr("Learning")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        keep = self.period.currentData() or DEFAULT_PERIOD
        self.period.blockSignals(True)
        self.period.clear()
        for days in PERIODS:
            self.period.addItem(self.tr("Last %n day(s)", "", days), days)
        self.period.setCurrentIndex(PERIODS.index(keep))
        self.period.blockSignals(False)
        titles = {
            "contexts": self.tr("Contexts per day and hit rate"),
            "saved": self.tr("Tokens saved against loading everything"),
            "fallbacks": self.tr("Contexts searched by keywords alone"),
            "task_types": self.tr("Task types"),
        }
        for name, (title, _chart) in self.charts.items():
            title.setText(f"<b>{titles[name]}</b>")
        self.proposed_title.setText("<b>" + self.tr("What consolidation proposed") + "</b>")
        self.proposed.setHorizontalHeaderLabels(
            [
                self.tr("Proposed"),
                self.tr("Proposal"),
                self.tr("Learned"),
                self.tr("Episodes"),
                self.tr("State"),
            ]
        )
        self.proposed_empty.setText(
            self.tr(
                "Nothing proposed yet. Learn from episodes on the Organizer page turns the "
                "agents' repeated errors and steps into anti-patterns and skills for you to "
                "review."
            )
        )
        self.used_title.setText("<b>" + self.tr("Patterns and skills used by contexts") + "</b>")
        self.used.setHorizontalHeaderLabels(
            [self.tr("Memory"), self.tr("Kind"), self.tr("Times"), self.tr("Last used")]
        )
        self.used_empty.setText(
            self.tr(
                "No pattern, skill or anti-pattern has been shown in a context yet. They are "
                "counted here each time an agent's context includes one."
            )
        )
        self.show_report()

    # --- loading ------------------------------------------------------------------------------
    async def load(self) -> None:
        days = int(self.period.currentData() or DEFAULT_PERIOD)
        try:
            report = await self.client.call(
                "memory_metrics", {"days": days, "used_limit": USED_ROWS}
            )
            learned = await self.client.call("organize_learned", {})
        except MemoryDomainError as exc:  # shown to the person; the page keeps what it showed
            self.error_did_occur.emit(exc)
            return
        self.report = report
        self.proposals = learned["proposals"]
        self.show_report()

    def show_report(self) -> None:
        self._show_proposals()
        report = self.report or {"days": [], "used": [], "contexts": 0, "since": None}
        self._show_summary(report)
        self._show_charts(report["days"])
        self._show_used(report["used"])

    def _show_summary(self, report: dict[str, Any]) -> None:
        if not report["contexts"]:
            self.summary.setText(
                self.tr("No contexts yet: each time an agent asks for its memory, it counts here.")
            )
            return
        rate = report.get("hit_rate")
        tokens = report.get("tokens") or {}
        text = self.tr("%1 contexts since %2 · %3 showed memory · %4 tokens saved")
        since = _date_text(report.get("since"))
        shown = f"{rate * 100:.0f}%" if rate is not None else "—"
        self.summary.setText(
            text.replace("%1", f"{report['contexts']:,}")
            .replace("%2", since)
            .replace("%3", shown)
            .replace("%4", f"{tokens.get('saved', 0):,}")
        )

    def _show_charts(self, days: list[dict[str, Any]]) -> None:
        labels = [day["day"] for day in days]
        nothing = self.tr("No contexts in these days")
        contexts = Series(self.tr("contexts"), CONTEXTS_COLOR, [d["contexts"] for d in days])
        hit_rate = Series(self.tr("hit rate"), HIT_RATE_COLOR, [d["hit_rate"] for d in days])
        self.charts["contexts"][1].set_data(labels, [contexts], hit_rate, empty_text=nothing)
        saved = Series(self.tr("tokens saved"), SAVED_COLOR, [d["tokens_saved"] for d in days])
        self.charts["saved"][1].set_data(labels, [saved], empty_text=nothing)
        fell = Series(self.tr("keyword only"), FALLBACK_COLOR, [d["fallbacks"] for d in days])
        self.charts["fallbacks"][1].set_data(labels, [fell], empty_text=nothing)
        types = [
            Series(
                value_text(task.value), color, [d["task_types"].get(task.value, 0) for d in days]
            )
            for task, color in TASK_COLORS.items()
        ]
        self.charts["task_types"][1].set_data(labels, types, empty_text=nothing)

    def _show_used(self, rows: list[dict[str, Any]]) -> None:
        kinds = {
            "semantic": self.tr("pattern"),
            "skills": self.tr("skill"),
            "anti_patterns": self.tr("anti-pattern"),
        }
        self.used.setRowCount(len(rows))
        for row, used in enumerate(rows):
            memory = QTableWidgetItem(used["title"])
            memory.setData(REF_ROLE, used["ref"])
            memory.setToolTip(used["ref"].get("slug", ""))
            cells = (
                memory,
                QTableWidgetItem(kinds.get(used["kind"], used["kind"])),
                QTableWidgetItem(f"{used['count']:,}"),
                QTableWidgetItem(_date_text(used["last_used"], with_time=True)),
            )
            for column, item in enumerate(cells):
                self.used.setItem(row, column, item)
        self.used.setVisible(bool(rows))
        self.used_empty.setVisible(not rows)

    def _show_proposals(self) -> None:
        self.proposed.setRowCount(len(self.proposals))
        for row, proposal in enumerate(self.proposals):
            episodes = [str(e) for e in proposal["params"].get("episodes") or []]
            try:
                what = learned_action(proposal["params"])
            except KeyError:  # a proposal this version cannot word: its slug says what it is
                what = proposal["slug"]
            when = QTableWidgetItem(local_time(proposal["proposed_at"]))
            when.setData(RUN_ROLE, proposal["run_id"])
            learned = QTableWidgetItem(proposal["description"])
            learned.setToolTip(proposal["slug"])
            count = QTableWidgetItem(f"{len(episodes):,}")
            count.setToolTip("\n".join(episodes))  # the ids, as the proposal cites them
            cells = (when, QTableWidgetItem(what), learned, count)
            for column, item in enumerate(
                (*cells, QTableWidgetItem(value_text(proposal["state"])))
            ):
                self.proposed.setItem(row, column, item)
        _fit_rows(self.proposed, PROPOSED_ROWS)
        self.proposed.setVisible(bool(self.proposals))
        self.proposed_empty.setVisible(not self.proposals)

    def _open_run(self, item: QTableWidgetItem) -> None:
        """Open the proposal's run on the Organizer page: its review queue is where it is
        accepted or rejected."""
        first = self.proposed.item(item.row(), COL_WHEN)
        run_id = first.data(RUN_ROLE) if first is not None else None
        self.context.open_page("organizer")
        show = getattr(self.other_page("organizer"), "show_run", None)
        if run_id and callable(show):
            show(str(run_id))

    def _open_row(self, item: QTableWidgetItem) -> None:
        memory = self.used.item(item.row(), COL_MEMORY)
        ref = memory.data(REF_ROLE) if memory is not None else None
        if ref:
            self.open_memory(ref["scope"], ref.get("workdir_hash", ""), ref["slug"])

    async def prepare_screenshot(self) -> None:
        await self.load()


def _table(columns: int, name: str, *, stretch: int) -> QTableWidget:
    """A read-only table of whole rows; column `stretch` takes the room the others leave."""
    table = QTableWidget(0, columns)
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    for column in range(columns):
        mode = QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(
            column, QHeaderView.ResizeMode.Stretch if column == stretch else mode
        )
    return table


def _fit_rows(table: QTableWidget, most: int) -> None:
    """Make `table` as tall as its rows, up to `most` of them (then it scrolls)."""
    rows = min(max(table.rowCount(), 1), most)
    height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
    height += sum(table.rowHeight(row) for row in range(rows)) if table.rowCount() else 0
    table.setFixedHeight(height + (2 if table.rowCount() > most else 0))


def _date_text(stamp: str | None, *, with_time: bool = False) -> str:
    """An RFC 3339 time as the local date (and time), "—" for none."""
    if not stamp:
        return "—"
    moment = QDateTime.fromString(stamp, Qt.DateFormat.ISODateWithMs).toLocalTime()
    return moment.toString("yyyy-MM-dd HH:mm" if with_time else "yyyy-MM-dd")

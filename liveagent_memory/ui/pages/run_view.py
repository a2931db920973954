"""The organizer's runs as the Organizer page shows them: the history table and its cells'
words and times, a run's details as HTML, what a review-queue decision does.

The text functions hold strings of the page: they translate in its context (`OrganizerPage`,
named in each `QCoreApplication.translate` call for lupdate), as the page's own `tr()` does.
"""

from __future__ import annotations

import contextlib
import html
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QDateTime,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from liveagent_memory.organizer.run_record import ReasonCode
from liveagent_memory.ui.run_words import learned_action, listed, review_item_text, summary_text
from liveagent_memory.ui.strings import run_error_text, value_text

ACTIVE = ("pending", "running")
Index = QModelIndex | QPersistentModelIndex
RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


def word(value: str | None) -> str:
    """A status, trigger, phase, risk or mode word in the current language."""
    return value_text(value)


def local_time(ms: int | None, pattern: str = "yyyy-MM-dd HH:mm") -> str:
    """Epoch ms as local wall time ("—" for none)."""
    if not ms:
        return "—"
    return QLocale().toString(QDateTime.fromMSecsSinceEpoch(int(ms)), pattern)


def duration_text(run: dict[str, Any]) -> str:
    started, finished = run.get("started_at"), run.get("finished_at")
    if not started or not finished:
        return "…" if run.get("status") in ACTIVE else "—"
    seconds = max(0.0, (finished - started) / 1000)
    if seconds < 60:
        return QCoreApplication.translate("Organizer", "%1 s").replace("%1", f"{seconds:.1f}")
    return QCoreApplication.translate("Organizer", "%1 min").replace("%1", f"{seconds / 60:.1f}")


class RunHistoryModel(QAbstractTableModel):
    """Organizer runs as `organize_run_list` returned them, newest first."""

    COLUMNS = (
        "started",
        "status",
        "trigger",
        "phase",
        "memories",
        "applied",
        "ratio",
        "tokens",
        "duration",
    )

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_of(self, run_id: str) -> int:
        for number, row in enumerate(self.rows):
            if row["run_id"] == run_id:
                return number
        return -1

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        labels = (
            self.tr("Started"),
            self.tr("Status"),
            self.tr("Trigger"),
            self.tr("Phase"),
            self.tr("Memories"),
            self.tr("Applied"),
            self.tr("Ratio"),
            self.tr("Tokens"),
            self.tr("Duration"),
        )
        return labels[section] if 0 <= section < len(labels) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        run = self.rows[index.row()]
        column = self.COLUMNS[index.column()]
        if role == RUN_ID_ROLE:
            return run["run_id"]
        if role == Qt.ItemDataRole.ToolTipRole:
            return run_error_text(run.get("error")) or summary_text(run) or run["run_id"]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in ("applied", "ratio", "tokens"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == "started":
            return local_time(run.get("started_at") or run.get("created_at"))
        if column in ("status", "trigger", "phase"):
            return word(run.get(column))
        if column == "memories":
            if run.get("status") in ACTIVE or not run.get("input_count"):
                return str(run.get("input_count") or "—")
            return f"{run['input_count']} → {run['final_count']}"
        if column == "applied":
            return str(run.get("safe_applied", 0))
        if column == "ratio":
            ratio = run.get("compression_ratio")
            return f"{ratio:.2f}" if isinstance(ratio, int | float) else "—"
        if column == "tokens":
            return str(run.get("token_usage_total", 0))
        return duration_text(run)


def empty_html(text: str) -> str:
    """A muted line where a run's details would be."""
    return f"<p><i>{html.escape(text)}</i></p>"


def run_html(run: dict[str, Any], view: dict[str, Any]) -> str:
    """A run's details as HTML: what ran, its outcome or progress, what was held back."""
    esc = html.escape
    head = (
        QCoreApplication.translate("OrganizerPage", "%1 run, %2: scope %3, mode %4")
        .replace("%1", word(run["trigger"]))
        .replace("%2", word(run["status"]))
        .replace("%3", word(run["scope"]))
        .replace("%4", word(run["mode"]))
    )
    if run.get("dry_run"):
        head += " " + QCoreApplication.translate("OrganizerPage", "(dry run)")
    parts = [f"<b>{esc(head)}</b> <small>{esc(run['run_id'])}</small>"]
    if view.get("legacy"):
        # lupdate reads no tr() inside an f-string: every label is its own statement.
        legacy = QCoreApplication.translate(
            "OrganizerPage", "Report from an older version (read-only):"
        )
        parts.append(f"<p><i>{esc(legacy)}</i> {esc(view.get('summary') or '')}</p>")
    elif run.get("final_summary"):
        parts.append(f"<p>{esc(summary_text(run))}</p>")
    if run.get("error"):
        label = QCoreApplication.translate("OrganizerPage", "Error: %1").replace(
            "%1", run_error_text(run["error"])
        )
        parts.append(f'<p style="color:#a33a2f">{esc(label)}</p>')
    if run["status"] in ACTIVE:
        text = QCoreApplication.translate("OrganizerPage", "In progress; phase: %1.").replace(
            "%1", word(run.get("phase"))
        )
        parts.append(f"<p><i>{esc(text)}</i></p>")
    else:
        facts = (
            QCoreApplication.translate(
                "OrganizerPage",
                "Memories %1 → %2 · clusters %3 · applied %4 · held back %5 · tokens %6",
            )
            .replace("%1", str(run["input_count"]))
            .replace("%2", str(run["final_count"]))
            .replace("%3", str(run["cluster_count"]))
            .replace("%4", str(run["safe_applied"]))
            .replace("%5", str(run["review_skipped"]))
            .replace("%6", str(run["token_usage_total"]))
        )
        parts.append(f"<p>{esc(facts)}</p>")
    report = view.get("report") or {}
    buckets = {k: v for k, v in (report.get("rejectionBuckets") or {}).items() if v}
    if buckets:
        held = listed([f"{word(name)} {count}" for name, count in buckets.items()])
        held_text = QCoreApplication.translate("OrganizerPage", "Held back: %1").replace("%1", held)
        parts.append(f"<p>{esc(held_text)}</p>")
    items = report.get("reviewItems") or []
    if items:
        lines = "".join(
            f"<li>{esc(word(item.get('severity')))}: {esc(review_item_text(item))}</li>"
            for item in items
        )
        parts.append(f"<ul>{lines}</ul>")
    return "".join(parts)


def action_text(decision: dict[str, Any]) -> str:
    """What a review-queue decision does, in words: merge, rewrite, delete, or what
    consolidation learned (issue 18)."""
    if decision.get("reasonCode") == ReasonCode.LEARNED:
        with contextlib.suppress(KeyError, TypeError):
            return learned_action(dict(decision.get("reasonParams") or {}))
    sources = [s for s in decision.get("sourceSlugs") or [] if s != decision["slug"]]
    if decision["op"] == "upsert" and decision.get("groupId"):
        return QCoreApplication.translate("OrganizerPage", "Merge in %1").replace(
            "%1", ", ".join(sources) or "—"
        )
    if decision["op"] == "upsert":
        return QCoreApplication.translate("OrganizerPage", "Rewrite")
    if decision.get("groupId") and sources:
        return QCoreApplication.translate("OrganizerPage", "Delete (merged into %1)").replace(
            "%1", sources[0]
        )
    return QCoreApplication.translate("OrganizerPage", "Delete")


def part_text(decision: dict[str, Any]) -> str:
    """What one part of a merge does, in words: write the merged text, or delete a source."""
    if decision["op"] == "upsert":
        return QCoreApplication.translate("OrganizerPage", "Write the merged text")
    return action_text(decision)

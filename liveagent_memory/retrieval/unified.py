"""`get_relevant_context`: task-aware retrieval inside a token budget (SPEC 6, REFERENCE B3–B7).

One query is searched in four kinds of memory: episodic (episode traces and journal days),
semantic (user, project and reference memories), skills (procedures) and anti-patterns
(feedback memories). The task type — given, or detected by domain/task_types.py, the one
detector — weighs the kinds (STRATEGIES); a kind weighted 0 is not searched at all.

Each hit is scored as in REFERENCE B3:
    score = relevance x weight(kind) x (0.7 + 0.3 x importance) x recency
relevance is the hit's search score over the best memory hit (or, for an episode, the best
episode hit: another index, another scale), so 1.0 is the best match; in a hybrid context both
scores are keyword and vector scores fused (retrieval/hybrid.py: memories and journal days by
`hybrid_search`, episodes by `hybrid_episodes`);
importance is an episode's stored importance, decayed with age (B4) and raised when its task
type matches, or for a memory its confidence (less while unreviewed); recency is
1 + 0.1 x (1 - age/30) for items younger than 30 days, else 1.

The best `top_k` of each kind then go through progressive loading (progressive.py): index
lines, summaries and the timeline, full bodies where the sufficiency rule asks for them — never
more tokens than the budget. Everything found but not shown is reported with the reason.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain import config
from liveagent_memory.domain.dates import DateSpan, date_spans
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.requests import EpisodeReadRequest, ReadRequest, SearchRequest
from liveagent_memory.domain.schema import Episode, EpisodeHit, MemoryType, SearchHit, Shape
from liveagent_memory.domain.task_types import TaskType, parse_task_type, strategy_for
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.retrieval.budget import check_budget
from liveagent_memory.retrieval.hybrid import (
    HybridResult,
    QueryVector,
    SemanticSearcher,
    hybrid_episodes,
    hybrid_search,
    keyword_only_reason,
)
from liveagent_memory.retrieval.progressive import (
    LAYER_NONE,
    Assembly,
    Piece,
    assemble,
)
from liveagent_memory.retrieval.query_focus import focused_query
from liveagent_memory.retrieval.task_meaning import Detection
from liveagent_memory.retrieval.task_meaning import detect as detect_meaning
from liveagent_memory.store.episode_docs import decayed
from liveagent_memory.store.episode_timeline import build_timeline, open_episodes
from liveagent_memory.store.store import MemoryStore


class Kind(StrEnum):
    """The kinds of memory a context draws on; the values are the Strategy field names."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    SKILLS = "skills"
    ANTI_PATTERNS = "anti_patterns"


# Which memory types serve which kind; episode traces are episodic too.
SEMANTIC_TYPES = frozenset({MemoryType.USER, MemoryType.PROJECT, MemoryType.REFERENCE})
_TYPED_KINDS: tuple[tuple[Kind, str], ...] = (
    (Kind.ANTI_PATTERNS, MemoryType.FEEDBACK.value),
    (Kind.SKILLS, MemoryType.SKILL.value),
    (Kind.EPISODIC, MemoryType.DAILY.value),
)
# Shown in this order when two kinds weigh the same (what to avoid before what happened …).
_KIND_ORDER = (Kind.ANTI_PATTERNS, Kind.EPISODIC, Kind.SEMANTIC, Kind.SKILLS)
_HEADINGS = {
    Kind.ANTI_PATTERNS: "## What to avoid (feedback)\n",
    Kind.EPISODIC: "## What happened before (episodes, journal)\n",
    Kind.SEMANTIC: "## What is known (facts, conventions)\n",
    Kind.SKILLS: "## Procedures that apply (skills)\n",
}
_MARK = re.compile(r"\[([^\[\]\n]{1,80})\]")
_HEADING_MARK = re.compile(r"(?:(?<=\s)|^)#{1,6}\s+")
# Why a candidate is not in the context.
LEFT_BUDGET, LEFT_RANK, LEFT_WEAK = "budget", "rank", "weak_match"


@dataclass
class ContextItem(Shape):
    """One memory or episode in the context, at the layer it is shown."""

    kind: str
    source: str  # memory | journal | episode
    key: str
    ref: dict[str, str]  # how to read it in full: {slug, scope, workdir_hash} or {id}
    title: str
    layer: int  # 1 index line, 2 summary, 3 full body
    tokens: int  # of its text at that layer
    score: float
    relevance: float
    importance: float
    recency: float
    weight: float
    text: str


@dataclass
class LeftOut(Shape):
    """A candidate the context does not show, and why (budget, rank beyond top_k, weak match)."""

    kind: str
    source: str
    key: str
    ref: dict[str, str]
    title: str
    score: float
    relevance: float
    tokens_needed: int  # its index line: the least it would have cost
    reason: str


@dataclass
class MemoryContext(Shape):
    """REFERENCE B7 MemoryContext, with the budget kept and everything accounted for."""

    query: str
    task_type: str
    task_type_source: str  # given | detected
    weights: dict[str, float]
    token_budget: int
    tokens_used: int  # of `text`; never more than token_budget
    tokens_left: int
    text: str  # the context as an agent gets it (Markdown)
    relevant_episodes: list[ContextItem]  # episodic: episode traces and journal days
    applicable_patterns: list[ContextItem]  # semantic memories
    suggested_skills: list[ContextItem]
    anti_patterns: list[ContextItem]  # feedback memories
    timeline_included: bool
    left_out: list[LeftOut]
    retrieval_stats: dict[str, Any] = field(default_factory=dict)

    def items(self) -> list[ContextItem]:
        return [
            *self.anti_patterns,
            *self.relevant_episodes,
            *self.applicable_patterns,
            *self.suggested_skills,
        ]


@dataclass
class _Candidate:
    kind: Kind
    source: str
    key: str
    ref: dict[str, str]
    title: str
    raw: float
    importance: float
    age_days: float | None
    index_text: str
    summary_text: str
    load_full: Callable[[], str]
    relevance: float = 0.0
    recency: float = 1.0
    weight: float = 0.0
    score: float = 0.0


@dataclass
class _SearchLog:
    """How the memory searches ran: hybrid when embeddings worked, else keyword."""

    semantic: SemanticSearcher | None
    modes: set[str] = field(default_factory=set)
    reason: str | None = None
    provider: str | None = None
    failures: list[dict[str, str]] = field(default_factory=list)
    searches: int = 0
    vector: QueryVector | None = None  # the query's, found by the first hybrid search

    @classmethod
    def starting(
        cls, semantic: SemanticSearcher | None, problem: MemoryDomainError | None
    ) -> _SearchLog:
        """A log for `semantic`; `problem` says why there is none although embeddings are
        configured (it is reported as a fallback from the start)."""
        log = cls(semantic)
        if problem is not None:
            log.reason = f"embeddings are configured but unusable: {problem.message}"
            log.failures.append(
                {"provider": "settings", "error": problem.code, "message": problem.message}
            )
        return log

    def run(self, store: MemoryStore, req: SearchRequest) -> HybridResult:
        result = hybrid_search(store, req, self.semantic, vector=self._vector(store, req))
        self.searches += 1
        self.ran(result.mode, result.provider, result.reason, result.failures)
        return result

    def ran(
        self, mode: str, provider: str | None, reason: str | None, failures: list[dict[str, str]]
    ) -> None:
        """Note how one search (of memories, or of episodes) ran."""
        self.modes.add(mode)
        if mode == "hybrid":
            self.provider = provider
        else:
            self.reason = self.reason or reason
            self.failures.extend(failures)
            if self.semantic is not None and failures:
                # Every provider failed: the next searches would wait on them again for nothing.
                self.semantic = None

    def _vector(self, store: MemoryStore, req: SearchRequest) -> QueryVector | None:
        """The query's vector, found once for all the searches of a context (they share the
        query: one embedding or cache lookup, and the vector index's scores are reused)."""
        if keyword_only_reason(req) is not None:
            return None
        return self.query_vector(store, req.query)

    def query_vector(self, store: MemoryStore, query: str) -> QueryVector | None:
        """The context query's vector (None without a searcher), found on first use: the task
        type's detection by meaning and every search of the context share it (the memory
        searches blend it with its `focused` one, retrieval/query_focus.py)."""
        if self.semantic is None:
            return None
        if self.vector is None:
            self.vector = self.semantic.query_vector(query, focus=focused_query(store, query))
        return self.vector

    def summary(self) -> dict[str, Any]:
        mode = "hybrid" if self.modes == {"hybrid"} else "keyword"
        if self.modes == {"hybrid", "keyword"}:
            mode = "mixed"
        return {
            "mode": mode,
            "provider": self.provider,
            "reason": self.reason if mode != "hybrid" else None,
            "failures": self.failures,
            "searches": self.searches,
        }


def resolve_task_type(
    query: str, task_type: str | None, vector: QueryVector | None = None
) -> tuple[TaskType, str, Detection | None]:
    """The task type given by the caller, else the one the query points to: by its words and,
    when `vector` (the query's) came from the model the examples were embedded with, by its
    meaning too (retrieval/task_meaning.py)."""
    try:
        given = parse_task_type(task_type)
    except ValueError:
        choices = ", ".join(t.value for t in TaskType)
        raise InvalidArgument(
            f"unknown task type {task_type!r}; use one of {choices}", field="task_type"
        ) from None
    if given is not None:
        return given, "given", None
    found = vector.vector if vector is not None else None
    key = vector.provider.key if vector is not None and vector.provider is not None else None
    detection = detect_meaning(query, found, key)
    return detection.task, "detected", detection


def get_relevant_context(
    store: MemoryStore,
    query: str,
    *,
    task_type: str | None = None,
    token_budget: int = config.CONTEXT_DEFAULT_BUDGET,
    workdir: str | None = None,
    top_k: int = config.CONTEXT_DEFAULT_TOP_K,
    force_full: bool = False,
    semantic: SemanticSearcher | None = None,
    semantic_problem: MemoryDomainError | None = None,
) -> MemoryContext:
    """The memory an agent should see for `query`, within `token_budget` tokens.

    `workdir` adds that project's memories and episodes to the global ones; `semantic` (an
    embedding searcher) makes the memory searches hybrid, else they are keyword-only;
    `semantic_problem` says why there is none although embeddings are configured (a broken
    setting): the context is then keyword-only and reports it as a fallback.
    """
    started = time.perf_counter()
    query, budget = _checked(query, token_budget, top_k)
    log = _SearchLog.starting(semantic, semantic_problem)
    vector = log.query_vector(store, query) if task_type is None else None
    task, task_source, detection = resolve_task_type(query, task_type, vector)
    strategy = strategy_for(task)
    weights = {kind.value: strategy.weight(kind.value) for kind in Kind}
    now = store.now_ms()
    fetch = 2 * top_k  # REFERENCE B3: 2 x top_k per kind, then ranked together
    found = _find_memories(store, query, workdir, weights, fetch, log)
    reader = _EpisodeReader(store)
    if weights[Kind.EPISODIC] > 0:
        found[Kind.EPISODIC] += _find_episodes(store, reader, query, workdir, task, now, fetch, log)
    ranked, left = _rank(found, weights, top_k)
    counts = {kind.value: len(items) for kind, items in found.items()}
    header = f"# Memory for: {_clip(query, 120)} (task: {task.value}, {task_source})\n"
    assembly = _assemble(ranked, weights, header, budget, reader, query, force_full)
    context = _context(
        store,
        query=query,
        task=task,
        task_source=task_source,
        detection=detection,
        weights=weights,
        budget=budget,
        ranked=ranked,
        left=left,
        counts=counts,
        assembly=assembly,
        workdir=workdir,
        log=log,
        top_k=top_k,
        force_full=force_full,
        started=started,
    )
    # REFERENCE B2 access_count: an episode served to the agent was read (counted in memory,
    # written to its file in a later batch: store/episode_access.py).
    store.episodes_served(
        [item.ref["id"] for item in context.relevant_episodes if item.source == "episode"]
    )
    return context


def _checked(query: str, token_budget: int, top_k: int) -> tuple[str, int]:
    """The query stripped and the budget, or InvalidArgument naming the field."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("the query is empty: say what the task is about", field="query")
    budget = check_budget(token_budget, field="token_budget", maximum=config.CONTEXT_MAX_BUDGET)
    if isinstance(top_k, bool) or not 1 <= top_k <= config.CONTEXT_MAX_TOP_K:
        raise InvalidArgument(
            f"The number of results must be between 1 and {config.CONTEXT_MAX_TOP_K}", field="top_k"
        )
    return query.strip(), budget


def _find_memories(
    store: MemoryStore,
    query: str,
    workdir: str | None,
    weights: dict[str, float],
    fetch: int,
    log: _SearchLog,
) -> dict[Kind, list[_Candidate]]:
    """Up to `fetch` memories of each kind with weight (episodes are left to the caller)."""
    found: dict[Kind, list[_Candidate]] = {kind: [] for kind in Kind}
    if weights[Kind.SEMANTIC] > 0:
        result = log.run(
            store, SearchRequest(query=query, workdir=workdir, limit=config.SEARCH_MAX_LIMIT)
        )
        hits = [h for h in result.matches if h.type in SEMANTIC_TYPES][:fetch]
        found[Kind.SEMANTIC] = [
            _memory_candidate(store, Kind.SEMANTIC, h, result.terms) for h in hits
        ]
    for kind, memory_type in _TYPED_KINDS:
        if weights[kind] > 0:
            req = SearchRequest(query=query, workdir=workdir, type=memory_type, limit=fetch)
            result = log.run(store, req)
            found[kind] += [_memory_candidate(store, kind, h, result.terms) for h in result.matches]
    return found


def _find_episodes(
    store: MemoryStore,
    reader: _EpisodeReader,
    query: str,
    workdir: str | None,
    task: TaskType,
    now: int,
    fetch: int,
    log: _SearchLog,
) -> list[_Candidate]:
    """Up to `fetch` episodes for the query: the project's and global ones, or global only;
    by keywords, fused with the nearest in meaning when the context is hybrid."""
    # Without a workdir the store searches every project's episodes; a context without one
    # is about global memory, so only episodes tied to no project count (as for memories).
    wide = fetch if workdir else min(fetch * 4, config.EPISODE_SEARCH_MAX_LIMIT)
    episode_result = store.episode_search(query, limit=wide, workdir=workdir)
    episode_hits = episode_result.hits
    if not workdir:
        episode_hits = [hit for hit in episode_hits if not hit.workdir_hash]
    fusion = hybrid_episodes(  # keyword hits as they are when the context is keyword-only
        store,
        query,
        episode_hits,
        episode_result.terms,
        log.semantic,
        project=store.project_of(workdir),
        depth=fetch,
        vector=log.query_vector(store, query),
    )
    log.ran(fusion.mode, fusion.provider, fusion.reason, fusion.failures)
    episode_hits = fusion.hits
    spans = date_spans(query, store.today())
    decay_from = store.episode_decay_anchor()  # the stored importance is decayed up to here
    return [
        _episode_candidate(reader, hit, task, now, episode_result.terms, spans, decay_from)
        for hit in episode_hits
    ]


def _assemble(
    ranked: Sequence[_Candidate],
    weights: dict[str, float],
    header: str,
    budget: int,
    reader: _EpisodeReader,
    query: str,
    force_full: bool,
) -> Assembly:
    """The ranked candidates laid out within the budget, the heavier kinds' sections first."""
    order = sorted(Kind, key=lambda k: (-weights[k], _KIND_ORDER.index(k)))
    pieces = [
        Piece(
            key=c.key,
            kind=c.kind.value,
            score=c.score,
            relevance=c.relevance,
            index_text=c.index_text,
            summary_text=c.summary_text,
            load_full=c.load_full,
        )
        for c in ranked
    ]
    return assemble(
        pieces,
        budget=budget,
        header=header,
        sections=[(kind.value, _HEADINGS[kind]) for kind in order],
        timeline=reader.timeline,
        query=query,
        force_full=force_full,
    )


def _rank(
    found: dict[Kind, list[_Candidate]], weights: dict[str, float], top_k: int
) -> tuple[list[_Candidate], list[LeftOut]]:
    """Score every candidate; the best top_k of each kind, best first, and the rest."""
    left: list[LeftOut] = []
    ranked: list[_Candidate] = []
    seen: set[str] = set()
    # Memory searches share one scoring formula, so their scores compare across kinds: a kind
    # whose best hit is weak stays weak. Episodes are ranked by another table: their own scale.
    best: dict[str, float] = {}
    for candidate in (c for candidates in found.values() for c in candidates):
        family = _family(candidate)
        best[family] = max(best.get(family, 0.0), candidate.raw)
    for kind, candidates in found.items():
        for candidate in candidates:
            top = best[_family(candidate)]
            candidate.relevance = candidate.raw / top if top > 0 else 0.0
            candidate.weight = weights[kind.value]
            candidate.recency = _recency(candidate.age_days)
            candidate.score = (
                candidate.relevance
                * candidate.weight
                * (
                    config.CONTEXT_IMPORTANCE_BASE
                    + config.CONTEXT_IMPORTANCE_SHARE * candidate.importance
                )
                * candidate.recency
            )
        kept = 0
        for candidate in sorted(candidates, key=lambda c: (-c.score, c.key)):
            if candidate.key in seen:
                continue
            seen.add(candidate.key)
            if candidate.relevance < config.CONTEXT_MIN_RELEVANCE:
                left.append(_left_out(candidate, LEFT_WEAK))
            elif kept >= top_k:
                left.append(_left_out(candidate, LEFT_RANK))
            else:
                kept += 1
                ranked.append(candidate)
    ranked.sort(key=lambda c: (-c.score, _KIND_ORDER.index(c.kind), c.key))
    return ranked, left


def _family(candidate: _Candidate) -> str:
    return "episode" if candidate.source == "episode" else "memory"


def _recency(age_days: float | None) -> float:
    """REFERENCE B3: up to +10% for the newest, fading to nothing at 30 days."""
    window = config.CONTEXT_RECENCY_WINDOW_DAYS
    if age_days is None or not 0 <= age_days < window:
        return 1.0
    return 1.0 + config.CONTEXT_RECENCY_BOOST * (1.0 - age_days / window)


def _left_out(candidate: _Candidate, reason: str) -> LeftOut:
    return LeftOut(
        kind=candidate.kind.value,
        source=candidate.source,
        key=candidate.key,
        ref=candidate.ref,
        title=candidate.title,
        score=round(candidate.score, 6),
        relevance=round(candidate.relevance, 4),
        tokens_needed=estimate_tokens(candidate.index_text),
        reason=reason,
    )


# --- candidates ---------------------------------------------------------------------------------


def _memory_candidate(
    store: MemoryStore, kind: Kind, hit: SearchHit, terms: Sequence[str]
) -> _Candidate:
    journal = hit.type == MemoryType.DAILY
    excerpt = _unmark(hit.snippet, terms)
    importance = config.CONTEXT_CONFIDENCE_IMPORTANCE.get(hit.confidence, 0.5)
    if hit.unreviewed:
        importance -= config.CONTEXT_UNREVIEWED_PENALTY
    # A journal day's description is its date; what it says is the better title.
    title = _flat((excerpt or hit.headline if journal else "") or hit.description or hit.slug)
    tags = hit.type if journal else f"{hit.type}, {hit.confidence}"
    if hit.unreviewed and not journal:
        tags += ", unreviewed"
    lead = f"- {hit.slug} [{tags}]: {_clip(title, config.CONTEXT_LINE_MAX_CHARS)}\n"
    detail = _flat(excerpt or hit.headline)
    summary = lead + (f"  {detail}\n" if detail and detail != title else "")
    ref = {"slug": hit.slug, "scope": hit.scope, "workdir_hash": hit.workdir_hash}

    def load_full() -> str:
        try:
            read = store.read(
                ReadRequest(slug=hit.slug, scope=hit.scope, workdir_hash=hit.workdir_hash)
            )
        except MemoryDomainError:
            return summary  # deleted or unreadable since the search: the summary is all there is
        content = read.content.strip()
        return lead + (_indent(content) if content else "")

    return _Candidate(
        kind=kind,
        source="journal" if journal else "memory",
        key=f"memory:{hit.scope}:{hit.workdir_hash}:{hit.slug}",
        ref=ref,
        title=title,
        raw=max(hit.score, 0.0),
        importance=min(max(importance, 0.0), 1.0),
        age_days=hit.age_days,
        index_text=f"- {hit.slug} [{hit.type}]: {_clip(title, config.CONTEXT_LINE_MAX_CHARS)}\n",
        summary_text=summary,
        load_full=load_full,
    )


class _EpisodeReader:
    """Reads each episode file once per context (full text and timeline share the read)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._read: dict[str, Episode | None] = {}

    def get(self, episode_id: str) -> Episode | None:
        if episode_id not in self._read:
            try:
                request = EpisodeReadRequest(id=episode_id)
                # Not a read of its own: the context counts what it served.
                self._read[episode_id] = self.store.episode_read(request, counted=False).episode
            except MemoryDomainError:
                self._read[episode_id] = None  # gone or unreadable since the search
        return self._read[episode_id]

    def timeline(self, keys: list[str]) -> str | None:
        """REFERENCE B6 layer 2 for the topic: the timeline of the episodes shown — their
        latest actions, and which of them is the open focus, blocked by what."""
        episodes = [e for e in (self.get(k.removeprefix("episode:")) for k in keys) if e]
        if not episodes:
            return None
        episodes.sort(key=lambda e: e.timestamp, reverse=True)
        timeline = build_timeline(
            episodes,
            actions_limit=config.CONTEXT_TIMELINE_ACTIONS,
            decisions_limit=config.CONTEXT_TIMELINE_ACTIONS,
        )
        lines: list[str] = []
        for action in timeline.recent_actions:
            result = f" → {action.result}" if action.result else ""
            lines.append(f"  - {action.time[:16]} {action.action} {action.target}{result}\n")
        active = timeline.active_context
        pending = open_episodes(episodes)
        if pending:
            lines.append(f"  open: {_flat(active.current_focus)}\n")
        for blocker in active.blocked_by[: config.CONTEXT_TIMELINE_ACTIONS]:
            lines.append(f"  blocked by: {blocker.error_type}: {blocker.message}\n")
        if not lines:
            return None
        return "### Timeline\n" + "".join(lines)


def _episode_candidate(
    reader: _EpisodeReader,
    hit: EpisodeHit,
    task: TaskType,
    now: int,
    terms: Sequence[str],
    spans: Sequence[DateSpan] = (),
    decay_from: int | None = None,
) -> _Candidate:
    """An episode hit as a candidate; one that happened on a day the query names (`spans`,
    domain/dates.py) is lifted as store/search.py lifts a memory of that day.

    Its importance is the stored one (raised by its reads, decayed by `episode_decay` up to
    `decay_from`), decayed here only for the time since then (REFERENCE B4 apply_decay)."""
    started = clockmod.parse_rfc3339_ms(hit.timestamp)
    on_day = started is not None and any(
        span.covers(clockmod.local_datetime(started).date()) for span in spans
    )
    age = clockmod.age_days(now, started) if started is not None else None
    importance = hit.importance
    if started is not None:
        since = max(started, decay_from) if decay_from is not None else started
        importance = decayed(importance, clockmod.age_days(now, since))
    if hit.task_type == task.value:
        importance += config.CONTEXT_TASK_MATCH_BONUS
    day = hit.timestamp[:10]
    goal = _flat(hit.goal)
    lead = f"- {hit.id} ({day}, {hit.outcome}, {hit.task_type}): {_clip(goal, 400)}\n"
    detail = _flat(hit.summary or _unmark(hit.snippet, terms))
    summary = lead + (f"  {_clip(detail, 400)}\n" if detail else "")

    def load_full() -> str:
        episode = reader.get(hit.id)
        if episode is None:
            return summary
        lines = [lead]
        if episode.summary:
            lines.append(_indent(episode.summary))
        for number, action in enumerate(episode.action_log, start=1):
            step = f"{number}. {action.tool} {_flat(action.input)}".rstrip()
            if action.output:
                step += f" → {_flat(action.output)}"
            lines.append(f"  {step}\n")
        for error in episode.errors_encountered:
            fixed = f" → fixed: {_flat(error.resolution)}" if error.resolution else " (unresolved)"
            lines.append(f"  error {error.error_type}: {_flat(error.message)}{fixed}\n")
        for decision in episode.key_decisions:
            lines.append(f"  decided: {_flat(decision)}\n")
        if episode.files_modified:
            lines.append(f"  changed: {', '.join(episode.files_modified)}\n")
        return "".join(lines)

    return _Candidate(
        kind=Kind.EPISODIC,
        source="episode",
        key=f"episode:{hit.id}",
        ref={"id": hit.id},
        title=goal,
        raw=max(hit.score, 0.0) * (config.SEARCH_DATE_BOOST if on_day else 1.0),
        importance=min(max(importance, 0.0), 1.0),
        age_days=age,
        index_text=f"- {hit.id} [{hit.outcome}]: {_clip(goal, config.CONTEXT_LINE_MAX_CHARS)}\n",
        summary_text=summary,
        load_full=load_full,
    )


# --- result -------------------------------------------------------------------------------------


def _context(
    store: MemoryStore,
    *,
    query: str,
    task: TaskType,
    task_source: str,
    detection: Detection | None,
    weights: dict[str, float],
    budget: int,
    ranked: Sequence[_Candidate],
    left: list[LeftOut],
    counts: dict[str, int],
    assembly: Assembly,
    workdir: str | None,
    log: _SearchLog,
    top_k: int,
    force_full: bool,
    started: float,
) -> MemoryContext:
    shown = _shown(ranked, assembly, left)
    tokens_used = estimate_tokens(assembly.text)
    footprint = store.footprint(workdir)
    full_load = footprint["memory_tokens"] + footprint["episode_tokens"]
    reasons: dict[str, int] = {}
    for item in left:
        reasons[item.reason] = reasons.get(item.reason, 0) + 1
    stats: dict[str, Any] = {
        "search": log.summary(),
        "task_detection": detection.explain() if detection is not None else None,
        "top_k": top_k,
        "force_full": force_full,
        "candidates": counts,
        "shown": {kind: len(items) for kind, items in shown.items()},
        "left_out": reasons,
        "layers": {str(layer): count for layer, count in assembly.layer_loads.items()},
        "sufficiency": {
            "sufficient": assembly.sufficiency.sufficient,
            "reason": assembly.sufficiency.reason,
        },
        "full_load_tokens": full_load,
        "full_load_items": footprint["memories"] + footprint["episodes"],
        "savings_percent": (
            round((full_load - tokens_used) / full_load * 100, 1) if full_load > 0 else 0.0
        ),
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return MemoryContext(
        query=query,
        task_type=task.value,
        task_type_source=task_source,
        weights=weights,
        token_budget=budget,
        tokens_used=tokens_used,
        tokens_left=budget - tokens_used,
        text=assembly.text,
        relevant_episodes=shown[Kind.EPISODIC],
        applicable_patterns=shown[Kind.SEMANTIC],
        suggested_skills=shown[Kind.SKILLS],
        anti_patterns=shown[Kind.ANTI_PATTERNS],
        timeline_included=assembly.timeline_shown,
        left_out=left,
        retrieval_stats=stats,
    )


def _shown(
    ranked: Sequence[_Candidate], assembly: Assembly, left: list[LeftOut]
) -> dict[str, list[ContextItem]]:
    """The assembled pieces per kind; a piece the budget left out goes to `left`."""
    by_key = {c.key: c for c in ranked}
    shown: dict[str, list[ContextItem]] = {kind.value: [] for kind in Kind}
    for piece in assembly.pieces:
        candidate = by_key[piece.key]
        if piece.layer == LAYER_NONE:
            left.append(_left_out(candidate, LEFT_BUDGET))
            continue
        shown[piece.kind].append(
            ContextItem(
                kind=piece.kind,
                source=candidate.source,
                key=piece.key,
                ref=candidate.ref,
                title=candidate.title,
                layer=piece.layer,
                tokens=piece.tokens(),
                score=round(candidate.score, 6),
                relevance=round(candidate.relevance, 4),
                importance=round(candidate.importance, 4),
                recency=round(candidate.recency, 4),
                weight=candidate.weight,
                text=piece.text(),
            )
        )
    return shown


# --- text ---------------------------------------------------------------------------------------


def _unmark(excerpt: str, terms: Sequence[str]) -> str:
    """A search snippet without the [ ] around its matched term (store/text.py `snippet`):
    an agent reads the brackets as part of the text. The mark is the first bracketed text that
    a query term contains (a Chinese term marks one of its bigrams)."""
    wanted = [term.casefold() for term in terms if term]
    for found in _MARK.finditer(excerpt):
        inner = found.group(1).casefold()
        if any(inner in term or term in inner for term in wanted):
            return excerpt[: found.start()] + found.group(1) + excerpt[found.end() :]
    return excerpt


def _flat(text: str) -> str:
    """One line: whitespace collapsed, Markdown heading marks dropped (a skill's sections)."""
    return " ".join(_HEADING_MARK.sub("", text).split())


def _clip(text: str, limit: int) -> str:
    flat = _flat(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _indent(text: str) -> str:
    """A body under its entry's line, indented; blank lines cost tokens and carry nothing here."""
    return "".join(f"  {line}\n" for line in text.strip().split("\n") if line.strip())

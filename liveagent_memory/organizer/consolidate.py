"""The consolidate phase: episodes since the last consolidation become proposals (issue 18).

A run's window is the episodes recorded since the last consolidate run ended its own (the run
history's newest succeeded run in phase "consolidate"; the first run's window holds them all).
A lesson needs at least one episode of the window, but the repeats it counts reach back past
it (the newest CONSOLIDATE_MAX_EPISODES): an error met once last week and once today is a
repeat. Per project, it proposes what organizer/learning.py finds: anti-patterns and skills always,
patterns only with a model (it writes their words through `SubmitLearnedPattern`, as the
organizer's plan tool works: organizer/protocol.py). Nothing is written: every proposal is a
`SafeDecision` that needs a person (`requiresUserAck`), stored as the run's review queue, so
`organize_review_queue`, the desktop queue and the web panel show it as a "learn" entry and
`organize_apply` writes it through the normal batch (audit, history, undo). A rejected proposal
is remembered: its episodes are not proposed again for the same memory; nor are a proposal's
still waiting in an earlier run's queue (a run over every project after one for a single
project would otherwise propose the same lesson twice).

An episode file that cannot be read is skipped and reported on the run, never fatal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.clock import parse_rfc3339_ms
from liveagent_memory.domain.errors import LLMError, MemoryDomainError
from liveagent_memory.domain.requests import (
    EpisodeListRequest,
    EpisodeReadRequest,
    ListRequest,
    WorkdirRequest,
    parse_request,
)
from liveagent_memory.domain.schema import Episode, OrganizeRun
from liveagent_memory.domain.signatures import is_chinese
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.organizer import learning, protocol
from liveagent_memory.organizer.decisions import EntryKey, OrganizerEntry, organizer_entries
from liveagent_memory.organizer.pipeline import record_update
from liveagent_memory.organizer.review import report_groups, run_queue
from liveagent_memory.organizer.run_record import (
    NOTHING_TO_CONSOLIDATE,
    NoteCode,
    OutcomeCode,
    parse_report,
)
from liveagent_memory.prompts import organizer as prompt
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)
PHASE = "consolidate"  # store/runs.py PHASES: the phase, and so the kind, of these runs
Progress = Callable[[str], None]


@dataclass
class History:
    """What earlier consolidate runs left: where the window starts, what a person rejected,
    what still waits for a person."""

    since_ms: int | None = None  # None: no consolidation yet, every episode is new
    rejected: dict[EntryKey, frozenset[str]] = field(default_factory=dict)
    pending: dict[EntryKey, frozenset[str]] = field(default_factory=dict)

    def withheld(self) -> dict[EntryKey, frozenset[str]]:
        """The episodes not to propose again for each memory: rejected, or proposed and
        still waiting in a queue."""
        keys = self.rejected.keys() | self.pending.keys()
        empty: frozenset[str] = frozenset()
        return {key: self.rejected.get(key, empty) | self.pending.get(key, empty) for key in keys}


@dataclass
class Reading:
    """The episodes read (the window's and the older ones its lessons may count), and the
    files that could not be read."""

    episodes: list[Episode] = field(default_factory=list)  # the window's: recorded since
    earlier: list[Episode] = field(default_factory=list)  # older, read for their repeats
    skipped: list[dict[str, Any]] = field(default_factory=list)
    looked_at: int = 0
    truncated: bool = False

    @property
    def new_ids(self) -> frozenset[str]:
        return frozenset(episode.id for episode in self.episodes)


def history(store: MemoryStore, workdir: str | None) -> History:
    """The window's start and the rejected episodes, from the run history.

    The window starts where the newest run that read this run's episodes ended: a run over
    every project covers any run, a run for one workdir covers only runs for that workdir (its
    project's episodes and the unscoped ones; another project's were not read).
    """
    runs = store.organize_run_list(
        limit=config.CONSOLIDATE_HISTORY_RUNS, status="succeeded", phase=PHASE
    )
    found = History()
    rejected: dict[EntryKey, set[str]] = {}
    pending: dict[EntryKey, set[str]] = {}
    for listed in runs:
        run = store.organize_run_read(listed.run_id)
        report = parse_report(run.report) if run.report else None
        if report is None:
            continue
        window = report.consolidation or {}
        covers = window.get("workdir") is None or window.get("workdir") == workdir
        if found.since_ms is None and covers:
            until = window.get("until")
            found.since_ms = until if isinstance(until, int) else run.started_at
        manual = report.manualApplyState
        if manual is None:
            continue
        for group in report_groups(report):
            state = group.state(manual)
            into = {"rejected": rejected, "pending": pending}.get(state)
            if into is None:
                continue  # applied (its memory cites them), failed or closed: may come again
            decision = group.main
            key = (decision.scope, decision.workdir_hash, decision.slug)
            episodes = decision.reason_params.get("episodes") or []
            into.setdefault(key, set()).update(str(e) for e in episodes)
    found.rejected = {key: frozenset(ids) for key, ids in rejected.items()}
    found.pending = {key: frozenset(ids) for key, ids in pending.items()}
    return found


def read_episodes(store: MemoryStore, since_ms: int | None, workdir: str | None) -> Reading:
    """The newest CONSOLIDATE_MAX_EPISODES episodes, newest first: those recorded after
    `since_ms` (all when None) are the window's, the rest `earlier`; one that cannot be read
    is skipped with its reason (reported when it is the window's)."""
    reading = Reading()
    offset = 0
    while reading.looked_at < config.CONSOLIDATE_MAX_EPISODES:
        page = store.episode_list(
            EpisodeListRequest(workdir=workdir, limit=config.EPISODE_LIST_MAX_LIMIT, offset=offset)
        )
        for summary in page.episodes[: config.CONSOLIDATE_MAX_EPISODES - reading.looked_at]:
            reading.looked_at += 1
            try:
                # Not a use of the episode (REFERENCE B2 access_count): learning reads them all.
                request = EpisodeReadRequest(id=summary.id)
                episode = store.episode_read(request, counted=False).episode
            except MemoryDomainError as exc:  # edited, gone or unreadable: skipped, reported
                started = parse_rfc3339_ms(summary.timestamp)
                if since_ms is None or started is None or started > since_ms:
                    # (one that started before the last run was reported by it already)
                    reading.skipped.append(
                        {
                            "id": summary.id,
                            "path": summary.path,
                            "code": exc.code,
                            "why": exc.message,
                        }
                    )
                continue
            recorded = parse_rfc3339_ms(episode.recorded_at)
            if since_ms is None or recorded is None or recorded > since_ms:
                reading.episodes.append(episode)
            else:
                reading.earlier.append(episode)
        offset += len(page.episodes)
        if not page.truncated or not page.episodes:
            return reading
    reading.truncated = True
    return reading


def memories(store: MemoryStore) -> list[OrganizerEntry]:
    """Every memory a proposal could update (journal days aside), with its text."""
    return organizer_entries(store.entries_with_content(ListRequest(include_all_projects=True)))


@dataclass
class _State:
    run_id: str
    workdir: str | None = None  # the project this run read (None: every project)
    history: History = field(default_factory=History)
    reading: Reading = field(default_factory=Reading)
    entries: list[OrganizerEntry] = field(default_factory=list)
    proposals: list[learning.Proposal] = field(default_factory=list)
    review_items: list[dict[str, Any]] = field(default_factory=list)
    raw: list[dict[str, str]] = field(default_factory=list)
    tokens: int = 0
    decayed: int = 0  # episodes whose stored importance the decay pass lowered

    def note(self, message: str, *, code: str, params: dict[str, Any] | None = None) -> None:
        item: dict[str, Any] = {
            "phase": "planning",
            "kind": "error",
            "severity": "warning",
            "message": message,
            "code": code,
        }
        if params:
            item["params"] = params
        self.review_items.append(item)


class Consolidation:
    """Runs consolidate runs against one store, with an optional model for patterns."""

    def __init__(
        self, store: MemoryStore, llm: LLMClient | None, *, store_call: SyncCall = call_here
    ) -> None:
        self.store = store
        self.llm = llm
        self._store_call = store_call

    async def run(
        self,
        run: dict[str, Any],
        *,
        workdir: str | None = None,
        offline: bool = False,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Carry a claimed run to its end; returns the final run (with its report view)."""
        state = _State(run_id=str(run["run_id"]))
        say = progress or (lambda _message: None)
        offline = offline or self.llm is None
        try:
            say("reading episodes")
            await self._update(state, phase=PHASE)
            where = parse_request(
                WorkdirRequest, {"workdir": workdir}, label="organize_consolidate"
            )
            until = await self._store_call(self.store.now_ms)
            state.workdir = where.workdir
            state.history = await self._store_call(history, self.store, where.workdir)
            state.reading = await self._store_call(
                read_episodes, self.store, state.history.since_ms, where.workdir
            )
            self._report_skipped(state)
            # Issue 18: importance decays on consolidation (at most once a day; reads written
            # first), so retrieval's importance reflects use, whether or not anything is new.
            decay = await self._store_call(self.store.apply_episode_decay)
            state.decayed = decay.decayed
            if not state.reading.episodes:
                return await self._finish(state, "skipped", until, NOTHING_TO_CONSOLIDATE)
            state.entries = await self._store_call(memories, self.store)
            say(f"learning from {len(state.reading.episodes)} episodes")
            places = learning.by_place(state.reading.episodes + state.reading.earlier)
            withheld = state.history.withheld()
            for place, episodes in places.items():
                state.proposals += learning.anti_patterns(place, episodes, state.entries, withheld)
                state.proposals += learning.skills(place, episodes, state.entries, withheld)
            if not offline:
                await self._patterns(state, places, withheld, say)
            # A lesson of older episodes alone was proposed, or not, by an earlier run.
            new = state.reading.new_ids
            state.proposals = [p for p in state.proposals if new.intersection(p.episodes)]
            self._drop_too_long(state)
            return await self._finish(state, "succeeded", until, self._summary(state))
        except MemoryDomainError as exc:  # a model or store error ends the run, never strands it
            return await self._finish(
                state, "failed", None, None, error=f"{exc.code}: {exc.message}"
            )
        except Exception as exc:  # a bug: recorded on the run (never left running), re-raised
            error = f"internal error: {type(exc).__name__}: {exc}"
            await self._finish(state, "failed", None, None, error=error)
            raise

    @staticmethod
    def _report_skipped(state: _State) -> None:
        for skipped in state.reading.skipped:
            state.note(
                f"episode {skipped['id']} skipped: {skipped['why']}",
                code=NoteCode.EPISODE_SKIPPED,
                params={"episode": skipped["id"], "path": skipped["path"]},
            )
        if state.reading.truncated:
            state.note(
                f"only the newest {config.CONSOLIDATE_MAX_EPISODES} episodes were read",
                code=NoteCode.EPISODES_TRUNCATED,
                params={"limit": config.CONSOLIDATE_MAX_EPISODES},
            )

    @staticmethod
    def _drop_too_long(state: _State) -> None:
        """A proposal whose text would pass the memory size limit (a lesson confirmed by many
        episodes) is reported, not proposed: its write could only fail."""
        kept = []
        for proposal in state.proposals:
            size = len(proposal.body.encode("utf-8"))
            if size <= config.MAX_BODY_BYTES:
                kept.append(proposal)
                continue
            state.note(
                f"{proposal.slug}: what was learned would be {size} bytes, over the limit of "
                f"{config.MAX_BODY_BYTES}; shorten the memory to let it grow",
                code=NoteCode.LEARNED_TOO_LONG,
                params={"slug": proposal.slug, "bytes": size, "limit": config.MAX_BODY_BYTES},
            )
        state.proposals = kept

    async def _patterns(
        self,
        state: _State,
        places: dict[str, list[Episode]],
        withheld: learning.Withheld,
        say: Progress,
    ) -> None:
        """One model call per cluster of alike successful episodes holding one of the window's
        (the biggest first, at most CONSOLIDATE_MAX_PATTERN_CALLS); a failed call is reported
        and the others go on."""
        new = state.reading.new_ids
        clusters = [
            (place, cluster)
            for place, episodes in places.items()
            for cluster in learning.pattern_clusters(episodes)
            if any(episode.id in new for episode in cluster)
        ]
        clusters.sort(key=lambda pair: len(pair[1]), reverse=True)
        for number, (place, cluster) in enumerate(clusters[: config.CONSOLIDATE_MAX_PATTERN_CALLS]):
            say(f"pattern {number + 1}/{min(len(clusters), config.CONSOLIDATE_MAX_PATTERN_CALLS)}")
            ids = [episode.id for episode in cluster]
            try:
                words = await self._pattern_words(state, cluster)
            except (LLMError, protocol.PlanArgumentsError) as exc:
                message = exc.message if isinstance(exc, LLMError) else str(exc)
                code = exc.code if isinstance(exc, LLMError | protocol.SecretInArguments) else ""
                state.note(
                    f"pattern from {', '.join(ids)} failed: {message}",
                    code=code or "pattern_invalid",
                    params={"episodes": ids},
                )
                continue
            found = learning.pattern_proposal(place, cluster, words, state.entries, withheld)
            if found is not None:
                state.proposals.append(found)
            await self._update(state)  # progress, and the run's lease renewed

    async def _pattern_words(self, state: _State, cluster: list[Episode]) -> dict[str, str]:
        assert self.llm is not None
        language = "zh" if is_chinese([e.goal for e in cluster]) else "en"
        messages = [
            {
                "role": "system",
                "content": f"{prompt.PATTERN_INSTRUCTIONS} {prompt.PATTERN_LANGUAGE[language]}",
            },
            {"role": "user", "content": learning.episodes_for_prompt(cluster)},
        ]
        tool = protocol.pattern_tool_schema()
        completion = await self.llm.complete(messages, tools=[tool], purpose="organizer")
        state.tokens += completion.usage.total_tokens
        for call in completion.tool_calls:
            if call.name == prompt.PATTERN_TOOL:
                words = protocol.pattern_words(call.require_arguments())
                state.raw.append({"clusterId": cluster[0].id, "text": str(words)[:4000]})
                return words
        raise protocol.PlanArgumentsError(f"no {prompt.PATTERN_TOOL} call")

    @staticmethod
    def _summary(state: _State) -> str:
        kinds = [p.kind for p in state.proposals]
        return (
            f"{len(state.reading.episodes)} new episodes; {len(kinds)} proposals for review "
            f"({kinds.count(learning.ANTI_PATTERN)} anti-patterns, "
            f"{kinds.count(learning.SKILL)} skills, {kinds.count(learning.PATTERN)} patterns)"
        )

    def _report(self, state: _State, until: int | None) -> dict[str, Any]:
        decisions = [proposal.decision() for proposal in state.proposals]
        return {
            "version": config.ORGANIZE_REPORT_VERSION,
            "clusterSummaries": [],
            "reviewItems": state.review_items,
            "raw": state.raw,
            "safeDecisions": [decision.to_report() for decision in decisions],
            "manualApplyState": {
                "status": "pending" if decisions else "applied",
                "appliedDecisionKeys": [],
                "failedDecisionKeys": [],
                "counts": {},
            },
            "outcome": {
                "code": OutcomeCode.CONSOLIDATED,
                "episodes": len(state.reading.episodes),
                "proposed": len(decisions),
                "skipped": len(state.reading.skipped),
                "decayed": state.decayed,
            },
            "consolidation": {
                "since": state.history.since_ms,
                "until": until,
                "workdir": state.workdir,
                "episodes": [episode.id for episode in state.reading.episodes],
                "skipped": [skipped["id"] for skipped in state.reading.skipped],
            },
        }

    async def _update(self, state: _State, **fields: Any) -> OrganizeRun:
        payload = {"run_id": state.run_id, **{k: v for k, v in fields.items() if v is not None}}
        recorded, _view = await self._store_call(record_update, self.store, payload)
        return recorded

    async def _finish(
        self,
        state: _State,
        status: str,
        until: int | None,
        summary: str | None,
        *,
        error: str | None = None,
    ) -> dict[str, Any]:
        memories_now = len(state.entries)
        payload = {
            "run_id": state.run_id,
            "status": status,
            "phase": PHASE,
            "final_summary": summary,
            "error": error,
            "report": self._report(state, until) if error is None else None,
            "counts": {
                "input_count": memories_now,
                "final_count": memories_now,
                "cluster_count": len(state.proposals),
                "token_usage_total": state.tokens,
            },
        }
        _recorded, view = await self._store_call(
            record_update, self.store, {k: v for k, v in payload.items() if v is not None}
        )
        return view


def learned_proposals(store: MemoryStore, runs: int) -> list[dict[str, Any]]:
    """What the newest `runs` consolidations proposed, newest first, each with its run, state
    and episodes (the Learning page's list; the review queue is where a person acts on them)."""
    found = []
    for run in store.organize_run_list(limit=runs, phase=PHASE):
        for group in run_queue(store, run.run_id).groups:
            if group.kind != "learn":
                continue
            main = group.main
            found.append(
                {
                    "run_id": run.run_id,
                    "proposed_at": run.finished_at or run.created_at,
                    "key": group.key,
                    "state": group.state,
                    "slug": main["slug"],
                    "description": main.get("description") or main["slug"],
                    "memory_type": main.get("memoryType"),
                    "params": main.get("reasonParams") or {},
                }
            )
    return found

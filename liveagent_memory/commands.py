"""The one dispatch table of named commands every front end uses (SPEC 2).

Commands take a JSON-shaped dict and return one. Failures are `MemoryDomainError`s whose
`to_dict()` is the reference's error shape `{error, message, suggested_next_call?, candidates?}`.

This is the JSON face of the services for front ends only (the CLI, the app, agents' hosts):
each command validates its payload into a request model, calls one typed service method and
turns the typed result into JSON. The rules live in the services; nothing below the front ends
imports this module. Each command runs on the front end's AppContext (context.py), which gives it
the store, the settings, the keys and the embedding chain; no command reads them by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from liveagent_memory.agent.overview import render_overview
from liveagent_memory.context import AppContext, context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    MemoryDomainError,
    UnknownCommand,
)
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchRequest,
    ConsolidateRequest,
    ContextRequest,
    ContradictionListRequest,
    ContradictionResolveRequest,
    DailyAppendRequest,
    DeleteProjectRequest,
    DeleteRequest,
    DueClaimRequest,
    EmbeddingsRequest,
    EmptyRequest,
    EpisodeDecayRequest,
    EpisodeListRequest,
    EpisodeReadRequest,
    EpisodeRecordRequest,
    EpisodeSearchRequest,
    HistoryRequest,
    HybridSearchRequest,
    JournalDaysRequest,
    JournalEntriesRequest,
    LearnedRequest,
    ListRequest,
    LokiImportRequest,
    MetricsRequest,
    OrganizeApplyRequest,
    ProjectMergeRequest,
    ProjectPinRequest,
    ProjectsDiscoverRequest,
    ProjectsIndexRequest,
    ReadRequest,
    RecentRejectionsRequest,
    ReconcileRequest,
    RestoreRequest,
    RunCreateRequest,
    RunListRequest,
    RunReadRequest,
    RunUpdateRequest,
    SearchRequest,
    SettingsSaveRequest,
    SyncInitRequest,
    SyncResolveRequest,
    SyncRunRequest,
    SyncVersionsRequest,
    TimelineRequest,
    TodayRequest,
    UndoRequest,
    UpdateRequest,
    WipeAllRequest,
    WorkdirRequest,
    WriteRequest,
    parse_request,
)
from liveagent_memory.domain.similar import close_matches
from liveagent_memory.organizer import contradictions
from liveagent_memory.organizer import runs as organizer_runs
from liveagent_memory.organizer.apply import organize_apply
from liveagent_memory.organizer.consolidate import Consolidation, learned_proposals
from liveagent_memory.organizer.review import run_queue
from liveagent_memory.organizer.run_record import listed_run, run_view
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.episodes import record_episode, search_episodes
from liveagent_memory.retrieval.loki_import import loki_import
from liveagent_memory.retrieval.projects import discover, projects_index
from liveagent_memory.settings import PURPOSES, stamp_schedule
from liveagent_memory.store.store import MemoryStore

Payload = dict[str, Any]


@dataclass(frozen=True)
class Command:
    """One named command: its request model, the function that runs it, a one-line summary."""

    name: str
    request: type[BaseModel]
    run: Callable[[AppContext, Any], Payload]
    summary: str


def _list(context: AppContext, req: ListRequest) -> Payload:
    return context.store.list_entries(req).to_dict()


def _read(context: AppContext, req: ReadRequest) -> Payload:
    return context.store.read(req).to_dict()


def _search(context: AppContext, req: SearchRequest) -> Payload:
    return retrieval.search(context.store, req, context.embeddings).to_dict()


def _write(context: AppContext, req: WriteRequest) -> Payload:
    return context.store.write(req).to_dict()


def _update(context: AppContext, req: UpdateRequest) -> Payload:
    return context.store.update(req).to_dict()


def _delete(context: AppContext, req: DeleteRequest) -> Payload:
    return context.store.delete(req).to_dict()


def _accept(context: AppContext, req: AcceptRequest) -> Payload:
    return context.store.accept(req).to_dict()


def _daily_append(context: AppContext, req: DailyAppendRequest) -> Payload:
    return context.store.append_daily(req).to_dict()


def _apply_batch(context: AppContext, req: BatchRequest) -> Payload:
    return context.store.apply_batch(req).to_dict()


def _quota(context: AppContext, req: WorkdirRequest) -> Payload:
    return context.store.quota_summary(req.workdir).to_dict()


def _overview(context: AppContext, req: WorkdirRequest) -> Payload:
    buckets = context.store.overview(req.workdir)
    # The buckets for front ends that draw their own view; `block` is the text an agent gets.
    return {**buckets.to_dict(), "block": render_overview(buckets)}


def _reconcile(context: AppContext, req: ReconcileRequest) -> Payload:
    return context.store.reconcile(full=req.full).to_dict()


def _history(context: AppContext, req: HistoryRequest) -> Payload:
    return context.store.history(req).to_dict()


def _restore(context: AppContext, req: RestoreRequest) -> Payload:
    return context.store.restore(req).to_dict()


def _undo(context: AppContext, req: UndoRequest) -> Payload:
    return context.store.undo(req).to_dict()


def _delete_project(context: AppContext, req: DeleteProjectRequest) -> Payload:
    return context.store.delete_project(req)


def _project_pin(context: AppContext, req: ProjectPinRequest) -> Payload:
    return context.store.pin_project(req).to_dict()


def _project_merge(context: AppContext, req: ProjectMergeRequest) -> Payload:
    return context.store.merge_project(req).to_dict()


def _recent_rejections(context: AppContext, req: RecentRejectionsRequest) -> Payload:
    return {"entries": [entry.to_dict() for entry in context.store.recent_rejections(req)]}


def _paths_info(context: AppContext, _req: EmptyRequest) -> Payload:
    return context.store.paths_info()


def _today_local_date(context: AppContext, req: TodayRequest) -> Payload:
    return {"date": context.store.today(req.rollover_hour).isoformat()}


def _today_daily(context: AppContext, _req: TodayRequest) -> Payload:
    daily = context.store.today_daily()
    return {"daily": daily.to_dict() if daily is not None else None}


def _wipe_all(context: AppContext, req: WipeAllRequest) -> Payload:
    return context.store.wipe_all(confirm=req.confirm)


def _problems(context: AppContext, _req: EmptyRequest) -> Payload:
    return {"problems": context.store.problems()}


def _agents_running(context: AppContext, _req: EmptyRequest) -> Payload:
    return {"sessions": [session.to_dict() for session in context.store.agent_sessions()]}


def _sync_status(context: AppContext, _req: EmptyRequest) -> Payload:
    return context.store.sync_status()


def _sync_init(context: AppContext, req: SyncInitRequest) -> Payload:
    return context.store.git_sync_init(req.remote)


def _sync_fetch(context: AppContext, _req: EmptyRequest) -> Payload:
    return context.store.git_sync_fetch()


def _sync_run(context: AppContext, req: SyncRunRequest) -> Payload:
    return context.store.git_sync(fetched=req.fetched)


def _sync_versions(context: AppContext, req: SyncVersionsRequest) -> Payload:
    return context.store.sync_versions(req.path)


def _sync_resolve(context: AppContext, req: SyncResolveRequest) -> Payload:
    return context.store.sync_resolve(req)


def _journal_entries(context: AppContext, req: JournalEntriesRequest) -> Payload:
    return context.store.journal_entries(req).to_dict()


def _journal_days(context: AppContext, req: JournalDaysRequest) -> Payload:
    return context.store.journal_days(req).to_dict()


def _projects(context: AppContext, _req: EmptyRequest) -> Payload:
    return context.store.projects().to_dict()


def _settings_view(context: AppContext) -> Payload:
    status = context.secrets.status()
    return {
        "settings": context.settings.current().to_dict(),
        "keyring": {"available": status.available, "message": status.message},
        # Whether a key is stored, never the key itself.
        "keys": {purpose: context.secrets.has(purpose) for purpose in PURPOSES},
    }


def _settings_get(context: AppContext, _req: EmptyRequest) -> Payload:
    return _settings_view(context)


def _settings_save(context: AppContext, req: SettingsSaveRequest) -> Payload:
    current = context.settings.current()
    new = stamp_schedule(current, current.merged(req.settings), now_ms=context.clock())
    context.settings.save(new)
    return _settings_view(context)


def _run_create(context: AppContext, req: RunCreateRequest) -> Payload:
    run, claimed = organizer_runs.create_run(context.store, req)
    return {"run": run_view(run), "claimed": claimed}


def _run_update(context: AppContext, req: RunUpdateRequest) -> Payload:
    return {"run": run_view(organizer_runs.update_run(context.store, req))}


def _run_list(context: AppContext, req: RunListRequest) -> Payload:
    rows = organizer_runs.list_runs(context.store, req)
    return {"runs": [listed_run(r) for r in rows]}


def _run_read(context: AppContext, req: RunReadRequest) -> Payload:
    return {"run": run_view(context.store.organize_run_read(req.run_id))}


def _run_clear(context: AppContext, _req: EmptyRequest) -> Payload:
    return {"deleted": context.store.organize_run_clear_history()}


def _due_claim(context: AppContext, req: DueClaimRequest) -> Payload:
    run = context.store.organize_due_claim(req.now)
    return {"run": run_view(run) if run is not None else None}


def _due_complete(context: AppContext, req: RunUpdateRequest) -> Payload:
    return {"run": run_view(organizer_runs.complete_due_run(context.store, req))}


def _organize_apply(context: AppContext, req: OrganizeApplyRequest) -> Payload:
    return organize_apply(context.store, req).to_dict()


def _organize_consolidate(context: AppContext, req: ConsolidateRequest) -> Payload:
    """A consolidate run, carried to its end here: its proposals wait in its review queue."""
    if not context.store.executes_runs:
        # A one-shot process's run would be queued for the app, which runs organizer runs.
        raise ActionNotAllowed(
            "A consolidation runs only in a program that runs organizer runs: use "
            "`liveagent-memory organize --consolidate` or the app"
        )
    llm = None if req.offline else context.llm("organizer", model=req.model)
    if llm is not None and not llm.config.model:
        llm = None  # no model configured: the offline extractor (anti-patterns and skills)
    model: dict[str, str | None] = {"model": llm.config.model if llm else "offline"}
    run, claimed = organizer_runs.create_run(
        context.store, RunCreateRequest(trigger="manual", model=model)
    )
    if not claimed:
        return {"run": run_view(run), "claimed": False}
    consolidation = Consolidation(context.store, llm)
    final = _to_the_end(
        lambda: consolidation.run(run_view(run), workdir=req.workdir, offline=llm is None)
    )
    return {"run": final, "claimed": True}


def _to_the_end(start: Callable[[], Coroutine[Any, Any, Payload]]) -> Payload:
    """Run a coroutine to its end from this synchronous command: here, or on a thread of its
    own when this thread already runs an event loop (a command is called where a front end
    calls it; asyncio.run refuses a running loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(start())
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(start())).result()


def _organize_learned(context: AppContext, req: LearnedRequest) -> Payload:
    return {"proposals": learned_proposals(context.store, req.runs)}


def _organize_review_queue(context: AppContext, req: RunReadRequest) -> Payload:
    return run_queue(context.store, req.run_id).to_dict()


def _organize_contradictions(context: AppContext, req: ContradictionListRequest) -> Payload:
    views = contradictions.run_contradictions(context.store, req.run_id)
    return {"run_id": req.run_id, "contradictions": [view.to_dict() for view in views]}


def _organize_resolve(context: AppContext, req: ContradictionResolveRequest) -> Payload:
    return contradictions.resolve(context.store, req).to_dict()


def _projects_index(context: AppContext, req: ProjectsIndexRequest) -> Payload:
    return projects_index(context.store, roots=req.roots, max_depth=req.max_depth)


def _projects_discover(context: AppContext, req: ProjectsDiscoverRequest) -> Payload:
    return discover(context.store, req).to_dict()


def _loki_import(context: AppContext, req: LokiImportRequest) -> Payload:
    return loki_import(context.store, req).to_dict()


def _episode_record(context: AppContext, req: EpisodeRecordRequest) -> Payload:
    return record_episode(context.store, req).to_dict()


def _episode_search(context: AppContext, req: EpisodeSearchRequest) -> Payload:
    return search_episodes(context.store, req).to_dict()


def _episode_list(context: AppContext, req: EpisodeListRequest) -> Payload:
    return context.store.episode_list(req).to_dict()


def _episode_read(context: AppContext, req: EpisodeReadRequest) -> Payload:
    return context.store.episode_read(req).to_dict()


def _episode_decay(context: AppContext, req: EpisodeDecayRequest) -> Payload:
    return context.store.apply_episode_decay().to_dict()


def _episode_timeline(context: AppContext, req: TimelineRequest) -> Payload:
    return context.store.episode_timeline(req).to_dict()


def _embeddings_status(context: AppContext, req: EmbeddingsRequest) -> Payload:
    return retrieval.embeddings_status(context.store, req, context.embeddings)


def _embeddings_rebuild(context: AppContext, req: EmbeddingsRequest) -> Payload:
    return retrieval.embeddings_rebuild(context.store, req, context.embeddings).to_dict()


def _search_hybrid(context: AppContext, req: HybridSearchRequest) -> Payload:
    return retrieval.search_hybrid(context.store, req, context.embeddings).to_dict()


def _context(context: AppContext, req: ContextRequest) -> Payload:
    return retrieval.relevant_context(context.store, req, context.embeddings).to_dict()


def _metrics(context: AppContext, req: MetricsRequest) -> Payload:
    return retrieval.metrics_report(context.store, req)


_TABLE = (
    Command(
        "memory_list", ListRequest, _list, "List memories, newest first or sorted by a column."
    ),
    Command("memory_read", ReadRequest, _read, "Read one memory (optionally a line window)."),
    Command(
        "memory_search",
        SearchRequest,
        _search,
        "Search memories: keywords, fused with embeddings when they are configured.",
    ),
    Command("memory_write", WriteRequest, _write, "Create a memory."),
    Command("memory_update", UpdateRequest, _update, "Change a memory (replace or merge)."),
    Command("memory_delete", DeleteRequest, _delete, "Move a memory to the trash."),
    Command("memory_accept", AcceptRequest, _accept, "Mark a memory reviewed."),
    Command(
        "memory_daily_append",
        DailyAppendRequest,
        _daily_append,
        "Append an entry to a day's journal.",
    ),
    Command(
        "memory_apply_batch",
        BatchRequest,
        _apply_batch,
        "Apply many operations with per-item results.",
    ),
    Command("memory_quota_summary", WorkdirRequest, _quota, "Quota per scope and the ladder."),
    Command(
        "memory_index_overview", WorkdirRequest, _overview, "Memory Index data for a system prompt."
    ),
    Command(
        "memory_reconcile",
        ReconcileRequest,
        _reconcile,
        "Bring the index in line with the files.",
    ),
    Command("memory_history", HistoryRequest, _history, "Earlier versions of a memory."),
    Command("memory_restore", RestoreRequest, _restore, "Restore an earlier version."),
    Command(
        "memory_undo",
        UndoRequest,
        _undo,
        "Undo one change (its `change` from a mutation result), if nothing changed since.",
    ),
    Command(
        "memory_delete_project",
        DeleteProjectRequest,
        _delete_project,
        "Move a project's memories to quarantine.",
    ),
    Command(
        "project_pin",
        ProjectPinRequest,
        _project_pin,
        "Write a project's id file (.liveagent/project-id) so every machine finds its memories.",
    ),
    Command(
        "project_merge",
        ProjectMergeRequest,
        _project_merge,
        "Merge the other folders of a workdir's project (one id, two machines) into the one it "
        "opens; dry_run says what would move.",
    ),
    Command(
        "memory_recent_rejections",
        RecentRejectionsRequest,
        _recent_rejections,
        "Memories a person deleted recently.",
    ),
    Command("memory_paths_info", EmptyRequest, _paths_info, "Where the store is; counts."),
    Command(
        "memory_today_local_date",
        TodayRequest,
        _today_local_date,
        "The journal's today (04:00 rollover).",
    ),
    Command("memory_today_daily", TodayRequest, _today_daily, "Today's journal, if any."),
    Command(
        "memory_wipe_all",
        WipeAllRequest,
        _wipe_all,
        "Move everything to quarantine and start empty.",
    ),
    Command("memory_problems", EmptyRequest, _problems, "Files that could not be indexed."),
    Command(
        "agents_running",
        EmptyRequest,
        _agents_running,
        "MCP servers running now on this machine, with their clients.",
    ),
    Command(
        "sync_status",
        EmptyRequest,
        _sync_status,
        "Sync conflicts (conflict copies, files holding git markers) and the git sync's state.",
    ),
    Command(
        "sync_init",
        SyncInitRequest,
        _sync_init,
        "Sync the store with a git remote: push its memories, or take an empty store's from it.",
    ),
    Command(
        "sync_fetch",
        EmptyRequest,
        _sync_fetch,
        "Git sync's network step alone: fetch the remote's changes (no store file changes).",
    ),
    Command(
        "sync_run",
        SyncRunRequest,
        _sync_run,
        "Git sync: commit local changes, merge the remote's, push (never forced).",
    ),
    Command(
        "sync_versions", SyncVersionsRequest, _sync_versions, "The two texts of a sync conflict."
    ),
    Command(
        "sync_resolve",
        SyncResolveRequest,
        _sync_resolve,
        "Keep one version of a sync conflict, the other, or a merged text (a person only).",
    ),
    Command(
        "memory_journal_days",
        JournalDaysRequest,
        _journal_days,
        "Days that have journal entries, newest first.",
    ),
    Command(
        "memory_journal_entries",
        JournalEntriesRequest,
        _journal_entries,
        "A day's journal entries with their sources and the memories of their conversations.",
    ),
    Command(
        "memory_projects", EmptyRequest, _projects, "Every project with memories: counts, quota."
    ),
    Command("organize_run_create", RunCreateRequest, _run_create, "Start an organizer run."),
    Command(
        "organize_run_update",
        RunUpdateRequest,
        _run_update,
        "Record run progress (renews a running run's lease).",
    ),
    Command("organize_run_list", RunListRequest, _run_list, "Organizer run history."),
    Command("organize_run_read", RunReadRequest, _run_read, "One run with its report."),
    Command("organize_run_get", RunReadRequest, _run_read, "Same as organize_run_read (SPEC 2)."),
    Command("organize_run_clear_history", EmptyRequest, _run_clear, "Delete finished runs."),
    Command("organize_due_claim", DueClaimRequest, _due_claim, "Start the oldest due run."),
    Command("organize_due_complete", RunUpdateRequest, _due_complete, "Finish a claimed run."),
    Command(
        "organize_apply",
        OrganizeApplyRequest,
        _organize_apply,
        "Apply or reject a manual run's review queue.",
    ),
    Command(
        "organize_consolidate",
        ConsolidateRequest,
        _organize_consolidate,
        "Learn from the episodes since the last consolidation: proposals for review only.",
    ),
    Command(
        "organize_learned",
        LearnedRequest,
        _organize_learned,
        "What the newest consolidations proposed, with their state and episodes.",
    ),
    Command(
        "organize_review_queue",
        RunReadRequest,
        _organize_review_queue,
        "A run's review queue as a person acts on it: each merge, rewrite or delete, its state.",
    ),
    Command(
        "organize_contradictions",
        ContradictionListRequest,
        _organize_contradictions,
        "A run's contradictions: both memories as they are now, and each one's answer.",
    ),
    Command(
        "organize_resolve",
        ContradictionResolveRequest,
        _organize_resolve,
        "Answer a contradiction: keep_first, keep_second, keep_both or edit (a person only).",
    ),
    Command("settings_get", EmptyRequest, _settings_get, "Model settings and keyring status."),
    Command(
        "settings_save_memory",
        SettingsSaveRequest,
        _settings_save,
        "Change model/extraction/organizer settings (no keys).",
    ),
    Command(
        "projects_index",
        ProjectsIndexRequest,
        _projects_index,
        "This store's projects plus memory stores found under chosen folders.",
    ),
    Command(
        "projects_discover",
        ProjectsDiscoverRequest,
        _projects_discover,
        "Find LiveAgent and Loki Mode memory stores under folders, with counts.",
    ),
    Command(
        "loki_import",
        LokiImportRequest,
        _loki_import,
        "Import a Loki Mode store's episodes, patterns and skills (unreviewed; dry_run lists).",
    ),
    Command(
        "episode_record",
        EpisodeRecordRequest,
        _episode_record,
        "Store an episode trace (what an agent did), validated and indexed.",
    ),
    Command(
        "episode_list",
        EpisodeListRequest,
        _episode_list,
        "Episodes newest first, by UTC date or journal day.",
    ),
    Command("episode_read", EpisodeReadRequest, _episode_read, "One episode with its logs."),
    Command(
        "episode_decay",
        EpisodeDecayRequest,
        _episode_decay,
        "Write episode reads to their files and decay stored importance (once a day).",
    ),
    Command(
        "episode_timeline",
        TimelineRequest,
        _episode_timeline,
        "Recent actions, key decisions and the active context of the episodes.",
    ),
    Command(
        "embeddings_status",
        EmbeddingsRequest,
        _embeddings_status,
        "Embedding providers, vector index size and staleness, cache, fallback counts.",
    ),
    Command(
        "embeddings_rebuild",
        EmbeddingsRequest,
        _embeddings_rebuild,
        "Embed new and changed memories now (full: all of them); report the counts.",
    ),
    Command(
        "memory_search_hybrid",
        HybridSearchRequest,
        _search_hybrid,
        "Search with keywords fused with embeddings (by score); keyword-only when unavailable.",
    ),
    Command(
        "memory_context",
        ContextRequest,
        _context,
        "The memories and episodes an agent should see for a task, within a token budget.",
    ),
    Command(
        "memory_metrics",
        MetricsRequest,
        _metrics,
        "Retrieval metrics: hit rate, tokens saved, layers loaded, fallbacks (reset: restart).",
    ),
    Command(
        "episode_search",
        EpisodeSearchRequest,
        _episode_search,
        "Episodes ranked by keywords (English and Chinese), best first.",
    ),
)

COMMANDS: dict[str, Command] = {command.name: command for command in _TABLE}


def find_command(name: str) -> Command:
    """Look a command up by name (the `memory_` prefix may be left out)."""
    command = COMMANDS.get(name) or COMMANDS.get(f"memory_{name}")
    if command is not None:
        return command
    close = close_matches(name, COMMANDS, limit=config.COMMAND_CANDIDATES_LIMIT)
    raise UnknownCommand(
        f"unknown command {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""),
        candidates=[{"command": c} for c in close],
    )


def validate(command: Command, payload: Any) -> BaseModel:
    """Validate a payload into the command's request model (InvalidArgument on failure)."""
    return parse_request(command.request, payload, label=command.name)


def dispatch(target: AppContext | MemoryStore, name: str, payload: Any = None) -> Payload:
    """Run a command; raises MemoryDomainError (typed, with a stable code) on failure.

    `target` is the front end's AppContext, or a bare store, which runs with a default context
    of its own (context.context_for: its settings.json and the OS keyring).
    """
    command = find_command(name)
    request = validate(command, payload)
    if isinstance(target, AppContext):
        return command.run(target, request)
    with context_for(target) as context:  # closes what the call opened, never the store
        return command.run(context, request)


def call(target: AppContext | MemoryStore, name: str, payload: Any = None) -> tuple[bool, Payload]:
    """Run a command and return (ok, response) where a failure is the JSON error shape."""
    try:
        return True, dispatch(target, name, payload)
    except MemoryDomainError as exc:
        return False, exc.to_dict()

"""The one dispatch table of named commands every front end uses (SPEC 2).

Commands take a JSON-shaped dict and return one. Failures are `MemoryDomainError`s whose
`to_dict()` is the reference's error shape `{error, message, suggested_next_call?, candidates?}`.

This is the JSON face of the services for front ends only (the CLI, the app, agents' hosts):
each command validates its payload into a request model, calls one typed service method and
turns the typed result into JSON. The rules live in the services; nothing below the front ends
imports this module.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from liveagent_memory.agent.overview import render_overview
from liveagent_memory.domain.errors import (
    MemoryDomainError,
    UnknownCommand,
)
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchRequest,
    ContextRequest,
    DailyAppendRequest,
    DeleteProjectRequest,
    DeleteRequest,
    DueClaimRequest,
    EmbeddingsRequest,
    EmptyRequest,
    EpisodeListRequest,
    EpisodeReadRequest,
    EpisodeRecordRequest,
    EpisodeSearchRequest,
    HistoryRequest,
    HybridSearchRequest,
    JournalDaysRequest,
    ListRequest,
    MetricsRequest,
    OrganizeApplyRequest,
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
    TimelineRequest,
    TodayRequest,
    UpdateRequest,
    WipeAllRequest,
    WorkdirRequest,
    WriteRequest,
    parse_request,
)
from liveagent_memory.organizer import runs as organizer_runs
from liveagent_memory.organizer.apply import organize_apply
from liveagent_memory.organizer.run_record import run_view
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.chain import ChainSource, provider_chain, settings_source
from liveagent_memory.retrieval.embeddings import EmbeddingProvider
from liveagent_memory.retrieval.episodes import record_episode, search_episodes
from liveagent_memory.retrieval.projects import discover, projects_index
from liveagent_memory.settings import PURPOSES, SecretStore, load_settings, save_settings
from liveagent_memory.store.store import MemoryStore

Payload = dict[str, Any]


@dataclass(frozen=True)
class Command:
    name: str
    request: type[BaseModel]
    run: Callable[[MemoryStore, Any], Payload]
    summary: str
    mutates: bool = False


def _list(store: MemoryStore, req: ListRequest) -> Payload:
    return store.list_entries(req).to_dict()


def _read(store: MemoryStore, req: ReadRequest) -> Payload:
    return store.read(req).to_dict()


def _search(store: MemoryStore, req: SearchRequest) -> Payload:
    return retrieval.search(store, req, _chain_source(store)).to_dict()


def _write(store: MemoryStore, req: WriteRequest) -> Payload:
    return store.write(req).to_dict()


def _update(store: MemoryStore, req: UpdateRequest) -> Payload:
    return store.update(req).to_dict()


def _delete(store: MemoryStore, req: DeleteRequest) -> Payload:
    return store.delete(req).to_dict()


def _accept(store: MemoryStore, req: AcceptRequest) -> Payload:
    return store.accept(req).to_dict()


def _daily_append(store: MemoryStore, req: DailyAppendRequest) -> Payload:
    return store.append_daily(req).to_dict()


def _apply_batch(store: MemoryStore, req: BatchRequest) -> Payload:
    return store.apply_batch(req).to_dict()


def _quota(store: MemoryStore, req: WorkdirRequest) -> Payload:
    return store.quota_summary(req.workdir).to_dict()


def _overview(store: MemoryStore, req: WorkdirRequest) -> Payload:
    buckets = store.overview(req.workdir)
    # The buckets for front ends that draw their own view; `block` is the text an agent gets.
    return {**buckets.to_dict(), "block": render_overview(buckets)}


def _reconcile(store: MemoryStore, req: ReconcileRequest) -> Payload:
    return store.reconcile(full=req.full).to_dict()


def _history(store: MemoryStore, req: HistoryRequest) -> Payload:
    return store.history(req).to_dict()


def _restore(store: MemoryStore, req: RestoreRequest) -> Payload:
    return store.restore(req).to_dict()


def _delete_project(store: MemoryStore, req: DeleteProjectRequest) -> Payload:
    return store.delete_project(req)


def _recent_rejections(store: MemoryStore, req: RecentRejectionsRequest) -> Payload:
    return {"entries": [entry.to_dict() for entry in store.recent_rejections(req)]}


def _paths_info(store: MemoryStore, _req: EmptyRequest) -> Payload:
    return store.paths_info()


def _today_local_date(store: MemoryStore, req: TodayRequest) -> Payload:
    return {"date": store.today(req.rollover_hour).isoformat()}


def _today_daily(store: MemoryStore, _req: TodayRequest) -> Payload:
    daily = store.today_daily()
    return {"daily": daily.to_dict() if daily is not None else None}


def _wipe_all(store: MemoryStore, req: WipeAllRequest) -> Payload:
    return store.wipe_all(confirm=req.confirm)


def _problems(store: MemoryStore, _req: EmptyRequest) -> Payload:
    return {"problems": store.problems()}


def _journal_days(store: MemoryStore, req: JournalDaysRequest) -> Payload:
    return store.journal_days(req).to_dict()


def _projects(store: MemoryStore, _req: EmptyRequest) -> Payload:
    return store.projects().to_dict()


def _settings_view(store: MemoryStore) -> Payload:
    secrets = SecretStore()
    status = secrets.status()
    return {
        "settings": load_settings(store.root).to_dict(),
        "keyring": {"available": status.available, "message": status.message},
        "keys": {purpose: secrets.has(purpose) for purpose in PURPOSES},  # never the key itself
    }


def _settings_get(store: MemoryStore, _req: EmptyRequest) -> Payload:
    return _settings_view(store)


def _settings_save(store: MemoryStore, req: SettingsSaveRequest) -> Payload:
    save_settings(store.root, load_settings(store.root).merged(req.settings))
    return _settings_view(store)


def _run_create(store: MemoryStore, req: RunCreateRequest) -> Payload:
    run, claimed = organizer_runs.create_run(store, req)
    return {"run": run_view(run), "claimed": claimed}


def _run_update(store: MemoryStore, req: RunUpdateRequest) -> Payload:
    return {"run": run_view(organizer_runs.update_run(store, req))}


def _run_list(store: MemoryStore, req: RunListRequest) -> Payload:
    rows = organizer_runs.list_runs(store, req)
    return {"runs": [{k: v for k, v in r.to_dict().items() if k != "report"} for r in rows]}


def _run_read(store: MemoryStore, req: RunReadRequest) -> Payload:
    return {"run": run_view(store.organize_run_read(req.run_id))}


def _run_clear(store: MemoryStore, _req: EmptyRequest) -> Payload:
    return {"deleted": store.organize_run_clear_history()}


def _due_claim(store: MemoryStore, req: DueClaimRequest) -> Payload:
    run = store.organize_due_claim(req.now)
    return {"run": run_view(run) if run is not None else None}


def _due_complete(store: MemoryStore, req: RunUpdateRequest) -> Payload:
    return {"run": run_view(organizer_runs.complete_due_run(store, req))}


def _organize_apply(store: MemoryStore, req: OrganizeApplyRequest) -> Payload:
    return organize_apply(store, req).to_dict()


def _projects_index(store: MemoryStore, req: ProjectsIndexRequest) -> Payload:
    return projects_index(store, roots=req.roots, max_depth=req.max_depth)


def _projects_discover(store: MemoryStore, req: ProjectsDiscoverRequest) -> Payload:
    return discover(store, req).to_dict()


def _episode_record(store: MemoryStore, req: EpisodeRecordRequest) -> Payload:
    return record_episode(store, req).to_dict()


def _episode_search(store: MemoryStore, req: EpisodeSearchRequest) -> Payload:
    return search_episodes(store, req).to_dict()


def _episode_list(store: MemoryStore, req: EpisodeListRequest) -> Payload:
    return store.episode_list(req).to_dict()


def _episode_read(store: MemoryStore, req: EpisodeReadRequest) -> Payload:
    return store.episode_read(req).to_dict()


def _episode_timeline(store: MemoryStore, req: TimelineRequest) -> Payload:
    return store.episode_timeline(req).to_dict()


def _chain_source(store: MemoryStore) -> ChainSource:
    # Composition: the store's settings.json and the OS keyring, read at each use (the
    # AppContext of issue 13 will build this once and hand it in).
    return settings_source(store.root)


def embedding_providers(
    store: MemoryStore, providers: list[dict[str, Any]] | None
) -> tuple[EmbeddingProvider, ...]:
    """The chain of a request with this store's settings and the keyring (retrieval/chain.py)."""
    return provider_chain(_chain_source(store), providers)


def _embeddings_status(store: MemoryStore, req: EmbeddingsRequest) -> Payload:
    return retrieval.embeddings_status(store, req, _chain_source(store))


def _embeddings_rebuild(store: MemoryStore, req: EmbeddingsRequest) -> Payload:
    return retrieval.embeddings_rebuild(store, req, _chain_source(store)).to_dict()


def _search_hybrid(store: MemoryStore, req: HybridSearchRequest) -> Payload:
    return retrieval.search_hybrid(store, req, _chain_source(store)).to_dict()


def _context(store: MemoryStore, req: ContextRequest) -> Payload:
    return retrieval.relevant_context(store, req, _chain_source(store)).to_dict()


def _metrics(store: MemoryStore, req: MetricsRequest) -> Payload:
    return retrieval.metrics_report(store, req)


_TABLE = (
    Command("memory_list", ListRequest, _list, "List memories, newest first."),
    Command("memory_read", ReadRequest, _read, "Read one memory (optionally a line window)."),
    Command(
        "memory_search",
        SearchRequest,
        _search,
        "Search memories: keywords, fused with embeddings when they are configured.",
    ),
    Command("memory_write", WriteRequest, _write, "Create a memory.", True),
    Command("memory_update", UpdateRequest, _update, "Change a memory (replace or merge).", True),
    Command("memory_delete", DeleteRequest, _delete, "Move a memory to the trash.", True),
    Command("memory_accept", AcceptRequest, _accept, "Mark a memory reviewed.", True),
    Command(
        "memory_daily_append",
        DailyAppendRequest,
        _daily_append,
        "Append an entry to a day's journal.",
        True,
    ),
    Command(
        "memory_apply_batch",
        BatchRequest,
        _apply_batch,
        "Apply many operations with per-item results.",
        True,
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
        True,
    ),
    Command("memory_history", HistoryRequest, _history, "Earlier versions of a memory."),
    Command("memory_restore", RestoreRequest, _restore, "Restore an earlier version.", True),
    Command(
        "memory_delete_project",
        DeleteProjectRequest,
        _delete_project,
        "Move a project's memories to quarantine.",
        True,
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
        True,
    ),
    Command("memory_problems", EmptyRequest, _problems, "Files that could not be indexed."),
    Command(
        "memory_journal_days",
        JournalDaysRequest,
        _journal_days,
        "Days that have journal entries, newest first.",
    ),
    Command(
        "memory_projects", EmptyRequest, _projects, "Every project with memories: counts, quota."
    ),
    Command("organize_run_create", RunCreateRequest, _run_create, "Start an organizer run.", True),
    Command(
        "organize_run_update",
        RunUpdateRequest,
        _run_update,
        "Record run progress (renews a running run's lease).",
        True,
    ),
    Command("organize_run_list", RunListRequest, _run_list, "Organizer run history."),
    Command("organize_run_read", RunReadRequest, _run_read, "One run with its report."),
    Command("organize_run_get", RunReadRequest, _run_read, "Same as organize_run_read (SPEC 2)."),
    Command("organize_run_clear_history", EmptyRequest, _run_clear, "Delete finished runs.", True),
    Command("organize_due_claim", DueClaimRequest, _due_claim, "Start the oldest due run.", True),
    Command(
        "organize_due_complete", RunUpdateRequest, _due_complete, "Finish a claimed run.", True
    ),
    Command(
        "organize_apply",
        OrganizeApplyRequest,
        _organize_apply,
        "Apply or reject a manual run's review queue.",
        True,
    ),
    Command("settings_get", EmptyRequest, _settings_get, "Model settings and keyring status."),
    Command(
        "settings_save_memory",
        SettingsSaveRequest,
        _settings_save,
        "Change model/extraction/organizer settings (no keys).",
        True,
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
        "episode_record",
        EpisodeRecordRequest,
        _episode_record,
        "Store an episode trace (what an agent did), validated and indexed.",
        True,
    ),
    Command(
        "episode_list",
        EpisodeListRequest,
        _episode_list,
        "Episodes newest first, by UTC date or journal day.",
    ),
    Command("episode_read", EpisodeReadRequest, _episode_read, "One episode with its logs."),
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
        True,
    ),
    Command(
        "memory_search_hybrid",
        HybridSearchRequest,
        _search_hybrid,
        "Search with keywords fused with embeddings (RRF); keyword-only when unavailable.",
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
    close = difflib.get_close_matches(name, list(COMMANDS), n=3)
    raise UnknownCommand(
        f"unknown command {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""),
        candidates=[{"command": c} for c in close],
    )


def validate(command: Command, payload: Any) -> BaseModel:
    """Validate a payload into the command's request model (InvalidArgument on failure)."""
    return parse_request(command.request, payload, label=command.name)


def dispatch(store: MemoryStore, name: str, payload: Any = None) -> Payload:
    """Run a command; raises MemoryDomainError (typed, with a stable code) on failure."""
    command = find_command(name)
    request = validate(command, payload)
    return command.run(store, request)


def call(store: MemoryStore, name: str, payload: Any = None) -> tuple[bool, Payload]:
    """Run a command and return (ok, response) where a failure is the JSON error shape."""
    try:
        return True, dispatch(store, name, payload)
    except MemoryDomainError as exc:
        return False, exc.to_dict()

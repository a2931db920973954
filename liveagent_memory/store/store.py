"""MemoryStore: the only code that touches memory files and the index.

A thin facade over one module per concept, the way Anki's Collection delegates to its managers;
each receives the store's StoreContext (store/context.py: layout, index, clock, write lock,
limits):

- store/resolve.py     finding a memory by its slug, rows as entries, quota counts
- store/writes.py      write, update, delete, accept (and what every mutation shares)
- store/journal.py     the daily journal: append, days
- store/journal_entries.py a day's entries with their sources and linked memories
- store/batch.py       memory_apply_batch
- store/history.py     history and restore
- store/undo.py        undo one change (accept, edit, restore, delete, undo)
- store/views.py       list, read, search, overview, quota, projects, rejections, problems
- store/episodes.py    episode traces (rows: episode_index.py, reconcile: episode_reconcile.py)
- store/maintenance.py reconcile, damaged-index rebuild, project deletion, wipe, clean-up
- store/scope_index.py MEMORY.md, rendered in Python
- store/mutation.py    one mutation: the write lock held, files put back if it fails
- store/runs.py        organizer runs

Every mutation runs under the store's cross-process write lock: read the current file, write
the new one atomically, index it, append to the audit log, regenerate the scope's MEMORY.md.
Reads use the index without the lock (SQLite WAL gives them a consistent snapshot). This
module decides the transaction and locking of each call and heals a damaged index (`_heals`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import Clock, journal_date, system_clock
from liveagent_memory.domain.dates import DateSpan
from liveagent_memory.domain.episode_use import EpisodeUseResult
from liveagent_memory.domain.errors import (
    InvalidArgument,
    MemoryDomainError,
    SlugNotFound,
    StoreUnavailable,
)
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.journal import JournalDaysResult, JournalEntriesResult
from liveagent_memory.domain.projects import ProjectMergeResult, ProjectPinResult
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchRequest,
    DailyAppendRequest,
    DeleteProjectRequest,
    DeleteRequest,
    EpisodeListRequest,
    EpisodeReadRequest,
    FilterFields,
    HistoryRequest,
    JournalDaysRequest,
    JournalEntriesRequest,
    ListRequest,
    ProjectMergeRequest,
    ProjectPinRequest,
    ReadRequest,
    RecentRejectionsRequest,
    RestoreRequest,
    SearchRequest,
    SyncResolveRequest,
    TimelineRequest,
    UndoRequest,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.schema import (
    BatchResult,
    Episode,
    EpisodeListResult,
    EpisodeReadResult,
    EpisodeRecordResult,
    EpisodeSearchResult,
    HistoryResult,
    ListResult,
    MemoryEntry,
    MutationResult,
    OrganizeRun,
    OverviewBuckets,
    ProjectsResult,
    QuotaSummary,
    ReadResult,
    ReconcileReport,
    RejectionEntry,
    SearchResult,
    Timeline,
)
from liveagent_memory.paths import default_home
from liveagent_memory.store import (
    batch,
    episode_access,
    episode_index,
    episodes,
    filters,
    git_sync,
    history,
    ignore_files,
    indexed,
    journal,
    journal_entries,
    maintenance,
    project_keys,
    project_merge,
    rules,
    runs,
    settled,
    sync,
    undo,
    views,
    writes,
)
from liveagent_memory.store.context import StoreContext, StoreLimits
from liveagent_memory.store.damage import IndexDamaged
from liveagent_memory.store.files import Layout
from liveagent_memory.store.index import Index, OpenReport
from liveagent_memory.store.indexed import IndexedMemory
from liveagent_memory.store.indexed import Key as IndexedKey
from liveagent_memory.store.locking import WriteLock
from liveagent_memory.store.mutation import mutation
from liveagent_memory.store.presence import (
    AgentSession,
    PresenceRecord,
    presence_folder,
    running_sessions,
)

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")


def _heals(
    method: Callable[Concatenate[MemoryStore, P], T],
) -> Callable[Concatenate[MemoryStore, P], T]:
    """Run a store method again after rebuilding an index SQLite found damaged in use.

    The index is a cache of the files: damage that `quick_check` missed at open (broken FTS5
    blocks) is handled like a corrupt file at open, quarantined and rebuilt, instead of failing
    this and every later call. Only for methods that change nothing before they fail (one
    transaction); apply_batch, which commits chunk by chunk, resumes by itself.
    """

    @functools.wraps(method)
    def healing(store: MemoryStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(store, *args, **kwargs)
        except IndexDamaged as exc:
            store.rebuild_damaged_index(exc)
        return method(store, *args, **kwargs)

    return healing


def _write_lock(layout: Layout) -> WriteLock:
    """The store's write lock. Whoever takes it first undoes a git sync that another process
    left half done (killed while it held the lock: store/git_sync.py `recover`), so no write
    lands on a half-merged folder only for the next sync's roll-back to undo it."""
    root = layout.root

    def undo_interrupted_sync() -> None:
        if git_sync.interrupted(root):  # a file test: no git call on an ordinary write
            git_sync.recover_logged(root)

    return WriteLock(layout.lock_path, on_acquire=undo_interrupted_sync)


class MemoryStore:
    """A store of memory files plus its SQLite index (see module docstring)."""

    def __init__(
        self,
        layout: Layout,
        index: Index,
        open_report: OpenReport,
        *,
        clock: Clock,
        scope_limit: int,
        rollover_hour: int,
        retention_days: int,
        executes_runs: bool = True,
    ) -> None:
        self._ctx = StoreContext(
            layout=layout,
            index=index,
            open_report=open_report,
            clock=clock,
            lock=_write_lock(layout),
            limits=StoreLimits(scope_limit, rollover_hour, retention_days),
            executes_runs=executes_runs,
        )

    # --- lifecycle --------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path | str | None = None,
        *,
        clock: Clock = system_clock,
        scope_limit: int = config.SCOPE_MEMORY_LIMIT,
        rollover_hour: int = config.DAILY_ROLLOVER_HOUR,
        retention_days: int = config.DAILY_RETENTION_DAYS,
        reconcile: bool = True,
        executes_runs: bool = True,
    ) -> MemoryStore:
        """Open (creating if needed) the store at `root` and bring its index up to date.

        `executes_runs=False` is for one-shot processes (the `call` command) that never run the
        organizer pipeline: an organizer run they create without `due_at` is queued for the
        desktop app, and a run they claim is held only by its lease (issue 12).
        """
        path = Path(root).expanduser() if root is not None else default_home()
        layout = Layout(path.absolute())
        if layout.root.exists() and not layout.root.is_dir():
            raise StoreUnavailable(f"{layout.root} exists and is not a folder")
        layout.ensure()
        lock = _write_lock(layout)
        with lock:  # (a git sync killed mid-way is undone first: _write_lock)
            # Per-machine files kept out of git and Syncthing (store/ignore_files.py).
            ignore_files.write_ignore_files(layout.root)
            index, report = Index.open(layout, now_ms=clock())
            store = cls(
                layout,
                index,
                report,
                clock=clock,
                scope_limit=scope_limit,
                rollover_hour=rollover_hour,
                retention_days=retention_days,
                executes_runs=executes_runs,
            )
            store._ctx.lock = lock
            try:
                if reconcile:
                    try:
                        maintenance.reconcile(store._ctx, full=report.created)
                    except IndexDamaged as exc:
                        store.rebuild_damaged_index(exc)
                maintenance.collect_garbage(store._ctx)
            except BaseException:
                store.index.close()
                raise
        return store

    def rebuild_damaged_index(self, damage: IndexDamaged) -> None:
        """Quarantine an index found damaged while in use and rebuild it from the files.

        Its audit log and run history are copied over when still readable. If another
        process already replaced the file, this one just reconnects to it.
        """
        maintenance.rebuild_damaged(self._ctx, damage)

    def close(self) -> None:
        """Write the episode reads counted so far, then close the index."""
        try:
            episode_access.flush(self._ctx)
        except MemoryDomainError as exc:  # a full or read-only disk: the index still closes
            log.warning("episode reads not written at close: %s", exc.message)
        finally:
            self.index.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- state (kept in the shared context) ---------------------------------------------------

    @property
    def layout(self) -> Layout:
        return self._ctx.layout

    @layout.setter
    def layout(self, value: Layout) -> None:
        self._ctx.layout = value

    @property
    def index(self) -> Index:
        """The index now in use (a rebuild or a wipe replaces it)."""
        return self._ctx.index

    @index.setter
    def index(self, value: Index) -> None:
        self._ctx.index = value

    @property
    def open_report(self) -> OpenReport:
        return self._ctx.open_report

    @open_report.setter
    def open_report(self, value: OpenReport) -> None:
        self._ctx.open_report = value

    @property
    def last_reconcile(self) -> ReconcileReport | None:
        return self._ctx.last_reconcile

    @last_reconcile.setter
    def last_reconcile(self, value: ReconcileReport | None) -> None:
        self._ctx.last_reconcile = value

    @property
    def scope_limit(self) -> int:
        return self._ctx.limits.scope_limit

    @scope_limit.setter
    def scope_limit(self, value: int) -> None:
        self._ctx.limits.scope_limit = value

    @property
    def rollover_hour(self) -> int:
        return self._ctx.limits.rollover_hour

    @rollover_hour.setter
    def rollover_hour(self, value: int) -> None:
        self._ctx.limits.rollover_hour = value

    @property
    def retention_days(self) -> int:
        return self._ctx.limits.retention_days

    @retention_days.setter
    def retention_days(self, value: int) -> None:
        self._ctx.limits.retention_days = value

    @property
    def executes_runs(self) -> bool:
        return self._ctx.executes_runs

    @executes_runs.setter
    def executes_runs(self, value: bool) -> None:
        self._ctx.executes_runs = value

    @property
    def root(self) -> Path:
        return self.layout.root

    def now_ms(self) -> int:
        return self._ctx.now_ms()

    # --- MCP servers running now (store/presence.py) --------------------------------------------

    def presence_record(self, *, transport: str, workdir: str | None) -> PresenceRecord:
        """This process's record as an MCP server (`start` it, `saw` each request, `stop`)."""
        return PresenceRecord(
            presence_folder(self.root), self.now_ms, transport=transport, workdir=workdir
        )

    def agent_sessions(self) -> list[AgentSession]:
        """The MCP servers running now on this machine, the most recently used first."""
        return running_sessions(self.root)

    def today(self, rollover_hour: int | None = None) -> date:
        """The journal's today: the local date, still yesterday before the rollover hour (the
        store's, 04:00, unless one is given)."""
        if rollover_hour is None:
            return self._ctx.today()
        return journal_date(self.now_ms(), rollover_hour)

    # --- reads (store/views.py) ---------------------------------------------------------------

    @_heals
    def list_entries(self, req: ListRequest) -> ListResult:
        """List memories, newest first or sorted (REFERENCE A3: default 200, max 1000)."""
        return views.list_entries(self._ctx, req)

    @_heals
    def read(self, req: ReadRequest) -> ReadResult:
        """Read one memory, optionally a window of its body lines (REFERENCE read)."""
        return views.read(self._ctx, req)

    @_heals
    def entries_with_content(self, req: ListRequest) -> list[tuple[MemoryEntry, str]]:
        """Every memory a listing matches (all pages) with its text, evidence block removed.

        For whole-store passes such as the organizer's scan. A file that vanished or stopped
        parsing since it was indexed is left out; the next reconcile reports it.
        """
        return views.entries_with_content(self._ctx, req)

    @_heals
    def entries_with_content_page(
        self, req: ListRequest
    ) -> tuple[list[tuple[MemoryEntry, str]], bool]:
        """One page of `entries_with_content` (the request's limit and offset), and whether
        more follow (the background vector build reads page by page)."""
        return views.entries_with_content_page(self._ctx, req)

    @_heals
    def search(self, req: SearchRequest) -> SearchResult:
        """Keyword search (see store/search.py), with the list's filter."""
        return views.search(self._ctx, req)

    def project_of(self, workdir: str | None) -> str | None:
        """The project (workdir_hash) of `workdir`; None for none."""
        return self._ctx.hash_of(workdir, None)

    def memory_filter(self, req: FilterFields) -> MemoryFilter:
        """The filter a list or search request asks for (store/filters.py); typed errors for a
        bad scope or type, or the project scope without a project."""
        return filters.memory_filter(
            self._ctx, req, purpose="searching project memories", daily_by_default=True
        )

    @_heals
    def filtered_keys(self, flt: MemoryFilter) -> set[tuple[str, str, str]]:
        """(scope, workdir_hash, slug) of every memory `flt` keeps (journal days as it says)."""
        return views.filtered_keys(self._ctx, flt)

    @_heals
    def dated_keys(
        self, flt: MemoryFilter, spans: list[DateSpan], limit: int
    ) -> list[tuple[str, str, str]]:
        """(scope, workdir_hash, slug) of at most `limit` memories `flt` keeps that were
        created, updated or journalled in one of `spans` (a query's dates), in no particular
        order."""
        return views.dated_keys(self._ctx, flt, spans, limit)

    @_heals
    def common_words(self, words: Sequence[str], share: float, minimum: int) -> list[str]:
        """Which of `words` (Latin-script, lowercase) more than `share` of the store's memories
        hold, as keyword search matches them; none in a store of fewer than `minimum`."""
        return views.common_words(self._ctx, words, share, minimum)

    @_heals
    def indexed_memories(self, keys: Sequence[IndexedKey]) -> dict[IndexedKey, IndexedMemory]:
        """The memories of `keys` ((scope, workdir_hash, slug)) as the index holds them, without
        reading their files, each saying whether its file is still the one indexed
        (store/indexed.py)."""
        return indexed.indexed_memories(self._ctx, keys)

    @_heals
    def overview(self, workdir: str | None) -> OverviewBuckets:
        """Memory Index data for a system prompt (REFERENCE A6 buckets, gap fixed)."""
        return views.overview(self._ctx, workdir)

    @_heals
    def quota_summary(self, workdir: str | None = None) -> QuotaSummary:
        """Per-scope quota figures and the ladder of the tightest scope (SPEC 1.7)."""
        return views.quota_summary(self._ctx, workdir)

    @_heals
    def recent_rejections(self, req: RecentRejectionsRequest) -> list[RejectionEntry]:
        """Memories a person deleted recently (REFERENCE A4): extraction must not rewrite them."""
        return views.recent_rejections(self._ctx, req)

    @_heals
    def sync_status(self) -> dict[str, Any]:
        """Every sync conflict (store/sync.py): copies and files holding git markers; and, as
        `git`, the git sync's state (store/git_sync.py)."""
        return {**sync.status(self._ctx), "git": git_sync.status(self._ctx)}

    @_heals
    def git_sync_init(self, remote: str) -> dict[str, Any]:
        """Make the store folder a git repository syncing with `remote` (store/git_sync.py)."""
        return git_sync.init(self._ctx, remote)

    def git_sync_fetch(self) -> dict[str, Any]:
        """Fetch the remote's changes only: no lock, no store file or index touched, so it may
        run beside the thread using the store (store/git_sync.py `fetch`)."""
        return git_sync.fetch(self._ctx)

    @_heals
    def git_sync(self, *, fetched: bool = False) -> dict[str, Any]:
        """Commit, merge the remote's changes, push, reconcile (store/git_sync.py); `fetched`:
        `git_sync_fetch` has just run."""
        return git_sync.run(self._ctx, fetched=fetched)

    @_heals
    def sync_versions(self, path: str) -> dict[str, Any]:
        """The two texts of one sync conflict, for a side-by-side view."""
        return sync.versions(self._ctx, path)

    @_heals
    def sync_resolve(self, req: SyncResolveRequest) -> dict[str, Any]:
        """Keep one version of a sync conflict (or a merged text); the loser stays in history."""
        return sync.resolve(self._ctx, req)

    @_heals
    def problems(self) -> list[dict[str, str]]:
        """Files reconcile could not index, with the reason (they stay on disk untouched)."""
        return views.problems(self._ctx)

    @_heals
    def paths_info(self) -> dict[str, Any]:
        return views.paths_info(self._ctx)

    @_heals
    def today_daily(self) -> ReadResult | None:
        """Today's journal, or None when nothing was appended today."""
        slug = f"daily-{self.today().isoformat()}"
        try:
            return self.read(ReadRequest(slug=slug, scope="global"))
        except SlugNotFound:
            return None

    @_heals
    def footprint(self, workdir: str | None) -> dict[str, int]:
        """What loading everything would read: file count, bytes and estimated tokens of the
        memories and the episodes a context for `workdir` could draw on — global and unscoped
        ones, plus that project's (SPEC 6 "tokens saved vs loading everything")."""
        return views.footprint(self._ctx, workdir)

    @_heals
    def journal_days(self, req: JournalDaysRequest) -> JournalDaysResult:
        """Days that have a journal, newest first (SPEC 1.8), optionally of one month or range.

        Reads only memory_meta's daily rows (its partial daily index), never a memory file.
        """
        return journal.journal_days(self._ctx, req)

    @_heals
    def journal_entries(self, req: JournalEntriesRequest) -> JournalEntriesResult:
        """A day's journal entries, oldest first, each with its source and the memories of
        its conversation (store/journal_entries.py)."""
        return journal_entries.journal_entries(self._ctx, req)

    @_heals
    def projects(self) -> ProjectsResult:
        """Every scope holding memories, the global one first, with counts and quota figures.

        One GROUP BY over memory_meta; the only per-project work is reading its .workdir.json
        and checking that the folder still exists (SPEC 6 cross-project index).
        """
        return views.projects(self._ctx)

    def project_key(self, workdir: str) -> str:
        """The project folder `workdir` opens on this machine: its own hash's, else the one
        its portable id or path was recorded in (issue 19; store/project_keys.py)."""
        return self._ctx.place_of(workdir).key

    def pin_project(self, req: ProjectPinRequest) -> ProjectPinResult:
        """Write the workdir's `.liveagent/project-id` (a person asked) and record it."""
        return project_keys.pin(self._ctx, req.workdir)

    def merge_project(self, req: ProjectMergeRequest) -> ProjectMergeResult:
        """Merge every other folder of the workdir's project into the one it opens (a person
        asked; store/project_merge.py). Reconciles first: it moves what the files hold."""
        with self._ctx.lock:
            maintenance.reconcile(self._ctx, full=False)
            return project_merge.merge(self._ctx, req)

    # --- organizer runs (REFERENCE A10; store/runs.py) ------------------------------------------

    @_heals
    def organize_run_create(self, /, **fields: Any) -> tuple[OrganizeRun, bool]:
        """Claim the organizer (one active run); returns (run, claimed)."""
        rules.refuse_secret_fields(fields, what="organize_run_create")
        with self._ctx.lock, self.index.write() as conn:
            return runs.create(conn, self.now_ms(), owner=self._ctx.run_owner(), **fields)

    @_heals
    def organize_run_update(self, /, run_id: str, **fields: Any) -> OrganizeRun:
        """Record a run's progress; refused whole if any text (report, error) holds a secret."""
        rules.refuse_secret_fields(fields, what="organize_run_update")
        with self._ctx.lock, self.index.write() as conn:
            return runs.update(conn, self.now_ms(), run_id, **fields)

    @_heals
    def organize_run_read(self, run_id: str) -> OrganizeRun:
        with self._ctx.lock, self.index.write() as conn:  # may fail an abandoned run first
            runs.reap(conn, self.now_ms())
            return runs.read(conn, run_id)

    @_heals
    def organize_run_list(
        self, *, limit: int, status: str | None = None, phase: str | None = None
    ) -> list[OrganizeRun]:
        with self._ctx.lock, self.index.write() as conn:
            runs.reap(conn, self.now_ms())
            return runs.list_runs(conn, limit=limit, status=status, phase=phase)

    @_heals
    def organize_run_clear_history(self) -> int:
        with self._ctx.lock, self.index.write() as conn:
            return runs.clear_history(conn)

    @_heals
    def organize_due_claim(self, now_ms: int | None = None) -> OrganizeRun | None:
        """Start the oldest due pending run, if nothing runs; None when there is none."""
        with self.index.read() as conn:
            # The app polls this every few seconds: with no active run (the usual case) one
            # indexed read answers, without taking the write lock.
            if not runs.any_active(conn):
                return None
        with self._ctx.lock, self.index.write() as conn:
            now = self.now_ms() if now_ms is None else now_ms
            return runs.claim_due(conn, now, owner=self._ctx.run_owner())

    # --- mutations (store/writes.py, store/journal.py, store/batch.py) ------------------------

    @_heals
    def write(self, req: WriteRequest) -> MutationResult:
        """Create a memory (`slug_exists` if it is already there)."""
        with mutation(self._ctx) as changes, self.index.write() as conn:
            return writes.write(self._ctx, conn, changes, req)

    @_heals
    def update(self, req: UpdateRequest) -> MutationResult:
        """Change an existing memory: body (replace or merge), description, type, evidence."""
        if rules.is_daily_slug(req.slug):
            return self.append_daily(journal.append_request(self._ctx, req))
        with mutation(self._ctx) as changes, self.index.write() as conn:
            return writes.update(self._ctx, conn, changes, req)

    @_heals
    def delete(self, req: DeleteRequest) -> MutationResult:
        """Move a memory to its scope's .trash/ (restorable; audit records who and why)."""
        with mutation(self._ctx) as changes, self.index.write() as conn:
            return writes.delete(self._ctx, conn, changes, req)

    @_heals
    def accept(self, req: AcceptRequest) -> MutationResult:
        """Mark a memory reviewed (REFERENCE accept: a person vouches for it)."""
        with mutation(self._ctx) as changes, self.index.write() as conn:
            return writes.accept(self._ctx, conn, changes, req)

    @_heals
    def append_daily(self, req: DailyAppendRequest) -> MutationResult:
        """Append an entry to a day's journal (today by default; SPEC 1.8)."""
        with mutation(self._ctx) as changes, self.index.write() as conn:
            return journal.append_daily(self._ctx, conn, changes, req)

    def apply_batch(self, req: BatchRequest) -> BatchResult:
        """Apply many operations, each validated on its own (SPEC 2).

        Items sharing a `group_id` (a merge) run together: the group's upserts and updates
        first, then its deletes — and the deletes are skipped if any upsert failed, so a
        merge never loses its sources. Every item gets a result; nothing stops the batch
        except a bug.
        """
        return batch.apply_batch(self._ctx, req, heal=self.rebuild_damaged_index)

    # --- settled contradictions (store/settled.py) ---------------------------------------------

    def settled_pairs(self, scope: str, workdir_hash: str) -> list[settled.SettledPair]:
        """The pairs of one scope a person kept both of (issue 15), oldest first."""
        return settled.settled_pairs(self._ctx, scope, workdir_hash)

    def settle_pair(self, scope: str, workdir_hash: str, pair: settled.SettledPair) -> None:
        """Remember that a person kept both memories of `pair` as they are now."""
        settled.settle_pair(self._ctx, scope, workdir_hash, pair)

    # --- history and restore (store/history.py) -------------------------------------------------

    @_heals
    def history(self, req: HistoryRequest) -> HistoryResult:
        """Versions of a memory: audit log entries, trash copies and organizer snapshots."""
        return history.history(self._ctx, req)

    @_heals
    def restore(self, req: RestoreRequest) -> MutationResult:
        """Make an earlier version (from history) the current one. Nothing is lost: the
        version being replaced is itself kept in the audit log."""
        return history.restore(self._ctx, req)

    @_heals
    def undo(self, req: UndoRequest) -> MutationResult:
        """Put a memory back exactly as it was before one change (store/undo.py)."""
        return undo.undo(self._ctx, req)

    # --- maintenance (store/maintenance.py) -----------------------------------------------------

    @_heals
    def reconcile(self, *, full: bool = False) -> ReconcileReport:
        """Bring the index in line with the files (incremental unless `full`)."""
        with self._ctx.lock:
            return maintenance.reconcile(self._ctx, full=full)

    @_heals
    def delete_project(self, req: DeleteProjectRequest) -> dict[str, Any]:
        """Move a whole project's memories to .quarantine/ (REFERENCE delete_project)."""
        return maintenance.delete_project(self._ctx, req)

    def wipe_all(self, *, confirm: bool) -> dict[str, Any]:
        """Move every memory, the index, the vector index and the retrieval metrics to
        .quarantine/wiped-{ms}/ and start empty; refused unless `confirm` (a person said so)."""
        if not confirm:
            raise InvalidArgument(
                "Wiping moves every memory to .quarantine/ and needs an explicit confirmation",
                field="confirm",
            )
        backup = maintenance.wipe_all(self._ctx)
        return {"backup_path": str(backup), **self.paths_info()}

    # --- episodes (SPEC 6; store/episodes.py) ---------------------------------------------------

    @_heals
    def record_episode(self, episode: Episode, *, replace: bool = False) -> EpisodeRecordResult:
        """Store and index one normalized episode (`episode_exists` unless replace).

        The episode comes from retrieval's normalize_episode (the `episode_record` command);
        one that is not normalized, or holds a secret, is refused and nothing is written.
        """
        return episodes.record_episode(self._ctx, episode, replace=replace)

    @_heals
    def episode_read(self, req: EpisodeReadRequest, *, counted: bool = True) -> EpisodeReadResult:
        """One episode, read from its file, with the reads not yet written to it.

        `counted` (a read for a person or an agent) counts this read (REFERENCE B2
        access_count); a context reading what it may show passes False and counts what it
        served (`episodes_served`).
        """
        result = episodes.read_episode(self._ctx, req)
        if counted:
            episode_access.count_reads(self._ctx, [result.episode.id])
        result.episode = episode_access.with_pending(self._ctx, result.episode)
        if counted:
            episode_access.flush_if_due(self._ctx)
        return result

    @_heals
    def episodes_served(self, episode_ids: list[str]) -> None:
        """Count one read of each episode a context served (written in a later batch)."""
        episode_access.count_reads(self._ctx, episode_ids)
        episode_access.flush_if_due(self._ctx)

    @_heals
    def flush_episode_reads(self) -> EpisodeUseResult:
        """Write the counted episode reads to the episode files now (store/episode_access.py)."""
        return episode_access.flush(self._ctx)

    @_heals
    def apply_episode_decay(self, now_ms: int | None = None) -> EpisodeUseResult:
        """Write the counted reads, then apply REFERENCE B4's decay to every episode's stored
        importance for the time since the last pass; at most once per UTC day (a second pass
        the same day changes nothing).

        `now_ms` defaults to the store's clock; `decayed` in the result is how many changed.
        """
        return episode_access.apply_decay(self._ctx, self.now_ms() if now_ms is None else now_ms)

    def episode_decay_anchor(self) -> int | None:
        """Since when (ms) stored episode importance is not yet decayed; None: since each
        episode's start (decay never applied)."""
        return episode_access.decay_anchor_ms(self._ctx)

    @_heals
    def episode_list(self, req: EpisodeListRequest) -> EpisodeListResult:
        """Episodes newest first, by UTC date (`date`) or journal day (`date_local`)."""
        return episodes.list_episodes(self._ctx, req)

    @_heals
    def episode_search(
        self, query: str, *, limit: int | None = None, workdir: str | None = None
    ) -> EpisodeSearchResult:
        """Episodes ranked by BM25 for `query` (a workdir adds its project's to unscoped ones)."""
        return episodes.search_episodes(self._ctx, query, limit=limit, workdir=workdir)

    @_heals
    def episode_ids(self) -> list[str]:
        """The id of every indexed episode (the vector index keeps them in line)."""
        return episode_index.episode_ids(self.index)

    @_heals
    def indexed_episodes(self, ids: Sequence[str]) -> dict[str, Episode]:
        """The episodes of `ids` as the index holds them (no file read); a missing id is
        absent."""
        return episode_index.indexed_episodes(self.index, list(ids))

    @_heals
    def episode_timeline(self, req: TimelineRequest) -> Timeline:
        """REFERENCE B6 layer 2 from the newest episodes (computed, never stored)."""
        return episodes.timeline(self._ctx, req)

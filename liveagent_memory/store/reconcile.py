"""Reconcile: bring the index in line with the files (SPEC 1.1).

A missing or rebuilt index gets a full pass. Otherwise the pass is incremental: a file whose
mtime, size and ctime match what was indexed is not read at all (the ctime because a sync tool
may write an edit and then restore the old mtime, which utime can do and the ctime cannot
follow); one whose bytes hash the same is only re-stamped; only added, changed or removed files
are parsed and re-indexed. A file that
cannot be parsed is recorded with its reason and left untouched on disk.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

import sqlalchemy as sa

from liveagent_memory.domain import cold_config, config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.domain.schema import Actor, AuditOp, Problem, ReconcileReport
from liveagent_memory.store import cold_fts, conflicts
from liveagent_memory.store.cold_fts import ColdFtsBuild
from liveagent_memory.store.conflicts import SyncTool
from liveagent_memory.store.damage import is_file_failure
from liveagent_memory.store.db import driver, isolated
from liveagent_memory.store.documents import describe, load_bytes, sha256_hex
from liveagent_memory.store.evidence import DocumentError
from liveagent_memory.store.files import (
    DAILY_FILE_PATTERN,
    FoundFile,
    Layout,
    SkippedFile,
    ensure_private_dir,
    fsync_dir,
    remove_stale_temp_files,
)
from liveagent_memory.store.index import Index
from liveagent_memory.store.rows import (
    DUPLICATE_PREFIX,
    UNREADABLE_PREFIX,
    FileState,
    IndexRow,
    is_transient,
)

log = logging.getLogger(__name__)

RECONCILE_CHUNK = 500
SCOPE_INDEX = config.SCOPE_INDEX_FILENAME  # files per index transaction during a pass


@dataclass
class _Pass:
    full: bool
    machine: cold_fts.CpuTimes | None = None  # the machine's CPU time when the pass started
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    touched_scopes: set[tuple[str, str]] = field(default_factory=set)


def archive_old_dailies(layout: Layout, today: date, retention_days: int) -> int:
    """Move journals older than the retention window to global/daily/.archive/YYYY/."""
    moved = 0
    try:
        entries = list(os.scandir(layout.daily_dir))
    except OSError:
        return 0
    for entry in entries:
        match = DAILY_FILE_PATTERN.match(entry.name)
        if not match or not entry.is_file(follow_symlinks=False):
            continue
        try:
            day = date.fromisoformat(match.group(1))
        except ValueError:
            continue
        if (today - day).days <= retention_days:
            continue
        target = layout.archived_daily_path(day)
        if target.exists():
            log.warning("daily archive target exists; leaving %s in place", entry.path)
            continue
        try:
            layout.check_inside(target)
            ensure_private_dir(target.parent)  # SPEC 7: .archive/ and YYYY/ are 0700 too
            os.replace(entry.path, target)
        except (OSError, StoreUnavailable) as exc:
            # One journal that cannot move stays where it is (and searchable) this time.
            log.warning("could not archive %s: %s", entry.path, exc)
            continue
        fsync_dir(target.parent)
        moved += 1
    if moved:
        fsync_dir(layout.daily_dir)
    return moved


def reconcile(
    layout: Layout,
    index: Index,
    *,
    full: bool,
    today: date,
    now_ms: int,
    refresh_scope: Callable[[str, str], None],
    retention_days: int = config.DAILY_RETENTION_DAYS,
) -> ReconcileReport:
    """Run one reconcile pass; the caller holds the store's write lock."""
    started, machine = time.perf_counter(), cold_fts.cpu_times()
    archived = archive_old_dailies(layout, today, retention_days)
    temp_removed = remove_stale_temp_files(layout)
    cold_fts.remove_stale_sides(layout.index_path)  # a killed cold pass's worker file
    found, skipped = layout.scan()
    # An index no program wrote since this store closed it was consistent then (store/damage.py).
    trusted = not full and index.unchanged_since_closed()
    with index.write() as conn:
        if not full and not trusted and not index.counts_consistent(conn):
            log.info("index rows disagree with the file table; rebuilding from the files")
            full = True
        if full:
            index.clear(conn)
        stamps = index.file_stamps(conn)
    state = _Pass(full=full, machine=machine)

    present = {f.relpath for f in found} | {s.relpath for s in skipped}
    gone_paths = [path for path in stamps if path not in present]
    changed = _changed_files(found, stamps, state)
    # Full file states (keys, hashes) only when something is to be done: a warm pass with
    # nothing changed compares stamps and stops.
    states: dict[str, FileState] = {}
    claimed: dict[tuple[str, str, str], str] = {}
    if changed or gone_paths:
        with index.read() as conn:
            states = index.file_states(conn)
        changed_paths = {item.relpath for item in changed}
        for path, old in states.items():
            if path in present and path not in changed_paths and old.problem is None:
                claimed[(old.scope or "", old.workdir_hash or "", old.slug or "")] = path
    gone = [states[path] for path in gone_paths if path in states]
    # Re-checked duplicates go last, after the file holding their slug may have changed or
    # gone. Sorting by path gives a deterministic winner when two files claim a slug.
    changed.sort(key=lambda f: (_is_transient(states.get(f.relpath)), f.relpath))

    with index.write() as conn:
        for old in gone:
            _remove(index, conn, old, now_ms, audit=not full)
            state.removed += 1
            if old.scope is not None:
                state.touched_scopes.add((old.scope, old.workdir_hash or ""))
    _index_changed(index, changed, states, claimed, state, now_ms)
    problems = _record_skipped(index, skipped, stamps)
    _refresh_scopes(layout, index, found, state, refresh_scope)
    return ReconcileReport(
        full_rebuild=state.full,
        scanned=len(found),
        added=state.added,
        updated=state.updated,
        removed=state.removed,
        unchanged=state.unchanged,
        archived_dailies=archived,
        problems=sorted(problems, key=lambda p: p.path),
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        temp_files_removed=temp_removed,
    )


def _changed_files(
    found: list[FoundFile], stamps: dict[str, tuple[int, int, str | None, int]], state: _Pass
) -> list[FoundFile]:
    """The found files whose mtime, size or ctime differ from what was indexed, or whose
    problem is re-checked on every pass; the others are counted unchanged without being
    read."""
    changed: list[FoundFile] = []
    for item in found:
        stamp = stamps.get(item.relpath)
        if (
            stamp is not None
            and stamp[0] == item.mtime_ns
            and stamp[1] == item.size
            and stamp[3] == item.ctime_ns
            and not is_transient(stamp[2])
        ):
            state.unchanged += 1
        else:
            changed.append(item)
    return changed


def _index_changed(
    index: Index,
    changed: list[FoundFile],
    states: dict[str, FileState],
    claimed: dict[tuple[str, str, str], str],
    state: _Pass,
    now_ms: int,
) -> None:
    """Read and index the changed files, RECONCILE_CHUNK per transaction (a full pass:
    RECONCILE_FULL_CHUNK); one that cannot be indexed is recorded as its problem and the
    others go on. A full pass over many files builds two full-text tables in a worker
    process meanwhile (store/cold_fts.py)."""
    build = _start_cold_build(index, changed, state)
    size = config.RECONCILE_FULL_CHUNK if state.full else RECONCILE_CHUNK
    if build is not None:
        size = cold_config.COLD_FTS_WORKER_CHUNK
    try:
        for start in range(0, len(changed), size):
            with index.write() as conn:
                fresh: list[IndexRow] = []  # new files of a full pass, inserted in bulk
                for item in changed[start : start + size]:
                    previous = states.get(item.relpath)
                    # A full pass only collects new rows here (inserted in bulk below): nothing
                    # to undo, no savepoint needed.
                    guard = contextlib.nullcontext() if state.full else isolated(conn)
                    try:
                        with guard:
                            _index_one(index, conn, item, previous, claimed, state, now_ms, fresh)
                    except Exception as exc:
                        if not is_file_failure(exc):
                            raise
                        _failed(
                            index,
                            conn,
                            item.relpath,
                            item.mtime_ns,
                            item.size,
                            exc,
                            claimed,
                            ctime_ns=item.ctime_ns,
                        )
                _insert_fresh(index, conn, fresh, state, claimed, build)
        if build is not None:
            _finish_cold_build(index, build, state, claimed)
    finally:
        if build is not None:
            build.close()


def _start_cold_build(index: Index, changed: list[FoundFile], state: _Pass) -> ColdFtsBuild | None:
    """A worker for the full-text tables of a full pass over many files while a core is
    idle, or None."""
    if not state.full or len(changed) < cold_config.COLD_FTS_WORKER_MIN_FILES:
        return None
    if cold_fts.idle_cores(state.machine) < cold_config.COLD_FTS_WORKER_IDLE_CORES:
        return None  # no core to spare: the worker would only add its own cost
    with index.read() as conn:
        ddl = cold_fts.table_ddl(driver(conn), cold_fts.WORKER_TABLES)
    return ColdFtsBuild.start(index.layout.index_path, ddl)


def _finish_cold_build(
    index: Index, build: ColdFtsBuild, state: _Pass, claimed: dict[tuple[str, str, str], str]
) -> None:
    """Copy the worker's tables into the index; when it failed (or its tables do not fit),
    build them here from memory_fts, which holds every indexed memory's fields."""
    side = build.finish()
    if side is not None:
        with index.attached(side) as db:
            if cold_fts.adopt(db, cold_fts.WORKER_TABLES, build.sent):
                return
    _fill_worker_tables(index, state, claimed)


def _fill_worker_tables(
    index: Index, state: _Pass, claimed: dict[tuple[str, str, str], str]
) -> None:
    """The worker's tables of every memory_fts row that has none yet, in chunks; a row they
    cannot hold makes its file a problem, as in the bulk insert (`_insert_fresh`)."""
    after = 0
    while True:
        with index.write() as conn:
            found = driver(conn).execute(
                "SELECT rowid, slug, scope, workdir_hash, type, description, headline, body "
                "FROM memory_fts WHERE rowid > ? AND rowid NOT IN (SELECT rowid FROM "
                "memory_search) ORDER BY rowid LIMIT ?",
                (after, config.RECONCILE_FULL_CHUNK),
            )
            numbered = [(int(r[0]), (r[1], r[2], r[3], r[4], r[5], r[6], r[7])) for r in found]
            if not numbered:
                return
            after = numbered[-1][0]
            try:
                with isolated(conn):
                    cold_fts.insert_fts_rows(driver(conn), numbered, cold_fts.WORKER_TABLES)
                continue
            except Exception as exc:
                if not is_file_failure(exc):
                    raise
            for one in numbered:
                try:
                    with isolated(conn):
                        cold_fts.insert_fts_rows(driver(conn), [one], cold_fts.WORKER_TABLES)
                except Exception as exc:
                    if not is_file_failure(exc):
                        raise
                    state.added -= 1
                    _failed_id(index, conn, one[0], exc, claimed)


def _failed_id(
    index: Index,
    conn: sa.Connection,
    file_id: int,
    exc: Exception,
    claimed: dict[tuple[str, str, str], str],
) -> None:
    """`_failed` for the indexed file of id `file_id`."""
    path, mtime_ns, size, sha256, ctime_ns = (
        driver(conn)
        .execute(
            "SELECT path, mtime_ns, size, sha256, ctime_ns FROM memory_files WHERE id = ?",
            (file_id,),
        )
        .fetchone()
    )
    _failed(index, conn, path, mtime_ns, size, exc, claimed, sha256, ctime_ns=ctime_ns)


def _record_skipped(
    index: Index, skipped: list[SkippedFile], stamps: dict[str, tuple[int, int, str | None, int]]
) -> list[Problem]:
    """Record what the scan skipped (links, bad names, ...) as problems; returns them all."""
    with index.write() as conn:
        for skip in skipped:
            stamp = stamps.get(skip.relpath)
            if stamp is None or stamp[2] != skip.reason:
                index.record_problem(
                    conn, path=skip.relpath, mtime_ns=0, size=0, sha256="", reason=skip.reason
                )
                if skip.conflict is not None:
                    index.set_conflict(conn, skip.relpath, *skip.conflict)
        return [Problem(path=path, reason=reason) for path, reason in index.problems(conn)]


def _refresh_scopes(
    layout: Layout,
    index: Index,
    found: list[FoundFile],
    state: _Pass,
    refresh_scope: Callable[[str, str], None],
) -> None:
    """MEMORY.md of every scope this pass changed, every scope marked dirty by a write that
    crashed before refreshing it, and on a full pass every scope. refresh_scope rewrites the
    file only when its text differs."""
    with index.read() as conn:
        state.touched_scopes |= index.dirty_scopes(conn)
    projects = {f.workdir_hash for f in found if f.workdir_hash}
    state.touched_scopes.update(
        ("project", h) for h in projects if not (layout.project_dir(h) / SCOPE_INDEX).exists()
    )
    if not (layout.global_dir / SCOPE_INDEX).exists():
        state.touched_scopes.add(("global", ""))
    if state.full:
        state.touched_scopes.add(("global", ""))
        state.touched_scopes.update(("project", h) for h in projects)
    for scope, workdir_hash in sorted(state.touched_scopes):
        try:
            refresh_scope(scope, workdir_hash)
        except StoreUnavailable as exc:
            # MEMORY.md is derived; a folder it cannot be written to must not stop the store
            # from opening. The scope stays marked dirty and is tried again next time.
            log.warning("MEMORY.md of %s %s not refreshed: %s", scope, workdir_hash, exc)


def _previous_body(conn: sa.Connection, file_id: int) -> str | None:
    value = conn.execute(
        sa.text("SELECT body FROM memory_fts WHERE rowid = :id"), {"id": file_id}
    ).scalar()
    return str(value) if value is not None else None


def _remove(index: Index, conn: sa.Connection, old: FileState, now_ms: int, *, audit: bool) -> None:
    previous = _previous_body(conn, old.id) if audit and old.problem is None else None
    index.remove(conn, old.path)
    if audit and old.problem is None and old.slug is not None:
        index.audit(
            conn,
            ts=now_ms,
            op=AuditOp.RECONCILE.value,
            scope=old.scope or "",
            workdir_hash=old.workdir_hash or "",
            slug=old.slug,
            actor=Actor.RECONCILE.value,
            detail={
                "change": "removed",
                "path": old.path,
                "before_hash": old.sha256,
                "previous_body": previous,
            },
        )


def _file_bytes(abspath: str) -> bytes:
    """A file's bytes by its str path (a Path per file cost more than the read, cold)."""
    with open(abspath, "rb") as handle:
        return handle.read()


def _index_one(
    index: Index,
    conn: sa.Connection,
    item: FoundFile,
    old: FileState | None,
    claimed: dict[tuple[str, str, str], str],
    state: _Pass,
    now_ms: int,
    fresh: list[IndexRow],
) -> None:
    try:
        raw = _file_bytes(item.abspath)
    except FileNotFoundError:
        return  # vanished between scan and read; the next pass removes it
    except OSError as exc:
        reason = f"{UNREADABLE_PREFIX} {exc}"
        if old is not None and old.problem == reason:
            state.unchanged += 1  # still unreadable; nothing to record again
        else:
            _problem(index, conn, item, b"", reason)
        return
    if old is not None and old.sha256 == sha256_hex(raw) and old.problem is None:
        # Same bytes, new stamps (touched, copied, synced): re-stamp it, don't parse it again.
        index.touch(conn, item.relpath, item.mtime_ns, item.ctime_ns)
        state.unchanged += 1
        if old.slug is not None:
            claimed[(old.scope or "", old.workdir_hash or "", old.slug)] = item.relpath
        return
    try:
        row, marked = _describe(item, raw)
    except DocumentError as exc:
        _problem(index, conn, item, raw, exc.reason)
        return
    name = item.relpath.rsplit("/", 1)[-1]
    if name != f"{row.slug}.md" and _onedrive_copy(item, name, row.slug):
        original = f"{item.relpath.rsplit('/', 1)[0]}/{row.slug}.md"
        _problem(index, conn, item, raw, conflicts.conflict_reason(original, SyncTool.ONEDRIVE))
        index.set_conflict(conn, item.relpath, original, SyncTool.ONEDRIVE.value)
        return
    key = (row.scope, row.workdir_hash, row.slug)
    holder = claimed.get(key)
    if (holder is None or holder == item.relpath) and not state.full:
        # (A full pass started from an empty index: `claimed` already knows every holder.)
        holder = index.path_for_key(conn, *key)
        if holder is not None and holder != item.relpath:
            if not index.layout.abspath(holder).exists():
                index.remove(conn, holder)  # the memory moved to another file
                holder = None
    if holder is not None and holder != item.relpath:
        reason = f"{DUPLICATE_PREFIX} slug {row.slug!r} is already defined by {holder}"
        if old is not None and old.problem == reason and old.sha256 == row.sha256:
            state.unchanged += 1  # still the same duplicate; nothing to record again
        else:
            _problem(index, conn, item, raw, reason)
        return
    claimed[key] = item.relpath
    state.touched_scopes.add((row.scope, row.workdir_hash))
    if state.full and old is None:
        fresh.append(row)
        state.added += 1
    else:
        _reindex(index, conn, row, old, state, now_ms)
    if marked:
        index.set_conflict(conn, item.relpath, item.relpath, SyncTool.GIT.value)


def _reindex(
    index: Index,
    conn: sa.Connection,
    row: IndexRow,
    old: FileState | None,
    state: _Pass,
    now_ms: int,
) -> None:
    """Index a changed or new file's row; an incremental pass records the change."""
    previous = _previous_body(conn, old.id) if old is not None and not state.full else None
    index.upsert(conn, row)
    if old is None or old.problem is not None:
        state.added += 1
    else:
        state.updated += 1
    if not state.full:
        index.audit(
            conn,
            ts=now_ms,
            op=AuditOp.RECONCILE.value,
            scope=row.scope,
            workdir_hash=row.workdir_hash,
            slug=row.slug,
            actor=Actor.RECONCILE.value,
            detail={
                "change": "updated" if old is not None else "added",
                "path": row.path,
                "before_hash": old.sha256 if old else None,
                "after_hash": row.sha256,
                "previous_body": previous,
            },
        )


def _describe(item: FoundFile, raw: bytes) -> tuple[IndexRow, bool]:
    """The row of a file's bytes, and whether they hold git conflict markers: such a file is
    indexed as its first side (ours), so no marker reaches search or a context
    (store/conflicts.py). Raises DocumentError."""
    marked = b"<<<<<<<" in raw and conflicts.has_markers(raw.decode("utf-8", "replace"))
    if not marked:
        return describe(item, load_bytes(raw)), False
    try:
        ours = conflicts.ours(raw.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not valid UTF-8 text (byte {exc.start})") from exc
    row = describe(item, load_bytes(ours))
    row.sha256 = sha256_hex(raw)  # the file's own bytes, as for any file
    return row, True


def _onedrive_copy(item: FoundFile, name: str, declared: str) -> bool:
    """Whether a file whose name is not its memory's is OneDrive's conflict copy: the file
    `<declared>.md` beside it declares the same memory (store/conflicts.py)."""
    if conflicts.onedrive_original(name, declared) is None:
        return False
    sibling = os.path.join(os.path.dirname(item.abspath), f"{declared}.md")
    try:
        sibling_declares = load_bytes(_file_bytes(sibling)).doc.meta.name or declared
    except (OSError, DocumentError):
        return False
    return conflicts.is_onedrive_copy(name, declared, sibling_declares)


def _insert_fresh(
    index: Index,
    conn: sa.Connection,
    fresh: list[IndexRow],
    state: _Pass,
    claimed: dict[tuple[str, str, str], str],
    build: ColdFtsBuild | None = None,
) -> None:
    """Insert a full pass's new rows in bulk; if the bulk insert fails, row by row, so one
    file the index cannot hold is recorded as that file's problem and the others go in.
    With a worker (`build`) only memory_fts here; the rows go to the worker for the rest."""
    tables = cold_fts.MEMORY_FTS_TABLES if build is None else ("memory_fts",)
    try:
        with isolated(conn):
            numbered = index.insert_new(conn, fresh, tables)
    except Exception as exc:
        if not is_file_failure(exc):
            raise
    else:
        _to_worker(build, numbered)
        return
    for row in fresh:
        try:
            with isolated(conn):
                _to_worker(build, index.insert_new(conn, [row], tables))
        except Exception as exc:
            if not is_file_failure(exc):
                raise
            state.added -= 1
            _failed(
                index,
                conn,
                row.path,
                row.mtime_ns,
                row.size,
                exc,
                claimed,
                row.sha256,
                ctime_ns=row.ctime_ns,
            )


def _to_worker(build: ColdFtsBuild | None, numbered: list[tuple[int, IndexRow]]) -> None:
    if build is not None:
        build.put([(i, row.fts_fields()) for i, row in numbered])


def _failed(
    index: Index,
    conn: sa.Connection,
    relpath: str,
    mtime_ns: int,
    size: int,
    exc: Exception,
    claimed: dict[tuple[str, str, str], str],
    sha256: str = "",
    *,
    ctime_ns: int = 0,
) -> None:
    """docs: one bad file stays one bad file. Record why it could not be indexed; the file
    is left as it is and reconsidered when it changes. Its slug is free again."""
    for key in [key for key, path in claimed.items() if path == relpath]:
        del claimed[key]
    log.warning("memory file %s could not be indexed", relpath, exc_info=exc)
    index.record_problem(
        conn,
        path=relpath,
        mtime_ns=mtime_ns,
        size=size,
        sha256=sha256,
        reason=f"could not be indexed: {type(exc).__name__}: {exc}",
        ctime_ns=ctime_ns,
    )


def _is_transient(state: FileState | None) -> bool:
    return state is not None and state.transient


def _problem(index: Index, conn: sa.Connection, item: FoundFile, raw: bytes, reason: str) -> None:
    log.warning("memory file %s skipped: %s", item.relpath, reason)
    index.record_problem(
        conn,
        path=item.relpath,
        mtime_ns=item.mtime_ns,
        size=item.size,
        sha256=sha256_hex(raw),
        reason=reason,
        ctime_ns=item.ctime_ns,
    )

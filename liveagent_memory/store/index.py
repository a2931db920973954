"""The SQLite index of one store: opening it (migrated, or quarantined and rebuilt when
damaged), its transactions with SQLite's failures as typed errors, and row upkeep.

The index is derived from the files and can always be rebuilt from them. Its tables are
defined in store/schema.py and created or migrated by store/migrations.py; how a damaged or
unusable file is told apart and handled is store/damage.py.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import IndexUnavailable, IndexVersionUnsupported
from liveagent_memory.domain.visibility import Visibility
from liveagent_memory.store import damage
from liveagent_memory.store.cold_fts import MEMORY_FTS_TABLES, WORKER_TABLES, insert_fts_rows
from liveagent_memory.store.damage import IndexDamaged, index_unavailable, is_damage, reason
from liveagent_memory.store.db import driver
from liveagent_memory.store.files import Layout
from liveagent_memory.store.filters import scope_sql
from liveagent_memory.store.index_version import IndexVersion
from liveagent_memory.store.migrations import init_schema, newer_version
from liveagent_memory.store.rows import FileState, IndexRow
from liveagent_memory.store.schema import (
    FILE_COLUMNS,
    FTS_TABLES,
    META_COLUMNS,
    memory_audit_log,
    memory_files,
    memory_meta,
)

log = logging.getLogger(__name__)

_FILE_COLUMNS = ", ".join(FILE_COLUMNS)
_INSERT_META = (
    "INSERT OR REPLACE INTO memory_meta ("
    + ", ".join(META_COLUMNS)
    + ") VALUES ("
    + ", ".join(f":{name}" for name in META_COLUMNS)
    + ")"
)


@dataclass(frozen=True)
class OpenReport:
    """What happened when the index was opened."""

    created: bool  # no index existed (or it was rebuilt): reconcile must do a full pass
    quarantined: str | None  # where a corrupt index was moved
    migrated_from: int | None  # the schema version we migrated from


def _connect_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (SQLAlchemy recipe)
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {config.SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute("PRAGMA foreign_keys = ON")
    # Savepoint sub-journals in memory, not in temp files: a batch opens one per item
    # (issue 17: about a sixth of apply_batch's time went to them).
    cursor.execute("PRAGMA temp_store = MEMORY")
    # Per-connection (temp) view of memory_search's document frequencies, for store/search.py.
    cursor.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_search_vocab "
        "USING fts5vocab(main, 'memory_search', 'row')"
    )
    cursor.close()


def _begin(connection: Connection) -> None:
    # Writers begin IMMEDIATE: SQLite's write lock is taken up front, waiting busy_timeout for
    # another program. A deferred transaction that reads first fails at once with SQLITE_BUSY
    # when it later tries to write -- after the memory file was already written.
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


def create_engine(path: Path) -> Engine:
    """An engine on the index file with REFERENCE A4 pragmas (WAL, NORMAL, busy 5 s)."""
    engine = sa.create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False},
    )
    event.listen(engine, "connect", _connect_pragmas)
    event.listen(engine, "begin", _begin)
    return engine


class Index:
    """Owns the SQLAlchemy engine of one store's index."""

    def __init__(self, layout: Layout, engine: Engine) -> None:
        self.layout = layout
        self.engine = engine
        self._writer = engine.execution_options(sqlite_begin="IMMEDIATE")
        # The index's stamp after this store's last write (store/damage.py): still the same at
        # close means no other program wrote it meanwhile, so the stamp may vouch for it.
        self._own_stamp: list[int] | None = None
        self._file = damage.file_id(layout.index_path)
        self.version = IndexVersion(layout.index_path)
        self._footprints: dict[Visibility, tuple[int, tuple[int, ...]]] = {}  # by version

    # --- opening ----------------------------------------------------------------------------

    @classmethod
    def open(cls, layout: Layout, *, now_ms: int) -> tuple[Index, OpenReport]:
        """Open (creating, migrating or rebuilding) the index of `layout`.

        A file SQLite cannot read, that fails `quick_check`, or that turns out damaged while
        it is set up, is moved to `.quarantine/corrupt-{ms}/` and a fresh index is created
        (REFERENCE A1); its audit log and run history are copied over when still readable.
        A newer schema version is refused with IndexVersionUnsupported.
        """
        try:
            return cls._open(layout, now_ms=now_ms)
        except IndexDamaged as exc:
            moved = damage.quarantine(layout, now_ms)
            log.warning("memory index was damaged (%s); moved to %s", exc, moved)
        index, report = cls._open(layout, now_ms=now_ms)
        index.salvage(moved)
        return index, OpenReport(True, str(moved), report.migrated_from)

    @classmethod
    def _open(cls, layout: Layout, *, now_ms: int) -> tuple[Index, OpenReport]:
        path = layout.index_path
        if path.exists() and not path.is_file():
            raise IndexUnavailable(
                f"the memory index {path} is not a file; move it away to rebuild the index"
            )
        existed = path.exists() and path.stat().st_size > 0
        if existed and not os.access(path, os.R_OK | os.W_OK):
            # An unreadable index is not a corrupt one: never quarantine it (with its audit
            # log and run history) for a permission problem the person can fix.
            raise IndexUnavailable(f"the memory index {path} cannot be used: permission denied")
        quarantined: str | None = None
        if existed:
            problem, version = damage.inspect(path, check=not damage.unchanged_since_closed(layout))
            if problem is None and version is not None and version > config.SCHEMA_VERSION:
                # Refuse before our engine connects: its pragmas (WAL) would rewrite the file.
                raise newer_version(version, path)
            if problem is not None:
                moved = damage.quarantine(layout, now_ms)
                quarantined = str(moved)
                log.warning("memory index was corrupt (%s); moved to %s", problem, quarantined)
                existed = False
        engine = create_engine(path)
        index = cls(layout, engine)
        try:
            migrated_from, rebuilt = init_schema(index._writer, path=path, now_ms=now_ms)
        except IndexVersionUnsupported:
            engine.dispose()
            raise
        except (sa.exc.DBAPIError, sqlite3.Error) as exc:
            engine.dispose()
            if is_damage(exc) and existed:
                raise IndexDamaged(f"the memory index {path} is damaged: {reason(exc)}") from exc
            raise index_unavailable(exc, path) from exc
        if quarantined is not None:
            index.salvage(Path(quarantined))
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.chmod(f"{path}{suffix}", config.FILE_MODE)
        index._file = damage.file_id(path)
        index._own_stamp = damage.index_stamp(layout)
        created = not existed or rebuilt
        return index, OpenReport(created, quarantined, migrated_from)

    def salvage(self, quarantined: Path) -> None:
        """Copy the audit log and the organizer runs from a quarantined index, if readable.

        They are the only rows not derived from the files (history, restore points, run
        reports); a damaged FTS table usually leaves them intact. Best effort: whatever
        cannot be read stays in the quarantined copy.
        """
        old = quarantined / self.layout.index_path.name
        if not old.exists():
            return
        # A connection of its own: ATTACH cannot run inside the engine's transactions.
        db = sqlite3.connect(self.layout.index_path, timeout=config.SQLITE_BUSY_TIMEOUT_MS / 1000)
        try:
            db.execute("ATTACH DATABASE ? AS salvaged", (str(old),))
            for table in ("memory_audit_log", "memory_organize_runs"):
                try:
                    theirs = {r[1] for r in db.execute(f"PRAGMA salvaged.table_info({table})")}
                    ours = [r[1] for r in db.execute(f"PRAGMA main.table_info({table})")]
                    columns = ", ".join(c for c in ours if c in theirs)
                    if columns:
                        with db:
                            db.execute(
                                f"INSERT OR IGNORE INTO main.{table} ({columns}) "
                                f"SELECT {columns} FROM salvaged.{table}"
                            )
                except sqlite3.Error as exc:
                    log.warning("could not copy %s from %s: %s", table, old, exc)
        except sqlite3.Error as exc:
            log.warning("could not read %s to copy its history: %s", old, exc)
        finally:
            db.close()

    def close(self) -> None:
        """Close the engine; stamp the index when no other program wrote it since our last
        write (else remove the stamp, so the next open checks it in full)."""
        ours = self._own_stamp is not None and self._own_stamp == damage.index_stamp(self.layout)
        self.version.close()
        self.engine.dispose()
        damage.record_stamp(self.layout, valid=ours)

    def unchanged_since_closed(self) -> bool:
        """True when no program wrote the index since this store last closed it."""
        return damage.unchanged_since_closed(self.layout)

    # --- transactions -----------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction; callers hold the store's WriteLock around it."""
        if self._own_stamp is not None and self._own_stamp != damage.index_stamp(self.layout):
            self._own_stamp = None  # another program wrote it: no stamp may vouch for it now
        with self._typed_errors(), self._writer.begin() as conn:
            yield conn
        if self._own_stamp is not None:
            self._own_stamp = damage.index_stamp(self.layout)

    @contextlib.contextmanager
    def attached(self, path: Path) -> Iterator[sqlite3.Connection]:
        """The sqlite3 connection, outside any transaction, with the database file `path`
        attached as `side` (ATTACH cannot run inside a transaction); the caller begins and
        commits its own write. Callers hold the store's WriteLock around it."""
        if self._own_stamp is not None and self._own_stamp != damage.index_stamp(self.layout):
            self._own_stamp = None
        with self._typed_errors():
            raw = self.engine.raw_connection()
            try:
                db = raw.driver_connection
                assert isinstance(db, sqlite3.Connection)
                db.execute("ATTACH DATABASE ? AS side", (str(path),))
                try:
                    yield db
                finally:
                    db.execute("DETACH DATABASE side")
            finally:
                raw.close()
        if self._own_stamp is not None:
            self._own_stamp = damage.index_stamp(self.layout)

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction: a consistent snapshot of the index."""
        with self._typed_errors(), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def _typed_errors(self) -> Iterator[None]:
        """What SQLite says, as the store's typed errors: unavailable (locked, full, read-only),
        refused (a constraint: rolled back and reported), or damaged (rebuild it)."""
        self._follow_replacement()
        try:
            yield
        except (sa.exc.OperationalError, sqlite3.OperationalError) as exc:
            raise index_unavailable(exc, self.layout.index_path) from exc
        except (sa.exc.IntegrityError, sqlite3.IntegrityError) as exc:
            # The index disagrees with what the files say (two rows for one memory): the
            # change is rolled back (its files too, by the caller) and reported, typed.
            raise IndexUnavailable(
                f"the memory index refused the change ({reason(exc)}); nothing was changed. "
                "Run reconcile to bring the index in line with the files"
            ) from exc
        except (sa.exc.DatabaseError, sqlite3.DatabaseError) as exc:
            if is_damage(exc):
                raise IndexDamaged(f"the memory index is damaged: {reason(exc)}") from exc
            raise
        except MemoryError as exc:
            # SQLite reports SQLITE_NOMEM when a damaged FTS5 block asks for an absurd
            # allocation: damage, if the FTS tables fail their own integrity check.
            problem = self.fts_damage()
            if problem is not None:
                raise IndexDamaged(f"the memory index is damaged: {problem}") from exc
            raise

    def fts_damage(self) -> str | None:
        """Run FTS5's own integrity check on every full-text table; what failed, or None.

        Reads every FTS table (about a second at 10k memories): only for a failure whose cause
        is unclear. `PRAGMA quick_check` does not look inside FTS5 data.
        """
        db = sqlite3.connect(self.layout.index_path, timeout=config.SQLITE_BUSY_TIMEOUT_MS / 1000)
        try:
            for table in FTS_TABLES:
                try:
                    db.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
                except (sqlite3.DatabaseError, MemoryError) as exc:
                    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                        return None  # busy, not damaged: say nothing
                    return f"{table}: {exc or type(exc).__name__}"
            return None
        finally:
            db.close()

    def _follow_replacement(self) -> None:
        """Another process quarantined and rebuilt the index file: use the new one.

        Our pooled connections still point at the moved file; what they wrote there would
        be lost to everyone else.
        """
        current = damage.file_id(self.layout.index_path)
        if current is not None and current != self._file:
            log.info("the memory index file was replaced by another process; reconnecting")
            self.engine.dispose()
            self.version.close()
            self._footprints.clear()
            self._file = current

    def replace_damaged(self, now_ms: int) -> tuple[Index, Path | None]:
        """Close this index, quarantine its file and open a fresh, empty one (with the audit
        log and run history salvaged); the caller rebuilds it from the files.

        Returns the new index and where the damaged file went; (self, None) when another
        process replaced the file already (this one reconnects to it). The caller holds the
        store's write lock.
        """
        if damage.file_id(self.layout.index_path) != self._file:
            self._follow_replacement()
            return self, None
        self.close()
        moved = damage.quarantine(self.layout, now_ms)
        index, _ = Index._open(self.layout, now_ms=now_ms)
        index.salvage(moved)
        return index, moved

    # --- rows -------------------------------------------------------------------------------

    # Hot paths talk to the sqlite3 connection under SQLAlchemy's transaction directly:
    # SQLAlchemy's per-statement work cost more than SQLite's own (about 3 ms of a 4 ms
    # upsert before this).

    def footprint(self, conn: Connection, seen: Visibility) -> tuple[int, ...]:
        """Count, bytes and estimated tokens of the memory files (journal archive included),
        then of the episodes, a context could draw on: the visible memories (global plus the
        current project), unscoped episodes and those of that project.

        Kept until the index changes (store/index_version.py). `conn` must not have read yet:
        the version is taken before its snapshot, so a commit in between is counted again
        next time rather than missed."""
        version = self.version.current()
        kept = self._footprints.get(seen)
        if version is not None and kept is not None and kept[0] == version:
            return kept[1]
        counts = self._count_footprint(conn, seen)
        if version is not None:
            self._footprints[seen] = (version, counts)
        return counts

    def _count_footprint(self, conn: Connection, seen: Visibility) -> tuple[int, ...]:
        db = driver(conn)
        clause, params = scope_sql(seen)
        # memory_files: narrower rows than memory_meta, so the sum reads fewer pages.
        memories = db.execute(
            "SELECT COUNT(*), IFNULL(SUM(size), 0), IFNULL(SUM(tokens), 0) FROM memory_files "
            "WHERE problem IS NULL" + (f" AND {clause}" if clause else ""),
            params,
        ).fetchone()
        episodes = db.execute(
            "SELECT COUNT(*), IFNULL(SUM(f.size), 0), IFNULL(SUM(f.tokens), 0) FROM episode_meta m "
            "JOIN episode_files f ON f.id = m.file_id WHERE m.workdir_hash IN ('', ?)",
            (seen.project or "",),
        ).fetchone()
        return (*(int(v) for v in memories), *(int(v) for v in episodes))

    def file_states(self, conn: Connection) -> dict[str, FileState]:
        rows = driver(conn).execute(f"SELECT {_FILE_COLUMNS} FROM memory_files").fetchall()
        return {row[1]: FileState.from_row(FILE_COLUMNS, row) for row in rows}

    def file_stamps(self, conn: Connection) -> dict[str, tuple[int, int, str | None, int]]:
        """path -> (mtime_ns, size, problem, ctime_ns): what a warm reconcile compares,
        cheaply."""
        rows = driver(conn).execute(
            "SELECT path, mtime_ns, size, problem, ctime_ns FROM memory_files"
        )
        return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}

    def mark_dirty(self, conn: Connection, scope: str, workdir_hash: str) -> None:
        driver(conn).execute(
            "INSERT OR IGNORE INTO memory_dirty_scopes (scope, workdir_hash) VALUES (?, ?)",
            (scope, workdir_hash),
        )

    def dirty_scopes(self, conn: Connection) -> set[tuple[str, str]]:
        rows = driver(conn).execute("SELECT scope, workdir_hash FROM memory_dirty_scopes")
        return {(str(a), str(b)) for a, b in rows}

    def clear_dirty(self, conn: Connection, scope: str, workdir_hash: str) -> None:
        driver(conn).execute(
            "DELETE FROM memory_dirty_scopes WHERE scope = ? AND workdir_hash = ?",
            (scope, workdir_hash),
        )

    def file_state(self, conn: Connection, path: str) -> FileState | None:
        row = (
            driver(conn)
            .execute(f"SELECT {_FILE_COLUMNS} FROM memory_files WHERE path = ?", (path,))
            .fetchone()
        )
        return FileState.from_row(FILE_COLUMNS, row) if row else None

    def problems(self, conn: Connection) -> list[tuple[str, str]]:
        """(path, reason) of every file that could not be indexed."""
        rows = (
            driver(conn)
            .execute(
                "SELECT path, problem FROM memory_files WHERE problem IS NOT NULL ORDER BY path"
            )
            .fetchall()
        )
        return [(str(path), str(reason)) for path, reason in rows]

    def set_conflict(self, conn: Connection, path: str, original: str, tool: str) -> None:
        """Remember that `path` is a sync conflict: a version of `original` made by `tool`
        (store/conflicts.py)."""
        driver(conn).execute(
            "INSERT OR REPLACE INTO memory_conflicts (path, original, tool) VALUES (?, ?, ?)",
            (path, original, tool),
        )

    def conflicts(self, conn: Connection) -> list[tuple[str, str, str]]:
        """(path, original, tool) of every sync conflict, by path."""
        rows = (
            driver(conn)
            .execute("SELECT path, original, tool FROM memory_conflicts ORDER BY path")
            .fetchall()
        )
        return [(str(a), str(b), str(c)) for a, b, c in rows]

    def path_for_key(
        self, conn: Connection, scope: str, workdir_hash: str, slug: str
    ) -> str | None:
        row = (
            driver(conn)
            .execute(
                "SELECT path FROM memory_files WHERE scope = ? AND workdir_hash = ? AND slug = ? "
                "AND problem IS NULL",
                (scope, workdir_hash, slug),
            )
            .fetchone()
        )
        return str(row[0]) if row else None

    def upsert(self, conn: Connection, row: IndexRow, *, fts: FtsBuffer | None = None) -> int:
        """Index one parsed file in every table; returns its memory_files id. With `fts`
        (a batch chunk) its full-text rows wait there until the chunk writes them all."""
        previous = self.file_state(conn, row.path)
        self._drop_conflict(conn, row.path)
        values = (
            row.path,
            row.mtime_ns,
            row.size,
            row.sha256,
            row.scope,
            row.workdir_hash,
            row.slug,
            row.tokens,
            row.ctime_ns,
        )
        if previous is None:
            cursor = driver(conn).execute(
                "INSERT INTO memory_files (path, mtime_ns, size, sha256, scope, workdir_hash, "
                "slug, tokens, ctime_ns, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                values,
            )
            file_id = int(cursor.lastrowid or 0)
        else:
            file_id = previous.id
            self._delete_rows(conn, previous, fts=fts)
            driver(conn).execute(
                "UPDATE memory_files SET path = ?, mtime_ns = ?, size = ?, sha256 = ?, "
                "scope = ?, workdir_hash = ?, slug = ?, tokens = ?, ctime_ns = ?, problem = NULL "
                "WHERE id = ?",
                (*values, file_id),
            )
        if fts is None:
            self._insert_rows(conn, [(file_id, row)])
        else:
            self._insert_meta(conn, [(file_id, row)])
            fts.put(file_id, row)
        return file_id

    def insert_new(
        self,
        conn: Connection,
        rows: list[IndexRow],
        fts_tables: Sequence[str] = MEMORY_FTS_TABLES,
    ) -> list[tuple[int, IndexRow]]:
        """Index files the index has never seen, in bulk (a full rebuild's fast path); their
        full-text rows only in `fts_tables` (a cold pass's worker builds the others). Returns
        the rows with their new ids."""
        if not rows:
            return []
        start = int(
            driver(conn).execute("SELECT IFNULL(MAX(id), 0) FROM memory_files").fetchone()[0] or 0
        )
        numbered = [(start + offset + 1, row) for offset, row in enumerate(rows)]
        driver(conn).executemany(
            "INSERT INTO memory_files (id, path, mtime_ns, size, sha256, scope, workdir_hash, "
            "slug, tokens, ctime_ns, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            [
                (
                    i,
                    r.path,
                    r.mtime_ns,
                    r.size,
                    r.sha256,
                    r.scope,
                    r.workdir_hash,
                    r.slug,
                    r.tokens,
                    r.ctime_ns,
                )
                for i, r in numbered
            ],
        )
        self._insert_meta(conn, numbered)
        insert_fts_rows(driver(conn), [(i, r.fts_fields()) for i, r in numbered], fts_tables)
        return numbered

    def _insert_rows(self, conn: Connection, numbered: list[tuple[int, IndexRow]]) -> None:
        self._insert_meta(conn, numbered)
        insert_fts(conn, numbered)

    def _insert_meta(self, conn: Connection, numbered: list[tuple[int, IndexRow]]) -> None:
        db = driver(conn)
        db.executemany(
            "INSERT OR IGNORE INTO memory_dirty_scopes (scope, workdir_hash) VALUES (?, ?)",
            list({(r.scope, r.workdir_hash) for _, r in numbered}),
        )
        db.executemany(_INSERT_META, [row.meta_values() for _, row in numbered])

    def record_problem(
        self,
        conn: Connection,
        *,
        path: str,
        mtime_ns: int,
        size: int,
        sha256: str,
        reason: str,
        ctime_ns: int = 0,
    ) -> None:
        """Remember that a file could not be indexed (it stays on disk, untouched)."""
        previous = self.file_state(conn, path)
        self._drop_conflict(conn, path)
        if previous is None:
            driver(conn).execute(
                "INSERT INTO memory_files (path, mtime_ns, size, sha256, scope, workdir_hash, "
                "slug, ctime_ns, problem) VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?, ?)",
                (path, mtime_ns, size, sha256, ctime_ns, reason),
            )
        else:
            self._delete_rows(conn, previous)
            driver(conn).execute(
                "UPDATE memory_files SET mtime_ns = ?, size = ?, sha256 = ?, scope = NULL, "
                "workdir_hash = NULL, slug = NULL, tokens = 0, ctime_ns = ?, problem = ? "
                "WHERE id = ?",
                (mtime_ns, size, sha256, ctime_ns, reason, previous.id),
            )

    def stamp_ctimes(self, conn: Connection, ctimes: dict[str, int]) -> None:
        """Record the ctime files have after a batch renamed them into place."""
        driver(conn).executemany(
            "UPDATE memory_files SET ctime_ns = ? WHERE path = ?",
            [(ctime, path) for path, ctime in ctimes.items()],
        )

    def touch(self, conn: Connection, path: str, mtime_ns: int, ctime_ns: int = 0) -> None:
        """The file's bytes are unchanged; remember its new stamps (the mtime in memory_meta
        too)."""
        state = self.file_state(conn, path)
        driver(conn).execute(
            "UPDATE memory_files SET mtime_ns = ?, ctime_ns = ? WHERE path = ?",
            (mtime_ns, ctime_ns, path),
        )
        if state is not None and state.problem is None and state.slug is not None:
            driver(conn).execute(
                "UPDATE memory_meta SET file_mtime = ? WHERE scope = ? AND workdir_hash = ? "
                "AND slug = ?",
                (mtime_ns // 1_000_000, state.scope, state.workdir_hash, state.slug),
            )

    def remove(
        self, conn: Connection, path: str, *, fts: FtsBuffer | None = None
    ) -> FileState | None:
        """Forget a file (deleted or moved) in every table."""
        previous = self.file_state(conn, path)
        self._drop_conflict(conn, path)
        if previous is None:
            return None
        self._delete_rows(conn, previous, fts=fts)
        driver(conn).execute("DELETE FROM memory_files WHERE id = ?", (previous.id,))
        return previous

    def _drop_conflict(self, conn: Connection, path: str) -> None:
        driver(conn).execute("DELETE FROM memory_conflicts WHERE path = ?", (path,))

    def _delete_rows(
        self, conn: Connection, state: FileState, *, fts: FtsBuffer | None = None
    ) -> None:
        if fts is None or not fts.drop(state.id):  # (rows still waiting were never written)
            for table in ("memory_fts", "memory_fts_tri", "memory_search"):
                driver(conn).execute(f"DELETE FROM {table} WHERE rowid = ?", (state.id,))
        if state.problem is None and state.slug is not None:
            driver(conn).execute(
                "DELETE FROM memory_meta WHERE scope = ? AND workdir_hash = ? AND slug = ?",
                (state.scope, state.workdir_hash, state.slug),
            )
            self.mark_dirty(conn, state.scope or "", state.workdir_hash or "")

    def clear(self, conn: Connection) -> None:
        """Drop every derived row (a full rebuild follows)."""
        for table in (
            "memory_dirty_scopes",
            "memory_conflicts",
            "memory_meta",
            "memory_fts",
            "memory_fts_tri",
            "memory_search",
            "memory_files",
        ):
            conn.exec_driver_sql(f"DELETE FROM {table}")

    def counts_consistent(self, conn: Connection) -> bool:
        """True when memory_meta, memory_fts and our file table describe the same memories.

        LiveAgent's own reconcile rewrites memory_meta and memory_fts(_tri) without touching
        our tables, giving the FTS rows its own rowids: with the same files the counts still
        agree, but our rowid = memory_files.id join would then pair a hit with another memory's
        body. Any mismatch means another program changed the index and we rebuild it.
        """
        meta_count = conn.execute(sa.select(sa.func.count()).select_from(memory_meta)).scalar()
        file_count = conn.execute(
            sa.select(sa.func.count())
            .select_from(memory_files)
            .where(memory_files.c.problem.is_(None))
        ).scalar()
        if meta_count != file_count:
            return False
        # One scan of memory_fts (LiveAgent rewrites memory_fts_tri together with it).
        fts_rows, fts_matching = conn.execute(
            sa.text(
                "SELECT COUNT(*), IFNULL(SUM(f.problem IS NULL AND f.slug = t.slug "
                "AND f.scope = t.scope AND f.workdir_hash = t.workdir_hash), 0) "
                "FROM memory_fts t LEFT JOIN memory_files f ON f.id = t.rowid"
            )
        ).one()
        if not fts_rows == fts_matching == file_count:
            return False
        # memory_fts_tri and memory_search counted by their FTS5 docsize tables (a row per
        # document, no text read): a cold pass killed before its worker's tables were copied
        # in (store/cold_fts.py) leaves them empty beside a full memory_fts.
        return all(
            conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table}_docsize").scalar() == file_count
            for table in WORKER_TABLES
        )

    # --- audit ------------------------------------------------------------------------------

    def audit(
        self,
        conn: Connection,
        *,
        ts: int,
        op: str,
        scope: str,
        workdir_hash: str,
        slug: str,
        actor: str,
        conversation_id: str | None = None,
        trigger: str | None = None,
        model: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> int:
        """Log one mutation; returns the row's id (a history version is "audit:{id}")."""
        # The sqlite3 connection itself: through SQLAlchemy this statement cost about 40 us of
        # a batch item's time, several times SQLite's own.
        cursor = driver(conn).execute(
            "INSERT INTO memory_audit_log (ts, op, scope, workdir_hash, slug, actor, "
            "conversation_id, trigger, model, detail_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ts,
                op,
                scope,
                workdir_hash,
                slug,
                actor,
                conversation_id,
                trigger,
                model,
                json.dumps(detail or {}, ensure_ascii=False),
            ),
        )
        return int(cursor.lastrowid or 0)

    def audit_rows(
        self, conn: Connection, scope: str, workdir_hash: str, slug: str, limit: int
    ) -> Sequence[sa.Row[Any]]:
        return conn.execute(
            sa.select(memory_audit_log)
            .where(
                memory_audit_log.c.scope == scope,
                memory_audit_log.c.workdir_hash == workdir_hash,
                memory_audit_log.c.slug == slug,
            )
            .order_by(memory_audit_log.c.ts.desc(), memory_audit_log.c.id.desc())
            .limit(limit)
        ).all()

    def audit_row(self, conn: Connection, audit_id: int) -> sa.Row[Any] | None:
        return conn.execute(
            sa.select(memory_audit_log).where(memory_audit_log.c.id == audit_id)
        ).first()


def insert_fts(conn: Connection, numbered: list[tuple[int, IndexRow]]) -> None:
    """The full-text rows (memory_fts, memory_fts_tri, memory_search) of indexed files."""
    insert_fts_rows(driver(conn), [(i, r.fts_fields()) for i, r in numbered], MEMORY_FTS_TABLES)


class FtsBuffer:
    """A batch chunk's full-text rows, written together before its commit (issue 17).

    FTS5 flushes its pending rows at every savepoint, and a batch opens one per item: indexed
    one by one, every item cost three tiny segments (and their merging). Rows wait here
    instead, keyed by file id; a savepoint rolled back rolls them back too (`mark`,
    `rollback`), and `write` inserts them all at the chunk's end.
    """

    def __init__(self) -> None:
        self.rows: dict[int, IndexRow] = {}
        self._log: list[tuple[int, IndexRow | None]] = []  # (file id, its row before)

    def put(self, file_id: int, row: IndexRow) -> None:
        self._log.append((file_id, self.rows.get(file_id)))
        self.rows[file_id] = row

    def drop(self, file_id: int) -> bool:
        """Forget a waiting row; False when there is none (its rows are in the tables)."""
        if file_id not in self.rows:
            return False
        self._log.append((file_id, self.rows.pop(file_id)))
        return True

    def mark(self) -> int:
        return len(self._log)

    def rollback(self, mark: int) -> None:
        while len(self._log) > mark:
            file_id, before = self._log.pop()
            if before is None:
                self.rows.pop(file_id, None)
            else:
                self.rows[file_id] = before

    def write(self, conn: Connection) -> None:
        insert_fts(conn, sorted(self.rows.items(), key=lambda item: item[0]))
        self.rows.clear()
        self._log.clear()

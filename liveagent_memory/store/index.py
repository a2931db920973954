"""The SQLite index: schema v4 (REFERENCE A4), migrations, corruption handling, row upkeep.

The index is derived from the files and can always be rebuilt from them. Tables:
- LiveAgent's schema v4, kept exactly, so either program can open the other's store:
  memory_meta, memory_fts (unicode61), memory_fts_tri (trigram), memory_audit_log,
  memory_organize_runs, memory_schema_version.
- Our additions, which LiveAgent ignores: memory_files (what we indexed from which file, for
  incremental reconcile and parse problems) and memory_search (FTS5 with the Porter stemmer and
  CJK bigram columns; see store/text.py); episode_files, episode_meta and episode_search for
  the episode JSON files (store/episodes.py). Their version lives in PRAGMA user_version.

Every FTS row uses the memory_files id as its rowid, so rows are found and deleted by rowid
instead of scanning the UNINDEXED key columns.
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
from liveagent_memory.domain.errors import (
    IndexUnavailable,
    IndexVersionUnsupported,
    MemoryDomainError,
)
from liveagent_memory.store.evidence import read_evidence, split_evidence
from liveagent_memory.store.files import Layout, ensure_private_dir, store_unavailable
from liveagent_memory.store.text import cjk_tokens, latin_text

log = logging.getLogger(__name__)

EXT_SCHEMA_VERSION = 3  # our tables' layout (v2: dirty scopes, v3: episodes); bump to rebuild

metadata = sa.MetaData()

memory_meta = sa.Table(
    "memory_meta",
    metadata,
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("workdir_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("slug", sa.Text, nullable=False),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("headline", sa.Text, nullable=False, server_default=""),
    sa.Column("date_local", sa.Text),
    sa.Column("age_anchor", sa.Integer),
    sa.Column("append_count", sa.Integer, nullable=False, server_default="0"),
    sa.Column("archived", sa.Integer, nullable=False, server_default="0"),
    sa.Column("body_hash", sa.Text, nullable=False),
    sa.Column("file_mtime", sa.Integer, nullable=False),
    sa.Column("file_size", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Integer, nullable=False),
    sa.Column("source_json", sa.Text),
    sa.Column("links_json", sa.Text),
    sa.PrimaryKeyConstraint("scope", "workdir_hash", "slug"),
)

memory_audit_log = sa.Table(
    "memory_audit_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("ts", sa.Integer, nullable=False),
    sa.Column("op", sa.Text, nullable=False),
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("workdir_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("slug", sa.Text, nullable=False),
    sa.Column("actor", sa.Text, nullable=False),
    sa.Column("conversation_id", sa.Text),
    sa.Column("trigger", sa.Text),
    sa.Column("model", sa.Text),
    sa.Column("detail_json", sa.Text),
)

memory_files = sa.Table(
    "memory_files",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("path", sa.Text, nullable=False, unique=True),
    sa.Column("mtime_ns", sa.Integer, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("sha256", sa.Text, nullable=False),
    sa.Column("scope", sa.Text),
    sa.Column("workdir_hash", sa.Text),
    sa.Column("slug", sa.Text),
    sa.Column("problem", sa.Text),
)

# LiveAgent's DDL (REFERENCE A4), verbatim in substance; one difference: memory_meta's type
# CHECK also admits 'skill' (SPEC 1.2). LiveAgent never sees a skill file (they live in skills/
# folders) and empties memory_meta when it opens a store, so it never meets such a row.
REFERENCE_DDL = (
    """
    CREATE TABLE IF NOT EXISTS memory_meta (
        scope         TEXT    NOT NULL CHECK (scope IN ('global', 'project')),
        workdir_hash  TEXT    NOT NULL DEFAULT '',
        slug          TEXT    NOT NULL,
        type          TEXT    NOT NULL CHECK (type IN ('user', 'feedback', 'project',
                                                   'reference', 'skill', 'daily')),
        description   TEXT    NOT NULL DEFAULT '',
        headline      TEXT    NOT NULL DEFAULT '',
        date_local    TEXT,
        age_anchor    INTEGER,
        append_count  INTEGER NOT NULL DEFAULT 0,
        archived      INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
        body_hash     TEXT    NOT NULL,
        file_mtime    INTEGER NOT NULL,
        file_size     INTEGER NOT NULL,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        source_json   TEXT,
        links_json    TEXT,
        PRIMARY KEY (scope, workdir_hash, slug),
        CHECK (
            (type != 'daily') OR
            (date_local IS NOT NULL AND age_anchor IS NOT NULL AND scope = 'global')
        )
    )
    """,
    """CREATE INDEX IF NOT EXISTS idx_memory_meta_workdir
        ON memory_meta(scope, workdir_hash, updated_at DESC)""",
    """CREATE INDEX IF NOT EXISTS idx_memory_meta_type
        ON memory_meta(scope, workdir_hash, type, updated_at DESC)""",
    """CREATE INDEX IF NOT EXISTS idx_memory_meta_daily
        ON memory_meta(type, archived, date_local DESC) WHERE type = 'daily'""",
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        type, description, headline, body,
        tokenize = "unicode61 remove_diacritics 2"
    )
    """,
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts_tri USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        description, headline, body,
        tokenize = "trigram"
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS memory_audit_log (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        ts              INTEGER NOT NULL,
        op              TEXT    NOT NULL CHECK (op IN ('write','update','delete','restore',
                                                       'batch','accept','wipe','reconcile')),
        scope           TEXT    NOT NULL,
        workdir_hash    TEXT    NOT NULL DEFAULT '',
        slug            TEXT    NOT NULL,
        actor           TEXT    NOT NULL CHECK (actor IN ('user','tool','extractor','reconcile')),
        conversation_id TEXT,
        trigger         TEXT,
        model           TEXT,
        detail_json     TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_audit_recent ON memory_audit_log(ts DESC)",
    """CREATE INDEX IF NOT EXISTS idx_audit_slug
        ON memory_audit_log(scope, workdir_hash, slug, ts DESC)""",
    """
    CREATE TABLE IF NOT EXISTS memory_organize_runs (
        run_id                TEXT PRIMARY KEY,
        trigger               TEXT    NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
        status                TEXT    NOT NULL CHECK (status IN ('pending', 'running',
                                      'succeeded', 'failed', 'skipped', 'cancelled')),
        created_at            INTEGER NOT NULL,
        started_at            INTEGER,
        finished_at           INTEGER,
        due_at                INTEGER,
        claimed_at            INTEGER,
        model_json            TEXT,
        scope                 TEXT    NOT NULL DEFAULT 'all',
        mode                  TEXT    NOT NULL DEFAULT 'standard',
        input_count           INTEGER NOT NULL DEFAULT 0,
        cluster_count         INTEGER NOT NULL DEFAULT 0,
        safe_applied          INTEGER NOT NULL DEFAULT 0,
        review_skipped        INTEGER NOT NULL DEFAULT 0,
        created_count         INTEGER NOT NULL DEFAULT 0,
        updated_count         INTEGER NOT NULL DEFAULT 0,
        deleted_count         INTEGER NOT NULL DEFAULT 0,
        merged_count          INTEGER NOT NULL DEFAULT 0,
        parse_failures        INTEGER NOT NULL DEFAULT 0,
        error                 TEXT,
        final_summary         TEXT,
        trimmed_protocol_json TEXT    NOT NULL DEFAULT '{}',
        phase                 TEXT,
        final_count           INTEGER NOT NULL DEFAULT 0,
        compression_ratio     REAL,
        compression_target    INTEGER,
        dry_run               INTEGER NOT NULL DEFAULT 0,
        token_usage_total     INTEGER NOT NULL DEFAULT 0,
        quota_headroom_at_start INTEGER,
        override_reviewed     INTEGER NOT NULL DEFAULT 0
    )
    """,
    """CREATE INDEX IF NOT EXISTS idx_memory_organize_runs_recent
        ON memory_organize_runs(created_at DESC)""",
    """CREATE INDEX IF NOT EXISTS idx_memory_organize_runs_status
        ON memory_organize_runs(status, created_at ASC)""",
    """
    CREATE TABLE IF NOT EXISTS memory_schema_version (
        version    INTEGER PRIMARY KEY,
        applied_at INTEGER NOT NULL
    )
    """,
)

# v3 -> v4 is additive (REFERENCE A4): these run columns are added in place, history kept.
RUN_V4_COLUMNS = (
    ("phase", "TEXT"),
    ("final_count", "INTEGER NOT NULL DEFAULT 0"),
    ("compression_ratio", "REAL"),
    ("compression_target", "INTEGER"),
    ("dry_run", "INTEGER NOT NULL DEFAULT 0"),
    ("token_usage_total", "INTEGER NOT NULL DEFAULT 0"),
    ("quota_headroom_at_start", "INTEGER"),
    ("override_reviewed", "INTEGER NOT NULL DEFAULT 0"),
)
# Ours, not LiveAgent's (issue 12): who executes a running run and until when its lease holds.
RUN_OWNER_COLUMNS = (
    ("owner_host", "TEXT"),
    ("owner_pid", "INTEGER"),
    ("owner_started", "INTEGER"),
    ("lease_until", "INTEGER"),
)
META_COLUMNS = tuple(column.name for column in memory_meta.columns)

EXT_DDL = (
    """
    CREATE TABLE IF NOT EXISTS memory_files (
        id           INTEGER PRIMARY KEY,
        path         TEXT    NOT NULL UNIQUE,
        mtime_ns     INTEGER NOT NULL,
        size         INTEGER NOT NULL,
        sha256       TEXT    NOT NULL,
        scope        TEXT,
        workdir_hash TEXT,
        slug         TEXT,
        problem      TEXT
    )
    """,
    """CREATE UNIQUE INDEX IF NOT EXISTS idx_memory_files_key
        ON memory_files(scope, workdir_hash, slug) WHERE problem IS NULL""",
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_search USING fts5(
        keys, type, slug, description, headline, body, dcjk, bcjk,
        tokenize = "porter unicode61 remove_diacritics 2"
    )
    """,
    # Scopes whose MEMORY.md may be stale: marked in the same transaction as the change,
    # cleared once the file is rewritten, so a crash in between is repaired by reconcile.
    """
    CREATE TABLE IF NOT EXISTS memory_dirty_scopes (
        scope        TEXT NOT NULL,
        workdir_hash TEXT NOT NULL,
        PRIMARY KEY (scope, workdir_hash)
    )
    """,
    # Episodes (store/episodes.py): one row per JSON file under episodes/, like memory_files;
    # episode_meta and episode_search use its id (meta's file_id, the FTS rowid).
    """
    CREATE TABLE IF NOT EXISTS episode_files (
        id         INTEGER PRIMARY KEY,
        path       TEXT    NOT NULL UNIQUE,
        mtime_ns   INTEGER NOT NULL,
        size       INTEGER NOT NULL,
        sha256     TEXT    NOT NULL,
        episode_id TEXT,
        problem    TEXT
    )
    """,
    """CREATE UNIQUE INDEX IF NOT EXISTS idx_episode_files_id
        ON episode_files(episode_id) WHERE problem IS NULL""",
    """
    CREATE TABLE IF NOT EXISTS episode_meta (
        file_id      INTEGER PRIMARY KEY,
        episode_id   TEXT    NOT NULL UNIQUE,
        ts           INTEGER NOT NULL,
        date         TEXT    NOT NULL,
        outcome      TEXT    NOT NULL,
        phase        TEXT    NOT NULL,
        task_type    TEXT    NOT NULL,
        workdir_hash TEXT    NOT NULL DEFAULT '',
        importance   REAL    NOT NULL,
        action_count INTEGER NOT NULL,
        error_count  INTEGER NOT NULL,
        data_json    TEXT    NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_episode_meta_ts ON episode_meta(ts DESC)",
    "CREATE INDEX IF NOT EXISTS idx_episode_meta_date ON episode_meta(date, ts DESC)",
    """CREATE INDEX IF NOT EXISTS idx_episode_meta_workdir
        ON episode_meta(workdir_hash, ts DESC)""",
    # Briefly created by this version's development: without ANALYZE statistics SQLite chose it
    # for every `scope = ?` lookup, scanning a scope's rows for one slug. Dropped where it exists.
    "DROP INDEX IF EXISTS idx_memory_meta_footprint",
    # Latin words through the Porter stemmer, CJK as bigrams in hcjk (goal, summary) and bcjk
    # (the rest), as memory_search does (store/text.py).
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS episode_search USING fts5(
        goal, summary, actions, errors, decisions, hcjk, bcjk,
        tokenize = "porter unicode61 remove_diacritics 2"
    )
    """,
)
EXT_TABLES = (
    "memory_search",
    "memory_files",
    "memory_dirty_scopes",
    "episode_search",
    "episode_meta",
    "episode_files",
)


_FILE_COLUMNS = "id, path, mtime_ns, size, sha256, scope, workdir_hash, slug, problem"
_INSERT_META = (
    "INSERT OR REPLACE INTO memory_meta ("
    + ", ".join(column.name for column in memory_meta.columns)
    + ") VALUES ("
    + ", ".join(f":{column.name}" for column in memory_meta.columns)
    + ")"
)


def json_object(text: str | None) -> dict[str, Any]:
    """A JSON column (source_json, detail_json) as a dict; {} when empty or not an object."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _db(conn: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under a SQLAlchemy connection (inside its transaction)."""
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


def _search_columns(row: IndexRow) -> tuple[str, ...]:
    """memory_search's columns for a row: Latin words and CJK bigrams apart (store/text.py)."""
    head = f"{row.description}\n{row.headline}"
    body = searchable_body(row.body)
    return (
        row.search_keys(),
        row.type,
        row.slug.replace("-", " "),
        latin_text(row.description),
        latin_text(row.headline),
        latin_text(body),
        cjk_tokens(head),
        cjk_tokens(body),
    )


def searchable_body(body: str) -> str:
    """What our search indexes of a body: the content plus the evidence's quote and aliases
    (the block's keys would only add noise)."""
    block, content = split_evidence(body)
    if block is None:
        return content
    evidence = read_evidence(body)
    return "\n".join([content, evidence.source_quote, *evidence.aliases])


@dataclass
class IndexRow:
    """Everything the index stores about one memory file."""

    path: str
    mtime_ns: int
    size: int
    sha256: str
    scope: str
    workdir_hash: str
    slug: str
    type: str
    description: str
    headline: str
    date_local: str | None
    age_anchor: int | None
    append_count: int
    archived: bool
    body_hash: str
    created_at: int
    updated_at: int
    source: Any  # dict with `confidence` (REFERENCE: source_json carries it); daily: a list
    links: list[Any]
    body: str

    def meta_values(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "workdir_hash": self.workdir_hash,
            "slug": self.slug,
            "type": self.type,
            "description": self.description,
            "headline": self.headline,
            "date_local": self.date_local,
            "age_anchor": self.age_anchor,
            "append_count": self.append_count,
            "archived": 1 if self.archived else 0,
            "body_hash": self.body_hash,
            "file_mtime": self.mtime_ns // 1_000_000,
            "file_size": self.size,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "source_json": json.dumps(self.source, ensure_ascii=False),
            "links_json": json.dumps(self.links, ensure_ascii=False),
        }

    def search_keys(self) -> str:
        scope_token = "sglobal" if self.scope == "global" else f"p{self.workdir_hash}"
        return f"{scope_token} t{self.type}"


@dataclass(frozen=True)
class FileState:
    id: int
    path: str
    mtime_ns: int
    size: int
    sha256: str
    scope: str | None
    workdir_hash: str | None
    slug: str | None
    problem: str | None


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


# SQLite's primary result codes that mean the file itself is damaged (SQLITE_CORRUPT covers
# SQLITE_CORRUPT_VTAB, e.g. an FTS5 table whose blocks were overwritten).
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_DAMAGE_WORDS = ("malformed", "corrupt", "vtable constructor failed", "not a database")


class IndexDamaged(IndexUnavailable):
    """SQLite found the index damaged while using it (damage `PRAGMA quick_check` misses,
    such as broken FTS5 blocks). The store quarantines it and rebuilds from the files."""


FTS_TABLES = ("memory_fts", "memory_fts_tri", "memory_search", "episode_search")


def is_damage(exc: BaseException) -> bool:
    """True when a database error says the index file is damaged (not busy, full or read-only)."""
    if isinstance(exc, IndexDamaged):
        return True
    error = getattr(exc, "orig", exc)
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    return type(error) is sqlite3.DatabaseError and any(w in str(error) for w in _DAMAGE_WORDS)


def is_file_failure(exc: BaseException) -> bool:
    """True when indexing one file failed because of that file (a value the index cannot
    hold, a bug its content triggers), not because the index or the disk cannot be used.

    Reconcile records such a failure as the file's problem and goes on with the others.
    """
    if is_damage(exc) or isinstance(exc, (MemoryDomainError, sa.exc.OperationalError)):
        return False
    return isinstance(exc, Exception) and not isinstance(exc, sqlite3.OperationalError)


@contextlib.contextmanager
def isolated(conn: Connection) -> Iterator[None]:
    """A savepoint around one file's rows: if indexing it fails, its rows are undone and the
    transaction goes on (cheaper than SQLAlchemy's begin_nested on a 10k-file pass)."""
    db = _db(conn)
    db.execute("SAVEPOINT one_file")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK TO one_file")
            db.execute("RELEASE one_file")
        raise
    db.execute("RELEASE one_file")


def _reason(exc: BaseException) -> str:
    """The database's own message, without SQLAlchemy's statement and parameters."""
    return str(getattr(exc, "orig", exc))


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class Index:
    """Owns the SQLAlchemy engine of one store's index."""

    def __init__(self, layout: Layout, engine: Engine) -> None:
        self.layout = layout
        self.engine = engine
        self._writer = engine.execution_options(sqlite_begin="IMMEDIATE")
        self._file = _file_id(layout.index_path)

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
            moved = _quarantine(layout, now_ms)
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
            problem, version = _inspect(path)
            if problem is None and version is not None and version > config.SCHEMA_VERSION:
                # Refuse before our engine connects: its pragmas (WAL) would rewrite the file.
                raise _newer_version(version, path)
            if problem is not None:
                moved = _quarantine(layout, now_ms)
                quarantined = str(moved)
                log.warning("memory index was corrupt (%s); moved to %s", problem, quarantined)
                existed = False
        engine = create_engine(path)
        index = cls(layout, engine)
        try:
            migrated_from, rebuilt = index._init_schema(now_ms)
        except IndexVersionUnsupported:
            engine.dispose()
            raise
        except (sa.exc.DBAPIError, sqlite3.Error) as exc:
            engine.dispose()
            if is_damage(exc) and existed:
                raise IndexDamaged(f"the memory index {path} is damaged: {_reason(exc)}") from exc
            raise _index_unavailable(exc, path) from exc
        if quarantined is not None:
            index.salvage(Path(quarantined))
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.chmod(f"{path}{suffix}", config.FILE_MODE)
        index._file = _file_id(path)
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

    def _init_schema(self, now_ms: int) -> tuple[int | None, bool]:
        """Create or migrate the schema. Returns (migrated-from version, derived tables rebuilt)."""
        with self._writer.begin() as conn:
            tables = _table_names(conn)
            migrated_from: int | None = None
            rebuilt = False
            if "memory_meta" in tables:
                version = _schema_version(conn, tables)
                if version is not None and version > config.SCHEMA_VERSION:
                    raise _newer_version(version, self.layout.index_path)
                if (
                    version is None
                    or version < config.SCHEMA_MIN_MIGRATABLE
                    or (_needs_rebuild(conn, tables))
                ):
                    # REFERENCE A4: too old or missing columns -> drop the derived tables.
                    for table in (
                        "memory_fts",
                        "memory_fts_tri",
                        "memory_meta",
                        "memory_audit_log",
                        "memory_schema_version",
                    ):
                        conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
                    migrated_from, rebuilt = version, True
                elif version < config.SCHEMA_VERSION:
                    migrated_from = version
            for ddl in REFERENCE_DDL:
                conn.exec_driver_sql(ddl)
            conn.execute(
                sa.text(
                    "INSERT OR IGNORE INTO memory_schema_version (version, applied_at) "
                    "VALUES (:v, :t)"
                ),
                {"v": config.SCHEMA_VERSION, "t": now_ms},
            )
        for name, migrate in MIGRATIONS:
            with self._writer.begin() as conn:
                log.debug("index migration %s", name)
                migrate(conn)
        with self._writer.begin() as conn:
            ext_version = conn.exec_driver_sql("PRAGMA user_version").scalar() or 0
            if ext_version != EXT_SCHEMA_VERSION or rebuilt:
                for table in EXT_TABLES:
                    conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
                conn.exec_driver_sql("DELETE FROM memory_meta")
                conn.exec_driver_sql("DELETE FROM memory_fts")
                conn.exec_driver_sql("DELETE FROM memory_fts_tri")
                rebuilt = True
            for ddl in EXT_DDL:
                conn.exec_driver_sql(ddl)
            conn.exec_driver_sql(f"PRAGMA user_version = {EXT_SCHEMA_VERSION}")
        return migrated_from, rebuilt

    def close(self) -> None:
        self.engine.dispose()

    # --- transactions -----------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction; callers hold the store's WriteLock around it."""
        with self._typed_errors(), self._writer.begin() as conn:
            yield conn

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
            raise _index_unavailable(exc, self.layout.index_path) from exc
        except (sa.exc.IntegrityError, sqlite3.IntegrityError) as exc:
            # The index disagrees with what the files say (two rows for one memory): the
            # change is rolled back (its files too, by the caller) and reported, typed.
            raise IndexUnavailable(
                f"the memory index refused the change ({_reason(exc)}); nothing was changed. "
                "Run reconcile to bring the index in line with the files"
            ) from exc
        except (sa.exc.DatabaseError, sqlite3.DatabaseError) as exc:
            if is_damage(exc):
                raise IndexDamaged(f"the memory index is damaged: {_reason(exc)}") from exc
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
        current = _file_id(self.layout.index_path)
        if current is not None and current != self._file:
            log.info("the memory index file was replaced by another process; reconnecting")
            self.engine.dispose()
            self._file = current

    def replace_damaged(self, now_ms: int) -> tuple[Index, Path | None]:
        """Close this index, quarantine its file and open a fresh, empty one (with the audit
        log and run history salvaged); the caller rebuilds it from the files.

        Returns the new index and where the damaged file went; (self, None) when another
        process replaced the file already (this one reconnects to it). The caller holds the
        store's write lock.
        """
        if _file_id(self.layout.index_path) != self._file:
            self._follow_replacement()
            return self, None
        self.close()
        moved = _quarantine(self.layout, now_ms)
        index, _ = Index._open(self.layout, now_ms=now_ms)
        index.salvage(moved)
        return index, moved

    # --- rows -------------------------------------------------------------------------------

    # Hot paths talk to the sqlite3 connection under SQLAlchemy's transaction directly:
    # SQLAlchemy's per-statement work cost more than SQLite's own (about 3 ms of a 4 ms
    # upsert before this).

    def footprint(self, conn: Connection, project: str) -> tuple[int, int, int, int]:
        """Count and bytes of the memory files (journal archive included) and of the episodes a
        context for `project` ('' for none) could draw on: global and unscoped ones plus that
        project's."""
        db = _db(conn)
        # memory_files: narrower rows than memory_meta, so the sum reads fewer pages.
        memories = db.execute(
            "SELECT COUNT(*), IFNULL(SUM(size), 0) FROM memory_files WHERE problem IS NULL "
            "AND (scope = 'global' OR (scope = 'project' AND workdir_hash = ?))",
            (project,),
        ).fetchone()
        episodes = db.execute(
            "SELECT COUNT(*), IFNULL(SUM(f.size), 0) FROM episode_meta m "
            "JOIN episode_files f ON f.id = m.file_id WHERE m.workdir_hash IN ('', ?)",
            (project,),
        ).fetchone()
        return int(memories[0]), int(memories[1]), int(episodes[0]), int(episodes[1])

    def file_states(self, conn: Connection) -> dict[str, FileState]:
        rows = _db(conn).execute(f"SELECT {_FILE_COLUMNS} FROM memory_files").fetchall()
        return {row[1]: FileState(*row) for row in rows}

    def file_stamps(self, conn: Connection) -> dict[str, tuple[int, int, str | None]]:
        """path -> (mtime_ns, size, problem): what a warm reconcile compares, cheaply."""
        rows = _db(conn).execute("SELECT path, mtime_ns, size, problem FROM memory_files")
        return {row[0]: (row[1], row[2], row[3]) for row in rows}

    def mark_dirty(self, conn: Connection, scope: str, workdir_hash: str) -> None:
        _db(conn).execute(
            "INSERT OR IGNORE INTO memory_dirty_scopes (scope, workdir_hash) VALUES (?, ?)",
            (scope, workdir_hash),
        )

    def dirty_scopes(self, conn: Connection) -> set[tuple[str, str]]:
        rows = _db(conn).execute("SELECT scope, workdir_hash FROM memory_dirty_scopes")
        return {(str(a), str(b)) for a, b in rows}

    def clear_dirty(self, conn: Connection, scope: str, workdir_hash: str) -> None:
        _db(conn).execute(
            "DELETE FROM memory_dirty_scopes WHERE scope = ? AND workdir_hash = ?",
            (scope, workdir_hash),
        )

    def file_state(self, conn: Connection, path: str) -> FileState | None:
        row = (
            _db(conn)
            .execute(f"SELECT {_FILE_COLUMNS} FROM memory_files WHERE path = ?", (path,))
            .fetchone()
        )
        return FileState(*row) if row else None

    def problems(self, conn: Connection) -> list[tuple[str, str]]:
        """(path, reason) of every file that could not be indexed."""
        rows = (
            _db(conn)
            .execute(
                "SELECT path, problem FROM memory_files WHERE problem IS NOT NULL ORDER BY path"
            )
            .fetchall()
        )
        return [(str(path), str(reason)) for path, reason in rows]

    def path_for_key(
        self, conn: Connection, scope: str, workdir_hash: str, slug: str
    ) -> str | None:
        row = (
            _db(conn)
            .execute(
                "SELECT path FROM memory_files WHERE scope = ? AND workdir_hash = ? AND slug = ? "
                "AND problem IS NULL",
                (scope, workdir_hash, slug),
            )
            .fetchone()
        )
        return str(row[0]) if row else None

    def upsert(self, conn: Connection, row: IndexRow) -> int:
        """Index one parsed file in every table; returns its memory_files id."""
        previous = self.file_state(conn, row.path)
        values = (
            row.path,
            row.mtime_ns,
            row.size,
            row.sha256,
            row.scope,
            row.workdir_hash,
            row.slug,
        )
        if previous is None:
            cursor = _db(conn).execute(
                "INSERT INTO memory_files (path, mtime_ns, size, sha256, scope, workdir_hash, "
                "slug, problem) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                values,
            )
            file_id = int(cursor.lastrowid or 0)
        else:
            file_id = previous.id
            self._delete_rows(conn, previous)
            _db(conn).execute(
                "UPDATE memory_files SET path = ?, mtime_ns = ?, size = ?, sha256 = ?, "
                "scope = ?, workdir_hash = ?, slug = ?, problem = NULL WHERE id = ?",
                (*values, file_id),
            )
        self._insert_rows(conn, [(file_id, row)])
        return file_id

    def insert_new(self, conn: Connection, rows: list[IndexRow]) -> None:
        """Index files the index has never seen, in bulk (a full rebuild's fast path)."""
        if not rows:
            return
        start = int(
            _db(conn).execute("SELECT IFNULL(MAX(id), 0) FROM memory_files").fetchone()[0] or 0
        )
        numbered = [(start + offset + 1, row) for offset, row in enumerate(rows)]
        _db(conn).executemany(
            "INSERT INTO memory_files (id, path, mtime_ns, size, sha256, scope, workdir_hash, "
            "slug, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            [
                (i, r.path, r.mtime_ns, r.size, r.sha256, r.scope, r.workdir_hash, r.slug)
                for i, r in numbered
            ],
        )
        self._insert_rows(conn, numbered)

    def _insert_rows(self, conn: Connection, numbered: list[tuple[int, IndexRow]]) -> None:
        db = _db(conn)
        db.executemany(
            "INSERT OR IGNORE INTO memory_dirty_scopes (scope, workdir_hash) VALUES (?, ?)",
            list({(r.scope, r.workdir_hash) for _, r in numbered}),
        )
        db.executemany(_INSERT_META, [row.meta_values() for _, row in numbered])
        db.executemany(
            "INSERT INTO memory_fts (rowid, slug, scope, workdir_hash, type, description, "
            "headline, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (i, r.slug, r.scope, r.workdir_hash, r.type, r.description, r.headline, r.body)
                for i, r in numbered
            ],
        )
        db.executemany(
            "INSERT INTO memory_fts_tri (rowid, slug, scope, workdir_hash, description, "
            "headline, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (i, r.slug, r.scope, r.workdir_hash, r.description, r.headline, r.body)
                for i, r in numbered
            ],
        )
        db.executemany(
            "INSERT INTO memory_search (rowid, keys, type, slug, description, headline, body, "
            "dcjk, bcjk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(i, *_search_columns(r)) for i, r in numbered],
        )

    def record_problem(
        self, conn: Connection, *, path: str, mtime_ns: int, size: int, sha256: str, reason: str
    ) -> None:
        """Remember that a file could not be indexed (it stays on disk, untouched)."""
        previous = self.file_state(conn, path)
        if previous is None:
            _db(conn).execute(
                "INSERT INTO memory_files (path, mtime_ns, size, sha256, scope, workdir_hash, "
                "slug, problem) VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?)",
                (path, mtime_ns, size, sha256, reason),
            )
        else:
            self._delete_rows(conn, previous)
            _db(conn).execute(
                "UPDATE memory_files SET mtime_ns = ?, size = ?, sha256 = ?, scope = NULL, "
                "workdir_hash = NULL, slug = NULL, problem = ? WHERE id = ?",
                (mtime_ns, size, sha256, reason, previous.id),
            )

    def touch(self, conn: Connection, path: str, mtime_ns: int) -> None:
        """The file's bytes are unchanged; remember its new mtime (in memory_meta too)."""
        state = self.file_state(conn, path)
        _db(conn).execute("UPDATE memory_files SET mtime_ns = ? WHERE path = ?", (mtime_ns, path))
        if state is not None and state.problem is None and state.slug is not None:
            _db(conn).execute(
                "UPDATE memory_meta SET file_mtime = ? WHERE scope = ? AND workdir_hash = ? "
                "AND slug = ?",
                (mtime_ns // 1_000_000, state.scope, state.workdir_hash, state.slug),
            )

    def remove(self, conn: Connection, path: str) -> FileState | None:
        """Forget a file (deleted or moved) in every table."""
        previous = self.file_state(conn, path)
        if previous is None:
            return None
        self._delete_rows(conn, previous)
        _db(conn).execute("DELETE FROM memory_files WHERE id = ?", (previous.id,))
        return previous

    def _delete_rows(self, conn: Connection, state: FileState) -> None:
        for table in ("memory_fts", "memory_fts_tri", "memory_search"):
            _db(conn).execute(f"DELETE FROM {table} WHERE rowid = ?", (state.id,))
        if state.problem is None and state.slug is not None:
            _db(conn).execute(
                "DELETE FROM memory_meta WHERE scope = ? AND workdir_hash = ? AND slug = ?",
                (state.scope, state.workdir_hash, state.slug),
            )
            self.mark_dirty(conn, state.scope or "", state.workdir_hash or "")

    def clear(self, conn: Connection) -> None:
        """Drop every derived row (a full rebuild follows)."""
        for table in (
            "memory_dirty_scopes",
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
        # One scan of memory_fts; memory_fts_tri is always rewritten together with it.
        fts_rows, fts_matching = conn.execute(
            sa.text(
                "SELECT COUNT(*), IFNULL(SUM(f.problem IS NULL AND f.slug = t.slug "
                "AND f.scope = t.scope AND f.workdir_hash = t.workdir_hash), 0) "
                "FROM memory_fts t LEFT JOIN memory_files f ON f.id = t.rowid"
            )
        ).one()
        return bool(fts_rows == fts_matching == file_count)

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
    ) -> None:
        conn.exec_driver_sql(
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


MetaRow = sa.Row[Any]


def _table_names(conn: Connection) -> set[str]:
    rows = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'").all()
    return {row[0] for row in rows}


def _columns(conn: Connection, table: str) -> set[str]:
    return {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})").all()}


def _schema_version(conn: Connection, tables: set[str]) -> int | None:
    if "memory_schema_version" not in tables:
        return None
    value = conn.exec_driver_sql("SELECT MAX(version) FROM memory_schema_version").scalar()
    return int(value) if value is not None else None


def _needs_rebuild(conn: Connection, tables: set[str]) -> bool:
    if not set(META_COLUMNS) <= _columns(conn, "memory_meta"):
        return True
    if "memory_fts" in tables and "headline" not in _columns(conn, "memory_fts"):
        return True
    return "memory_fts_tri" in tables and not {"description", "headline"} <= _columns(
        conn, "memory_fts_tri"
    )


def _migrate_v3_to_v4_run_columns(conn: Connection) -> None:
    """REFERENCE A4: v3 -> v4 adds eight organizer-run columns; run history is kept."""
    _add_run_columns(conn, RUN_V4_COLUMNS)


def _migrate_run_owner_columns(conn: Connection) -> None:
    """Issue 12: run rows name their owner process and lease; extra columns, history kept."""
    _add_run_columns(conn, RUN_OWNER_COLUMNS)


def _add_run_columns(conn: Connection, columns: tuple[tuple[str, str], ...]) -> None:
    existing = _columns(conn, "memory_organize_runs")
    for name, declaration in columns:
        if name not in existing:
            conn.exec_driver_sql(
                f"ALTER TABLE memory_organize_runs ADD COLUMN {name} {declaration}"
            )


def _migrate_meta_admits_skill(conn: Connection) -> None:
    """SPEC 1.2: a memory_meta created by LiveAgent (or by us before skills) refuses type
    'skill' in its CHECK. SQLite cannot change a CHECK in place; the table's rows are derived
    from the files, so it is recreated empty and `user_version` is reset, which makes the next
    step rebuild every derived table (the audit log and run history stay)."""
    sql = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'memory_meta'"
    ).scalar()
    if sql is None or "'skill'" in str(sql):
        return
    conn.exec_driver_sql("DROP TABLE memory_meta")
    for ddl in REFERENCE_DDL:
        if "memory_meta" in ddl and "VIRTUAL" not in ddl:
            conn.exec_driver_sql(ddl)  # the table and its three indexes
    conn.exec_driver_sql("PRAGMA user_version = 0")


# Ordered, named migrations; each runs in its own transaction and is idempotent.
MIGRATIONS = (
    ("v3_to_v4_organize_run_columns", _migrate_v3_to_v4_run_columns),
    ("memory_meta_admits_skill", _migrate_meta_admits_skill),
    ("organize_run_owner_columns", _migrate_run_owner_columns),
)


def _inspect(path: Path) -> tuple[str | None, int | None]:
    """Return (why the index file is unusable or None, its LiveAgent schema version or None).

    Only reads: a database we must refuse (newer schema) is left byte for byte as it was.
    """
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return str(exc), None
    try:
        result = conn.execute("PRAGMA quick_check").fetchone()
        if result is None or result[0] != "ok":
            return f"quick_check: {result[0] if result else 'no result'}", None
        has_versions = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_schema_version'"
        ).fetchone()
        if not has_versions:
            return None, None
        value = conn.execute("SELECT MAX(version) FROM memory_schema_version").fetchone()[0]
        return None, int(value) if isinstance(value, int) else None
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return None, None  # busy, not broken: the normal open will wait or report it
        return str(exc), None
    except sqlite3.DatabaseError as exc:
        return str(exc), None
    finally:
        conn.close()


def _newer_version(version: int, path: Path) -> IndexVersionUnsupported:
    return IndexVersionUnsupported(
        f"the memory index was written by a newer program (schema version {version}; this one "
        f"understands {config.SCHEMA_VERSION}). Update LiveAgent Memory, or move {path.name} "
        "away to rebuild it from the files."
    )


def _quarantine(layout: Layout, now_ms: int) -> Path:
    target = layout.quarantine_dir / f"corrupt-{now_ms}"
    ensure_private_dir(target)
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{layout.index_path}{suffix}")
        if source.exists():
            try:
                os.replace(source, target / source.name)
            except OSError as exc:
                raise store_unavailable(exc, source) from exc
    return target


def _index_unavailable(exc: Exception, path: Path) -> IndexUnavailable:
    message = str(getattr(exc, "orig", exc))
    if "locked" in message:
        return IndexUnavailable(f"the memory index {path} is locked by another program")
    if "readonly" in message or "read-only" in message:
        return IndexUnavailable(f"the memory index {path} is read-only")
    if "disk is full" in message:
        return IndexUnavailable(f"the disk holding the memory index {path} is full")
    return IndexUnavailable(f"the memory index {path} cannot be used: {message}")

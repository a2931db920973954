"""The index's schema, written once: plain tables in SQLAlchemy Core, FTS5 tables as raw DDL.

Every CREATE statement the index runs is derived from the definitions here (`reference_ddl`,
`ext_ddl`), so a column is declared in one place; code that names columns (the row upkeep in
store/index.py, the audit queries) uses these Table objects or their column lists.

- LiveAgent's schema v4 (REFERENCE A4), kept exactly in substance so either program can open
  the other's store: memory_meta, memory_fts (unicode61), memory_fts_tri (trigram),
  memory_audit_log, memory_organize_runs, memory_schema_version. One difference: memory_meta's
  type CHECK also admits 'skill' (SPEC 1.2). LiveAgent never sees a skill file (they live in
  skills/ folders) and empties memory_meta when it opens a store, so it never meets such a row.
- Our additions, which LiveAgent ignores (their layout version is PRAGMA user_version,
  `EXT_SCHEMA_VERSION`): memory_files (what we indexed from which file, for incremental
  reconcile and parse problems), memory_search (FTS5 with the Porter stemmer and CJK bigram
  columns; store/text.py), memory_dirty_scopes, and episode_files, episode_meta and
  episode_search for the episode JSON files (store/episodes.py).

Every memory FTS row uses the memory_files id as its rowid (episode_search: episode_files' id).
"""

from __future__ import annotations

import functools

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateColumn, CreateIndex, CreateTable

# Our tables' layout (v2: dirty scopes, v3: episodes, v4: each file's token estimate, v5:
# irregular English forms indexed as their base, store/lemmas.py; v6: each file's ctime, so a
# sync that restores an edited file's old mtime is still seen, store/reconcile.py, and
# memory_conflicts, store/conflicts.py); bump to
# rebuild.
EXT_SCHEMA_VERSION = 6

_ZERO = sa.text("0")  # an integer DEFAULT 0 (a plain "0" would render as the string '0')

reference_metadata = sa.MetaData()
ext_metadata = sa.MetaData()

# --- LiveAgent's schema v4 (REFERENCE A4) ------------------------------------------------------

memory_meta = sa.Table(
    "memory_meta",
    reference_metadata,
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("workdir_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("slug", sa.Text, nullable=False),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("headline", sa.Text, nullable=False, server_default=""),
    sa.Column("date_local", sa.Text),
    sa.Column("age_anchor", sa.Integer),
    sa.Column("append_count", sa.Integer, nullable=False, server_default=_ZERO),
    sa.Column("archived", sa.Integer, nullable=False, server_default=_ZERO),
    sa.Column("body_hash", sa.Text, nullable=False),
    sa.Column("file_mtime", sa.Integer, nullable=False),
    sa.Column("file_size", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Integer, nullable=False),
    sa.Column("source_json", sa.Text),
    sa.Column("links_json", sa.Text),
    sa.PrimaryKeyConstraint("scope", "workdir_hash", "slug"),
    sa.CheckConstraint("scope IN ('global', 'project')"),
    sa.CheckConstraint(
        "type IN ('user', 'feedback', 'project', 'reference', 'skill', 'daily')"  # + 'skill'
    ),
    sa.CheckConstraint("archived IN (0, 1)"),
    sa.CheckConstraint(
        "(type != 'daily') OR "
        "(date_local IS NOT NULL AND age_anchor IS NOT NULL AND scope = 'global')"
    ),
)
sa.Index(
    "idx_memory_meta_workdir",
    memory_meta.c.scope,
    memory_meta.c.workdir_hash,
    memory_meta.c.updated_at.desc(),
)
sa.Index(
    "idx_memory_meta_type",
    memory_meta.c.scope,
    memory_meta.c.workdir_hash,
    memory_meta.c.type,
    memory_meta.c.updated_at.desc(),
)
sa.Index(
    "idx_memory_meta_daily",
    memory_meta.c.type,
    memory_meta.c.archived,
    memory_meta.c.date_local.desc(),
    sqlite_where=sa.text("type = 'daily'"),
)

memory_audit_log = sa.Table(
    "memory_audit_log",
    reference_metadata,
    sa.Column("id", sa.Integer, primary_key=True, nullable=True),
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
    sa.CheckConstraint(
        "op IN ('write', 'update', 'delete', 'restore', 'batch', 'accept', 'wipe', 'reconcile')"
    ),
    sa.CheckConstraint("actor IN ('user', 'tool', 'extractor', 'reconcile')"),
    sqlite_autoincrement=True,
)
sa.Index("idx_audit_recent", memory_audit_log.c.ts.desc())
sa.Index(
    "idx_audit_slug",
    memory_audit_log.c.scope,
    memory_audit_log.c.workdir_hash,
    memory_audit_log.c.slug,
    memory_audit_log.c.ts.desc(),
)

# v3 -> v4 is additive (REFERENCE A4): these run columns are added in place, history kept.
RUN_V4_COLUMNS = (
    "phase",
    "final_count",
    "compression_ratio",
    "compression_target",
    "dry_run",
    "token_usage_total",
    "quota_headroom_at_start",
    "override_reviewed",
)
# Ours, not LiveAgent's (issue 12): who executes a running run and until when its lease holds.
RUN_OWNER_COLUMNS = ("owner_host", "owner_pid", "owner_started", "lease_until")


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, nullable=False, server_default=_ZERO)


memory_organize_runs = sa.Table(
    "memory_organize_runs",
    reference_metadata,
    sa.Column("run_id", sa.Text, primary_key=True, nullable=True),
    sa.Column("trigger", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("created_at", sa.Integer, nullable=False),
    sa.Column("started_at", sa.Integer),
    sa.Column("finished_at", sa.Integer),
    sa.Column("due_at", sa.Integer),
    sa.Column("claimed_at", sa.Integer),
    sa.Column("model_json", sa.Text),
    sa.Column("scope", sa.Text, nullable=False, server_default="all"),
    sa.Column("mode", sa.Text, nullable=False, server_default="standard"),
    _counter("input_count"),
    _counter("cluster_count"),
    _counter("safe_applied"),
    _counter("review_skipped"),
    _counter("created_count"),
    _counter("updated_count"),
    _counter("deleted_count"),
    _counter("merged_count"),
    _counter("parse_failures"),
    sa.Column("error", sa.Text),
    sa.Column("final_summary", sa.Text),
    sa.Column("trimmed_protocol_json", sa.Text, nullable=False, server_default="{}"),
    # RUN_V4_COLUMNS
    sa.Column("phase", sa.Text),
    _counter("final_count"),
    sa.Column("compression_ratio", sa.REAL),
    sa.Column("compression_target", sa.Integer),
    _counter("dry_run"),
    _counter("token_usage_total"),
    sa.Column("quota_headroom_at_start", sa.Integer),
    _counter("override_reviewed"),
    # RUN_OWNER_COLUMNS
    sa.Column("owner_host", sa.Text),
    sa.Column("owner_pid", sa.Integer),
    sa.Column("owner_started", sa.Integer),
    sa.Column("lease_until", sa.Integer),
    sa.CheckConstraint("trigger IN ('manual', 'scheduled')"),
    sa.CheckConstraint(
        "status IN ('pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled')"
    ),
)
sa.Index("idx_memory_organize_runs_recent", memory_organize_runs.c.created_at.desc())
sa.Index(
    "idx_memory_organize_runs_status",
    memory_organize_runs.c.status,
    memory_organize_runs.c.created_at.asc(),
)

memory_schema_version = sa.Table(
    "memory_schema_version",
    reference_metadata,
    sa.Column("version", sa.Integer, primary_key=True, nullable=True),
    sa.Column("applied_at", sa.Integer, nullable=False),
)

MEMORY_FTS_DDL = """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        type, description, headline, body,
        tokenize = "unicode61 remove_diacritics 2"
    )
    """
MEMORY_FTS_TRI_DDL = """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts_tri USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        description, headline, body,
        tokenize = "trigram"
    )
    """

# The derived tables of the reference schema: a too-old or incomplete index drops them all.
REFERENCE_DERIVED_TABLES = (
    "memory_fts",
    "memory_fts_tri",
    "memory_meta",
    "memory_audit_log",
    "memory_schema_version",
)

# --- Our tables ---------------------------------------------------------------------------------

memory_files = sa.Table(
    "memory_files",
    ext_metadata,
    sa.Column("id", sa.Integer, primary_key=True, nullable=True),
    sa.Column("path", sa.Text, nullable=False, unique=True),
    sa.Column("mtime_ns", sa.Integer, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("sha256", sa.Text, nullable=False),
    sa.Column("scope", sa.Text),
    sa.Column("workdir_hash", sa.Text),
    sa.Column("slug", sa.Text),
    sa.Column("problem", sa.Text),
    # domain/text.py's estimate_tokens of the file's text: what loading it costs a prompt.
    sa.Column("tokens", sa.Integer, nullable=False, server_default=_ZERO),
    # st_ctime_ns when indexed (0: not known, e.g. written by us before its rename): utime
    # cannot set it back, so an edit whose old mtime a sync tool restored is still noticed.
    sa.Column("ctime_ns", sa.Integer, nullable=False, server_default=_ZERO),
)
sa.Index(
    "idx_memory_files_key",
    memory_files.c.scope,
    memory_files.c.workdir_hash,
    memory_files.c.slug,
    unique=True,
    sqlite_where=sa.text("problem IS NULL"),
)

# Scopes whose MEMORY.md may be stale: marked in the same transaction as the change, cleared
# once the file is rewritten, so a crash in between is repaired by reconcile.
memory_dirty_scopes = sa.Table(
    "memory_dirty_scopes",
    ext_metadata,
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("workdir_hash", sa.Text, nullable=False),
    sa.PrimaryKeyConstraint("scope", "workdir_hash"),
)

# Episodes (store/episodes.py): one row per JSON file under episodes/, like memory_files;
# episode_meta and episode_search use its id (meta's file_id, the FTS rowid).
episode_files = sa.Table(
    "episode_files",
    ext_metadata,
    sa.Column("id", sa.Integer, primary_key=True, nullable=True),
    sa.Column("path", sa.Text, nullable=False, unique=True),
    sa.Column("mtime_ns", sa.Integer, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("sha256", sa.Text, nullable=False),
    sa.Column("episode_id", sa.Text),
    sa.Column("problem", sa.Text),
    sa.Column("tokens", sa.Integer, nullable=False, server_default=_ZERO),  # as memory_files'
    sa.Column("ctime_ns", sa.Integer, nullable=False, server_default=_ZERO),  # as memory_files'
)
sa.Index(
    "idx_episode_files_id",
    episode_files.c.episode_id,
    unique=True,
    sqlite_where=sa.text("problem IS NULL"),
)

episode_meta = sa.Table(
    "episode_meta",
    ext_metadata,
    sa.Column("file_id", sa.Integer, primary_key=True, nullable=True),
    sa.Column("episode_id", sa.Text, nullable=False, unique=True),
    sa.Column("ts", sa.Integer, nullable=False),
    sa.Column("date", sa.Text, nullable=False),
    sa.Column("outcome", sa.Text, nullable=False),
    sa.Column("phase", sa.Text, nullable=False),
    sa.Column("task_type", sa.Text, nullable=False),
    sa.Column("workdir_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("importance", sa.REAL, nullable=False),
    sa.Column("action_count", sa.Integer, nullable=False),
    sa.Column("error_count", sa.Integer, nullable=False),
    sa.Column("data_json", sa.Text, nullable=False),
)
sa.Index("idx_episode_meta_ts", episode_meta.c.ts.desc())
sa.Index("idx_episode_meta_date", episode_meta.c.date, episode_meta.c.ts.desc())
sa.Index("idx_episode_meta_workdir", episode_meta.c.workdir_hash, episode_meta.c.ts.desc())

# Sync conflicts (store/conflicts.py): a conflict copy (recorded in memory_files as a problem,
# not indexed) or a file holding git conflict markers (indexed as its "ours" side), with the
# file it is a version of (itself for git markers) and the tool that made it.
memory_conflicts = sa.Table(
    "memory_conflicts",
    ext_metadata,
    sa.Column("path", sa.Text, primary_key=True),
    sa.Column("original", sa.Text, nullable=False),
    sa.Column("tool", sa.Text, nullable=False),
)

MEMORY_SEARCH_DDL = """
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_search USING fts5(
        keys, type, slug, description, headline, body, dcjk, bcjk,
        tokenize = "porter unicode61 remove_diacritics 2"
    )
    """
# Latin words through the Porter stemmer, CJK as bigrams in hcjk (goal, summary) and bcjk
# (the rest), as memory_search does (store/text.py).
EPISODE_SEARCH_DDL = """
    CREATE VIRTUAL TABLE IF NOT EXISTS episode_search USING fts5(
        goal, summary, actions, errors, decisions, hcjk, bcjk,
        tokenize = "porter unicode61 remove_diacritics 2"
    )
    """

EXT_TABLES = (
    "memory_search",
    "memory_files",
    "memory_dirty_scopes",
    "memory_conflicts",
    "episode_search",
    "episode_meta",
    "episode_files",
)
FTS_TABLES = ("memory_fts", "memory_fts_tri", "memory_search", "episode_search")

META_COLUMNS = tuple(column.name for column in memory_meta.columns)
FILE_COLUMNS = tuple(column.name for column in memory_files.columns)

# --- DDL, derived ---------------------------------------------------------------------------

_DIALECT = sqlite.dialect()


def _table_ddl(table: sa.Table) -> list[str]:
    """CREATE TABLE and CREATE INDEX statements for one table (IF NOT EXISTS: idempotent)."""
    statements = [str(CreateTable(table, if_not_exists=True).compile(dialect=_DIALECT))]
    for index in sorted(table.indexes, key=lambda i: str(i.name)):
        statements.append(str(CreateIndex(index, if_not_exists=True).compile(dialect=_DIALECT)))
    return statements


def column_ddl(table: sa.Table, name: str) -> str:
    """One column's declaration, as ALTER TABLE ... ADD COLUMN takes it."""
    return str(CreateColumn(table.c[name]).compile(dialect=_DIALECT))


@functools.cache
def reference_ddl() -> tuple[str, ...]:
    """LiveAgent's tables (REFERENCE A4), for CREATE ... IF NOT EXISTS on every open."""
    return (
        *_table_ddl(memory_meta),
        MEMORY_FTS_DDL,
        MEMORY_FTS_TRI_DDL,
        *_table_ddl(memory_audit_log),
        *_table_ddl(memory_organize_runs),
        *_table_ddl(memory_schema_version),
    )


@functools.cache
def meta_ddl() -> tuple[str, ...]:
    """memory_meta and its three indexes (a migration recreates them)."""
    return tuple(_table_ddl(memory_meta))


@functools.cache
def ext_ddl() -> tuple[str, ...]:
    """Our tables, for CREATE ... IF NOT EXISTS on every open."""
    return (
        *_table_ddl(memory_files),
        *_table_ddl(memory_conflicts),
        MEMORY_SEARCH_DDL,
        *_table_ddl(memory_dirty_scopes),
        *_table_ddl(episode_files),
        *_table_ddl(episode_meta),
        EPISODE_SEARCH_DDL,
    )

"""Creating and migrating the index schema (REFERENCE A4), as an ordered list of named steps.

On every open: LiveAgent's tables are created if missing (a too-old or incomplete index first
drops its derived tables, REFERENCE A4), then each migration in MIGRATIONS runs in its own
transaction (each is idempotent: it checks before it changes), then our own tables are created,
or dropped and rebuilt when their layout version (PRAGMA user_version) changed. The index is
derived from the files, so "rebuild from the files" is always a valid migration.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import IndexVersionUnsupported
from liveagent_memory.store.db import columns, table_names
from liveagent_memory.store.schema import (
    EXT_SCHEMA_VERSION,
    EXT_TABLES,
    META_COLUMNS,
    REFERENCE_DERIVED_TABLES,
    RUN_OWNER_COLUMNS,
    RUN_V4_COLUMNS,
    column_ddl,
    ext_ddl,
    memory_organize_runs,
    meta_ddl,
    reference_ddl,
)

log = logging.getLogger(__name__)


def newer_version(version: int, path: Path) -> IndexVersionUnsupported:
    """The error for an index written by a newer program (it is refused, never changed)."""
    return IndexVersionUnsupported(
        f"the memory index was written by a newer program (schema version {version}; this one "
        f"understands {config.SCHEMA_VERSION}). Update LiveAgent Memory, or move {path.name} "
        "away to rebuild it from the files."
    )


def init_schema(writer: Engine, *, path: Path, now_ms: int) -> tuple[int | None, bool]:
    """Create or migrate the schema. Returns (migrated-from version, derived tables rebuilt)."""
    with writer.begin() as conn:
        migrated_from, rebuilt = _create_reference_tables(conn, path=path, now_ms=now_ms)
    for name, migrate in MIGRATIONS:
        with writer.begin() as conn:
            log.debug("index migration %s", name)
            migrate(conn)
    with writer.begin() as conn:
        rebuilt = _create_ext_tables(conn, rebuilt=rebuilt)
    return migrated_from, rebuilt


def _create_reference_tables(
    conn: Connection, *, path: Path, now_ms: int
) -> tuple[int | None, bool]:
    """LiveAgent's tables: refuse a newer version, drop a too-old or incomplete one, create."""
    tables = table_names(conn)
    migrated_from: int | None = None
    rebuilt = False
    if "memory_meta" in tables:
        version = _schema_version(conn, tables)
        if version is not None and version > config.SCHEMA_VERSION:
            raise newer_version(version, path)
        if (
            version is None
            or version < config.SCHEMA_MIN_MIGRATABLE
            or _needs_rebuild(conn, tables)
        ):
            # REFERENCE A4: too old or missing columns -> drop the derived tables.
            for table in REFERENCE_DERIVED_TABLES:
                conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
            migrated_from, rebuilt = version, True
        elif version < config.SCHEMA_VERSION:
            migrated_from = version
    for ddl in reference_ddl():
        conn.exec_driver_sql(ddl)
    conn.execute(
        sa.text(
            "INSERT OR IGNORE INTO memory_schema_version (version, applied_at) VALUES (:v, :t)"
        ),
        {"v": config.SCHEMA_VERSION, "t": now_ms},
    )
    return migrated_from, rebuilt


def _create_ext_tables(conn: Connection, *, rebuilt: bool) -> bool:
    """Our tables: dropped with every derived row when their layout changed; True if so."""
    ext_version = conn.exec_driver_sql("PRAGMA user_version").scalar() or 0
    if ext_version != EXT_SCHEMA_VERSION or rebuilt:
        for table in EXT_TABLES:
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
        conn.exec_driver_sql("DELETE FROM memory_meta")
        conn.exec_driver_sql("DELETE FROM memory_fts")
        conn.exec_driver_sql("DELETE FROM memory_fts_tri")
        rebuilt = True
    for ddl in ext_ddl():
        conn.exec_driver_sql(ddl)
    if ext_version != EXT_SCHEMA_VERSION:
        # Only when it differs: setting it rewrites the header page, and an open that writes
        # nothing leaves the index stamp as it was (store/damage.py, issue 17).
        conn.exec_driver_sql(f"PRAGMA user_version = {EXT_SCHEMA_VERSION}")
    return rebuilt


def _schema_version(conn: Connection, tables: set[str]) -> int | None:
    if "memory_schema_version" not in tables:
        return None
    value = conn.exec_driver_sql("SELECT MAX(version) FROM memory_schema_version").scalar()
    return int(value) if value is not None else None


def _needs_rebuild(conn: Connection, tables: set[str]) -> bool:
    if not set(META_COLUMNS) <= columns(conn, "memory_meta"):
        return True
    if "memory_fts" in tables and "headline" not in columns(conn, "memory_fts"):
        return True
    return "memory_fts_tri" in tables and not {"description", "headline"} <= columns(
        conn, "memory_fts_tri"
    )


# --- the migrations -----------------------------------------------------------------------------


def _migrate_v3_to_v4_run_columns(conn: Connection) -> None:
    """REFERENCE A4: v3 -> v4 adds eight organizer-run columns; run history is kept."""
    _add_run_columns(conn, RUN_V4_COLUMNS)


def _migrate_run_owner_columns(conn: Connection) -> None:
    """Issue 12: run rows name their owner process and lease; extra columns, history kept."""
    _add_run_columns(conn, RUN_OWNER_COLUMNS)


def _add_run_columns(conn: Connection, names: tuple[str, ...]) -> None:
    existing = columns(conn, "memory_organize_runs")
    for name in names:
        if name not in existing:
            declaration = column_ddl(memory_organize_runs, name)
            conn.exec_driver_sql(f"ALTER TABLE memory_organize_runs ADD COLUMN {declaration}")


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
    for ddl in meta_ddl():
        conn.exec_driver_sql(ddl)  # the table and its three indexes
    conn.exec_driver_sql("PRAGMA user_version = 0")


def _migrate_drop_footprint_index(conn: Connection) -> None:
    """Briefly created by this version's development: without ANALYZE statistics SQLite chose
    it for every `scope = ?` lookup, scanning a scope's rows for one slug. Dropped where it
    exists."""
    conn.exec_driver_sql("DROP INDEX IF EXISTS idx_memory_meta_footprint")


# Ordered, named migrations; each runs in its own transaction and is idempotent.
MIGRATIONS: tuple[tuple[str, Callable[[Connection], None]], ...] = (
    ("v3_to_v4_organize_run_columns", _migrate_v3_to_v4_run_columns),
    ("memory_meta_admits_skill", _migrate_meta_admits_skill),
    ("organize_run_owner_columns", _migrate_run_owner_columns),
    ("drop_memory_meta_footprint_index", _migrate_drop_footprint_index),
)

"""The index schema written once (store/schema.py) and its migrations (store/migrations.py).

The CREATE statements are derived from the SQLAlchemy tables; these tests hold them to
LiveAgent's own DDL (REFERENCE A4, as tests/helpers/diskstore.py writes it) and check that a
migrated index ends up exactly like a fresh one.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from liveagent_memory.domain.requests import ListRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    INDEX_NAME,
    OLD_RUNS,
    RUN_OWNER_COLUMNS,
    create_reference_index,
    memory_text,
    query,
    write_file,
)
from tests.helpers.fakes import FakeClock

REFERENCE_TABLES = ("memory_meta", "memory_audit_log", "memory_schema_version")
PLAIN_TABLES = (
    *REFERENCE_TABLES,
    "memory_organize_runs",
    "memory_files",
    "memory_dirty_scopes",
    "episode_files",
    "episode_meta",
)


def layout(path: Path, table: str) -> list[tuple[object, ...]]:
    """Each column as (name, declared type, not null, default, primary key position)."""
    return [tuple(row[1:6]) for row in query(path, f"PRAGMA table_xinfo({table})")]


def indexes(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every index: its columns with their sort order, and whether it is unique or partial."""
    out: dict[str, list[tuple[object, ...]]] = {}
    for table in PLAIN_TABLES:
        for _, name, unique, _, partial in query(path, f"PRAGMA index_list({table})"):
            info = query(path, f"PRAGMA index_xinfo({name})")
            out[str(name)] = [(unique, partial), *[(r[2], r[3]) for r in info if r[5]]]
    return out


def fresh_index(tmp_path: Path, clock: FakeClock) -> Path:
    home = tmp_path / "fresh"
    MemoryStore.open(home, clock=clock).close()
    return home / INDEX_NAME


def test_reference_tables_match_liveagents_ddl_column_for_column(
    tmp_path: Path, clock: FakeClock
) -> None:
    liveagent = tmp_path / "liveagent" / INDEX_NAME
    create_reference_index(liveagent, version=4, v4_columns=True)
    ours = fresh_index(tmp_path, clock)

    for table in REFERENCE_TABLES:
        assert layout(ours, table) == layout(liveagent, table), table
    # memory_organize_runs: LiveAgent's v4 columns, then ours (issue 12) at the end.
    theirs = layout(liveagent, "memory_organize_runs")
    assert layout(ours, "memory_organize_runs")[: len(theirs)] == theirs
    assert [c[0] for c in layout(ours, "memory_organize_runs")[len(theirs) :]] == list(
        RUN_OWNER_COLUMNS
    )


@pytest.mark.parametrize("version", [3, 4])
def test_a_migrated_liveagent_index_ends_up_like_a_fresh_one(
    tmp_path: Path, clock: FakeClock, version: int
) -> None:
    home = tmp_path / "migrated"
    write_file(home, "global/api-docs.md", memory_text("api-docs"))
    create_reference_index(home / INDEX_NAME, version=version, v4_columns=version == 4)
    ours = fresh_index(tmp_path, clock)

    with MemoryStore.open(home, clock=clock) as store:
        assert [e.slug for e in store.list_entries(ListRequest()).entries] == ["api-docs"]
    migrated = home / INDEX_NAME

    for table in PLAIN_TABLES:
        assert layout(migrated, table) == layout(ours, table), table
    assert indexes(migrated) == indexes(ours)
    runs = query(migrated, "SELECT run_id FROM memory_organize_runs ORDER BY run_id")
    assert runs == [(run[0],) for run in OLD_RUNS]  # the run history is kept


def test_check_constraints_survive_the_derivation(tmp_path: Path, clock: FakeClock) -> None:
    conn = sqlite3.connect(fresh_index(tmp_path, clock))
    try:
        insert_run = (
            "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
            "VALUES ('r', ?, ?, 1)"
        )
        conn.execute(insert_run, ("manual", "pending"))  # the control
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert_run.replace("'r'", "'r2'"), ("cron", "pending"))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO memory_meta (scope, slug, type, body_hash, file_mtime, file_size, "
                "created_at, updated_at) VALUES ('global', 'x', 'skill2', '', 1, 1, 1, 1)"
            )
        conn.execute(
            "INSERT INTO memory_meta (scope, slug, type, body_hash, file_mtime, file_size, "
            "created_at, updated_at) VALUES ('global', 'x', 'skill', '', 1, 1, 1, 1)"
        )  # SPEC 1.2: our one difference from LiveAgent's CHECK
        assert conn.execute("SELECT slug, type FROM memory_meta").fetchall() == [("x", "skill")]
    finally:
        conn.rollback()
        conn.close()


def test_reopening_changes_no_schema_and_no_row(home: Path, clock: FakeClock) -> None:
    write_file(home, "global/api-docs.md", memory_text("api-docs"))
    MemoryStore.open(home, clock=clock).close()
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    before = query(home / INDEX_NAME, schema)
    rows = query(home / INDEX_NAME, "SELECT * FROM memory_meta")

    with MemoryStore.open(home, clock=clock) as store:
        assert not store.open_report.created  # nothing to rebuild: every migration is a no-op

    assert query(home / INDEX_NAME, schema) == before
    assert query(home / INDEX_NAME, "SELECT * FROM memory_meta") == rows

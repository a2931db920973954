"""The SQLite index: schema v4, pragmas, migrations, refusal, corruption and access errors.

SPEC 1.5 / REFERENCE A4: the index is a rebuildable cache of the files, laid out exactly like
LiveAgent's schema v4 so either program opens the other's store.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import (
    IndexUnavailable,
    IndexVersionUnsupported,
    StoreUnavailable,
)
from liveagent_memory.domain.requests import (
    DailyAppendRequest,
    DeleteRequest,
    ListRequest,
    ReadRequest,
    SearchRequest,
    WriteRequest,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    INDEX_NAME,
    OLD_RUNS,
    RUN_OWNER_COLUMNS,
    RUN_V4_COLUMNS,
    columns,
    create_reference_index,
    memory_files,
    memory_text,
    query,
    write_file,
)
from tests.helpers.fakes import FakeClock
from tests.helpers.unprivileged import Unprivileged

META_COLUMNS = [
    "scope",
    "workdir_hash",
    "slug",
    "type",
    "description",
    "headline",
    "date_local",
    "age_anchor",
    "append_count",
    "archived",
    "body_hash",
    "file_mtime",
    "file_size",
    "created_at",
    "updated_at",
    "source_json",
    "links_json",
]
RUN_V3_COLUMNS = [
    "run_id",
    "trigger",
    "status",
    "created_at",
    "started_at",
    "finished_at",
    "due_at",
    "claimed_at",
    "model_json",
    "scope",
    "mode",
    "input_count",
    "cluster_count",
    "safe_applied",
    "review_skipped",
    "created_count",
    "updated_count",
    "deleted_count",
    "merged_count",
    "parse_failures",
    "error",
    "final_summary",
    "trimmed_protocol_json",
]


def index_path(home: Path) -> Path:
    return home / INDEX_NAME


def write_note(store: MemoryStore, slug: str, body: str, *, type: str = "reference") -> None:
    store.write(
        WriteRequest(slug=slug, scope="global", type=type, description=f"About {slug}", body=body)
    )


def found_slugs(store: MemoryStore, query_text: str) -> list[str]:
    result = store.search(SearchRequest(query=query_text, limit=32))
    return [hit.slug for hit in result.matches]


def listed_slugs(store: MemoryStore) -> set[str]:
    entries = store.list_entries(ListRequest(limit=1000, include_daily=True)).entries
    return {entry.slug for entry in entries}


def runs(path: Path) -> list[tuple[object, ...]]:
    return query(
        path,
        "SELECT run_id, trigger, status, created_at, input_count, merged_count, final_summary "
        "FROM memory_organize_runs ORDER BY run_id",
    )


# --- schema v4 --------------------------------------------------------------------------------


def test_fresh_index_has_every_reference_table(store: MemoryStore) -> None:
    names = {row[0] for row in query(index_path(store.root), "SELECT name FROM sqlite_master")}

    assert {
        "memory_meta",
        "memory_fts",
        "memory_fts_tri",
        "memory_audit_log",
        "memory_organize_runs",
        "memory_schema_version",
    } <= names


def test_memory_meta_columns_and_primary_key(store: MemoryStore) -> None:
    info = query(index_path(store.root), "PRAGMA table_info(memory_meta)")

    assert [row[1] for row in info] == META_COLUMNS
    primary_key = sorted((row[5], row[1]) for row in info if row[5])
    assert [name for _, name in primary_key] == ["scope", "workdir_hash", "slug"]


def test_memory_meta_indexes_match_reference(store: MemoryStore) -> None:
    rows = query(
        index_path(store.root),
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memory_meta' "
        "AND sql IS NOT NULL",
    )
    sql = " ".join(" ".join(str(row[1]).split()) for row in rows)

    assert "(scope, workdir_hash, updated_at DESC)" in sql
    assert "(scope, workdir_hash, type, updated_at DESC)" in sql
    assert "(type, archived, date_local DESC) WHERE type = 'daily'" in sql


def _meta_row(**overrides: object) -> dict[str, object]:
    row: dict[str, object] = {
        "scope": "global",
        "workdir_hash": "",
        "slug": "daily-2026-11-30",
        "type": "daily",
        "date_local": "2026-11-30",
        "age_anchor": 1_796_000_000,
        "archived": 0,
        "body_hash": "0" * 64,
        "file_mtime": 1,
        "file_size": 1,
        "created_at": 1,
        "updated_at": 1,
    }
    row.update(overrides)
    return row


def _insert_meta(path: Path, row: dict[str, object]) -> None:
    """Insert one memory_meta row in a transaction that is always rolled back."""
    conn = sqlite3.connect(path)
    try:
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT INTO memory_meta ({names}) VALUES ({marks})", tuple(row.values()))
    finally:
        conn.rollback()
        conn.close()


def test_memory_meta_accepts_a_complete_daily_row(store: MemoryStore) -> None:
    _insert_meta(index_path(store.root), _meta_row())  # the control for the cases below


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"date_local": None}, id="daily-without-date_local"),
        pytest.param({"age_anchor": None}, id="daily-without-age_anchor"),
        pytest.param({"scope": "project", "workdir_hash": "0123456789abcdef"}, id="daily-project"),
        pytest.param({"type": "journal"}, id="unknown-type"),
        pytest.param({"scope": "team"}, id="unknown-scope"),
        pytest.param({"archived": 2}, id="archived-not-boolean"),
        pytest.param({"body_hash": None}, id="body_hash-missing"),
    ],
)
def test_memory_meta_check_constraints_refuse_bad_rows(
    store: MemoryStore, overrides: dict[str, object]
) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        _insert_meta(index_path(store.root), _meta_row(**overrides))


def test_memory_meta_key_is_unique_per_scope_and_project(store: MemoryStore) -> None:
    write_note(store, "unique-note", "first")
    row = _meta_row(slug="unique-note", type="reference", date_local=None, age_anchor=None)

    with pytest.raises(sqlite3.IntegrityError):
        _insert_meta(index_path(store.root), row)
    _insert_meta(index_path(store.root), {**row, "scope": "project", "workdir_hash": "a" * 16})


def test_fts_tables_use_the_reference_tokenizers(store: MemoryStore) -> None:
    path = index_path(store.root)
    sql = {
        str(row[0]): " ".join(str(row[1]).split())
        for row in query(path, "SELECT name, sql FROM sqlite_master WHERE name LIKE 'memory_fts%'")
    }

    assert 'tokenize = "unicode61 remove_diacritics 2"' in sql["memory_fts"]
    assert 'tokenize = "trigram"' in sql["memory_fts_tri"]
    assert "slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED" in sql["memory_fts"]
    assert "slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED" in sql["memory_fts_tri"]
    assert columns(path, "memory_fts") == [
        "slug",
        "scope",
        "workdir_hash",
        "type",
        "description",
        "headline",
        "body",
    ]
    assert columns(path, "memory_fts_tri") == [
        "slug",
        "scope",
        "workdir_hash",
        "description",
        "headline",
        "body",
    ]


def test_fts_tokenizers_behave_as_declared(store: MemoryStore) -> None:
    write_note(store, "cafe-order", "Order a café crème at the corner")
    write_note(store, "memory-design", "我们讨论了长期记忆存储的设计")
    path = index_path(store.root)

    folded = query(path, "SELECT slug FROM memory_fts WHERE memory_fts MATCH 'cafe creme'")
    substring = query(path, "SELECT slug FROM memory_fts_tri WHERE memory_fts_tri MATCH '记忆存'")
    whole_word_only = query(path, "SELECT slug FROM memory_fts WHERE memory_fts MATCH '记忆存'")

    assert folded == [("cafe-order",)]  # remove_diacritics 2: café matches cafe
    assert substring == [("memory-design",)]  # trigram: any 3-character substring
    assert whole_word_only == []  # unicode61 keeps the CJK run as one token


def test_audit_log_columns_and_checks(store: MemoryStore) -> None:
    path = index_path(store.root)
    write_note(store, "audited-note", "something to log")

    assert columns(path, "memory_audit_log") == [
        "id",
        "ts",
        "op",
        "scope",
        "workdir_hash",
        "slug",
        "actor",
        "conversation_id",
        "trigger",
        "model",
        "detail_json",
    ]
    assert query(path, "SELECT op, actor, slug FROM memory_audit_log") == [
        ("write", "tool", "audited-note")
    ]
    conn = sqlite3.connect(path)
    try:
        insert = (
            "INSERT INTO memory_audit_log (ts, op, scope, slug, actor) VALUES (1, ?, 'global', "
            "'x', ?)"
        )
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("rename", "user"))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("write", "robot"))
        conn.execute(insert, ("wipe", "reconcile"))  # both in the reference's lists
    finally:
        conn.rollback()
        conn.close()


def test_organize_runs_table_has_every_v4_column_with_defaults(store: MemoryStore) -> None:
    path = index_path(store.root)

    assert columns(path, "memory_organize_runs") == [
        *RUN_V3_COLUMNS,
        *RUN_V4_COLUMNS,
        *RUN_OWNER_COLUMNS,
    ]
    conn = sqlite3.connect(path)
    try:
        conn.execute(
            "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
            "VALUES ('r1', 'manual', 'pending', 5)"
        )
        row = conn.execute(
            "SELECT scope, mode, trimmed_protocol_json, phase, final_count, dry_run, "
            "token_usage_total, override_reviewed, compression_ratio FROM memory_organize_runs"
        ).fetchone()
        assert row == ("all", "standard", "{}", None, 0, 0, 0, 0, None)
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
                "VALUES ('r2', 'manual', 'exploded', 5)"
            )
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
                "VALUES ('r3', 'cron', 'pending', 5)"
            )
    finally:
        conn.rollback()
        conn.close()


def test_schema_version_is_4(store: MemoryStore) -> None:
    path = index_path(store.root)

    assert query(path, "SELECT MAX(version) FROM memory_schema_version") == [(4,)]
    assert store.open_report.migrated_from is None


def test_wal_mode_and_connection_pragmas(store: MemoryStore) -> None:
    assert query(index_path(store.root), "PRAGMA journal_mode") == [("wal",)]
    with store.index.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def _hold_write_lock(path: Path, seconds: float) -> threading.Thread:
    """Hold the index's SQLite write lock from another connection for `seconds`."""
    ready = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            ready.set()
            time.sleep(seconds)
            conn.execute("COMMIT")
        finally:
            conn.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert ready.wait(10)
    return thread


def test_writer_waits_for_a_foreign_lock_instead_of_failing(store: MemoryStore) -> None:
    holder = _hold_write_lock(index_path(store.root), 0.6)
    started = time.monotonic()

    write_note(store, "patient-writer", "written after the other program let go")

    assert time.monotonic() - started >= 0.4  # it waited (busy_timeout), it did not fail
    holder.join()
    assert found_slugs(store, "patient") == ["patient-writer"]


@pytest.mark.slow
def test_index_locked_too_long_is_a_clear_error_and_writes_nothing(store: MemoryStore) -> None:
    holder = _hold_write_lock(index_path(store.root), 6.5)
    try:
        with pytest.raises(IndexUnavailable) as caught:
            write_note(store, "blocked-writer", "never written")
        assert caught.value.code == "index_unavailable"
        assert "locked" in caught.value.message
        # SPEC 7: nothing half-written -- no file the index does not know about.
        assert not (store.root / "global" / "blocked-writer.md").exists()
    finally:
        holder.join()
    write_note(store, "blocked-writer", "written once the lock is gone")
    assert "blocked-writer" in listed_slugs(store)


# --- migrations -------------------------------------------------------------------------------


def test_v3_index_is_migrated_in_place_keeping_run_history(home: Path, clock: FakeClock) -> None:
    path = index_path(home)
    create_reference_index(path, version=3)
    write_file(home, "global/hand-note.md", memory_text("hand-note", body="kiwi orchard"))
    old_runs = runs(path)

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.migrated_from == 3
        assert found_slugs(store, "kiwi") == ["hand-note"]

    assert runs(path) == old_runs == [tuple(run) for run in OLD_RUNS]
    assert columns(path, "memory_organize_runs") == [
        *RUN_V3_COLUMNS,
        *RUN_V4_COLUMNS,
        *RUN_OWNER_COLUMNS,
    ]
    new_values = query(
        path,
        "SELECT phase, final_count, compression_ratio, compression_target, dry_run, "
        "token_usage_total, quota_headroom_at_start, override_reviewed FROM memory_organize_runs",
    )
    assert new_values == [(None, 0, None, None, 0, 0, None, 0)] * 2
    assert query(path, "SELECT version FROM memory_schema_version ORDER BY version") == [
        (3,),
        (4,),
    ]
    # An in-place migration keeps the audit log (the person's recent rejections).
    assert query(path, "SELECT slug FROM memory_audit_log WHERE op = 'delete'") == [
        ("old-rejected",)
    ]


def test_migrated_index_accepts_new_runs_and_reopens_unchanged(
    home: Path, clock: FakeClock
) -> None:
    path = index_path(home)
    create_reference_index(path, version=3)
    MemoryStore.open(home, clock=clock).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at, phase, dry_run) "
        "VALUES ('run-new', 'manual', 'running', 1, 'plan', 1)"
    )
    conn.commit()
    conn.close()

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.migrated_from is None  # already v4: nothing to migrate

    new_run = "SELECT phase, dry_run FROM memory_organize_runs WHERE run_id = 'run-new'"
    assert query(path, new_run) == [("plan", 1)]
    assert len(runs(path)) == 3


@pytest.mark.parametrize(
    ("version", "dropped"),
    [
        pytest.param(2, None, id="version-2"),
        pytest.param(3, "headline", id="v3-missing-meta-column"),
    ],
)
def test_old_or_incomplete_index_is_rebuilt_keeping_runs(
    home: Path, clock: FakeClock, version: int, dropped: str | None
) -> None:
    path = index_path(home)
    create_reference_index(path, version=version, drop_meta_column=dropped)
    write_file(home, "global/hand-note.md", memory_text("hand-note", body="papaya grove"))
    write_file(home, "global/user/likes-tea.md", memory_text("likes-tea", type="user"))

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.created  # derived tables rebuilt -> full reconcile
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
        assert found_slugs(store, "papaya") == ["hand-note"]
        assert listed_slugs(store) == {"hand-note", "likes-tea"}

    assert columns(path, "memory_meta") == META_COLUMNS
    assert runs(path) == [tuple(run) for run in OLD_RUNS]
    assert set(RUN_V4_COLUMNS) <= set(columns(path, "memory_organize_runs"))
    assert query(path, "SELECT MAX(version) FROM memory_schema_version") == [(4,)]


def test_index_written_only_by_liveagent_triggers_a_full_rebuild(
    home: Path, clock: FakeClock
) -> None:
    path = index_path(home)
    create_reference_index(path, version=4, v4_columns=True)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO memory_meta (scope, workdir_hash, slug, type, body_hash, file_mtime, "
        "file_size, created_at, updated_at) VALUES ('global', '', 'ghost-memory', 'reference', "
        "'x', 1, 1, 1, 1)"
    )
    conn.execute(
        "INSERT INTO memory_fts (slug, scope, workdir_hash, type, description, headline, body) "
        "VALUES ('ghost-memory', 'global', '', 'reference', 'ghost', '', 'phantom text')"
    )
    conn.commit()
    conn.close()
    assert query(path, "PRAGMA user_version") == [(0,)]
    write_file(home, "global/real-note.md", memory_text("real-note", body="mango season"))

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.created
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
        assert listed_slugs(store) == {"real-note"}  # the stale row is gone
        assert found_slugs(store, "phantom") == []
        assert found_slugs(store, "mango") == ["real-note"]

    assert query(path, "SELECT slug FROM memory_fts") == [("real-note",)]
    assert runs(path) == [tuple(run) for run in OLD_RUNS]
    assert query(path, "SELECT COUNT(*) FROM memory_audit_log WHERE slug='old-rejected'") == [(1,)]


def _reindex_like_liveagent(path: Path) -> None:
    """Do what LiveAgent's open does to the shared tables: delete every row and re-insert
    them in its own order, so FTS rowids are LiveAgent's, not ours (REFERENCE A1)."""
    conn = sqlite3.connect(path)
    try:
        meta = conn.execute("SELECT * FROM memory_meta").fetchall()
        fts = conn.execute(
            "SELECT slug, scope, workdir_hash, type, description, headline, body FROM memory_fts"
        ).fetchall()
        tri = conn.execute(
            "SELECT slug, scope, workdir_hash, description, headline, body FROM memory_fts_tri"
        ).fetchall()
        for table in ("memory_meta", "memory_fts", "memory_fts_tri"):
            conn.execute(f"DELETE FROM {table}")
        for row in reversed(meta):
            conn.execute(f"INSERT INTO memory_meta VALUES ({', '.join('?' * len(row))})", row)
        for row in reversed(fts):
            conn.execute(
                "INSERT INTO memory_fts (slug, scope, workdir_hash, type, description, headline, "
                "body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        for row in reversed(tri):
            conn.execute(
                "INSERT INTO memory_fts_tri (slug, scope, workdir_hash, description, headline, "
                "body) VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
        conn.commit()
    finally:
        conn.close()


def test_index_reindexed_by_liveagent_is_rebuilt_on_open(home: Path, clock: FakeClock) -> None:
    """Same files, same row counts, but LiveAgent's rowids: our rowid joins would pair a hit
    with another memory's body, so the open must notice and rebuild."""
    with MemoryStore.open(home, clock=clock) as store:
        write_note(store, "alpha-note", "aardvarks live here")
        write_note(store, "beta-note", "buffalo roam")
        write_note(store, "gamma-note", "giraffes are tall")
    _reindex_like_liveagent(index_path(home))

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
        for word, slug in (("aardvarks", "alpha-note"), ("giraffes", "gamma-note")):
            hits = store.search(SearchRequest(query=word)).matches
            assert [(hit.slug, word in hit.snippet) for hit in hits] == [(slug, True)]
        substring = store.search(SearchRequest(query="uffal")).matches  # trigram fallback
        assert [hit.slug for hit in substring] == ["beta-note"]


# --- a newer schema is refused ------------------------------------------------------------------


def _snapshot_folder(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_newer_schema_version_is_refused_and_left_untouched(
    home: Path, clock: FakeClock, journal: str
) -> None:
    path = index_path(home)
    create_reference_index(path, version=5, v4_columns=True)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.close()
    write_file(home, "global/kept-note.md", memory_text("kept-note"))
    before = _snapshot_folder(home)

    with pytest.raises(IndexVersionUnsupported) as caught:
        MemoryStore.open(home, clock=clock)

    assert caught.value.code == "index_version_unsupported"
    assert "5" in caught.value.message and "4" in caught.value.message
    after = _snapshot_folder(home)
    assert after[INDEX_NAME] == before[INDEX_NAME]  # same bytes, same mtime
    assert after["global/kept-note.md"] == before["global/kept-note.md"]
    assert not (home / f"{INDEX_NAME}-wal").exists()
    assert not (home / ".quarantine").exists() or not any((home / ".quarantine").iterdir())
    assert query(path, "SELECT MAX(version) FROM memory_schema_version") == [(5,)]


def test_refused_store_opens_once_the_newer_index_is_moved_away(
    home: Path, clock: FakeClock
) -> None:
    path = index_path(home)
    create_reference_index(path, version=7, v4_columns=True)
    write_file(home, "global/kept-note.md", memory_text("kept-note", body="lychee"))
    with pytest.raises(IndexVersionUnsupported):
        MemoryStore.open(home, clock=clock)

    path.rename(home / "newer-index.sqlite3")
    with MemoryStore.open(home, clock=clock) as store:
        assert found_slugs(store, "lychee") == ["kept-note"]


# --- corruption -------------------------------------------------------------------------------


def _store_with_notes(home: Path, clock: FakeClock, count: int = 30) -> dict[str, bytes]:
    with MemoryStore.open(home, clock=clock) as store:
        for i in range(count):
            write_note(store, f"note-{i:03d}", f"Body of note {i} with marker zz{i}qq")
        write_note(store, "tea-habit", "drinks oolong every morning", type="user")
        store.append_daily(DailyAppendRequest(body="journal line about apricots"))
    return memory_files(home)


def _corrupt_random(data: bytes) -> bytes:
    return os.urandom(len(data))


def _corrupt_truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _corrupt_header_only(data: bytes) -> bytes:
    return data[:4096]


@pytest.mark.parametrize(
    "corrupt",
    [_corrupt_random, _corrupt_truncated, _corrupt_header_only],
    ids=["random-bytes", "truncated-half", "first-page-only"],
)
def test_corrupt_index_is_quarantined_and_rebuilt_from_files(
    home: Path, clock: FakeClock, corrupt: Callable[[bytes], bytes]
) -> None:
    files_before = _store_with_notes(home, clock)
    path = index_path(home)
    assert not (home / f"{INDEX_NAME}-wal").exists()  # a clean close checkpointed it
    bad = corrupt(path.read_bytes())
    path.write_bytes(bad)

    with MemoryStore.open(home, clock=clock) as store:
        quarantine = home / ".quarantine" / f"corrupt-{clock.ms}"
        assert store.open_report.quarantined == str(quarantine)
        assert (quarantine / INDEX_NAME).read_bytes() == bad  # kept for inspection
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
        assert store.last_reconcile.problems == []
        for i in range(30):
            assert found_slugs(store, f"zz{i}qq") == [f"note-{i:03d}"]
        assert found_slugs(store, "oolong") == ["tea-habit"]
        assert found_slugs(store, "apricots") == [f"daily-{store.today().isoformat()}"]
        assert len(listed_slugs(store)) == 32

    assert memory_files(home) == files_before  # nothing in the files lost or changed
    assert query(path, "PRAGMA quick_check") == [("ok",)]


def test_corrupt_index_with_stale_wal_files_is_rebuilt_cleanly(
    home: Path, clock: FakeClock
) -> None:
    _store_with_notes(home, clock, count=3)
    path = index_path(home)
    path.write_bytes(b"this is not a database at all" * 100)
    (home / f"{INDEX_NAME}-wal").write_bytes(b"stale wal")
    (home / f"{INDEX_NAME}-shm").write_bytes(b"stale shm")

    with MemoryStore.open(home, clock=clock) as store:
        assert found_slugs(store, "zz2qq") == ["note-002"]
        assert len(listed_slugs(store)) == 5

    quarantine = home / ".quarantine" / f"corrupt-{clock.ms}"
    assert (quarantine / INDEX_NAME).read_bytes() == b"this is not a database at all" * 100
    assert query(path, "PRAGMA quick_check") == [("ok",)]
    for suffix in ("-wal", "-shm"):
        stale = home / f"{INDEX_NAME}{suffix}"
        assert not stale.exists() or stale.read_bytes() not in (b"stale wal", b"stale shm")


def test_empty_index_file_is_simply_recreated(home: Path, clock: FakeClock) -> None:
    write_file(home, "global/plain-note.md", memory_text("plain-note", body="quince jelly"))
    index_path(home).write_bytes(b"")

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.quarantined is None
        assert found_slugs(store, "quince") == ["plain-note"]


# --- access: permissions and unusable paths ------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_store_folders_are_private_and_files_owner_only(
    home: Path, clock: FakeClock, workdir: str
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_note(store, "private-note", "secret-ish")
        write_note(store, "likes-tabs", "tabs", type="user")
        store.write(
            WriteRequest(
                slug="build-steps",
                scope="project",
                workdir=workdir,
                type="project",
                description="How to build",
                body="make all",
            )
        )
        store.append_daily(DailyAppendRequest(body="an entry", local_date="2026-06-01"))
        store.append_daily(DailyAppendRequest(body="an entry for today"))
        store.delete(DeleteRequest(slug="private-note", scope="global", reason="test"))
        store.reconcile()  # archives the June journal into global/daily/.archive/2026/
        folders = [p for p in home.rglob("*") if p.is_dir()]
        files = [p for p in home.rglob("*") if p.is_file()]

        assert (home / "global/daily/.archive/2026/2026-06-01.md").exists()
        assert any(p.parent.name == ".trash" for p in files)
        assert (home / f"{INDEX_NAME}-wal").exists()
        assert {p.relative_to(home).as_posix(): _mode(p) for p in [home, *folders]} == {
            p.relative_to(home).as_posix(): 0o700 for p in [home, *folders]
        }
        assert {p.relative_to(home).as_posix(): _mode(p) for p in files} == {
            p.relative_to(home).as_posix(): 0o600 for p in files
        }


def test_store_path_that_is_a_file_is_a_typed_error(tmp_path: Path, clock: FakeClock) -> None:
    not_a_folder = tmp_path / "memory"
    not_a_folder.write_text("I am a file")

    with pytest.raises(StoreUnavailable) as caught:
        MemoryStore.open(not_a_folder, clock=clock)

    assert caught.value.code == "store_unavailable"
    assert str(not_a_folder) in caught.value.message
    assert not_a_folder.read_text() == "I am a file"


def test_store_below_a_file_is_a_typed_error(tmp_path: Path, clock: FakeClock) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")

    with pytest.raises(StoreUnavailable) as caught:
        MemoryStore.open(blocker / "memory", clock=clock)

    assert "not a folder" in caught.value.message


def test_index_path_that_is_a_folder_is_a_typed_error(home: Path, clock: FakeClock) -> None:
    (home / INDEX_NAME).mkdir(parents=True)
    (home / INDEX_NAME / "keep.txt").write_text("someone's folder")

    with pytest.raises(IndexUnavailable) as caught:
        MemoryStore.open(home, clock=clock)

    assert caught.value.code == "index_unavailable"
    assert (home / INDEX_NAME / "keep.txt").read_text() == "someone's folder"


def test_read_only_store_folder_is_a_typed_error(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    home = unprivileged.folder / "memory"

    def write_into_a_read_only_folder() -> set[str]:
        with MemoryStore.open(home, clock=clock) as store:
            write_note(store, "already-there", "written before the folder was locked")
            (home / "global").chmod(0o500)  # after opening: open() makes its folders 0700 again
            try:
                with pytest.raises(StoreUnavailable) as caught:
                    write_note(store, "cannot-land", "the folder is read-only")
                assert caught.value.code == "store_unavailable"
                assert "permission denied" in caught.value.message
            finally:
                (home / "global").chmod(0o700)
            return listed_slugs(store)

    assert unprivileged.run(write_into_a_read_only_folder) == {"already-there"}
    assert set(memory_files(home)) == {"global/already-there.md"}
    assert not list((home / "global").glob(".tmp-*"))  # no half-written temp file either


def test_store_in_a_read_only_location_is_a_typed_error(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    locked = unprivileged.folder / "locked"

    def open_below_a_read_only_folder() -> None:
        locked.mkdir(mode=0o500)
        try:
            MemoryStore.open(locked / "memory", clock=clock)
        finally:
            locked.chmod(0o700)

    with pytest.raises(StoreUnavailable) as caught:
        unprivileged.run(open_below_a_read_only_folder)

    assert caught.value.code == "store_unavailable"
    assert list(locked.iterdir()) == []


def test_unreadable_index_is_a_typed_error_and_not_quarantined(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    home = unprivileged.folder / "memory"

    def open_with_an_unreadable_index() -> set[str]:
        with MemoryStore.open(home, clock=clock) as store:
            write_note(store, "kept-note", "survives an unreadable index")
        index_path(home).chmod(0o000)
        try:
            with pytest.raises(IndexUnavailable) as caught:
                MemoryStore.open(home, clock=clock)
            assert caught.value.code == "index_unavailable"
        finally:
            index_path(home).chmod(0o600)
        with MemoryStore.open(home, clock=clock) as store:  # readable again: nothing was lost
            return listed_slugs(store)

    assert unprivileged.run(open_with_an_unreadable_index) == {"kept-note"}
    assert not list((home / ".quarantine").iterdir())


def test_reads_and_writes_survive_reopening(home: Path, clock: FakeClock) -> None:
    """The index is durable across processes' lifetimes (WAL checkpointed on close)."""
    with MemoryStore.open(home, clock=clock) as store:
        write_note(store, "durable-note", "persimmon")
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and not store.last_reconcile.full_rebuild
        assert store.read(ReadRequest(slug="durable-note")).content == "persimmon"

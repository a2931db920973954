"""A cold reconcile (index deleted) builds exactly the index the store's own writes built
(issue 17: a full pass indexes RECONCILE_FULL_CHUNK files per transaction)."""

from __future__ import annotations

from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import BatchItem, BatchRequest, DailyAppendRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import INDEX_NAME, columns, query, write_file
from tests.helpers.fakes import FakeClock

TABLES = ("memory_fts", "memory_fts_tri", "memory_search")


def _items() -> list[BatchItem]:
    """English, Chinese and mixed memories, evidence blocks, user and project ones."""
    items = []
    for i in range(40):
        body = [
            f"We bought {i} servers and found the deploy slow; the team was happy.",
            f"部署第{i}台服务器的时候我们发现数据库很慢，需要优化索引。",
            f"Mixed 中文 and English note {i}: 缓存 cache warmed before the release.",
        ][i % 3]
        if i % 5 == 0:
            body += f'\n\n<!-- evidence\nconfidence: medium\nsource_quote: "note {i}"\n-->'
        items.append(
            BatchItem(
                op="upsert",
                slug=f"note-{i:02d}",
                scope="project" if i % 4 == 0 else "global",
                type=("user", "project", "reference", "feedback")[i % 4],
                description=f"Note {i} 说明",
                body=body,
            )
        )
    return items


def _index_rows(home: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every derived table's rows, by file path instead of the file ids a rebuild renumbers."""
    db = home / INDEX_NAME
    rows = {
        "memory_files": query(
            db,
            "SELECT path, mtime_ns, size, sha256, scope, workdir_hash, slug, tokens, problem "
            "FROM memory_files ORDER BY path",
        ),
        "memory_meta": query(db, "SELECT * FROM memory_meta ORDER BY scope, workdir_hash, slug"),
    }
    for table in TABLES:
        names = ", ".join(f"t.{name}" for name in columns(db, table))
        rows[table] = query(
            db,
            f"SELECT f.path, {names} FROM {table} t JOIN memory_files f ON f.id = t.rowid "
            "ORDER BY f.path",
        )
    return rows


def _cold_open(home: Path, clock: FakeClock) -> dict[str, list[tuple[object, ...]]]:
    for suffix in ("", "-wal", "-shm"):
        (home / f"{INDEX_NAME}{suffix}").unlink(missing_ok=True)
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
        assert store.last_reconcile.added == 42 and not store.last_reconcile.problems
    return _index_rows(home)


def test_a_cold_reconcile_builds_the_rows_the_writes_built_in_any_chunk_size(
    home: Path, clock: FakeClock, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        result = store.apply_batch(BatchRequest(actor="user", items=_items(), workdir=str(workdir)))
        assert result.failed == 0
        store.append_daily(DailyAppendRequest(body="shipped the 部署 fix"))
    # A file another tool wrote, in a layout the fast front-matter reader leaves to YAML.
    write_file(
        home,
        "global/hand-note.md",
        "---\n# written by hand\nname: hand-note\ntype: reference\ndescription: 'by hand'\n"
        "---\nWritten by hand, not by the store.\n",
    )
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == 1
    written = _index_rows(home)
    assert len(written["memory_meta"]) == 42
    assert all(len(written[table]) == 42 for table in TABLES)

    assert _cold_open(home, clock) == written
    monkeypatch.setattr(config, "RECONCILE_FULL_CHUNK", 5)  # nine transactions
    assert _cold_open(home, clock) == written

"""The retrieval metrics file (store/metrics_db.py): a file written before it moved under
store/ still reads and counts on; one of another version starts again; failures are typed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store import metrics_db
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import remember

SINCE = "2026-01-02T03:04:05.000Z"


def write_old_metrics(path: Path, *, version: int = 1) -> None:
    """A metrics file as retrieval/metrics.py wrote it before issue 13 (raw sqlite3)."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.executemany(
        "INSERT INTO counters VALUES (?, ?)",
        [("contexts", 3), ("hits", 2), ("tokens_used", 300), ("search_keyword_only", 3)],
    )
    conn.execute("INSERT INTO meta VALUES ('since', ?)", (SINCE,))
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def ask(store: MemoryStore, query: str) -> dict[str, Any]:
    return dispatch(store, "memory_context", {"query": query, "providers": []})


def test_metrics_written_before_the_move_are_read_and_counted_on(store: MemoryStore) -> None:
    remember(store, "tea", description="The user drinks oolong tea")
    write_old_metrics(store.root / config.METRICS_FILENAME)

    before = dispatch(store, "memory_metrics", {})
    ask(store, "oolong tea")
    after = dispatch(store, "memory_metrics", {})

    assert before["since"] == SINCE and before["contexts"] == 3
    assert before["hit_rate"] == round(2 / 3, 4) and before["tokens"]["used"] == 300
    assert after["since"] == SINCE  # the first count's date stays
    assert after["contexts"] == 4 and after["fallbacks"]["keyword_only"] == 4
    # Version 1 had no days: the file was brought forward, its totals kept, today counted.
    assert sum(day["contexts"] for day in before["days"]) == 0
    assert after["days"][-1]["contexts"] == 1 and after["days"][-1]["day"] == str(store.today())


def test_metrics_of_another_version_read_as_none_and_start_again(store: MemoryStore) -> None:
    path = store.root / config.METRICS_FILENAME
    write_old_metrics(path, version=7)

    before = dispatch(store, "memory_metrics", {})
    ask(store, "anything at all")
    after = dispatch(store, "memory_metrics", {})

    assert before["contexts"] == 0 and before["since"] is None
    assert after["contexts"] == 1 and after["since"] is not None and after["since"] != SINCE


def test_counts_add_up_and_since_is_the_first(tmp_path: Path) -> None:
    path = tmp_path / config.METRICS_FILENAME
    metrics_db.add_counters(path, {"contexts": 1, "hits": 1}, now_ms=0)
    metrics_db.add_counters(path, {"contexts": 1}, now_ms=86_400_000)

    assert metrics_db.read_counters(path) == (
        {"contexts": 2, "hits": 1},
        "1970-01-01T00:00:00.000Z",
    )
    assert metrics_db.remove(path) is True
    assert metrics_db.read_counters(path) == ({}, None)
    assert metrics_db.remove(path) is False


def test_a_folder_where_the_file_should_be_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / config.METRICS_FILENAME
    path.mkdir()

    with pytest.raises(StoreUnavailable) as caught:
        metrics_db.add_counters(path, {"contexts": 1}, now_ms=0)

    assert caught.value.code == "store_unavailable"
    assert "retrieval metrics" in caught.value.message
    assert path.is_dir() and list(path.iterdir()) == []

"""The embedding cache file (store/vector_cache.py): vectors by provider, model and text hash,
least recently used evicted, counters; files written before it moved under store/ still read."""

from __future__ import annotations

import array
import os
import sqlite3
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store.vector_cache import EmbeddingCache
from tests.helpers.unprivileged import Unprivileged

# The cache's layout as retrieval/embeddings.py created it before issue 13 (user_version 1).
OLD_DDL = (
    "CREATE TABLE IF NOT EXISTS vectors (provider TEXT NOT NULL, model TEXT NOT NULL, "
    "text_hash TEXT NOT NULL, dimension INTEGER NOT NULL, vector BLOB NOT NULL, "
    "used INTEGER NOT NULL, PRIMARY KEY (provider, model, text_hash)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used)",
    "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
)


def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "vectors" / "cache.sqlite3"


def write_old_cache(path: Path) -> None:
    """A cache file as the code before issue 13 wrote it: raw sqlite3, float32 blobs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    for statement in OLD_DDL:
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO vectors VALUES (?, ?, ?, ?, ?, ?)",
        [
            ("openai", "m", "old-1", 2, array.array("f", [0.5, -0.25]).tobytes(), 7),
            ("openai", "m", "old-2", 2, array.array("f", [1.0, 0.0]).tobytes(), 3),
        ],
    )
    conn.execute("INSERT INTO counters VALUES ('fallbacks', 4)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_cache_round_trip_persists(tmp_path: Path) -> None:
    first = EmbeddingCache(cache_path(tmp_path))
    first.put_many("openai", "m", [("k1", [0.5, -0.25]), ("k2", [1.0, 0.0])])
    first.close()
    again = EmbeddingCache(cache_path(tmp_path))
    assert again.get_many("openai", "m", ["k1", "k2", "k3"]) == {
        "k1": [0.5, -0.25],
        "k2": [1.0, 0.0],
    }
    assert again.get_many("openai", "other-model", ["k1"]) == {}
    again.close()


def test_cache_evicts_the_least_recently_used_beyond_its_cap(tmp_path: Path) -> None:
    cache = EmbeddingCache(cache_path(tmp_path), max_entries=3)
    for key in ("a", "b", "c"):
        cache.put_many("p", "m", [(key, [1.0])])
    cache.get_many("p", "m", ["a"])  # a is now the most recently used
    cache.put_many("p", "m", [("d", [1.0])])
    assert len(cache) == 3
    assert set(cache.get_many("p", "m", ["a", "b", "c", "d"])) == {"a", "c", "d"}
    cache.close()


def test_cache_purge_keeps_only_the_current_dimension(tmp_path: Path) -> None:
    cache = EmbeddingCache(cache_path(tmp_path))
    cache.put_many("p", "m", [("old", [1.0, 0.0])])
    cache.put_many("p", "m", [("new", [1.0, 0.0, 0.0])])
    assert cache.purge("p", "m", keep_dimension=3) == 1
    assert set(cache.get_many("p", "m", ["old", "new"])) == {"new"}
    cache.close()


def test_a_corrupt_cache_file_is_started_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = cache_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    cache = EmbeddingCache(path)
    cache.put_many("p", "m", [("k", [1.0])])
    assert len(cache) == 1
    cache.close()
    assert "embedding cache" in caplog.text and "starting it again" in caplog.text


def test_counters_add_up_across_processes(tmp_path: Path) -> None:
    cache = EmbeddingCache(cache_path(tmp_path))
    cache.add_counters({"fallbacks": 2, "keyword_only": 0})
    cache.add_counters({"fallbacks": 1, "failures:openai/m": 1})
    assert cache.counters() == {"fallbacks": 3, "failures:openai/m": 1}
    cache.close()


def test_cache_file_is_plain_private_sqlite(tmp_path: Path) -> None:
    cache = EmbeddingCache(cache_path(tmp_path))
    cache.put_many("p", "m", [("k", [1.0, 2.0])])
    conn = sqlite3.connect(cache.path)
    rows = conn.execute("SELECT provider, dimension FROM vectors").fetchall()
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    cache.close()
    assert rows == [("p", 2)] and version == 1
    assert os.stat(cache.path).st_mode & 0o777 == 0o600
    assert os.stat(cache.path.parent).st_mode & 0o777 == 0o700


def test_a_cache_written_before_the_move_is_read_as_it_is(tmp_path: Path) -> None:
    path = cache_path(tmp_path)
    write_old_cache(path)

    cache = EmbeddingCache(path)
    found = cache.get_many("openai", "m", ["old-1", "old-2", "missing"])
    counters = cache.counters()
    cache.close()

    assert found == {"old-1": [0.5, -0.25], "old-2": [1.0, 0.0]}
    assert counters == {"fallbacks": 4}
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1  # kept, not laid out again
    conn.close()


def test_the_use_counter_goes_on_from_an_old_file(tmp_path: Path) -> None:
    path = cache_path(tmp_path)
    write_old_cache(path)  # old-1 was used at 7, old-2 at 3

    cache = EmbeddingCache(path, max_entries=2)
    cache.put_many("openai", "m", [("new", [0.0, 1.0])])  # used after 7, so old-2 goes
    kept = set(cache.get_many("openai", "m", ["old-1", "old-2", "new"]))
    cache.close()

    assert kept == {"old-1", "new"}


def test_a_cache_in_a_read_only_folder_is_a_typed_error(unprivileged: Unprivileged) -> None:
    folder = unprivileged.folder / "vectors"

    def open_in_a_read_only_folder() -> tuple[str, str]:
        folder.mkdir(mode=0o500)
        try:
            with pytest.raises(StoreUnavailable) as caught:
                EmbeddingCache(folder / "cache.sqlite3")
            return caught.value.code, caught.value.message
        finally:
            folder.chmod(0o700)

    code, message = unprivileged.run(open_in_a_read_only_folder)

    assert code == "store_unavailable" and "embedding cache" in message
    assert list(folder.iterdir()) == []


def test_a_cache_in_a_read_only_folder_opens_but_a_write_is_a_typed_error(
    unprivileged: Unprivileged,
) -> None:
    path = unprivileged.folder / "vectors" / "cache.sqlite3"

    def use_a_read_only_cache() -> tuple[dict[str, int], str]:
        first = EmbeddingCache(path)
        first.put_many("p", "m", [("k", [1.0])])
        first.add_counters({"fallbacks": 1})
        first.close()
        path.parent.chmod(0o500)
        try:
            cache = EmbeddingCache(path)  # the right version: opening writes nothing
            counters = cache.counters()
            with pytest.raises(StoreUnavailable) as caught:
                cache.put_many("p", "m", [("other", [2.0])])
            cache.close()
            return counters, caught.value.code
        finally:
            path.parent.chmod(0o700)

    counters, code = unprivileged.run(use_a_read_only_cache)

    assert counters == {"fallbacks": 1} and code == "store_unavailable"
    reopened = EmbeddingCache(path)
    assert reopened.get_many("p", "m", ["k", "other"]) == {"k": [1.0]}  # nothing lost
    reopened.close()


def test_an_in_memory_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cache = EmbeddingCache.in_memory()
    cache.put_many("p", "m", [("k", [1.0])])
    assert cache.get_many("p", "m", ["k"]) == {"k": [1.0]}
    cache.close()
    assert list(tmp_path.iterdir()) == []

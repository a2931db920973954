"""The embedding cache file: `(provider, model, text hash) -> vector`, least recently used
evicted beyond a cap (REFERENCE B8: 10,000 entries), plus the embedding chain's counters.

Lives in `<store>/vectors/cache.sqlite3`, opened as a versioned derived file
(store/derived.py): a file that is damaged or of another version is started again. Only the
SQL and the storage format are here: a vector is a BLOB of float32 values (`array('f')`, the
machine's byte order) with its dimension beside it. What is embedded, under which text hash,
and when the cache is asked is retrieval/embeddings.py's.
"""

from __future__ import annotations

import array
import contextlib
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.store.derived import (
    IN_MEMORY,
    DerivedSchema,
    derived_errors,
    open_derived,
)

SCHEMA = DerivedSchema(
    what="embedding cache",
    version=1,
    tables=("vectors", "counters"),
    ddl=(
        "CREATE TABLE IF NOT EXISTS vectors (provider TEXT NOT NULL, model TEXT NOT NULL, "
        "text_hash TEXT NOT NULL, dimension INTEGER NOT NULL, vector BLOB NOT NULL, "
        "used INTEGER NOT NULL, PRIMARY KEY (provider, model, text_hash)) WITHOUT ROWID",
        "CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used)",
        "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    ),
)
_CHUNK = 500  # keys per query: below SQLite's bound-parameter limit


def pack(vector: Sequence[float]) -> bytes:
    """A vector as the cache stores it: float32 values in the machine's byte order."""
    return array.array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    values = array.array("f")
    values.frombytes(blob)
    return values.tolist()


class EmbeddingCache:
    """Vectors by (provider, model, text hash) in one SQLite file, LRU beyond a size cap.

    One connection shared by the threads of a process under a lock. Failures of the file
    while in use are StoreUnavailable.
    """

    def __init__(
        self, path: Path, *, max_entries: int = config.EMBEDDING_CACHE_MAX_ENTRIES
    ) -> None:
        self.path = path
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._conn = open_derived(path, SCHEMA)
        with self._errors():
            row = self._conn.execute("SELECT MAX(used) FROM vectors").fetchone()
        self._tick = int(row[0] or 0)  # the latest use; each read or write takes the next

    @classmethod
    def in_memory(cls) -> EmbeddingCache:
        """An empty cache that lives only in this process and writes nothing to disk."""
        return cls(Path(IN_MEMORY))

    def _errors(self) -> contextlib.AbstractContextManager[None]:
        return derived_errors(self.path, SCHEMA.what)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __len__(self) -> int:
        with self._lock, self._errors():
            return int(self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def get_many(self, provider: str, model: str, keys: Sequence[str]) -> dict[str, list[float]]:
        """The cached vectors of `keys` (missing ones left out); marks them recently used."""
        if not keys:
            return {}
        found: dict[str, list[float]] = {}
        with self._lock, self._errors():
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    "SELECT text_hash, vector FROM vectors WHERE provider = ? AND model = ? "
                    f"AND text_hash IN ({marks})",
                    [provider, model, *chunk],
                ).fetchall()
                found.update((key, unpack(blob)) for key, blob in rows)
            if found:
                self._tick += 1
                self._conn.executemany(
                    "UPDATE vectors SET used = ? "
                    "WHERE provider = ? AND model = ? AND text_hash = ?",
                    [(self._tick, provider, model, key) for key in found],
                )
                self._conn.commit()
        return found

    def put_many(self, provider: str, model: str, items: Sequence[tuple[str, list[float]]]) -> None:
        """Store vectors, then evict the least recently used beyond the cap."""
        if not items:
            return
        with self._lock, self._errors():
            self._tick += 1
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors (provider, model, text_hash, dimension, vector, "
                "used) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (provider, model, key, len(vector), pack(vector), self._tick)
                    for key, vector in items
                ],
            )
            total = int(self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            if total > self.max_entries:
                self._conn.execute(
                    "DELETE FROM vectors WHERE (provider, model, text_hash) IN (SELECT provider, "
                    "model, text_hash FROM vectors ORDER BY used LIMIT ?)",
                    (total - self.max_entries,),
                )
            self._conn.commit()

    def purge(self, provider: str, model: str, *, keep_dimension: int | None = None) -> int:
        """Forget a model's vectors (all, or those of another size than `keep_dimension`)."""
        with self._lock, self._errors():
            if keep_dimension is None:
                cursor = self._conn.execute(
                    "DELETE FROM vectors WHERE provider = ? AND model = ?", (provider, model)
                )
            else:
                cursor = self._conn.execute(
                    "DELETE FROM vectors WHERE provider = ? AND model = ? AND dimension != ?",
                    (provider, model, keep_dimension),
                )
            self._conn.commit()
            return int(cursor.rowcount)

    def add_counters(self, counts: Mapping[str, int]) -> None:
        """Add to the persisted counters (fallbacks, failures...) shown by `embeddings status`."""
        items = [(name, value) for name, value in counts.items() if value]
        if not items:
            return
        with self._lock, self._errors():
            self._conn.executemany(
                "INSERT INTO counters (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                items,
            )
            self._conn.commit()

    def counters(self) -> dict[str, int]:
        with self._lock, self._errors():
            rows = self._conn.execute("SELECT name, value FROM counters ORDER BY name").fetchall()
        return {str(name): int(value) for name, value in rows}

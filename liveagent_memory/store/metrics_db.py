"""The retrieval metrics file: named counters that only go up, and since when they count.

Lives in `<store>/retrieval-metrics.sqlite3`, opened as a versioned derived file
(store/derived.py): telemetry, not memory, so a damaged file or one of another version starts
again at zero. Counts are added in one transaction per call, so processes that share the store
add up instead of overwriting each other. Only the SQL is here; what is counted, and what a
failure to count means, is retrieval/metrics.py's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.store.derived import (
    DerivedSchema,
    derived_errors,
    open_derived,
    open_derived_readonly,
    remove_derived,
)

SCHEMA = DerivedSchema(
    what="retrieval metrics",
    version=1,
    tables=("counters", "meta"),
    ddl=(
        "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
)
_LOCK = threading.Lock()  # one writer per process; SQLite serializes processes


def add_counters(path: Path, counts: Mapping[str, int], *, now_ms: int) -> None:
    """Add `counts` to the file's counters; the first time, note `now_ms` as `since`.

    Creates the file when there is none. Raises StoreUnavailable when it cannot be written.
    """
    with _LOCK:
        conn = open_derived(path, SCHEMA)
        try:
            with derived_errors(path, SCHEMA.what):
                conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('since', ?)",
                    (clockmod.format_rfc3339(now_ms),),
                )
                conn.executemany(
                    "INSERT INTO counters (name, value) VALUES (?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                    list(counts.items()),
                )
                conn.commit()
        finally:
            conn.close()


def read_counters(path: Path) -> tuple[dict[str, int], str | None]:
    """The counters and since when they count (RFC 3339); nothing when there is no file yet.

    Writes nothing. Raises StoreUnavailable when the file cannot be read.
    """
    conn = open_derived_readonly(path, SCHEMA)
    if conn is None:
        return {}, None
    try:
        with derived_errors(path, SCHEMA.what):
            rows = conn.execute("SELECT name, value FROM counters").fetchall()
            since = conn.execute("SELECT value FROM meta WHERE key = 'since'").fetchone()
    finally:
        conn.close()
    return {str(name): int(value) for name, value in rows}, (str(since[0]) if since else None)


def remove(path: Path) -> bool:
    """Delete the file (counting starts again); whether there was one."""
    existed = path.exists()
    remove_derived(path)
    return existed

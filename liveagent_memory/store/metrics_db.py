"""The retrieval metrics file: named counters that only go up, and since when they count; the
same counters per day (for charts over time); and the memories contexts showed, with how often
and when last (which patterns and skills are used).

Lives in `<store>/retrieval-metrics.sqlite3`, opened as a versioned derived file
(store/derived.py): telemetry, not memory, so a damaged file or one of another version starts
again at zero. Counts are added in one transaction per call, so processes that share the store
add up instead of overwriting each other. Only the SQL is here; what is counted, and what a
failure to count means, is retrieval/metrics.py's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.store.derived import (
    DerivedSchema,
    derived_errors,
    open_derived,
    open_derived_readonly,
    remove_derived,
)

_DAILY = (
    "CREATE TABLE IF NOT EXISTS daily (day TEXT NOT NULL, name TEXT NOT NULL, "
    "value INTEGER NOT NULL, PRIMARY KEY (day, name))"
)
_USES = (
    "CREATE TABLE IF NOT EXISTS uses (key TEXT PRIMARY KEY, kind TEXT NOT NULL, "
    "title TEXT NOT NULL, ref TEXT NOT NULL, count INTEGER NOT NULL, last_used TEXT NOT NULL)"
)
SCHEMA = DerivedSchema(
    what="retrieval metrics",
    version=2,
    tables=("counters", "meta", "daily", "uses"),
    ddl=(
        "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        _DAILY,
        _USES,
    ),
    upgrades={1: (_DAILY, _USES)},  # issue 18: per day and per memory; the totals are kept
)


@dataclass(frozen=True)
class Use:
    """A memory a context showed: its key, kind (semantic, skills, anti_patterns), title and
    how to read it (`ref`, JSON)."""

    key: str
    kind: str
    title: str
    ref: str


_LOCK = threading.Lock()  # one writer per process; SQLite serializes processes


def add_counters(
    path: Path,
    counts: Mapping[str, int],
    *,
    now_ms: int,
    day: str | None = None,
    uses: Sequence[Use] = (),
) -> None:
    """Add `counts` to the file's counters (and to `day`'s, an ISO date); count each of `uses`
    once, last used now; the first time, note `now_ms` as `since`.

    Creates the file when there is none. Raises StoreUnavailable when it cannot be written.
    """
    now = clockmod.format_rfc3339(now_ms)
    with _LOCK:
        conn = open_derived(path, SCHEMA)
        try:
            with derived_errors(path, SCHEMA.what):
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('since', ?)", (now,))
                conn.executemany(
                    "INSERT INTO counters (name, value) VALUES (?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                    list(counts.items()),
                )
                if day is not None:
                    conn.executemany(
                        "INSERT INTO daily (day, name, value) VALUES (?, ?, ?) "
                        "ON CONFLICT (day, name) DO UPDATE SET value = value + excluded.value",
                        [(day, name, value) for name, value in counts.items()],
                    )
                conn.executemany(
                    "INSERT INTO uses (key, kind, title, ref, count, last_used) "
                    "VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (key) DO UPDATE SET "
                    "count = count + 1, last_used = excluded.last_used, "
                    "title = excluded.title, kind = excluded.kind, ref = excluded.ref",
                    [(u.key, u.kind, u.title, u.ref, now) for u in uses],
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


def read_daily(path: Path, first_day: str) -> dict[str, dict[str, int]]:
    """Each day's counters from `first_day` on (ISO dates, oldest first); days without a
    context are absent. Writes nothing. Raises StoreUnavailable when the file cannot be read."""
    conn = open_derived_readonly(path, SCHEMA)
    if conn is None:
        return {}
    try:
        with derived_errors(path, SCHEMA.what):
            rows = conn.execute(
                "SELECT day, name, value FROM daily WHERE day >= ? ORDER BY day", (first_day,)
            ).fetchall()
    finally:
        conn.close()
    days: dict[str, dict[str, int]] = {}
    for day, name, value in rows:
        days.setdefault(str(day), {})[str(name)] = int(value)
    return days


def read_uses(path: Path, limit: int) -> list[dict[str, Any]]:
    """The memories contexts showed, most recently used first: key, kind, title, ref (JSON),
    count, last_used (RFC 3339). Raises StoreUnavailable when the file cannot be read."""
    conn = open_derived_readonly(path, SCHEMA)
    if conn is None:
        return []
    try:
        with derived_errors(path, SCHEMA.what):
            rows = conn.execute(
                "SELECT key, kind, title, ref, count, last_used FROM uses "
                "ORDER BY last_used DESC, count DESC, key LIMIT ?",
                (limit,),
            ).fetchall()
    finally:
        conn.close()
    names = ("key", "kind", "title", "ref", "count", "last_used")
    return [dict(zip(names, row, strict=True)) for row in rows]


def remove(path: Path) -> bool:
    """Delete the file (counting starts again); whether there was one."""
    existed = path.exists()
    remove_derived(path)
    return existed

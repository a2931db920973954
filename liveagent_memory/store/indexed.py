"""Memories as the index holds them, read without opening their files.

For a caller that needs a glance at many memories at once (the vector side of hybrid search:
the memories only their vectors found) and must not serve text that changed behind the
index's back. Each memory comes with `current`: its file still has the mtime and size the
index recorded (reconcile's own test of an unchanged file, store/reconcile.py), checked with
one `stat` and no read. A memory that is not current is for the caller to read from its file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from liveagent_memory.domain.schema import MemoryEntry
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.evidence import body_content
from liveagent_memory.store.resolve import ENTRY_COLUMNS, entry_from_row

Key = tuple[str, str, str]  # (scope, workdir_hash, slug)

# The index's text of each memory (memory_fts keeps the body as the file had it) and the file's
# stamp when it was indexed, beside the entry's columns. The keys come first as rows of a
# VALUES table and every join is a key lookup (CROSS JOIN keeps that order): 0.4 ms for 20
# keys at 10k memories, where `(scope, workdir_hash, slug) IN (VALUES ...)` let SQLite scan
# the FTS table first (15 ms).
_SELECT = (
    "WITH k(scope, workdir_hash, slug) AS (VALUES {values}) "
    f"SELECT {ENTRY_COLUMNS}, f.mtime_ns, f.size, t.body FROM k "
    "CROSS JOIN memory_meta m ON m.scope = k.scope AND m.workdir_hash = k.workdir_hash "
    "AND m.slug = k.slug "
    "CROSS JOIN memory_files f ON f.scope = m.scope AND f.workdir_hash = m.workdir_hash "
    "AND f.slug = m.slug AND f.problem IS NULL "
    "CROSS JOIN memory_fts t ON t.rowid = f.id"
)


@dataclass(frozen=True)
class IndexedMemory:
    """One memory from the index: its entry, its content (the body without the evidence block)
    and whether its file is still the one indexed."""

    entry: MemoryEntry
    content: str
    current: bool


def indexed_memories(ctx: StoreContext, keys: Sequence[Key]) -> dict[Key, IndexedMemory]:
    """The indexed memories of `keys` (a key the index does not hold is absent), in one query."""
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return {}
    values = ", ".join(f"(:s{n}, :w{n}, :g{n})" for n in range(len(wanted)))
    params: dict[str, str] = {}
    for n, (scope, workdir_hash, slug) in enumerate(wanted):
        params.update({f"s{n}": scope, f"w{n}": workdir_hash, f"g{n}": slug})
    sql = _SELECT.format(values=values)
    with ctx.index.read() as conn:
        rows = conn.execute(sa.text(sql), params).all()
        workdirs = ctx.workdirs({row.workdir_hash for row in rows})
    out: dict[Key, IndexedMemory] = {}
    for row in rows:
        entry = entry_from_row(row, workdirs)
        out[(entry.scope, entry.workdir_hash, entry.slug)] = IndexedMemory(
            entry=entry,
            content=body_content(str(row.body)),
            current=_unchanged(ctx, row.path, int(row.mtime_ns), int(row.size)),
        )
    return out


def _unchanged(ctx: StoreContext, relpath: str, mtime_ns: int, size: int) -> bool:
    """Whether the file still has the stamp the index recorded (False when it is gone)."""
    try:
        stat = os.stat(ctx.layout.abspath(relpath))
    except OSError:
        return False
    return stat.st_mtime_ns == mtime_ns and stat.st_size == size

"""How the index fails: damage SQLite reports, quarantine of a bad file, typed errors.

The index is a cache of the files: a damaged one is moved to `.quarantine/corrupt-{ms}/` and
rebuilt (REFERENCE A1); a busy, full, read-only or unreadable one is a typed IndexUnavailable,
never quarantined. The store's `_heals` decorator (store/store.py) turns damage found while in
use into a rebuild and a second try.

Which errors mean damage (`is_damage`) and how an unusable database is put in words
(`unusable`) hold for the derived files too (store/derived.py), which start again instead.

The index stamp (issue 17): when the store closes the index it records the index file's
(and its WAL's) size and mtime, if they are still what they were after the store's own last
write (else another program wrote it meanwhile, and the stamp is removed). An open that finds
the same stamp knows no other program wrote the index since, and skips `PRAGMA quick_check`
and reconcile's row-count check (about half of a warm open at 10k memories); any write by
anyone changes the stamp, and then both run as before. Memory files are checked on every
reconcile either way.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import IndexUnavailable, MemoryDomainError
from liveagent_memory.store.files import (
    Layout,
    ensure_private_dir,
    rename_temp,
    store_unavailable,
    write_temp,
)

# SQLite's primary result codes that mean the file itself is damaged (SQLITE_CORRUPT covers
# SQLITE_CORRUPT_VTAB, e.g. an FTS5 table whose blocks were overwritten).
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_DAMAGE_WORDS = ("malformed", "corrupt", "vtable constructor failed", "not a database")


class IndexDamaged(IndexUnavailable):
    """SQLite found the index damaged while using it (damage `PRAGMA quick_check` misses,
    such as broken FTS5 blocks). The store quarantines it and rebuilds from the files."""


def is_damage(exc: BaseException) -> bool:
    """True when a database error says the index file is damaged (not busy, full or read-only)."""
    if isinstance(exc, IndexDamaged):
        return True
    error = getattr(exc, "orig", exc)
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    return type(error) is sqlite3.DatabaseError and any(w in str(error) for w in _DAMAGE_WORDS)


def is_file_failure(exc: BaseException) -> bool:
    """True when indexing one file failed because of that file (a value the index cannot
    hold, a bug its content triggers), not because the index or the disk cannot be used.

    Reconcile records such a failure as the file's problem and goes on with the others.
    """
    if is_damage(exc) or isinstance(exc, (MemoryDomainError, sa.exc.OperationalError)):
        return False
    return isinstance(exc, Exception) and not isinstance(exc, sqlite3.OperationalError)


def reason(exc: BaseException) -> str:
    """The database's own message, without SQLAlchemy's statement and parameters."""
    return str(getattr(exc, "orig", exc))


def file_id(path: Path) -> tuple[int, int] | None:
    """The index file's identity (device, inode): it changes when another process replaces it."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def index_stamp(layout: Layout) -> list[int] | None:
    """The index file's and its WAL's (size, mtime) now; an empty WAL counts as none."""
    try:
        main = layout.index_path.stat()
    except OSError:
        return None
    try:
        wal = os.stat(f"{layout.index_path}-wal")
        wal_stamp = [wal.st_size, wal.st_mtime_ns] if wal.st_size else [0, 0]
    except OSError:
        wal_stamp = [0, 0]
    return [main.st_size, main.st_mtime_ns, *wal_stamp]


def record_stamp(layout: Layout, *, valid: bool = True) -> None:
    """Remember the index's stamp as this store leaves it, or forget it when not `valid` (best
    effort: no stamp means full checks at the next open)."""
    stamp = index_stamp(layout) if valid else None
    target = layout.root / config.INDEX_STAMP_FILENAME
    try:
        if stamp is None:
            target.unlink(missing_ok=True)
            return
        tmp_name, _ = write_temp(target, json.dumps(stamp).encode("ascii"), sync=False)
        rename_temp(tmp_name, target)
    except (OSError, MemoryDomainError):
        pass  # the next open runs the full checks


def unchanged_since_closed(layout: Layout) -> bool:
    """True when the index is exactly as this store last left it (the stamps agree)."""
    try:
        recorded = json.loads((layout.root / config.INDEX_STAMP_FILENAME).read_bytes())
    except (OSError, ValueError):
        return False
    return recorded is not None and recorded == index_stamp(layout)


def inspect(path: Path, *, check: bool = True) -> tuple[str | None, int | None]:
    """Return (why the index file is unusable or None, its LiveAgent schema version or None).

    Only reads: a database we must refuse (newer schema) is left byte for byte as it was.
    `check=False` skips `PRAGMA quick_check` (an index unchanged since we closed it).
    """
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return str(exc), None
    try:
        result = conn.execute("PRAGMA quick_check").fetchone() if check else ("ok",)
        if result is None or result[0] != "ok":
            return f"quick_check: {result[0] if result else 'no result'}", None
        has_versions = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_schema_version'"
        ).fetchone()
        if not has_versions:
            return None, None
        value = conn.execute("SELECT MAX(version) FROM memory_schema_version").fetchone()[0]
        return None, int(value) if isinstance(value, int) else None
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return None, None  # busy, not broken: the normal open will wait or report it
        return str(exc), None
    except sqlite3.DatabaseError as exc:
        return str(exc), None
    finally:
        conn.close()


def quarantine(layout: Layout, now_ms: int) -> Path:
    """Move the index file (and its -wal and -shm) to .quarantine/corrupt-{ms}/; returns it."""
    target = layout.quarantine_dir / f"corrupt-{now_ms}"
    ensure_private_dir(target)
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{layout.index_path}{suffix}")
        if source.exists():
            try:
                os.replace(source, target / source.name)
            except OSError as exc:
                raise store_unavailable(exc, source) from exc
    return target


def unusable(exc: BaseException, what: str) -> str:
    """Why SQLite cannot use a database, in words: locked, read-only, full, or its own message.

    `what` names the file (`the memory index /path`); shared by the index and the derived
    files (store/derived.py).
    """
    message = reason(exc)
    if "locked" in message:
        return f"{what} is locked by another program"
    if "readonly" in message or "read-only" in message:
        return f"{what} is read-only"
    if "disk is full" in message:
        return f"the disk holding {what} is full"
    return f"{what} cannot be used: {message}"


def index_unavailable(exc: Exception, path: Path) -> IndexUnavailable:
    """SQLite's operational error as the typed error: locked, read-only, full, or why not."""
    return IndexUnavailable(unusable(exc, f"the memory index {path}"))

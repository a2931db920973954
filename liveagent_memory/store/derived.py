"""A versioned derived file: a small SQLite database of the store that can always start again.

The one rule for opening the store's derived databases besides the index
(docs/ARCHITECTURE.md "Where each rule lives"): the embedding cache (store/vector_cache.py,
`<store>/vectors/cache.sqlite3`) and the retrieval metrics (store/metrics_db.py,
`<store>/retrieval-metrics.sqlite3`). They hold no memory, only what can be computed or
counted again, so a bad file is started again instead of being refused:

- `open_derived(path, schema)` makes the folder (private; an existing one is not changed),
  connects with the busy timeout of
  domain/config.py and reads `PRAGMA user_version`. An older file the schema knows how to bring
  forward (`upgrades`: additive steps, version by version) keeps what it counts and gets the
  new tables; a file of any other version (newer, or 0: a new file) has the schema's tables
  dropped and created again, in one transaction; a
  file SQLite calls damaged (not a database, corrupt: store/damage.py `is_damage`) is deleted
  with its journal and created fresh. Anything else (read-only, locked, full, a folder where
  the file should be) is a typed StoreUnavailable and the file is left as it is.
- `open_derived_readonly(path, schema)` reads without creating anything; None when there is no
  file, or it is of another version (the next writer starts it again anyway). An older file
  with upgrades is brought forward first (the one change a read makes), so it reads as counted.
- `derived_errors(path, what)` turns SQLite's and the OS's failures while a file is in use into
  StoreUnavailable, so nothing above the store sees sqlite3 (misuse, such as a closed
  connection, stays sqlite3.ProgrammingError: a bug, not a state of the file).
- `remove_derived(path)` deletes a file with its `-journal`, `-wal` and `-shm`.

The files keep SQLite's default rollback journal (no WAL), as they always had. The index
(store/index.py) is not one of them: it also keeps the audit log and the run history, which no
file can give back, so a damaged index is quarantined and salvaged, never deleted; it shares
with these the damage test and the wording of store/damage.py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store.damage import is_damage, unusable
from liveagent_memory.store.files import ensure_private_dir, store_unavailable

log = logging.getLogger(__name__)

IN_MEMORY = ":memory:"  # sqlite3's name for a database that lives only in this process
_SIDE_FILES = ("-journal", "-wal", "-shm")  # what SQLite keeps beside a database file


@dataclass(frozen=True)
class DerivedSchema:
    """What a derived file holds: the name messages give it, its layout version, its tables."""

    what: str  # "embedding cache": how logs and errors name the file
    version: int  # PRAGMA user_version of today's layout; 0 is a file nobody set up yet
    tables: tuple[str, ...]  # dropped when the file has another version
    ddl: tuple[str, ...]  # creates the tables (and their indexes)
    # version v -> the statements that bring a file of version v to v + 1 keeping its rows
    upgrades: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.version < 1:
            raise ValueError("a derived schema's version starts at 1 (0 means a new file)")

    def upgradable(self, version: int) -> bool:
        """Whether a file of `version` can be brought to this one without losing its rows."""
        return 1 <= version < self.version and all(
            v in self.upgrades for v in range(version, self.version)
        )


def open_derived(path: Path, schema: DerivedSchema) -> sqlite3.Connection:
    """A connection to the derived file at `path` (or `IN_MEMORY`) with today's layout.

    Callers that share the connection between threads guard it with a lock of their own.
    Raises StoreUnavailable when the file or its folder cannot be used.
    """
    in_memory = str(path) == IN_MEMORY
    if not in_memory:
        # A folder made here is private; an existing one is left as it is: the file may have
        # been given a path outside the store (a benchmark's cache in /tmp, whose 1777 other
        # users need), and the file itself is made private below.
        ensure_private_dir(path.parent, existing_too=False)
    try:
        conn = _open_current(path, schema)
    except sqlite3.ProgrammingError:
        raise  # our bug, not the file's state
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise derived_unavailable(exc, path, schema.what) from exc
        # Trigger: a torn or foreign file. Outcome: a fresh one; nothing real is lost.
        log.warning("%s %s unusable (%s); starting it again", schema.what, path, exc)
        remove_derived(path)
        with derived_errors(path, schema.what):
            conn = _open_current(path, schema)
    if not in_memory:
        # SPEC 7: the store is private to the user; vectors and counts reveal what it holds.
        with contextlib.suppress(OSError):
            os.chmod(path, config.FILE_MODE)
    return conn


def open_derived_readonly(path: Path, schema: DerivedSchema) -> sqlite3.Connection | None:
    """A read-only connection to the file at `path`; None when there is none of this version.

    Creates nothing, and changes nothing but an older file's version when the schema brings it
    forward (then the connection is a writable one). Raises StoreUnavailable when the file
    cannot be read.
    """
    if not path.is_file():
        return None
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro"
    with derived_errors(path, schema.what):
        conn = sqlite3.connect(uri, uri=True, timeout=config.DERIVED_DB_BUSY_TIMEOUT_SECONDS)
        try:
            found = _version(conn)
        except BaseException:
            conn.close()
            raise
    if found == schema.version:
        return conn
    conn.close()
    return open_derived(path, schema) if schema.upgradable(found) else None


@contextlib.contextmanager
def derived_errors(path: Path, what: str) -> Iterator[None]:
    """SQLite's and the OS's failures inside the block as StoreUnavailable.

    Misuse (a closed connection, a wrong parameter: sqlite3.ProgrammingError) is a bug and
    stays what it is.
    """
    try:
        yield
    except sqlite3.ProgrammingError:
        raise  # a subclass of DatabaseError in sqlite3, but about our code, not the file
    except sqlite3.DatabaseError as exc:
        raise derived_unavailable(exc, path, what) from exc
    except OSError as exc:
        raise store_unavailable(exc, path) from exc


def derived_unavailable(exc: BaseException, path: Path, what: str) -> StoreUnavailable:
    """SQLite's error about a derived file as the typed error: locked, read-only, full, or why."""
    return StoreUnavailable(unusable(exc, f"the {what} {path}"))


def remove_derived(path: Path) -> None:
    """Delete the file and what SQLite keeps beside it; StoreUnavailable when that fails."""
    for name in (str(path), *(f"{path}{suffix}" for suffix in _SIDE_FILES)):
        try:
            Path(name).unlink(missing_ok=True)
        except OSError as exc:
            raise store_unavailable(exc, Path(name)) from exc


def _open_current(path: Path, schema: DerivedSchema) -> sqlite3.Connection:
    """Connect, and lay the file out again when it has another version."""
    conn = sqlite3.connect(
        path, timeout=config.DERIVED_DB_BUSY_TIMEOUT_SECONDS, check_same_thread=False
    )
    try:
        if _version(conn) != schema.version:
            _lay_out(conn, schema)
    except BaseException:
        conn.close()
        raise
    return conn


def _lay_out(conn: sqlite3.Connection, schema: DerivedSchema) -> None:
    """Drop the schema's tables and create them at today's version, in one transaction."""
    # IMMEDIATE, and the version read again inside: of two processes that both found an old
    # file, the second sees the first one's work and keeps it.
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = _version(conn)
        if found != schema.version and schema.upgradable(found):
            for version in range(found, schema.version):
                for statement in schema.upgrades[version]:
                    conn.execute(statement)
        elif found != schema.version:
            for table in schema.tables:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in schema.ddl:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {schema.version}")
        conn.commit()
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # the first error is the one to report
            conn.rollback()
        raise


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])

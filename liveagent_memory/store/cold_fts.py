"""The full-text rows of a memory, and a worker process that builds some of the full-text
tables of a cold reconcile on the second core (issue 17).

Every full-text row is built by `insert_fts_rows` from a memory's `FtsFields`: the store's own
writes and an incremental pass through store/index.py, a cold pass's worker here.

A full pass over many files (domain/cold_config.py `COLD_FTS_WORKER_MIN_FILES`) spends most
of its time in SQLite tokenizing text for memory_fts_tri (trigrams) and memory_search (stems
and CJK bigrams), more than reading and parsing the files. One process cannot do both at
once (the GIL), so `ColdFtsBuild` starts this module as a child process (`python -m
liveagent_memory.store.cold_fts SIDE`) and streams it the rows the pass numbered; the child
builds those two tables in SIDE, a SQLite file in a private folder beside the index
(`memory-index.sqlite3.cold-fts-*`: per-machine, as the index, for sync), with the index's
own DDL and rowids (memory_files.id), while the parent reads the next files. When the pass is
done the parent copies the two tables' FTS5 shadow tables (`<t>_data`, `_idx`, `_content`,
`_docsize`, `_config`) into the index in one transaction (`adopt`, on `Index.attached`): a
b-tree copy, no tokenizing. memory_fts is always built by the parent, so whatever goes wrong
with the child (it could not start, died, or its file does not fit), the parent fills the two
tables from memory_fts itself (store/reconcile.py) and the pass ends as it would have
without it.

Messages on the child's stdin are pickles: the DDL of the tables to build (name -> CREATE
statement), then lists of (rowid, FtsFields), then None. Its stdout answers one pickle,
("ok", rows) or ("error", text). At the end of its stdin without the None (the parent was
killed) the child removes SIDE and exits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from liveagent_memory.domain import cold_config
from liveagent_memory.store.rows import FtsFields, search_columns_of

log = logging.getLogger(__name__)

Numbered = Sequence[tuple[int, FtsFields]]

FTS_INSERTS = {
    "memory_fts": "INSERT INTO memory_fts (rowid, slug, scope, workdir_hash, type, description, "
    "headline, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "memory_fts_tri": "INSERT INTO memory_fts_tri (rowid, slug, scope, workdir_hash, "
    "description, headline, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
    "memory_search": "INSERT INTO memory_search (rowid, keys, type, slug, description, "
    "headline, body, dcjk, bcjk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
}
MEMORY_FTS_TABLES = tuple(FTS_INSERTS)
# What the worker builds; memory_fts stays with the parent, the source of its fallback.
WORKER_TABLES = ("memory_fts_tri", "memory_search")
SHADOW_SUFFIXES = ("data", "idx", "content", "docsize", "config")  # FTS5's on-disk layout
SIDE_PREFIX = "cold-fts-"  # the side file's folder, in the store's per-machine index area


def insert_fts_rows(db: sqlite3.Connection, numbered: Numbered, tables: Sequence[str]) -> None:
    """The full-text rows of `numbered` memories in `tables` (of MEMORY_FTS_TABLES)."""
    for table in tables:
        if table == "memory_fts":
            values: list[tuple[Any, ...]] = [(i, *fields) for i, fields in numbered]
        elif table == "memory_fts_tri":
            values = [(i, s, sc, w, d, h, b) for i, (s, sc, w, _t, d, h, b) in numbered]
        else:
            values = [(i, *search_columns_of(fields)) for i, fields in numbered]
        db.executemany(FTS_INSERTS[table], values)


def side_root(index_path: Path) -> Path:
    """Where a cold pass's side folders go: beside the index (its file system, 0700 folder)."""
    return index_path.parent


CpuTimes = tuple[int, int]  # the machine's idle and total CPU time so far, in clock ticks


def cpu_times() -> CpuTimes | None:
    """The machine's idle (idle + iowait) and total CPU ticks so far (/proc/stat), or None
    where there is no such file."""
    try:
        with open("/proc/stat", "rb") as handle:
            fields = handle.readline().split()
        ticks = [int(value) for value in fields[1:9]]  # user nice system idle iowait irq ...
    except (OSError, ValueError):
        return None
    if fields[:1] != [b"cpu"] or len(ticks) < 8:
        return None
    return ticks[3] + ticks[4], sum(ticks)


def idle_cores(since: CpuTimes | None = None) -> float:
    """How many cores are idle: on average since `since` (a `cpu_times` taken earlier; the
    window includes this process's own work) when that window is long enough to tell, else
    the cores this process may use less the 1-minute load average (which lags: right after a
    busy phase it still counts it), else their count."""
    now = cpu_times()
    if since is not None and now is not None:
        idle, total = now[0] - since[0], now[1] - since[1]
        if total >= cold_config.COLD_FTS_IDLE_WINDOW_TICKS:
            return (os.cpu_count() or 1) * idle / total
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        return cores - os.getloadavg()[0]
    except (AttributeError, OSError):
        return float(cores)


def remove_stale_sides(index_path: Path) -> None:
    """Remove side folders left by a pass that was killed (the caller holds the write lock,
    so no pass of this store is running)."""
    prefix = f"{index_path.name}.{SIDE_PREFIX}"
    with contextlib.suppress(OSError):
        for entry in os.scandir(side_root(index_path)):
            if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)


def table_ddl(db: sqlite3.Connection, tables: Sequence[str]) -> dict[str, str]:
    """The CREATE statements of `tables` as the index holds them (name -> statement)."""
    marks = ", ".join("?" * len(tables))
    found = dict(
        db.execute(
            f"SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name IN ({marks})",
            tuple(tables),
        ).fetchall()
    )
    return {table: str(found[table]) for table in tables}


def adopt(db: sqlite3.Connection, tables: Sequence[str], rows: int) -> bool:
    """Copy `tables` from the attached side file into the index in one transaction, when they
    are what the index's own would be: the same DDL and shadow tables, `rows` rows each, the
    index's still empty. False, with nothing changed, otherwise or on any SQLite error."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            if not all(_fits(db, table, rows) for table in tables):
                db.execute("ROLLBACK")
                return False
            for table in tables:
                for suffix in SHADOW_SUFFIXES:
                    name = f"{table}_{suffix}"
                    db.execute(f"DELETE FROM main.{name}")
                    db.execute(f"INSERT INTO main.{name} SELECT * FROM side.{name}")
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        log.warning("could not copy the cold full-text tables (%s); indexing in-process", exc)
        return False


def _fits(db: sqlite3.Connection, table: str, rows: int) -> bool:
    names = (table, *(f"{table}_{suffix}" for suffix in SHADOW_SUFFIXES))
    marks = ", ".join("?" * len(names))
    schema = [
        db.execute(
            f"SELECT name, sql FROM {where}.sqlite_master WHERE name IN ({marks}) ORDER BY name",
            names,
        ).fetchall()
        for where in ("main", "side")
    ]
    if schema[0] != schema[1] or len(schema[0]) != len(names):
        return False
    ours = db.execute(f"SELECT COUNT(*) FROM main.{table}_content").fetchone()[0]
    theirs = db.execute(f"SELECT COUNT(*) FROM side.{table}_content").fetchone()[0]
    return bool(ours == 0 and theirs == rows)


class ColdFtsBuild:
    """The parent's side of one worker: start it, `put` numbered rows, `finish` for the side
    file (None when the worker failed), `close` to clean up. Rows go out on a thread, so a
    busy worker never stalls the parent's reading."""

    def __init__(self, index_path: Path, ddl: dict[str, str]) -> None:
        self.folder = Path(
            tempfile.mkdtemp(prefix=f"{index_path.name}.{SIDE_PREFIX}", dir=side_root(index_path))
        )
        self.side = self.folder / "side.sqlite3"
        self.sent = 0
        self.failed = False
        # A few chunks wait at most (their text in memory); then `put` waits for the worker.
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=4)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", __name__, str(self.side)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_child_env(),
        )
        self._thread = threading.Thread(target=self._send, name="cold-fts-send", daemon=True)
        self._thread.start()
        self._queue.put(ddl)

    @property
    def pid(self) -> int:
        return self._proc.pid

    @classmethod
    def start(cls, index_path: Path, ddl: dict[str, str]) -> ColdFtsBuild | None:
        """A running worker, or None when none can be started (the pass goes on without)."""
        if not sys.executable or getattr(sys, "frozen", False):
            return None  # no Python to run the module with (a frozen app)
        try:
            return cls(index_path, ddl)
        except OSError as exc:
            log.info("cold full-text worker not started: %s", exc)
            return None

    def put(self, numbered: Numbered) -> None:
        if numbered and not self.failed:
            self._queue.put(list(numbered))
            self.sent += len(numbered)

    def _send(self) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        while True:
            message = self._queue.get()
            if not self.failed:  # (after a failure: drain the queue, send nothing)
                try:
                    pickle.dump(message, stdin, protocol=pickle.HIGHEST_PROTOCOL)
                    if message is None:
                        stdin.close()
                except (OSError, ValueError):
                    self.failed = True  # the worker died: the parent fills the tables itself
            if message is None:
                return

    def finish(self) -> Path | None:
        """Wait for the worker; its side file with every row put, or None."""
        self._queue.put(None)
        self._thread.join()
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            answer = pickle.load(stdout)
        except (EOFError, pickle.UnpicklingError, OSError):
            answer = ("error", "no answer")
        self._proc.wait()
        if answer != ("ok", self.sent) or self._proc.returncode != 0 or self.failed:
            log.warning("cold full-text worker failed (%s); indexing in-process", answer)
            return None
        return self.side

    def close(self) -> None:
        """Stop the worker if it still runs and remove the side folder."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._thread.is_alive():  # (finish was not reached: the pass failed)
            self._queue.put(None)  # the sender drains what waits, then stops
            self._thread.join()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _child_env() -> dict[str, str]:
    """The parent's environment, with this package's folder first on the child's path (the
    parent may have found it through sys.path edits the child would not repeat)."""
    env = dict(os.environ)
    top = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (top, env.get("PYTHONPATH")) if p)
    return env


def _build(side: Path, stdin: BinaryIO) -> int:
    """Build the tables the parent sends into `side`; the number of rows. EOFError when the
    parent went away before its last message."""
    db = sqlite3.connect(side, isolation_level=None)
    try:
        # A scratch file: a crash loses nothing the parent cannot redo.
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        ddl: dict[str, str] = pickle.load(stdin)
        for statement in ddl.values():
            db.execute(statement)
        db.execute("BEGIN")
        rows = 0
        while (numbered := pickle.load(stdin)) is not None:
            insert_fts_rows(db, numbered, tuple(ddl))
            rows += len(numbered)
        db.execute("COMMIT")
        return rows
    finally:
        db.close()


def main(argv: list[str]) -> int:
    """The worker: build the tables into argv[0] from stdin; answer on stdout."""
    side = Path(argv[0])
    out = sys.stdout.buffer
    try:
        rows = _build(side, sys.stdin.buffer)
    except EOFError:
        shutil.rmtree(side.parent, ignore_errors=True)  # the parent is gone: nobody will read it
        return 1
    except Exception as exc:  # noqa: BLE001 -- any failure is reported, the parent falls back
        side.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            pickle.dump(("error", f"{type(exc).__name__}: {exc}"), out)
        return 1
    pickle.dump(("ok", rows), out)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A cold reconcile over many files builds memory_fts_tri and memory_search in a worker process
and copies their FTS5 tables into the index (issue 17, store/cold_fts.py): the same rows and
search results as a build in one process; a worker killed, a parent killed, or side tables that
do not fit leave an index the store rebuilds correctly."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from liveagent_memory.domain import cold_config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store import cold_fts
from liveagent_memory.store.cold_fts import ColdFtsBuild
from liveagent_memory.store.schema import MEMORY_FTS_TRI_DDL, MEMORY_SEARCH_DDL
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import INDEX_NAME, start_python
from tests.helpers.fakes import FakeClock
from tests.store.test_cold_rebuild import TABLES, _cold_open, _index_rows, _items

QUERIES = ("servers deploy", "数据库", "缓存 cache", "note", "服务器", "happy team")


@pytest.fixture
def written(home: Path, clock: FakeClock, workdir: str) -> dict[str, list[tuple[object, ...]]]:
    """42 memories written by the store itself (40 by a batch, a journal day, one by hand);
    the rows its own writes built."""
    from liveagent_memory.domain.requests import BatchRequest, DailyAppendRequest
    from tests.helpers.diskstore import write_file

    with MemoryStore.open(home, clock=clock) as store:
        assert store.apply_batch(BatchRequest(actor="user", items=_items(), workdir=workdir))
        store.append_daily(DailyAppendRequest(body="shipped the 部署 fix"))
    write_file(
        home,
        "global/hand-note.md",
        "---\nname: hand-note\ntype: reference\n"
        "description: 'by hand'\n---\nWritten by hand, not by the store.\n",
    )
    with MemoryStore.open(home, clock=clock):
        pass
    return _index_rows(home)


@dataclass
class Workers:
    pids: list[int] = field(default_factory=list)  # of every worker started
    copied: list[bool] = field(default_factory=list)  # what each `adopt` answered


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Workers:
    """Every full pass uses the worker, five files per transaction; what the workers did."""
    monkeypatch.setattr(cold_config, "COLD_FTS_WORKER_MIN_FILES", 1)
    monkeypatch.setattr(cold_config, "COLD_FTS_WORKER_CHUNK", 5)
    monkeypatch.setattr(cold_fts, "idle_cores", lambda since: 1.0)  # whatever the machine's load
    seen = Workers()
    init, adopt = ColdFtsBuild.__init__, cold_fts.adopt

    def started(self: ColdFtsBuild, index_path: Path, ddl: dict[str, str]) -> None:
        init(self, index_path, ddl)
        seen.pids.append(self.pid)

    def adopted(db: sqlite3.Connection, tables: tuple[str, ...], rows: int) -> bool:
        seen.copied.append(adopt(db, tables, rows))
        return seen.copied[-1]

    monkeypatch.setattr(ColdFtsBuild, "__init__", started)
    monkeypatch.setattr(cold_fts, "adopt", adopted)
    return seen


def _integrity(home: Path) -> None:
    db = sqlite3.connect(home / INDEX_NAME)
    try:
        for table in TABLES:
            db.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    finally:
        db.close()


def _sides(home: Path) -> list[str]:
    return [name for name in os.listdir(home) if cold_fts.SIDE_PREFIX in name]


def _searches(home: Path, clock: FakeClock, workdir: str) -> list[list[tuple[str, float]]]:
    with MemoryStore.open(home, clock=clock) as store:
        return [
            [
                (hit.slug, round(hit.score, 9))
                for hit in store.search(SearchRequest(query=q, workdir=workdir)).matches
            ]
            for q in QUERIES
        ]


def test_the_worker_builds_the_rows_and_search_results_of_one_process(
    home: Path,
    clock: FakeClock,
    workdir: str,
    written: dict[str, list[tuple[object, ...]]],
    worker: Workers,
) -> None:
    before = _searches(home, clock, workdir)
    assert any(before)
    assert _cold_open(home, clock) == written
    assert len(worker.pids) == 1 and worker.copied == [True]  # (not the parent's fallback)
    _integrity(home)
    assert _searches(home, clock, workdir) == before
    assert _sides(home) == []


def test_no_worker_starts_when_no_core_is_idle(
    home: Path,
    clock: FakeClock,
    written: dict[str, list[tuple[object, ...]]],
    worker: Workers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cold_fts, "idle_cores", lambda since: 0.2)
    assert _cold_open(home, clock) == written
    assert worker.pids == [] and worker.copied == []


def test_idle_cores_over_the_scan_or_by_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    real = cold_fts.cpu_times()
    if real is not None:  # (Linux) idle and total ticks, idle never more than total
        assert 0 <= real[0] <= real[1]
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(cold_fts, "cpu_times", lambda: (160, 1100))
    # 60 of 100 ticks idle on two cores since the pass began: 1.2 cores idle
    assert cold_fts.idle_cores((100, 1000)) == pytest.approx(1.2)
    # A window too short to tell (or none): the usable cores less the load average.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(os, "getloadavg", lambda: (2.75, 1.0, 1.0))
    assert cold_fts.idle_cores((158, 1095)) == 1.25
    assert cold_fts.idle_cores(None) == 1.25

    def no_load() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(os, "getloadavg", no_load)
    assert cold_fts.idle_cores(None) == 4.0


def test_a_worker_killed_mid_pass_is_replaced_by_the_parent(
    home: Path,
    clock: FakeClock,
    written: dict[str, list[tuple[object, ...]]],
    worker: Workers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    put = ColdFtsBuild.put

    def put_then_kill(self: ColdFtsBuild, numbered: cold_fts.Numbered) -> None:
        put(self, numbered)
        if self._proc.poll() is None:  # after its first rows: the parent must not wait
            os.kill(self.pid, signal.SIGKILL)
            self._proc.wait()

    monkeypatch.setattr(ColdFtsBuild, "put", put_then_kill)
    assert _cold_open(home, clock) == written
    assert len(worker.pids) == 1 and worker.copied == []  # nothing to copy: the parent built
    _integrity(home)
    assert _sides(home) == []


def test_side_tables_that_do_not_fit_are_not_copied(
    home: Path,
    clock: FakeClock,
    written: dict[str, list[tuple[object, ...]]],
    worker: Workers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Another tokenizer than the index's: adopt must refuse, the parent builds the tables.
    ddl = cold_fts.table_ddl
    monkeypatch.setattr(
        cold_fts,
        "table_ddl",
        lambda db, tables: {
            name: sql.replace("porter unicode61", "unicode61")
            for name, sql in ddl(db, tables).items()
        },
    )
    assert _cold_open(home, clock) == written
    assert len(worker.pids) == 1 and worker.copied == [False]
    _integrity(home)


def test_adopt_refuses_a_side_file_unlike_the_index(tmp_path: Path) -> None:
    main, side = tmp_path / "main.sqlite3", tmp_path / "side.sqlite3"
    for path, search_ddl in (
        (main, MEMORY_SEARCH_DDL),
        (side, MEMORY_SEARCH_DDL.replace("porter unicode61", "unicode61")),
    ):
        db = sqlite3.connect(path)
        db.execute(MEMORY_FTS_TRI_DDL)
        db.execute(search_ddl)
        db.execute("INSERT INTO memory_fts_tri (rowid, body) VALUES (1, 'the side row')")
        db.execute("INSERT INTO memory_search (rowid, body) VALUES (1, 'the side row')")
        db.commit()
        db.close()
    db = sqlite3.connect(main, isolation_level=None)
    db.execute("DELETE FROM memory_search")
    db.execute("ATTACH DATABASE ? AS side", (str(side),))
    assert not cold_fts.adopt(db, cold_fts.WORKER_TABLES, 1)  # memory_search differs
    assert db.execute("SELECT count(*) FROM main.memory_search").fetchone() == (0,)
    assert not cold_fts.adopt(db, ("memory_fts_tri",), 1)  # the index's table is not empty
    db.execute("DELETE FROM memory_fts_tri")
    assert not cold_fts.adopt(db, ("memory_fts_tri",), 2)  # not every row the pass put
    assert cold_fts.adopt(db, ("memory_fts_tri",), 1)
    assert db.execute("SELECT rowid FROM memory_fts_tri WHERE memory_fts_tri MATCH 'side'")
    db.execute("INSERT INTO memory_fts_tri(memory_fts_tri) VALUES ('integrity-check')")


# argv: home, where to die (rows: after the first rows went to the worker; copy: when the
# worker's tables are about to be copied in)
KILL_SCRIPT = """
import os, signal, sys
from liveagent_memory.domain import cold_config
from liveagent_memory.store import cold_fts
from liveagent_memory.store.cold_fts import ColdFtsBuild
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

home, where = sys.argv[1], sys.argv[2]
cold_config.COLD_FTS_WORKER_MIN_FILES = 1
cold_config.COLD_FTS_WORKER_CHUNK = 5
cold_fts.idle_cores = lambda since: 1.0
put = ColdFtsBuild.put

def die(*args):
    os.kill(os.getpid(), signal.SIGKILL)

def put_then_die(self, numbered):
    put(self, numbered)
    print(self.pid, flush=True)
    die()

if where == "rows":
    ColdFtsBuild.put = put_then_die
else:
    cold_fts.adopt = die
MemoryStore.open(home, clock=FakeClock())
"""


@pytest.mark.parametrize("where", ["rows", "copy"])
def test_a_parent_killed_mid_pass_leaves_a_store_the_next_open_rebuilds(
    home: Path, clock: FakeClock, written: dict[str, list[tuple[object, ...]]], where: str
) -> None:
    for suffix in ("", "-wal", "-shm"):
        (home / f"{INDEX_NAME}{suffix}").unlink(missing_ok=True)
    child = start_python(KILL_SCRIPT, str(home), where)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL
    if where == "rows":
        # The orphaned worker reads the end of its input, removes its file and exits.
        worker_pid = int(out.split()[0])
        deadline = time.monotonic() + 60
        while (_sides(home) or _running(worker_pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _sides(home) == [] and not _running(worker_pid)
    else:
        assert _sides(home)  # the worker's finished file, left by the killed parent
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        # Killed before the first commit, the index holds no rows: an ordinary pass adds them.
        # Killed before the copy, memory_fts holds rows the other two lack: a full rebuild.
        assert store.last_reconcile.full_rebuild == (where == "copy")
    assert _index_rows(home) == written
    _integrity(home)
    assert _sides(home) == []  # a dead pass's side folder is removed by the next reconcile


def _running(pid: int) -> bool:
    """Whether process `pid` runs (a zombie nobody reaped yet does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"

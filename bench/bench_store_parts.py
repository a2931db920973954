"""What the two unmet store-speed rows of issue 17 are made of (bench/README.md "Issue 17,
second round").

- `batch`: CPU per `apply_batch` item, the store on tmpfs (/dev/shm) so the disk's own time,
  which varies tenfold on a shared machine, is left out: --items upserts in batches of
  --batch, then a cold reconcile of the same files (CPU). `--disk`: the store in the system's
  temp folder instead, and the time the chunks' durability rounds took (store/fsync.py
  `sync_files`, every temp file of a chunk made durable before any rename) per item.
- `cold`: the parts of a cold reconcile of --items files, each alone, back to back, medians of
  --repeats: python-frontmatter parse only (the raw baseline), our read + parse + describe,
  memory_search's text (search_columns), and the three full-text tables' inserts alone (the
  rows a cold reconcile made, executemany in one transaction into a fresh file); then the two
  sides of a pass with its worker process (store/cold_fts.py): the parent's memory_fts, the
  worker's memory_fts_tri and memory_search with memory_search's text, and the copy of the
  worker's tables into the index.

```sh
.venv/bin/python bench/bench_store_parts.py batch --items 3000
.venv/bin/python bench/bench_store_parts.py batch --items 3000 --disk
.venv/bin/python bench/bench_store_parts.py cold --items 10000 --repeats 3
```
Corpus: bench_store.py's generator (English, Chinese and mixed memories).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench_store as store_bench  # noqa: E402 (the folder above is put on the path first)

from liveagent_memory.domain.requests import BatchItem, BatchRequest  # noqa: E402
from liveagent_memory.store import cold_fts  # noqa: E402
from liveagent_memory.store import files as files_module  # noqa: E402
from liveagent_memory.store.documents import describe, load_bytes  # noqa: E402
from liveagent_memory.store.files import Layout  # noqa: E402
from liveagent_memory.store.rows import search_columns  # noqa: E402

FTS_TABLES = ("memory_fts", "memory_fts_tri", "memory_search")
SEED = 20240601


def corpus(count: int) -> list[store_bench.Memory]:
    vocab = store_bench.build_vocabulary(SEED, 4000, 4000)
    memories, _ = store_bench.generate(vocab, count, SEED, sources=min(count, 2000))
    return memories


def batch_cpu(root: Path, memories: list[store_bench.Memory], batch: int) -> dict[str, float]:
    """CPU (and wall) per apply_batch item, then a cold reconcile's CPU, on `root`."""
    store = store_bench.open_store(root)
    items = [
        BatchItem(
            op="upsert",
            slug=m.slug,
            scope="global",
            type=m.type,
            description=m.description,
            body=m.body,
        )
        for m in memories
    ]
    synced = [0.0]
    sync_files = files_module.sync_files

    def timed_sync(pending: Any) -> None:
        started = time.perf_counter()
        try:
            sync_files(pending)
        finally:
            synced[0] += time.perf_counter() - started

    files_module.sync_files = timed_sync
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        for start in range(0, len(items), batch):
            store.apply_batch(BatchRequest(actor="user", items=items[start : start + batch]))
    finally:
        files_module.sync_files = sync_files
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    store.close()
    store_bench.remove_index(root)
    gc.collect()
    cold = time.process_time()
    store_bench.open_store(root).close()
    return {
        "batch_cpu_us_per_item": round(cpu / len(items) * 1e6, 1),
        "batch_wall_us_per_item": round(wall / len(items) * 1e6, 1),
        "durable_rounds_us_per_item": round(synced[0] / len(items) * 1e6, 1),
        "cold_reconcile_cpu_s": round(time.process_time() - cold, 3),
    }


def cold_parts(root: Path, memories: list[store_bench.Memory], repeats: int) -> dict[str, Any]:
    """Each part of a cold reconcile alone (see the module docstring), medians in seconds."""
    store_bench.seed_files(root, memories)
    store_bench.open_store(root).close()  # the index whose full-text rows are replayed
    found, _ = Layout(root.absolute()).scan()

    def ours() -> list[Any]:
        rows = []
        for item in found:
            with open(item.abspath, "rb") as handle:
                rows.append(describe(item, load_bytes(handle.read())))
        return rows

    rows = ours()
    source = sqlite3.connect(root / "memory-index.sqlite3")
    ddl = dict(
        source.execute(
            "SELECT name, sql FROM sqlite_master WHERE name IN (?, ?, ?)", FTS_TABLES
        ).fetchall()
    )
    data = {t: source.execute(f"SELECT rowid, * FROM {t}").fetchall() for t in FTS_TABLES}
    source.close()

    def fts_inserts() -> None:
        target = root / "fts-only.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        db = sqlite3.connect(target, isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        for table in FTS_TABLES:
            db.execute(ddl[table])
        db.execute("BEGIN")
        for table in FTS_TABLES:
            names = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            marks = ", ".join("?" * (len(names) + 1))
            db.executemany(
                f"INSERT INTO {table} (rowid, {', '.join(names)}) VALUES ({marks})", data[table]
            )
        db.execute("COMMIT")
        db.close()

    return {
        "files": len(found),
        **_timed_parts(
            {
                "parse_only": lambda: store_bench.parse_only_baseline(root),
                "read_parse_describe": ours,
                "search_columns": lambda: [search_columns(r) for r in rows],
                "fts_inserts": fts_inserts,
            },
            repeats,
        ),
        **split_parts(root, ddl, rows, repeats),
    }


def split_parts(root: Path, ddl: dict[str, str], rows: list[Any], repeats: int) -> dict[str, float]:
    """The two sides of a cold pass with its worker (store/cold_fts.py), each alone: the
    parent's memory_fts, the worker's two tables with memory_search's text into a side file
    (as the worker builds it), and the copy of those tables into an index (`adopt`)."""
    numbered = [(i + 1, row.fts_fields()) for i, row in enumerate(rows)]
    side = root / "side.sqlite3"

    def fresh(path: Path, tables: tuple[str, ...], journal: str) -> sqlite3.Connection:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        db = sqlite3.connect(path, isolation_level=None)
        db.execute(f"PRAGMA journal_mode = {journal}")
        db.execute("PRAGMA synchronous = " + ("NORMAL" if journal == "WAL" else "OFF"))
        for table in tables:
            db.execute(ddl[table])
        return db

    def build(path: Path, tables: tuple[str, ...], journal: str) -> None:
        db = fresh(path, tables, journal)
        db.execute("BEGIN")
        cold_fts.insert_fts_rows(db, numbered, tables)
        db.execute("COMMIT")
        db.close()

    def copy() -> None:
        db = fresh(root / "copy.sqlite3", cold_fts.WORKER_TABLES, "WAL")
        db.execute("ATTACH DATABASE ? AS side", (str(side),))
        assert cold_fts.adopt(db, cold_fts.WORKER_TABLES, len(numbered))
        db.close()

    return _timed_parts(
        {
            "parent_memory_fts": lambda: build(root / "parent.sqlite3", ("memory_fts",), "WAL"),
            "worker_tables": lambda: build(side, cold_fts.WORKER_TABLES, "OFF"),
            "copy": copy,
        },
        repeats,
    )


def _timed_parts(parts: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Each part's median wall (`<name>_s`) and CPU (`<name>_cpu_s`) seconds: on a shared
    machine the wall time of a part follows the others' load, its CPU time much less."""
    result: dict[str, float] = {}
    for name, part in parts.items():
        wall, cpu = [], []
        for _ in range(repeats):
            gc.collect()
            started, started_cpu = time.perf_counter(), time.process_time()
            part()
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        result[f"{name}_s"] = round(statistics.median(wall), 3)
        result[f"{name}_cpu_s"] = round(statistics.median(cpu), 3)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("batch", "cold"))
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--disk", action="store_true", help="batch: the store on disk, not tmpfs")
    args = parser.parse_args()
    memories = corpus(args.items)
    tmpfs = args.what == "batch" and not args.disk and os.path.isdir("/dev/shm")
    where = "/dev/shm" if tmpfs else None
    folder = Path(tempfile.mkdtemp(prefix="bench-store-parts-", dir=where))
    try:
        if args.what == "batch":
            result = batch_cpu(folder / "store", memories, args.batch)
        else:
            result = cold_parts(folder / "store", memories, args.repeats)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Portable projects (issue 19): what merging a project's second folder costs.

Two clones of one repository at two paths; each writes N memories into its own store (one
batch), then the second's project folder is copied into the first's store, as a folder sync
before the first sync leaves it. Timed once each (wall clock), on the first store:

- `dry run`: `project_merge` with `dry_run` (reads every file of the second folder);
- `merge`: the merge itself (each memory written into the target and deleted from its folder,
  one mutation per file: audit row, trash copy, fsyncs), then the emptied folder removed.

The stores are opened with room beyond the 500-memory quota, so both sizes measure moving.

    .venv/bin/python bench/bench_project_merge.py --sizes 100 1000 --out bench/out/merge.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.commands import dispatch
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from tests.helpers.git_repos import bare_repository, clone

LIMIT = 100_000  # the quota (500 a project) would stop the fill and the merge: room for both


def fill(home: Path, workdir: Path, prefix: str, count: int) -> None:
    items = [
        {
            "op": "upsert",
            "slug": f"{prefix}-{n:05d}",
            "scope": "project",
            "type": "project",
            "description": f"Note {n} of {prefix}",
            "body": f"What machine {prefix} learned, number {n}.",
        }
        for n in range(count)
    ]
    with MemoryStore.open(home, scope_limit=LIMIT) as store:
        payload = {"workdir": str(workdir), "items": items, "actor": "user"}
        dispatch(store, "memory_apply_batch", payload)


def run(root: Path, count: int) -> dict[str, Any]:
    server = bare_repository(root / "server" / "shop.git")
    a, b = clone(server, root / "a" / "shop"), clone(server, root / "b" / "checkout")
    fill(root / "b-memory", b, "b", count)
    fill(root / "a-memory", a, "a", count)
    key = workdir_hash(str(b))
    shutil.copytree(root / "b-memory" / "projects" / key, root / "a-memory" / "projects" / key)
    with MemoryStore.open(root / "a-memory", scope_limit=LIMIT) as store:
        store.reconcile()
        start = time.perf_counter()
        plan = dispatch(store, "project_merge", {"workdir": str(a), "dry_run": True})
        dry = time.perf_counter() - start
        start = time.perf_counter()
        done = dispatch(store, "project_merge", {"workdir": str(a)})
        merge = time.perf_counter() - start
    assert len(plan["moves"]) == len(done["moves"]) == count and done["removed"] == [key]
    return {"memories": count, "dry_run_ms": dry * 1000, "merge_ms": merge * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = []
    for count in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            result = run(Path(tmp), count)
        print(
            f"{count} memories: dry run {result['dry_run_ms']:.0f} ms, merge "
            f"{result['merge_ms']:.0f} ms ({result['merge_ms'] / count:.1f} ms a memory)"
        )
        results.append(result)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {"machine": machine_info(), "package": package_state(), "results": results}
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

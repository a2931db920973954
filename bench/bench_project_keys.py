"""Portable projects (issue 19): what finding a workdir's project folder costs.

A store with N project folders (each with a `.workdir.json` carrying a portable id) and a real
git clone. Timed, as medians of many calls:

- `warm`: `MemoryStore.project_key` for a workdir already resolved (what every read pays);
- `cold, own folder`: the first call for a workdir whose own hash folder exists (a stat, its
  marker, its git config; the marker already lists it);
- `cold, another path`: the first call for a clone at a path of its own on another machine
  (its own folder missing: every marker is read to find the one with its id);
- `portable_id`: reading a clone's id file and `.git/config` alone;
- `workdir_hash`: the path hash alone, what the call was before.

    .venv/bin/python bench/bench_project_keys.py --folders 100 1000 --out bench/out/keys.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.paths import workdir_hash
from liveagent_memory.project_identity import portable_id
from liveagent_memory.store.markers import write_workdir_marker
from liveagent_memory.store.store import MemoryStore

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def median_us(call: Callable[[], object], *, repeats: int, before: Callable[[], None]) -> float:
    """Median microseconds of `call`, `before` run untimed ahead of each."""
    times = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def run(root: Path, folders: int, repeats: int) -> dict[str, Any]:
    home = root / f"store-{folders}"
    clone = root / "a" / "shop"
    other = root / "b" / "checkout"
    for path in (clone, other):
        path.mkdir(parents=True, exist_ok=True)
        git("init", "-q", str(path), cwd=path.parent)
        git("remote", "add", "origin", "git@github.com:acme/shop.git", cwd=path)
    with MemoryStore.open(home) as store:
        projects = store.root / "projects"
        for n in range(folders - 1):
            folder = projects / f"{n:016x}"
            folder.mkdir(parents=True)
            write_workdir_marker(folder, f"/src/p{n}", 0, project_id=f"git:host/p{n}")
        key = workdir_hash(str(clone))
        (projects / key).mkdir()
        write_workdir_marker(projects / key, str(clone), 0, project_id=portable_id(clone))
        places = store._ctx.places  # the resolver's answers: cleared for a cold call

        def nothing() -> None:
            pass

        assert store.project_key(str(other)) == key
        store.project_key(str(clone))
        result = {
            "folders": folders,
            "warm_us": median_us(
                lambda: store.project_key(str(other)), repeats=repeats * 10, before=nothing
            ),
            "cold_own_folder_us": median_us(
                lambda: store.project_key(str(clone)), repeats=repeats, before=places.clear
            ),
            "cold_another_path_us": median_us(
                lambda: store.project_key(str(other)), repeats=repeats, before=places.clear
            ),
            "portable_id_us": median_us(
                lambda: portable_id(clone), repeats=repeats, before=nothing
            ),
            "workdir_hash_us": median_us(
                lambda: workdir_hash(str(clone)), repeats=repeats * 10, before=nothing
            ),
        }
    log(f"{folders} folders: {result}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run(Path(tmp) / str(n), n, args.repeats) for n in args.folders]
    sys.stdout.write(
        "| project folders | warm | cold, own folder | cold, another path | portable_id | "
        "workdir_hash |\n|---|---|---|---|---|---|\n"
    )
    for r in rows:
        sys.stdout.write(
            f"| {r['folders']:,} | {r['warm_us']:.0f} µs | {r['cold_own_folder_us']:.0f} µs | "
            f"{r['cold_another_path_us'] / 1000:.1f} ms | {r['portable_id_us']:.0f} µs | "
            f"{r['workdir_hash_us']:.0f} µs |\n"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        data = {"machine": machine_info(), "package": package_state(), "rows": rows}
        args.out.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

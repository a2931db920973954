"""Git sync (issue 19): what `sync init`, `sync` and `sync status` cost at N memories.

Two machines (store folders) and a bare remote in a temp folder, real git. Per size, timed once
each (wall clock, the store open before each step not counted):

- `init, push`: `sync init` of a store holding N memories (git init, first commit, push);
- `init, take`: `sync init` of an empty store on the second machine (fetch, check out, index);
- `sync, nothing`: a sync with nothing to commit or pull (what a timer costs most of the time);
- `sync, push 100`: 100 memories written, then synced (commit, fetch, push);
- `sync, pull 100`: the other machine takes them (fetch, merge, reconcile of those files);
- `sync, 10 conflicts`: 10 memories edited on both machines, the second sync settling them;
- `status`: `sync_status` (conflicts and git state: a few local git calls).

    .venv/bin/python bench/bench_git_sync.py --sizes 1000 10000 --out bench/out/git-sync.json
"""

from __future__ import annotations

import argparse
import json
import os
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

from liveagent_memory.commands import dispatch
from liveagent_memory.store.files import Layout
from liveagent_memory.store.store import MemoryStore

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def memory_file(slug: str, body: str) -> str:
    return f"---\nname: {slug}\ndescription: About {slug}\ntype: reference\n---\n{body}\n"


def seed(root: Path, count: int) -> list[Path]:
    """N memory files written directly (as a person's or another tool's), 250 per project
    folder (under the scope quota), then indexed; returns their paths."""
    layout = Layout(root)
    paths = []
    for n in range(count):
        project = f"{n // 250:016x}"
        slug = f"note-{n:06d}"
        path = layout.path_for("project", project, "reference", slug)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(memory_file(slug, f"Note number {n}."), "utf-8")
        paths.append(path)
    MemoryStore.open(root).close()
    return paths


def timed(root: Path, step: Callable[[MemoryStore], Any]) -> tuple[float, Any]:
    with MemoryStore.open(root) as store:
        start = time.perf_counter()
        result = step(store)
        return (time.perf_counter() - start) * 1000, result


def edit(paths: list[Path], text: str) -> None:
    """Edit memory files by hand (the next open, or sync, reads them)."""
    for path in paths:
        path.write_text(path.read_text("utf-8").replace("Note number", text), "utf-8")


def one_size(count: int, work: Path) -> dict[str, float]:
    remote = work / "memory.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], check=True)
    a, b = work / "a", work / "b"
    log(f"{count}: seeding")
    seeded = seed(a, count)
    out: dict[str, float] = {}
    sync_init = {"remote": str(remote)}
    out["init, push"], _ = timed(a, lambda s: dispatch(s, "sync_init", sync_init))
    MemoryStore.open(b).close()
    out["init, take"], _ = timed(b, lambda s: dispatch(s, "sync_init", sync_init))
    out["sync, nothing"], _ = timed(a, lambda s: dispatch(s, "sync_run", {}))
    with MemoryStore.open(a) as store:
        for n in range(100):
            slug = f"new-{n:03d}"
            dispatch(
                store,
                "memory_write",
                {
                    "slug": slug,
                    "scope": "global",
                    "type": "reference",
                    "description": f"About {slug}",
                    "body": f"New note {n}.",
                },
            )
    out["sync, push 100"], _ = timed(a, lambda s: dispatch(s, "sync_run", {}))
    out["sync, pull 100"], pulled = timed(b, lambda s: dispatch(s, "sync_run", {}))
    assert pulled["pulled"] == 100, pulled
    edit(seeded[:10], "Edited on A:")
    edit([b / p.relative_to(a) for p in seeded[:10]], "Edited on B:")
    timed(a, lambda s: dispatch(s, "sync_run", {}))
    out["sync, 10 conflicts"], settled = timed(b, lambda s: dispatch(s, "sync_run", {}))
    assert settled["conflicts"] == 10, settled
    out["status"], _ = timed(b, lambda s: dispatch(s, "sync_status", {}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    os.environ.update(GIT_ENV)
    results: dict[str, dict[str, float]] = {}
    for count in args.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-git-sync-") as tmp:
            results[str(count)] = one_size(count, Path(tmp))
    steps = list(next(iter(results.values())))
    print("| memories | " + " | ".join(steps) + " |")
    print("|---|" + "---|" * len(steps))
    for count, figures in results.items():
        cells = " | ".join(f"{figures[s]:,.0f} ms" for s in steps)
        print(f"| {int(count):,} | {cells} |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"machine": machine_info(), "code": package_state(), "results": results}
        args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Cross-project discovery benchmark: walking a synthetic tree of about 20,000 folders.

The tree looks like a developer's code folder: `orgs x repos` repositories, each with a source
tree of nested packages (fan-out 3, several levels), a `.git` folder and in some a
`node_modules` full of packages (both pruned, so their size must not matter). A few stores sit
at depths 2 to 6: Loki Mode `.loki/memory` folders (episodes in date folders, patterns,
skills) and LiveAgent stores (global and project memories, each file's type read from its
frontmatter head). `discover_stores` is timed over the whole tree, warm (the tree was just
written, so the OS has it cached), as the median of several runs, and the counts are checked
against what was planted.

    .venv/bin/python bench/bench_projects.py --out bench/out/projects.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.domain import config
from liveagent_memory.retrieval.projects import (
    count_liveagent_store,
    count_loki_store,
    discover_stores,
)

MEMORY = "---\nname: {slug}\ndescription: About {slug}\ntype: {type}\n---\n\nBody of {slug}.\n"
TYPES = ("user", "feedback", "project", "reference")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def source_tree(folder: Path, levels: int, fanout: int) -> int:
    """Nested package folders with a file each; returns how many folders were made."""
    made = 0
    frontier = [folder]
    for _ in range(levels):
        nxt = []
        for parent in frontier:
            for i in range(fanout):
                child = parent / f"pkg{i}"
                child.mkdir(parents=True)
                (child / "mod.py").write_text("x = 1\n")
                made += 1
                nxt.append(child)
        frontier = nxt
    return made


def plant_loki(project: Path, episodes: int, patterns: int, skills: int) -> None:
    memory = project / ".loki" / "memory"
    for i in range(episodes):
        day = memory / "episodic" / f"2026-01-{1 + i % 28:02d}"
        day.mkdir(parents=True, exist_ok=True)
        (day / f"task-{i}.json").write_text(json.dumps({"id": i}))
    (memory / "semantic").mkdir(parents=True, exist_ok=True)
    items = [{"id": f"p{i}", "pattern": "x" * 200} for i in range(patterns)]
    (memory / "semantic" / "patterns.json").write_text(json.dumps({"patterns": items}))
    (memory / "skills").mkdir(parents=True, exist_ok=True)
    for i in range(skills):
        (memory / "skills" / f"skill-{i}.json").write_text("{}")


def plant_liveagent(root: Path, projects: int, per_scope: int) -> None:
    (root / "global" / "user").mkdir(parents=True)
    (root / config.INDEX_FILENAME).write_bytes(b"")
    for i in range(per_scope):
        folder = root / "global" / ("user" if i % 2 else "")
        kind = TYPES[i % 4]
        (folder / f"g-{i}.md").write_text(MEMORY.format(slug=f"g-{i}", type=kind))
    for p in range(projects):
        folder = root / "projects" / f"{p:016x}"
        folder.mkdir(parents=True)
        for i in range(per_scope):
            (folder / f"m-{i}.md").write_text(MEMORY.format(slug=f"m-{i}", type=TYPES[i % 4]))


def build(root: Path, orgs: int, repos: int, levels: int) -> dict[str, Any]:
    made = 0
    for o in range(orgs):
        for r in range(repos):
            repo = root / f"org{o}" / f"repo{r}"
            made += source_tree(repo / "src", levels, 3)
            git = repo / ".git" / "objects"
            for i in range(20):
                (git / f"{i:02x}").mkdir(parents=True)
            made += 22
            if r % 4 == 0:  # pruned: none of these folders is walked
                for i in range(30):
                    (repo / "node_modules" / f"dep{i}" / "lib").mkdir(parents=True)
                made += 61
    loki = [
        (root / "org0" / "repo1", 2, 500),  # (project, depth, episodes)
        (root / "org1" / "repo2" / "src" / "pkg0" / "pkg1", 5, 2000),
        (root / "org2" / "repo0" / "src" / "pkg2" / "pkg2" / "pkg0", 6, 50),
        (root / "org3" / "repo3" / "src" / "pkg1" / "pkg0" / "pkg1" / "pkg2", 7, 10),
    ]
    for project, _depth, episodes in loki:
        plant_loki(project, episodes, patterns=200, skills=20)
    liveagent = [
        (root / "org4" / "backup-memory", 2, 10, 500),  # depth, projects, memories per scope
        (root / "org5" / "repo0" / "src" / "agent-memory", 4, 2, 100),
    ]
    for store, _depth, projects, per_scope in liveagent:
        plant_liveagent(store, projects, per_scope)
    dirs = sum(len(d) for _, d, _ in os.walk(root))
    return {
        "folders_in_tree": dirs + 1,
        "folders_made_outside_stores": made,
        "loki_stores": len(loki),
        "liveagent_stores": len(liveagent),
        "expected_episodes": sum(e for _, _, e in loki),
        "expected_memories": sum((p + 1) * n for _, _, p, n in liveagent),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--orgs", type=int, default=6)
    parser.add_argument("--repos", type=int, default=8)
    parser.add_argument("--levels", type=int, default=5, help="source-tree depth (fan-out 3)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": machine_info(), "package": package_state()}
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as tmp:
        root = Path(tmp) / "code"
        log("building the tree")
        started = time.perf_counter()
        results["tree"] = build(root, args.orgs, args.repos, args.levels)
        results["tree"]["build_seconds"] = round(time.perf_counter() - started, 1)
        log(json.dumps(results["tree"]))
        runs = []
        for depth in (config.PROJECTS_DEFAULT_MAX_DEPTH, 10):
            walls, cpus, result = [], [], None
            for _ in range(args.repeats):
                wall, cpu = time.perf_counter(), time.process_time()
                result = discover_stores([str(root)], max_depth=depth)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            assert result is not None
            totals = result.totals
            runs.append(
                {
                    "max_depth": depth,
                    "median_ms": round(statistics.median(walls) * 1000, 1),
                    "min_ms": round(min(walls) * 1000, 1),
                    "max_ms": round(max(walls) * 1000, 1),
                    "cpu_median_ms": round(statistics.median(cpus) * 1000, 1),
                    **totals.to_dict(),
                }
            )
            log(json.dumps(runs[-1]))
        results["runs"] = runs
        # The counting part on its own: the biggest store of each kind.
        parts = {}
        for label, count, path in (
            ("liveagent_5500_memories", count_liveagent_store, root / "org4" / "backup-memory"),
            (
                "loki_2000_episodes",
                count_loki_store,
                root / "org1" / "repo2" / "src" / "pkg0" / "pkg1" / ".loki" / "memory",
            ),
        ):
            walls = []
            for _ in range(args.repeats):
                wall = time.perf_counter()
                count(path)
                walls.append(time.perf_counter() - wall)
            parts[label] = round(statistics.median(walls) * 1000, 1)
        results["counting_median_ms"] = parts
        log(json.dumps(parts))
    print(markdown(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
    return 0


def markdown(results: dict[str, Any]) -> str:
    tree = results["tree"]
    lines = [
        f"Tree: {tree['folders_in_tree']:,} folders, {tree['loki_stores']} Loki Mode and "
        f"{tree['liveagent_stores']} LiveAgent stores "
        f"({tree['expected_episodes']:,} episodes, {tree['expected_memories']:,} memories).",
        "",
        "| max depth | median | range | CPU | folders scanned | pruned | below depth | stores "
        "| memories | episodes |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in results["runs"]:
        lines.append(
            f"| {run['max_depth']} | {run['median_ms']} ms | {run['min_ms']}-{run['max_ms']} ms "
            f"| {run['cpu_median_ms']} ms | {run['dirs_scanned']:,} | {run['dirs_pruned']:,} "
            f"| {run['depth_limited']:,} | {run['stores']} | {run['memories']:,} "
            f"| {run['episodes']:,} |"
        )
    parts = results["counting_median_ms"]
    lines += [
        "",
        f"Counting alone (median): a LiveAgent store of 5,500 memories "
        f"{parts['liveagent_5500_memories']} ms, a Loki Mode store of 2,000 episodes and 200 "
        f"patterns {parts['loki_2000_episodes']} ms.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())

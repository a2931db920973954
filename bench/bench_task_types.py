"""Task-type detection on labelled queries (issue 18): accuracy per type and per language.

The detector (domain/task_types.py `detect_task_type`) picks the strategy a task-aware context
weighs memories by, so a debugging question read as implementation gets anti-patterns at 0.
The labelled sets are in bench/data/ (task type <TAB> query, hand-written; English, Chinese and
mixed): `task_types_dev.tsv` is the one the detector was developed against,
`task_types_check.tsv` was written afterwards and is only measured, and
`task_types_holdout.tsv` is kept for the next detector (by meaning): never tuned on.

    .venv/bin/python bench/bench_task_types.py [--set dev|check|holdout|all] [--misses] [--out FILE]

Exit code 1 when accuracy on the chosen set is under TARGET.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.domain.task_types import TaskType, detect_task_type
from liveagent_memory.domain.text import has_cjk

DATA = Path(__file__).resolve().parent / "data"
SETS: dict[str, tuple[str, ...]] = {
    "dev": ("task_types_dev.tsv",),
    "check": ("task_types_check.tsv",),
    # Written before any detector by meaning existed, to measure one honestly: never tune on it.
    "holdout": ("task_types_holdout.tsv",),
}
SETS["all"] = SETS["dev"] + SETS["check"]
TARGET = 0.90  # the bar


def load(names: tuple[str, ...]) -> list[tuple[TaskType, str]]:
    """(expected type, query) of every labelled line of the named files."""
    rows = []
    for name in names:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                label, query = line.split("\t", 1)
                rows.append((TaskType(label), query))
    return rows


def language(query: str) -> str:
    """en, zh, or mixed (Chinese with an English word of two letters or more)."""
    if not has_cjk(query):
        return "en"
    return "mixed" if re.search(r"[A-Za-z]{2,}", query) else "zh"


def measure(rows: list[tuple[TaskType, str]]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    misses = []
    for expected, query in rows:
        got = detect_task_type(query)
        for key in ("all", expected.value, language(query)):
            total[key] += 1
            right[key] += got is expected
        if got is not expected:
            misses.append({"query": query, "expected": expected.value, "got": got.value})
    accuracy = {key: round(right[key] / total[key], 3) for key in total}
    return {"queries": total["all"], "accuracy": accuracy, "counts": dict(total), "misses": misses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="all")
    parser.add_argument("--misses", action="store_true", help="list every wrong answer")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    result = measure(load(SETS[args.set]))
    accuracy = result["accuracy"]
    print(f"{args.set}: {result['queries']} queries, accuracy {accuracy['all']:.3f}")
    for key in (*(t.value for t in TaskType), "en", "zh", "mixed"):
        if key in accuracy:
            print(f"  {key:<15} {accuracy[key]:.3f}  ({result['counts'][key]})")
    if args.misses:
        for miss in result["misses"]:
            print(f"  miss: {miss['expected']:<15} got {miss['got']:<15} {miss['query']}")
    if args.out:
        record = {"machine": machine_info(), "package": package_state(), args.set: result}
        args.out.write_text(json.dumps(record, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if accuracy["all"] >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())

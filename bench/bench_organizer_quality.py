"""Organizer quality: the offline planner's merge proposals scored on labelled sets (issue 15).

A set (`../shared/bench-data/organizer-dev.json` and the kept-back sets of the same shape) holds
memories, the groups of them a careful person would merge (`duplicate_groups`, each with a
kind), look-alike pairs that must stay apart (`must_not_merge`) and contradicting pairs
(`conflicts`). Each set is loaded into a fresh store and organized offline twice, through the
real pipeline: by words only (no meanings), and with the local model's meanings (the default
install). Each proposed merge becomes unordered slug pairs (target x each source, the sources
among themselves) and is scored as the set's README says:

- pair precision: proposed pairs inside one duplicate group / proposed pairs;
- pair recall: true pairs proposed / true pairs, overall, without the cross-lingual groups, and
  per kind of group;
- must-not-merge pairs proposed (per kind), pairs across scope or project;
- contradictions: merged (never), shown (a review item naming both), per conflict pair.

    .venv/bin/python bench/bench_organizer_quality.py ../shared/bench-data/organizer-dev.json \
        --out bench/out/organizer-quality.json
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.organizer.pipeline import OrganizerPipeline

FIELDS = ("slug", "scope", "type", "description", "body", "confidence", "source_quote")
Pair = tuple[str, str]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def load(context: AppContext, memories: list[dict[str, Any]]) -> None:
    """Every memory written through `memory_apply_batch`, one batch per scope and project."""
    by_place: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for memory in memories:
        by_place[(memory["scope"], memory.get("workdir") or "")].append(memory)
    for (_scope, workdir), group in sorted(by_place.items()):
        items = [
            {"op": "upsert", **{k: m[k] for k in FIELDS if m.get(k) is not None}} for m in group
        ]
        payload: dict[str, Any] = {"items": items}
        if workdir:
            payload["workdir"] = workdir
        result = dispatch(context, "memory_apply_batch", payload)
        refused = [i for i in result["items"] if i.get("status") != "applied"]
        if refused:
            raise SystemExit(f"{len(refused)} memories were refused, e.g. {refused[0]}")


def organize(context: AppContext, *, meanings: bool) -> tuple[dict[str, Any], float]:
    """One offline run over every scope and project; returns its report and its seconds."""
    created = dispatch(context, "organize_run_create", {"trigger": "manual", "mode": "standard"})
    pipeline = OrganizerPipeline(
        context.store, None, meanings=context.meanings() if meanings else None
    )
    started = time.perf_counter()
    final = asyncio.run(pipeline.run(created["run"], offline=True))
    seconds = time.perf_counter() - started
    if final["status"] != "succeeded":
        raise SystemExit(f"the run ended {final['status']}: {final.get('error')}")
    return final["report"]["report"] or {}, seconds


def proposed_pairs(report: dict[str, Any]) -> set[Pair]:
    out: set[Pair] = set()
    for decision in report.get("safeDecisions") or []:
        if decision.get("op") == "upsert" and decision.get("groupId"):
            members = sorted({decision["slug"], *decision.get("sourceSlugs", [])})
            out.update(pair(a, b) for a, b in itertools.combinations(members, 2))
    return out


def shown_pairs(report: dict[str, Any]) -> set[Pair]:
    out = set()
    for item in report.get("reviewItems") or []:
        params = item.get("params") or {}
        if item.get("code") == "contradiction":
            out.add(pair(params["first"], params["second"]))
    return out


def ratio(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def score(data: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    memories = {m["slug"]: m for m in data["memories"]}
    kind_of: dict[Pair, str] = {}
    for group in data.get("duplicate_groups") or []:
        for a, b in itertools.combinations(group["slugs"], 2):
            kind_of[pair(a, b)] = group["kind"]
    proposed, shown = proposed_pairs(report), shown_pairs(report)
    hits = proposed & kind_of.keys()
    kinds = sorted(set(kind_of.values()))
    recall_by_kind = {
        kind: ratio(
            sum(1 for p in hits if kind_of[p] == kind),
            sum(1 for k in kind_of.values() if k == kind),
        )
        for kind in kinds
    }
    same_language = {p for p, k in kind_of.items() if k != "cross-lingual"}
    nomerge = {pair(*e["slugs"]): e.get("kind", "unlabelled") for e in data["must_not_merge"]}
    conflicts = [pair(*e["slugs"]) for e in data.get("conflicts") or []]

    def place(slug: str) -> tuple[str, str]:
        return memories[slug]["scope"], memories[slug].get("workdir") or ""

    return {
        "proposed_pairs": len(proposed),
        "precision": ratio(len(hits), len(proposed)),
        "recall": ratio(len(hits), len(kind_of)),
        "recall_same_language": ratio(len(hits & same_language), len(same_language)),
        "recall_by_kind": recall_by_kind,
        "false_pairs": sorted(proposed - kind_of.keys()),
        "must_not_merge_proposed": {
            kind: sum(1 for p, k in nomerge.items() if k == kind and p in proposed)
            for kind in sorted(set(nomerge.values()))
        },
        "across_places": sum(1 for a, b in proposed if place(a) != place(b)),
        "conflicts": len(conflicts),
        "conflicts_merged": sum(1 for p in conflicts if p in proposed),
        "conflicts_shown": sum(1 for p in conflicts if p in shown),
        "contradictions_shown": len(shown),
        "missed": sorted(kind_of.keys() - proposed),
    }


def run_set(path: Path, base: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    home = base / path.stem
    out: dict[str, Any] = {"set": path.name, "memories": len(data["memories"])}
    with AppContext.open(home) as context:
        load(context, data["memories"])
        for mode, meanings in (("words", False), ("meaning", True)):
            log(f"[{path.name}] offline run by {mode}")
            report, seconds = organize(context, meanings=meanings)
            out[mode] = {**score(data, report), "seconds": round(seconds, 2)}
    return out


def markdown(results: list[dict[str, Any]]) -> str:
    lines = []
    for result in results:
        kinds = sorted(result["words"]["recall_by_kind"])
        lines += [
            f"**{result['set']}** ({result['memories']} memories)",
            "",
            "| offline by | precision | recall | recall same-language | "
            + " | ".join(f"recall {k}" for k in kinds)
            + " | must-not-merge proposed | across places | conflicts merged | "
            "conflicts shown | seconds |",
            "|---" + "|---:" * (8 + len(kinds)) + "|",
        ]
        for mode in ("words", "meaning"):
            r = result[mode]
            shown = f"{r['conflicts_shown']}/{r['conflicts']}"
            lines.append(
                f"| {mode} | {r['precision']} ({r['proposed_pairs']} pairs) | {r['recall']} | "
                f"{r['recall_same_language']} | "
                + " | ".join(str(r["recall_by_kind"][k]) for k in kinds)
                + f" | {sum(r['must_not_merge_proposed'].values())} | {r['across_places']} | "
                f"{r['conflicts_merged']} | {shown} | {r['seconds']} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", type=Path, help="labelled sets (JSON)")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-organizer-quality-") as tmp:
        results = [run_set(path, Path(tmp)) for path in args.sets]
    print(markdown(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        document = {"machine": machine_info(), "code": package_state(), "sets": results}
        args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

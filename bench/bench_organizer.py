"""Organizer benchmark: an offline run (no model) over 500 and 5,000 memories.

The store holds N memories from the bench_store corpus (a third Chinese, a third English, a third
mixed), half global and half in one project, of which 10% are planted duplicates: a third exact
copies, a third with changed case/punctuation/spacing, a third with one extra sentence. A manual
offline run (`OrganizerPipeline.run(..., offline=True)`) is timed end to end and per phase
(scan: reading every memory; plan: the duplicate finder; gate; writing the run report), then
`organize_apply` with every decision key (a person accepting the whole review queue) is
timed too.

    .venv/bin/python bench/bench_organizer.py --sizes 500 5000 --out bench/out/organizer.json
    .venv/bin/python bench/bench_organizer.py --sizes 500 --meanings  # embeds 500 (~20 s)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import Memory, build_vocabulary, generate, open_store, seed_files
from benchenv import machine_info, package_state

from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.retrieval.meanings import LocalMeanings

SEED = 20261130
DUPLICATE_SHARE = 0.10


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def plant_duplicates(memories: list[Memory], rng: random.Random) -> tuple[list[Memory], int]:
    """Replace 10% of the memories with variants of others; returns (memories, planted)."""
    n = len(memories)
    count = int(n * DUPLICATE_SHARE)
    targets = rng.sample(range(n), count * 2)
    originals, copies = targets[:count], targets[count:]
    out = list(memories)
    for k, (src, dst) in enumerate(zip(originals, copies, strict=True)):
        base = memories[src]
        body = base.body
        if k % 3 == 1:
            body = body.upper().replace("。", ".").replace(",", " ,")
        elif k % 3 == 2:
            body = body + " Also noted again in a later conversation."
        out[dst] = Memory(
            slug=memories[dst].slug,
            type=base.type,
            description=base.description,
            body=body,
            lang=base.lang,
        )
    return out, count


def run_size(n: int, base: Path, *, meanings: bool = False) -> dict[str, Any]:
    vocab = build_vocabulary(SEED, 40_000, 12_000)
    memories, _ = generate(vocab, n, SEED)
    rng = random.Random(SEED + n)
    half = n // 2
    glob, proj = memories[:half], memories[half:]
    glob, planted_g = plant_duplicates(glob, rng)
    proj, planted_p = plant_duplicates(proj, rng)
    root = base / f"org-{n}"
    workdir = base / f"project-{n}"
    workdir.mkdir(parents=True)
    seed_files(root, glob)
    seed_files(root, proj, workdir=str(workdir))
    store = open_store(root)
    phases: dict[str, float] = {}
    last = [time.perf_counter(), ""]

    def progress(message: str) -> None:
        now = time.perf_counter()
        if last[1]:
            phases[str(last[1])] = phases.get(str(last[1]), 0.0) + (now - float(last[0])) * 1000
        last[0], last[1] = now, message

    try:
        created = dispatch(store, "organize_run_create", {"trigger": "manual", "mode": "standard"})
        started = time.perf_counter()
        final = asyncio.run(
            OrganizerPipeline(store, None, meanings=LocalMeanings(root) if meanings else None).run(
                created["run"], workdir=str(workdir), offline=True, progress=progress
            )
        )
        total = (time.perf_counter() - started) * 1000
        progress("end")
        report = final["report"]["report"] or {}
        decisions = report.get("safeDecisions") or []
        started = time.perf_counter()
        keys = [SafeDecision.from_report(d).key(i) for i, d in enumerate(decisions)]
        applied = dispatch(store, "organize_apply", {"run_id": final["run_id"], "keys": keys})
        apply_ms = (time.perf_counter() - started) * 1000
    finally:
        store.close()
    return {
        "n": n,
        "planted_duplicates": planted_g + planted_p,
        "status": final["status"],
        "clusters": final["cluster_count"],
        "decisions": len(decisions),
        "merges": sum(1 for d in decisions if d["op"] == "upsert"),
        "low_risk": sum(1 for d in decisions if d["riskLevel"] == "low"),
        "run_ms": round(total, 1),
        "phase_ms": {k: round(v, 1) for k, v in phases.items()},
        "apply_all_ms": round(apply_ms, 1),
        "applied": len(applied["applied"]),
        "final_count": applied["final_count"],
    }


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "| memories | planted dups | clusters | merges (low risk) | run ms | scan | cluster+plan "
        "| gate | apply (report) | apply all ms | memories after |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["sizes"]:
        p = r["phase_ms"]
        lines.append(
            f"| {r['n']:,} | {r['planted_duplicates']} | {r['clusters']} | {r['merges']} "
            f"({r['low_risk']}) | {r['run_ms']:.0f} | {p.get('scan', 0):.0f} | "
            f"{p.get('cluster', 0):.0f} | {p.get('gate', 0):.0f} | {p.get('apply', 0):.0f} | "
            f"{r['apply_all_ms']:.0f} | {r['final_count']:,} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500])
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--meanings",
        action="store_true",
        help="with the local model's meanings (the run embeds every memory first)",
    )
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": machine_info(), "package": package_state(), "sizes": []}
    with tempfile.TemporaryDirectory(prefix="bench-organizer-") as tmp:
        for n in args.sizes:
            log(f"[{n}] offline organizer run")
            results["sizes"].append(run_size(n, Path(tmp), meanings=args.meanings))
    print(markdown(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

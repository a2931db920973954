"""Where LoCoMo keyword misses are lost: candidate pool or re-rank (issue 17, fourth round).

For every question whose evidence is not in our top 10 it reports the best evidence turn's
rank in the whole BM25 list of the store's own MATCH (no candidate cut: is the evidence among
the 64 candidates at all?) and after the store's re-rank (store.search at the largest limit),
which of the question's words the evidence shares (the coverage units), and whether the turn
said just before an evidence turn (often the question it answers) is in the top 10.
The stores are built as `bench_locomo.py` builds them (one memory per turn, written at its
session's time).

    .venv/bin/python bench/locomo_misses.py /work/shared/bench-data/locomo-dev.json \\
        --out bench/out/locomo-misses.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench_locomo import build_store, load_conversation

from liveagent_memory.domain import config
from liveagent_memory.domain.dates import date_spans, without_spans
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store import search as search_module

BUCKETS = ((10, "1-10"), (32, "11-32"), (64, "33-64"), (128, "65-128"), (10**9, "129+"))


def bucket(rank: int | None) -> str:
    if rank is None:
        return "not matched"
    return next(label for limit, label in BUCKETS if rank <= limit)


def bm25_ranks(index: sqlite3.Connection, question: str, rowid_to_dia: dict[int, str]) -> list[str]:
    """The whole BM25 list of the store's MATCH for the question's words (as search builds it,
    absolute dates left out)."""
    from datetime import date

    spans = date_spans(question, date.today())
    terms = search_module.query_terms(without_spans(question, [s for s in spans if s.absolute]))
    match = search_module.match_expression(terms)
    if not match:
        return []
    weights = ", ".join(str(w) for w in search_module.COLUMN_WEIGHTS)
    rows = index.execute(
        f"SELECT rowid FROM memory_search WHERE memory_search MATCH ? "
        f"ORDER BY bm25(memory_search, {weights})",
        (match,),
    ).fetchall()
    return [rowid_to_dia[r[0]] for r in rows if r[0] in rowid_to_dia]


def first_rank(ranked: list[str], evidence: list[str]) -> int | None:
    found = [ranked.index(e) + 1 for e in evidence if e in ranked]
    return min(found) if found else None


def previous(dia_id: str) -> str:
    """The turn said just before `dia_id` in its session (D3:7 -> D3:6)."""
    session, turn = dia_id.split(":")
    return f"{session}:{int(turn) - 1}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/out/locomo-misses.json"))
    args = parser.parse_args(argv)
    args.batch, args.undated, args.with_date, args.description = 500, False, False, "prefix"
    data = json.loads(args.locomo.read_text("utf-8"))
    base = Path(tempfile.mkdtemp(prefix="locomo-misses-"))
    misses: list[dict[str, Any]] = []
    total = 0
    try:
        for position, item in enumerate(data):
            name = str(item.get("sample_id") or f"conv-{position}")
            turns, questions, _ = load_conversation(item)
            store, _ = build_store(base / name, turns, args)
            text = {t.dia_id: t.document(False) for t in turns}
            slug_to_dia = {t.slug: t.dia_id for t in turns}
            index = sqlite3.connect(f"file:{base / name / config.INDEX_FILENAME}?mode=ro", uri=True)
            rowid_to_dia = {
                int(row[0]): slug_to_dia[row[1]]
                for row in index.execute("SELECT id, slug FROM memory_files")
                if row[1] in slug_to_dia
            }
            for question in questions:
                total += 1
                wide = store.search(
                    SearchRequest(
                        query=question.text,
                        limit=config.SEARCH_MAX_LIMIT,
                        include_all_projects=True,
                    )
                )
                ranked = [slug_to_dia.get(h.slug, h.slug) for h in wide.matches]
                final = first_rank(ranked, question.evidence)
                if final is not None and final <= 10:
                    continue
                pool = bm25_ranks(index, question.text, rowid_to_dia)
                units = search_module.coverage_units(search_module.query_terms(question.text))
                shared = sorted(
                    {
                        unit[0]
                        for e in question.evidence
                        for unit in units
                        if any(alt in text[e].lower() for alt in unit)
                    }
                )
                misses.append(
                    {
                        "conversation": name,
                        "category": question.category,
                        "question": question.text,
                        "evidence": [text[e] for e in question.evidence],
                        "bm25_rank": first_rank(pool, question.evidence),
                        "final_rank": final,
                        "previous_turn_in_top10": any(
                            previous(e) in ranked[:10] for e in question.evidence
                        ),
                        "units": [u[0] for u in units],
                        "shared": shared,
                    }
                )
            index.close()
            store.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    by_pool = Counter(bucket(m["bm25_rank"]) for m in misses)
    by_final = Counter(bucket(m["final_rank"]) for m in misses)
    shared_counts = Counter(len(m["shared"]) for m in misses)
    print(f"{len(misses)} of {total} questions missed at 10")
    print("evidence rank in the whole BM25 list:", dict(sorted(by_pool.items())))
    print("evidence rank after the re-rank (top 32):", dict(sorted(by_final.items())))
    print("query units the evidence shares:", dict(sorted(shared_counts.items())))
    reachable = [m for m in misses if len(m["shared"]) >= 2]
    print(
        f"{len(reachable)} share two or more; their rank after the re-rank:",
        dict(sorted(Counter(bucket(m["final_rank"]) for m in reachable).items())),
    )
    before = sum(1 for m in misses if m["previous_turn_in_top10"])
    print(f"{before} misses have the turn just before an evidence turn in the top 10")
    print("misses by category:", dict(sorted(Counter(m["category"] for m in misses).items())))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(misses, indent=1, ensure_ascii=False), "utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

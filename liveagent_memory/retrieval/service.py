"""Retrieval's typed entry points: search, hybrid search, task context, embeddings, metrics.

Each takes the store, its request model and, where embeddings take part, the `ChainSource` of
the composition root (retrieval/chain.py). The named commands turn the results into JSON; the
MemoryManager tool calls these directly. `asearch` is `search` for an event loop: the desktop
app's search box awaits it (docs/ARCHITECTURE.md "Threads and loops of the app").
"""

from __future__ import annotations

from typing import Any

from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.requests import (
    ContextRequest,
    EmbeddingsRequest,
    HybridSearchRequest,
    MetricsRequest,
    SearchRequest,
)
from liveagent_memory.retrieval import embedding_sync
from liveagent_memory.retrieval import embeddings as embedding_service
from liveagent_memory.retrieval import metrics as retrieval_metrics
from liveagent_memory.retrieval.chain import (
    ChainSource,
    open_searcher,
    provider_chain,
    semantic_searcher,
)
from liveagent_memory.retrieval.hybrid import HybridResult, hybrid_search, keyword_only_reason
from liveagent_memory.retrieval.query_focus import focused_query
from liveagent_memory.retrieval.unified import MemoryContext, get_relevant_context
from liveagent_memory.retrieval.vector_builder import read_build_file
from liveagent_memory.store.store import MemoryStore


def search(store: MemoryStore, req: SearchRequest, source: ChainSource) -> HybridResult:
    """Keywords, fused with embeddings when they are configured and something is embedded.

    SPEC 1.6: a broken embeddings setting never fails a search; it is keyword-only and says why.
    """
    with semantic_searcher(store, source, None, tolerate_settings=True) as (semantic, problem):
        result = hybrid_search(store, req, semantic)
    return _reported(result, problem)


async def asearch(
    store: MemoryStore, req: SearchRequest, source: ChainSource, *, offload: SyncCall = call_here
) -> HybridResult:
    """`search`, awaited: the query's vector is awaited on the running loop, and every store,
    index and cache access runs through `offload` (the app's store worker), so no provider is
    ever called there. Ranked, counted and reported as `search` does."""
    semantic, problem = await offload(open_searcher, store, source, None, tolerate_settings=True)
    try:
        vector = None
        if semantic is not None and keyword_only_reason(req) is None:
            focus = await offload(focused_query, store, req.query)
            vector = await semantic.aquery_vector(req.query, focus=focus, offload=offload)
        result = await offload(hybrid_search, store, req, semantic, vector=vector)
    finally:
        if semantic is not None:
            await offload(semantic.chain.flush_metrics)
    return _reported(result, problem)


def _reported(result: HybridResult, problem: MemoryDomainError | None) -> HybridResult:
    """SPEC 1.6: a broken `embeddings` setting is said, as the reason and a failure."""
    if problem is not None:
        result.reason = f"embeddings are configured but unusable: {problem.message}"
        result.failures = [
            {"provider": "settings", "error": problem.code, "message": problem.message}
        ]
    return result


def search_hybrid(
    store: MemoryStore, req: HybridSearchRequest, source: ChainSource
) -> HybridResult:
    """A search with the request's own provider chain; any broken chain is an error."""
    plain = SearchRequest(**req.model_dump(exclude={"providers"}))
    searcher = semantic_searcher(store, source, req.providers, tolerate_settings=False)
    with searcher as (semantic, _):
        return hybrid_search(store, plain, semantic)


def relevant_context(store: MemoryStore, req: ContextRequest, source: ChainSource) -> MemoryContext:
    """The memories and episodes for a task within its token budget, counted in the metrics
    unless the request says not to.

    A broken `embeddings` setting must not cost an agent its context: keyword-only, reported as
    a fallback.
    """
    searcher = semantic_searcher(store, source, req.providers, tolerate_settings=True)
    with searcher as (semantic, problem):
        context = get_relevant_context(
            store,
            req.query,
            task_type=req.task_type,
            token_budget=req.token_budget,
            workdir=req.workdir,
            top_k=req.top_k,
            force_full=req.force_full,
            semantic=semantic,
            semantic_problem=problem,
        )
    if req.record_metrics:
        retrieval_metrics.record(store.root, context, now_ms=store.now_ms(), day=store.today())
    return context


def embeddings_status(
    store: MemoryStore, req: EmbeddingsRequest, source: ChainSource
) -> dict[str, Any]:
    """The chain's providers, vector index size and staleness, cache and fallback counts, and
    the background pass under way in any process (`build`, None when there is none)."""
    status = embedding_sync.store_status(store, provider_chain(source, req.providers))
    build = read_build_file(store.root)
    status["build"] = build
    if build is not None and status["mode"] == "keyword":
        status["reason"] = (
            f"the vectors are being built in the background ({build['done']} of "
            f"{build['total']} memories embedded)"
        )
    return status


def embeddings_rebuild(
    store: MemoryStore, req: EmbeddingsRequest, source: ChainSource
) -> embedding_sync.SyncReport:
    """Embed new and changed memories now (`full`: all of them), blocking."""
    providers = provider_chain(source, req.providers)
    return embedding_sync.rebuild_index(store, providers, full=req.full)


def metrics_report(store: MemoryStore, req: MetricsRequest) -> dict[str, Any]:
    """Retrieval metrics since the last reset, with the embedding cache's counts; `reset`
    starts counting again after reporting."""
    counters, since = retrieval_metrics.read_counters(store.root)
    cache = embedding_service.open_cache(store.root, create=False)
    try:
        embedding = cache.counters()
    finally:
        cache.close()
    report = {
        "since": since,
        **retrieval_metrics.summarize(counters, embedding),
        "days": retrieval_metrics.read_days(store.root, store.today(), req.days),
        "used": retrieval_metrics.read_used(store.root, req.used_limit),
    }
    if req.reset:
        report["reset"] = retrieval_metrics.reset(store.root)
    return report

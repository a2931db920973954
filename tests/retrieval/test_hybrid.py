"""Hybrid ranking: keyword and vector hits fused by score on a real store, keyword-only
fallbacks, and the RRF the LoCoMo baseline uses."""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.requests import (
    DailyAppendRequest,
    DeleteRequest,
    ReadRequest,
    SearchRequest,
    UpdateRequest,
)
from liveagent_memory.domain.schema import SearchResult
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import EmbeddingChain, EmbeddingProvider, vectors_folder
from liveagent_memory.retrieval.hybrid import (
    HybridResult,
    SemanticSearcher,
    hybrid_search,
    keyword_only_reason,
    rrf_fuse,
    score_fuse,
)
from liveagent_memory.retrieval.unified import get_relevant_context
from liveagent_memory.store.store import MemoryStore
from tests.helpers.corpus import FILLER
from tests.helpers.fake_embeddings import WORD, FakeEmbeddingServer
from tests.helpers.fake_llm import API_KEY
from tests.helpers.memories import write_memory

pytest.importorskip("numpy")

# Words that mean the same thing share an axis, so the vector side bridges paraphrases that
# keyword search cannot (the reason for embeddings: bench/README.md, LoCoMo misses).
CONCEPTS = {
    "car": 0,
    "automobile": 0,
    "vehicle": 0,
    "tea": 1,
    "oolong": 1,
    "deploy": 2,
    "release": 2,
    "crash": 3,
    "bug": 3,
}
DIMENSION = 24


class ConceptEmbedder:
    """Concept axes for known words, hashed axes for the rest; unit vectors."""

    def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * DIMENSION
            for word in WORD.findall(text.lower()):
                axis = CONCEPTS.get(word)
                if axis is None:
                    digest = hashlib.sha256(word.encode()).digest()
                    axis = 8 + digest[0] % (DIMENSION - 8)
                    vector[axis] += 0.2
                else:
                    vector[axis] += 1.0
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            out.append([v / norm for v in vector])
        return out


def write(store: MemoryStore, slug: str, body: str, **fields: Any) -> None:
    """A memory whose description is its slug in words."""
    write_memory(store, slug, body=body, **{"description": slug.replace("-", " "), **fields})


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    for slug, body in FILLER:
        write(store, slug, body)
    write(store, "parking", "The automobile is parked in the garage on level two.")
    write(store, "drinks", "The user drinks oolong every afternoon.")
    return store


def concept_chain(*names: str) -> EmbeddingChain:
    providers = [EmbeddingProvider("fake", name) for name in names or ("concepts",)]
    return EmbeddingChain(providers, embedder_for=lambda p: ConceptEmbedder())


def indexed(store: MemoryStore, chain: EmbeddingChain) -> SemanticSearcher:
    folder = vectors_folder(store.root)
    assert sync_index(memory_documents(store), chain, folder).status == "ok"
    return SemanticSearcher(chain, folder)


def slugs(result: SearchResult | HybridResult) -> list[str]:
    return [hit.slug for hit in result.matches]


# --- RRF ----------------------------------------------------------------------------------------
def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["c", "a"]], k=60)
    assert [doc_id for doc_id, _ in fused] == ["a", "c", "b"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)


def test_rrf_ties_keep_first_appearance_and_repeats_count_once() -> None:
    tied = rrf_fuse([["x", "y"], ["y", "x"]])
    assert [doc_id for doc_id, _ in tied] == ["x", "y"]
    assert [score for _, score in tied] == pytest.approx([1 / 61 + 1 / 62] * 2)
    assert dict(rrf_fuse([["a", "a", "b"]]))["a"] == pytest.approx(1 / 61)
    assert rrf_fuse([]) == []
    assert rrf_fuse([["a"], ["b"]], k=0)[0] == ("a", 1.0)
    with pytest.raises(ValueError):
        rrf_fuse([["a"]], k=-1)


# --- hybrid on a real store -----------------------------------------------------------------
# --- score fusion -------------------------------------------------------------------------------
def test_a_strong_keyword_hit_stays_above_weak_vector_only_hits() -> None:
    keyword = [("k1", 10.0), ("k2", 9.0), ("k3", 1.0)]
    vector = [("v1", 0.82), ("v2", 0.81), ("v3", 0.80), ("k1", 0.79)]

    fused = score_fuse(keyword, vector, depth=4, keyword_weight=0.6)

    assert [doc_id for doc_id, *_ in fused] == ["k1", "k2", "v1", "v2", "v3", "k3"]
    k2 = next(item for item in fused if item[0] == "k2")
    assert k2[2] == pytest.approx(9.0 / 10.0) and k2[3] is None  # keyword list is short: low 0
    # rank fusion puts the nearest vector-only hit above the keyword hit ranked second
    assert [doc_id for doc_id, _ in rrf_fuse([["k1", "k2", "k3"], ["v1", "v2", "v3", "k1"]])][
        :3
    ] == ["k1", "v1", "k2"]


def test_score_fusion_normalises_each_full_list_between_its_weakest_and_best() -> None:
    fused = score_fuse([("a", 4.0), ("b", 2.0)], [("c", 0.9), ("a", 0.5)], depth=2)

    parts = {doc_id: (total, kw, vec) for doc_id, total, kw, vec in fused}
    assert parts["a"] == pytest.approx((config.HYBRID_KEYWORD_WEIGHT, 1.0, 0.0))
    assert parts["b"] == (0.0, 0.0, None)
    assert parts["c"][1:] == (None, 1.0)
    assert [doc_id for doc_id, *_ in fused] == ["a", "c", "b"]
    assert score_fuse([], [], depth=3) == []
    assert score_fuse([("x", 1.0)], [("x", 0.3)], depth=1)[0][1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        score_fuse([("a", 1.0)], [], depth=1, keyword_weight=1.5)


def test_hybrid_search_keeps_a_whole_question_keyword_hit_above_vector_only_hits(
    store: MemoryStore,
) -> None:
    for slug, body in FILLER:
        write(store, slug, body)
    # Two memories name both words of the question; three short notes are nearer to it in
    # meaning (car = automobile, crash = bug: ConceptEmbedder) but share no word with it.
    write(store, "car-crash-report", "Car crash report filed with the insurer.")
    write(store, "car-crash-photos", "Car crash photos are stored in the shared drive.")
    write(store, "note-a", "Automobile bug.")
    write(store, "note-b", "Automobile bug again.")
    write(store, "note-c", "Bug automobile.")
    request = SearchRequest(query="car crash", limit=3, explain=True)

    result = hybrid_search(store, request, indexed(store, concept_chain()))

    assert result.mode == "hybrid"
    ranks = [
        (h.slug, h.explain["keyword_rank"], h.explain["vector_rank"])
        for h in result.matches
        if h.explain is not None
    ]
    assert [slug for slug, *_ in ranks[:2]] == ["car-crash-report", "car-crash-photos"]
    assert ranks[1][2] is None  # the second keyword hit is not among the vector hits
    assert ranks[2][0].startswith("note-") and ranks[2][1:] == (None, 1)
    # rank fusion of the same two lists would have put the nearest note second
    keyword_ids = ["car-crash-report", "car-crash-photos"]
    assert [d for d, _ in rrf_fuse([keyword_ids, [ranks[2][0]]])][:2] == [
        "car-crash-report",
        ranks[2][0],
    ]


def test_without_embeddings_it_is_the_keyword_search(filled: MemoryStore) -> None:
    request = SearchRequest(query="oolong afternoon")
    plain = filled.search(request)
    result = hybrid_search(filled, request, None)
    assert result.mode == "keyword" and result.reason == "no embedding provider is configured"
    assert [h.to_dict() for h in result.matches] == [h.to_dict() for h in plain.matches]
    assert set(result.to_dict()) >= {"matches", "used_fallback", "terms"}


def test_vectors_find_a_paraphrase_keywords_miss(filled: MemoryStore) -> None:
    request = SearchRequest(query="where is my car", explain=True)
    assert "parking" not in slugs(filled.search(request))
    result = hybrid_search(filled, request, indexed(filled, concept_chain()))
    assert result.mode == "hybrid" and result.provider == "fake/concepts"
    assert result.reason is None
    top = result.matches[0]
    assert top.slug == "parking"
    assert top.explain is not None
    assert top.explain["vector_rank"] == 1 and top.explain["keyword_rank"] is None
    # the best vector hit, found by no keyword: all it can have is the vector side's share
    assert top.score == pytest.approx(1 - config.HYBRID_KEYWORD_WEIGHT, abs=1e-6)
    assert "automobile" in top.snippet


def test_a_memory_both_sides_find_ranks_first(filled: MemoryStore) -> None:
    result = hybrid_search(
        filled, SearchRequest(query="oolong", explain=True), indexed(filled, concept_chain())
    )
    top = result.matches[0]
    assert top.slug == "drinks"
    assert top.explain is not None
    assert top.explain["keyword_rank"] == 1 and top.explain["vector_rank"] == 1
    assert top.score == pytest.approx(1.0, abs=1e-6)  # the best of both sides


def test_vector_hits_obey_scope_project_and_type(filled: MemoryStore, workdir: str) -> None:
    write(
        filled,
        "project-car",
        "The vehicle for the demo is rented.",
        scope="project",
        type="project",
        workdir=workdir,
    )
    semantic = indexed(filled, concept_chain())
    no_project = hybrid_search(filled, SearchRequest(query="car", limit=32), semantic)
    assert "project-car" not in slugs(no_project) and "parking" in slugs(no_project)
    with_project = hybrid_search(
        filled, SearchRequest(query="car", workdir=workdir, limit=32), semantic
    )
    assert {"project-car", "parking"} <= set(slugs(with_project))
    only_project = hybrid_search(
        filled, SearchRequest(query="car", scope="project", workdir=workdir), semantic
    )
    assert slugs(only_project) == ["project-car"]
    every_project = hybrid_search(
        filled, SearchRequest(query="car", scope="project", include_all_projects=True), semantic
    )
    assert slugs(every_project) == ["project-car"]
    only_user = hybrid_search(filled, SearchRequest(query="car", type="user"), semantic)
    assert only_user.matches == []


def test_vector_hits_obey_the_review_confidence_and_risk_filters(filled: MemoryStore) -> None:
    """The vector side keeps only what the keyword side's filter keeps, before its own cut:
    the reviewed car memory is the farthest of the car memories, yet found at limit 1."""
    for i in range(4):  # written by a tool: unreviewed, and nearer to "car" than the one below
        write(filled, f"car-note-{i}", f"The automobile {i} is a vehicle.")
    write(
        filled,
        "garage-car",
        "The car stays in the shared garage near the office with the bikes and boxes.",
        actor="user",
    )
    write(filled, "risky-car", "Move the vehicle with sudo access.", actor="user")
    write(
        filled,
        "car-quote",
        "The vehicle is blue.",
        actor="user",
        confidence="high",
        source_quote="my vehicle is blue",
    )
    semantic = indexed(filled, concept_chain())

    def found(**fields: object) -> list[str]:
        request = SearchRequest.model_validate({"query": "where is my automobile", **fields})
        return slugs(hybrid_search(filled, request, semantic))

    assert "garage-car" not in found(limit=3)  # the nearest are unreviewed
    assert found(unreviewed=False, risk_flagged=False, confidence="unknown", limit=1) == [
        "garage-car"
    ]
    assert found(risk_flagged=True) == ["risky-car"]
    assert found(confidence="high") == ["car-quote"]
    unreviewed = found(unreviewed=True, limit=32)
    assert {"parking", "car-note-0", "risky-car"} <= set(unreviewed)  # a soft risk waits too
    assert not {"garage-car", "car-quote"} & set(unreviewed)


def test_deleted_or_edited_memories_are_not_served_from_stale_vectors(
    filled: MemoryStore,
) -> None:
    semantic = indexed(filled, concept_chain())
    filled.update(UpdateRequest(slug="parking", body="Parking is free on Sundays.", mode="replace"))
    edited = hybrid_search(filled, SearchRequest(query="car"), semantic)
    assert "parking" not in slugs(edited) and edited.stale_skipped == 1
    filled.delete(DeleteRequest(slug="parking"))
    deleted = hybrid_search(filled, SearchRequest(query="car"), semantic)
    assert "parking" not in slugs(deleted) and deleted.stale_skipped == 1


def test_a_rebuild_by_another_process_is_picked_up(filled: MemoryStore) -> None:
    chain = concept_chain()
    semantic = indexed(filled, chain)
    assert hybrid_search(filled, SearchRequest(query="vehicle"), semantic).matches[0].slug == (
        "parking"
    )
    write(filled, "bike", "A vehicle with two wheels: the bicycle in the hall.")
    sync_index(memory_documents(filled), concept_chain(), vectors_folder(filled.root))
    found = slugs(hybrid_search(filled, SearchRequest(query="vehicle", limit=32), semantic))
    assert "bike" in found


def test_no_vectors_yet_is_keyword_only_with_the_reason(filled: MemoryStore) -> None:
    chain = concept_chain()
    semantic = SemanticSearcher(chain, vectors_folder(filled.root))
    result = hybrid_search(filled, SearchRequest(query="oolong"), semantic)
    assert result.mode == "keyword" and "embeddings rebuild" in (result.reason or "")
    assert slugs(result) == slugs(filled.search(SearchRequest(query="oolong")))
    assert chain.metrics.keyword_only == 1


def test_without_numpy_search_is_keyword_only(
    filled: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed(filled, concept_chain())  # vectors saved while numpy was there
    monkeypatch.setitem(sys.modules, "numpy", None)
    semantic = SemanticSearcher(concept_chain(), vectors_folder(filled.root))
    result = hybrid_search(filled, SearchRequest(query="oolong"), semantic)
    assert result.mode == "keyword" and "numpy" in (result.reason or "")
    assert slugs(result)[0] == "drinks"


def test_no_index_files_means_keyword_search_without_loading_numpy(
    filled: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing embedded yet: a state, not a failure; numpy is not even needed to know it.
    monkeypatch.setitem(sys.modules, "numpy", None)
    chain = concept_chain()
    result = hybrid_search(
        filled, SearchRequest(query="oolong"), SemanticSearcher(chain, vectors_folder(filled.root))
    )
    assert result.mode == "keyword" and result.failures == []
    assert (result.reason or "").startswith("no vectors yet")
    assert chain.metrics.keyword_only == 1 and chain.metrics.failures == {}


# --- the chain at query time, through the fake server ---------------------------------------
@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as server:
        yield server


@pytest.fixture
def server(shared_server: FakeEmbeddingServer) -> FakeEmbeddingServer:
    return shared_server.reset()


def remote(server: FakeEmbeddingServer, model: str) -> EmbeddingProvider:
    return EmbeddingProvider("openai", model, server.base_url, API_KEY, timeout=5.0)


def test_every_provider_failing_leaves_keyword_search_working(
    filled: MemoryStore, server: FakeEmbeddingServer
) -> None:
    model = server.add_model("embed-a", dimension=16)
    chain = EmbeddingChain([remote(server, "embed-a")])
    semantic = indexed(filled, chain)
    model.status = 500
    result = hybrid_search(filled, SearchRequest(query="oolong"), semantic)
    assert result.mode == "keyword" and "HTTP 500" in (result.reason or "")
    assert result.failures[0]["provider"] == "openai/embed-a"
    assert slugs(result)[0] == "drinks"
    assert chain.metrics.keyword_only == 1 and chain.metrics.failures == {"openai/embed-a": 1}


def test_a_query_of_another_dimension_falls_back_to_the_next_provider(
    filled: MemoryStore, server: FakeEmbeddingServer
) -> None:
    first = server.add_model("embed-a", dimension=16)
    server.add_model("embed-b", dimension=16)
    folder = vectors_folder(filled.root)
    documents = memory_documents(filled)
    for name in ("embed-a", "embed-b"):
        sync_index(documents, EmbeddingChain([remote(server, name)]), folder)
    chain = EmbeddingChain([remote(server, "embed-a"), remote(server, "embed-b")])
    first.dimension = 32  # the model behind embed-a changed; its index is now of another size
    result = hybrid_search(filled, SearchRequest(query="oolong"), SemanticSearcher(chain, folder))
    assert result.mode == "hybrid" and result.provider == "openai/embed-b"
    assert chain.metrics.fallbacks == 1
    assert chain.last_failures[0].error == "embedding_dimension_mismatch"


@pytest.mark.asyncio
async def test_a_search_handed_its_query_vector_calls_no_provider(
    filled: MemoryStore, server: FakeEmbeddingServer
) -> None:
    model = server.add_model("embed-a", dimension=16)
    first = server.add_model("embed-0", dimension=32)  # its index is of another size
    folder = vectors_folder(filled.root)
    for name in ("embed-0", "embed-a"):
        sync_index(memory_documents(filled), EmbeddingChain([remote(server, name)]), folder)
    first.dimension = 16
    chain = EmbeddingChain([remote(server, "embed-0"), remote(server, "embed-a")])
    semantic = SemanticSearcher(chain, folder)
    request = SearchRequest(query="oolong")

    vector = await semantic.aquery_vector(request.query)  # awaited, as on the app's loop
    asked = len(server.embedding_inputs("embed-a"))
    model.status = 500  # any provider call from here on would fail the hybrid side
    result = hybrid_search(filled, request, semantic, vector=vector)

    assert (result.mode, result.provider) == ("hybrid", "openai/embed-a")
    assert slugs(result)[0] == "drinks"
    assert len(server.embedding_inputs("embed-a")) == asked
    # The awaited vector fell back past the provider whose index has another size, as the
    # blocking search does.
    assert chain.last_failures[0].error == "embedding_dimension_mismatch"
    assert chain.metrics.fallbacks == 1 and chain.metrics.keyword_only == 0


@pytest.mark.asyncio
async def test_an_awaited_search_ranks_and_reports_as_the_command(
    filled: MemoryStore, server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.serve_to(filled.root)
    with context_for(filled) as context:
        dispatch(context, "embeddings_rebuild", {})
        for query in ("oolong", "automobile", ""):
            command = dispatch(context, "memory_search", {"query": query})
            awaited = await retrieval.asearch(
                filled, SearchRequest(query=query), context.embeddings
            )
            assert awaited.to_dict() == command, query
    # A broken setting is reported alike.
    (filled.root / "settings.json").write_text("{not json", "utf-8")
    with context_for(filled) as context:
        command = dispatch(context, "memory_search", {"query": "oolong"})
        awaited = await retrieval.asearch(filled, SearchRequest(query="oolong"), context.embeddings)
    assert awaited.to_dict() == command
    assert command["reason"].startswith("embeddings are configured but unusable")


def test_the_hybrid_search_command(
    filled: MemoryStore, server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.add_model("embed-a", dimension=16)
    providers = [{"provider": "openai", "model": "embed-a", "api_base": server.base_url}]
    keyword = dispatch(filled, "memory_search_hybrid", {"query": "oolong", "providers": []})
    assert keyword["mode"] == "keyword"
    assert [m["slug"] for m in keyword["matches"]] == slugs(
        filled.search(SearchRequest(query="oolong"))
    )
    dispatch(filled, "embeddings_rebuild", {"providers": providers})
    hybrid = dispatch(filled, "memory_search_hybrid", {"query": "oolong", "providers": providers})
    assert hybrid["mode"] == "hybrid" and hybrid["matches"][0]["slug"] == "drinks"


def test_memory_search_is_hybrid_once_embeddings_are_configured_and_built(
    filled: MemoryStore, server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC 1.6: with embeddings configured search is hybrid; without, keyword-only, same API."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.serve_to(filled.root)
    plain = slugs(filled.search(SearchRequest(query="oolong")))
    before = dispatch(filled, "memory_search", {"query": "oolong"})
    assert before["mode"] == "keyword" and before["reason"].startswith("no vectors yet")
    assert [m["slug"] for m in before["matches"]] == plain
    assert not (vectors_folder(filled.root) / "cache.sqlite3").exists()  # searching wrote nothing
    assert server.embedding_inputs("embed-a") == []  # and embedded nothing
    dispatch(filled, "embeddings_rebuild", {})
    after = dispatch(filled, "memory_search", {"query": "oolong"})
    assert after["mode"] == "hybrid" and after["provider"] == "openai/embed-a"
    assert after["matches"][0]["slug"] == "drinks"


def test_a_broken_embeddings_setting_never_fails_memory_search(filled: MemoryStore) -> None:
    bad = [{"provider": "openai", "model": "m", "api_base": "ftp://x"}]
    (filled.root / "settings.json").write_text(json.dumps({"embeddings": bad}), encoding="utf-8")
    result = dispatch(filled, "memory_search", {"query": "oolong"})
    assert result["mode"] == "keyword" and result["matches"][0]["slug"] == "drinks"
    assert result["reason"].startswith("embeddings are configured but unusable")
    assert result["failures"][0]["provider"] == "settings"
    with pytest.raises(MemoryDomainError):  # the explicit hybrid command says what is wrong
        dispatch(filled, "memory_search_hybrid", {"query": "oolong"})


def test_memory_search_keeps_one_searcher_per_store_and_chain(
    filled: MemoryStore, server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.serve_to(filled.root)
    # One front end's context keeps its searchers (a bare store's calls each get a new one).
    context = context_for(filled)
    dispatch(context, "embeddings_rebuild", {})
    dispatch(context, "memory_search", {"query": "oolong"})
    (searcher,) = context.embeddings.searchers.kept(filled)
    index = next(iter(searcher._indexes.values()))
    dispatch(context, "memory_search", {"query": "car"})
    assert context.embeddings.searchers.kept(filled) == (searcher,)
    assert next(iter(searcher._indexes.values())) is index  # loaded once, not per search
    assert context_for(filled).embeddings.searchers.kept(filled) == ()  # no module-level cache


def test_a_journal_search_is_hybrid_and_a_vector_hit_decays_with_its_age(
    filled: MemoryStore,
) -> None:
    """Journal days are embedded: found by meaning (no word shared), each aged and its cosine
    decayed as the keyword side decays a journal day's score (domain/journal.py)."""
    today = filled.today()
    old = (today - timedelta(days=20)).isoformat()
    filled.append_daily(DailyAppendRequest(body="Drove the car to the garage."))
    filled.append_daily(DailyAppendRequest(body="Drove the car to the garage.", local_date=old))
    semantic = indexed(filled, concept_chain())
    assert keyword_only_reason(SearchRequest(query="automobile", type="daily")) is None
    req = SearchRequest(query="automobile", type="daily", explain=True)
    assert filled.search(req).matches == []  # no word shared: keywords find no day
    result = hybrid_search(filled, req, semantic)
    assert result.mode == "hybrid" and result.reason is None
    assert [h.slug for h in result.matches] == [f"daily-{today}", f"daily-{old}"]
    new_hit, old_hit = result.matches
    assert (new_hit.age_days, old_hit.age_days) == (0.0, 20.0)
    assert new_hit.explain is not None and old_hit.explain is not None
    assert new_hit.explain["vector_daily_decay"] == 1.0
    assert old_hit.explain["vector_daily_decay"] == pytest.approx(math.exp(-20 / 30), abs=1e-5)
    assert old_hit.explain["cosine"] == new_hit.explain["cosine"]  # one text: one cosine
    # Other searches keep journal days only where the keyword side does.
    ordinary = hybrid_search(filled, SearchRequest(query="automobile"), semantic)
    assert {h.type for h in ordinary.matches} == {"daily", "reference"}
    no_daily = SearchRequest(query="automobile", include_daily=False)
    assert "daily" not in {h.type for h in hybrid_search(filled, no_daily, semantic).matches}


def test_a_shadowed_global_namesake_costs_no_place(filled: MemoryStore, workdir: str) -> None:
    write(
        filled,
        "drinks",
        "The project drinks oolong in the demo.",
        scope="project",
        type="project",
        workdir=workdir,
    )
    semantic = indexed(filled, concept_chain())
    req = SearchRequest(query="oolong tea drinks automobile", workdir=workdir, limit=2)
    result = hybrid_search(filled, req, semantic)
    assert len(result.matches) == 2
    assert [(h.slug, h.scope) for h in result.matches].count(("drinks", "global")) == 0


# --- vector-only hits from the index, not the files (issue 17) ---------------------------------
def memory_file(store: MemoryStore, slug: str) -> Path:
    return store.root / store.read(ReadRequest(slug=slug)).entry.path


def test_vector_only_hits_from_the_index_equal_those_read_from_the_files(
    filled: MemoryStore,
) -> None:
    semantic = indexed(filled, concept_chain())
    requests = [SearchRequest(query=q, explain=True) for q in ("where is my car", "vehicle bug")]
    from_index = [hybrid_search(filled, req, semantic).to_dict() for req in requests]
    assert "parking" in [m["slug"] for m in from_index[0]["matches"]]
    # Every file touched behind the index's back (same text, new mtime): the index no longer
    # vouches for any of them, so each vector-only hit is read from its file.
    for slug, _ in [*FILLER, ("parking", ""), ("drinks", "")]:
        path = memory_file(filled, slug)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    from_files = [hybrid_search(filled, req, semantic).to_dict() for req in requests]
    assert from_files == from_index
    assert all(result["stale_skipped"] == 0 for result in from_files)


def test_a_memory_edited_behind_the_index_back_is_not_served_stale(filled: MemoryStore) -> None:
    semantic = indexed(filled, concept_chain())
    before = slugs(hybrid_search(filled, SearchRequest(query="vehicle"), semantic))
    assert before[0] == "parking"
    path = memory_file(filled, "parking")
    # Another program rewrites the file; neither the index nor the vectors have seen it.
    path.write_text(path.read_text().replace("automobile", "bicycle"), encoding="utf-8")
    after = hybrid_search(filled, SearchRequest(query="vehicle"), semantic)
    assert "parking" not in slugs(after) and after.stale_skipped == 1
    assert slugs(after)[: len(before) - 1] == before[1:]  # the rest as it was, the next one up


def test_a_context_embeds_its_query_once_for_all_its_memory_searches(
    filled: MemoryStore,
) -> None:
    asked: list[str] = []

    class Counting(ConceptEmbedder):
        def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
            asked.extend(texts if query else [])
            return super().embed(texts, query=query)

    chain = EmbeddingChain(
        [EmbeddingProvider("fake", "concepts")], embedder_for=lambda _: Counting()
    )
    semantic = indexed(filled, chain)
    context = get_relevant_context(
        filled, "where is my car", task_type="debugging", semantic=semantic
    )
    search = context.retrieval_stats["search"]
    assert search["mode"] == "hybrid" and search["searches"] >= 3  # feedback, semantic, journal
    assert asked == ["where is my car"]  # no cache in this chain: one embedding per context
    assert "memory:global::parking" in [item.key for item in context.items()]

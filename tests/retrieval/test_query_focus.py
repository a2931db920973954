"""The vector side's query without the store's most common words (retrieval/query_focus.py,
store/word_shares.py), on a real store with vectors from a stand-in model that, like e5 on a
short question, reads a name far more than anything else."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator, Sequence

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.embeddings import EmbeddingChain, EmbeddingProvider
from liveagent_memory.retrieval.hybrid import HybridResult, hybrid_search
from liveagent_memory.retrieval.query_focus import blended, focused_query
from liveagent_memory.retrieval.unified import _SearchLog
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_embeddings import WORD, FakeEmbeddingServer
from tests.helpers.fake_llm import API_KEY
from tests.retrieval.test_hybrid import indexed, write

pytest.importorskip("numpy")

DIMENSION = 24
AXES = {"alice": (1, 3.0), "car": (0, 1.0), "automobile": (0, 1.0)}  # (axis, weight)


class NameHeavyEmbedder:
    """Unit vectors where "car" and "automobile" share an axis, "alice" weighs three times a
    meaning word, and every other word a little on a hashed axis."""

    def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * DIMENSION
            for word in WORD.findall(text.lower()):
                axis, weight = AXES.get(word, (None, 0.2))
                if axis is None:
                    axis = 4 + hashlib.sha256(word.encode()).digest()[0] % (DIMENSION - 4)
                vector[axis] += weight
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            out.append([v / norm for v in vector])
        return out


def name_heavy_chain() -> EmbeddingChain:
    return EmbeddingChain(
        [EmbeddingProvider("fake", "names")], embedder_for=lambda p: NameHeavyEmbedder()
    )


@pytest.fixture
def team(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Four of five memories are Alice's (her name starts them, as a speaker's does); the one
    about the automobile is Bob's and does not say "car"."""
    for slug, body in (
        ("alice-garden", "Alice: watered the tomatoes in the garden."),
        ("alice-piano", "Alice: practised the piano scales."),
        ("alice-fence", "Alice: painted the fence blue."),
        ("alice-books", "Alice: returned the library books."),
        ("bob-auto", "Bob: the automobile broke down on the highway."),
    ):
        write(store, slug, body)
    monkeypatch.setattr(config, "HYBRID_COMMON_WORD_MIN_MEMORIES", 5)
    return store


def test_common_words_are_counted_on_the_store_as_keyword_search_matches_them(
    team: MemoryStore,
) -> None:
    words = ["alice", "bob", "painting", "highway", "car"]
    assert team.common_words(words, 0.2, 5) == ["alice"]  # in 4 of 5; the others in 1 or 0
    # more than 10%: every word in one memory of five; "painting" counts "painted" (its stem)
    assert team.common_words(words, 0.1, 5) == ["alice", "bob", "painting", "highway"]
    assert team.common_words(words, 0.2, 6) == []  # a store of fewer memories: none
    # what a memory says, not its type: all five are references
    assert team.common_words(["reference"], 0.2, 5) == []
    assert team.common_words([], 0.2, 1) == []
    # a list longer than one statement's columns is counted in parts
    many = [f"word{n}" for n in range(2_500)] + ["alice"]
    assert team.common_words(many, 0.2, 5) == ["alice"]


def test_the_focused_query_leaves_out_the_common_words_and_their_possessive(
    team: MemoryStore,
) -> None:
    assert focused_query(team, "What did Alice's friend say about the car?") == (
        "What did friend say about the car?"
    )
    assert focused_query(team, "What did ALICE say about the car?") == (
        "What did say about the car?"
    )
    assert focused_query(team, "What did Bob say about the car?") is None  # nothing common
    assert focused_query(team, "What did Alice do?") is None  # only stop words would be left
    assert focused_query(team, "Alice") is None
    # a text, not a question: no one word decides its vector
    text = "Alice " + " ".join(f"thing{n}" for n in range(config.HYBRID_FOCUS_MAX_WORDS))
    assert focused_query(team, text) is None
    assert focused_query(team, text.rsplit(" ", 1)[0]) is not None  # one word fewer


def test_a_store_below_the_minimum_embeds_the_query_once(
    team: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "HYBRID_COMMON_WORD_MIN_MEMORIES", 6)
    assert focused_query(team, "What did Alice say about the car?") is None


def test_the_blend_weighs_the_two_unit_vectors() -> None:
    assert blended([2.0, 0.0], [0.0, 3.0]) == pytest.approx(
        [config.HYBRID_FOCUS_FULL_WEIGHT, 1 - config.HYBRID_FOCUS_FULL_WEIGHT]
    )


def vector_rank(result: HybridResult, slug: str) -> int | None:
    hit = next((h for h in result.matches if h.slug == slug), None)
    if hit is None or hit.explain is None:
        return None
    rank = hit.explain["vector_rank"]
    return None if rank is None else int(rank)


def test_the_vector_side_finds_the_meaning_behind_a_common_name(
    team: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    semantic = indexed(team, name_heavy_chain())
    request = SearchRequest(query="What did Alice say about the car?", limit=5, explain=True)

    focused = hybrid_search(team, request, semantic)

    assert focused.mode == "hybrid"
    assert vector_rank(focused, "bob-auto") == 1  # the car, not one more memory of Alice's
    top = next(h for h in focused.matches if h.slug == "bob-auto")
    assert top.explain is not None  # the explanation says what the vector side searched
    assert top.explain["vector_focus"] == "What did say about the car?"

    monkeypatch.setattr(config, "HYBRID_COMMON_WORD_SHARE", 1.0)  # no word is common
    whole = hybrid_search(team, request, semantic)
    assert vector_rank(whole, "bob-auto") != 1  # the name decides the whole query's vector
    assert all(h.explain is not None and h.explain["vector_focus"] is None for h in whole.matches)


def test_a_vector_found_beforehand_carries_its_focused_one(team: MemoryStore) -> None:
    semantic = indexed(team, name_heavy_chain())
    query = "What did Alice say about the car?"
    focus = focused_query(team, query)
    assert focus is not None

    found = semantic.query_vector(query, focus=focus)
    awaited = asyncio.run(semantic.aquery_vector(query, focus=focus))

    assert found.focused is not None and found.vector is not None
    assert found.focus == awaited.focus == focus
    assert awaited.focused == pytest.approx(found.focused)
    assert awaited.vector == pytest.approx(found.vector)
    assert semantic.query_vector(query).focused is None  # not asked: not embedded
    request = SearchRequest(query=query, limit=5, explain=True)
    result = hybrid_search(team, request, semantic, vector=found)
    assert vector_rank(result, "bob-auto") == 1
    car = next(h for h in result.matches if h.slug == "bob-auto")
    assert car.explain is not None and car.explain["vector_focus"] == focus


def test_a_context_finds_its_query_vector_with_the_focused_one(team: MemoryStore) -> None:
    semantic = indexed(team, name_heavy_chain())
    log = _SearchLog.starting(semantic, None)
    # a context's memory searches all take this one vector (`_SearchLog.run`)
    found = log.query_vector(team, "What did Alice say about the car?")
    assert found is not None and found.focused is not None
    assert log.query_vector(team, "What did Bob say about the car?") is found  # found once


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as running:
        yield running


@pytest.mark.asyncio
async def test_an_awaited_search_focuses_its_query_as_the_command(
    team: MemoryStore, server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    server.serve_to(team.root)
    query = "What did Alice say about the car?"
    with context_for(team) as context:
        dispatch(context, "embeddings_rebuild", {})
        command = dispatch(context, "memory_search", {"query": query})
        awaited = await retrieval.asearch(team, SearchRequest(query=query), context.embeddings)

    assert command["mode"] == "hybrid"
    assert awaited.to_dict() == command
    # both asked of the provider in one request (the awaited search found them cached); a
    # search that forgot the focus would have ranked with another vector than the command's
    assert [query, "What did say about the car?"] in server.embedding_inputs("embed-a")

"""Hybrid search lifts the memories of a query's dates on its vector side too, as keyword search
does (retrieval/hybrid.py `_vector_side`, store/search_dates.py `dated_keys`), on a real store
with vectors from a stand-in model that cannot read dates."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.dates import date_spans
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.retrieval.embedding_sync import memory_key
from liveagent_memory.retrieval.hybrid import HybridResult, hybrid_search
from liveagent_memory.retrieval.vectors import VectorIndex, VectorRow
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.retrieval.test_hybrid import concept_chain, indexed, write

np = pytest.importorskip("numpy")


def at(year: int, month: int, day: int) -> int:
    return int(datetime(year, month, day, 12, 0, tzinfo=UTC).timestamp() * 1000)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2023, 5, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def diary(home: Path, clock: FakeClock) -> Iterator[MemoryStore]:
    """Notes about the automobile written on three days; none says "car" (only the vectors
    bridge car = automobile: ConceptEmbedder), and the one of 8 May 2023 is the farthest from
    the question in meaning. Three notes that do say "car" fill the keyword side's places."""
    with MemoryStore.open(home, clock=clock) as store:
        for slug, body in (
            ("car-insurance", "Car insurance renewed, the broker called twice about it."),
            ("car-loan", "Car loan paid off early, the bank sent a letter."),
            ("car-seat", "Car seat for the niece bought, the shop delivers it."),
        ):
            write(store, slug, body)
        clock.ms = at(2023, 5, 8)
        write(store, "may-note", "Automobile washed at the station, its mats dried in the sun.")
        clock.ms = at(2023, 6, 20)
        write(store, "june-note", "Automobile parked.")
        clock.ms = at(2023, 7, 2)
        write(store, "july-note", "Automobile serviced.")
        clock.ms = at(2026, 11, 30)
        yield store


def vector_part(result: HybridResult, slug: str) -> tuple[int | None, float | None]:
    """(vector rank, vector date boost) of `slug` in an explained hybrid result."""
    hit = next(h for h in result.matches if h.slug == slug)
    assert hit.explain is not None
    return hit.explain["vector_rank"], hit.explain["vector_date_boost"]


def test_a_question_about_a_day_takes_its_vector_hits_from_that_day(
    diary: MemoryStore,
) -> None:
    semantic = indexed(diary, concept_chain())
    plain = hybrid_search(diary, SearchRequest(query="car", limit=3, explain=True), semantic)
    # the three "car" notes fill the keyword side: the nearest automobile note is its one
    # vector-only hit, the farthest (of 8 May) is not listed
    assert [h.slug for h in plain.matches][1] == "june-note"
    assert "may-note" not in [h.slug for h in plain.matches]

    dated = hybrid_search(
        diary, SearchRequest(query="car on 8 May 2023", limit=3, explain=True), semantic
    )

    assert dated.mode == "hybrid"
    assert [h.slug for h in dated.matches][1] == "may-note"
    assert dated.matches[1].explain is not None
    assert dated.matches[1].explain["keyword_rank"] is None  # found by its vector alone
    assert vector_part(dated, "may-note") == (1, config.SEARCH_DATE_BOOST)
    others = [vector_part(dated, h.slug) for h in dated.matches if h.slug != "may-note"]
    assert all(boost is None for _, boost in others)  # memories of other days: not lifted


def test_a_memory_of_that_day_found_by_both_sides_comes_first(diary: MemoryStore) -> None:
    write(diary, "may-car-wash", "Car wash receipt.")  # written today: not of that day
    semantic = indexed(diary, concept_chain())
    result = hybrid_search(
        diary, SearchRequest(query="automobile on 8 May 2023", limit=4, explain=True), semantic
    )
    top = result.matches[0]
    assert top.slug == "may-note"
    assert top.explain is not None
    assert top.explain["keyword_rank"] == 1 and top.explain["vector_rank"] == 1
    assert top.explain["date_boost"] == config.SEARCH_DATE_BOOST  # the keyword side's lift
    assert top.explain["vector_date_boost"] == config.SEARCH_DATE_BOOST


def test_a_memory_of_that_day_without_a_vector_yet_is_left_to_the_keyword_side(
    diary: MemoryStore, clock: FakeClock
) -> None:
    semantic = indexed(diary, concept_chain())
    # Written on the question's day after the vectors were built: it has none yet.
    clock.ms = at(2023, 5, 8)
    write(diary, "may-late", "Automobile keys found under the mat.")
    clock.ms = at(2026, 11, 30)

    result = hybrid_search(
        diary, SearchRequest(query="car on 8 May 2023", limit=8, explain=True), semantic
    )

    assert result.mode == "hybrid" and result.stale_skipped == 0
    assert vector_part(result, "may-note") == (1, config.SEARCH_DATE_BOOST)
    # listed by the keyword side among the memories of that day, never as a vector hit
    late = next(h for h in result.matches if h.slug == "may-late")
    assert late.explain is not None
    assert late.explain["keyword_rank"] is not None and late.explain["vector_rank"] is None


def test_a_range_holding_more_memories_than_the_cap_lifts_none(
    diary: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    semantic = indexed(diary, concept_chain())
    request = SearchRequest(query="car in 2023", limit=8, explain=True)
    lifted = hybrid_search(diary, request, semantic)
    assert vector_part(lifted, "may-note")[1] == config.SEARCH_DATE_BOOST

    monkeypatch.setattr(config, "HYBRID_DATED_MAX", 5)  # six memories were written in 2023
    result = hybrid_search(diary, request, semantic)

    boosts = [h.explain["vector_date_boost"] for h in result.matches if h.explain is not None]
    assert boosts and all(boost is None for boost in boosts)


def test_dated_keys_follow_the_filter(diary: MemoryStore, clock: FakeClock, workdir: str) -> None:
    clock.ms = at(2023, 5, 8) + 60_000
    write(diary, "may-project", "Automobile for the demo.", scope="project", type="project",
          workdir=workdir)  # fmt: skip
    spans = date_spans("on 8 May 2023", diary.today())
    everywhere = diary.memory_filter(SearchRequest(query="x", include_all_projects=True))
    global_only = diary.memory_filter(SearchRequest(query="x"))

    assert {slug for *_, slug in diary.dated_keys(everywhere, spans, 10)} == {
        "may-project",
        "may-note",
    }
    assert [slug for *_, slug in diary.dated_keys(global_only, spans, 10)] == ["may-note"]
    assert len(diary.dated_keys(everywhere, spans, 1)) == 1
    assert diary.dated_keys(everywhere, date_spans("on 9 May 2023", diary.today()), 10) == []
    assert memory_key(*diary.dated_keys(global_only, spans, 1)[0]) == memory_key(
        "global", "", "may-note"
    )


def test_a_vector_search_among_some_documents_keeps_only_those(tmp_path: Path) -> None:
    index = VectorIndex.open(tmp_path / "vectors", "fake", "m")
    index.upsert(
        [
            VectorRow("a", [1.0, 0.0], "h-a", {"scope": "global"}),
            VectorRow("b", [0.9, 0.1], "h-b", {"scope": "project"}),
            VectorRow("c", [0.5, 0.5], "h-c", {"scope": "global"}),
            VectorRow("d", [0.0, 1.0], "h-d", {"scope": "global"}),
        ]
    )

    among = {"b", "c", "d", "not-in-the-index"}
    assert [d for d, _ in index.search([1.0, 0.0], 5, among=among)] == ["b", "c", "d"]
    assert [d for d, _ in index.search([1.0, 0.0], 1, among=among)] == ["b"]
    globals_only = index.search(
        [1.0, 0.0], 5, among=among, place=lambda where: where[0] == "global"
    )
    assert [d for d, _ in globals_only] == ["c", "d"]
    assert index.search([1.0, 0.0], 5, among=set()) == []
    # the whole index is still searched without `among` (the same query's kept scores)
    assert [d for d, _ in index.search([1.0, 0.0], 2)] == ["a", "b"]

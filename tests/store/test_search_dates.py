"""Date-aware search: a query's dates boost the memories of those days (store/search_dates.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory


def at(year: int, month: int, day: int) -> FakeClock:
    return FakeClock(datetime(year, month, day, 12, 0, tzinfo=UTC))


@pytest.fixture
def dated(home: Path) -> Iterator[tuple[MemoryStore, FakeClock]]:
    """Two party memories written on 8 May 2023 and 20 June 2023 (the June one matches the
    words better), and notes written on Tuesday 24 and Sunday 29 November 2026 (yesterday);
    today is Monday 30 November 2026."""
    clock = at(2023, 5, 8)
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "party-venue", description="Party venue", body="Booked the hall.")
        clock.ms = at(2023, 6, 20).ms
        write_memory(
            store,
            "party-food",
            description="Party food for the party",
            body="The party gets a caterer; party snacks are vegan.",
        )
        clock.ms = at(2026, 11, 24).ms
        write_memory(store, "note-standup", description="Standup", body="Talked about CI.")
        clock.ms = at(2026, 11, 29).ms
        write_memory(store, "note-review", description="Review", body="Reviewed the parser.")
        clock.ms = at(2026, 11, 30).ms
        yield store, clock


def slugs(store: MemoryStore, query: str, **fields: object) -> list[str]:
    req = SearchRequest.model_validate({"query": query, "include_all_projects": True, **fields})
    return [hit.slug for hit in store.search(req).matches]


def test_a_named_day_lifts_the_memory_of_that_day(
    dated: tuple[MemoryStore, FakeClock],
) -> None:
    store, _ = dated
    assert slugs(store, "party")[:2] == ["party-food", "party-venue"]  # by words alone

    assert slugs(store, "party on 8 May 2023")[:2] == ["party-venue", "party-food"]
    assert slugs(store, "party in May 2023")[:2] == ["party-venue", "party-food"]
    assert slugs(store, "party in June 2023")[:2] == ["party-food", "party-venue"]
    assert slugs(store, "2023年5月的party")[:2] == ["party-venue", "party-food"]


def test_the_boost_is_in_the_explanation_and_the_date_is_not_searched_as_words(
    dated: tuple[MemoryStore, FakeClock],
) -> None:
    store, _ = dated
    result = store.search(
        SearchRequest(query="party on 8 May 2023", include_all_projects=True, explain=True)
    )

    venue, food = result.matches[0], result.matches[1]
    assert venue.explain is not None and food.explain is not None
    assert venue.explain["date_boost"] == config.SEARCH_DATE_BOOST
    assert food.explain["date_boost"] == 1.0
    assert venue.explain["dates"] == [["2023-05-08", "2023-05-08"]]
    assert result.terms == ["party", "8 May 2023"]


def test_a_query_that_is_only_a_date_lists_the_memories_of_those_days(
    dated: tuple[MemoryStore, FakeClock],
) -> None:
    store, _ = dated

    assert slugs(store, "yesterday") == ["note-review"]
    assert slugs(store, "昨天") == ["note-review"]
    # last week is Monday 23 to Sunday 29 November: both notes, newest first
    assert slugs(store, "上周") == ["note-review", "note-standup"]
    assert slugs(store, "what happened last week?") == ["note-review", "note-standup"]
    assert slugs(store, "3 days ago") == []
    assert slugs(store, "this year") == ["note-review", "note-standup"]  # newest first
    assert slugs(store, "2023") == ["party-food", "party-venue"]
    assert slugs(store, "去年") == []  # nothing from 2025: no words to fall back on
    assert slugs(store, "2023", type="user") == []  # the filter still applies


def test_relative_dates_follow_the_store_clock(dated: tuple[MemoryStore, FakeClock]) -> None:
    store, clock = dated
    clock.advance(days=1)  # Tuesday 1 December 2026: "yesterday" is now 30 November

    assert slugs(store, "yesterday") == []
    clock.advance(days=1)
    assert slugs(store, "前天") == []
    assert slugs(store, "上个月") == ["note-review", "note-standup"]


def test_a_date_written_in_the_text_counts_too(home: Path) -> None:
    clock = at(2026, 11, 30)
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "launch-a", description="Launch", body="The launch went well.")
        write_memory(
            store, "launch-b", description="Launch", body="The launch was on 15 March 2024."
        )
        assert slugs(store, "launch")[0] == "launch-a"  # shorter, so first by BM25

        assert slugs(store, "launch on March 15, 2024")[0] == "launch-b"
        assert slugs(store, "2024年3月 launch")[0] == "launch-b"


def test_a_date_boost_is_not_a_filter(dated: tuple[MemoryStore, FakeClock]) -> None:
    store, _ = dated

    # No memory is from 2021: words still find both, in their usual order.
    assert slugs(store, "party in 2021") == ["party-food", "party-venue"]

"""Irregular English forms (store/lemmas.py): indexed and queried as their base, both ways."""

from __future__ import annotations

import sqlite3

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store.lemmas import lemma, lemma_forms, narrower
from liveagent_memory.store.schema import EXT_SCHEMA_VERSION
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import index_text
from tests.helpers.memories import write_memory


def slugs(store: MemoryStore, query: str) -> list[str]:
    result = store.search(SearchRequest(query=query, limit=10, include_all_projects=True))
    return [hit.slug for hit in result.matches]


def test_the_table_gives_a_base_and_a_group() -> None:
    assert [lemma(w) for w in ("bought", "found", "went", "children", "buy")] == [
        "buy",
        "find",
        "go",
        "child",
        "buy",
    ]
    assert lemma_forms("buying") == ("buy", "bought")  # a regular ending taken off first
    assert lemma_forms("running") == ("run", "ran")
    assert lemma_forms("went") == ("go", "gone", "goes")
    assert lemma_forms("table") == ()
    # words that are mostly something else stay themselves
    assert [lemma(w) for w in ("ground", "wound", "better", "lives")] == [
        "ground",
        "wound",
        "better",
        "lives",
    ]


def test_index_text_writes_irregular_forms_as_their_base_keeping_case_of_others() -> None:
    assert index_text("Alice Bought two Books; the Children went home") == (
        "Alice buy two Books; the child go home"
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did she buy", "car-bought"),  # base finds the past form
        ("who bought a bike", "bike-buy"),  # past form finds the base
        ("buying", "car-bought"),  # a regular ending on the base: the stemmer and the table
        ("find keys", "keys-found"),
        ("where did they go", "trip-went"),
        ("child", "school-children"),
        ("children", "kid-child"),
    ],
)
def test_irregular_forms_match_both_ways(store: MemoryStore, query: str, expected: str) -> None:
    write_memory(store, "car-bought", description="Car", body="Alice bought a used car.")
    write_memory(store, "bike-buy", description="Bike", body="Bob wants to buy a bike soon.")
    write_memory(store, "keys-found", description="Keys", body="She found the keys at last.")
    write_memory(store, "trip-went", description="Trip", body="They went to Lisbon in spring.")
    write_memory(store, "school-children", description="School", body="The children love it.")
    write_memory(store, "kid-child", description="Kid", body="Her child plays chess.")
    write_memory(store, "unrelated", description="Other", body="Nothing to see about tables.")

    found = slugs(store, query)

    assert expected in found
    assert "unrelated" not in found


def test_snippet_marks_the_form_the_memory_uses(store: MemoryStore) -> None:
    write_memory(store, "car-bought", description="Car", body="Alice bought a used car.")

    hit = store.search(SearchRequest(query="buy", include_all_projects=True)).matches[0]

    assert hit.slug == "car-bought"
    assert "[bought]" in hit.snippet


def test_an_older_index_is_rebuilt_with_the_base_forms(store: MemoryStore) -> None:
    write_memory(store, "car-bought", description="Car", body="Alice bought a used car.")
    root = store.root
    store.close()
    # An index of layout 4 held "bought" as itself: opening rebuilds it (schema.py's version).
    index = sqlite3.connect(root / config.INDEX_FILENAME)
    index.execute("PRAGMA user_version = 4")
    index.commit()
    index.close()

    with MemoryStore.open(root) as reopened:
        assert slugs(reopened, "buy") == ["car-bought"]
    check = sqlite3.connect(root / config.INDEX_FILENAME)
    assert check.execute("PRAGMA user_version").fetchone()[0] == EXT_SCHEMA_VERSION
    check.close()


def test_episode_search_matches_irregular_forms_both_ways(store: MemoryStore) -> None:
    for episode_id, goal in (("ep-bought", "Bought a new disk"), ("ep-write", "Write the docs")):
        dispatch(store, "episode_record", {"episode": {"id": episode_id, "goal": goal}})

    assert [hit.id for hit in store.episode_search("buy disk").hits] == ["ep-bought"]
    assert [hit.id for hit in store.episode_search("wrote").hits] == ["ep-write"]
    assert store.episode_search("ground").hits == []


def test_a_broader_word_finds_its_members_one_way(store: MemoryStore) -> None:
    write_memory(store, "dog", description="Walks", body="Melanie walks her dog Oscar daily.")
    write_memory(store, "pet-shop", description="Shop", body="The pet shop closes at six.")
    write_memory(store, "table", description="Table", body="A table of contents.")

    assert set(slugs(store, "What pets does Melanie have?")) == {"dog", "pet-shop"}
    assert slugs(store, "dog") == ["dog"]  # a narrower word does not search the broader one
    assert narrower("pets") == narrower("pet") and "dog" in narrower("pet")
    assert narrower("dog") == ()

"""domain/similar.py: the one near-match rule, for slugs (the store) and command names."""

from __future__ import annotations

import pytest

from liveagent_memory.commands import call
from liveagent_memory.domain import config
from liveagent_memory.domain.similar import close_matches
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import remember


def test_close_matches_best_first_without_unrelated_words() -> None:
    slugs = ["coffee-rule", "tea-pref", "tea-prefs", "green-tea", "tea-pref"]

    assert close_matches("tea-prf", slugs, limit=3) == ["tea-pref", "tea-prefs"]
    assert close_matches("tea-prf", slugs, limit=1) == ["tea-pref"]
    assert close_matches("zzz", slugs, limit=3) == []


def test_a_mistyped_slug_gets_its_near_matches_as_candidates(store: MemoryStore) -> None:
    remember(store, "tea-pref")
    remember(store, "coffee-rule")
    remember(store, "tea-pref", scope="project", workdir="/src/shop")

    ok, error = call(store, "memory_read", {"slug": "tea-prf", "workdir": "/src/shop"})

    assert not ok and error["error"] == "slug_not_found"
    assert error["candidates"] == [
        {"slug": "tea-pref", "scope": "global"},
        {"slug": "tea-pref", "scope": "project"},
    ]
    assert error["suggested_next_call"] == {"action": "search", "query": "tea prf"}


def test_like_candidates_come_first_and_the_limit_holds(store: MemoryStore) -> None:
    for slug in ("deploy-steps", "deploy-staging", "deploy-stops", "deploy-stepz"):
        remember(store, slug)

    ok, error = call(store, "memory_read", {"slug": "deploy-step"})

    assert not ok
    names = [c["slug"] for c in error["candidates"]]
    assert len(names) == config.SLUG_CANDIDATES_LIMIT
    assert set(names) <= {"deploy-steps", "deploy-stepz", "deploy-stops", "deploy-staging"}
    assert {"deploy-steps", "deploy-stepz"} <= set(names)  # the LIKE matches, first


@pytest.mark.parametrize("slug", ["daily-2026-11-28", "daily-2026-11-3"])
def test_a_missing_journal_day_is_not_taken_for_a_typo(store: MemoryStore, slug: str) -> None:
    day = {"body": "Shipped it.", "local_date": "2026-11-30", "actor": "user"}
    assert call(store, "memory_daily_append", day)[0]

    ok, error = call(store, "memory_read", {"slug": slug})

    assert not ok and error["error"] in ("slug_not_found", "slug_invalid")
    assert error.get("candidates", []) == []


def test_an_unknown_command_gets_near_names(store: MemoryStore) -> None:
    ok, error = call(store, "memory_serch", {})

    assert not ok and error["error"] == "unknown_command"
    assert error["candidates"][0] == {"command": "memory_search"}
    assert len(error["candidates"]) <= config.COMMAND_CANDIDATES_LIMIT

"""Shared check for the review and secret gates (issue 12): every memory works in a fresh store."""

from __future__ import annotations

from pathlib import Path

from liveagent_memory.agent.overview import render_overview
from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import Clock
from liveagent_memory.store.store import MemoryStore


def assert_every_memory_works(home: Path, clock: Clock, words: dict[str, str]) -> None:
    """Reopen the store from disk: exactly these memories list, and each reads and is found.

    `words` maps each slug to a word of its text that search must find it by.
    """
    with MemoryStore.open(home, clock=clock) as fresh:
        assert fresh.problems() == []
        listed = dispatch(fresh, "memory_list", {"include_all_projects": True})["entries"]
        assert sorted(e["slug"] for e in listed) == sorted(words)
        for slug, word in words.items():
            entry = next(e for e in listed if e["slug"] == slug)
            target = {"slug": slug, "scope": entry["scope"], "workdir_hash": entry["workdir_hash"]}
            assert dispatch(fresh, "memory_read", target)["entry"]["slug"] == slug
            query = {"query": word, "include_all_projects": True}
            found = dispatch(fresh, "memory_search", query)["matches"]
            assert slug in [hit["slug"] for hit in found], (slug, word)
        render_overview(fresh.overview(None))  # the Memory Index still renders

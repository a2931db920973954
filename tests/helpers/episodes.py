"""Episodes recorded into a real store for a test, the way an agent's host records them
(`episode_record` through the command table), and their files on disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from liveagent_memory.commands import dispatch
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock


def record(
    store: MemoryStore,
    clock: FakeClock,
    goal: str,
    *,
    outcome: str = "success",
    errors: Sequence[tuple[str, str, str]] = (),
    actions: Sequence[tuple[str, str]] = (),
    **fields: Any,
) -> str:
    """Record one episode (errors as (type, message, resolution), actions as (tool, target))
    a minute after whatever happened before (a run's window ends at its start); returns its
    id."""
    episode = {
        "goal": goal,
        "outcome": outcome,
        "errors_encountered": [
            {"error_type": kind, "message": message, "resolution": fix}
            for kind, message, fix in errors
        ],
        "action_log": [{"tool": tool, "input": target, "output": "ok"} for tool, target in actions],
        **fields,
    }
    clock.advance(seconds=60)
    result = dispatch(store, "episode_record", {"episode": episode})
    return str(result["episode"]["id"])


def episode_file(store: MemoryStore, episode_id: str) -> Path:
    """The JSON file an episode is stored in."""
    path = dispatch(store, "episode_read", {"id": episode_id})["path"]
    return store.root / str(path)


def charge_card_failures(store: MemoryStore) -> list[str]:
    """Two episodes failing on one error (its figures differ): what an offline consolidation
    turns into one anti-pattern proposal. Recorded at the store's clock; returns their ids."""
    ids = []
    for n in (2, 3):
        error = {"error_type": "ConnectionError", "message": f"refused after {n} tries"}
        episode = {"goal": f"charge card {n}", "outcome": "failure", "errors_encountered": [error]}
        result = dispatch(store, "episode_record", {"episode": episode})
        ids.append(str(result["episode"]["id"]))
    return ids

"""Memories written into a real store for a test, the way a front end or the agent writes them.

One payload with plain defaults (a global reference memory "About {slug}" whose body is
"Body of {slug}."), changed per call: `remember` sends it through the command table and returns
the command's JSON answer, `write_memory` through the store's typed call and returns its typed
result, `seed_home` writes a list of them into a store folder and closes it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.domain.schema import MutationResult
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock


def memory_payload(slug: str, **fields: Any) -> dict[str, Any]:
    """The JSON of one `memory_write`: the defaults, with `fields` changed or added."""
    return {
        "slug": slug,
        "scope": "global",
        "type": "reference",
        "description": f"About {slug}",
        "body": f"Body of {slug}.",
        **fields,
    }


def remember(store: MemoryStore, slug: str, **fields: Any) -> dict[str, Any]:
    """Write one memory through the command table (`memory_write`); returns its answer."""
    return dispatch(store, "memory_write", memory_payload(slug, **fields))


def user_memory(store: MemoryStore, slug: str, **fields: Any) -> dict[str, Any]:
    """What a person said about themselves: a memory of type `user` the person wrote (so it
    is reviewed), unless `fields` say otherwise."""
    return remember(store, slug, **{"type": "user", "actor": "user", **fields})


def write_memory(store: MemoryStore, slug: str, **fields: Any) -> MutationResult:
    """Write one memory with the store's typed call; returns what it did."""
    return store.write(WriteRequest.model_validate(memory_payload(slug, **fields)))


def seed_home(
    home: Path,
    items: Iterable[dict[str, Any]],
    *,
    clock: Clock = system_clock,
) -> None:
    """Write whole `memory_write` payloads into the store at `home`, then close it (the code
    under test opens its own). With a FakeClock each memory is a minute newer than the one
    before, so lists have a stable order."""
    with MemoryStore.open(home, clock=clock) as store:
        for item in items:
            dispatch(store, "memory_write", item)
            if isinstance(clock, FakeClock):
                clock.advance(seconds=60)

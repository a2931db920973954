"""A context's "load everything" figure kept until the index changes (store/index_version.py,
`Index.footprint`): computed once while nothing changes, counted again after a write by this
store or by another program, and never kept when the version cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from liveagent_memory.store.index import Index
from liveagent_memory.store.index_version import IndexVersion
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import finish, start_python
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory

OTHER_WRITER = """
import sys
from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.store.store import MemoryStore
with MemoryStore.open(sys.argv[1]) as store:
    store.write(WriteRequest(slug="from-elsewhere", type="reference", scope="global",
                             description="written by another program",
                             body="Another program wrote this memory.", actor="user"))
"""


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the footprint was summed from the index's rows."""
    calls: list[int] = []
    real = Index._count_footprint

    def spy(self: Index, conn: object, seen: object) -> tuple[int, ...]:
        calls.append(1)
        return real(self, conn, seen)  # type: ignore[arg-type]

    monkeypatch.setattr(Index, "_count_footprint", spy)
    return calls


def test_the_footprint_is_summed_once_while_nothing_changes(
    home: Path, clock: FakeClock, counted: list[int]
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "tea", body="The user drinks green tea.")
        first = store.footprint(None)
        assert store.footprint(None) == first
        assert store.footprint(None) == first
        assert len(counted) == 1
        assert first["memories"] == 1 and first["memory_tokens"] > 0


def test_a_write_of_this_store_is_counted_at_once(
    home: Path, clock: FakeClock, counted: list[int]
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "tea", body="The user drinks green tea.")
        before = store.footprint(None)
        write_memory(store, "coffee", body="The user never drinks coffee after noon.")
        after = store.footprint(None)
    assert after["memories"] == before["memories"] + 1
    assert after["memory_bytes"] > before["memory_bytes"]
    assert len(counted) == 2


def test_a_write_of_another_program_is_counted_too(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "tea", body="The user drinks green tea.")
        before = store.footprint(None)
        finish(start_python(OTHER_WRITER, str(home)))
        after = store.footprint(None)
    assert after["memories"] == before["memories"] + 1


def test_a_version_that_cannot_be_read_keeps_nothing(tmp_path: Path) -> None:
    missing = IndexVersion(tmp_path / "no-such-folder" / "memory-index.sqlite3")
    assert missing.current() is None
    missing.close()
    present = tmp_path / "x.sqlite3"
    version = IndexVersion(present)
    first = version.current()
    assert first is not None
    version.close()
    assert version.current() is not None  # opened again after close


def test_without_a_version_the_footprint_is_summed_every_time(
    home: Path, clock: FakeClock, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(IndexVersion, "current", lambda self: None)
    with MemoryStore.open(home, clock=clock) as store:
        write_memory(store, "tea", body="The user drinks green tea.")
        assert store.footprint(None) == store.footprint(None)
    assert len(counted) == 2

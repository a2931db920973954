"""MCP servers running now (store/presence.py): each server's record, read by the app.

Real records in a real store folder; "another process" is a real child process (alive, then
killed), so the reader's check of the process table is the real one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import web_config
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.presence import PresenceRecord, presence_folder
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock


def sessions(store: MemoryStore) -> list[dict[str, object]]:
    return list(dispatch(store, "agents_running", {})["sessions"])


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A real other process on this machine, alive until the test kills it."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def record_for(store: MemoryStore, process: subprocess.Popen[bytes], clock: FakeClock) -> Path:
    """A record written as the server in `process` would write it."""
    owner = RunOwner(host=RunOwner.current().host, pid=process.pid)
    record = PresenceRecord(
        presence_folder(store.root), clock, transport="stdio", workdir=None, owner=owner
    )
    record.start()
    record.saw("Claude Desktop", "0.9", call=False)
    return record.path


def test_a_server_is_listed_with_its_client_and_calls_until_it_stops(
    store: MemoryStore, clock: FakeClock, workdir: str
) -> None:
    record = store.presence_record(transport="stdio", workdir=workdir)
    record.start()
    (waiting,) = sessions(store)
    assert (waiting["client"], waiting["calls"], waiting["last_call_at"]) == ("", 0, None)
    assert waiting["pid"] == os.getpid() and waiting["workdir"] == workdir

    record.saw("cursor", "1.2.3", call=False)  # it said who it is: written at once
    clock.advance(seconds=1)
    record.saw("cursor", "1.2.3", call=True)  # its first call: written at once too
    (listed,) = sessions(store)
    assert (listed["client"], listed["client_version"], listed["transport"]) == (
        "cursor",
        "1.2.3",
        "stdio",
    )
    assert listed["calls"] == 1 and listed["last_call_at"] == clock.ms

    record.saw("cursor", "1.2.3", call=True)  # a busy agent is not written on every call
    assert sessions(store)[0]["calls"] == 1
    clock.advance(ms=web_config.PRESENCE_WRITE_EVERY_MS)
    record.saw("cursor", "1.2.3", call=True)
    assert sessions(store)[0]["calls"] == 3

    record.stop()
    assert sessions(store) == [] and not record.path.exists()
    record.stop()  # stopping twice is harmless


def test_the_record_of_a_killed_server_is_dropped_and_deleted(
    store: MemoryStore, clock: FakeClock, child: subprocess.Popen[bytes]
) -> None:
    path = record_for(store, child, clock)
    assert [s["client"] for s in sessions(store)] == ["Claude Desktop"]

    child.kill()
    child.wait()

    assert sessions(store) == []
    assert not path.exists()  # it could not remove its own record: the reader did


def test_what_is_not_a_live_record_of_this_machine_is_skipped(
    store: MemoryStore, clock: FakeClock, child: subprocess.Popen[bytes]
) -> None:
    live = record_for(store, child, clock)
    folder = live.parent
    elsewhere = json.loads(live.read_text(encoding="utf-8"))
    elsewhere["host"] = "another-laptop"  # a synced folder: its processes cannot be asked
    (folder / "another-laptop-1.json").write_text(json.dumps(elsewhere), encoding="utf-8")
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "list.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "wrong.json").write_text(json.dumps({**elsewhere, "pid": "12"}), encoding="utf-8")
    huge = {**elsewhere, "client": "x" * (web_config.PRESENCE_MAX_BYTES + 1)}
    (folder / "huge.json").write_text(json.dumps(huge), encoding="utf-8")

    assert [s["pid"] for s in sessions(store)] == [child.pid]
    assert (folder / "another-laptop-1.json").exists()  # not ours to delete


def test_a_read_only_store_folder_never_fails_the_server(
    store: MemoryStore, clock: FakeClock, tmp_path: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be", encoding="utf-8")
    record = PresenceRecord(blocked / "mcp", clock, transport="http", workdir=None)

    record.start()  # logged, not raised: the agent's memory calls go on
    record.saw("claude-code", "2.0", call=True)
    record.stop()

    assert record.calls == 1 and blocked.is_file()

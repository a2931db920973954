"""Several processes on one store, and a process killed mid-batch (SPEC 1.1, SPEC 7).

Writes are atomic (temp + fsync + rename) and serialized by a lock file, so concurrent
processes lose no write; `kill -9` during a batch leaves every file old or new, never torn,
and the next start brings the index back in line with the files.
"""

from __future__ import annotations

import hashlib
import os
import signal
import time
from pathlib import Path

import pytest

from liveagent_memory.domain.requests import (
    BatchItem,
    BatchRequest,
    ListRequest,
    ReadRequest,
    SearchRequest,
    WriteRequest,
)
from liveagent_memory.store.documents import load_file
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    FIXED_MS,
    INDEX_NAME,
    crash_batch_items,
    crash_old_text,
    finish,
    fixed_clock,
    memory_files,
    query,
    start_python,
    write_file,
)

BIG_LIMIT = 10**6  # quota out of the way: these tests are about files, not the 500 limit
DAY = "2026-11-30"

# Waits for a start signal so both children really write at the same time.
WRITER_SCRIPT = """
import sys, time
from pathlib import Path
from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.store.store import MemoryStore

home, prefix, count, fixed_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with MemoryStore.open(home, scope_limit=10**6, clock=lambda: fixed_ms) as store:
    Path(home, f"ready-{prefix}").touch()
    while not Path(home, "go").exists():
        time.sleep(0.005)
    for i in range(count):
        store.write(WriteRequest(
            slug=f"{prefix}-{i:04d}", scope="global", type="reference",
            description=f"Memory {i} of writer {prefix}",
            body=f"Written by {prefix}, number {i}, token tok{prefix}{i:04d}.",
        ))
"""

SAME_MEMORY_SCRIPT = """
import sys, time
from pathlib import Path
from liveagent_memory.domain.requests import DailyAppendRequest, UpdateRequest
from liveagent_memory.store.store import MemoryStore

home, prefix, count, fixed_ms, day = sys.argv[1:6]
count, fixed_ms = int(count), int(fixed_ms)
with MemoryStore.open(home, clock=lambda: fixed_ms) as store:
    Path(home, f"ready-{prefix}").touch()
    while not Path(home, "go").exists():
        time.sleep(0.005)
    for i in range(count):
        store.append_daily(DailyAppendRequest(
            body=f"entry {prefix}{i:03d} from writer {prefix}", local_date=day,
            conversation_id=f"conv-{prefix}-{i}",
        ))
        if i % 4 == 0:
            store.update(UpdateRequest(
                slug="shared-note", scope="global", mode="merge",
                body=f"Fact q{prefix}{i:03d}z.",
            ))
"""

CRASH_SCRIPT = """
import sys
from liveagent_memory.domain.requests import BatchItem, BatchRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import crash_batch_items

home, count, fixed_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
items = [BatchItem(**item) for item in crash_batch_items(count)]
with MemoryStore.open(home, scope_limit=10**6, clock=lambda: fixed_ms) as store:
    print("batch starting", flush=True)
    store.apply_batch(BatchRequest(items=items, actor="tool"))
    print("batch finished", flush=True)
"""


def start_together(home: Path, script: str, argument_lists: list[list[str]]) -> list[str]:
    """Start one child per argument list, release them at once, wait, return their stdout."""
    children = [start_python(script, str(home), *args) for args in argument_lists]
    prefixes = [args[0] for args in argument_lists]
    deadline = time.monotonic() + 60
    try:
        while not all((home / f"ready-{p}").exists() for p in prefixes):
            for child in children:
                if child.poll() is not None:
                    finish(child)  # reports the child's traceback
            assert time.monotonic() < deadline, "children did not get ready"
            time.sleep(0.01)
        (home / "go").touch()
        return [finish(child, timeout=240) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


def memory_md_slugs(folder: Path) -> set[str]:
    lines = (folder / "MEMORY.md").read_text().splitlines()
    return {line.split("]", 1)[0].removeprefix("- [") for line in lines if line.startswith("- [")}


def index_sha_by_path(home: Path) -> dict[str, str]:
    rows = query(home / INDEX_NAME, "SELECT path, sha256 FROM memory_files WHERE problem IS NULL")
    return {str(path): str(sha) for path, sha in rows}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def top_hit(store: MemoryStore, token: str) -> str | None:
    """The best match for a unique token (limit 1: a full page would add the slow substring
    fallback of store/search.py to every call)."""
    matches = store.search(SearchRequest(query=token, limit=1)).matches
    return matches[0].slug if matches else None


# --- concurrency ------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_processes_writing_500_memories_each_lose_nothing(home: Path) -> None:
    MemoryStore.open(home, clock=fixed_clock).close()

    start_together(
        home, WRITER_SCRIPT, [["aa", "500", str(FIXED_MS)], ["bb", "500", str(FIXED_MS)]]
    )

    expected = {f"{p}-{i:04d}" for p in ("aa", "bb") for i in range(500)}
    files = memory_files(home)
    assert set(files) == {f"global/{slug}.md" for slug in expected}
    for rel in files:
        doc = load_file(home / rel).doc  # every file parses
        prefix, number = Path(rel).stem.split("-")
        assert doc.body == f"Written by {prefix}, number {int(number)}, token tok{prefix}{number}."
    # Checked before reopening (reconcile would repair it): the last writer's MEMORY.md is whole.
    assert memory_md_slugs(home / "global") == expected
    # One audit row per write, none lost and none twice. Whether the two writers interleaved is
    # up to the scheduler (on a loaded machine one may finish first): not asserted.
    audited = [str(row[0]) for row in query(home / INDEX_NAME, "SELECT slug FROM memory_audit_log")]
    assert sorted(audited) == sorted(expected)
    with MemoryStore.open(home, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        listed = store.list_entries(ListRequest(limit=1000))
        assert listed.total == 1000
        assert {entry.slug for entry in listed.entries} == expected
        for slug in sorted(expected)[::5]:
            prefix, number = slug.split("-")
            assert top_hit(store, f"tok{prefix}{number}") == slug
        report = store.reconcile()
        assert (report.added, report.updated, report.removed, report.problems) == (0, 0, 0, [])
        assert report.unchanged == 1000
        assert index_sha_by_path(home) == {rel: sha(data) for rel, data in files.items()}


@pytest.mark.slow
def test_two_processes_appending_and_merging_into_the_same_memory_lose_nothing(
    home: Path,
) -> None:
    with MemoryStore.open(home, clock=fixed_clock) as store:
        store.write(
            WriteRequest(
                slug="shared-note",
                scope="global",
                type="reference",
                description="Shared by two writers",
                body="Shared note start.",
            )
        )

    start_together(
        home,
        SAME_MEMORY_SCRIPT,
        [["aa", "100", str(FIXED_MS), DAY], ["bb", "100", str(FIXED_MS), DAY]],
    )

    with MemoryStore.open(home, clock=fixed_clock) as store:
        journal = store.read(ReadRequest(slug=f"daily-{DAY}"))
        assert journal.entry.append_count == 200
        entries = [line for line in journal.content.split("\n\n") if line.startswith("entry ")]
        expected_entries = {
            f"entry {p}{i:03d} from writer {p}" for p in ("aa", "bb") for i in range(100)
        }
        assert len(entries) == 200 and set(entries) == expected_entries
        sources = journal.source["sources"]
        assert {s["conversationId"] for s in sources} == {
            f"conv-{p}-{i}" for p in ("aa", "bb") for i in range(100)
        }
        shared = store.read(ReadRequest(slug="shared-note")).content
        for p in ("aa", "bb"):
            for i in range(0, 100, 4):
                assert f"Fact q{p}{i:03d}z." in shared
        report = store.reconcile()
        assert (report.added, report.updated, report.removed, report.problems) == (0, 0, 0, [])


# --- kill -9 in the middle of a batch ---------------------------------------------------------

CRASH_COUNT = 1000
KILL_AFTER = 200  # kill once this memory's file has its new version


def _expected_new_texts(tmp_path: Path, changed: set[str]) -> dict[str, bytes]:
    """Apply the same batch items, for the changed files only, to a copy: the new versions."""
    reference = tmp_path / "reference-store"
    items = []
    for item in crash_batch_items(CRASH_COUNT):
        rel = _item_path(item)
        if rel not in changed:
            continue
        if item["slug"].startswith("m-"):
            write_file(reference, rel, crash_old_text(int(item["slug"][2:])))
        items.append(BatchItem(**item))
    with MemoryStore.open(reference, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        result = store.apply_batch(BatchRequest(items=items, actor="tool"))
        assert result.failed == 0, result.warnings
    return memory_files(reference)


def _item_path(item: dict[str, str]) -> str:
    return f"global/{item['slug']}.md"


def _kill_when_changed(process_pid: int, watched: Path, old: bytes, deadline: float) -> None:
    while True:
        try:
            if watched.read_bytes() != old:
                break
        except FileNotFoundError:
            pass
        assert time.monotonic() < deadline, "the batch never reached the watched memory"
        time.sleep(0.002)
    os.kill(process_pid, signal.SIGKILL)


@pytest.mark.slow
def test_kill_during_a_large_batch_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    home = tmp_path / "memory"
    old_texts = {
        f"global/m-{i:04d}.md": crash_old_text(i).encode("utf-8") for i in range(CRASH_COUNT)
    }
    for rel, data in old_texts.items():
        write_file(home, rel, data)
    with MemoryStore.open(home, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == CRASH_COUNT
    write_file(home, "global/.tmp-planted.part", b"---\nname: torn")  # an earlier crash's debris

    child = start_python(CRASH_SCRIPT, str(home), str(CRASH_COUNT), str(FIXED_MS))
    watched = f"global/m-{KILL_AFTER:04d}.md"
    try:
        _kill_when_changed(child.pid, home / watched, old_texts[watched], time.monotonic() + 120)
    finally:
        if child.poll() is None:
            child.kill()
        out, err = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, err
    assert "batch finished" not in out  # killed partway, not after the end

    on_disk = memory_files(home)
    changed = {rel for rel, data in on_disk.items() if old_texts.get(rel) != data}
    assert old_texts.keys() <= on_disk.keys()  # no memory vanished
    assert f"global/m-{CRASH_COUNT - 1:04d}.md" not in changed  # the end was never reached
    assert len(changed) > KILL_AFTER // 2
    new_texts = _expected_new_texts(tmp_path, changed)
    for rel, data in on_disk.items():
        # Exactly the old version or exactly the new one: never torn, never empty.
        assert data in (old_texts.get(rel), new_texts.get(rel)), rel

    with MemoryStore.open(home, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        assert query(home / INDEX_NAME, "PRAGMA quick_check") == [("ok",)]
        assert store.last_reconcile is not None and store.last_reconcile.problems == []
        again = store.reconcile()
        assert (again.added, again.updated, again.removed) == (0, 0, 0)
        assert index_sha_by_path(home) == {rel: sha(data) for rel, data in on_disk.items()}

        listed = store.list_entries(ListRequest(limit=1000, offset=0))
        rest = store.list_entries(ListRequest(limit=1000, offset=1000))
        entries = {e.slug: e for e in [*listed.entries, *rest.entries]}
        assert set(entries) == {Path(rel).stem for rel in on_disk}
        for rel in on_disk:
            slug = Path(rel).stem
            doc = load_file(home / rel).doc
            assert entries[slug].description == doc.meta.description
            if rel in changed:
                assert top_hit(store, doc.body.rstrip(".").split()[-1]) == slug
        replaced = sorted(
            rel for rel in changed if rel.startswith("global/m-") and int(rel[9:13]) % 2 == 0
        )
        for rel in replaced[:: max(1, len(replaced) // 5)]:
            number = Path(rel).stem[2:]
            assert top_hit(store, f"oldtok{number}") is None  # nothing stale in the index
        for i in range(0, CRASH_COUNT, 37):
            slug = f"m-{i:04d}"
            read = store.read(ReadRequest(slug=slug))
            assert read.content == load_file(home / f"global/{slug}.md").doc.body
            if f"global/{slug}.md" not in changed:
                assert top_hit(store, f"oldtok{i:04d}") == slug
        assert memory_md_slugs(home / "global") == set(entries)
    assert (home / "global" / ".tmp-planted.part").read_bytes() == b"---\nname: torn"

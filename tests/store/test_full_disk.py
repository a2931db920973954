"""A full disk: every failed write is typed and changed nothing (issue 12).

The store lives on a real, small tmpfs, filled by writing memories until the disk refuses
them, wherever that happens (the memory file, the index's WAL, the commit). Mounting needs
root, which CI has; elsewhere the test says why it cannot run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_files, mounted_tmpfs
from tests.helpers.fakes import FakeClock

DISK_BYTES = 8 * 1024 * 1024


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    with mounted_tmpfs(mount, DISK_BYTES) as disk:
        yield disk


def test_writes_on_a_full_disk_fail_typed_and_change_nothing(
    small_disk: Path, clock: FakeClock
) -> None:
    home = small_disk / "memory"
    ballast = small_disk / "ballast.bin"  # someone else's file, deleted later to make room
    ballast.write_bytes(b"\0" * (2 * 1024 * 1024))
    crumbs = []  # small files deleted one by one: room for a short memory file, not its index
    for i in range(8):
        crumbs.append(small_disk / f"crumb-{i}.bin")
        crumbs[-1].write_bytes(b"\0" * 8192)
    saved: dict[str, str] = {}
    errors: list[str] = []
    with MemoryStore.open(home, clock=clock, scope_limit=10_000) as store:
        for n in range(2_000):
            slug = f"note-{n:04d}"
            # Long notes until the disk refuses one; then, each time, 8 KiB of room and a short
            # note: its file fits, the index's next pages do not, so the index fails after the
            # file was written.
            if errors:
                crumbs.pop().unlink()
            body = f"Note {n}: " + ("words of a long note " * 300)[: 10 if errors else 6000]
            before = memory_files(home)
            ok, result = call(
                store,
                "memory_write",
                {
                    "slug": slug,
                    "scope": "global",
                    "type": "reference",
                    "description": slug,
                    "body": body,
                },
            )
            if ok:
                saved[slug] = body
                continue
            errors.append(result["error"])
            assert result["error"] in ("store_unavailable", "index_unavailable"), result
            assert memory_files(home) == before, result  # nothing changed, nothing left behind
            if not crumbs:
                break
        assert "index_unavailable" in errors, errors  # a failure after the file was written
        assert len(saved) > 10
        # An update that does not fit changes nothing either.
        first = next(iter(saved))
        path = home / "global" / f"{first}.md"
        old = path.read_bytes()
        ok, result = call(store, "memory_update", {"slug": first, "body": "x" * 7000})
        if not ok:
            assert path.read_bytes() == old
    # Room again (and five memories deleted by hand): everything saved is there, and the
    # index agrees with the files.
    ballast.unlink()
    for path in sorted(home.glob("global/note-*.md"))[:5]:
        slug = path.stem
        path.unlink()
        saved.pop(slug)
    with MemoryStore.open(home, clock=clock, scope_limit=10_000) as store:
        listed = dispatch(store, "memory_list", {"limit": 1000})
        assert {e["slug"] for e in listed["entries"]} == set(saved)
        for slug, body in list(saved.items())[::7]:
            assert dispatch(store, "memory_read", {"slug": slug})["content"].endswith(body.strip())
        assert store.problems() == []
        ok, _ = call(
            store,
            "memory_write",
            {
                "slug": "after",
                "scope": "global",
                "type": "reference",
                "description": "After",
                "body": "Written once there was room.",
            },
        )
        assert ok

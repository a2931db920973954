"""A batch keeps each pending temp file open for its fsync, up to DURABLE_OPEN_FILES at once
(issue 17, store/files.py FileChanges): past the limit the files are opened again by name,
and no descriptor outlives the batch, whether its items apply, fail or are rolled back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import BatchItem, BatchRequest, ReadRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_files, temp_files
from tests.helpers.fakes import FakeClock

FD_DIR = Path("/proc/self/fd")


def _upsert(
    slug: str, body: str, *, description: str | None = None, group: str | None = None
) -> BatchItem:
    return BatchItem(
        op="upsert",
        slug=slug,
        scope="global",
        type="reference",
        description=description,
        body=body,
        group_id=group,
    )


@pytest.mark.skipif(not FD_DIR.is_dir(), reason="counts descriptors in /proc/self/fd")
def test_a_chunk_past_the_open_file_limit_writes_every_file_and_leaks_no_descriptor(
    home: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "DURABLE_OPEN_FILES", 3)
    items = [
        _upsert(f"kept-{i:02d}", f"Kept fact {i}.", description=f"kept {i}") for i in range(12)
    ]
    # A merge group whose second upsert fails (no description): its first file, written and
    # pending with its descriptor, is rolled back with it.
    items += [
        _upsert("merged-a", "Merged fact.", description="merged", group="g1"),
        _upsert("merged-b", "Has no description.", group="g1"),
    ]
    with MemoryStore.open(home, clock=clock) as store:
        before = len(os.listdir(FD_DIR))
        result = store.apply_batch(BatchRequest(actor="user", items=items))
        after = len(os.listdir(FD_DIR))
        assert (result.applied, result.failed, result.skipped) == (12, 1, 1)
        assert [w.code for w in result.warning_details] == ["group_item_failed", "invalid_argument"]
        read = store.read(ReadRequest(slug="kept-11"))
        assert "Kept fact 11." in read.body
    assert after == before  # every kept temp file's descriptor was closed
    assert temp_files(home) == []
    files = memory_files(home)
    assert sorted(files) == [f"global/kept-{i:02d}.md" for i in range(12)]
    assert all(f"Kept fact {i}.".encode() in files[f"global/kept-{i:02d}.md"] for i in range(12))

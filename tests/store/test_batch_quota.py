"""A batch counts a scope's memories once and moves the count on itself (issue 17;
store/resolve.py check_quota `known`, store/batch.py): the quota still holds exactly."""

from __future__ import annotations

from pathlib import Path

from liveagent_memory.domain.requests import BatchItem, BatchRequest, ListRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

LIMIT = 5


def _new(slug: str, scope: str = "global") -> BatchItem:
    return BatchItem(
        op="upsert", slug=slug, scope=scope, type="reference", description=slug, body=f"{slug} body"
    )


def test_creates_deletes_and_failures_in_one_batch_keep_the_quota_exact(
    home: Path, clock: FakeClock, tmp_path: Path
) -> None:
    workdir = str(tmp_path / "project")
    with MemoryStore.open(home, clock=clock, scope_limit=LIMIT) as store:
        first = [_new(f"old-{i}") for i in range(3)]
        assert store.apply_batch(BatchRequest(actor="user", items=first)).applied == 3
        items = [
            _new("new-a"),
            _new("new-b"),  # the scope now holds 5
            _new("new-c"),  # over the limit
            BatchItem(
                op="upsert", slug="bad-type", scope="global", type="x", description="d", body="b"
            ),
            BatchItem(op="delete", slug="old-0", scope="global"),  # frees one
            _new("new-d"),  # fits again
            _new("new-e"),  # over again
            _new("proj-a", "project"),  # another scope counts on its own
            BatchItem(op="daily_append", body="a journal line"),  # not an ordinary memory
            _new("new-f"),
        ]
        result = store.apply_batch(BatchRequest(actor="user", items=items, workdir=workdir))
        assert [(r.slug, r.status, (r.error or {}).get("error")) for r in result.items] == [
            ("new-a", "applied", None),
            ("new-b", "applied", None),
            ("new-c", "failed", "quota_exceeded"),
            ("bad-type", "failed", "invalid_type"),
            ("old-0", "applied", None),
            ("new-d", "applied", None),
            ("new-e", "failed", "quota_exceeded"),
            ("proj-a", "applied", None),
            (None, "applied", None),
            ("new-f", "failed", "quota_exceeded"),
        ]
        listed = store.list_entries(ListRequest(scope="global", limit=50))
        assert sorted(e.slug for e in listed.entries) == [
            "new-a",
            "new-b",
            "new-d",
            "old-1",
            "old-2",
        ]

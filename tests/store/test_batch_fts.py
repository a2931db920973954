"""A batch chunk writes its full-text rows together at its end (issue 17; store/index.py
FtsBuffer): items that change one memory twice, delete what the chunk created, or fail (alone
or as a merge group) leave exactly the rows a rebuild from the files would give."""

from __future__ import annotations

from pathlib import Path

from liveagent_memory.domain.requests import BatchItem, BatchRequest, SearchRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import INDEX_NAME, query
from tests.helpers.fakes import FakeClock


def _upsert(slug: str, body: str, group_id: str | None = None) -> BatchItem:
    return BatchItem(
        op="upsert",
        slug=slug,
        scope="global",
        type="reference",
        description=slug,
        body=body,
        group_id=group_id,
    )


def _fts_rows(home: Path) -> list[tuple[object, ...]]:
    """Every full-text row by slug (rowids aside: a rebuild numbers files afresh)."""
    return sorted(
        query(home / INDEX_NAME, "SELECT slug, body FROM memory_fts")
        + query(home / INDEX_NAME, "SELECT slug, 'tri:' || body FROM memory_fts_tri")
        + query(home / INDEX_NAME, "SELECT slug, 'search:' || body FROM memory_search")
    )


def _found(store: MemoryStore, word: str) -> list[str]:
    return [m.slug for m in store.search(SearchRequest(query=word, limit=5)).matches]


def test_items_changing_the_same_memories_in_one_chunk_leave_the_rows_a_rebuild_gives(
    home: Path, clock: FakeClock
) -> None:
    items = [
        _upsert("alpha-note", "first aardvark"),
        BatchItem(
            op="update", slug="alpha-note", scope="global", mode="replace", body="second anteater"
        ),
        _upsert("bravo-note", "bison body"),
        BatchItem(op="delete", slug="bravo-note", scope="global"),
        _upsert("charlie-note", "camel body", "merge-1"),
        BatchItem(op="update", slug="no-such-note", scope="global", body="x", group_id="merge-1"),
        _upsert("delta-note", "dingo body"),
        BatchItem(
            op="upsert",
            slug="echo-note",
            scope="global",
            type="nonsense",
            description="e",
            body="emu",
        ),
    ]
    with MemoryStore.open(home, clock=clock) as store:
        result = store.apply_batch(BatchRequest(actor="user", items=items))
        assert [r.status for r in result.items] == [
            "applied", "applied", "applied", "applied", "skipped", "failed", "applied", "failed",
        ]  # fmt: skip
        assert _found(store, "anteater") == ["alpha-note"]
        for gone in ("aardvark", "bison", "camel", "emu"):
            assert _found(store, gone) == [], gone
        assert _found(store, "dingo") == ["delta-note"]
    after_batch = _fts_rows(home)
    assert [slug for slug, _ in after_batch if not str(_).startswith(("tri:", "search:"))] == [
        "alpha-note",
        "delta-note",
    ]

    (home / INDEX_NAME).unlink()
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.full_rebuild
    assert _fts_rows(home) == after_batch


def test_a_chunk_after_a_failed_one_and_a_second_batch_keep_the_rows_right(
    home: Path, clock: FakeClock
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        first = [_upsert(f"note-{i:03d}", f"word{i:03d} body") for i in range(150)]
        assert store.apply_batch(BatchRequest(actor="user", items=first)).applied == 150
        second = [
            BatchItem(
                op="update",
                slug=f"note-{i:03d}",
                scope="global",
                mode="replace",
                body=f"new{i:03d}",
            )
            for i in range(0, 150, 3)
        ]
        assert store.apply_batch(BatchRequest(actor="user", items=second)).applied == 50
        assert _found(store, "word003") == []
        assert _found(store, "new003") == ["note-003"]
        assert _found(store, "word004") == ["note-004"]
    after = _fts_rows(home)
    (home / INDEX_NAME).unlink()
    with MemoryStore.open(home, clock=clock):
        pass
    assert _fts_rows(home) == after

"""The index stamp: a warm open trusts an index no program wrote since the store closed it
(issue 17; store/damage.py), and still notices every memory file changed behind its back."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import ReadRequest, WriteRequest
from liveagent_memory.store import damage
from liveagent_memory.store.files import Layout
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import INDEX_NAME, memory_text, query, write_file
from tests.helpers.fakes import FakeClock


def _index_stats(home: Path) -> list[tuple[int, int]]:
    """(size, mtime) of the index file and its WAL, as far as they exist."""
    out = []
    for suffix in ("", "-wal"):
        path = Path(f"{home / INDEX_NAME}{suffix}")
        if path.exists():
            out.append((path.stat().st_size, path.stat().st_mtime_ns))
    return out


def _seeded(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        for slug in ("alpha-note", "beta-note"):
            store.write(
                WriteRequest(
                    slug=slug, scope="global", type="reference", description=slug, body=slug
                )
            )


def test_a_warm_open_leaves_the_index_untouched_and_its_stamp_valid(
    home: Path, clock: FakeClock
) -> None:
    _seeded(home, clock)
    layout = Layout(home)
    assert (home / config.INDEX_STAMP_FILENAME).exists()
    assert damage.unchanged_since_closed(layout)
    before = _index_stats(home)

    with MemoryStore.open(home, clock=clock) as store:
        report = store.last_reconcile
        assert report is not None and not report.full_rebuild
        assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, 2)

    assert _index_stats(home) == before  # nothing written: the next open trusts it again
    assert damage.unchanged_since_closed(layout)


def test_a_memory_file_changed_behind_our_back_is_noticed_on_a_trusted_open(
    home: Path, clock: FakeClock
) -> None:
    _seeded(home, clock)
    path = home / "global" / "alpha-note.md"
    write_file(home, "global/alpha-note.md", memory_text("alpha-note", body="edited by hand"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    assert damage.unchanged_since_closed(Layout(home))  # the index itself was not touched

    with MemoryStore.open(home, clock=clock) as store:
        report = store.last_reconcile
        assert report is not None and (report.updated, report.unchanged) == (1, 1)
        assert store.read(ReadRequest(slug="alpha-note")).content == "edited by hand"


def test_another_program_writing_the_index_voids_the_stamp(home: Path, clock: FakeClock) -> None:
    _seeded(home, clock)
    layout = Layout(home)
    conn = sqlite3.connect(home / INDEX_NAME)
    conn.execute("DELETE FROM memory_fts WHERE slug = 'beta-note'")  # rows now disagree
    conn.commit()
    conn.close()
    assert not damage.unchanged_since_closed(layout)

    with MemoryStore.open(home, clock=clock) as store:
        report = store.last_reconcile
        assert report is not None and report.full_rebuild  # the row-count check ran
        assert report.added == 2
    assert query(home / INDEX_NAME, "SELECT slug FROM memory_fts ORDER BY slug") == [
        ("alpha-note",),
        ("beta-note",),
    ]
    assert damage.unchanged_since_closed(layout)


def test_no_stamp_or_a_garbled_one_means_the_full_checks(home: Path, clock: FakeClock) -> None:
    _seeded(home, clock)
    layout = Layout(home)
    stamp = home / config.INDEX_STAMP_FILENAME
    stamp.write_text("not json")
    assert not damage.unchanged_since_closed(layout)
    stamp.unlink()
    assert not damage.unchanged_since_closed(layout)
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.unchanged == 2
    assert damage.unchanged_since_closed(layout)  # written again on close


def test_another_program_writing_while_the_store_is_open_leaves_no_stamp(
    home: Path, clock: FakeClock
) -> None:
    _seeded(home, clock)
    layout = Layout(home)
    with MemoryStore.open(home, clock=clock) as store:
        conn = sqlite3.connect(home / INDEX_NAME)
        conn.execute("DELETE FROM memory_fts WHERE slug = 'alpha-note'")
        conn.commit()
        conn.close()
        store.write(
            WriteRequest(
                slug="gamma-note", scope="global", type="reference", description="g", body="g"
            )
        )  # our own write after theirs does not make theirs ours
    assert not (home / config.INDEX_STAMP_FILENAME).exists()
    assert not damage.unchanged_since_closed(layout)

    with MemoryStore.open(home, clock=clock) as store:
        report = store.last_reconcile
        assert report is not None and report.full_rebuild  # the row-count check ran
        assert report.added == 3
    assert damage.unchanged_since_closed(layout)

"""Reconcile: the index follows the files, which a person may edit, add, break or delete by hand.

SPEC 1.1: incremental (mtime, size, hash) rather than re-reading every file; unparsable files are
reported with path and reason and never deleted or modified. REFERENCE A1: old dailies move to
global/daily/.archive/YYYY/ and become read-only.
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import (
    DailyArchived,
    SlugExists,
    SlugNotFound,
)
from liveagent_memory.domain.requests import (
    BatchRequest,
    DailyAppendArgs,
    DailyAppendRequest,
    ListRequest,
    ReadRequest,
    SearchRequest,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.schema import ReconcileReport
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    INDEX_NAME,
    memory_files,
    memory_text,
    query,
    replace_keeping_stat,
    same_size_variant,
    write_file,
)
from tests.helpers.fakes import FakeClock
from tests.helpers.unprivileged import Unprivileged

PROJECT_HASH = "0123456789abcdef"


def write_note(store: MemoryStore, slug: str, body: str, *, type: str = "reference") -> Path:
    result = store.write(
        WriteRequest(slug=slug, scope="global", type=type, description=f"About {slug}", body=body)
    )
    assert result.path is not None
    return store.root / result.path


def found_slugs(store: MemoryStore, text: str) -> list[str]:
    result = store.search(SearchRequest(query=text, limit=32, include_all_projects=True))
    return [hit.slug for hit in result.matches]


def listed_slugs(store: MemoryStore) -> set[str]:
    request = ListRequest(limit=1000, include_daily=True, include_all_projects=True)
    return {entry.slug for entry in store.list_entries(request).entries}


def counts(report: ReconcileReport) -> dict[str, int | bool]:
    return {
        "full_rebuild": report.full_rebuild,
        "added": report.added,
        "updated": report.updated,
        "removed": report.removed,
        "unchanged": report.unchanged,
    }


def reconcile_audit_rows(home: Path) -> list[tuple[object, ...]]:
    return query(
        home / INDEX_NAME,
        "SELECT slug, json_extract(detail_json, '$.change') FROM memory_audit_log "
        "WHERE op = 'reconcile' ORDER BY id",
    )


def days_ago(store: MemoryStore, days: int) -> date:
    return store.today() - timedelta(days=days)


def daily_text(day: date, entry: str) -> str:
    return (
        "---\n"
        f"name: daily-{day.isoformat()}\n"
        "type: daily\n"
        "scope: global\n"
        f"headline: {day.isoformat()}\n"
        f"date: {day.isoformat()}\n"
        "appendCount: 1\n"
        "---\n\n"
        f"{entry}\n"
    )


# --- full and incremental passes ------------------------------------------------------------------


def test_missing_index_means_a_full_rebuild_from_the_files(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_note(store, "alpha-note", "apples and pears")
        write_note(store, "beta-note", "bananas", type="user")
    for suffix in ("", "-wal", "-shm"):
        (home / f"{INDEX_NAME}{suffix}").unlink(missing_ok=True)

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        assert counts(store.last_reconcile) == {
            "full_rebuild": True,
            "added": 2,
            "updated": 0,
            "removed": 0,
            "unchanged": 0,
        }
        assert found_slugs(store, "bananas") == ["beta-note"]


def test_reopening_an_up_to_date_store_is_incremental(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        write_note(store, "alpha-note", "apples")

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        assert counts(store.last_reconcile) == {
            "full_rebuild": False,
            "added": 0,
            "updated": 0,
            "removed": 0,
            "unchanged": 1,
        }


def test_a_same_size_edit_whose_old_mtime_a_sync_restored_is_noticed(
    store: MemoryStore,
) -> None:
    path = write_note(store, "stat-note", "the secret word is walrus")
    # Same size, same mtime, different bytes (a sync tool that keeps mtimes): only the ctime,
    # which utime cannot set back, tells.
    replace_keeping_stat(path, same_size_variant(path.read_bytes(), b"walrus", b"badger"))

    incremental = store.reconcile()

    assert not incremental.full_rebuild
    assert (incremental.updated, incremental.unchanged) == (1, 0)
    assert found_slugs(store, "badger") == ["stat-note"]
    assert found_slugs(store, "walrus") == []
    assert store.reconcile().unchanged == 1  # stamped again: the next pass reads nothing


def test_a_file_a_sync_only_touched_is_restamped_not_parsed(store: MemoryStore) -> None:
    path = write_note(store, "touched-note", "otters")
    before = path.stat()
    # A sync that rewrites the same bytes (new inode, new times) or only touches the file.
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 5_000_000_000))

    incremental = store.reconcile()

    assert (incremental.added, incremental.updated, incremental.unchanged) == (0, 0, 1)
    assert found_slugs(store, "otters") == ["touched-note"]
    assert store.reconcile().unchanged == 1


def test_unreadable_file_is_reported_and_indexed_once_readable(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    def lock_a_file_and_reconcile() -> bytes:
        with MemoryStore.open(unprivileged.folder / "memory", clock=clock) as store:
            path = write_note(store, "locked-note", "wombats")
            before = path.read_bytes()
            path.chmod(0)
            try:
                # chmod changes the ctime (store/reconcile.py compares it): the incremental
                # pass tries the file and reports it.
                incremental = store.reconcile()
                assert [p.path for p in incremental.problems] == ["global/locked-note.md"]
                assert found_slugs(store, "wombats") == []
                with pytest.raises(SlugNotFound):
                    store.read(ReadRequest(slug="locked-note"))

                full = store.reconcile(full=True)  # a full pass must read it, and cannot

                assert [(p.path, p.reason.startswith("unreadable")) for p in full.problems] == [
                    ("global/locked-note.md", True)
                ]
                assert found_slugs(store, "wombats") == []
                assert store.reconcile().problems == full.problems
            finally:
                path.chmod(0o600)

            # chmod changes neither mtime nor size: the problem is re-checked, not remembered.
            fixed = store.reconcile()

            assert (fixed.added, fixed.problems) == (1, [])
            assert found_slugs(store, "wombats") == ["locked-note"]
            return before

    before = unprivileged.run(lock_a_file_and_reconcile)
    path = unprivileged.folder / "memory" / "global" / "locked-note.md"
    assert path.read_bytes() == before


def test_hand_edited_file_is_reindexed_and_searchable(store: MemoryStore, clock: FakeClock) -> None:
    path = write_note(store, "edit-me", "original wording about otters")
    write_note(store, "leave-me", "untouched text")
    path.write_text(memory_text("edit-me", description="Edited by hand", body="now about herons"))

    report = store.reconcile()

    assert counts(report) == {
        "full_rebuild": False,
        "added": 0,
        "updated": 1,
        "removed": 0,
        "unchanged": 1,
    }
    assert found_slugs(store, "herons") == ["edit-me"]
    assert found_slugs(store, "otters") == []
    read = store.read(ReadRequest(slug="edit-me"))
    assert read.content == "now about herons"
    assert read.entry.description == "Edited by hand"
    assert ("edit-me", "updated") in reconcile_audit_rows(store.root)


def test_hand_added_files_appear_in_list_search_and_memory_md(store: MemoryStore) -> None:
    write_note(store, "existing-note", "already here")
    write_file(store.root, "global/hand-added.md", memory_text("hand-added", body="lemurs"))
    write_file(
        store.root,
        "global/user/prefers-dark.md",
        memory_text("prefers-dark", type="user", body="dark theme everywhere"),
    )
    write_file(
        store.root,
        f"projects/{PROJECT_HASH}/deploy-steps.md",
        memory_text("deploy-steps", type="project", body="ship with rsync"),
    )

    report = store.reconcile()

    assert (report.added, report.updated, report.removed, report.unchanged) == (3, 0, 0, 1)
    assert listed_slugs(store) == {"existing-note", "hand-added", "prefers-dark", "deploy-steps"}
    assert found_slugs(store, "lemurs") == ["hand-added"]
    assert found_slugs(store, "rsync") == ["deploy-steps"]
    project_entry = store.read(ReadRequest(slug="deploy-steps", workdir_hash=PROJECT_HASH))
    assert (project_entry.entry.scope, project_entry.entry.workdir_hash) == (
        "project",
        PROJECT_HASH,
    )
    assert "[hand-added]" in (store.root / "global" / "MEMORY.md").read_text()
    assert "[deploy-steps]" in (store.root / "projects" / PROJECT_HASH / "MEMORY.md").read_text()


def test_hand_deleted_files_disappear_from_list_and_search(store: MemoryStore) -> None:
    gone = write_note(store, "gone-note", "flamingos")
    write_note(store, "kept-note", "pelicans")
    gone.unlink()

    report = store.reconcile()

    assert (report.removed, report.unchanged) == (1, 1)
    assert listed_slugs(store) == {"kept-note"}
    assert found_slugs(store, "flamingos") == []
    with pytest.raises(SlugNotFound):
        store.read(ReadRequest(slug="gone-note"))
    assert ("gone-note", "removed") in reconcile_audit_rows(store.root)
    assert "[gone-note]" not in (store.root / "global" / "MEMORY.md").read_text()


def test_touched_file_with_same_bytes_counts_unchanged_and_is_restamped(
    store: MemoryStore,
) -> None:
    path = write_note(store, "touched-note", "the word is narwhal")
    audit_before = reconcile_audit_rows(store.root)
    new_mtime = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(new_mtime, new_mtime))

    report = store.reconcile()

    assert counts(report)["unchanged"] == 1 and report.updated == 0
    assert reconcile_audit_rows(store.root) == audit_before  # no change was recorded
    recorded = query(
        store.root / INDEX_NAME,
        "SELECT f.mtime_ns, m.file_mtime FROM memory_files f JOIN memory_meta m "
        "ON m.slug = f.slug WHERE f.slug = 'touched-note'",
    )
    assert recorded == [(new_mtime, new_mtime // 1_000_000)]
    # The new mtime was remembered, and a same-stat swap still differs by its ctime.
    replace_keeping_stat(path, same_size_variant(path.read_bytes(), b"narwhal", b"dolphin"))
    assert store.reconcile().updated == 1
    assert found_slugs(store, "dolphin") == ["touched-note"]


def test_memory_moved_to_another_file_by_hand_follows_the_file(store: MemoryStore) -> None:
    old_path = write_note(store, "moving-note", "tapirs")
    new_path = store.root / "global" / "moved-by-hand.md"
    old_path.rename(new_path)

    report = store.reconcile()

    assert report.problems == []
    assert listed_slugs(store) == {"moving-note"}
    assert store.read(ReadRequest(slug="moving-note")).entry.path == "global/moved-by-hand.md"
    assert found_slugs(store, "tapirs") == ["moving-note"]


def test_stale_or_missing_memory_md_is_regenerated_by_reconcile(store: MemoryStore) -> None:
    """A crash between a batch's last index commit and its MEMORY.md refresh leaves the
    scope index stale with every memory file and index row in place; reconcile repairs it."""
    write_note(store, "listed-note", "in the index")
    write_file(
        store.root,
        f"projects/{PROJECT_HASH}/project-note.md",
        memory_text("project-note", type="project"),
    )
    store.reconcile()
    global_md = store.root / "global" / "MEMORY.md"
    project_md = store.root / "projects" / PROJECT_HASH / "MEMORY.md"
    expected = (global_md.read_text(), project_md.read_text())
    global_md.write_text("# MEMORY\n\n- [something-else] type=reference — stale\n")
    project_md.unlink()
    # What a crash leaves: the batch's transaction marked the scope dirty and committed; the
    # process died before rewriting MEMORY.md.
    with store.index.write() as conn:
        store.index.mark_dirty(conn, "global", "")

    report = store.reconcile()

    assert report.unchanged == 2 and report.updated == 0
    assert (global_md.read_text(), project_md.read_text()) == expected
    assert "[listed-note]" in expected[0] and "[project-note]" in expected[1]


def test_warm_reconcile_of_hundreds_of_files_reports_them_unchanged(
    home: Path, clock: FakeClock
) -> None:
    for i in range(300):
        folder = "global/user" if i % 3 == 0 else "global"
        kind = "user" if i % 3 == 0 else "reference"
        write_file(home, f"{folder}/bulk-{i:03d}.md", memory_text(f"bulk-{i:03d}", type=kind))

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == 300
        warm = store.reconcile()

    assert counts(warm) == {
        "full_rebuild": False,
        "added": 0,
        "updated": 0,
        "removed": 0,
        "unchanged": 300,
    }
    assert warm.scanned == 300 and warm.problems == []
    with MemoryStore.open(home, clock=clock) as reopened:
        assert reopened.last_reconcile is not None
        assert counts(reopened.last_reconcile)["unchanged"] == 300
        assert not reopened.last_reconcile.full_rebuild


# --- files that cannot be used ----------------------------------------------------------------

BROKEN_FILES = {
    "global/bad-utf8.md": (
        b"---\nname: bad-utf8\ntype: reference\n---\n\nLatin-1 \xe9t\xe9 text\n",
        "UTF-8",
    ),
    "global/unclosed.md": (
        b"---\nname: unclosed\ntype: reference\ndescription: no end\n\nbody\n",
        "not closed",
    ),
    "global/unknown-type.md": (
        b"---\nname: unknown-type\ntype: grocery-list\ndescription: d\n---\n\nmilk\n",
        "unknown type 'grocery-list'",
    ),
    "global/list-frontmatter.md": (b"---\n- one\n- two\n---\n\nbody\n", "mapping"),
    "global/bad-name.md": (
        b"---\nname: Bad Name!!\ntype: reference\ndescription: d\n---\n\nbody\n",
        "not a valid slug (try 'bad-name')",
    ),
    "global/traversal.md": (
        b"---\nname: ../../etc/passwd\ntype: reference\ndescription: d\n---\n\nbody\n",
        "not a valid slug",
    ),
    "global/daily/2026-11-01.md": (
        b"---\nname: misplaced\ntype: reference\ndescription: d\n---\n\nbody\n",
        "daily folder",
    ),
    "global/nul-bytes.md": (b"---\nname: nul-bytes\n---\n\nbinary\x00junk\n", "NUL"),
}


def _write_broken(home: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for rel, (data, _) in BROKEN_FILES.items():
        path = write_file(home, rel, data)
        out[rel] = (data, path.stat().st_mtime_ns)
    return out


def _on_disk(home: Path, rels: dict[str, tuple[bytes, int]]) -> dict[str, tuple[bytes, int]]:
    return {rel: ((home / rel).read_bytes(), (home / rel).stat().st_mtime_ns) for rel in rels}


def test_unparsable_files_are_reported_and_left_untouched(home: Path, clock: FakeClock) -> None:
    written = _write_broken(home)
    write_file(home, "global/good-note.md", memory_text("good-note", body="cormorants"))

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        opened = {p.path: p.reason for p in store.last_reconcile.problems}
        incremental = {p.path: p.reason for p in store.reconcile().problems}
        full = {p.path: p.reason for p in store.reconcile(full=True).problems}
        listed = {p["path"]: p["reason"] for p in store.problems()}
        assert listed_slugs(store) == {"good-note"}
        assert found_slugs(store, "cormorants") == ["good-note"]
        assert found_slugs(store, "milk") == []

    for problems in (opened, incremental, full, listed):
        assert set(problems) == set(BROKEN_FILES)
        for rel, (_, expected) in BROKEN_FILES.items():
            assert expected in problems[rel], (rel, problems[rel])
    assert _on_disk(home, written) == written  # never deleted, never rewritten


def test_store_never_writes_over_a_broken_file(store: MemoryStore) -> None:
    broken = write_file(
        store.root, "global/unknown-type.md", BROKEN_FILES["global/unknown-type.md"][0]
    )
    store.reconcile()

    with pytest.raises(SlugExists):
        write_note(store, "unknown-type", "would overwrite the person's file")
    with pytest.raises(SlugNotFound):
        store.update(UpdateRequest(slug="unknown-type", body="neither this", mode="replace"))

    assert broken.read_bytes() == BROKEN_FILES["global/unknown-type.md"][0]


def test_a_fixed_file_is_indexed_on_the_next_pass(home: Path, clock: FakeClock) -> None:
    _write_broken(home)
    with MemoryStore.open(home, clock=clock) as store:
        write_file(
            home,
            "global/unknown-type.md",
            memory_text("unknown-type", body="milk and eggs, fixed by hand"),
        )
        write_file(home, "global/bad-utf8.md", memory_text("bad-utf8", body="été in UTF-8 now"))

        report = store.reconcile()

        assert report.added == 2
        assert {p.path for p in report.problems} == set(BROKEN_FILES) - {
            "global/unknown-type.md",
            "global/bad-utf8.md",
        }
        assert found_slugs(store, "eggs") == ["unknown-type"]
        assert store.read(ReadRequest(slug="bad-utf8")).content == "été in UTF-8 now"
        assert "global/unknown-type.md" not in {p["path"] for p in store.problems()}


def test_breaking_an_indexed_file_by_hand_reports_it_and_keeps_it(store: MemoryStore) -> None:
    path = write_note(store, "fragile-note", "kingfishers")
    write_note(store, "sturdy-note", "sparrows")
    broken = path.read_bytes().replace(b"type: reference", b"type: ???")
    path.write_bytes(broken)

    report = store.reconcile()

    assert [(p.path, "unknown type" in p.reason) for p in report.problems] == [
        ("global/fragile-note.md", True)
    ]
    assert found_slugs(store, "kingfishers") == []  # the index holds nothing the file doesn't
    assert listed_slugs(store) == {"sturdy-note"}
    assert path.read_bytes() == broken


def test_two_files_claiming_one_slug_index_one_and_report_the_other(
    home: Path, clock: FakeClock
) -> None:
    write_file(home, "global/aaa-copy.md", memory_text("shared-slug", body="version from aaa"))
    write_file(home, "global/shared-slug.md", memory_text("shared-slug", body="version zebra"))
    write_file(
        home,
        "global/user/shared-slug.md",
        memory_text("shared-slug", type="user", body="user-folder twin"),
    )
    write_file(
        home,
        f"projects/{PROJECT_HASH}/shared-slug.md",
        memory_text("shared-slug", type="project", body="project scope is another namespace"),
    )

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        problems = {p.path: p.reason for p in store.last_reconcile.problems}
        entries = store.list_entries(ListRequest(include_all_projects=True)).entries

        assert set(problems) == {"global/shared-slug.md", "global/user/shared-slug.md"}
        assert all("duplicate" in r and "global/aaa-copy.md" in r for r in problems.values())
        assert sorted((e.scope, e.path) for e in entries) == [
            ("global", "global/aaa-copy.md"),
            ("project", f"projects/{PROJECT_HASH}/shared-slug.md"),
        ]
        # A second pass does not flip the winner.
        store.reconcile()
        read = store.read(ReadRequest(slug="shared-slug", scope="global"))
        assert read.content == "version from aaa"


def test_duplicate_is_indexed_once_the_file_holding_its_slug_is_gone(store: MemoryStore) -> None:
    holder = write_note(store, "contested", "first claim by the store")
    write_file(store.root, "global/another-file.md", memory_text("contested", body="second claim"))
    first = store.reconcile()
    assert [p.path for p in first.problems] == ["global/another-file.md"]
    assert "already defined by global/contested.md" in first.problems[0].reason
    assert store.reconcile().problems == first.problems  # stable while both exist

    holder.unlink()
    report = store.reconcile()

    assert report.problems == []
    assert store.read(ReadRequest(slug="contested")).content == "second claim"
    assert found_slugs(store, "second claim") == ["contested"]


def test_hand_added_files_in_a_non_project_folder_are_reported(store: MemoryStore) -> None:
    for folder in ("notahash", "0123456789ABCDEF", "0123456789abcde"):
        write_file(store.root, f"projects/{folder}/thing.md", memory_text("thing", type="project"))
    (store.root / "projects" / "empty-folder").mkdir()

    report = store.reconcile()

    problems = {p.path: p.reason for p in report.problems}
    assert set(problems) == {
        "projects/notahash",
        "projects/0123456789ABCDEF",
        "projects/0123456789abcde",
    }
    assert all("16 lowercase hex" in reason for reason in problems.values())
    assert listed_slugs(store) == set()
    assert (store.root / "projects" / "notahash" / "thing.md").exists()

    (store.root / "projects" / "notahash").rename(store.root / "projects" / PROJECT_HASH)
    renamed = store.reconcile()
    assert "projects/notahash" not in {p.path for p in renamed.problems}
    assert listed_slugs(store) == {"thing"}


def test_temp_files_editor_files_and_memory_md_are_ignored(store: MemoryStore) -> None:
    write_note(store, "real-note", "ocelots")
    write_file(store.root, "global/.tmp-abc123.part", b"half a write")
    write_file(store.root, "global/.tmp-abc123.md", b"\xff\xfe not even utf-8")
    write_file(store.root, "global/.#real-note.md", b"emacs lock")
    write_file(store.root, "global/notes.txt", b"not markdown")

    report = store.reconcile()

    assert report.problems == [] and report.added == 0
    assert report.scanned == 1
    assert listed_slugs(store) == {"real-note"}


def test_symlinked_file_is_reported_not_followed(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(memory_text("outside-note", body="outside the store"))
    (store.root / "global" / "linked.md").symlink_to(outside)

    report = store.reconcile()

    assert [(p.path, "symbolic link" in p.reason) for p in report.problems] == [
        ("global/linked.md", True)
    ]
    assert found_slugs(store, "outside") == []


# --- daily archive ----------------------------------------------------------------------------


def test_old_dailies_are_archived_and_become_read_only(store: MemoryStore) -> None:
    old_day, edge_day, recent_day = days_ago(store, 91), days_ago(store, 90), days_ago(store, 3)
    texts = {
        day: daily_text(day, f"journal of {label}")
        for day, label in ((old_day, "oldday"), (edge_day, "edgeday"), (recent_day, "recentday"))
    }
    for day, text in texts.items():
        write_file(store.root, f"global/daily/{day.isoformat()}.md", text)

    report = store.reconcile()

    archived = store.root / f"global/daily/.archive/{old_day.year:04d}/{old_day.isoformat()}.md"
    assert report.archived_dailies == 1
    assert archived.read_text() == texts[old_day]  # moved, not rewritten
    assert not (store.root / f"global/daily/{old_day.isoformat()}.md").exists()
    for day in (edge_day, recent_day):
        assert (store.root / f"global/daily/{day.isoformat()}.md").exists()
    entries = store.list_entries(ListRequest(type="daily")).entries
    assert {e.slug: e.archived for e in entries} == {
        f"daily-{old_day.isoformat()}": True,
        f"daily-{edge_day.isoformat()}": False,
        f"daily-{recent_day.isoformat()}": False,
    }
    assert found_slugs(store, "oldday") == [f"daily-{old_day.isoformat()}"]

    slug = f"daily-{old_day.isoformat()}"
    with pytest.raises(DailyArchived) as caught:
        store.append_daily(DailyAppendRequest(body="late entry", local_date=old_day.isoformat()))
    assert caught.value.code == "daily_archived"
    with pytest.raises(DailyArchived):
        store.update(UpdateRequest(slug=slug, body="late entry", mode="append"))
    batch = store.apply_batch(
        BatchRequest(
            daily_append=DailyAppendArgs(bullet="late entry"),
            local_date=old_day.isoformat(),
            actor="tool",
        )
    )
    assert [item.error and item.error["error"] for item in batch.items] == ["daily_archived"]
    assert archived.read_text() == texts[old_day]
    assert not (store.root / f"global/daily/{old_day.isoformat()}.md").exists()
    # Archived journals stay where they are on the next passes.
    assert store.reconcile().archived_dailies == 0
    assert counts(store.reconcile())["unchanged"] == 3


def test_daily_that_ages_past_retention_is_archived_by_a_later_open(
    home: Path, clock: FakeClock
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        store.append_daily(DailyAppendRequest(body="written today"))
        today = store.today()
    clock.advance(days=95)

    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None
        assert store.last_reconcile.archived_dailies == 1
        read = store.read(ReadRequest(slug=f"daily-{today.isoformat()}"))
        assert read.entry.archived
        assert read.entry.path == f"global/daily/.archive/{today.year}/{today.isoformat()}.md"
        assert "written today" in read.content


def test_reconcile_leaves_every_memory_file_byte_identical(home: Path, clock: FakeClock) -> None:
    write_file(home, "global/crlf-note.md", memory_text("crlf-note").replace("\n", "\r\n"))
    write_file(home, "global/bom-note.md", "\ufeff" + memory_text("bom-note"))
    write_file(home, "global/odd-keys.md", "---\nname: odd-keys\nmy_key: yes\n---\n\nbody\n")
    write_file(home, "global/no-frontmatter.md", "just words\n")
    before = memory_files(home)

    with MemoryStore.open(home, clock=clock) as store:
        store.reconcile()
        store.reconcile(full=True)
        assert listed_slugs(store) == {"crlf-note", "bom-note", "odd-keys", "no-frontmatter"}

    assert memory_files(home) == before

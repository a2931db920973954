"""A store synced by file-sync tools (issue 19): conflict copies of every tool's naming are
recognised and never indexed, git conflict markers never reach search, and a person keeps one
version with the loser kept in history."""

from __future__ import annotations

from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import ActionNotAllowed, ConflictNotFound, InvalidArgument
from liveagent_memory.domain.requests import (
    DailyAppendRequest,
    HistoryRequest,
    JournalEntriesRequest,
    ListRequest,
    ReadRequest,
    RestoreRequest,
    SearchRequest,
    SyncResolveRequest,
)
from liveagent_memory.store import conflicts, sync
from liveagent_memory.store.conflicts import SyncTool, copy_by_name
from liveagent_memory.store.evidence import parse_document
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock

COPIES = [
    ("deploy.sync-conflict-20260102-101010-ABCDEFG.md", SyncTool.SYNCTHING),
    ("deploy (conflicted copy 2026-01-02).md", SyncTool.DROPBOX),
    ("deploy (Ada Lovelace's conflicted copy 2026-01-02).md", SyncTool.DROPBOX),
    ("deploy (conflicted copy 2026-01-02 101010).md", SyncTool.NEXTCLOUD),
]


def found_slugs(store: MemoryStore, text: str) -> list[str]:
    result = store.search(SearchRequest(query=text, limit=32, include_all_projects=True))
    return [hit.slug for hit in result.matches]


def listed(store: MemoryStore) -> list[str]:
    request = ListRequest(limit=1000, include_daily=True, include_all_projects=True)
    return sorted(entry.slug for entry in store.list_entries(request).entries)


@pytest.mark.parametrize(("name", "tool"), COPIES)
def test_each_tools_conflict_copy_is_recognised_by_name(name: str, tool: SyncTool) -> None:
    copy = copy_by_name(name)
    assert copy is not None and (copy.original, copy.tool) == ("deploy.md", tool)


@pytest.mark.parametrize(
    "name",
    ["deploy.md", "deploy-staging.md", "conflicted-copy-notes.md", "sync-conflict-howto.md"],
)
def test_ordinary_names_are_not_copies(name: str) -> None:
    assert copy_by_name(name) is None


@pytest.mark.parametrize(("name", "tool"), COPIES)
def test_a_copy_is_never_indexed_even_by_a_full_rebuild(
    store: MemoryStore, name: str, tool: SyncTool
) -> None:
    write_file(store.root, "global/deploy.md", memory_text("deploy", body="ship with blue green"))
    write_file(store.root, f"global/{name}", memory_text("deploy", body="ship with canary"))

    for full in (False, True):
        report = store.reconcile(full=full)
        assert listed(store) == ["deploy"]  # listed once: the original
        assert found_slugs(store, "canary") == []
        assert found_slugs(store, "blue green") == ["deploy"]
        assert [p.path for p in report.problems] == [f"global/{name}"]
    problems = store.problems()
    assert problems == [
        {"path": f"global/{name}", "reason": problems[0]["reason"], "code": "sync_conflict"}
    ]
    status = store.sync_status()["conflicts"]
    assert [(c["path"], c["original"], c["tool"], c["slug"]) for c in status] == [
        (f"global/{name}", "global/deploy.md", tool.value, "deploy")
    ]
    assert (store.root / "global" / name).exists()  # never touched by reconcile


def test_a_onedrive_copy_needs_its_original_declaring_the_same_memory(
    store: MemoryStore,
) -> None:
    write_file(store.root, "global/deploy.md", memory_text("deploy", body="ship with blue green"))
    write_file(store.root, "global/deploy-LAPTOP42.md", memory_text("deploy", body="use canary"))
    # A real slug that looks like one: its own name, so it is a memory of its own.
    write_file(
        store.root, "global/deploy-staging.md", memory_text("deploy-staging", body="staging")
    )

    for full in (False, True):
        store.reconcile(full=full)
        assert listed(store) == ["deploy", "deploy-staging"]
        assert found_slugs(store, "canary") == []
        status = store.sync_status()["conflicts"]
        assert [(c["path"], c["tool"]) for c in status] == [
            ("global/deploy-LAPTOP42.md", "onedrive")
        ]


def test_a_file_holding_git_markers_is_indexed_as_its_first_side(store: MemoryStore) -> None:
    text = memory_text(
        "deploy",
        body="Deploy steps.\n<<<<<<< HEAD\nuse blue green\n=======\nuse canary\n>>>>>>> other\n",
    )
    write_file(store.root, "global/deploy.md", text)

    for full in (False, True):
        store.reconcile(full=full)
        assert listed(store) == ["deploy"]
        assert found_slugs(store, "blue green") == ["deploy"]
        assert found_slugs(store, "canary") == []
        assert [(p["path"], p["code"]) for p in store.problems()] == [
            ("global/deploy.md", "sync_conflict")
        ]
        assert store.sync_status()["conflicts"][0]["kind"] == "markers"
        read = store.read(ReadRequest(slug="deploy"))  # what a context is built from
        assert "blue green" in read.content and "<<<<<<<" not in read.body + read.content
        assert "canary" not in read.content
    assert conflicts.theirs(text).count("use canary") == 1


def test_resolving_keeps_the_chosen_text_removes_the_copy_and_keeps_the_loser(
    store: MemoryStore, clock: FakeClock
) -> None:
    write_file(store.root, "global/deploy.md", memory_text("deploy", body="ship with blue green"))
    copy = "global/deploy (conflicted copy 2026-01-02).md"
    write_file(store.root, copy, memory_text("deploy", body="ship with canary"))
    store.reconcile()
    versions = store.sync_versions(copy)
    assert "blue green" in versions["original"] and "canary" in versions["copy"]

    with pytest.raises(ActionNotAllowed):
        store.sync_resolve(SyncResolveRequest(path=copy, keep="copy", actor="tool"))
    result = store.sync_resolve(SyncResolveRequest(path=copy, keep="copy"))

    assert result["kept"] == "copy" and result["written"]
    assert not (store.root / copy).exists()
    assert store.sync_status()["count"] == 0 and store.problems() == []
    assert "canary" in store.read(ReadRequest(slug="deploy")).content
    assert found_slugs(store, "canary") == ["deploy"]
    # The original's text that lost is in the history and can be restored.
    entries = store.history(HistoryRequest(slug="deploy", with_text=True)).entries
    losers = [e for e in entries if e.restorable and "blue green" in (e.text or "")]
    assert losers
    store.restore(RestoreRequest(slug="deploy", version=losers[0].version))
    assert "blue green" in store.read(ReadRequest(slug="deploy")).content
    with pytest.raises(ConflictNotFound):
        store.sync_resolve(SyncResolveRequest(path=copy, keep="copy"))


def test_keeping_the_original_keeps_the_copys_text_in_history(store: MemoryStore) -> None:
    write_file(store.root, "global/deploy.md", memory_text("deploy", body="ship with blue green"))
    copy = "global/deploy.sync-conflict-20260102-101010-ABCDEFG.md"
    write_file(store.root, copy, memory_text("deploy", body="ship with canary"))
    store.reconcile()

    result = store.sync_resolve(SyncResolveRequest(path=copy, keep="original"))

    assert (result["kept"], result["written"]) == ("original", False)
    assert not (store.root / copy).exists()
    entries = store.history(HistoryRequest(slug="deploy", with_text=True)).entries
    assert any(e.restorable and "canary" in (e.text or "") for e in entries)


def test_a_merged_text_is_written_and_markers_are_refused(store: MemoryStore) -> None:
    text = memory_text(
        "deploy", body="<<<<<<< HEAD\nuse blue green\n=======\nuse canary\n>>>>>>> other\n"
    )
    write_file(store.root, "global/deploy.md", text)
    store.reconcile()
    with pytest.raises(InvalidArgument):
        store.sync_resolve(SyncResolveRequest(path="global/deploy.md", keep="merged", text=text))
    with pytest.raises(InvalidArgument):
        store.sync_resolve(SyncResolveRequest(path="global/deploy.md", keep="merged"))

    merged = memory_text("deploy", body="use blue green, then canary for risky changes")
    payload = {"path": "global/deploy.md", "keep": "merged", "text": merged}
    result = dispatch(store, "sync_resolve", payload)

    assert result["kept"] == "merged"
    assert "<<<<<<<" not in (store.root / "global" / "deploy.md").read_text("utf-8")
    assert dispatch(store, "sync_status", {}) == {
        "conflicts": [],
        "count": 0,
        "git": {"initialised": False},
    }
    entries = store.history(HistoryRequest(slug="deploy", with_text=True)).entries
    assert any(e.restorable and "<<<<<<<" in (e.text or "") for e in entries)


def test_an_unknown_conflict_is_a_typed_error(store: MemoryStore) -> None:
    with pytest.raises(ConflictNotFound) as caught:
        store.sync_resolve(SyncResolveRequest(path="global/nothing.md", keep="original"))
    assert caught.value.code == "conflict_not_found"


def test_a_project_memorys_copy_is_listed_with_its_project(
    store: MemoryStore, tmp_path: Path
) -> None:
    folder = "projects/0123456789abcdef"
    write_file(store.root, f"{folder}/notes.md", memory_text("notes", body="project alpha"))
    write_file(
        store.root,
        f"{folder}/notes (conflicted copy 2026-01-02).md",
        memory_text("notes", body="project beta"),
    )
    store.reconcile()
    [item] = store.sync_status()["conflicts"]
    assert (item["scope"], item["workdir_hash"], item["slug"]) == (
        "project",
        "0123456789abcdef",
        "notes",
    )


# --- a journal day edited on two machines -----------------------------------------------------


def _journal_day(store: MemoryStore, clock: FakeClock, *entries: str) -> Path:
    for text in entries:
        store.append_daily(DailyAppendRequest(body=text, local_date="2026-11-30"))
        clock.advance(seconds=60)
    return store.root / "global" / "daily" / "2026-11-30.md"


def test_a_journal_days_copy_is_merged_entry_by_entry(home: Path, clock: FakeClock) -> None:
    # Both machines share the day's first entry (synced), then each appends one of its own.
    with MemoryStore.open(home / "b", clock=clock) as other:
        theirs_path = _journal_day(other, clock, "first entry")
    path = write_file(home / "a", "global/daily/2026-11-30.md", theirs_path.read_bytes())
    with MemoryStore.open(home / "a", clock=clock) as store:
        _journal_day(store, clock, "second entry")
    with MemoryStore.open(home / "b", clock=clock) as other:
        _journal_day(other, clock, "third entry")
    copy = path.parent / "2026-11-30.sync-conflict-20261130-120000-ABCDEFG.md"
    copy.write_bytes(theirs_path.read_bytes())

    with MemoryStore.open(home / "a", clock=clock) as store:
        assert not copy.exists()
        entries = store.journal_entries(JournalEntriesRequest(date="2026-11-30"))
        assert [entry.text for entry in entries.entries] == [
            "first entry",
            "second entry",
            "third entry",
        ]
        assert entries.paired
        assert store.sync_status()["count"] == 0 and store.problems() == []
        assert found_slugs(store, "third") == ["daily-2026-11-30"]
        history = store.history(HistoryRequest(slug="daily-2026-11-30", with_text=True))
        assert any("third entry" in (e.text or "") for e in history.entries if e.restorable)


def test_merging_two_journal_versions_keeps_each_entry_once_in_time_order() -> None:
    def day(*entries: tuple[str, str]) -> str:
        sources = "".join(
            f"  - appendedAt: '{at}'\n    trigger: test\n    conversationId: ''\n    model: ''\n"
            for _, at in entries
        )
        body = "\n\n".join(text for text, _ in entries)
        return (
            "---\nname: daily-2026-11-30\ntype: daily\ndate: '2026-11-30'\n"
            f"appendCount: {len(entries)}\nsources:\n{sources}---\n\n{body}\n"
        )

    a = day(("one", "2026-11-30T10:00:00Z"), ("three", "2026-11-30T12:00:00Z"))
    b = day(("one", "2026-11-30T10:00:00Z"), ("two", "2026-11-30T11:00:00Z"))
    merged = sync.merge_journal_texts(a, b)
    doc = parse_document(merged)
    assert doc.body.strip().split("\n\n") == ["one", "two", "three"]
    assert [s["appendedAt"] for s in doc.meta.sources] == [
        "2026-11-30T10:00:00Z",
        "2026-11-30T11:00:00Z",
        "2026-11-30T12:00:00Z",
    ]
    assert doc.meta.append_count == 3
    assert sync.merge_journal_texts(merged, a) == merged  # nothing new: nothing added


def test_a_journal_day_with_git_markers_is_merged_too(store: MemoryStore, clock: FakeClock) -> None:
    path = _journal_day(store, clock, "first entry")
    text = path.read_text("utf-8")
    # A journal whose git merge left both sides of its last entry.
    marked = text.rstrip("\n") + "\n\n<<<<<<< HEAD\nours entry\n=======\ntheirs entry\n>>>>>>> b\n"
    path.write_text(marked, "utf-8")

    store.reconcile()

    body = path.read_text("utf-8")
    assert "<<<<<<<" not in body and "ours entry" in body and "theirs entry" in body
    assert store.sync_status()["count"] == 0


def test_an_archived_journal_days_copy_is_resolved_in_the_archive(store: MemoryStore) -> None:
    folder = "global/daily/.archive/2025"
    day = "---\nname: daily-2025-01-02\ntype: daily\ndate: '2025-01-02'\n---\n\n{}\n"
    write_file(store.root, f"{folder}/2025-01-02.md", day.format("first entry"))
    copy = f"{folder}/2025-01-02.sync-conflict-20250103-101010-ABCDEFG.md"
    write_file(store.root, copy, day.format("other entry"))
    store.reconcile()
    assert [c["path"] for c in store.sync_status()["conflicts"]] == [copy]  # not merged

    store.sync_resolve(SyncResolveRequest(path=copy, keep="copy"))

    [entry] = store.list_entries(
        ListRequest(limit=10, include_daily=True, include_all_projects=True)
    ).entries
    assert entry.slug == "daily-2025-01-02" and entry.archived
    assert "other entry" in (store.root / folder / "2025-01-02.md").read_text("utf-8")

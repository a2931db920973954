"""Undoing one change of a memory (store/undo.py), through the command table on a real store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_files
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import remember

TEA = "global/user/tea-pref.md"


def tea(store: MemoryStore, **fields: Any) -> dict[str, Any]:
    """The memory most tests change: a user preference the extractor wrote (unreviewed)."""
    payload = {
        "type": "user",
        "body": "The user drinks green tea.",
        "confidence": "high",
        "source_quote": "I drink green tea",
        "actor": "extractor",
        **fields,
    }
    return remember(store, "tea-pref", **payload)


def undo(store: MemoryStore, change: str, **fields: Any) -> dict[str, Any]:
    return dispatch(store, "memory_undo", {"slug": "tea-pref", "change": change, **fields})


def refused(store: MemoryStore, change: str, **fields: Any) -> MemoryDomainError:
    with pytest.raises(MemoryDomainError) as caught:
        undo(store, change, **fields)
    return caught.value


def history(store: MemoryStore, **fields: Any) -> dict[str, Any]:
    return dispatch(store, "memory_history", {"slug": "tea-pref", **fields})


def ops(store: MemoryStore) -> list[str]:
    return [entry["op"] for entry in history(store)["entries"]]


def test_an_undone_accept_is_the_unreviewed_file_it_was_byte_for_byte(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    tea(store)
    before = memory_files(home)
    clock.advance(seconds=30)
    accepted = dispatch(store, "memory_accept", {"slug": "tea-pref"})
    assert accepted["change"].startswith("audit:")
    assert memory_files(home) != before

    result = undo(store, accepted["change"])

    assert memory_files(home) == before  # every file, exactly as before the accept
    assert result["unreviewed"] is True and result["updated"] is True
    entry = dispatch(store, "memory_read", {"slug": "tea-pref"})["entry"]
    assert entry["unreviewed"] is True
    unreviewed = dispatch(store, "memory_list", {"unreviewed": True})["entries"]
    assert [e["slug"] for e in unreviewed] == ["tea-pref"]  # the index agrees with the file
    assert ops(store) == ["restore", "accept", "write"]
    assert history(store)["entries"][0]["restorable"]  # the accepted text is kept


def test_an_undone_edit_restores_the_previous_text_as_a_new_version(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    tea(store, actor="user")
    original = (home / TEA).read_bytes()
    clock.advance(seconds=30)
    edited = dispatch(
        store, "memory_update", {"slug": "tea-pref", "body": "Now coffee.", "actor": "user"}
    )
    edited_text = (home / TEA).read_text(encoding="utf-8")

    undo(store, edited["change"])

    assert (home / TEA).read_bytes() == original
    assert dispatch(store, "memory_read", {"slug": "tea-pref"})["content"].startswith(
        "The user drinks green tea."
    )
    entries = history(store, with_text=True)["entries"]
    assert [e["op"] for e in entries] == ["restore", "update", "write"]
    assert entries[0]["undo_of"] == edited["change"]
    assert entries[0]["text"] == edited_text  # the edit stays in the history: restorable
    assert entries[1]["text"] == original.decode("utf-8") and entries[1]["current"] is True


def test_undo_after_a_change_on_disk_is_refused_and_keeps_that_change(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    tea(store)
    accepted = dispatch(store, "memory_accept", {"slug": "tea-pref"})
    hand_edited = (home / TEA).read_text(encoding="utf-8").replace("green", "jasmine")
    (home / TEA).write_text(hand_edited, encoding="utf-8")  # by hand, not yet reconciled
    files = memory_files(home)
    versions = len(history(store)["entries"])

    error = refused(store, accepted["change"])

    assert error.code == "memory_changed"
    assert "changed since" in error.message
    assert error.suggested_next_call == {"action": "history", "slug": "tea-pref", "scope": "global"}
    assert memory_files(home) == files  # the hand edit is not overwritten
    assert len(history(store)["entries"]) == versions  # nothing was recorded


def test_undo_twice_says_it_was_already_undone(store: MemoryStore, home: Path) -> None:
    tea(store)
    accepted = dispatch(store, "memory_accept", {"slug": "tea-pref"})
    undo(store, accepted["change"])
    files = memory_files(home)

    error = refused(store, accepted["change"])

    assert error.code == "memory_changed" and "already undone" in error.message
    assert memory_files(home) == files


def test_an_undo_can_itself_be_undone(store: MemoryStore, home: Path) -> None:
    tea(store)
    accepted = dispatch(store, "memory_accept", {"slug": "tea-pref"})
    reviewed = (home / TEA).read_bytes()
    undone = undo(store, accepted["change"])

    redone = undo(store, undone["change"])

    assert (home / TEA).read_bytes() == reviewed
    assert redone["unreviewed"] is False
    assert ops(store) == ["restore", "restore", "accept", "write"]


def test_an_undone_delete_brings_back_the_exact_file_still_unreviewed(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    tea(store)
    before = memory_files(home)
    clock.advance(seconds=30)
    deleted = dispatch(
        store, "memory_delete", {"slug": "tea-pref", "actor": "user", "reason": "wrong"}
    )
    assert TEA not in memory_files(home)

    result = undo(store, deleted["change"])

    assert memory_files(home) == before
    assert result["created"] is True and result["unreviewed"] is True
    assert dispatch(store, "memory_read", {"slug": "tea-pref"})["entry"]["unreviewed"] is True
    assert ops(store)[:2] == ["restore", "delete"]


def test_undoing_a_delete_of_a_memory_that_came_back_is_refused(
    store: MemoryStore, home: Path
) -> None:
    tea(store)
    deleted = dispatch(store, "memory_delete", {"slug": "tea-pref", "actor": "user"})
    remember(store, "tea-pref", type="user", body="Written again.", actor="user")
    files = memory_files(home)

    error = refused(store, deleted["change"])

    assert error.code == "memory_changed" and "exists again" in error.message
    assert memory_files(home) == files


def test_undoing_a_delete_whose_trash_copy_is_gone_says_so(store: MemoryStore, home: Path) -> None:
    tea(store)
    deleted = dispatch(store, "memory_delete", {"slug": "tea-pref", "actor": "user"})
    copies = list((home / "global" / ".trash").glob("tea-pref.*.md"))
    assert len(copies) == 1
    copies[0].unlink()  # someone emptied the trash

    error = refused(store, deleted["change"])

    assert error.code == "version_not_found" and error.field == "change"
    assert TEA not in memory_files(home)


def test_an_undone_type_change_moves_the_file_back(store: MemoryStore, home: Path) -> None:
    tea(store, actor="user")
    before = memory_files(home)
    edited = dispatch(
        store, "memory_update", {"slug": "tea-pref", "type": "reference", "actor": "user"}
    )
    assert "global/tea-pref.md" in memory_files(home) and TEA not in memory_files(home)

    undo(store, edited["change"])

    assert memory_files(home) == before
    assert dispatch(store, "memory_read", {"slug": "tea-pref"})["entry"]["type"] == "user"


def test_only_a_person_undoes(store: MemoryStore, home: Path) -> None:
    tea(store)
    accepted = dispatch(store, "memory_accept", {"slug": "tea-pref"})
    files = memory_files(home)

    for actor in ("tool", "extractor"):
        error = refused(store, accepted["change"], actor=actor)
        assert error.code == "action_not_allowed" and error.field == "actor"
    assert memory_files(home) == files
    assert ops(store) == ["accept", "write"]


def test_changes_that_cannot_be_undone_are_refused_by_name(store: MemoryStore, home: Path) -> None:
    written = tea(store)
    remember(store, "other-note")
    files = memory_files(home)

    error = refused(store, written["change"])
    assert error.code == "invalid_argument" and error.field == "change"
    assert "a write" in error.message
    for change in ("audit:999", "trash:tea-pref.1.md", "nonsense"):
        error = refused(store, change)
        assert error.code == "version_not_found" and error.field == "change", change
    other_change = dispatch(
        store, "memory_update", {"slug": "other-note", "body": "Changed.", "actor": "user"}
    )["change"]
    error = refused(store, other_change)  # a change of another memory
    assert error.code == "version_not_found"
    assert memory_files(home)[TEA] == files[TEA]


def test_history_with_text_gives_each_version_and_the_current_one(
    store: MemoryStore, home: Path
) -> None:
    tea(store, actor="user")
    first = (home / TEA).read_text(encoding="utf-8")
    dispatch(store, "memory_update", {"slug": "tea-pref", "body": "Coffee.", "actor": "user"})
    second = (home / TEA).read_text(encoding="utf-8")
    dispatch(store, "memory_delete", {"slug": "tea-pref", "actor": "user"})
    remember(store, "tea-pref", type="user", body="Tea again.", actor="user")
    now = (home / TEA).read_text(encoding="utf-8")

    plain = history(store)
    full = history(store, with_text=True)

    assert plain["current_text"] is None and all(e["text"] is None for e in plain["entries"])
    assert full["current_text"] == now
    by_op = {(e["source"], e["op"]): e for e in full["entries"]}
    assert by_op[("audit", "update")]["text"] == first
    assert by_op[("trash", "delete")]["text"] == second
    assert by_op[("audit", "write")]["text"] is None  # a write keeps no earlier text
    assert not any(e["current"] for e in full["entries"])


def test_history_with_text_says_what_a_person_reads_in_each_version(
    store: MemoryStore, home: Path
) -> None:
    tea(store)  # an extractor's memory, with its evidence block: unreviewed
    dispatch(
        store,
        "memory_update",
        {"slug": "tea-pref", "description": "Prefers coffee", "body": "Coffee.", "actor": "user"},
    )
    full = history(store, with_text=True)
    before = next(e for e in full["entries"] if e["op"] == "update")["parts"]
    now = full["current_parts"]
    assert (before["description"], now["description"]) == ("About tea-pref", "Prefers coffee")
    assert (before["content"], now["content"]) == ("The user drinks green tea.", "Coffee.")
    assert before["type"] == now["type"] == "user" and now["scope"] == "global"
    assert before["unreviewed"] is True and now["unreviewed"] is False
    assert before["source_quote"] == "I drink green tea" and before["confidence"] == "high"
    assert "---" not in before["content"]  # the evidence block is not the text
    assert history(store)["current_parts"] is None  # only with_text

"""A day's journal as entries with their sources and linked memories (memory_journal_entries)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import memory_payload

DAY = "2026-11-30"  # the FakeClock's day


def extraction(store: MemoryStore, conversation: str, slug: str, line: str) -> None:
    """What post-turn extraction sends: a memory and a journal line in one batch."""
    item = {"op": "upsert", **memory_payload(slug)}
    dispatch(
        store,
        "memory_apply_batch",
        {
            "actor": "extractor",
            "conversation_id": conversation,
            "model": "openai/gpt-x",
            "trigger": "post-turn",
            "items": [item],
            "daily_append": {"bullet": line},
        },
    )


def entries(store: MemoryStore) -> dict[str, Any]:
    return dispatch(store, "memory_journal_entries", {"date": DAY})


def linked(entry: dict[str, Any]) -> list[str]:
    return [memory["slug"] for memory in entry["memories"]]


def test_each_entry_has_its_source_and_the_memories_of_its_conversation(
    store: MemoryStore,
) -> None:
    extraction(store, "conv-1", "tea-pref", "Learned the user likes tea.")
    extraction(store, "conv-2", "build-cmd", "Found the build command.")
    dispatch(store, "memory_daily_append", {"body": "Wrote by hand.", "actor": "user"})

    result = entries(store)

    assert result["paired"] is True and result["slug"] == f"daily-{DAY}"
    assert [e["text"] for e in result["entries"]] == [
        "Learned the user likes tea.",
        "Found the build command.",
        "Wrote by hand.",
    ]
    first, second, third = result["entries"]
    assert [e["source"] for e in result["entries"]] == [0, 1, 2]
    assert (first["conversation_id"], first["model"]) == ("conv-1", "openai/gpt-x")
    assert linked(first) == ["tea-pref"] and linked(second) == ["build-cmd"]
    assert first["memories"][0]["description"] == "About tea-pref"
    assert third["conversation_id"] is None and linked(third) == []


def test_a_deleted_memory_is_no_longer_linked(store: MemoryStore) -> None:
    extraction(store, "conv-1", "tea-pref", "Learned the user likes tea.")
    dispatch(store, "memory_delete", {"slug": "tea-pref", "actor": "user"})

    (entry,) = entries(store)["entries"]

    assert entry["conversation_id"] == "conv-1" and entry["memories"] == []


def test_an_entry_holding_a_blank_line_is_found_through_the_audit_log(
    store: MemoryStore,
) -> None:
    dispatch(store, "memory_daily_append", {"body": "First part.\n\nSecond part."})
    dispatch(store, "memory_daily_append", {"body": "Next entry.", "conversation_id": "c"})

    result = entries(store)

    assert result["paired"] is True
    assert [(e["text"], e["source"]) for e in result["entries"]] == [
        ("First part.\n\nSecond part.", 0),
        ("Next entry.", 1),
    ]


def test_a_hand_edited_day_gives_its_pieces_unpaired(store: MemoryStore, home: Path) -> None:
    dispatch(store, "memory_daily_append", {"body": "One."})
    dispatch(store, "memory_daily_append", {"body": "Two."})
    path = home / "global" / "daily" / f"{DAY}.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nAdded by hand.\n", encoding="utf-8")
    store.reconcile()

    result = entries(store)

    assert result["paired"] is False
    assert [(e["text"], e["source"]) for e in result["entries"]] == [
        ("One.", None),
        ("Two.", None),
        ("Added by hand.", None),
    ]


@pytest.mark.parametrize(
    ("date", "code", "field"),
    [("2026-13-45", "invalid_argument", "date"), ("2026-11-29", "slug_not_found", None)],
)
def test_a_bad_or_empty_day_is_a_typed_error(
    store: MemoryStore, date: str, code: str, field: str | None
) -> None:
    dispatch(store, "memory_daily_append", {"body": "One."})
    with pytest.raises(MemoryDomainError) as caught:
        dispatch(store, "memory_journal_entries", {"date": date})
    assert (caught.value.code, caught.value.field) == (code, field)
    assert [e["text"] for e in entries(store)["entries"]] == ["One."]  # nothing else broke

"""The dispatch table: JSON-shaped in and out, typed errors with stable codes."""

from __future__ import annotations

import json

import pytest

from liveagent_memory.commands import COMMANDS, call, dispatch, find_command
from liveagent_memory.domain import errors
from liveagent_memory.store.store import MemoryStore

REQUIRED = {
    "memory_list",
    "memory_read",
    "memory_search",
    "memory_write",
    "memory_update",
    "memory_delete",
    "memory_accept",
    "memory_apply_batch",
    "memory_quota_summary",
    "memory_index_overview",
    "memory_reconcile",
    "memory_history",
    "memory_restore",
    "memory_delete_project",
    "memory_recent_rejections",
    "memory_paths_info",
    "memory_today_daily",
    "memory_wipe_all",
}


def test_table_has_every_store_command() -> None:
    assert REQUIRED <= set(COMMANDS)


def test_round_trip_with_reference_field_names(store: MemoryStore, workdir: str) -> None:
    created = dispatch(
        store,
        "memory_write",
        {
            "slug": "deploy-steps",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "How to deploy",
            "body": "Run make deploy.",
            "confidence": "high",
            "source_quote": "always deploy with make",
            "reasoning": "user said so",
            "aliases": ["release"],
            "conflicts_with": [],
            "supersedes": "old-deploy",
        },
    )
    assert created["created"] and created["applied_confidence"] == "high"
    read = dispatch(store, "memory_read", {"slug": "deploy-steps", "workdir": workdir})
    assert read["evidence"]["supersedes"] == "old-deploy"
    assert read["entry"]["type"] == "project"
    found = dispatch(store, "search", {"query": "release", "workdir": workdir, "explain": True})
    assert found["matches"][0]["slug"] == "deploy-steps"
    assert found["matches"][0]["explain"]["weight_reason"] == "project memory"
    json.dumps(found)  # JSON-serialisable


def test_every_read_only_command_returns_json(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "a-note", "scope": "global", "type": "reference", "description": "d", "body": "b"},
    )
    for name, payload in [
        ("memory_list", {}),
        ("memory_quota_summary", {}),
        ("memory_index_overview", {}),
        ("memory_history", {"slug": "a-note"}),
        ("memory_recent_rejections", {}),
        ("memory_paths_info", {}),
        ("memory_today_local_date", {}),
        ("memory_today_daily", {}),
        ("memory_problems", {}),
        ("memory_reconcile", {}),
    ]:
        result = dispatch(store, name, payload)
        assert isinstance(result, dict)
        json.dumps(result)
    assert dispatch(store, "memory_today_local_date", {})["date"] == "2026-11-30"
    assert dispatch(store, "memory_today_daily", {}) == {"daily": None}


def test_errors_have_reference_shape(store: MemoryStore) -> None:
    ok, error = call(store, "memory_read", {"slug": "nope-nope"})
    assert not ok
    assert error["error"] == "slug_not_found" and error["message"]
    assert error["suggested_next_call"] == {"action": "search", "query": "nope nope"}
    assert error["candidates"] == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"slug": 5, "scope": "global", "type": "user", "description": "d", "body": "b"}, "slug"),
        ({"scope": "global", "type": "user", "description": "d", "body": "b"}, "slug"),
        (
            {
                "slug": "abc",
                "scope": "global",
                "type": "user",
                "description": "d",
                "body": "b",
                "typo_field": 1,
            },
            "typo_field",
        ),
        (
            {
                "slug": "abc",
                "scope": "global",
                "type": "user",
                "description": "d",
                "body": "b",
                "aliases": "not-a-list",
            },
            "aliases",
        ),
    ],
)
def test_invalid_payloads_are_typed_errors(
    store: MemoryStore, payload: dict[str, object], field: str
) -> None:
    with pytest.raises(errors.InvalidArgument) as caught:
        dispatch(store, "memory_write", payload)
    assert caught.value.field == field
    assert caught.value.to_dict()["error"] == "invalid_argument"
    assert store.problems() == []  # the store is untouched
    assert dispatch(store, "memory_list", {})["total"] == 0


def test_payload_must_be_an_object(store: MemoryStore) -> None:
    with pytest.raises(errors.InvalidArgument):
        dispatch(store, "memory_list", ["not", "an", "object"])


def test_unknown_command_suggests_close_names() -> None:
    with pytest.raises(errors.UnknownCommand) as caught:
        find_command("memory_serch")
    assert {"command": "memory_search"} in (caught.value.candidates or [])
    assert find_command("search").name == "memory_search"


def test_wipe_all_needs_confirmation(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "keep-me", "scope": "global", "type": "user", "description": "d", "body": "b"},
    )
    with pytest.raises(errors.InvalidArgument):
        dispatch(store, "memory_wipe_all", {})
    assert dispatch(store, "memory_list", {})["total"] == 1
    assert dispatch(store, "memory_wipe_all", {"confirm": True})["is_fresh"]


def test_batch_accepts_reference_aliases(store: MemoryStore) -> None:
    result = dispatch(
        store,
        "memory_apply_batch",
        {
            "decisions": [
                {
                    "op": "upsert",
                    "slug": "from-decisions",
                    "scope": "global",
                    "type": "reference",
                    "description": "d",
                    "body": "b",
                }
            ],
            "daily_append": {"bullet": "- a journal line"},
        },
    )
    assert result["applied"] == 2
    assert dispatch(store, "memory_daily_append", {"bullet": "via bullet"})["updated"]


@pytest.mark.parametrize(
    "item", [{"op": "frob"}, {"op": "frob", "slug": "a-b", "body": "x"}, {"op": "Upsert"}]
)
def test_a_batch_item_with_an_unknown_op_says_unknown_op(
    store: MemoryStore, item: dict[str, str]
) -> None:
    """Issue 14: an op-less slug check answered first ("needs a slug")."""
    result = dispatch(store, "memory_apply_batch", {"items": [item]})

    (failed,) = result["items"]
    assert (result["failed"], failed["status"]) == (1, "failed")
    assert failed["error"]["error"] == "invalid_argument"
    assert failed["error"]["field"] == "op"
    assert failed["error"]["message"].startswith(f"unknown op {item['op']!r}: use upsert, ")
    assert dispatch(store, "memory_list", {})["total"] == 0


@pytest.mark.parametrize(
    ("command", "payload"),
    [
        ("memory_list", {"scope": "project"}),
        ("memory_search", {"query": "tea", "scope": "project"}),
    ],
)
def test_project_scope_reads_need_a_workdir(
    store: MemoryStore, workdir: str, command: str, payload: dict[str, object]
) -> None:
    dispatch(
        store,
        "memory_write",
        {
            "slug": "tea-notes",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "Tea notes",
            "body": "We drink tea.",
        },
    )
    ok, response = call(store, command, payload)
    assert not ok and response["error"] == "workdir_required"
    # With the workdir the same request finds the project memory.
    found = dispatch(store, command, {**payload, "workdir": workdir})
    slugs = [row["slug"] for row in found["entries" if "entries" in found else "matches"]]
    assert slugs == ["tea-notes"]


def test_searching_every_project_leaves_global_memories_out(
    store: MemoryStore, workdir: str
) -> None:
    for slug, scope, extra in (
        ("tea-global", "global", {}),
        ("tea-project", "project", {"workdir": workdir}),
    ):
        dispatch(
            store,
            "memory_write",
            {
                "slug": slug,
                "scope": scope,
                "type": "reference",
                "description": "Green tea",
                "body": "We drink green tea.",
                **extra,
            },
        )
    for query in ("green tea", "tea", "gre"):  # word match, short word, substring fallback
        found = dispatch(
            store,
            "memory_search",
            {"query": query, "scope": "project", "include_all_projects": True},
        )
        assert [hit["slug"] for hit in found["matches"]] == ["tea-project"], query
        both = dispatch(store, "memory_search", {"query": query, "include_all_projects": True})
        assert {hit["slug"] for hit in both["matches"]} == {"tea-global", "tea-project"}, query

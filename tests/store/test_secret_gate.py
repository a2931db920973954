"""The secret gate (issue 12): no field that reaches a file or the index carries a credential.

Through the CLI `call`, the MemoryManager tool, an extraction plan and an organizer plan from the
fake model server, and hand-made files. Every refusal is `risk_hard_blocked`, names the field
and never echoes the secret; no file under the store (index included) holds it afterwards, and
every other memory still opens, reads and searches.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.agent.extraction.engine import ExtractionEngine
from liveagent_memory.agent.extraction.types import ConversationState, ExtractionStatus, TurnInput
from liveagent_memory.agent.manager_tool import ManagerToolExecutor
from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.gates import assert_every_memory_works
from tests.helpers.memories import memory_payload, user_memory
from tests.helpers.organizer import PLAN, new_run, read_run, report_of, tool_reply

# Shapes of real keys (not real keys): an OpenAI project key, a GitHub token, an AWS key id.
OPENAI = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7cF0" * 3
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
HEALTHY = {"tea-pref": "green", "pkg-manager": "pnpm"}


def files_holding(home: Path, secret: str) -> list[Path]:
    """Every file under the store (memories, index, WAL, run rows, episodes) holding `secret`."""
    needles = (secret.encode(), secret.lower().encode())
    return [
        p
        for p in home.rglob("*")
        if p.is_file() and any(needle in p.read_bytes() for needle in needles)
    ]


@pytest.fixture
def seeded(store: MemoryStore) -> MemoryStore:
    for slug, body in (("tea-pref", "The user drinks green tea."), ("pkg-manager", "Use pnpm.")):
        user_memory(store, slug, body=body)
    return store


def write(**extra: Any) -> dict[str, Any]:
    """A harmless new note's `memory_write` payload, with `extra` changed or added."""
    return memory_payload("new-note", description="A note", body="Harmless text.") | extra


def batch(**extra: Any) -> dict[str, Any]:
    item = {"op": "upsert", "slug": "new-note", "type": "reference", "description": "d"}
    return {"items": [{**item, "body": "Harmless text."}], **extra}


def report(message: str) -> dict[str, Any]:
    item = {"phase": "planning", "kind": "error", "severity": "error", "message": message}
    return {"version": 4, "reviewItems": [item]}


# (command, payload made from the secret and the store's home, the field the error names)
CASES: list[tuple[str, Callable[[str, Path], dict[str, Any]], str]] = [
    ("memory_write", lambda s, _: write(conversation_id=f"conv {s}"), "conversation_id"),
    ("memory_write", lambda s, _: write(model=s), "model"),
    ("memory_write", lambda s, _: write(trigger=f"hook {s}"), "trigger"),
    ("memory_write", lambda s, _: write(slug=s), "slug"),  # a slug becomes a file name
    (
        "memory_write",
        lambda s, h: write(scope="project", workdir=str(h.parent / f"work-{s}")),
        "workdir",  # it would be written to .workdir.json
    ),
    ("memory_write", lambda s, _: write(source_quote=f"key {s}"), "source_quote"),
    ("memory_update", lambda s, _: {"slug": "tea-pref", "model": s}, "model"),
    ("memory_delete", lambda s, _: {"slug": "tea-pref", "reason": f"leaked {s}"}, "reason"),
    ("memory_daily_append", lambda s, _: {"body": "ok", "conversation_id": s}, "conversation_id"),
    ("memory_daily_append", lambda s, _: {"body": "ok", "trigger": s}, "trigger"),
    ("memory_apply_batch", lambda s, _: batch(conversation_id=s), "conversation_id"),
    ("memory_apply_batch", lambda s, _: batch(model=s), "model"),
    ("memory_delete_project", lambda s, h: {"workdir": str(h), "reason": s}, "reason"),
    ("organize_run_create", lambda s, _: {"model": {"model": "x", "note": s}}, "model.note"),
    ("episode_record", lambda s, _: {"episode": {"id": s, "goal": "g"}}, "id"),
    ("episode_record", lambda s, _: {"episode": {"task_id": s, "goal": "g"}}, "task_id"),
    ("episode_record", lambda s, _: {"episode": {"git_commit": s, "goal": "g"}}, "git_commit"),
    (
        "episode_record",
        lambda s, h: {"episode": {"goal": "g", "workdir": str(h.parent / f"w-{s}")}},
        "workdir",
    ),
]


@pytest.mark.parametrize("secret", [OPENAI, GITHUB, AWS], ids=["openai", "github", "aws"])
@pytest.mark.parametrize(("command", "make", "field"), CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_cli_call_refuses_a_secret_in_any_field(
    seeded: MemoryStore,
    home: Path,
    clock: FakeClock,
    secret: str,
    command: str,
    make: Callable[[str, Path], dict[str, Any]],
    field: str,
) -> None:
    before = {p: p.read_bytes() for p in home.rglob("*.md")}

    code, out = cli_call(home, clock, command, make(secret, home))

    assert code == 1 and out["error"] == "risk_hard_blocked", out
    assert out["field"] == field
    assert secret not in str(out) and secret.lower() not in str(out)  # never echoed
    assert files_holding(home, secret) == []
    assert {p: p.read_bytes() for p in home.rglob("*.md")} == before
    assert not (home / "episodes").exists()
    assert dispatch(seeded, "organize_run_list", {})["runs"] == []
    assert_every_memory_works(home, clock, HEALTHY)


def test_run_update_refuses_a_secret_in_its_report(
    seeded: MemoryStore, home: Path, clock: FakeClock
) -> None:
    run = new_run(seeded)
    payload = {"run_id": run["run_id"], "status": "succeeded", "report": report(f"oops {OPENAI}")}

    code, out = cli_call(home, clock, "organize_run_update", payload)

    assert code == 1 and out["error"] == "risk_hard_blocked"
    assert out["field"] == "report.reviewItems[0].message"
    assert files_holding(home, OPENAI) == []
    assert read_run(seeded, run["run_id"])["status"] == "running"  # unchanged
    for name in ("error", "final_summary"):
        code, out = cli_call(
            home, clock, "organize_run_update", {"run_id": run["run_id"], name: OPENAI}
        )
        assert code == 1 and out["field"] == name
    assert files_holding(home, OPENAI) == []
    assert_every_memory_works(home, clock, HEALTHY)


def test_a_secret_in_one_batch_item_fails_that_item_only(
    seeded: MemoryStore, home: Path, clock: FakeClock
) -> None:
    items = [
        {"op": "delete", "slug": "tea-pref", "reason": f"rotated {GITHUB}"},
        {"op": "update", "slug": "pkg-manager", "body": "Use pnpm 9.", "mode": "replace"},
    ]

    code, out = cli_call(home, clock, "memory_apply_batch", {"items": items, "actor": "user"})

    assert code == 0
    assert [(i["status"], (i["error"] or {}).get("field")) for i in out["items"]] == [
        ("failed", "reason"),
        ("applied", None),
    ]
    assert files_holding(home, GITHUB) == []
    assert_every_memory_works(home, clock, HEALTHY)


# --- the MemoryManager tool -------------------------------------------------------------------


def test_the_tool_refuses_a_secret_from_its_host_or_its_arguments(
    seeded: MemoryStore, home: Path, clock: FakeClock
) -> None:
    args = {"action": "write", "slug": "new-note", "type": "reference", "description": "d"}
    leaky_host = ManagerToolExecutor(seeded, conversation_id=f"chat-{OPENAI}")
    outcome = leaky_host.execute({**args, "body": "Harmless."})
    assert outcome.payload["error"] == "risk_hard_blocked"
    assert outcome.payload["field"] == "conversation_id" and OPENAI not in outcome.content

    tool = ManagerToolExecutor(seeded, conversation_id="chat-1", model=f"openai/{AWS}")
    outcome = tool.execute({"action": "delete", "slug": "tea-pref"})
    assert outcome.payload["error"] == "risk_hard_blocked" and outcome.payload["field"] == "model"

    tool = ManagerToolExecutor(seeded, conversation_id="chat-1")
    outcome = tool.execute({"action": "delete", "slug": "tea-pref", "reason": f"see {GITHUB}"})
    assert outcome.payload["error"] == "risk_hard_blocked" and outcome.payload["field"] == "reason"
    outcome = tool.execute({**args, "body": "ok", "slug": GITHUB})
    assert outcome.payload["error"] == "risk_hard_blocked" and GITHUB not in outcome.content

    for secret in (OPENAI, AWS, GITHUB):
        assert files_holding(home, secret) == []
    assert_every_memory_works(home, clock, HEALTHY)


# --- extraction and organizer plans from the fake model server ---------------------------------


@pytest.mark.asyncio
async def test_an_extraction_run_with_a_secret_conversation_id_writes_nothing(
    seeded: MemoryStore, home: Path, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    item = {**write(), "action": "write", "confidence": "low"}
    delete = {"action": "delete", "slug": "tea-pref", "scope": "global", "reasoning": GITHUB}
    llm_server.reply_tool("SubmitMemoryPlan", {"status": "updated", "items": [item, delete]})
    other = {**item, "slug": "other-note"}
    llm_server.reply_tool("SubmitMemoryPlan", {"status": "updated", "items": [other]})
    messages = [
        {"role": "user", "content": "Please remember that the build uses pnpm from now on."},
        {"role": "assistant", "content": "Noted."},
    ]
    engine = ExtractionEngine(seeded, llm_client(llm_server))

    # A delete whose reason holds a token fails alone; the write goes through.
    first = await engine.run(TurnInput("conv-1", messages), ConversationState())
    assert first.status is ExtractionStatus.PARTIAL
    assert [(i.index, i.code) for i in first.issues] == [(1, "risk_hard_blocked")]
    assert GITHUB not in str(first.issues)
    # A host that puts a key in the conversation id gets the whole batch refused.
    second = await engine.run(TurnInput(f"conv-{OPENAI}", messages), ConversationState())
    assert second.status is ExtractionStatus.FAILED and second.reason == "risk_hard_blocked"

    assert files_holding(home, GITHUB) == [] and files_holding(home, OPENAI) == []
    assert_every_memory_works(home, clock, {**HEALTHY, "new-note": "harmless"})


@pytest.mark.asyncio
async def test_an_organizer_plan_holding_a_secret_is_discarded(
    seeded: MemoryStore, home: Path, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    decision = {"action": "delete", "slug": "tea-pref", "confidence": 0.95, "reason": OPENAI}
    llm_server.push(tool_reply(PLAN, {"summary": "tidy", "decisions": [decision]}))
    run = new_run(seeded)

    final = await asyncio.wait_for(OrganizerPipeline(seeded, llm_client(llm_server)).run(run), 20)

    assert final["status"] == "failed" and final["error"] == "every cluster's plan failed"
    items = report_of(final)["reviewItems"]
    assert [(i["code"], i["phase"]) for i in items] == [("risk_hard_blocked", "planning")]
    assert report_of(final)["raw"] == []  # not even the raw answer was kept
    assert files_holding(home, OPENAI) == []
    assert_every_memory_works(home, clock, HEALTHY)


# --- hand-made files ----------------------------------------------------------------------------


def test_a_hand_made_file_holding_a_secret_is_reported_not_indexed(
    home: Path, clock: FakeClock
) -> None:
    """The store never wrote it, so nothing scanned it: indexed, its text would reach a model
    through search and the Memory Index. It is a problem instead, left as it is."""
    text = memory_text("server-notes", body="The server is in Frankfurt.").replace(
        "---\n\n", f"source:\n  trigger: user\n  conversationId: {OPENAI}\n---\n\n", 1
    )
    path = write_file(home, "global/server-notes.md", text)
    write_file(home, "global/tea-fact.md", memory_text("tea-fact", body="Green tea facts."))
    episode = {"id": "ep-leak", "goal": f"rotate {GITHUB}", "timestamp": "2026-11-30T10:00:00Z"}
    write_file(home, "episodes/2026-11-30/ep-leak.json", json.dumps(episode))

    code, out = cli_call(home, clock, "memory_problems", {})

    assert code == 0
    reasons = {p["path"]: p["reason"] for p in out["problems"]}
    assert reasons["global/server-notes.md"].startswith(
        "holds what looks like a secret (OpenAI API key) in source.conversationId: not indexed"
    )
    assert reasons["episodes/2026-11-30/ep-leak.json"].startswith("not indexed: ")
    assert OPENAI not in str(out) and GITHUB not in str(out)
    assert path.read_text() == text
    with MemoryStore.open(home, clock=clock) as store:
        assert dispatch(store, "memory_search", {"query": "Frankfurt"})["matches"] == []
        assert dispatch(store, "episode_search", {"query": "rotate"})["hits"] == []
    assert files_holding(home, OPENAI) == [path]  # not copied into the index or anywhere


def test_a_trashed_version_holding_a_secret_is_never_restored(home: Path, clock: FakeClock) -> None:
    write_file(home, "global/tea-fact.md", memory_text("tea-fact", body="Green tea facts."))
    with MemoryStore.open(home, clock=clock) as store:
        dispatch(store, "memory_delete", {"slug": "tea-fact", "actor": "user"})
    trashed = next((home / "global" / ".trash").glob("tea-fact.*.md"))
    trashed.write_text(memory_text("tea-fact", body=f"Green tea facts. Key {OPENAI}"))
    with MemoryStore.open(home, clock=clock) as store:
        history = dispatch(store, "memory_history", {"slug": "tea-fact"})["entries"]
        version = next(entry for entry in history if entry["restorable"])
    code, out = cli_call(
        home, clock, "memory_restore", {"slug": "tea-fact", "version": version["version"]}
    )
    assert code == 1 and out["error"] == "risk_hard_blocked" and OPENAI not in str(out)
    assert not (home / "global/tea-fact.md").exists()

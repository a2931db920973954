"""One organizer run end to end (REFERENCE A10, SPEC 4): scan → cluster → plan → gate → apply.

Real temp-dir stores and SQLite; the model is the fake OpenAI-compatible server, reached through
litellm for real. Plan replies are computed from the cluster each request carries, so the
pipeline's own clustering decides what the "model" sees.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.prompts.shared import NOT_INSTRUCTIONS
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer, Reply, completion_body, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import (
    PLAN,
    TOPIC,
    body_of,
    cluster_of,
    delete,
    keep_all,
    memory_files,
    merge,
    new_run,
    only_known,
    planner,
    read_run,
    report_of,
    slugs_in,
    system_prompt,
    tool_reply,
    usage,
    write,
)


async def organize(
    store: MemoryStore,
    server: FakeLLMServer | None,
    run: dict[str, Any],
    **kwargs: Any,
) -> dict[str, Any]:
    llm = llm_client(server) if server is not None else None
    final = await asyncio.wait_for(OrganizerPipeline(store, llm).run(run, **kwargs), timeout=20)
    # what the pipeline returns is what the store now holds
    assert final == read_run(store, run["run_id"])
    return final


def nine_teas(store: MemoryStore) -> list[str]:
    """Nine global reference memories (one more than a structural cluster holds)."""
    slugs = [f"tea-{i}" for i in range(9)]
    for slug in slugs:
        write(store, slug)
    return slugs


def error_items(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in report_of(run)["reviewItems"] if item["kind"] == "error"]


# --- clustering -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_few_memories_need_no_topic_call(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    teas = ["tea-black", "tea-green", "tea-jasmine", "tea-matcha", "tea-oolong", "tea-rooibos"]
    for slug in teas:  # with the two below: exactly 8, still no topic call
        write(store, slug)
    write(store, "who-name", type="user")
    write(store, "who-city", type="user")
    for _ in range(2):
        llm_server.push(planner(keep_all))
    run = new_run(store)

    final = await organize(store, llm_server, run)

    assert final["status"] == "succeeded"
    assert len(llm_server.requests) == 2
    assert all(llm_server.tool_names(i) == [PLAN] for i in range(2))
    clusters = sorted(cluster_of(r) for r in llm_server.requests)
    assert clusters == [
        ("global::reference:1", teas),
        ("global::user:1", ["who-city", "who-name"]),
    ]
    assert final["input_count"] == 8
    assert final["cluster_count"] == 2
    report = report_of(final)
    assert sorted(s["clusterId"] for s in report["clusterSummaries"]) == [c for c, _ in clusters]
    assert report["safeDecisions"] == []
    # the plan prompt: mode text, the forecast floor(.6n)..ceil(.8n), and the memories as data
    request = llm_server.requests[0]
    assert "Mode: conservative." in system_prompt(request)
    assert NOT_INSTRUCTIONS in system_prompt(request)
    assert "Expected size after tidying: 4–7 of 8 memories." in request["messages"][1]["content"]


@pytest.mark.asyncio
async def test_more_than_8_memories_ask_for_topic_clusters_first(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    slugs = nine_teas(store)
    write(store, "who-name", "My name is Ada.", type="user", reviewed=True)
    topics = {
        "topic_clusters": [
            {"topic": "Green teas", "slugs": ["tea-1", "tea-4", "who-name"]},
            {"topic": "Nonsense", "slugs": ["tea-2", "no-such-slug"]},  # < 2 valid: dropped
            {"topic": "Repeat", "slugs": ["tea-1", "tea-4"]},  # already used: dropped
        ]
    }
    llm_server.push(tool_reply(TOPIC, topics))
    for _ in range(3):
        llm_server.push(planner(keep_all))
    run = new_run(store)

    final = await organize(store, llm_server, run)

    assert final["status"] == "succeeded"
    assert llm_server.tool_names(0) == [TOPIC]
    inventory = llm_server.requests[0]["messages"][1]["content"]
    assert NOT_INSTRUCTIONS in inventory
    assert "- who-name (global/user, reviewed) — About who-name" in inventory
    assert all(f"- {slug} (global/reference, unreviewed)" in inventory for slug in slugs)
    clusters = [cluster_of(r) for r in llm_server.requests[1:]]
    assert clusters == [
        ("topic:Green-teas", ["tea-1", "tea-4", "who-name"]),
        ("global::reference:1", ["tea-0", "tea-2", "tea-3", "tea-5", "tea-6", "tea-7", "tea-8"]),
    ]
    assert final["cluster_count"] == 2
    assert len(llm_server.requests) == 2 + 1
    assert llm_server.pending == 1  # the third scripted plan was never needed


@pytest.mark.asyncio
async def test_invalid_topic_clusters_fall_back_to_structural(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    nine_teas(store)
    llm_server.push(tool_reply(TOPIC, {"topic_clusters": [{"topic": "x", "slugs": ["tea-1"]}]}))
    for _ in range(2):
        llm_server.push(planner(keep_all))

    final = await organize(store, llm_server, new_run(store))

    assert final["status"] == "succeeded"
    assert [cluster_of(r)[0] for r in llm_server.requests[1:]] == [
        "global::reference:1",
        "global::reference:2",
    ]
    assert [len(cluster_of(r)[1]) for r in llm_server.requests[1:]] == [8, 1]


@pytest.mark.asyncio
async def test_model_not_calling_the_topic_tool_falls_back_with_a_review_item(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    nine_teas(store)
    llm_server.reply_text("These memories look fine to me.")
    for _ in range(2):
        llm_server.push(planner(keep_all))

    final = await organize(store, llm_server, new_run(store))

    assert final["status"] == "succeeded"
    assert final["cluster_count"] == 2
    assert [llm_server.tool_names(i) for i in range(3)] == [[TOPIC], [PLAN], [PLAN]]
    items = report_of(final)["reviewItems"]
    assert [(i["code"], i["severity"], i["phase"]) for i in items] == [
        ("clusters_missing", "warning", "planning")
    ]
    assert final["parse_failures"] == 0


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "code"),
    [
        pytest.param(tool_reply(TOPIC, '{"topic_clusters": [ oops'), "llm_malformed_tool_arguments",
                     id="garbage-json"),
        pytest.param(Reply({"error": {"message": "overloaded"}}, 500), "llm_unavailable",
                     id="server-error"),
    ],
)  # fmt: skip
async def test_failed_topic_call_falls_back_to_structural(
    store: MemoryStore, llm_server: FakeLLMServer, reply: Reply, code: str
) -> None:
    nine_teas(store)
    llm_server.push(reply)
    for _ in range(2):
        llm_server.push(planner(keep_all))

    final = await organize(store, llm_server, new_run(store))

    assert final["status"] == "succeeded"
    assert final["cluster_count"] == 2
    items = report_of(final)["reviewItems"]
    assert [(i["code"], i["severity"]) for i in items] == [(code, "warning")]
    assert items[0]["message"].startswith("topic clustering failed")


# --- plan failures ----------------------------------------------------------------------------


def failing_for(cluster_prefix: str, failure: Reply) -> Callable[[dict[str, Any]], Reply]:
    def answer(request: dict[str, Any]) -> Reply:
        cluster, slugs = cluster_of(request)
        if cluster.startswith(cluster_prefix):
            return failure
        return planner(only_known([merge("tea-a", "tea-b")]))(request)

    return answer


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("failure", "code"),
    [
        pytest.param(Reply({"error": {"message": "boom"}}, 500), "llm_unavailable", id="http-500"),
        pytest.param(tool_reply(PLAN, "{decisions: [keep"), "llm_malformed_tool_arguments",
                     id="garbage-json"),
        pytest.param(tool_reply(PLAN, {"decisions": "keep all"}), "plan_invalid",
                     id="decisions-not-a-list"),
        pytest.param(tool_reply(TOPIC, {"topic_clusters": []}), "plan_invalid", id="wrong-tool"),
        pytest.param(Reply(completion_body(content="All good.")), "plan_invalid", id="no-tool"),
        # Issue 12: text no file may hold fails its cluster (before: UnicodeEncodeError, run lost)
        pytest.param(tool_reply(PLAN, json.dumps({"decisions": [
            merge("who-name", "who-city", reason="same \ud800 person")]})), "plan_invalid",
                     id="lone-surrogate"),
        pytest.param(tool_reply(PLAN, json.dumps({"summary": "nul\x00", "decisions": []})),
                     "plan_invalid", id="nul"),
    ],
)  # fmt: skip
async def test_one_failing_cluster_is_isolated(
    store: MemoryStore, llm_server: FakeLLMServer, failure: Reply, code: str
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    write(store, "who-name", "My name is Ada.", type="user")
    write(store, "who-city", "I live in Lyon.", type="user")
    for _ in range(2):
        llm_server.push(failing_for("global::user", failure))
    before = memory_files(store.root)

    final = await organize(store, llm_server, new_run(store))

    assert final["status"] == "succeeded"
    assert final["parse_failures"] == 1
    assert final["cluster_count"] == 2
    errors = error_items(final)
    assert [(e["code"], e["severity"], e["phase"]) for e in errors] == [(code, "error", "planning")]
    assert errors[0]["message"].startswith("global::user:1: ")
    report = report_of(final)
    assert [s["clusterId"] for s in report["clusterSummaries"]] == ["global::reference:1"]
    assert [r["clusterId"] for r in report["raw"]] == ["global::reference:1"]
    # the healthy cluster's merge is still proposed (manual run: stored, not applied)
    assert [(d["op"], d["slug"]) for d in report["safeDecisions"]] == [
        ("upsert", "tea-a"),
        ("delete", "tea-b"),
    ]
    assert memory_files(store.root) == before


@pytest.mark.asyncio
async def test_every_cluster_failing_fails_the_run(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a")
    write(store, "who-name", type="user")
    llm_server.reply_error(500, "down")
    llm_server.push(tool_reply(PLAN, "not json at all"))
    before = memory_files(store.root)

    final = await organize(store, llm_server, new_run(store, trigger="scheduled"))

    assert final["status"] == "failed"
    assert final["phase"] == "done"
    assert final["error"] == "every cluster's plan failed"
    assert final["parse_failures"] == 2
    assert final["finished_at"] is not None
    codes = sorted(e["code"] for e in error_items(final))
    assert codes == ["llm_malformed_tool_arguments", "llm_unavailable"]
    assert memory_files(store.root) == before


# --- manual, scheduled, dry runs --------------------------------------------------------------


@pytest.mark.asyncio
async def test_manual_run_stores_decisions_and_changes_no_file(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    write(store, "tea-old", "Tried matcha once in 2019.")
    write(store, "tea-vague", "Something about tea.")
    decisions = [
        merge("tea-a", "tea-b", preserved_evidence=["every morning"]),
        delete("tea-old", confidence=0.65),  # low confidence: refused by the gate
        {"action": "mark_review", "slug": "tea-vague", "reason": "too vague"},
        {"action": "keep", "slug": "tea-a"},
    ]
    llm_server.push(planner(only_known(decisions)))
    before = memory_files(store.root)

    final = await organize(store, llm_server, new_run(store, mode="standard"))

    assert final["status"] == "succeeded"
    assert memory_files(store.root) == before
    assert slugs_in(store) == {"tea-a", "tea-b", "tea-old", "tea-vague"}
    report = report_of(final)
    safe = report["safeDecisions"]
    assert [(d["op"], d["slug"], d["riskLevel"], d["requiresUserAck"]) for d in safe] == [
        ("upsert", "tea-a", "low", False),
        ("delete", "tea-b", "low", False),
    ]
    assert safe[0]["groupId"] == safe[1]["groupId"] == "merge:global::reference:1:tea-a:tea-a+tea-b"
    assert safe[0]["body"] == "I drink green tea.\n\nGreen tea every morning."
    assert safe[0]["evidencePreserved"] == ["every morning"]
    assert report["manualApplyState"] == {
        "status": "pending",
        "appliedDecisionKeys": [],
        "failedDecisionKeys": [],
        "counts": {},
    }
    assert report["rejectionBuckets"]["lowConfidence"] == 1
    assert report["rejectionBuckets"]["reviewRequiredByLlm"] == 1
    assert [i["message"] for i in report["reviewItems"]] == [
        "global::reference:1: mark_review tea-vague - too vague"
    ]
    assert report["compressionForecast"] == {"before": 4, "low": 2, "high": 4}
    assert final["safe_applied"] == 0
    assert final["review_skipped"] == 2
    assert final["merged_count"] == 1
    assert final["final_count"] == 4
    assert final["compression_ratio"] == 1.0


def run_phase(home: Path, run_id: str) -> str:
    """The run row's phase, read with a connection of our own (as another process would)."""
    with sqlite3.connect(home / "memory-index.sqlite3") as conn:
        row = conn.execute(
            "SELECT phase, status FROM memory_organize_runs WHERE run_id = ?", (run_id,)
        ).fetchone()
    return f"{row[1]}/{row[0]}"


@pytest.mark.asyncio
async def test_phases_are_recorded_as_they_happen(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    nine_teas(store)
    run = new_run(store)
    seen: list[str] = []

    def topic(request: dict[str, Any]) -> Reply:
        seen.append(run_phase(store.root, run["run_id"]))
        return tool_reply(TOPIC, {"topic_clusters": []})

    def plan(request: dict[str, Any]) -> Reply:
        seen.append(run_phase(store.root, run["run_id"]))
        return planner(keep_all)(request)

    llm_server.push(topic)
    llm_server.push(plan)
    llm_server.push(plan)
    progress: list[str] = []

    final = await organize(store, llm_server, run, progress=progress.append)

    assert seen == ["running/cluster", "running/plan", "running/plan"]
    assert progress == [
        "scan",
        "cluster",
        "plan",
        "plan 1/2: global::reference:1",
        "plan 2/2: global::reference:2",
        "gate",
        "apply",
    ]
    assert (final["status"], final["phase"]) == ("succeeded", "done")


@pytest.mark.asyncio
async def test_scheduled_run_applies_only_low_risk_and_spares_reviewed_memories(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    write(store, "tea-c", "Sencha is a green tea.", description="Tea")
    write(store, "coffee-a", "No coffee after 2pm.", reviewed=True, description="Coffee")
    write(store, "coffee-b", "No coffee after 2pm, please.", reviewed=True, description="Coffee")
    write(store, "snack-old", "Snacks: none.")
    write(store, "snack-new", "Snacks: almonds.")
    clock.advance(seconds=30)
    reviewed_before = {
        slug: (store.root / "global" / f"{slug}.md").read_bytes()
        for slug in ("coffee-a", "coffee-b")
    }
    tea_a_before = (store.root / "global" / "tea-a.md").read_bytes()
    tea_b_before = (store.root / "global" / "tea-b.md").read_bytes()
    decisions = [
        merge("tea-a", "tea-b", "tea-c", reason="all green tea"),  # low, 0.95: applied
        merge("coffee-a", "coffee-b"),  # reviewed: medium at best
        delete("coffee-a", confidence=1.0),  # reviewed delete: high
        delete("snack-old", confidence=0.85),  # medium by confidence
        delete("snack-new", risk="medium"),  # the model's own medium is kept
    ]
    llm_server.push(planner(only_known(decisions), tokens=usage(400, 100)))

    final = await organize(store, llm_server, new_run(store, trigger="scheduled"))

    assert final["status"] == "succeeded"
    # reviewed memories are byte-identical, and got no snapshot
    for slug, raw in reviewed_before.items():
        assert (store.root / "global" / f"{slug}.md").read_bytes() == raw
    snapshots = sorted(p.name for p in (store.root / "global" / ".organize-snapshots").iterdir())
    now = clock()
    assert snapshots == [f"{now}.tea-a.md", f"{now}.tea-b.md", f"{now}.tea-c.md"]
    assert slugs_in(store) == {"tea-a", "coffee-a", "coffee-b", "snack-old", "snack-new"}
    # the merge: target rewritten with every source's text, sources in the trash
    merged = body_of(store, "tea-a")
    assert merged == "I drink green tea.\n\nGreen tea every morning.\n\nSencha is a green tea."
    provenance = dispatch(store, "memory_read", {"slug": "tea-a"})["evidence"]
    assert provenance["supersedes"] == "tea-b, tea-c"
    history = dispatch(store, "memory_history", {"slug": "tea-a"})["entries"]
    assert "organizer merge of tea-b, tea-c into tea-a: all green tea" in history[0]["reason"]
    trash = sorted(p.name for p in (store.root / "global" / ".trash").iterdir())
    assert trash == [f"tea-b.{now}.md", f"tea-c.{now}.md"]
    # snapshots hold the files as they were before the organizer touched them
    snapshot_dir = store.root / "global" / ".organize-snapshots"
    assert (snapshot_dir / f"{now}.tea-a.md").read_bytes() == tea_a_before
    assert (snapshot_dir / f"{now}.tea-b.md").read_bytes() == tea_b_before
    # counters: 7 in, 2 deleted, 0 created -> 5
    assert final["input_count"] == 7
    assert final["safe_applied"] == 3
    assert final["updated_count"] == 1
    assert final["deleted_count"] == 2
    assert final["created_count"] == 0
    assert final["merged_count"] == 2
    assert final["review_skipped"] == 4
    assert final["final_count"] == 7 - 2 + 0
    assert final["compression_ratio"] == pytest.approx(5 / 7)
    assert final["token_usage_total"] == 500
    report = report_of(final)
    # what a scheduled run applied is on record, and nothing is left to apply by hand
    state = report["manualApplyState"]
    assert state["status"] == "applied" and not state["failedDecisionKeys"]
    assert (
        len(state["appliedDecisionKeys"]) == final["safe_applied"] == len(report["safeDecisions"])
    )
    ok, error = call(store, "organize_apply", {"run_id": final["run_id"], "all_safe": True})
    assert (ok, error["error"]) == (False, "nothing_to_apply")
    assert report["rejectionBuckets"]["reviewedProtected"] == 2
    # the audit trail names the organizer and the run
    history = dispatch(store, "memory_history", {"slug": "tea-a"})["entries"]
    update = next(e for e in history if e["source"] == "audit" and e["op"] == "update")
    assert update["trigger"] == config.ORGANIZE_TRIGGER
    assert update["conversation_id"] == final["run_id"]


@pytest.mark.asyncio
async def test_merged_memories_are_restorable_from_history(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    clock.advance(seconds=5)
    llm_server.push(planner(only_known([merge("tea-a", "tea-b")])))

    final = await organize(store, llm_server, new_run(store, trigger="scheduled"))
    assert final["safe_applied"] == 2
    clock.advance(seconds=5)

    target = dispatch(store, "memory_history", {"slug": "tea-a"})
    snapshot = next(e for e in target["entries"] if e["source"] == "snapshot")
    assert snapshot["who"] == "organizer" and snapshot["restorable"]
    dispatch(store, "memory_restore", {"slug": "tea-a", "version": snapshot["version"]})
    assert body_of(store, "tea-a") == "I drink green tea."

    source = dispatch(store, "memory_history", {"slug": "tea-b"})
    assert source["exists"] is False
    versions = {e["source"]: e["version"] for e in source["entries"] if e["restorable"]}
    assert set(versions) == {"trash", "snapshot"}
    dispatch(store, "memory_restore", {"slug": "tea-b", "version": versions["trash"]})
    assert body_of(store, "tea-b") == "Green tea every morning."
    assert slugs_in(store) == {"tea-a", "tea-b"}


@pytest.mark.asyncio
async def test_scheduled_project_merge_and_cross_scope_refusal(
    store: MemoryStore, llm_server: FakeLLMServer, workdir: str
) -> None:
    write(
        store,
        "build-a",
        "Build with make.",
        scope="project",
        type="project",
        workdir=workdir,
        description="Build",
    )
    write(
        store,
        "build-b",
        "Run make to build.",
        scope="project",
        type="project",
        workdir=workdir,
        description="Build",
    )
    write(store, "build-tool", "I build with make.", type="project")
    project_hash = dispatch(store, "memory_read", {"slug": "build-a", "workdir": workdir})["entry"][
        "workdir_hash"
    ]
    llm_server.push(planner(only_known([merge("build-a", "build-b")])))
    llm_server.push(planner(keep_all))

    final = await organize(store, llm_server, new_run(store, trigger="scheduled"))

    assert final["status"] == "succeeded"
    assert final["deleted_count"] == 1
    assert slugs_in(store) == {"build-a", "build-tool"}
    assert (store.root / "projects" / project_hash / ".trash").is_dir()
    assert "Run make to build." in body_of(store, "build-a", workdir=workdir)


@pytest.mark.asyncio
async def test_dry_run_stores_decisions_without_an_apply_state(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    llm_server.push(planner(only_known([merge("tea-a", "tea-b")])))
    before = memory_files(store.root)

    final = await organize(store, llm_server, new_run(store, trigger="scheduled", dry_run=True))

    assert final["status"] == "succeeded"
    assert final["dry_run"] is True
    assert memory_files(store.root) == before
    report = report_of(final)
    assert [d["op"] for d in report["safeDecisions"]] == ["upsert", "delete"]
    assert "manualApplyState" not in report
    assert final["safe_applied"] == 0
    ok, error = call(store, "organize_apply", {"run_id": final["run_id"], "all_safe": True})
    assert (ok, error["error"]) == (False, "nothing_to_apply")


@pytest.mark.asyncio
async def test_token_usage_is_summed(store: MemoryStore, llm_server: FakeLLMServer) -> None:
    nine_teas(store)
    write(store, "who-name", type="user")
    llm_server.push(tool_reply(TOPIC, {"topic_clusters": []}, tokens=usage(100, 10)))
    llm_server.push(planner(keep_all, tokens=usage(200, 20)))
    llm_server.push(planner(keep_all, tokens=usage(300, 30)))
    llm_server.reply_error(500, "a failed call costs nothing")

    final = await organize(store, llm_server, new_run(store))

    assert len(llm_server.requests) == 4
    assert final["parse_failures"] == 1
    assert final["token_usage_total"] == 110 + 220 + 330


# --- quota ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_quota_compression_target_reaches_the_plan_prompt(
    home: Path, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    with MemoryStore.open(home, clock=clock, scope_limit=120) as store:
        items = [
            {
                "op": "upsert",
                "slug": f"note-{i:03d}",
                "scope": "global",
                "type": "reference",
                "description": f"Note {i}: " + "a long description of a fact " * 3,
                "body": f"Fact number {i}.",
            }
            for i in range(110)
        ]
        batch = dispatch(store, "memory_apply_batch", {"items": items, "actor": "extractor"})
        assert batch["applied"] == 110
        llm_server.reply_text("no clusters")
        clusters = -(-110 // 8)
        for _ in range(clusters):
            llm_server.push(planner(keep_all))

        final = await organize(store, llm_server, new_run(store))

        assert final["status"] == "succeeded"
        assert final["quota_headroom_at_start"] == 10
        assert final["compression_target"] == 20  # limit - 100 when the ladder is not normal
        # the topic call's inventory is capped (8 000 chars) and says how many it left out
        inventory = llm_server.requests[0]["messages"][1]["content"]
        lines = inventory.splitlines()
        shown = [line for line in lines if line.startswith("- note-")]
        assert 0 < len(shown) < 110
        assert lines[-2] == f"- … {110 - len(shown)} more not shown"
        assert len(inventory) <= config.ORGANIZE_INVENTORY_CHARS + 200
        plans = llm_server.requests[1:]
        assert len(plans) == clusters
        for request in plans:
            prompt = system_prompt(request)
            assert "close to its limit of 120 memories per scope (110 used)" in prompt
            assert "Aim for at most 20 after tidying" in prompt


@pytest.mark.asyncio
async def test_no_compression_target_with_room_to_spare(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a")
    llm_server.push(planner(keep_all))

    final = await organize(store, llm_server, new_run(store))

    assert final["compression_target"] is None
    assert final["quota_headroom_at_start"] == config.SCOPE_MEMORY_LIMIT - 1
    assert "Aim for at most" not in system_prompt(llm_server.requests[0])


# --- nothing to do, scopes, errors, cancellation ----------------------------------------------


@pytest.mark.asyncio
async def test_nothing_to_organize_is_skipped(
    store: MemoryStore, llm_server: FakeLLMServer, workdir: str
) -> None:
    dispatch(store, "memory_daily_append", {"bullet": "Journal entries are not organized."})
    write(store, "build-a", scope="project", type="project", workdir=workdir)

    final = await organize(store, llm_server, new_run(store, scope="global"))

    assert final["status"] == "skipped"
    assert final["phase"] == "done"
    assert final["final_summary"] == "nothing to organize"
    assert final["input_count"] == 0
    assert llm_server.requests == []


@pytest.mark.asyncio
async def test_run_scope_selects_memories(
    store: MemoryStore, llm_server: FakeLLMServer, workdir: str, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    write(store, "tea-a")
    write(store, "build-a", scope="project", type="project", workdir=workdir)
    write(store, "build-b", scope="project", type="project", workdir=str(other))
    expected = {  # one structural cluster per memory: each is in its own scope/project
        "all": {"tea-a", "build-a", "build-b"},
        "global": {"tea-a"},
        "projects": {"build-a", "build-b"},
        "current-project": {"build-a"},
    }
    for scope, slugs in expected.items():
        for _ in slugs:
            llm_server.push(planner(keep_all))
        start = len(llm_server.requests)

        final = await organize(store, llm_server, new_run(store, scope=scope), workdir=workdir)

        seen = [s for r in llm_server.requests[start:] for s in cluster_of(r)[1]]
        assert (scope, sorted(seen)) == (scope, sorted(slugs))
        assert final["input_count"] == len(slugs)
        assert final["status"] == "succeeded"


@pytest.mark.asyncio
async def test_a_store_error_fails_the_run_instead_of_stranding_it(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a")
    run = new_run(store, scope="current-project")

    final = await organize(store, llm_server, run)  # no workdir for the current project

    assert (final["status"], final["phase"]) == ("failed", "done")
    assert final["error"].startswith("workdir_required: ")
    assert llm_server.requests == []
    assert new_run(store)["status"] == "running"  # the organizer is not blocked


@pytest.mark.asyncio
async def test_cancelling_a_run_marks_it_cancelled(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a")
    llm_server.push(
        Reply(completion_body(content="too late"), delay=1.0)  # still "thinking" when cancelled
    )
    run = new_run(store)
    task = asyncio.create_task(OrganizerPipeline(store, llm_client(llm_server)).run(run))
    for _ in range(500):
        if llm_server.requests:
            break
        await asyncio.sleep(0.01)
    assert llm_server.requests, "the plan call never reached the server"

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    final = read_run(store, run["run_id"])
    assert (final["status"], final["phase"]) == ("cancelled", "done")
    assert final["error"] == "cancelled"
    assert final["finished_at"] is not None
    assert slugs_in(store) == {"tea-a"}
    # the organizer is free again
    assert new_run(store)["status"] == "running"


@pytest.mark.asyncio
async def test_the_lease_is_renewed_while_a_model_call_takes_long(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock
) -> None:
    # Issue 12: seen from another machine only the lease shows the run is alive, and a slow
    # model call records no progress. The heartbeat runs every 50 ms here (a minute in the app).
    write(store, "tea-a")
    answer = planner(keep_all)

    def slow(request: dict[str, Any]) -> Reply:
        clock.advance(ms=config.ORGANIZE_LEASE_MS)  # the model "thinks" for a whole lease
        reply = answer(request)
        reply.delay = 1.0
        return reply

    llm_server.push(slow)
    run = new_run(store)
    pipeline = OrganizerPipeline(store, llm_client(llm_server), lease_renew_s=0.05)
    task = asyncio.create_task(pipeline.run(run))

    def lease() -> int:
        return int(dispatch(store, "organize_run_list", {})["runs"][0]["lease_until"])

    for _ in range(500):
        if llm_server.requests and lease() == clock.ms + config.ORGANIZE_LEASE_MS:
            break
        await asyncio.sleep(0.01)
    in_call = read_run(store, run["run_id"])
    assert (in_call["status"], in_call["phase"]) == ("running", "plan")  # still in the call
    assert in_call["lease_until"] == clock.ms + config.ORGANIZE_LEASE_MS

    final = await asyncio.wait_for(task, timeout=20)
    await asyncio.sleep(0)  # let the cancelled heartbeat unwind

    assert final["status"] == "succeeded"
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("organizer-lease")] == []


# --- the store seam ---------------------------------------------------------------------------
T = TypeVar("T")


class StoreWorker:
    """A single store thread, as a desktop app has: every call it is handed is recorded."""

    def __init__(self, name: str = "store-worker") -> None:
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self.calls: list[str] = []
        self.threads: set[str] = set()

    async def run_store(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        self.calls.append(fn.__name__)

        def on_worker() -> T:
            self.threads.add(threading.current_thread().name)
            return fn(*args, **kwargs)

        return await asyncio.get_running_loop().run_in_executor(self.executor, on_worker)


@pytest.fixture
def worker() -> Iterator[StoreWorker]:
    kept = StoreWorker()
    yield kept
    kept.executor.shutdown(wait=True)


@pytest.mark.asyncio
async def test_a_run_reaches_the_store_through_its_seam(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock, worker: StoreWorker
) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    clock.advance(seconds=5)
    llm_server.push(planner(only_known([merge("tea-a", "tea-b")])))
    run = new_run(store, trigger="scheduled")
    pipeline = OrganizerPipeline(store, llm_client(llm_server), store_call=worker.run_store)

    final = await asyncio.wait_for(pipeline.run(run), timeout=20)

    # the same run as without the seam: the merge applied and recorded
    assert final == read_run(store, run["run_id"])
    assert (final["status"], final["phase"], final["safe_applied"]) == ("succeeded", "done", 2)
    assert slugs_in(store) == {"tea-a"}
    # scan: phase, quota, the memories, their count; ...; apply; the final record (each record
    # with its check and report view, which walk the whole report)
    assert worker.calls[:4] == [
        "record_update",
        "quota_summary",
        "entries_with_content",
        "record_update",
    ]
    assert worker.calls[-2:] == ["apply_decisions", "record_update"]
    # ... and, a model run too, which contradictions a person settled (issue 15).
    assert set(worker.calls) == {
        "record_update",
        "quota_summary",
        "entries_with_content",
        "still_open",
        "apply_decisions",
    }
    assert len(worker.threads) == 1 and next(iter(worker.threads)).startswith("store-worker")


@pytest.mark.asyncio
async def test_a_cancelled_run_is_recorded_through_the_seam(
    store: MemoryStore, llm_server: FakeLLMServer, worker: StoreWorker
) -> None:
    write(store, "tea-a")
    llm_server.push(Reply(completion_body(content="too late"), delay=1.0))
    run = new_run(store)
    pipeline = OrganizerPipeline(store, llm_client(llm_server), store_call=worker.run_store)
    task = asyncio.create_task(pipeline.run(run))
    for _ in range(500):
        if llm_server.requests:
            break
        await asyncio.sleep(0.01)
    assert llm_server.requests, "the plan call never reached the server"

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    final = read_run(store, run["run_id"])
    assert (final["status"], final["phase"], final["error"]) == ("cancelled", "done", "cancelled")
    assert worker.calls[-1] == "record_update"  # the end was recorded on the store's thread
    assert new_run(store)["status"] == "running"  # the organizer is free again


@pytest.mark.asyncio
async def test_the_duplicate_finder_and_the_gate_run_through_the_compute_seam(
    store: MemoryStore, worker: StoreWorker
) -> None:
    write(store, "tea-a", "I drink green tea every morning.", description="Morning tea")
    write(store, "tea-b", "I drink green tea every morning.", description="Morning tea")
    computer = StoreWorker("compute")
    try:
        pipeline = OrganizerPipeline(
            store, None, store_call=worker.run_store, compute=computer.run_store
        )
        final = await asyncio.wait_for(pipeline.run(new_run(store), offline=True), timeout=20)
    finally:
        computer.executor.shutdown(wait=True)

    assert final["status"] == "succeeded"
    assert len(report_of(final)["safeDecisions"]) == 2  # the duplicates' merge, as in place
    # The CPU-heavy steps (finding duplicates, writing each merge's text in the gate), off
    # the pipeline's loop and off the store's thread.
    assert computer.calls == ["offline_proposals", "build_decisions"]
    assert not {"offline_proposals", "build_decisions"} & set(worker.calls)
    assert len(computer.threads) == 1 and next(iter(computer.threads)).startswith("compute")


# --- offline ----------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("trigger", ["manual", "scheduled"])
async def test_offline_run_proposes_merges_and_never_applies_them(
    store: MemoryStore, trigger: str
) -> None:
    write(store, "tea-a", "I drink green tea every morning.", description="Morning tea")
    write(store, "tea-b", "I drink green tea every morning!", description="Morning tea")
    write(store, "coffee", "No coffee after 2pm.")
    before = memory_files(store.root)

    final = await organize(store, None, new_run(store, trigger=trigger, mode="aggressive"))

    assert final["status"] == "succeeded"
    assert "offline duplicate check" in final["final_summary"]
    assert memory_files(store.root) == before
    assert final["safe_applied"] == 0
    assert final["token_usage_total"] == 0
    report = report_of(final)
    decisions = report["safeDecisions"]
    assert [d["op"] for d in decisions] == ["upsert", "delete"]
    assert {decisions[0]["slug"], decisions[1]["slug"]} == {"tea-a", "tea-b"}
    assert decisions[0]["groupId"] == decisions[1]["groupId"]
    assert report["manualApplyState"]["status"] == "pending"
    (summary,) = report["clusterSummaries"]
    assert summary["size"] == 2 and summary["decisions"] == 1
    assert summary["summary"].startswith("offline: 1 ")
    assert summary["clusterId"].startswith("offline:global:")


@pytest.mark.asyncio
async def test_an_offline_run_says_its_summary_and_reasons_as_codes_beside_the_english(
    store: MemoryStore,
) -> None:
    # issue 14: a front end in another language builds the words from codes and figures; the
    # English stays in the report for the CLI, the agent and LiveAgent.
    text = "The user prefers green tea in the morning and never drinks coffee after lunch."
    write(store, "tea-a", text, description="Morning tea")
    write(store, "tea-b", text + " Sometimes jasmine.", description="Morning tea")
    write(store, "coffee", "No coffee after 2pm.")

    final = await organize(store, None, new_run(store))

    report = report_of(final)
    assert final["final_summary"].startswith("3 memories in 1 cluster; 2 merges and deletions")
    assert report["outcome"] == {
        "code": "offlineProposed",
        "memories": 3,
        "clusters": 1,
        "proposed": 2,
        "heldBack": 0,
    }
    upsert, delete = report["safeDecisions"]
    said = f"near duplicates of {upsert['slug']} (nothing material differs)"
    assert upsert["reason"].startswith(said)
    assert upsert["reasonCode"] == "nearDuplicates"
    (pair,) = upsert["reasonParams"]["pairs"]
    assert upsert["reasonParams"]["target"] == upsert["slug"]
    assert pair["slug"] == delete["slug"] and not pair["exact"]
    scores = f"jaccard {pair['jaccard']:.2f}, containment {pair['containment']:.2f}"
    assert scores in upsert["reason"]
    assert delete["reason"] == f"merged into {upsert['slug']}"
    assert delete["reasonCode"] == "mergedInto"
    assert delete["reasonParams"] == {"target": upsert["slug"]}
    # The stored report reads back through the only parser with the new fields kept.
    stored = read_run(store, final["run_id"])["report"]
    assert stored["legacy"] is False and stored["report"]["outcome"] == report["outcome"]


@pytest.mark.asyncio
async def test_offline_flag_makes_no_model_call(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a", "Same words here.", description="Same")
    write(store, "tea-b", "Same words here.", description="Same")

    final = await organize(store, llm_server, new_run(store, trigger="scheduled"), offline=True)

    assert llm_server.requests == []
    assert final["status"] == "succeeded"
    assert slugs_in(store) == {"tea-a", "tea-b"}
    assert len(report_of(final)["safeDecisions"]) == 2


@pytest.mark.asyncio
async def test_offline_run_queues_merges_of_reviewed_memories_in_conservative_mode(
    store: MemoryStore,
) -> None:
    # A person's own duplicates are what the gate protects most (reviewed → medium/high risk,
    # never queued in conservative mode). The offline run still proposes them — for review.
    write(store, "tea-a", "I drink green tea every morning.", reviewed=True, description="Tea")
    write(store, "tea-b", "I drink green tea every morning!", reviewed=True, description="Tea")
    before = memory_files(store.root)

    final = await organize(store, None, new_run(store, mode="conservative"))

    report = report_of(final)
    decisions = report["safeDecisions"]
    assert [d["op"] for d in decisions] == ["upsert", "delete"]
    assert all(d["requiresUserAck"] for d in decisions)
    assert decisions[1]["riskLevel"] == "high"  # deleting a reviewed memory
    assert final["review_skipped"] == 0 and memory_files(store.root) == before
    # "apply all safe" leaves them alone; choosing them merges the pair
    ok, result = call(store, "organize_apply", {"run_id": final["run_id"], "all_safe": True})
    assert ok and result["applied"] == [] and slugs_in(store) == {"tea-a", "tea-b"}
    keys = [f"{i}:{d['op']}:global::{d['slug']}" for i, d in enumerate(decisions)]
    ok, result = call(store, "organize_apply", {"run_id": final["run_id"], "keys": keys})
    assert ok and result["status"] == "applied" and len(slugs_in(store)) == 1

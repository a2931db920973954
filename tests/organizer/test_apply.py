"""Manual apply of an organizer run's review queue (`organize_apply`, REFERENCE A10 Apply).

A manual run stores its safe decisions; a person applies chosen keys, every low-risk one, or
rejects the queue. Everything goes through `memory_apply_batch` (merge groups: upsert first,
deletes skipped when it fails) and the outcome is written back to the run record.
Real stores; the queue comes from a real pipeline run against the fake model server, or is
written into the report by hand where a broken decision is the point.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.organizer.apply import auto_safe
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.organizer.review import report_groups
from liveagent_memory.organizer.run_record import parse_report
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import (
    body_of,
    delete,
    memory_files,
    merge,
    new_run,
    only_known,
    planner,
    read_run,
    report_of,
    slugs_in,
    write,
)

ALL = {"tea-a", "tea-b", "tea-c", "old-note", "coffee-a", "coffee-b", "keep-me"}


@dataclass
class Staged:
    run_id: str
    keys: dict[str, str]  # slug -> decision key
    root: Path

    def file(self, slug: str) -> Path:
        return self.root / "global" / f"{slug}.md"


@pytest.fixture
def staged(store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock) -> Staged:
    """A finished manual run (standard mode) with six decisions waiting for review."""
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    write(store, "tea-c", "Sencha is my green tea.", description="Tea")
    write(store, "old-note", "Moved to Lyon in 2019.")
    write(store, "coffee-a", "No coffee after 2pm.", reviewed=True, description="Coffee")
    write(store, "coffee-b", "Coffee only in the morning.", description="Coffee")
    write(store, "keep-me", "I like long walks.")
    clock.advance(seconds=10)
    decisions = [
        merge("tea-a", "tea-b", "tea-c"),  # low risk, unreviewed: safe
        delete("old-note"),  # low risk: safe
        merge("coffee-a", "coffee-b"),  # touches a reviewed memory: medium, needs ack
    ]
    llm_server.push(planner(only_known(decisions)))
    run = new_run(store, mode="standard")
    final = asyncio.run(OrganizerPipeline(store, llm_client(llm_server)).run(run))
    assert final["status"] == "succeeded"
    safe = report_of(final)["safeDecisions"]
    keys = {
        d["slug"]: f"{i}:{d['op']}:{d['scope']}:{d.get('workdirHash', '')}:{d['slug']}"
        for i, d in enumerate(safe)
    }
    assert list(keys.values()) == [
        "0:upsert:global::tea-a",
        "1:delete:global::tea-b",
        "2:delete:global::tea-c",
        "3:delete:global::old-note",
        "4:upsert:global::coffee-a",
        "5:delete:global::coffee-b",
    ]
    assert [(d["riskLevel"], d["requiresUserAck"]) for d in safe] == [
        ("low", False),
        ("low", False),
        ("low", False),
        ("low", False),
        ("medium", True),
        ("medium", True),
    ]
    clock.advance(seconds=10)
    return Staged(run_id=run["run_id"], keys=keys, root=store.root)


def apply(store: MemoryStore, run_id: str, **payload: Any) -> dict[str, Any]:
    return dispatch(store, "organize_apply", {"run_id": run_id, **payload})


def apply_state(store: MemoryStore, run_id: str) -> dict[str, Any]:
    return dict(report_of(read_run(store, run_id))["manualApplyState"])


def error(store: MemoryStore, **payload: Any) -> dict[str, Any]:
    ok, out = call(store, "organize_apply", payload)
    assert not ok, out
    return out


# --- choosing keys ----------------------------------------------------------------------------


def test_apply_chosen_keys_then_the_rest(store: MemoryStore, staged: Staged) -> None:
    k = staged.keys
    coffee_before = staged.file("coffee-a").read_bytes()

    first = apply(store, staged.run_id, keys=[k["old-note"]])

    assert first["status"] == "partial"
    assert first["applied"] == [k["old-note"]]
    assert first["failed"] == []
    assert first["final_count"] == 6
    assert first["compression_ratio"] == pytest.approx(6 / 7)
    assert slugs_in(store) == ALL - {"old-note"}
    run = read_run(store, staged.run_id)
    assert (run["safe_applied"], run["deleted_count"], run["updated_count"]) == (1, 1, 0)
    assert run["final_count"] == 6
    assert apply_state(store, staged.run_id) == {
        "status": "partial",
        "appliedDecisionKeys": [k["old-note"]],
        "failedDecisionKeys": [],
        "counts": {"applied": 1, "failed": 0},
    }

    # the merge: upsert and its deletes together; the already handled key is skipped
    second = apply(store, staged.run_id, keys=[k["tea-c"], k["old-note"], k["tea-a"], k["tea-b"]])

    assert second["status"] == "partial"
    assert second["applied"] == [k["tea-a"], k["tea-b"], k["tea-c"]]  # report order
    assert slugs_in(store) == ALL - {"old-note", "tea-b", "tea-c"}
    merged = body_of(store, "tea-a")  # issue 14: the text reads as one memory
    assert merged == "I drink green tea.\n\nGreen tea every morning.\n\nSencha is my green tea."
    snapshots = {
        p.name.split(".", 1)[1] for p in (staged.root / "global/.organize-snapshots").iterdir()
    }
    assert snapshots == {"tea-a.md", "tea-b.md", "tea-c.md", "old-note.md"}
    assert staged.file("coffee-a").read_bytes() == coffee_before

    third = apply(store, staged.run_id, keys=[k["coffee-a"], k["coffee-b"]])

    assert third["status"] == "applied"
    assert third["applied"] == [k["coffee-a"], k["coffee-b"]]
    assert slugs_in(store) == {"tea-a", "coffee-a", "keep-me"}
    run = read_run(store, staged.run_id)
    assert run["safe_applied"] == 6
    assert (run["created_count"], run["updated_count"], run["deleted_count"]) == (0, 2, 4)
    assert run["final_count"] == 7 - 4 + 0
    assert run["compression_ratio"] == pytest.approx(3 / 7)
    assert run["status"] == "succeeded"  # the run itself stays finished
    state = apply_state(store, staged.run_id)
    assert state["status"] == "applied"
    assert sorted(state["appliedDecisionKeys"]) == sorted(k.values())
    assert state["counts"] == {"applied": 6, "failed": 0}

    again = error(store, run_id=staged.run_id, keys=[k["tea-a"]])
    assert again["error"] == "nothing_to_apply"


def test_all_safe_applies_only_low_risk_decisions_without_ack(
    store: MemoryStore, staged: Staged
) -> None:
    k = staged.keys
    coffee = {slug: staged.file(slug).read_bytes() for slug in ("coffee-a", "coffee-b")}

    result = apply(store, staged.run_id, all_safe=True)

    assert result["applied"] == [k["tea-a"], k["tea-b"], k["tea-c"], k["old-note"]]
    assert result["status"] == "partial"
    assert slugs_in(store) == {"tea-a", "coffee-a", "coffee-b", "keep-me"}
    for slug, raw in coffee.items():
        assert staged.file(slug).read_bytes() == raw
    assert result["final_count"] == 4

    # a second all_safe has nothing new to do and changes nothing
    before = memory_files(staged.root)
    repeat = apply(store, staged.run_id, all_safe=True)
    assert repeat["applied"] == [] and repeat["status"] == "partial"
    assert memory_files(staged.root) == before


def test_reject_closes_the_queue(store: MemoryStore, staged: Staged) -> None:
    before = memory_files(staged.root)

    result = apply(store, staged.run_id, reject=True)

    assert result["status"] == "rejected"
    assert result["applied"] == result["failed"] == []
    assert memory_files(staged.root) == before
    run = read_run(store, staged.run_id)
    assert (run["safe_applied"], run["final_count"]) == (0, 7)
    assert apply_state(store, staged.run_id)["status"] == "rejected"
    assert error(store, run_id=staged.run_id, all_safe=True)["error"] == "nothing_to_apply"


def test_each_decision_can_be_rejected_on_its_own(store: MemoryStore, staged: Staged) -> None:
    k = staged.keys
    before = memory_files(staged.root)

    one = apply(store, staged.run_id, keys=[k["tea-b"]], reject=True)

    assert one["rejected"] == [k["tea-a"], k["tea-b"], k["tea-c"]]  # the whole merge
    assert one["applied"] == [] and one["status"] == "partial"
    assert memory_files(staged.root) == before
    state = apply_state(store, staged.run_id)
    assert state["rejectedDecisionKeys"] == one["rejected"]
    assert state["counts"] == {"applied": 0, "failed": 0, "rejected": 3}
    # "Apply all safe" no longer takes the rejected merge; the stale note is still open.
    safe = apply(store, staged.run_id, all_safe=True)
    assert safe["applied"] == [k["old-note"]]
    assert slugs_in(store) == ALL - {"old-note"}
    # Rejecting the last open decision closes the queue; something was applied.
    last = apply(store, staged.run_id, keys=[k["coffee-b"]], reject=True)
    assert last["rejected"] == [k["coffee-a"], k["coffee-b"]] and last["status"] == "applied"
    assert error(store, run_id=staged.run_id, all_safe=True)["error"] == "nothing_to_apply"


def test_rejecting_every_decision_one_by_one_rejects_the_queue(
    store: MemoryStore, staged: Staged
) -> None:
    k = staged.keys
    apply(store, staged.run_id, keys=[k["tea-a"], k["old-note"]], reject=True)
    last = apply(store, staged.run_id, keys=[k["coffee-a"]], reject=True)
    assert last["status"] == "rejected"
    assert slugs_in(store) == ALL
    report = parse_report(report_of(read_run(store, staged.run_id)))
    assert report.manualApplyState is not None
    states = [group.state(report.manualApplyState) for group in report_groups(report)]
    assert states == ["rejected", "rejected", "rejected"]


def test_an_edited_merge_text_is_what_gets_written(store: MemoryStore, staged: Staged) -> None:
    k = staged.keys
    text = "I drink green tea every morning, mostly sencha."

    result = apply(store, staged.run_id, keys=[k["tea-a"]], edits={k["tea-a"]: text})

    assert result["applied"] == [k["tea-a"], k["tea-b"], k["tea-c"]]
    assert body_of(store, "tea-a") == text
    assert slugs_in(store) == ALL - {"tea-b", "tea-c"}
    written = report_of(read_run(store, staged.run_id))["safeDecisions"][0]
    assert (written["body"], written["editedByUser"]) == (text, True)


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        ("Key: AKIA" + "ABCDEFGHIJKLMNOP", "risk_hard_blocked"),
        ("x" * (config.MAX_BODY_BYTES + 1), "body_too_large"),
        ("tea\x00", "invalid_argument"),
    ],
)
def test_an_edited_merge_text_passes_the_write_gates(
    store: MemoryStore, staged: Staged, edit: str, code: str
) -> None:
    k = staged.keys
    before = memory_files(staged.root)
    report_before = report_of(read_run(store, staged.run_id))

    out = error(
        store, run_id=staged.run_id, keys=[k["tea-a"], k["old-note"]], edits={k["tea-a"]: edit}
    )

    assert out["error"] == code
    assert memory_files(staged.root) == before  # nothing of the request was applied
    assert report_of(read_run(store, staged.run_id)) == report_before  # nor stored anywhere


def test_edits_must_name_a_merge_write(store: MemoryStore, staged: Staged) -> None:
    k = staged.keys
    out = error(store, run_id=staged.run_id, keys=[k["tea-a"]], edits={k["tea-b"]: "text"})
    assert (out["error"], out["field"]) == ("invalid_argument", "edits")
    assert [c["key"] for c in out["candidates"]] == [k["tea-a"], k["coffee-a"]]
    assert slugs_in(store) == ALL


def test_unknown_keys_are_refused_with_candidates(store: MemoryStore, staged: Staged) -> None:
    k = staged.keys
    apply(store, staged.run_id, keys=[k["old-note"]])
    before = memory_files(staged.root)

    out = error(store, run_id=staged.run_id, keys=[k["tea-a"], "9:delete:global::nope"])

    assert out["error"] == "invalid_argument"
    assert "9:delete:global::nope" in out["message"]
    candidates = [c["key"] for c in out["candidates"]]
    assert candidates == [k["tea-a"], k["coffee-a"]]  # the decisions still open, as shown
    assert memory_files(staged.root) == before  # nothing of the request was applied

    empty = error(store, run_id=staged.run_id, keys=[])
    assert empty["error"] == "invalid_argument"
    assert "all_safe" in empty["message"]


def test_decisions_by_their_numbers(store: MemoryStore, staged: Staged) -> None:
    """A decision's number (its key's first part, as `organize show` lists it) picks it."""
    k = staged.keys

    result = apply(store, staged.run_id, keys=["3", k["tea-a"]])

    # The merge into tea-a brings its deletions along (one decision, organizer/review.py).
    assert result["applied"] == [k["tea-a"], k["tea-b"], k["tea-c"], k["old-note"]]
    out = error(store, run_id=staged.run_id, keys=["6", "١"])  # past the end; not ASCII
    assert out["message"] == "unknown decisions: 6, ١ (this run's are numbered 0 to 5)"


def test_runs_without_a_queue(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock
) -> None:
    write(store, "tea-a", "Same words.", description="Same")
    write(store, "tea-b", "Same words.", description="Same")
    running = new_run(store)
    assert error(store, run_id=running["run_id"], all_safe=True)["error"] == "nothing_to_apply"
    dispatch(store, "organize_run_update", {"run_id": running["run_id"], "status": "succeeded"})

    dry = new_run(store, dry_run=True)
    final = asyncio.run(OrganizerPipeline(store, None).run(dry))
    assert len(report_of(final)["safeDecisions"]) == 2
    assert error(store, run_id=dry["run_id"], all_safe=True)["error"] == "nothing_to_apply"

    llm_server.push(planner(only_known([merge("tea-a", "tea-b")])))
    scheduled = new_run(store, trigger="scheduled")
    done = asyncio.run(OrganizerPipeline(store, llm_client(llm_server)).run(scheduled))
    assert done["safe_applied"] == 2
    assert error(store, run_id=scheduled["run_id"], all_safe=True)["error"] == "nothing_to_apply"

    assert error(store, run_id="run-0-missing", all_safe=True)["error"] == "run_not_found"


# --- merge groups -----------------------------------------------------------------------------


def test_any_part_of_a_merge_chooses_the_whole_merge(store: MemoryStore, staged: Staged) -> None:
    # Issue 14: a merge and its deletions are one decision. Choosing one delete of a merge
    # used to apply just that delete; choosing the merge, just the write.
    k = staged.keys

    result = apply(store, staged.run_id, keys=[k["tea-b"], k["old-note"]])

    assert result["applied"] == [k["tea-a"], k["tea-b"], k["tea-c"], k["old-note"]]
    assert result["failed"] == [] and result["status"] == "partial"
    assert slugs_in(store) == ALL - {"tea-b", "tea-c", "old-note"}
    again = apply(store, staged.run_id, keys=[k["coffee-a"]])
    assert again["applied"] == [k["coffee-a"], k["coffee-b"]]
    assert again["status"] == "applied"
    assert slugs_in(store) == {"tea-a", "coffee-a", "keep-me"}


def test_a_merge_whose_source_is_gone_applies_nothing(store: MemoryStore, staged: Staged) -> None:
    # tea-c was deleted by hand after the run: the merge cannot be applied whole.
    k = staged.keys
    dispatch(store, "memory_delete", {"slug": "tea-c", "actor": "user", "reason": "by hand"})
    tea_a, tea_b = staged.file("tea-a").read_bytes(), staged.file("tea-b").read_bytes()

    result = apply(store, staged.run_id, keys=[k["tea-a"], k["old-note"]])

    assert result["applied"] == [k["old-note"]]
    assert result["failed"] == [k["tea-a"], k["tea-b"], k["tea-c"]]
    assert staged.file("tea-a").read_bytes() == tea_a  # the merged text was not written
    assert staged.file("tea-b").read_bytes() == tea_b
    report = report_of(read_run(store, staged.run_id))
    codes = {i["decisionKey"]: i["code"] for i in report["reviewItems"] if i["phase"] == "apply"}
    assert codes == {
        k["tea-a"]: "group_item_failed",
        k["tea-b"]: "group_item_failed",
        k["tea-c"]: "slug_not_found",
    }
    assert report["manualApplyState"]["failedDecisionKeys"] == result["failed"]


def test_an_old_runs_half_applied_merge_is_finished_as_one_decision(store: MemoryStore) -> None:
    # A run applied before issue 14: its merge's write and one delete were applied, the other
    # delete was not. The queue shows one decision, partly applied; choosing it finishes it.
    write(store, "tea-a", "I drink green tea.\n\nGreen tea every morning.")
    write(store, "tea-c", "Sencha is my green tea.", description="Tea")
    group = "merge:c1:tea-a:tea-a+tea-b+tea-c"
    base = {"scope": "global", "riskLevel": "low", "requiresUserAck": False, "groupId": group}
    decisions: list[dict[str, Any]] = [
        {
            **base,
            "op": "upsert",
            "slug": "tea-a",
            "sourceSlugs": ["tea-a", "tea-b", "tea-c"],
            "memoryType": "reference",
            "description": "Tea",
            "body": "I drink green tea.\n\nGreen tea every morning.\n\nSencha is my green tea.",
        },
        {**base, "op": "delete", "slug": "tea-b", "sourceSlugs": ["tea-b", "tea-a"]},
        {**base, "op": "delete", "slug": "tea-c", "sourceSlugs": ["tea-c", "tea-a"]},
    ]
    keys = ["0:upsert:global::tea-a", "1:delete:global::tea-b", "2:delete:global::tea-c"]
    run_id = hand_written_run(store, decisions, inputs=3, applied=keys[:2])
    report = parse_report(report_of(read_run(store, run_id)))
    assert report.manualApplyState is not None
    (group_shown,) = report_groups(report)
    assert group_shown.keys == keys and group_shown.state(report.manualApplyState) == "partial"

    result = apply(store, run_id, keys=[keys[0]])

    assert result["applied"] == [keys[2]] and result["status"] == "applied"
    assert slugs_in(store) == {"tea-a"}


def hand_written_run(
    store: MemoryStore,
    decisions: list[dict[str, Any]],
    inputs: int,
    applied: list[str] | None = None,
) -> str:
    run = new_run(store)
    report = {
        "version": 4,
        "clusterSummaries": [],
        "reviewItems": [],
        "raw": [],
        "safeDecisions": decisions,
        "manualApplyState": {
            "status": "partial" if applied else "pending",
            "appliedDecisionKeys": applied or [],
            "failedDecisionKeys": [],
            "counts": {},
        },
    }
    dispatch(
        store,
        "organize_run_update",
        {
            "run_id": run["run_id"],
            "status": "succeeded",
            "report": report,
            "counts": {"input_count": inputs, "final_count": inputs},
        },
    )
    return str(run["run_id"])


def test_a_group_whose_upsert_fails_keeps_its_sources(store: MemoryStore) -> None:
    write(store, "tea-a", "I drink green tea.", description="Tea")
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    write(store, "old-note", "Moved to Lyon in 2019.")
    before = memory_files(store.root)
    group = "merge:c1:tea-a:tea-a+tea-b"
    # Too large to store (the store refuses it); a secret would not even reach the report.
    too_large = "I drink green tea.\n" + "x" * (config.MAX_BODY_BYTES + 1)
    decisions = [
        {
            "op": "upsert",
            "slug": "tea-a",
            "scope": "global",
            "reason": "merge",
            "confidence": 0.95,
            "riskLevel": "low",
            "requiresUserAck": False,
            "sourceSlugs": ["tea-a", "tea-b"],
            "groupId": group,
            "memoryType": "reference",
            "description": "Tea",
            "body": too_large,
        },
        {
            "op": "delete",
            "slug": "tea-b",
            "scope": "global",
            "reason": "merged into tea-a",
            "confidence": 0.95,
            "riskLevel": "low",
            "requiresUserAck": False,
            "sourceSlugs": ["tea-b", "tea-a"],
            "groupId": group,
        },
        {
            "op": "delete",
            "slug": "old-note",
            "scope": "global",
            "reason": "obsolete",
            "confidence": 0.95,
            "riskLevel": "low",
            "requiresUserAck": False,
            "sourceSlugs": ["old-note"],
        },
    ]
    run_id = hand_written_run(store, decisions, inputs=3)
    keys = ["0:upsert:global::tea-a", "1:delete:global::tea-b", "2:delete:global::old-note"]

    result = apply(store, run_id, all_safe=True)

    assert result["applied"] == [keys[2]]
    assert result["failed"] == keys[:2]
    assert result["status"] == "applied"  # every key was handled, one way or the other
    assert slugs_in(store) == {"tea-a", "tea-b"}
    after = memory_files(store.root)
    for name in ("global/tea-a.md", "global/tea-b.md"):
        assert after[name] == before[name]
    assert "x" * config.MAX_BODY_BYTES not in "".join(v.decode() for v in after.values())
    report = report_of(read_run(store, run_id))
    codes = {i["decisionKey"]: i["code"] for i in report["reviewItems"] if i["phase"] == "apply"}
    assert codes == {keys[0]: "body_too_large", keys[1]: "group_upsert_failed"}
    assert report["manualApplyState"]["failedDecisionKeys"] == keys[:2]
    run = read_run(store, run_id)
    assert (run["safe_applied"], run["deleted_count"], run["final_count"]) == (1, 1, 2)
    assert run["compression_ratio"] == pytest.approx(2 / 3)


def test_all_safe_skips_low_risk_decisions_that_need_an_ack(store: MemoryStore) -> None:
    # A gate of ours never stores low risk with an ack, but a report may come from elsewhere
    # (LiveAgent writes the same report): all_safe is "low risk AND no ack" (REFERENCE A10).
    write(store, "old-a", "Obsolete A.")
    write(store, "old-b", "Obsolete B.")
    base = {"op": "delete", "scope": "global", "reason": "obsolete", "riskLevel": "low"}
    decisions: list[dict[str, Any]] = [
        {**base, "slug": "old-a", "requiresUserAck": True, "sourceSlugs": ["old-a"]},
        {**base, "slug": "old-b", "requiresUserAck": False, "sourceSlugs": ["old-b"]},
    ]
    run_id = hand_written_run(store, decisions, inputs=2)

    result = apply(store, run_id, all_safe=True)

    assert result["applied"] == ["1:delete:global::old-b"]
    assert result["status"] == "partial"
    assert slugs_in(store) == {"old-a"}


def test_a_decision_without_an_ack_flag_is_not_auto_safe(store: MemoryStore) -> None:
    # A report that does not say "requiresUserAck": the decision needs an ack (from_report),
    # so neither all_safe nor the review queue's pre-selection takes it.
    write(store, "old-a", "Obsolete A.")
    write(store, "old-b", "Obsolete B.")
    base = {"op": "delete", "scope": "global", "reason": "obsolete", "riskLevel": "low"}
    decisions: list[dict[str, Any]] = [
        {**base, "slug": "old-a", "sourceSlugs": ["old-a"]},
        {**base, "slug": "old-b", "requiresUserAck": False, "sourceSlugs": ["old-b"]},
    ]
    assert [auto_safe(SafeDecision.from_report(d)) for d in decisions] == [False, True]
    assert not auto_safe(SafeDecision.from_report({**decisions[1], "riskLevel": "medium"}))
    run_id = hand_written_run(store, decisions, inputs=2)

    result = apply(store, run_id, all_safe=True)

    assert result["applied"] == ["1:delete:global::old-b"]
    assert result["status"] == "partial"
    assert slugs_in(store) == {"old-a"}


def test_an_upsert_of_a_missing_memory_counts_as_created(store: MemoryStore) -> None:
    write(store, "tea-b", "Green tea every morning.", description="Tea")
    decisions = [
        {
            "op": "upsert",
            "slug": "tea-all",
            "scope": "global",
            "reason": "merge",
            "riskLevel": "low",
            "requiresUserAck": False,
            "sourceSlugs": ["tea-all", "tea-b"],
            "groupId": "g1",
            "memoryType": "reference",
            "description": "Tea",
            "body": "Green tea every morning.",
        },
        {
            "op": "delete",
            "slug": "tea-b",
            "scope": "global",
            "reason": "merged into tea-all",
            "riskLevel": "low",
            "requiresUserAck": False,
            "sourceSlugs": ["tea-b", "tea-all"],
            "groupId": "g1",
        },
    ]
    run_id = hand_written_run(store, decisions, inputs=1)

    result = apply(store, run_id, all_safe=True)

    assert result["status"] == "applied"
    assert slugs_in(store) == {"tea-all"}
    run = read_run(store, run_id)
    assert (run["created_count"], run["updated_count"], run["deleted_count"]) == (1, 0, 1)
    assert run["final_count"] == 1 - 1 + 1
    assert run["compression_ratio"] == 1.0


def test_apply_a_project_merge_from_an_offline_run(store: MemoryStore, workdir: str) -> None:
    for slug in ("build-a", "build-b"):
        write(
            store,
            slug,
            "Build with make, then run the tests.",
            description="Build steps",
            scope="project",
            type="project",
            workdir=workdir,
        )
    write(store, "build-a", "Global note with the same slug.", type="project")
    run = new_run(store)
    final = asyncio.run(OrganizerPipeline(store, None).run(run))
    report = report_of(final)
    (upsert, removal) = report["safeDecisions"]
    project_hash = upsert["workdirHash"]
    assert len(project_hash) == 16
    assert removal["workdirHash"] == project_hash

    result = apply(store, run["run_id"], all_safe=True)

    target, source = upsert["slug"], removal["slug"]
    assert result["applied"] == [
        f"0:upsert:project:{project_hash}:{target}",
        f"1:delete:project:{project_hash}:{source}",
    ]
    assert result["status"] == "applied"
    listing = dispatch(store, "memory_list", {"workdir": workdir})["entries"]
    assert sorted((e["scope"], e["slug"]) for e in listing) == [
        ("global", "build-a"),
        ("project", target),
    ]
    assert body_of(store, "build-a", scope="global") == "Global note with the same slug."
    assert (store.root / "projects" / project_hash / ".trash").is_dir()


def test_a_merge_a_person_applies_is_reviewed_and_keeps_its_evidence(
    store: MemoryStore, staged: Staged
) -> None:
    dispatch(
        store,
        "memory_update",
        {
            "slug": "tea-a",
            "actor": "extractor",
            "body": "I drink green tea.",
            "confidence": "high",
            "source_quote": "I always drink green tea",
            "reasoning": "said twice",
            "aliases": ["tea"],
        },
    )
    before = dispatch(store, "memory_read", {"slug": "tea-a"})
    assert before["entry"]["unreviewed"]  # written by the extractor

    apply(store, staged.run_id, keys=[staged.keys["tea-a"]])

    after = dispatch(store, "memory_read", {"slug": "tea-a"})
    assert not after["entry"]["unreviewed"]  # a person chose this merge
    # Issue 14: the provenance is in the evidence and the history, not in the text.
    assert after["content"] == (
        "I drink green tea.\n\nGreen tea every morning.\n\nSencha is my green tea."
    )
    assert after["evidence"] == {**before["evidence"], "supersedes": "tea-b, tea-c"}
    assert after["entry"]["confidence"] == "high"
    entries = dispatch(store, "memory_history", {"slug": "tea-a"})["entries"]
    merge, _update, _write = [e for e in entries if e["source"] == "audit"]
    assert merge["op"] == "update"
    assert merge["actor"] == "user" and merge["trigger"] == "memory-organize"
    assert merge["conversation_id"] == staged.run_id  # which run merged it, and when
    assert merge["reason"] == (
        "organizer merge of tea-b, tea-c into tea-a: they say the same thing (confidence 0.95)"
    )
    assert any(e["source"] == "snapshot" for e in entries)  # the old version is restorable


def test_a_merge_into_a_memory_without_evidence_says_what_it_supersedes(
    store: MemoryStore, staged: Staged
) -> None:
    apply(store, staged.run_id, keys=[staged.keys["tea-a"]])

    evidence = dispatch(store, "memory_read", {"slug": "tea-a"})["evidence"]
    assert evidence["supersedes"] == "tea-b, tea-c"
    assert evidence["reasoning"].startswith("organizer merge of tea-b, tea-c into tea-a")
    assert evidence["confidence"] == "low"  # no quote: the confidence contract's floor
    # The file stays readable by LiveAgent: the evidence block leads the body, confidence first.
    text = staged.file("tea-a").read_text("utf-8").split("---\n", 2)[2]
    assert text.startswith("\n---\nconfidence: low\n")


def test_the_review_queue_command_groups_as_the_rule_does(
    store: MemoryStore, staged: Staged
) -> None:
    # `organize_review_queue`: what a front end without organizer/review.py (the web panel)
    # shows and acts on; its groups are the rule's (report_groups), states included.
    k = staged.keys
    queue = dispatch(store, "organize_review_queue", {"run_id": staged.run_id})
    assert (queue["status"], queue["legacy"]) == ("pending", False)
    assert [(g["key"], g["kind"], g["state"], g["open"]) for g in queue["groups"]] == [
        (k["tea-a"], "merge", "pending", True),
        (k["old-note"], "delete", "pending", True),
        (k["coffee-a"], "merge", "pending", True),
    ]
    tea = queue["groups"][0]
    assert tea["keys"] == [k["tea-a"], k["tea-b"], k["tea-c"]]
    assert tea["merged_slugs"] == ["tea-b", "tea-c"] and tea["safe"] is True
    assert tea["main"]["slug"] == "tea-a" and tea["main"]["op"] == "upsert"
    assert queue["groups"][2]["risk_level"] == "medium" and not queue["groups"][2]["safe"]

    apply(store, staged.run_id, keys=[k["tea-b"]])  # a group is chosen by any of its keys
    after = dispatch(store, "organize_review_queue", {"run_id": staged.run_id})
    assert after["status"] == "partial"
    assert [(g["state"], g["open"]) for g in after["groups"]] == [
        ("applied", False),
        ("pending", True),
        ("pending", True),
    ]
    ok, missing = call(store, "organize_review_queue", {"run_id": "run-nope"})
    assert not ok and missing["error"] == "run_not_found"

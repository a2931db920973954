"""The review queue's rule: a merge and its deletions are one decision (organizer/review.py)."""

from __future__ import annotations

from dataclasses import replace

from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.review import decision_groups, groups_of_keys
from liveagent_memory.organizer.run_record import ManualApplyState

GROUP = "merge:c1:tea-a:tea-a+tea-b+tea-c"


def decision(op: str, slug: str, **fields: object) -> SafeDecision:
    base = SafeDecision(
        op=op,
        slug=slug,
        scope="global",
        workdir_hash="",
        reason="",
        confidence=0.9,
        risk_level="low",
        requires_user_ack=False,
        source_slugs=(slug,),
    )
    return replace(base, **fields)  # type: ignore[arg-type]


DECISIONS = [
    decision("upsert", "tea-a", group_id=GROUP, source_slugs=("tea-a", "tea-b", "tea-c")),
    decision("delete", "old-note", confidence=0.7),
    decision("delete", "tea-b", group_id=GROUP, source_slugs=("tea-b", "tea-a")),
    decision("delete", "tea-c", group_id=GROUP, risk_level="medium", requires_user_ack=True),
    decision("upsert", "rewrite-me"),
]
KEYS = [d.key(i) for i, d in enumerate(DECISIONS)]


def test_a_merge_and_its_deletions_are_one_group_in_queue_order() -> None:
    groups = decision_groups(DECISIONS)

    assert [g.keys for g in groups] == [[KEYS[0], KEYS[2], KEYS[3]], [KEYS[1]], [KEYS[4]]]
    assert [g.key for g in groups] == [KEYS[0], KEYS[1], KEYS[4]]
    assert [g.kind for g in groups] == ["merge", "delete", "rewrite"]
    assert groups[0].main.slug == "tea-a" and groups[0].merged_slugs == ["tea-b", "tea-c"]
    # One unsafe part makes the merge unsafe; the group's risk is its highest part's.
    assert [g.safe for g in groups] == [False, True, True]
    assert [g.risk_level for g in groups] == ["medium", "low", "low"]
    assert [g.confidence for g in groups] == [0.9, 0.7, 0.9]
    assert groups_of_keys(groups, [KEYS[3], KEYS[4], "9:delete:global::nope"]) == [
        groups[0],
        groups[2],
    ]


def test_a_groups_state_follows_its_parts_and_the_queue() -> None:
    merge, lone, _rewrite = decision_groups(DECISIONS)

    def state(**manual: object) -> tuple[str, str]:
        applied = ManualApplyState(**manual)  # type: ignore[arg-type]
        return merge.state(applied), lone.state(applied)

    assert state() == ("pending", "pending")
    assert state(status="partial", appliedDecisionKeys=KEYS[:1]) == ("partial", "pending")
    assert state(status="partial", appliedDecisionKeys=[KEYS[0], KEYS[2], KEYS[3]]) == (
        "applied",
        "pending",
    )
    assert state(status="partial", failedDecisionKeys=[KEYS[2]]) == ("failed", "pending")
    assert state(status="partial", rejectedDecisionKeys=[KEYS[1]]) == ("pending", "rejected")
    assert state(status="rejected") == ("rejected", "rejected")
    assert merge.is_open(ManualApplyState(status="partial", failedDecisionKeys=[KEYS[0]]))
    assert not lone.is_open(ManualApplyState(status="partial", rejectedDecisionKeys=[KEYS[1]]))

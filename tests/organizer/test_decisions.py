"""The organizer gate (REFERENCE A10): deriveRisk, the shouldQueueDecision matrix, buildDecisions.

Plain data in, plain data out: entries are built by hand, no store and no model. The matrix is
written as a table of confidence thresholds (the reference's prose, cell by cell), not as a copy
of the implementation's branches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.schema import EvidenceView
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    GateResult,
    OrganizerEntry,
    PlanDecision,
    SafeDecision,
    build_decisions,
    derive_risk,
    merge_group_id,
    merge_provenance,
    merged_text,
    should_queue,
)
from liveagent_memory.organizer.differences import Difference, DifferenceKind, Judgement, Verdict
from liveagent_memory.organizer.run_record import empty_buckets
from tests.helpers.organizer import organizer_entry

NOW = 1_796_040_000_000  # 2026-11-30T12:00:00.000Z


def plan(*entries: OrganizerEntry, decisions: list[PlanDecision], cid: str = "c1") -> ClusterPlan:
    return ClusterPlan(cluster=Cluster(id=cid, entries=tuple(entries)), decisions=tuple(decisions))


def merge(
    target: str, *sources: str, confidence: float | None = 0.95, risk: str | None = "low", **kw: Any
) -> PlanDecision:
    return PlanDecision(
        action="merge_into",
        target_slug=target,
        source_slugs=sources,
        confidence=confidence,
        risk_level=risk,
        **kw,
    )


def delete(
    slug: str, *, confidence: float | None = 0.95, risk: str | None = "low", **kw: Any
) -> PlanDecision:
    return PlanDecision(action="delete", slug=slug, confidence=confidence, risk_level=risk, **kw)


def gate(
    plans: list[ClusterPlan], *, trigger: str = "manual", mode: str = "standard"
) -> GateResult:
    return build_decisions(plans, trigger=trigger, mode=mode)


def buckets(**counts: int) -> dict[str, int]:
    return {**empty_buckets(), **counts}


# --- derive_risk ------------------------------------------------------------------------------

A = organizer_entry("alpha-note")
B = organizer_entry("beta-note")
B_PROJECT = organizer_entry("beta-note", scope="project", workdir_hash="a" * 16)
B_USER = organizer_entry("beta-note", type="user")
A_REVIEWED = organizer_entry("alpha-note", unreviewed=False)
B_REVIEWED = organizer_entry("beta-note", unreviewed=False)

RISK_CASES = [
    # (id, action, llm risk, confidence, target, sources, risk, reasons)
    ("missing-conf-no-llm-risk", "merge", None, None, A, [A, B], "medium", ["missing_confidence"]),
    ("missing-conf-raises-low", "merge", "low", None, A, [A, B], "medium", ["missing_confidence"]),
    ("missing-conf-keeps-high", "merge", "high", None, A, [A, B], "high", ["missing_confidence"]),
    ("low-conf-0", "merge", "low", 0.0, A, [A, B], "high", ["low_confidence"]),
    ("low-conf-0.69", "merge", "low", 0.69, A, [A, B], "high", ["low_confidence"]),
    # 0.7 <= confidence < 0.9: at least medium, with no reason code (the reference has none)
    ("medium-conf-0.7", "merge", "low", 0.7, A, [A, B], "medium", []),
    ("medium-conf-0.89", "merge", "low", 0.89, A, [A, B], "medium", []),
    ("medium-conf-keeps-high", "merge", "high", 0.8, A, [A, B], "high", []),
    ("high-conf-keeps-llm-low", "merge", "low", 0.9, A, [A, B], "low", []),
    ("high-conf-keeps-llm-medium", "merge", "medium", 0.95, A, [A, B], "medium", []),
    ("high-conf-keeps-llm-high", "merge", "high", 1.0, A, [A, B], "high", []),
    ("no-llm-risk-starts-medium", "merge", None, 0.99, A, [A, B], "medium", []),
    ("unknown-llm-risk-is-medium", "merge", "extreme", 0.99, A, [A, B], "medium", []),
    ("cross-scope", "merge", "low", 0.95, A, [A, B_PROJECT], "high", ["cross_scope"]),
    ("cross-type", "merge", "low", 0.95, A, [A, B_USER], "medium", ["cross_type"]),
    ("cross-type-keeps-high", "merge", "high", 0.95, A, [A, B_USER], "high", ["cross_type"]),
    ("reviewed-target", "merge", "low", 0.95, A_REVIEWED, [A_REVIEWED, B], "medium",
     ["reviewed_entries"]),
    ("reviewed-source", "merge", "low", 0.95, A, [A, B_REVIEWED], "medium", ["reviewed_entries"]),
    ("merge-into-reviewed-is-not-delete", "merge", "low", 0.95, A_REVIEWED, [A_REVIEWED],
     "medium", ["reviewed_entries"]),
    ("delete-unreviewed", "delete", "low", 0.95, A, [A], "low", []),
    ("delete-reviewed", "delete", "low", 0.95, A_REVIEWED, [A_REVIEWED], "high",
     ["reviewed_entries", "delete_reviewed"]),
    # a merge source being deleted when only its target is reviewed: reviewed, not delete_reviewed
    ("delete-source-of-reviewed-target", "delete", "low", 0.95, B, [B, A_REVIEWED], "medium",
     ["reviewed_entries"]),
    ("everything-at-once", "delete", "low", 0.5, A_REVIEWED, [A_REVIEWED, B_PROJECT, B_USER],
     "high", ["low_confidence", "cross_scope", "cross_type", "reviewed_entries",
              "delete_reviewed"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("action", "llm_risk", "confidence", "target", "sources", "risk", "reasons"),
    [pytest.param(*case[1:], id=case[0]) for case in RISK_CASES],
)
def test_derive_risk(
    action: str,
    llm_risk: str | None,
    confidence: float | None,
    target: OrganizerEntry,
    sources: list[OrganizerEntry],
    risk: str,
    reasons: list[str],
) -> None:
    got = derive_risk(
        action=action, llm_risk=llm_risk, confidence=confidence, target=target, sources=sources
    )
    assert got == (risk, tuple(reasons))


# --- should_queue: the full matrix ------------------------------------------------------------

NEVER = None
CONFIDENCES = [None, 0.0, 0.59, 0.6, 0.61, 0.79, 0.8, 0.81, 0.84, 0.85, 0.86, 0.99, 1.0]
REASON_SETS: list[tuple[str, ...]] = [
    (),
    ("missing_confidence",),
    ("low_confidence",),
    ("reviewed_entries",),
    ("reviewed_entries", "delete_reviewed"),
    ("delete_reviewed", "cross_type"),
    ("delete_reviewed", "cross_scope"),
    ("cross_scope",),
    ("cross_type",),
    ("cross_scope", "cross_type"),
]


def threshold(
    trigger: str, mode: str, risk: str, action: str, reasons: tuple[str, ...]
) -> float | None:
    """The lowest confidence at which the cell goes to apply; NEVER when no confidence does.

    REFERENCE A10: scheduled -> low risk and conf >= 0.8. Manual -> low: conf >= 0.6;
    medium: never in conservative, else conf >= 0.8; high: a reviewed-entry delete with
    mode != conservative, conf >= 0.85 and no cross-scope/type, else only aggressive with
    conf >= 0.85 for deletes, reviewed deletes or cross-scope.
    """
    table_scheduled = {"low": 0.8, "medium": NEVER, "high": NEVER}
    if trigger == "scheduled":
        return table_scheduled[risk]
    if risk == "low":
        return 0.6
    if risk == "medium":
        return {"conservative": NEVER, "standard": 0.8, "aggressive": 0.8}[mode]
    crossed = "cross_scope" in reasons or "cross_type" in reasons
    reviewed_delete = action == "delete" and "delete_reviewed" in reasons and not crossed
    if mode == "standard":
        return 0.85 if reviewed_delete else NEVER
    if mode == "aggressive":
        aggressive_ok = (
            action == "delete" or "delete_reviewed" in reasons or "cross_scope" in reasons
        )
        return 0.85 if aggressive_ok else NEVER
    return NEVER  # high risk in conservative mode never goes to apply


@pytest.mark.parametrize("risk", ["low", "medium", "high"])
@pytest.mark.parametrize("mode", ["conservative", "standard", "aggressive"])
@pytest.mark.parametrize("trigger", ["scheduled", "manual"])
def test_should_queue_matrix(trigger: str, mode: str, risk: str) -> None:
    wrong = []
    cells = 0
    for action in ("delete", "merge"):
        for reasons in REASON_SETS:
            need = threshold(trigger, mode, risk, action, reasons)
            for confidence in CONFIDENCES:
                judged = 0.8 if confidence is None else confidence  # missing counts as 0.8
                expected = need is not NEVER and judged >= need
                got = should_queue(
                    trigger=trigger,
                    mode=mode,
                    risk=risk,
                    confidence=confidence,
                    action=action,
                    reasons=reasons,
                )
                cells += 1
                if got is not expected:
                    wrong.append((action, reasons, confidence, got))
    assert cells == 2 * len(REASON_SETS) * len(CONFIDENCES)
    assert wrong == []


@pytest.mark.parametrize(
    ("trigger", "mode", "risk", "confidence", "action", "reasons", "expected"),
    [
        # hand-picked corners of the matrix, stated literally
        ("scheduled", "aggressive", "low", 0.8, "merge", (), True),
        ("scheduled", "aggressive", "low", 0.79, "merge", (), False),
        ("scheduled", "aggressive", "low", None, "merge", (), True),  # None judged as 0.8
        ("scheduled", "aggressive", "medium", 1.0, "merge", (), False),
        ("scheduled", "aggressive", "high", 1.0, "delete", ("delete_reviewed",), False),
        ("manual", "conservative", "low", 0.6, "delete", (), True),
        ("manual", "conservative", "low", 0.59, "delete", (), False),
        ("manual", "conservative", "medium", 1.0, "merge", (), False),
        ("manual", "standard", "medium", 0.8, "merge", (), True),
        ("manual", "standard", "medium", None, "merge", ("missing_confidence",), True),
        ("manual", "standard", "medium", 0.79, "merge", (), False),
        ("manual", "conservative", "high", 1.0, "delete", ("delete_reviewed",), False),
        ("manual", "standard", "high", 0.85, "delete", ("delete_reviewed",), True),
        ("manual", "standard", "high", 0.84, "delete", ("delete_reviewed",), False),
        ("manual", "standard", "high", 0.9, "delete", ("delete_reviewed", "cross_type"), False),
        ("manual", "standard", "high", 0.9, "delete", ("low_confidence",), False),
        ("manual", "standard", "high", 1.0, "merge", ("cross_scope",), False),
        ("manual", "aggressive", "high", 0.85, "merge", ("cross_scope",), True),
        ("manual", "aggressive", "high", 0.85, "merge", ("cross_type",), False),
        ("manual", "aggressive", "high", 0.85, "delete", ("cross_type",), True),
        ("manual", "aggressive", "high", 0.84, "delete", (), False),
        ("manual", "aggressive", "high", None, "delete", (), False),  # 0.8 < 0.85
    ],
)
def test_should_queue_corners(
    trigger: str,
    mode: str,
    risk: str,
    confidence: float | None,
    action: str,
    reasons: tuple[str, ...],
    expected: bool,
) -> None:
    got = should_queue(
        trigger=trigger, mode=mode, risk=risk, confidence=confidence, action=action, reasons=reasons
    )
    assert got is expected


# --- build_decisions --------------------------------------------------------------------------


def test_keep_is_ignored() -> None:
    out = gate([plan(A, B, decisions=[PlanDecision(action="keep", slug="alpha-note")])])
    assert out.decisions == []
    assert out.review_skipped == 0
    assert out.buckets == buckets()
    assert out.review_items == []


def test_mark_review_and_rewrite_hint_become_review_items() -> None:
    decisions = [
        PlanDecision(action="mark_review", slug="alpha-note", reason="contradicts beta"),
        PlanDecision(action="rewrite_hint", target_slug="beta-note", rewrite_goal="shorten it"),
        PlanDecision(action="mark_review"),
    ]
    out = gate([plan(A, B, decisions=decisions, cid="topic:tea")])
    assert out.decisions == []
    assert out.review_skipped == 3
    assert out.buckets == buckets(reviewRequiredByLlm=3)
    assert out.review_items == [
        {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": "topic:tea: mark_review alpha-note - contradicts beta",
            "code": "review_requested",
            "params": {
                "cluster": "topic:tea",
                "action": "mark_review",
                "subject": "alpha-note",
                "why": "contradicts beta",
            },
            "slug": "alpha-note",
        },
        {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": "topic:tea: rewrite_hint beta-note - shorten it",
            "code": "review_requested",
            "params": {
                "cluster": "topic:tea",
                "action": "rewrite_hint",
                "subject": "beta-note",
                "why": "shorten it",
            },
            "slug": "beta-note",
        },
        {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": "topic:tea: mark_review (unknown) - needs review",
            "code": "review_requested",
            "params": {
                "cluster": "topic:tea",
                "action": "mark_review",
                "subject": "",
                "why": "",
            },
        },
    ]


def test_review_item_names_the_sources_when_no_slug_is_given() -> None:
    decision = PlanDecision(action="mark_review", source_slugs=("alpha-note", "beta-note"))
    out = gate([plan(A, B, decisions=[decision])])
    assert out.review_items[0]["message"] == "c1: mark_review alpha-note, beta-note - needs review"
    assert "slug" not in out.review_items[0]


DAILY = organizer_entry("daily-2026-11-29", type="daily")


@pytest.mark.parametrize(
    "decision",
    [
        pytest.param(delete("not-in-cluster"), id="delete-unknown-slug"),
        pytest.param(PlanDecision(action="delete", confidence=0.95), id="delete-without-slug"),
        pytest.param(delete("daily-2026-11-29"), id="delete-daily"),
        pytest.param(merge("not-in-cluster", "beta-note"), id="merge-unknown-target"),
        pytest.param(merge("alpha-note", "not-in-cluster"), id="merge-unknown-source"),
        pytest.param(
            merge("alpha-note", "beta-note", "not-in-cluster"), id="merge-one-source-unknown"
        ),
        pytest.param(merge("alpha-note"), id="merge-without-sources"),
        pytest.param(merge("alpha-note", "alpha-note"), id="merge-into-itself"),
        pytest.param(merge("daily-2026-11-29", "beta-note"), id="merge-into-daily"),
    ],
)
def test_unsupported_decisions(decision: PlanDecision) -> None:
    out = gate([plan(A, B, DAILY, decisions=[decision])], mode="aggressive")
    assert out.decisions == []
    assert out.review_skipped == 1
    assert out.buckets == buckets(unsupported=1)


def test_a_merge_that_takes_in_a_journal_day_is_unsupported() -> None:
    # A journal day is never deleted by a merge, and a merge is applied whole (issue 14):
    # writing the day's text into a memory while the day stays would duplicate it.
    out = gate([plan(A, DAILY, decisions=[merge("alpha-note", "daily-2026-11-29")])])
    assert out.decisions == []
    assert out.buckets == buckets(unsupported=1)
    assert out.review_skipped == 1
    assert out.merged_count == 0


def test_a_merge_whose_source_delete_is_held_back_is_held_back_whole() -> None:
    # Standard mode, confidence 0.82: the write (medium risk: a reviewed memory is involved)
    # passes, but deleting the reviewed source is high risk and needs 0.85. Before issue 14
    # the write went to the queue alone, to leave a merged memory beside its source.
    source = organizer_entry("beta-note", unreviewed=False)
    out = gate(
        [plan(A, source, decisions=[merge("alpha-note", "beta-note", confidence=0.82)])],
        mode="standard",
    )
    assert out.decisions == []
    assert out.review_skipped == 1 and out.merged_count == 0
    assert out.buckets == buckets(reviewedProtected=1)
    assert [i["message"] for i in out.review_items] == [
        "c1: merge_into alpha-note held back: deleting beta-note needs review"
    ]
    passed = gate(
        [plan(A, source, decisions=[merge("alpha-note", "beta-note", confidence=0.9)])],
        mode="standard",
    )
    assert [(d.op, d.slug) for d in passed.decisions] == [
        ("upsert", "alpha-note"),
        ("delete", "beta-note"),
    ]


def test_merged_body_over_8_kib_is_missing_payload() -> None:
    big_a = organizer_entry("alpha-note", body="a" * 5000)
    big_b = organizer_entry("beta-note", body="b" * 5000)
    out = gate([plan(big_a, big_b, decisions=[merge("alpha-note", "beta-note")], cid="c9")])
    assert out.decisions == []
    assert out.review_skipped == 1
    assert out.buckets == buckets(missingPayload=1)
    assert len(out.review_items) == 1
    item = out.review_items[0]
    assert item["slug"] == "alpha-note"
    assert item["message"].startswith("c9: merge_into alpha-note - merged body exceeds 8192 bytes")


def test_merged_body_limit_counts_utf8_bytes() -> None:
    # 2 800 CJK characters are 8 400 bytes: over the limit though far under 8 192 characters.
    wide = organizer_entry("alpha-note", body="记" * 1400)
    other = organizer_entry("beta-note", body="忆" * 1400)
    out = gate([plan(wide, other, decisions=[merge("alpha-note", "beta-note")])])
    assert out.buckets == buckets(missingPayload=1)
    fits = gate(
        [
            plan(
                organizer_entry("alpha-note", body="记" * 1000),
                B,
                decisions=[merge("alpha-note", "beta-note")],
            )
        ]
    )
    assert [d.op for d in fits.decisions] == ["upsert", "delete"]
    assert len((fits.decisions[0].body or "").encode()) <= config.MAX_BODY_BYTES


def test_each_rejection_is_counted_in_its_bucket() -> None:
    project_b = organizer_entry("gamma-note", scope="project", workdir_hash="b" * 16)
    user_c = organizer_entry("delta-note", type="user")
    reviewed_d = organizer_entry("epsilon-note", unreviewed=False)
    cases = [
        delete("alpha-note", confidence=0.5),  # low confidence -> high risk
        delete("beta-note", confidence=None, risk="low"),  # missing -> medium (conservative)
        merge("alpha-note", "delta-note"),  # cross type -> medium
        merge("alpha-note", "gamma-note"),  # cross scope -> high
        delete("epsilon-note"),  # reviewed delete -> high
    ]
    out = gate([plan(A, B, project_b, user_c, reviewed_d, decisions=cases)], mode="conservative")
    assert out.decisions == []
    assert out.review_skipped == 5
    assert out.buckets == buckets(lowConfidence=2, crossType=1, crossScope=1, reviewedProtected=1)


def test_one_rejection_with_several_reasons_counts_in_each_bucket() -> None:
    project_b = organizer_entry("gamma-note", scope="project", workdir_hash="b" * 16, type="user")
    out = gate(
        [plan(A_REVIEWED, project_b, decisions=[merge("alpha-note", "gamma-note", confidence=0.4)])]
    )
    assert out.review_skipped == 1
    assert out.buckets == buckets(lowConfidence=1, crossType=1, crossScope=1, reviewedProtected=1)


def test_merge_is_an_upsert_plus_deletes_sharing_a_group_id() -> None:
    target = organizer_entry("kiwi-main", body="Kiwis are birds.", description="Kiwi facts")
    src_c = organizer_entry(
        "kiwi-c", body="Kiwis lay big eggs.", headline="eggs", confidence="high"
    )
    src_a = organizer_entry("kiwi-a", body="Kiwis cannot fly.")
    decision = merge(
        "kiwi-main",
        "kiwi-c",
        "kiwi-a",
        "kiwi-c",  # a repeated source counts once
        "kiwi-main",  # the target among its sources is ignored
        reason="same topic",
        preserved_evidence=("quote: kiwis",),
        description_hint="Everything about kiwis",
    )
    out = gate([plan(target, src_c, src_a, decisions=[decision], cid="topic:kiwi")])
    group = "merge:topic:kiwi:kiwi-main:kiwi-a+kiwi-c+kiwi-main"
    assert [(d.op, d.slug, d.group_id) for d in out.decisions] == [
        ("upsert", "kiwi-main", group),
        ("delete", "kiwi-c", group),
        ("delete", "kiwi-a", group),
    ]
    assert out.merged_count == 2
    assert out.review_skipped == 0
    upsert, first_delete, _ = out.decisions
    assert upsert.source_slugs == ("kiwi-main", "kiwi-c", "kiwi-a")
    assert upsert.memory_type == "reference"
    assert upsert.description == "Everything about kiwis"
    assert upsert.previous_body == "Kiwis are birds."
    assert upsert.reason == "same topic"
    assert upsert.risk_level == "low"
    assert upsert.requires_user_ack is False
    assert upsert.evidence_preserved == ("quote: kiwis",)
    assert upsert.body == merged_text(target, [target, src_c, src_a])
    assert upsert.body == "Kiwis are birds.\n\nKiwis lay big eggs.\n\nKiwis cannot fly."
    assert first_delete.reason == "merged into kiwi-main"
    assert first_delete.source_slugs == ("kiwi-c", "kiwi-main")
    assert first_delete.requires_user_ack is False
    assert first_delete.body is None


def test_merge_group_id_sorts_slugs() -> None:
    assert merge_group_id("c", "t", ["zed", "alpha", "t"]) == "merge:c:t:alpha+t+zed"


def test_merge_description_defaults_to_the_target_and_is_clipped() -> None:
    target = organizer_entry("alpha-note", description="The alpha note")
    out = gate([plan(target, B, decisions=[merge("alpha-note", "beta-note")])])
    assert out.decisions[0].description == "The alpha note"
    assert out.decisions[0].reason == "memory organizer update"
    long_hint = merge("alpha-note", "beta-note", description_hint="x" * 300)
    out = gate([plan(target, B, decisions=[long_hint])])
    assert out.decisions[0].description == "x" * config.MAX_DESCRIPTION_CHARS


def test_standalone_delete() -> None:
    project_a = organizer_entry("alpha-note", scope="project", workdir_hash="c" * 16)
    out = gate([plan(project_a, decisions=[delete("alpha-note", preserved_evidence=("e",))])])
    (decision,) = out.decisions
    assert decision.op == "delete"
    assert (decision.scope, decision.workdir_hash) == ("project", "c" * 16)
    assert decision.reason == "memory organizer delete"
    assert decision.source_slugs == ("alpha-note",)
    assert decision.group_id is None
    assert decision.requires_user_ack is False
    assert decision.evidence_preserved == ("e",)
    assert out.merged_count == 0


def test_scheduled_gate_passes_only_low_risk() -> None:
    decisions = [
        merge("alpha-note", "beta-note", confidence=0.95, risk="low"),  # low
        delete("gamma-note", confidence=0.85, risk="low"),  # medium by confidence
        delete("delta-note", confidence=0.95, risk=None),  # medium by default
    ]
    entries = (A, B, organizer_entry("gamma-note"), organizer_entry("delta-note"))
    out = gate([plan(*entries, decisions=decisions)], trigger="scheduled", mode="aggressive")
    assert [(d.op, d.slug) for d in out.decisions] == [
        ("upsert", "alpha-note"),
        ("delete", "beta-note"),
    ]
    assert all(d.risk_level == "low" and not d.requires_user_ack for d in out.decisions)
    assert out.review_skipped == 2


@pytest.mark.parametrize(
    ("entries", "decision", "mode", "expected"),
    [
        pytest.param(
            (A, B), merge("alpha-note", "beta-note"), "standard",
            [("upsert", "low", False), ("delete", "low", False)], id="low-unreviewed",
        ),
        pytest.param(
            (A, B), merge("alpha-note", "beta-note", confidence=0.85), "standard",
            [("upsert", "medium", True), ("delete", "medium", True)], id="medium-confidence",
        ),
        pytest.param(
            (A_REVIEWED, B), merge("alpha-note", "beta-note"), "standard",
            [("upsert", "medium", True), ("delete", "medium", True)], id="reviewed-target",
        ),
        pytest.param(
            (A, B_REVIEWED), merge("alpha-note", "beta-note"), "standard",
            [("upsert", "medium", True), ("delete", "high", True)], id="reviewed-source",
        ),
        pytest.param(
            (A, B_USER), merge("alpha-note", "beta-note"), "aggressive",
            [("upsert", "medium", True), ("delete", "medium", True)], id="cross-type",
        ),
        pytest.param(
            (A, B_PROJECT), merge("alpha-note", "beta-note"), "aggressive",
            [("upsert", "high", True), ("delete", "high", True)], id="cross-scope",
        ),
        pytest.param(
            (A_REVIEWED,), delete("alpha-note", confidence=0.9), "standard",
            [("delete", "high", True)], id="reviewed-delete",
        ),
        pytest.param(
            (A,), delete("alpha-note", risk="medium"), "standard",
            [("delete", "medium", True)], id="llm-medium-delete",
        ),
    ],
)  # fmt: skip
def test_requires_user_ack(
    entries: tuple[OrganizerEntry, ...],
    decision: PlanDecision,
    mode: str,
    expected: list[tuple[str, str, bool]],
) -> None:
    out = gate([plan(*entries, decisions=[decision])], mode=mode)
    assert [(d.op, d.risk_level, d.requires_user_ack) for d in out.decisions] == expected


def test_conservative_mode_refuses_a_merge_touching_a_reviewed_memory() -> None:
    # The target is unreviewed, the source reviewed: in conservative mode the whole merge is
    # medium risk (reviewed entry) and is refused, upsert and delete alike.
    decision = merge("alpha-note", "beta-note")
    out = gate([plan(A, B_REVIEWED, decisions=[decision])], mode="conservative")
    assert out.decisions == []
    assert out.buckets == buckets(reviewedProtected=1)


# --- merged_text and merge_provenance -----------------------------------------------------------


def test_merged_text_reads_as_a_memory() -> None:
    # Issue 14: the merged text is what the agent reads; no "## Organizer merge" section, no
    # dates, scores or source headings: the target's text, then what the sources add.
    target = organizer_entry("kiwi-main", body="  Kiwis are birds.\nThey live in New Zealand.\n")
    same = organizer_entry("kiwi-copy", body="Kiwis are birds.", description="Kiwi")
    more = organizer_entry("kiwi-eggs", body="Kiwis are birds. Kiwis lay big eggs.\n")
    wider = organizer_entry("kiwi-nz", body="They live in New Zealand, mostly in forests.")
    body = merged_text(target, [target, same, more, wider])
    assert body == (
        "Kiwis are birds.\nThey live in New Zealand, mostly in forests.\n\nKiwis lay big eggs."
    )
    for provenance in ("Organizer merge", "Merged", "Source:", "jaccard", "kiwi-copy"):
        assert provenance not in body
    assert merged_text(target, [target]) == "Kiwis are birds.\nThey live in New Zealand."


def test_merged_text_keeps_chinese_and_lists() -> None:
    target = organizer_entry("tea", body="用户喜欢绿茶。\n\n- 早上喝\n- 不加糖")
    source = organizer_entry("tea-2", body="用户喜欢绿茶。每天两杯。\n\n- 不加糖\n- 用玻璃杯")
    assert merged_text(target, [source]) == (
        "用户喜欢绿茶。\n\n- 早上喝\n- 不加糖\n\n每天两杯。\n\n- 用玻璃杯"
    )


def test_merge_provenance_goes_to_evidence_and_history_keeping_the_targets_evidence() -> None:
    decision = SafeDecision(
        op="upsert",
        slug="kiwi-main",
        scope="global",
        workdir_hash="",
        reason="near duplicates of kiwi-main: kiwi-eggs (jaccard 0.71, containment 0.83)",
        confidence=0.85,
        risk_level="low",
        requires_user_ack=False,
        source_slugs=("kiwi-main", "kiwi-eggs", "kiwi-fly"),
        evidence_preserved=("kiwi-eggs: Egg size",),
        group_id="merge:c:kiwi-main:kiwi-eggs+kiwi-fly+kiwi-main",
    )
    current = EvidenceView(
        confidence="high",
        source_quote="kiwis are birds",
        reasoning="said by the user",
        aliases=["kiwi"],
        supersedes="kiwi-old",
    )
    fields = merge_provenance(decision, current)
    assert fields == {
        "reason": "organizer merge of kiwi-eggs, kiwi-fly into kiwi-main: near duplicates of "
        "kiwi-main: kiwi-eggs (jaccard 0.71, containment 0.83) (confidence 0.85); "
        "preserved evidence: kiwi-eggs: Egg size",
        "confidence": "high",
        "source_quote": "kiwis are birds",
        "reasoning": "said by the user",
        "aliases": ["kiwi"],
        "supersedes": "kiwi-old, kiwi-eggs, kiwi-fly",
    }
    # A target with no evidence yet: the note is its reasoning; the contract sets confidence.
    bare = merge_provenance(decision, None)
    assert bare["reasoning"] == bare["reason"]
    long = merge_provenance(replace(decision, reason="x" * 500), None)
    assert len(long["reasoning"]) == config.MAX_REASONING_CHARS
    assert long["reasoning"].endswith("...") and len(long["reason"]) > 500
    assert bare["supersedes"] == "kiwi-eggs, kiwi-fly"
    assert "confidence" not in bare and "source_quote" not in bare


# --- SafeDecision -----------------------------------------------------------------------------


def test_decision_keys() -> None:
    out = gate(
        [
            plan(A, B, decisions=[merge("alpha-note", "beta-note")]),
            plan(
                organizer_entry("gamma-note", scope="project", workdir_hash="d" * 16),
                decisions=[delete("gamma-note")],
                cid="c2",
            ),
        ]
    )
    keys = [d.key(i) for i, d in enumerate(out.decisions)]
    assert keys == [
        "0:upsert:global::alpha-note",
        "1:delete:global::beta-note",
        f"2:delete:project:{'d' * 16}:gamma-note",
    ]


def test_safe_decision_report_round_trip() -> None:
    project_a = organizer_entry("alpha-note", scope="project", workdir_hash="e" * 16)
    project_b = organizer_entry("beta-note", scope="project", workdir_hash="e" * 16)
    out = gate(
        [
            plan(project_a, project_b, decisions=[merge("alpha-note", "beta-note", reason="dup")]),
            plan(organizer_entry("gamma-note"), decisions=[delete("gamma-note", confidence=None)]),
        ],
        mode="aggressive",
    )
    upsert, project_delete, global_delete = out.decisions
    report = upsert.to_report()
    assert report["op"] == "upsert"
    assert report["workdirHash"] == "e" * 16
    assert report["riskLevel"] == "low"
    assert report["requiresUserAck"] is False
    assert report["sourceSlugs"] == ["alpha-note", "beta-note"]
    assert report["groupId"] == upsert.group_id
    assert report["memoryType"] == "reference"
    assert report["previousBody"] == "Body of alpha-note."
    assert report["body"] == "Body of alpha-note.\n\nBody of beta-note."
    global_report = global_delete.to_report()
    assert global_report["confidence"] is None
    assert "workdirHash" not in global_report
    assert not {"groupId", "body", "memoryType", "description"} & set(global_report)
    for decision in (upsert, project_delete, global_delete):
        assert SafeDecision.from_report(decision.to_report()) == decision
        assert SafeDecision.from_report(decision.to_report()).key(4) == decision.key(4)


def test_from_report_defaults_are_cautious() -> None:
    decision = SafeDecision.from_report({"op": "delete", "slug": "alpha-note", "scope": "global"})
    assert decision.risk_level == "medium"
    assert decision.requires_user_ack is True
    assert decision.workdir_hash == ""
    assert decision.key(0) == "0:delete:global::alpha-note"


def test_batch_items() -> None:
    project_a = organizer_entry("alpha-note", scope="project", workdir_hash="f" * 16)
    project_b = organizer_entry("beta-note", scope="project", workdir_hash="f" * 16)
    out = gate([plan(project_a, project_b, decisions=[merge("alpha-note", "beta-note")])])
    upsert, removal = out.decisions
    assert upsert.batch_item() == {
        "op": "upsert",
        "slug": "alpha-note",
        "scope": "project",
        "workdir_hash": "f" * 16,
        "group_id": upsert.group_id,
        "type": "reference",
        "description": "About alpha-note",
        "body": upsert.body,
    }
    assert removal.batch_item() == {
        "op": "delete",
        "slug": "beta-note",
        "scope": "project",
        "workdir_hash": "f" * 16,
        "group_id": upsert.group_id,
        "reason": "merged into alpha-note",
    }


@pytest.mark.parametrize(
    ("confidence", "bucket"),
    [(0.8, "lowConfidence"), (None, "lowConfidence"), (0.95, "reviewRequiredByLlm")],
)
def test_a_rejection_without_a_recorded_reason_still_lands_in_a_bucket(
    confidence: float | None, bucket: str
) -> None:
    # An unreviewed, same-scope, same-type delete: medium risk comes only from the confidence
    # (or the proposer's own "medium"), which conservative mode never queues.
    target = OrganizerEntry("old-note", "global", "", "reference", "d", "h", "b", True, "low", 1)
    cluster = Cluster("c1", (target,))
    decision = PlanDecision(
        action="delete", slug="old-note", confidence=confidence, risk_level="medium"
    )
    out = build_decisions(
        [ClusterPlan(cluster, (decision,))], trigger="manual", mode="conservative"
    )
    assert out.decisions == []
    assert sum(out.buckets.values()) == 1 and out.buckets[bucket] == 1


# --- pairs the duplicate check kept apart (issue 15) ---------------------------------------------

C = organizer_entry("gamma-note")
C_PROJECT = organizer_entry("gamma-note", scope="project", workdir_hash="a" * 16)
APART = Judgement(
    Verdict.CONTRADICTION, (Difference(DifferenceKind.NUMBER, ("10 次",), ("5 次",)),)
)


def test_a_merge_taking_in_two_memories_kept_apart_is_held_back_whole() -> None:
    # beta and gamma disagree; the merge into alpha would fold both in: none of it goes through
    kept_apart = {frozenset((B.identity, C.identity)): APART}
    plans = [plan(A, B, C, decisions=[merge("alpha-note", "beta-note", "gamma-note")])]

    out = build_decisions(plans, trigger="manual", mode="standard", kept_apart=kept_apart)

    assert out.decisions == [] and out.merged_count == 0
    assert (out.review_skipped, out.buckets) == (1, buckets(unsupported=1))
    (note,) = out.review_items
    assert note["code"] == "merge_kept_apart" and note["slug"] == "alpha-note"
    assert note["params"] == {
        "cluster": "c1",
        "target": "alpha-note",
        "first": "beta-note",
        "second": "gamma-note",
        "verdict": "contradiction",
        "differences": [{"kind": "number", "first": ["10 次"], "second": ["5 次"]}],
    }
    assert note["message"] == (
        "c1: merge_into alpha-note held back: the duplicate check found that beta-note and "
        "gamma-note disagree (number 10 次 / 5 次)"
    )
    # without the finding the same merge passes; with it, even proposing everything holds it
    assert len(gate(plans).decisions) == 3
    held = build_decisions(plans, trigger="manual", mode="aggressive", propose_all=True,
                           kept_apart=kept_apart)  # fmt: skip
    assert held.decisions == [] and held.review_skipped == 1


def test_the_pair_kept_apart_is_one_memory_of_one_scope_and_project() -> None:
    # The same slug in a project is another memory: a finding about it says nothing here.
    kept_apart = {frozenset((B.identity, C_PROJECT.identity)): APART}
    plans = [plan(A, B, C, decisions=[merge("alpha-note", "beta-note", "gamma-note")])]

    out = build_decisions(plans, trigger="manual", mode="standard", kept_apart=kept_apart)

    assert [d.slug for d in out.decisions] == ["alpha-note", "beta-note", "gamma-note"]
    assert out.review_items == [] and out.buckets == buckets()

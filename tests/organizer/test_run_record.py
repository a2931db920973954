"""The organizer run report (REFERENCE A10 report v4) and its legacy view.

`parse_report` is the only parser of stored reports: a v4 report validates into typed shapes
and round-trips; anything older, or broken, is shown read-only as a legacy summary.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import sqlalchemy as sa

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.organizer import run_record
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    OrganizerEntry,
    PlanDecision,
    build_decisions,
)
from liveagent_memory.organizer.run_record import (
    ManualApplyState,
    Report,
    ReportView,
    ReviewItem,
    parse_report,
    view_report,
)
from liveagent_memory.store.store import MemoryStore

DECISION_KEY = "0:merge_into:global::kiwi-notes"
FULL_REPORT: dict[str, Any] = {
    "version": 4,
    "clusterSummaries": [
        {"clusterId": "topic-0", "topic": "kiwi orchards", "slugs": ["kiwi-a", "kiwi-b"]},
        {"clusterId": "structural-1", "slugs": ["deploy-notes"]},
    ],
    "reviewItems": [
        {
            "phase": "planning",
            "kind": "decision_rejected",
            "severity": "warning",
            "message": "merge touches a reviewed memory",
            "code": "reviewed_protected",
            "slug": "kiwi-a",
            "op": "merge_into",
            "groupId": "merge:topic-0:kiwi-notes:kiwi-a+kiwi-b",
            "decisionKey": DECISION_KEY,
        },
        {
            "phase": "apply",
            "kind": "apply_failed",
            "severity": "error",
            "message": "upsert failed; deletes skipped",
            "code": "group_upsert_failed",
            "slug": "kiwi-b",
            "op": "delete",
            "groupId": "merge:topic-0:kiwi-notes:kiwi-a+kiwi-b",
            "decisionKey": "1:delete:global::kiwi-b",
        },
        {
            "phase": "system",
            "kind": "cluster_failed",
            "severity": "info",
            "message": "cluster structural-1 fell back",
            "code": "plan_failed",
            "slug": "deploy-notes",
            "op": "keep",
            "groupId": "structural-1",
            "decisionKey": "2:keep:global::deploy-notes",
        },
    ],
    "raw": [{"clusterId": "topic-0", "text": '{"decisions": []}'}],
    "safeDecisions": [
        {
            "key": DECISION_KEY,
            "action": "merge_into",
            "slug": "kiwi-a",
            "target_slug": "kiwi-notes",
            "risk_level": "low",
            "confidence": 0.92,
        }
    ],
    "rejectionBuckets": {
        "reviewedProtected": 1,
        "lowConfidence": 2,
        "crossType": 0,
        "crossScope": 0,
        "reviewRequiredByLlm": 3,
        "missingPayload": 0,
        "unsupported": 1,
    },
    "compressionForecast": {"before": 10, "min": 6, "max": 8},
    "manualApplyState": {
        "status": "partial",
        "appliedDecisionKeys": [DECISION_KEY],
        "failedDecisionKeys": ["1:delete:global::kiwi-b"],
        "counts": {"applied": 1, "failed": 1},
    },
}


def _with(path: str, value: Any) -> dict[str, Any]:
    """FULL_REPORT with one value replaced; `path` is dotted, list indexes as numbers."""
    data = copy.deepcopy(FULL_REPORT)
    *parents, last = path.split(".")
    target: Any = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


def _without(path: str) -> dict[str, Any]:
    data = copy.deepcopy(FULL_REPORT)
    *parents, last = path.split(".")
    target: Any = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    del target[last]
    return data


# --- parse_report -----------------------------------------------------------------------------


def test_the_seven_rejection_buckets_are_the_references() -> None:
    assert run_record.REJECTION_BUCKETS == (
        "reviewedProtected",
        "lowConfidence",
        "crossType",
        "crossScope",
        "reviewRequiredByLlm",
        "missingPayload",
        "unsupported",
    )
    assert set(FULL_REPORT["rejectionBuckets"]) == set(run_record.REJECTION_BUCKETS)


def test_a_full_v4_report_parses_into_typed_shapes() -> None:
    report = parse_report(FULL_REPORT)

    assert isinstance(report, Report)
    assert report.version == 4
    assert [item.phase for item in report.reviewItems] == ["planning", "apply", "system"]
    assert all(isinstance(item, ReviewItem) for item in report.reviewItems)
    assert report.reviewItems[0].decisionKey == DECISION_KEY
    assert report.reviewItems[1].code == "group_upsert_failed"
    assert report.raw == FULL_REPORT["raw"]
    assert report.safeDecisions == FULL_REPORT["safeDecisions"]
    assert report.rejectionBuckets == FULL_REPORT["rejectionBuckets"]
    assert report.compressionForecast == {"before": 10, "min": 6, "max": 8}
    assert report.manualApplyState == ManualApplyState(
        status="partial",
        appliedDecisionKeys=[DECISION_KEY],
        failedDecisionKeys=["1:delete:global::kiwi-b"],
        counts={"applied": 1, "failed": 1},
    )


def test_a_full_v4_report_round_trips_through_to_dict() -> None:
    report = parse_report(FULL_REPORT)

    as_dict = report.to_dict()

    assert as_dict == FULL_REPORT
    assert json.loads(json.dumps(as_dict)) == FULL_REPORT
    assert parse_report(as_dict) == report


def test_a_minimal_v4_report_gets_empty_lists_and_leaves_optional_parts_out() -> None:
    report = parse_report({"version": 4})

    assert report.to_dict() == {"version": 4, "clusterSummaries": [], "reviewItems": [], "raw": []}
    assert report.safeDecisions is None and report.manualApplyState is None
    assert parse_report({"version": 4, "reviewItems": None, "raw": None}).to_dict() == {
        "version": 4,
        "clusterSummaries": [],
        "reviewItems": [],
        "raw": [],
    }


def test_review_item_optional_fields_are_left_out_and_parse_again() -> None:
    data = {
        "version": 4,
        "reviewItems": [{"phase": "apply", "kind": "k", "severity": "info", "message": "m"}],
    }

    report = parse_report(data)
    item = report.to_dict()["reviewItems"][0]

    assert item == {"phase": "apply", "kind": "k", "severity": "info", "message": "m"}
    assert parse_report(report.to_dict()) == report


def test_manual_apply_state_defaults() -> None:
    report = parse_report({"version": 4, "manualApplyState": {}})
    assert report.manualApplyState == ManualApplyState(
        status="pending",
        appliedDecisionKeys=[],
        failedDecisionKeys=[],
        counts={},
        rejectedDecisionKeys=[],
    )


def test_decisions_rejected_one_by_one_round_trip_and_an_older_state_has_none() -> None:
    # Issue 14 adds rejectedDecisionKeys; a state written without it (older, or LiveAgent's)
    # reads as nothing rejected and writes back as it was.
    older = parse_report(copy.deepcopy(FULL_REPORT))
    assert older.manualApplyState is not None
    assert older.manualApplyState.rejectedDecisionKeys == []
    assert "rejectedDecisionKeys" not in older.to_dict()["manualApplyState"]
    ours = _with("manualApplyState.rejectedDecisionKeys", ["2:delete:global::kiwi-c"])
    report = parse_report(ours)
    assert report.manualApplyState is not None
    assert report.manualApplyState.rejectedDecisionKeys == ["2:delete:global::kiwi-c"]
    assert report.to_dict() == ours
    with pytest.raises(InvalidArgument) as caught:
        parse_report(_with("manualApplyState.rejectedDecisionKeys", "all"))
    assert caught.value.field == "report.manualApplyState"


def test_contradiction_answers_round_trip_and_an_older_state_has_none() -> None:
    # Issue 15 adds manualApplyState.contradictions; a state without it (older, or
    # LiveAgent's) reads as nothing answered and writes back as it was.
    older = parse_report(copy.deepcopy(FULL_REPORT))
    assert older.manualApplyState is not None
    assert older.manualApplyState.contradictions == {}
    assert "contradictions" not in older.to_dict()["manualApplyState"]
    answer = {"status": "resolved", "resolution": "keep_both", "kept": ["a", "b"]}
    ours = _with("manualApplyState.contradictions", {"contradiction:global::a:b": answer})
    report = parse_report(ours)
    assert report.manualApplyState is not None
    assert report.manualApplyState.contradictions == {"contradiction:global::a:b": answer}
    assert report.to_dict() == ours
    for bad in ("all", {"contradiction:global::a:b": "resolved"}):
        with pytest.raises(InvalidArgument) as caught:
            parse_report(_with("manualApplyState.contradictions", bad))
        assert caught.value.field == "report.manualApplyState"


@pytest.mark.parametrize("status", ["pending", "partial", "applied", "rejected"])
def test_every_manual_apply_status_is_accepted(status: str) -> None:
    report = parse_report(_with("manualApplyState.status", status))
    assert report.manualApplyState is not None
    assert report.manualApplyState.status == status


@pytest.mark.parametrize(
    ("data", "field"),
    [
        pytest.param(_with("version", 3), "report.version", id="version-3"),
        pytest.param(_with("version", 5), "report.version", id="version-5"),
        pytest.param(_with("version", "4"), "report.version", id="version-text"),
        pytest.param(_without("version"), "report.version", id="version-missing"),
        pytest.param([FULL_REPORT], "report", id="list"),
        pytest.param("{}", "report", id="text"),
        pytest.param(None, "report", id="null"),
        pytest.param(4, "report", id="number"),
        pytest.param(_with("clusterSummaries", {"a": 1}), "report.clusterSummaries", id="cs-obj"),
        pytest.param(
            _with("clusterSummaries", ["kiwi"]), "report.clusterSummaries", id="cs-item-text"
        ),
        pytest.param(_with("reviewItems", "none"), "report.reviewItems", id="ri-not-list"),
        pytest.param(
            _with("reviewItems.0", "warning"), "report.reviewItems[0]", id="ri-not-object"
        ),
        pytest.param(
            _with("reviewItems.1.phase", "gate"), "report.reviewItems[1].phase", id="ri-phase"
        ),
        pytest.param(
            _without("reviewItems.0.phase"), "report.reviewItems[0].phase", id="ri-no-phase"
        ),
        pytest.param(
            _with("reviewItems.2.severity", "fatal"),
            "report.reviewItems[2].severity",
            id="ri-severity",
        ),
        pytest.param(
            _with("reviewItems.0.severity", None),
            "report.reviewItems[0].severity",
            id="ri-null-severity",
        ),
        pytest.param(
            _without("reviewItems.0.message"),
            "report.reviewItems[0].message",
            id="ri-no-message",
        ),
        pytest.param(
            _with("reviewItems.0.message", 42), "report.reviewItems[0].message", id="ri-msg-num"
        ),
        pytest.param(_without("reviewItems.0.kind"), "report.reviewItems[0].kind", id="ri-kind"),
        pytest.param(_with("reviewItems.0.code", 7), "report.reviewItems[0].code", id="ri-code"),
        pytest.param(
            _with("reviewItems.0.decisionKey", ["k"]),
            "report.reviewItems[0].decisionKey",
            id="ri-decision-key",
        ),
        pytest.param(_with("raw", {"text": "x"}), "report.raw", id="raw-not-list"),
        pytest.param(_with("raw.0", "text"), "report.raw[0]", id="raw-not-object"),
        pytest.param(_with("raw.0.text", 12), "report.raw[0]", id="raw-text-number"),
        pytest.param(_with("safeDecisions", {"a": 1}), "report.safeDecisions", id="safe-obj"),
        pytest.param(_with("safeDecisions", ["k"]), "report.safeDecisions", id="safe-item"),
        pytest.param(
            _with("rejectionBuckets.tooRisky", 1), "report.rejectionBuckets", id="bucket-unknown"
        ),
        pytest.param(
            _with("rejectionBuckets.crossScope", -1), "report.rejectionBuckets", id="bucket-neg"
        ),
        pytest.param(
            _with("rejectionBuckets.crossScope", True), "report.rejectionBuckets", id="bucket-bool"
        ),
        pytest.param(
            _with("rejectionBuckets.crossScope", 1.5), "report.rejectionBuckets", id="bucket-float"
        ),
        pytest.param(
            _with("rejectionBuckets", [1, 2]), "report.rejectionBuckets", id="buckets-list"
        ),
        pytest.param(
            _with("compressionForecast.min", -6),
            "report.compressionForecast",
            id="forecast-negative",
        ),
        pytest.param(
            _with("compressionForecast", 7), "report.compressionForecast", id="forecast-number"
        ),
        pytest.param(_with("manualApplyState", "pending"), "report.manualApplyState", id="m-text"),
        pytest.param(
            _with("manualApplyState.status", "done"), "report.manualApplyState", id="m-status"
        ),
        pytest.param(
            _with("manualApplyState.status", None), "report.manualApplyState", id="m-null-status"
        ),
        pytest.param(
            _with("manualApplyState.appliedDecisionKeys", DECISION_KEY),
            "report.manualApplyState",
            id="m-applied-text",
        ),
        pytest.param(
            _with("manualApplyState.failedDecisionKeys", [1, 2]),
            "report.manualApplyState",
            id="m-failed-numbers",
        ),
        pytest.param(
            _with("manualApplyState.counts", {"applied": -1}),
            "report.manualApplyState.counts",
            id="m-counts-negative",
        ),
        pytest.param(
            _with("manualApplyState.counts", [1]),
            "report.manualApplyState.counts",
            id="m-counts-list",
        ),
        pytest.param(_with("outcome", "5 memories"), "report.outcome", id="outcome-text"),
        pytest.param(
            _with("reviewItems.0.params", ["a"]), "report.reviewItems[0].params", id="params-list"
        ),
    ],
)
def test_parse_report_rejects_bad_reports_naming_the_field(data: Any, field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_report(data)

    assert caught.value.code == "invalid_argument"
    assert caught.value.field == field
    assert caught.value.message


# --- view_report ------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [None, {}])
def test_no_report_is_not_legacy_and_empty(data: dict[str, Any] | None) -> None:
    assert view_report(data) == ReportView(legacy=False, report=None, summary="")
    assert view_report(data, final_summary="nothing to do").to_dict() == {
        "legacy": False,
        "report": None,
        "summary": "nothing to do",
    }


def test_a_v4_report_is_viewed_typed() -> None:
    view = view_report(FULL_REPORT, final_summary="10 → 8")

    assert view.legacy is False
    assert view.report == parse_report(FULL_REPORT)
    assert view.to_dict() == {"legacy": False, "report": FULL_REPORT, "summary": "10 → 8"}


def test_a_v3_report_is_legacy_with_its_own_summary() -> None:
    view = view_report({"version": 3, "summary": "merged 3"}, final_summary="ignored")

    assert view == ReportView(legacy=True, report=None, summary="merged 3")
    assert view.to_dict() == {"legacy": True, "report": None, "summary": "merged 3"}


@pytest.mark.parametrize("key", ["finalSummary", "final_summary"])
def test_a_legacy_report_may_spell_its_summary_differently(key: str) -> None:
    view = view_report({"version": 2, key: "  pruned 4  "})
    assert (view.legacy, view.summary) == (True, "pruned 4")


def test_a_v3_report_without_a_summary_falls_back_to_the_runs_summary() -> None:
    view = view_report({"version": 3, "summary": "   ", "decisions": [1]}, final_summary="kept all")
    assert (view.legacy, view.summary) == (True, "kept all")


def test_an_unversioned_report_with_lists_is_summarized_by_counts() -> None:
    view = view_report({"decisions": [{"a": 1}, {"b": 2}], "applied": [1], "note": "x"})

    assert view.legacy is True
    assert view.report is None
    assert "unversioned" in view.summary
    assert "decisions: 2" in view.summary
    assert "applied: 1" in view.summary
    assert "note" not in view.summary


def test_a_legacy_report_without_lists_or_summary_still_says_what_it_is() -> None:
    view = view_report({"version": 3, "status": "ok"})
    assert (view.legacy, view.summary) == (True, "legacy report (version 3)")


@pytest.mark.parametrize(
    "data",
    [
        {"version": 4, "reviewItems": [{"phase": "bogus", "severity": "info"}]},
        {"version": 4, "rejectionBuckets": {"tooRisky": 1}},
        _with("manualApplyState.status", "done"),
    ],
)
def test_a_broken_v4_report_is_legacy_unreadable(data: dict[str, Any]) -> None:
    view = view_report(data, final_summary="ignored")

    assert view.legacy is True
    assert view.report is None
    assert view.summary.startswith("unreadable report")


# --- through the commands ---------------------------------------------------------------------


def _start(store: MemoryStore) -> str:
    return str(dispatch(store, "organize_run_create", {})["run"]["run_id"])


def _stored_report_text(store: MemoryStore, run_id: str) -> str:
    with store.index.read() as conn:
        return str(
            conn.execute(
                sa.text(
                    "SELECT trimmed_protocol_json FROM memory_organize_runs WHERE run_id = :id"
                ),
                {"id": run_id},
            ).scalar_one()
        )


def _write_report_text(store: MemoryStore, run_id: str, text: str) -> None:
    """Write the report column straight into SQLite, as LiveAgent or an older version did."""
    with store.index.write() as conn:
        conn.execute(
            sa.text(
                "UPDATE memory_organize_runs SET trimmed_protocol_json = :text WHERE run_id = :id"
            ),
            {"text": text, "id": run_id},
        )


@pytest.mark.parametrize(
    ("report", "field"),
    [
        ({"version": 3, "summary": "old"}, "report.version"),
        ({}, "report.version"),
        (_with("reviewItems.0.severity", "fatal"), "report.reviewItems[0].severity"),
        (_with("rejectionBuckets.tooRisky", 2), "report.rejectionBuckets"),
        (_with("manualApplyState.status", "done"), "report.manualApplyState"),
    ],
)
@pytest.mark.parametrize("command", ["organize_run_update", "organize_due_complete"])
def test_an_invalid_report_is_refused_and_nothing_is_stored(
    store: MemoryStore, command: str, report: dict[str, Any], field: str
) -> None:
    run_id = _start(store)
    before = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]

    ok, error = call(
        store,
        command,
        {"run_id": run_id, "status": "succeeded", "phase": "done", "report": report},
    )

    assert not ok
    assert (error["error"], error["field"]) == ("invalid_argument", field)
    assert dispatch(store, "organize_run_read", {"run_id": run_id})["run"] == before
    assert _stored_report_text(store, run_id) == "{}"


def test_a_valid_report_is_stored_normalized_and_read_back_as_the_view(
    store: MemoryStore,
) -> None:
    run_id = _start(store)
    sparse = {
        "version": 4,
        "reviewItems": [{"phase": "system", "kind": "k", "severity": "error", "message": "m"}],
        "raw": [{"text": "raw model output"}],
    }

    dispatch(
        store,
        "organize_run_update",
        {"run_id": run_id, "report": sparse, "final_summary": "one cluster failed"},
    )

    expected = parse_report(sparse).to_dict()
    assert json.loads(_stored_report_text(store, run_id)) == expected
    assert expected["raw"] == [{"clusterId": "", "text": "raw model output"}]
    for name in ("organize_run_read", "organize_run_get"):
        run = dispatch(store, name, {"run_id": run_id})["run"]
        assert run["report"] == {
            "legacy": False,
            "report": expected,
            "summary": "one cluster failed",
        }


def test_a_full_report_reads_back_unchanged(store: MemoryStore) -> None:
    run_id = _start(store)
    dispatch(store, "organize_run_update", {"run_id": run_id, "report": FULL_REPORT})

    run = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]

    assert run["report"] == {"legacy": False, "report": FULL_REPORT, "summary": ""}


def test_a_legacy_report_written_into_sqlite_reads_back_as_legacy(store: MemoryStore) -> None:
    run_id = _start(store)
    dispatch(
        store,
        "organize_run_update",
        {"run_id": run_id, "status": "succeeded", "final_summary": "done"},
    )
    _write_report_text(store, run_id, json.dumps({"version": 3, "summary": "merged 3"}))

    run = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]
    (row,) = dispatch(store, "organize_run_list", {})["runs"]

    assert run["report"] == {"legacy": True, "report": None, "summary": "merged 3"}
    assert "report" not in row
    assert row["run_id"] == run_id


def test_an_update_without_a_report_keeps_the_legacy_report(store: MemoryStore) -> None:
    run_id = _start(store)
    legacy = {"decisions": [1, 2, 3]}
    _write_report_text(store, run_id, json.dumps(legacy))

    dispatch(store, "organize_run_update", {"run_id": run_id, "phase": "done"})

    assert json.loads(_stored_report_text(store, run_id)) == legacy
    view = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]["report"]
    assert view["legacy"] is True
    assert "decisions: 3" in view["summary"]


def test_a_broken_v4_report_in_sqlite_reads_back_as_unreadable_legacy(
    store: MemoryStore,
) -> None:
    run_id = _start(store)
    _write_report_text(store, run_id, json.dumps(_with("reviewItems.0.phase", "gate")))

    view = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]["report"]

    assert view["legacy"] is True
    assert view["report"] is None
    assert view["summary"].startswith("unreadable report")
    assert "reviewItems[0].phase" in view["summary"]


def test_a_v4_report_written_by_another_program_reads_typed(store: MemoryStore) -> None:
    run_id = _start(store)
    _write_report_text(store, run_id, json.dumps(FULL_REPORT))

    view = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]["report"]

    assert view == {"legacy": False, "report": FULL_REPORT, "summary": ""}


# --- the rejection buckets: one list, and where a held-back decision counts ---------------------


def test_empty_buckets_are_the_seven_in_the_reports_order() -> None:
    assert list(run_record.empty_buckets()) == list(run_record.REJECTION_BUCKETS)
    assert set(run_record.empty_buckets().values()) == {0}
    assert run_record.REJECTION_BUCKETS == tuple(run_record.RejectionBucket)


@pytest.mark.parametrize(
    ("reasons", "confidence", "buckets"),
    [
        (["low_confidence"], 0.5, {"lowConfidence"}),
        (["missing_confidence"], None, {"lowConfidence"}),
        (["cross_type", "reviewed_entries"], 0.95, {"crossType", "reviewedProtected"}),
        (["cross_scope", "delete_reviewed"], 0.95, {"crossScope", "reviewedProtected"}),
        ([], 0.95, {"reviewRequiredByLlm"}),  # sure, so the proposer's own risk held it back
        ([], 0.8, {"lowConfidence"}),
        (["something_new"], None, {"lowConfidence"}),
    ],
)
def test_each_gate_reason_lands_in_its_bucket(
    reasons: list[str], confidence: float | None, buckets: set[str]
) -> None:
    assert run_record.rejection_buckets(reasons, confidence) == buckets


def test_the_gate_counts_only_in_buckets_of_the_list() -> None:
    entries = tuple(
        OrganizerEntry(slug, "global", "", "reference", "d", "h", "b", False, "high", 1)
        for slug in ("a", "b")
    )
    plan = ClusterPlan(
        Cluster("c1", entries),
        (
            PlanDecision("delete", slug="a", confidence=0.95, risk_level="low"),
            PlanDecision("merge_into", target_slug="b", source_slugs=("a",), confidence=0.5),
            PlanDecision("delete", slug="missing", confidence=0.9),
            PlanDecision("mark_review", slug="b", reason="check"),
        ),
    )
    result = build_decisions([plan], trigger="scheduled", mode="balanced")
    assert list(result.buckets) == list(run_record.REJECTION_BUCKETS)
    # The low-confidence merge of reviewed entries counts in two buckets (one per reason).
    assert result.buckets == {
        **run_record.empty_buckets(),
        "reviewedProtected": 2,
        "lowConfidence": 1,
        "reviewRequiredByLlm": 1,
        "unsupported": 1,
    }

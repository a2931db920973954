"""The organizer run report (REFERENCE A10 report v4): the only parser of stored reports.

A v4 report is validated into typed shapes; anything older (or unreadable) becomes a read-only
legacy summary, so a run history written by an earlier version still displays.

This module is also the home of the rejection buckets (docs/ARCHITECTURE.md "Where each rule
lives"): the report's seven names (`RejectionBucket`) and which bucket a decision the gate held
back counts in (`rejection_buckets`, used by organizer/decisions.py).

Beside its English text the report carries, for front ends that speak another language, the
kind of each text as a code with its figures as parameters (issue 14: translated by code, never
by English text): a run's `outcome`, a decision's `reasonCode`/`reasonParams`, a review item's
`code`/`params`. They are ours and optional: LiveAgent and older readers ignore them, and a
report without them still shows its English text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.schema import OrganizeRun

PHASES = ("planning", "apply", "system")
SEVERITIES = ("info", "warning", "error")
APPLY_STATES = ("pending", "partial", "applied", "rejected")


class RejectionBucket(StrEnum):
    """Why a proposed decision was not let through (REFERENCE A10 rejectionBuckets)."""

    REVIEWED_PROTECTED = "reviewedProtected"
    LOW_CONFIDENCE = "lowConfidence"
    CROSS_TYPE = "crossType"
    CROSS_SCOPE = "crossScope"
    REVIEW_REQUIRED_BY_LLM = "reviewRequiredByLlm"
    MISSING_PAYLOAD = "missingPayload"
    UNSUPPORTED = "unsupported"


REJECTION_BUCKETS = tuple(bucket.value for bucket in RejectionBucket)
# The gate's reasons (organizer/decisions.py derive_risk) and the bucket each counts in.
_BUCKET_OF_REASON = {
    "low_confidence": RejectionBucket.LOW_CONFIDENCE,
    "missing_confidence": RejectionBucket.LOW_CONFIDENCE,
    "cross_type": RejectionBucket.CROSS_TYPE,
    "cross_scope": RejectionBucket.CROSS_SCOPE,
    "reviewed_entries": RejectionBucket.REVIEWED_PROTECTED,
    "delete_reviewed": RejectionBucket.REVIEWED_PROTECTED,
    # A merge of two memories the duplicate check kept apart (a contradiction, different facts:
    # organizer/differences.py) is never carried out, whatever the mode: like a daily or an
    # unknown slug. The reference's seven names stay; the note (`MERGE_KEPT_APART`) says why.
    "kept_apart": RejectionBucket.UNSUPPORTED,
}


class ReasonCode(StrEnum):
    """What kind of text a decision's `reason` is (its `reasonCode` in the report)."""

    MODEL = "model"  # the model's own words: shown as written, never translated
    EXACT_DUPLICATES = "exactDuplicates"  # params: target, slugs, [targetType, types]
    NEAR_DUPLICATES = "nearDuplicates"  # params: target, pairs[slug, similarity, jaccard,
    # containment], [targetType, types]
    MERGED_INTO = "mergedInto"  # params: target
    ORGANIZER_UPDATE = "organizerUpdate"  # a merge the model gave no reason for
    ORGANIZER_DELETE = "organizerDelete"  # a delete the model gave no reason for
    # Issue 18: what consolidation learned from episodes (organizer/consolidate.py), a "learn"
    # entry of the review queue. params: kind (antiPattern | skill | pattern), episodes (the
    # new ones' ids), count, cited (every episode its text cites), update (an existing memory
    # gets the new evidence), language (en | zh), quote; an anti-pattern's errorType and
    # signature, a skill's steps and signature, a pattern's description.
    LEARNED = "learned"


# The reason codes of what consolidation proposes (review.py: the queue's "learn" kind).
LEARN_CODES = frozenset({ReasonCode.LEARNED})


class OutcomeCode(StrEnum):
    """How a finished run ended (the report's `outcome.code`; the English is `final_summary`)."""

    OFFLINE_PROPOSED = "offlineProposed"  # params: memories, clusters, proposed
    GATE_PASSED = "gatePassed"  # params: memories, clusters, proposed, heldBack
    CONSOLIDATED = "consolidated"  # issue 18; params: episodes, proposed, skipped
    # Never in a report: what `run_outcome` says of a run skipped with nothing to do.
    NOTHING_TO_ORGANIZE = "nothingToOrganize"
    NOTHING_TO_CONSOLIDATE = "nothingToConsolidate"


class NoteCode(StrEnum):
    """What a review item the gate wrote says (its `code`; figures in `params`)."""

    MERGE_HELD_BACK = "merge_held_back"  # params: cluster, target, slugs
    MERGE_TOO_LONG = "merge_too_long"  # params: cluster, target, bytes
    REVIEW_REQUESTED = "review_requested"  # params: cluster, action, subject, why (the model's)
    # Two memories disagree on one subject (organizer/differences.py): shown, never merged.
    # params: first, second (slugs), differences[kind, first, second] (what only each says)
    CONTRADICTION = "contradiction"
    # The gate held back a model's merge of two memories the duplicate check kept apart.
    # params: cluster, target, first, second (slugs), verdict (contradiction | different),
    # differences[kind, first, second]
    MERGE_KEPT_APART = "merge_kept_apart"
    # Issue 18, a consolidate run: an episode file it could not read (params: episode, path),
    # and a history longer than it reads (params: limit).
    EPISODE_SKIPPED = "episode_skipped"
    EPISODES_TRUNCATED = "episodes_truncated"
    # A lesson whose text would pass the size limit (params: slug, bytes, limit).
    LEARNED_TOO_LONG = "learned_too_long"


# The fixed words the pipeline writes for a run with nothing to do and for a run whose every
# plan failed: the run row's `final_summary` and `error`, matched as codes by front ends.
NOTHING_TO_ORGANIZE = "nothing to organize"
EVERY_PLAN_FAILED = "every cluster's plan failed"
# A consolidate run that found no episode recorded since the last one (issue 18).
NOTHING_TO_CONSOLIDATE = "no new episodes since the last consolidation"


def run_outcome(run: Mapping[str, Any]) -> dict[str, Any] | None:
    """How a run (a row as `OrganizeRun.to_dict` gives it, listed or read) ended, as a code
    and figures a front end says in its own language: its report's `outcome`, or a code for a
    run skipped with nothing to do; None when neither says (a run still going, an older run:
    front ends show its stored English `final_summary`)."""
    if run.get("status") == "skipped":
        skipped = {
            NOTHING_TO_ORGANIZE: OutcomeCode.NOTHING_TO_ORGANIZE,
            NOTHING_TO_CONSOLIDATE: OutcomeCode.NOTHING_TO_CONSOLIDATE,
        }.get(str(run.get("final_summary") or ""))
        if skipped is not None:
            return {"code": skipped.value}
    outcome = run.get("outcome")
    return dict(outcome) if isinstance(outcome, Mapping) and outcome.get("code") else None


def empty_buckets() -> dict[str, int]:
    """Every bucket at zero, in the report's order."""
    return dict.fromkeys(REJECTION_BUCKETS, 0)


def rejection_buckets(reasons: Iterable[str], confidence: float | None) -> set[RejectionBucket]:
    """The buckets a decision the gate held back counts in: one per kind of reason it has.

    SPEC 4: every rejection lands in a bucket. With no recorded reason the risk came from a
    confidence under 0.9 or from the proposer's own risk level.
    """
    found = {_BUCKET_OF_REASON[reason] for reason in reasons if reason in _BUCKET_OF_REASON}
    if found:
        return found
    sure = confidence is not None and confidence >= 0.9
    return {RejectionBucket.REVIEW_REQUIRED_BY_LLM if sure else RejectionBucket.LOW_CONFIDENCE}


@dataclass(frozen=True)
class ReviewItem:
    phase: str
    kind: str
    severity: str
    message: str
    code: str | None = None
    slug: str | None = None
    op: str | None = None
    groupId: str | None = None
    decisionKey: str | None = None
    params: dict[str, Any] | None = None  # ours: the figures of `code`'s text (module doc)


@dataclass(frozen=True)
class ManualApplyState:
    status: str = "pending"
    appliedDecisionKeys: list[str] = field(default_factory=list)
    failedDecisionKeys: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # Ours (issue 14: each decision can be rejected on its own); a report without it (older,
    # or LiveAgent's) has rejected nothing one by one.
    rejectedDecisionKeys: list[str] = field(default_factory=list)
    # Ours (issue 15): each contradiction's answer by its key (organizer/contradictions.py):
    # {status: resolved|failed, resolution?, error?, ...}; none listed is pending.
    contradictions: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    """A v4 report. Field names are the stored JSON's, so LiveAgent reads ours and we read its."""

    version: int
    clusterSummaries: list[dict[str, Any]] = field(default_factory=list)
    reviewItems: list[ReviewItem] = field(default_factory=list)
    raw: list[dict[str, str]] = field(default_factory=list)
    safeDecisions: list[dict[str, Any]] | None = None
    rejectionBuckets: dict[str, int] | None = None
    compressionForecast: dict[str, int] | None = None
    manualApplyState: ManualApplyState | None = None
    outcome: dict[str, Any] | None = None  # ours: `OutcomeCode` and its figures (module doc)
    # Ours (issue 18): a consolidate run's window and what it read: {since, until, episodes,
    # skipped} (organizer/consolidate.py); the next run starts at `until`.
    consolidation: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in dataclasses.asdict(self).items() if v is not None}
        manual = out.get("manualApplyState")
        if manual is not None and not manual["rejectedDecisionKeys"]:
            del manual["rejectedDecisionKeys"]  # ours: left out until used (LiveAgent's shape)
        if manual is not None and not manual["contradictions"]:
            del manual["contradictions"]  # ours too: left out until a contradiction is answered
        # Unset review-item fields are left out, as LiveAgent writes them.
        out["reviewItems"] = [
            {k: v for k, v in item.items() if v is not None} for item in out["reviewItems"]
        ]
        return out


@dataclass(frozen=True)
class ReportView:
    """What a front end shows: a typed v4 report, or a legacy summary (read-only)."""

    legacy: bool
    report: Report | None
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "legacy": self.legacy,
            "report": self.report.to_dict() if self.report else None,
            "summary": self.summary,
        }


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidArgument(f"report.{key} must be a list", field=f"report.{key}")
    return value


def _text(item: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidArgument(f"{where}.{key} must be text", field=f"{where}.{key}")
    return value


def _review_item(item: Any, index: int) -> ReviewItem:
    where = f"report.reviewItems[{index}]"
    if not isinstance(item, dict):
        raise InvalidArgument(f"{where} must be an object", field=where)
    phase = _text(item, "phase", where, required=True)
    severity = _text(item, "severity", where, required=True)
    if phase not in PHASES:
        raise InvalidArgument(
            f"{where}.phase must be one of {', '.join(PHASES)}", field=f"{where}.phase"
        )
    if severity not in SEVERITIES:
        raise InvalidArgument(
            f"{where}.severity must be one of {', '.join(SEVERITIES)}", field=f"{where}.severity"
        )
    return ReviewItem(
        phase=str(phase),
        kind=str(_text(item, "kind", where, required=True)),
        severity=str(severity),
        message=str(_text(item, "message", where, required=True)),
        code=_text(item, "code", where),
        slug=_text(item, "slug", where),
        op=_text(item, "op", where),
        groupId=_text(item, "groupId", where),
        decisionKey=_text(item, "decisionKey", where),
        params=_object(item.get("params"), f"{where}.params"),
    )


def _object(value: Any, where: str) -> dict[str, Any] | None:
    """An optional JSON object (a code's parameters); None when absent."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidArgument(f"{where} must be an object", field=where)
    return value


def _counts(value: Any, where: str, allowed: tuple[str, ...] | None = None) -> dict[str, int]:
    if not isinstance(value, dict):
        raise InvalidArgument(f"{where} must be an object", field=where)
    out: dict[str, int] = {}
    for key, number in value.items():
        if allowed is not None and key not in allowed:
            raise InvalidArgument(f"{where}: unknown key {key!r}", field=where)
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise InvalidArgument(f"{where}.{key} must be a non-negative integer", field=where)
        out[str(key)] = number
    return out


def _manual(value: Any) -> ManualApplyState:
    where = "report.manualApplyState"
    if not isinstance(value, dict):
        raise InvalidArgument(f"{where} must be an object", field=where)
    status = value.get("status", "pending")
    if status not in APPLY_STATES:
        raise InvalidArgument(
            f"{where}.status must be one of {', '.join(APPLY_STATES)}", field=where
        )
    keys = {}
    for name in ("appliedDecisionKeys", "failedDecisionKeys", "rejectedDecisionKeys"):
        items = value.get(name, [])
        if not isinstance(items, list) or not all(isinstance(k, str) for k in items):
            raise InvalidArgument(f"{where}.{name} must be a list of keys", field=where)
        keys[name] = list(items)
    answers = value.get("contradictions", {})
    if not isinstance(answers, dict) or not all(isinstance(a, dict) for a in answers.values()):
        raise InvalidArgument(f"{where}.contradictions must map keys to objects", field=where)
    return ManualApplyState(
        status=status,
        counts=_counts(value.get("counts", {}), f"{where}.counts"),
        contradictions={str(key): dict(answer) for key, answer in answers.items()},
        **keys,
    )


def parse_report(data: Any) -> Report:
    """Validate a v4 report; InvalidArgument names the offending field."""
    if not isinstance(data, dict):
        raise InvalidArgument("report must be an object", field="report")
    version = data.get("version")
    if version != config.ORGANIZE_REPORT_VERSION:
        raise InvalidArgument(
            f"The run report's version must be {config.ORGANIZE_REPORT_VERSION}",
            field="report.version",
        )
    raw = []
    for index, item in enumerate(_list(data, "raw")):
        if not isinstance(item, dict) or not isinstance(item.get("text", ""), str):
            raise InvalidArgument(
                f"The run report's raw answer {index + 1} must be an object with a cluster id "
                "and a text",
                field=f"report.raw[{index}]",
            )
        raw.append({"clusterId": str(item.get("clusterId", "")), "text": item.get("text", "")})
    summaries = _list(data, "clusterSummaries")
    if not all(isinstance(s, dict) for s in summaries):
        raise InvalidArgument(
            "report.clusterSummaries must be objects", field="report.clusterSummaries"
        )
    safe = data.get("safeDecisions")
    if safe is not None and (
        not isinstance(safe, list) or not all(isinstance(d, dict) for d in safe)
    ):
        raise InvalidArgument(
            "report.safeDecisions must be a list of objects", field="report.safeDecisions"
        )
    buckets = data.get("rejectionBuckets")
    forecast = data.get("compressionForecast")
    manual = data.get("manualApplyState")
    return Report(
        version=config.ORGANIZE_REPORT_VERSION,
        clusterSummaries=summaries,
        reviewItems=[_review_item(item, i) for i, item in enumerate(_list(data, "reviewItems"))],
        raw=raw,
        safeDecisions=safe,
        rejectionBuckets=(
            _counts(buckets, "report.rejectionBuckets", REJECTION_BUCKETS)
            if buckets is not None
            else None
        ),
        compressionForecast=(
            _counts(forecast, "report.compressionForecast") if forecast is not None else None
        ),
        manualApplyState=_manual(manual) if manual is not None else None,
        outcome=_object(data.get("outcome"), "report.outcome"),
        consolidation=_object(data.get("consolidation"), "report.consolidation"),
    )


def view_report(data: dict[str, Any] | None, *, final_summary: str | None = None) -> ReportView:
    """Typed view of a stored report; older or broken ones become a legacy summary."""
    if not data:
        return ReportView(legacy=False, report=None, summary=final_summary or "")
    if data.get("version") == config.ORGANIZE_REPORT_VERSION:
        try:
            return ReportView(legacy=False, report=parse_report(data), summary=final_summary or "")
        except InvalidArgument as exc:
            return ReportView(legacy=True, report=None, summary=f"unreadable report: {exc}")
    return ReportView(legacy=True, report=None, summary=_legacy_summary(data, final_summary))


def run_view(run: OrganizeRun) -> dict[str, Any]:
    """A run row as front ends and runners see it: its report as a typed view (v4) or a
    read-only legacy summary, never the stored JSON as is."""
    out = run.to_dict()
    report = out.pop("report", None)
    out["report"] = view_report(report, final_summary=run.final_summary).to_dict()
    out["outcome"] = run_outcome(out)
    return out


def listed_run(run: OrganizeRun) -> dict[str, Any]:
    """A run row as a listing shows it: no report, its outcome as `run_outcome` says it."""
    out = {k: v for k, v in run.to_dict().items() if k != "report"}
    out["outcome"] = run_outcome(out)
    return out


def _legacy_summary(data: dict[str, Any], final_summary: str | None) -> str:
    """A readable line from a v3 (or unversioned) report: its own summary, else its keys."""
    for key in ("summary", "finalSummary", "final_summary"):
        if isinstance(data.get(key), str) and data[key].strip():
            return str(data[key]).strip()
    if final_summary:
        return final_summary
    version = data.get("version", "unversioned")
    parts = [f"{key}: {len(v)}" for key, v in data.items() if isinstance(v, list)]
    return f"legacy report (version {version})" + (f"; {', '.join(parts)}" if parts else "")

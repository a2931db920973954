"""Applying organizer decisions: scheduled runs at once, manual runs by a person's choice.

Everything goes through one `memory_apply_batch` with the organizer trigger, so the store
snapshots each memory before changing it and orders a merge group (upserts first; the group's
deletes are skipped if its upsert failed). `organize_apply` applies the decisions a person
selected from a stored report and writes the outcome back to the run record.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.requests import (
    BatchRequest,
    OrganizeApplyRequest,
    ReadRequest,
    RunUpdateRequest,
)
from liveagent_memory.domain.schema import EvidenceView, OrganizeRun, Shape
from liveagent_memory.organizer.decisions import SafeDecision, merge_provenance
from liveagent_memory.organizer.learning import learned_provenance
from liveagent_memory.organizer.review import (
    DecisionGroup,
    auto_safe,
    groups_of_keys,
    report_groups,
)
from liveagent_memory.organizer.run_record import LEARN_CODES, parse_report
from liveagent_memory.organizer.runs import update_run
from liveagent_memory.store import rules
from liveagent_memory.store.store import MemoryStore

__all__ = ["NothingToApply", "apply_decisions", "auto_safe", "organize_apply"]


class NothingToApply(MemoryDomainError):
    """The run has no decisions waiting for review (or they were all handled)."""

    code = "nothing_to_apply"


@dataclass
class ApplyOutcome:
    applied: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    applied_keys: list[str] = field(default_factory=list)
    failed_keys: list[str] = field(default_factory=list)
    review_items: list[dict[str, Any]] = field(default_factory=list)

    def fail(self, key: str, decision: SafeDecision, code: str, message: str) -> None:
        self.failed_keys.append(key)
        self.review_items.append(
            {
                "phase": "apply",
                "kind": "error",
                "severity": "error",
                "message": message,
                "code": code,
                "slug": decision.slug,
                "op": decision.op,
                **({"groupId": decision.group_id} if decision.group_id else {}),
                "decisionKey": key,
            }
        )


@dataclass
class ManualApplyResult(Shape):
    """What one `organize_apply` did to a manual run's review queue."""

    run_id: str
    status: str  # the queue's state now: partial, applied or rejected
    applied: list[str]  # decision keys applied by this call
    failed: list[str]  # decision keys that failed in this call
    rejected: list[str]  # decision keys rejected by this call
    final_count: int
    compression_ratio: float | None


def apply_decisions(
    store: MemoryStore,
    decisions: list[SafeDecision],
    *,
    run_id: str,
    keys: list[str] | None = None,
    actor: str = "tool",
) -> ApplyOutcome:
    """Apply decisions in one batch; `keys` are their report keys (parallel to `decisions`).

    `actor` sets the merged memory's review state (REFERENCE A7): "tool" keeps the target's
    (scheduled runs), "user" marks it reviewed (a person chose to apply it).
    """
    keys = keys or [d.key(i) for i, d in enumerate(decisions)]
    outcome = ApplyOutcome()
    if not decisions:
        return outcome
    request = BatchRequest.model_validate(
        {
            "items": [_batch_item(store, d) for d in decisions],
            "actor": actor,
            "trigger": config.ORGANIZE_TRIGGER,
            "conversation_id": run_id,
        }
    )
    try:
        batch = store.apply_batch(request)
    except MemoryDomainError as exc:
        for key, decision in zip(keys, decisions, strict=True):
            outcome.fail(key, decision, exc.code, exc.message)
        return outcome
    for item in batch.items:
        key, decision = keys[item.index], decisions[item.index]
        if item.status == "applied":
            outcome.applied += 1
            outcome.applied_keys.append(key)
            if decision.op == "delete":
                outcome.deleted += 1
            elif item.result is not None and item.result.created:
                outcome.created += 1
            else:
                outcome.updated += 1
        else:
            error = item.error or {}
            code = str(error.get("error") or item.status)
            outcome.fail(key, decision, code, str(error.get("message") or code))
    return outcome


def _batch_item(store: MemoryStore, decision: SafeDecision) -> dict[str, Any]:
    """A decision's batch item; a merge's write also carries its provenance, on top of the
    target's evidence as it is now (`merge_provenance`); a learned memory's, the episodes it
    came from (`learned_provenance`)."""
    item = decision.batch_item()
    if decision.op == "upsert" and decision.reason_code in LEARN_CODES:
        current = _evidence_now(store, decision) if decision.previous_body is not None else None
        item.update(learned_provenance(decision, current))
    elif decision.op == "upsert" and decision.group_id:
        item.update(merge_provenance(decision, _evidence_now(store, decision)))
    return item


def _learned_changed(store: MemoryStore, decision: SafeDecision) -> str | None:
    """Why a learned proposal (issue 18) may no longer be written: the memory it updates
    changed since the run, or a new one's slug was taken since (its text would be lost)."""
    if decision.reason_code not in LEARN_CODES or decision.op != "upsert":
        return None
    target = {"slug": decision.slug, "scope": decision.scope}
    if decision.scope == "project":
        target["workdir_hash"] = decision.workdir_hash
    try:
        now: str | None = store.read(ReadRequest.model_validate(target)).content
    except MemoryDomainError:
        now = None
    if now == decision.previous_body or (now or "").strip() == (decision.previous_body or ""):
        return None
    if decision.previous_body is None:
        return f"{decision.slug} was written since the run; run the consolidation again"
    return f"{decision.slug} changed since the run; run the consolidation again"


def _evidence_now(store: MemoryStore, decision: SafeDecision) -> EvidenceView | None:
    """The evidence of the memory `decision` writes, as it is now (None: it cannot be read;
    if it exists, the batch then reports why)."""
    target = {"slug": decision.slug, "scope": decision.scope}
    if decision.scope == "project":
        target["workdir_hash"] = decision.workdir_hash
    try:
        return store.read(ReadRequest.model_validate(target)).evidence
    except MemoryDomainError:
        return None


def organize_apply(store: MemoryStore, req: OrganizeApplyRequest) -> ManualApplyResult:
    """Apply or reject decisions of a manual run's review queue; record the outcome.

    Decisions are chosen as whole groups (organizer/review.py: a merge with its deletions is
    one): `keys` name groups by any of their parts' keys, `all_safe` takes every open group
    whose parts are all safe; with `reject`, the chosen groups (no keys: every open one, and
    the queue closes) are rejected instead. `edits` replace the text a merge writes (by its
    write's key); they pass the write's gates before anything is applied.
    """
    run_id = req.run_id
    run = store.organize_run_read(run_id)
    if (
        not run.report
        or not run.report.get("safeDecisions")
        or "manualApplyState" not in (run.report or {})
    ):
        raise NothingToApply(f"organizer run {run_id} has no decisions waiting for review")
    report = parse_report(run.report)
    assert report.safeDecisions is not None and report.manualApplyState is not None
    state = report.manualApplyState
    if state.status in ("applied", "rejected"):
        raise NothingToApply(f"organizer run {run_id} was already {state.status}")
    groups = report_groups(report)
    open_groups = [group for group in groups if group.is_open(state)]
    applied_keys, failed_keys = list(state.appliedDecisionKeys), list(state.failedDecisionKeys)
    rejected_keys = list(state.rejectedDecisionKeys)
    outcome, rejected_now = ApplyOutcome(), []
    edits = _edits(req, groups)
    if req.reject:
        chosen = open_groups if req.keys is None else _chosen(req, groups, open_groups)
        rejected_now = [k for group in chosen for k in group.keys if k not in applied_keys]
        rejected_keys += rejected_now
        failed_keys = [k for k in failed_keys if k not in rejected_now]
    else:
        if req.all_safe:
            chosen = [group for group in open_groups if group.safe]
        else:
            chosen = _chosen(req, groups, open_groups)
        _check_edits(edits, chosen)
        outcome = _apply_chosen(store, run_id, chosen, applied_keys, edits)
        applied_keys += outcome.applied_keys
        retried = set(outcome.applied_keys) | set(outcome.failed_keys)
        failed_keys = [k for k in failed_keys if k not in retried] + outcome.failed_keys
    status = _queue_status(
        [k for group in groups for k in group.keys],
        applied_keys,
        [*failed_keys, *rejected_keys],
        closing=req.reject and req.keys is None,
    )
    new_report = report.to_dict()
    new_report["reviewItems"] = [*new_report.get("reviewItems", []), *outcome.review_items]
    _record_edits(new_report, edits, outcome.applied_keys)
    new_report["manualApplyState"] = {
        "status": status,
        "appliedDecisionKeys": applied_keys,
        "failedDecisionKeys": failed_keys,
        "counts": {"applied": len(applied_keys), "failed": len(failed_keys)},
    }
    if rejected_keys:  # ours; LiveAgent's shape has none (run_record.ManualApplyState)
        new_report["manualApplyState"]["rejectedDecisionKeys"] = rejected_keys
        new_report["manualApplyState"]["counts"]["rejected"] = len(rejected_keys)
    if state.contradictions:  # ours: the contradictions' answers stay (contradictions.py)
        new_report["manualApplyState"]["contradictions"] = state.contradictions
    updated_run = update_run(store, run_after_apply(run, new_report, outcome))
    return ManualApplyResult(
        run_id=run_id,
        status=status,
        applied=outcome.applied_keys,
        failed=outcome.failed_keys,
        rejected=rejected_now,
        final_count=updated_run.final_count,
        compression_ratio=updated_run.compression_ratio,
    )


def _queue_status(
    all_keys: list[str], applied: list[str], handled: list[str], *, closing: bool
) -> str:
    """The queue's state after a call: rejected when a person closed it (or rejected every
    decision one by one), applied when every decision was handled, else partial."""
    if closing or (not applied and set(handled) >= set(all_keys)):
        return "rejected"
    return "applied" if set(applied) | set(handled) >= set(all_keys) else "partial"


def _chosen(
    req: OrganizeApplyRequest, groups: list[DecisionGroup], open_groups: list[DecisionGroup]
) -> list[DecisionGroup]:
    """The open groups `req.keys` name (by any part's key, or its number as `organize show`
    lists them); InvalidArgument for a key of no decision of the run, or when none is given."""
    all_keys = [key for group in groups for key in group.keys]
    keys = [_by_number(key, sorted(all_keys, key=_number)) for key in req.keys or []]
    unknown = sorted(set(keys) - set(all_keys))
    if unknown or not keys:
        numbers = f"0 to {len(all_keys) - 1}" if all_keys else "none"
        raise InvalidArgument(
            f"unknown decisions: {', '.join(unknown)} (this run's are numbered {numbers})"
            if unknown
            else "choose decision keys to apply, or all_safe",
            field="keys",
            candidates=[{"key": group.key} for group in open_groups][:20],
        )
    return groups_of_keys(open_groups, keys)


def _edits(req: OrganizeApplyRequest, groups: list[DecisionGroup]) -> dict[str, str]:
    """The edited merge texts by write key; InvalidArgument for a key that is not a write."""
    writes = {key for group in groups for key, d in group.parts if d.op == "upsert"}
    edits = dict(req.edits or {})
    wrong = sorted(set(edits) - writes)
    if wrong:
        raise InvalidArgument(
            f"edits name decisions that write no text: {', '.join(wrong)}",
            field="edits",
            candidates=[{"key": key} for key in sorted(writes)][:20],
        )
    return edits


def _check_edits(edits: dict[str, str], chosen: list[DecisionGroup]) -> None:
    """The write's own gates (size, secrets) on each edited text about to be applied, before
    anything is: a refused edit applies nothing and is stored nowhere."""
    for group in chosen:
        for key, decision in group.parts:
            if key in edits:
                rules.check_body_size(edits[key], slug=decision.slug)
                rules.refuse_secrets(decision.slug, edits[key], decision.description or "")


def _record_edits(report: dict[str, Any], edits: dict[str, str], applied: list[str]) -> None:
    """The report's decisions say which text was written: a person's edit where applied."""
    for index, decision in enumerate(report.get("safeDecisions") or []):
        key = SafeDecision.from_report(decision).key(index)
        if key in edits and key in applied:
            decision["body"] = edits[key]
            decision["editedByUser"] = True


def _number(key: str) -> int:
    """A decision key's number: its first part (`{i}:{op}:...`, SafeDecision.key)."""
    return int(key.split(":", 1)[0])


def _by_number(key: str, all_keys: list[str]) -> str:
    """The key of decision number `key` when it is one of the run's numbers, else `key`."""
    text = key.strip()
    # Only short ASCII digit strings: int() of thousands of digits raises ValueError.
    if text.isascii() and text.isdigit() and len(text) < 10 and int(text) < len(all_keys):
        return all_keys[int(text)]
    return key


def run_after_apply(
    run: OrganizeRun, report: dict[str, Any], outcome: ApplyOutcome
) -> RunUpdateRequest:
    """The run's row after a manual apply: its new report and counts grown by `outcome`."""
    created = run.created_count + outcome.created
    deleted = run.deleted_count + outcome.deleted
    final = max(0, run.input_count - deleted + created)
    return RunUpdateRequest(
        run_id=run.run_id,
        report=report,
        counts={
            "safe_applied": run.safe_applied + outcome.applied,
            "created_count": created,
            "updated_count": run.updated_count + outcome.updated,
            "deleted_count": deleted,
            "final_count": final,
        },
        compression_ratio=final / run.input_count if run.input_count else 1.0,
    )


def _apply_chosen(
    store: MemoryStore,
    run_id: str,
    chosen: list[DecisionGroup],
    already: list[str],
    edits: dict[str, str],
) -> ApplyOutcome:
    """Apply the parts of the chosen groups not applied yet (each group one batch group);
    a merge's deletes need its write chosen or already applied."""
    parts = [(k, d) for group in chosen for k, d in group.parts if k not in already]
    # A chosen group's write is applied already or now, with its deletes (one batch group).
    merged_groups = {d.group_id for group in chosen for _k, d in group.parts if d.op == "upsert"}
    ready: list[tuple[str, SafeDecision]] = []
    blocked = ApplyOutcome()
    for key, decision in parts:
        if decision.op == "delete" and decision.group_id and decision.group_id not in merged_groups:
            # Deleting a merge's source without its merged target would lose the text.
            blocked.fail(
                key,
                decision,
                "merge_target_not_applied",
                f"{decision.slug} is a source of a merge whose merged memory was not applied",
            )
            continue
        changed = _learned_changed(store, decision)
        if changed is not None:
            blocked.fail(key, decision, "memory_changed", changed)
            continue
        if key in edits:
            decision = replace(decision, body=edits[key])
        ready.append((key, decision))
    outcome = apply_decisions(
        store, [d for _k, d in ready], run_id=run_id, keys=[k for k, _d in ready], actor="user"
    )
    outcome.failed_keys = blocked.failed_keys + outcome.failed_keys
    outcome.review_items = blocked.review_items + outcome.review_items
    return outcome

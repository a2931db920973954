"""Applying organizer decisions: scheduled runs at once, manual runs by a person's choice.

Everything goes through one `memory_apply_batch` with the organizer trigger, so the store
snapshots each memory before changing it and orders a merge group (upserts first; the group's
deletes are skipped if its upsert failed). `organize_apply` applies the decisions a person
selected from a stored report and writes the outcome back to the run record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.requests import (
    BatchRequest,
    OrganizeApplyRequest,
    RunUpdateRequest,
)
from liveagent_memory.domain.risk import RiskLevel
from liveagent_memory.domain.schema import OrganizeRun, Shape
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.run_record import parse_report
from liveagent_memory.organizer.runs import update_run
from liveagent_memory.store.store import MemoryStore


class NothingToApply(MemoryDomainError):
    """The run has no decisions waiting for review (or they were all handled)."""

    code = "nothing_to_apply"


def auto_safe(decision: SafeDecision) -> bool:
    """REFERENCE A10: low risk and no acknowledgement needed, so "Apply all safe" takes it
    and the review queue starts it ticked. A stored decision without `requiresUserAck` needs
    one (SafeDecision.from_report reads it as True).
    """
    return decision.risk_level == RiskLevel.LOW and not decision.requires_user_ack


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
            "items": [d.batch_item() for d in decisions],
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


def organize_apply(store: MemoryStore, req: OrganizeApplyRequest) -> ManualApplyResult:
    """Apply (or reject) decisions of a manual run's review queue; record the outcome.

    The request chooses `keys`, every low-risk decision (`all_safe`), or rejects the whole
    queue (`reject`).
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
    decisions = [SafeDecision.from_report(d) for d in report.safeDecisions]
    all_keys = [d.key(i) for i, d in enumerate(decisions)]
    # Applied keys are done; failed ones may be chosen again (e.g. a merge's delete once its
    # merged memory has been applied).
    handled = set(state.appliedDecisionKeys)
    applied_keys, failed_keys = list(state.appliedDecisionKeys), list(state.failedDecisionKeys)
    outcome = ApplyOutcome()
    if req.reject:
        status = "rejected"
    else:
        chosen = _chosen_keys(req, decisions, all_keys, handled)
        outcome = _apply_chosen(store, run_id, decisions, all_keys, chosen, applied_keys)
        applied_keys += outcome.applied_keys
        retried = set(outcome.applied_keys) | set(outcome.failed_keys)
        failed_keys = [k for k in failed_keys if k not in retried] + outcome.failed_keys
        done = set(applied_keys) | set(failed_keys)
        status = "applied" if done >= set(all_keys) else "partial"
    new_report = report.to_dict()
    new_report["reviewItems"] = [*new_report.get("reviewItems", []), *outcome.review_items]
    new_report["manualApplyState"] = {
        "status": status,
        "appliedDecisionKeys": applied_keys,
        "failedDecisionKeys": failed_keys,
        "counts": {"applied": len(applied_keys), "failed": len(failed_keys)},
    }
    updated_run = update_run(store, _run_update(run, new_report, outcome))
    return ManualApplyResult(
        run_id=run_id,
        status=status,
        applied=outcome.applied_keys,
        failed=outcome.failed_keys,
        final_count=updated_run.final_count,
        compression_ratio=updated_run.compression_ratio,
    )


def _chosen_keys(
    req: OrganizeApplyRequest,
    decisions: list[SafeDecision],
    all_keys: list[str],
    handled: set[str],
) -> list[str]:
    """The decision keys the request picks (`all_safe`: every low-risk one) that are not
    applied yet; InvalidArgument for an unknown key or when none is chosen.

    A key may also be given as its decision's number (`0`, the key's first part, as
    `organize show` lists them).
    """
    keys = [_by_number(k, all_keys) for k in req.keys or []]
    if req.all_safe:
        chosen = [k for k, d in zip(all_keys, decisions, strict=True) if auto_safe(d)]
    else:
        unknown = sorted(set(keys) - set(all_keys))
        if unknown or not keys:
            numbers = f"0 to {len(all_keys) - 1}" if all_keys else "none"
            raise InvalidArgument(
                f"unknown decisions: {', '.join(unknown)} (this run's are numbered {numbers})"
                if unknown
                else "choose decision keys to apply, or all_safe",
                field="keys",
                candidates=[{"key": k} for k in all_keys if k not in handled][:20],
            )
        chosen = [k for k in all_keys if k in set(keys)]
    return [k for k in chosen if k not in handled]


def _by_number(key: str, all_keys: list[str]) -> str:
    """The key of decision number `key` when it is one of the run's numbers, else `key`."""
    text = key.strip()
    # Only short ASCII digit strings: int() of thousands of digits raises ValueError.
    if text.isascii() and text.isdigit() and len(text) < 10 and int(text) < len(all_keys):
        return all_keys[int(text)]
    return key


def _run_update(
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
    decisions: list[SafeDecision],
    all_keys: list[str],
    chosen: list[str],
    already: list[str],
) -> ApplyOutcome:
    """Apply the chosen keys; a merge's deletes need its upsert chosen or already applied."""
    by_key = dict(zip(all_keys, decisions, strict=True))
    merged_groups = {by_key[k].group_id for k in [*chosen, *already] if by_key[k].op == "upsert"}
    ready: list[str] = []
    blocked = ApplyOutcome()
    for key in chosen:
        decision = by_key[key]
        if decision.op == "delete" and decision.group_id and decision.group_id not in merged_groups:
            # Deleting a merge's source without its merged target would lose the text.
            blocked.fail(
                key,
                decision,
                "merge_target_not_applied",
                f"{decision.slug} is a source of a merge whose merged memory was not applied",
            )
            continue
        ready.append(key)
    outcome = apply_decisions(
        store, [by_key[k] for k in ready], run_id=run_id, keys=ready, actor="user"
    )
    outcome.failed_keys = blocked.failed_keys + outcome.failed_keys
    outcome.review_items = blocked.review_items + outcome.review_items
    return outcome

"""A manual run's review queue: its decisions as a person reviews them, and the state of each.

This module holds the rule (docs/ARCHITECTURE.md "Where each rule lives"): **a merge and its
deletions are one decision**. The report keeps the reference's flat list of safe decisions
(REFERENCE A10 `safeDecisions`, each with its own key), and a merge's write and the deletes of
its sources share a `groupId`; here they become one `DecisionGroup`, which is shown, applied and
rejected as a whole (`organizer/apply.py` applies a group as one store batch group: all or
nothing). A decision without a group id is a group of its own. Reports written before this rule
(or by LiveAgent) group the same way, so an old run's half-applied merge shows as one decision,
partly applied, that can be finished or rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from liveagent_memory.domain.risk import RiskLevel, higher_risk, parse_risk_level
from liveagent_memory.domain.schema import Shape
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.run_record import (
    LEARN_CODES,
    ManualApplyState,
    Report,
    view_report,
)
from liveagent_memory.store.store import MemoryStore

OPEN_STATES = ("pending", "partial")  # manualApplyState values a person can still act on


def auto_safe(decision: SafeDecision) -> bool:
    """REFERENCE A10: low risk and no acknowledgement needed, so "Apply all safe" takes it
    and the review queue starts it ticked. A stored decision without `requiresUserAck` needs
    one (SafeDecision.from_report reads it as True).
    """
    return decision.risk_level == RiskLevel.LOW and not decision.requires_user_ack


@dataclass(frozen=True)
class DecisionGroup:
    """One decision of the review queue: a merge (its write, then its sources' deletes), a
    delete or a rewrite. `parts` are (decision key, decision) in report order."""

    parts: tuple[tuple[str, SafeDecision], ...]

    @property
    def key(self) -> str:
        """How the group is named: its first part's key (a merge's write comes first)."""
        return self.parts[0][0]

    @property
    def keys(self) -> list[str]:
        return [key for key, _decision in self.parts]

    @property
    def main(self) -> SafeDecision:
        """The part that says what the group does: a merge's write, else the first part."""
        return next((d for _k, d in self.parts if d.op == "upsert"), self.parts[0][1])

    @property
    def kind(self) -> str:
        """merge | rewrite | delete | learn (what consolidation learned from episodes: its
        `reasonParams.kind` says pattern, anti-pattern or skill)."""
        main = self.main
        if main.reason_code in LEARN_CODES:
            return "learn"
        if main.op == "upsert":
            return "merge" if main.group_id else "rewrite"
        return "delete"

    @property
    def merged_slugs(self) -> list[str]:
        """A merge's sources (the memories its write takes in and its deletes remove)."""
        return [slug for slug in self.main.source_slugs if slug != self.main.slug]

    @property
    def safe(self) -> bool:
        """Every part is safe on its own (`auto_safe`): "Apply all safe" takes the group."""
        return all(auto_safe(decision) for _key, decision in self.parts)

    @property
    def risk_level(self) -> str:
        risk = RiskLevel.LOW
        for _key, decision in self.parts:
            risk = higher_risk(risk, parse_risk_level(decision.risk_level) or RiskLevel.MEDIUM)
        return risk.value

    @property
    def confidence(self) -> float | None:
        values = [d.confidence for _k, d in self.parts if isinstance(d.confidence, int | float)]
        return min(values) if values else None

    def state(self, manual: ManualApplyState) -> str:
        """applied | rejected | failed | partial (some parts applied: an old run's half merge)
        | pending, or the queue's own state once it closed with this group undecided."""
        keys = set(self.keys)
        applied = keys & set(manual.appliedDecisionKeys)
        if applied == keys:
            return "applied"
        if keys & set(manual.rejectedDecisionKeys):
            return "rejected"
        if manual.status not in OPEN_STATES:
            return manual.status
        if applied:
            return "partial"
        if keys & set(manual.failedDecisionKeys):
            return "failed"
        return "pending"

    def is_open(self, manual: ManualApplyState) -> bool:
        """A person may still apply or reject it."""
        return self.state(manual) in ("pending", "partial", "failed")


def decision_groups(decisions: Sequence[SafeDecision]) -> list[DecisionGroup]:
    """The report's decisions (in report order, keyed by position) as the queue's groups,
    in the order each group first appears."""
    members: dict[str, list[tuple[str, SafeDecision]]] = {}
    for index, decision in enumerate(decisions):
        group = (decision.group_id or "").strip() or f"decision:{index}"
        members.setdefault(group, []).append((decision.key(index), decision))
    return [DecisionGroup(tuple(parts)) for parts in members.values()]


def report_groups(report: Report) -> list[DecisionGroup]:
    """The groups of a parsed report's safe decisions (none for a report without any)."""
    return decision_groups([SafeDecision.from_report(d) for d in report.safeDecisions or []])


def groups_of_keys(groups: Sequence[DecisionGroup], keys: Sequence[str]) -> list[DecisionGroup]:
    """The groups that hold any of `keys` (a person chose a group by any of its parts' keys),
    in queue order."""
    wanted = set(keys)
    return [group for group in groups if wanted & set(group.keys)]


# --- what a front end without this module shows (the web panel: `organize_review_queue`) -----
@dataclass
class GroupView(Shape):
    """One decision of the queue as `DecisionGroup` says it: its key (what `organize_apply`
    takes), its parts' keys, what it does, its state, and its main part as the report has it."""

    key: str
    keys: list[str]
    kind: str  # merge | rewrite | delete | learn
    state: str  # DecisionGroup.state
    open: bool  # a person may still apply or reject it
    safe: bool
    risk_level: str
    confidence: float | None
    merged_slugs: list[str]
    main: dict[str, Any]  # SafeDecision.to_report (camelCase, as in the report)


@dataclass
class QueueView(Shape):
    """A run's review queue: its state (manualApplyState status; "none" without a report or
    queue) and its groups in queue order; a legacy report has no queue to act on."""

    run_id: str
    status: str
    legacy: bool
    groups: list[GroupView]


def run_queue(store: MemoryStore, run_id: str) -> QueueView:
    """The review queue of run `run_id`, grouped by the one rule above."""
    run = store.organize_run_read(run_id)
    view = view_report(run.report, final_summary=run.final_summary)
    if view.report is None:
        return QueueView(run_id=run_id, status="none", legacy=view.legacy, groups=[])
    manual = view.report.manualApplyState or ManualApplyState()
    groups = [
        GroupView(
            key=group.key,
            keys=group.keys,
            kind=group.kind,
            state=group.state(manual),
            open=view.report.manualApplyState is not None and group.is_open(manual),
            safe=group.safe,
            risk_level=group.risk_level,
            confidence=group.confidence,
            merged_slugs=group.merged_slugs,
            main=group.main.to_report(),
        )
        for group in report_groups(view.report)
    ]
    status = manual.status if view.report.manualApplyState is not None else "none"
    return QueueView(run_id=run_id, status=status, legacy=False, groups=groups)

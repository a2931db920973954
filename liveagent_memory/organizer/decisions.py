"""Organizer decisions: the shapes, the risk gate and turning plans into safe decisions.

REFERENCE A10. A plan (from the model or the offline planner) proposes decisions per cluster;
`build_decisions` recomputes the risk of each independently of the proposer (`derive_risk`),
asks the trigger × mode × risk × confidence matrix (`should_queue`) whether it may go to apply,
synthesizes merged bodies, and counts every rejection in its bucket. Plain Python, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.risk import RiskLevel, higher_risk, parse_risk_level
from liveagent_memory.domain.schema import Confidence, EvidenceView
from liveagent_memory.organizer.differences import Judgement, Verdict
from liveagent_memory.organizer.run_record import (
    NoteCode,
    ReasonCode,
    RejectionBucket,
    empty_buckets,
    rejection_buckets,
)
from liveagent_memory.store.merge import union_content

ACTIONS = ("keep", "merge_into", "delete", "mark_review", "rewrite_hint")
DEFAULT_CONFIDENCE = 0.8  # REFERENCE A10: a decision without confidence is judged as 0.8
SKILL_ADDITIONS = "## Also noted"  # where what a merged source adds goes in a skill (merged_text)
# One memory across scopes and projects: (scope, workdir_hash, slug).
EntryKey = tuple[str, str, str]
# Pairs of memories the duplicate check kept apart (a contradiction or different facts), and
# what it found: the gate never lets a merge of such a pair through (`build_decisions`).
KeptApart = Mapping[frozenset[EntryKey], Judgement]


@dataclass(frozen=True)
class OrganizerEntry:
    """One memory as the organizer sees it."""

    slug: str
    scope: str
    workdir_hash: str
    type: str
    description: str
    headline: str
    body: str
    unreviewed: bool
    confidence: str
    updated_at: int

    @property
    def reviewed(self) -> bool:
        return not self.unreviewed

    @property
    def identity(self) -> EntryKey:
        return (self.scope, self.workdir_hash, self.slug)


def organizer_entries(listing: Iterable[tuple[Any, str]]) -> list[OrganizerEntry]:
    """The organizer's view of `entries_with_content` rows: every memory but journal days."""
    return [
        OrganizerEntry(
            slug=entry.slug,
            scope=entry.scope,
            workdir_hash=entry.workdir_hash,
            type=entry.type,
            description=entry.description,
            headline=entry.headline,
            body=content,
            unreviewed=entry.unreviewed,
            confidence=entry.confidence,
            updated_at=entry.updated_at,
        )
        for entry, content in listing
        if entry.type != "daily"
    ]


@dataclass(frozen=True)
class Cluster:
    id: str
    entries: tuple[OrganizerEntry, ...]


@dataclass(frozen=True)
class PlanDecision:
    """One proposed decision (SubmitMemoryOrganizePlan item, normalized)."""

    action: str
    slug: str | None = None
    target_slug: str | None = None
    source_slugs: tuple[str, ...] = ()
    risk_level: str | None = None
    confidence: float | None = None
    reason: str = ""
    preserved_evidence: tuple[str, ...] = ()
    description_hint: str | None = None
    rewrite_goal: str | None = None
    # The kind of `reason` and its figures, so a front end can say it in any language
    # (organizer/run_record.py `ReasonCode`); a model's reason is its own words.
    reason_code: str = ReasonCode.MODEL
    reason_params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClusterPlan:
    cluster: Cluster
    decisions: tuple[PlanDecision, ...]
    summary: str = ""


@dataclass(frozen=True)
class SafeDecision:
    """A decision that passed the gate: one `memory_apply_batch` item plus its context."""

    op: str  # upsert | delete
    slug: str
    scope: str
    workdir_hash: str
    reason: str
    confidence: float | None
    risk_level: str
    requires_user_ack: bool
    source_slugs: tuple[str, ...]
    evidence_preserved: tuple[str, ...] = ()
    blocked_reasons: tuple[str, ...] = ()
    group_id: str | None = None
    memory_type: str | None = None
    description: str | None = None
    body: str | None = None
    previous_body: str | None = None  # the target's body before a merge (for diff previews)
    reason_code: str | None = None  # `ReasonCode` of `reason` (None: a report without one)
    reason_params: dict[str, Any] = field(default_factory=dict)

    def key(self, index: int) -> str:
        """REFERENCE A10 decision key: `{i}:{op}:{scope}:{hash}:{slug}`."""
        return f"{index}:{self.op}:{self.scope}:{self.workdir_hash}:{self.slug}"

    def to_report(self) -> dict[str, Any]:
        """The stored shape (the reference's camelCase field names)."""
        out: dict[str, Any] = {
            "op": self.op,
            "slug": self.slug,
            "scope": self.scope,
            "reason": self.reason,
            "confidence": self.confidence,
            "riskLevel": self.risk_level,
            "requiresUserAck": self.requires_user_ack,
            "sourceSlugs": list(self.source_slugs),
            "evidencePreserved": list(self.evidence_preserved),
            "blockedReasons": list(self.blocked_reasons),
        }
        optional = {
            "workdirHash": self.workdir_hash if self.scope == "project" else None,
            "groupId": self.group_id,
            "memoryType": self.memory_type,
            "description": self.description,
            "body": self.body,
            "previousBody": self.previous_body,
            "reasonCode": self.reason_code,
            "reasonParams": self.reason_params or None,
        }
        out.update({key: value for key, value in optional.items() if value is not None})
        return out

    @classmethod
    def from_report(cls, data: dict[str, Any]) -> SafeDecision:
        return cls(
            op=str(data["op"]),
            slug=str(data["slug"]),
            scope=str(data["scope"]),
            workdir_hash=str(data.get("workdirHash") or ""),
            reason=str(data.get("reason") or ""),
            confidence=data.get("confidence"),
            risk_level=str(data.get("riskLevel") or RiskLevel.MEDIUM),
            requires_user_ack=bool(data.get("requiresUserAck", True)),
            source_slugs=tuple(data.get("sourceSlugs") or ()),
            evidence_preserved=tuple(data.get("evidencePreserved") or ()),
            blocked_reasons=tuple(data.get("blockedReasons") or ()),
            group_id=data.get("groupId"),
            memory_type=data.get("memoryType"),
            description=data.get("description"),
            body=data.get("body"),
            previous_body=data.get("previousBody"),
            reason_code=data.get("reasonCode"),
            reason_params=dict(data.get("reasonParams") or {}),
        )

    def batch_item(self) -> dict[str, Any]:
        """The `memory_apply_batch` item for this decision."""
        item: dict[str, Any] = {"op": self.op, "slug": self.slug, "scope": self.scope}
        if self.scope == "project":
            item["workdir_hash"] = self.workdir_hash
        if self.group_id:
            item["group_id"] = self.group_id
        if self.op == "delete":
            item["reason"] = self.reason
        else:
            item.update(type=self.memory_type, description=self.description, body=self.body)
        return item


def derive_risk(
    *,
    action: str,
    llm_risk: str | None,
    confidence: float | None,
    target: OrganizerEntry,
    sources: Sequence[OrganizerEntry],
) -> tuple[RiskLevel, tuple[str, ...]]:
    """Risk of a decision, recomputed from the entries (REFERENCE A10 deriveRisk)."""
    reasons: list[str] = []
    risk = parse_risk_level(llm_risk) or RiskLevel.MEDIUM
    if confidence is None:
        risk = higher_risk(risk, RiskLevel.MEDIUM)
        reasons.append("missing_confidence")
    elif confidence < 0.7:
        risk = RiskLevel.HIGH
        reasons.append("low_confidence")
    elif confidence < 0.9:
        risk = higher_risk(risk, RiskLevel.MEDIUM)
    if any(entry.scope != target.scope for entry in sources):
        risk = RiskLevel.HIGH
        reasons.append("cross_scope")
    if any(entry.type != target.type for entry in sources):
        # A skill's text is a procedure in fixed sections: folding it into a note, or a note
        # into it, loses that shape, so such a merge always waits for a person.
        crosses_skill = any("skill" in (entry.type, target.type) for entry in sources)
        risk = RiskLevel.HIGH if crosses_skill else higher_risk(risk, RiskLevel.MEDIUM)
        reasons.append("cross_type")
    if target.reviewed or any(entry.reviewed for entry in sources):
        risk = higher_risk(risk, RiskLevel.MEDIUM)
        reasons.append("reviewed_entries")
    if action == "delete" and target.reviewed:
        risk = RiskLevel.HIGH
        reasons.append("delete_reviewed")
    return risk, tuple(dict.fromkeys(reasons))


def should_queue(
    *,
    trigger: str,
    mode: str,
    risk: str,
    confidence: float | None,
    action: str,
    reasons: Sequence[str],
) -> bool:
    """Whether a decision may go to apply (REFERENCE A10 shouldQueueDecision matrix)."""
    conf = DEFAULT_CONFIDENCE if confidence is None else confidence
    if trigger == "scheduled":
        return risk == RiskLevel.LOW and conf >= 0.8
    if risk == RiskLevel.LOW:
        return conf >= 0.6
    if risk == RiskLevel.MEDIUM:
        return mode != "conservative" and conf >= 0.8
    if (
        action == "delete"
        and mode != "conservative"
        and conf >= 0.85
        and "delete_reviewed" in reasons
        and "cross_scope" not in reasons
        and "cross_type" not in reasons
    ):
        return True
    if mode != "aggressive" or conf < 0.85:
        return False
    return action == "delete" or "delete_reviewed" in reasons or "cross_scope" in reasons


def merged_text(target: OrganizerEntry, sources: Sequence[OrganizerEntry]) -> str:
    """The text of a merge: the target's, then what each source says that it does not.

    It reads as a memory: the provenance (when, from what, why, how alike) goes to the merged
    memory's evidence and history when the merge is applied (`merge_provenance`), never into
    the text the agent reads. Into a skill, what a source adds goes inside a code fence under
    `## Also noted`: its own `## Steps` (or other section headings) would otherwise read as
    more sections of the target (store/skills.py).
    """
    others = [entry for entry in sources if entry.slug != target.slug]
    if target.type != "skill":
        return union_content(target.body, *(entry.body for entry in others))
    text = target.body.strip()
    for entry in others:
        added = union_content(text, entry.body)[len(text) :].strip()
        if added:
            heading = "" if SKILL_ADDITIONS in text else f"\n\n{SKILL_ADDITIONS}"
            text = f"{text}{heading}\n\n{_fenced(added)}"
    return text


def _fenced(text: str) -> str:
    """`text` verbatim inside a `~~~` fence longer than any run of `~` it holds."""
    longest = max((len(run) for run in re.findall(r"~+", text)), default=0)
    fence = "~" * max(3, longest + 1)
    return f"{fence}markdown\n{text}\n{fence}"


def merge_provenance(decision: SafeDecision, current: EvidenceView | None) -> dict[str, Any]:
    """The evidence and history note a merge's write carries (batch item fields).

    The target keeps its own evidence (confidence, quote, reasoning, aliases); `supersedes`
    names the memories merged into it, and the history entry's reason says what was merged,
    why, how alike and what evidence was kept. `current` is the target's evidence now (None:
    the target does not exist yet).
    """
    merged = [slug for slug in decision.source_slugs if slug != decision.slug]
    note = f"organizer merge of {', '.join(merged)} into {decision.slug}"
    if decision.reason:
        note += f": {decision.reason}"
    if decision.confidence is not None:
        note += f" (confidence {decision.confidence:.2f})"
    if decision.evidence_preserved:
        note += "; preserved evidence: " + "; ".join(decision.evidence_preserved)
    old = current or EvidenceView()
    supersedes = ", ".join(dict.fromkeys([*_items(old.supersedes), *merged]))
    fields = kept_evidence(old)
    fields.update(
        reason=_clip(note, config.MAX_REASON_CHARS),
        reasoning=old.reasoning or _clip(note, config.MAX_REASONING_CHARS),
        supersedes=_clip(supersedes, config.MAX_EVIDENCE_ITEM_CHARS),
    )
    return fields


def kept_evidence(old: EvidenceView) -> dict[str, Any]:
    """A memory's evidence as batch item fields, so a write of its new text keeps it (a write
    without evidence fields would leave the memory without any)."""
    fields: dict[str, Any] = {
        "confidence": old.confidence if old.confidence != Confidence.UNKNOWN else None,
        "source_quote": old.source_quote or None,
        "reasoning": old.reasoning or None,
        "aliases": list(old.aliases) or None,
        "conflicts_with": list(old.conflicts_with) or None,
        "supersedes": old.supersedes or None,
        "override_reject": old.override_reject or None,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def merge_group_id(cluster_id: str, target: str, slugs: Iterable[str]) -> str:
    return f"merge:{cluster_id}:{target}:{'+'.join(sorted(slugs))}"


@dataclass
class GateResult:
    propose_all: bool = False
    decisions: list[SafeDecision] = field(default_factory=list)
    review_skipped: int = 0
    merged_count: int = 0
    buckets: dict[str, int] = field(default_factory=empty_buckets)
    review_items: list[dict[str, Any]] = field(default_factory=list)

    def note(self, message: str, slug: str | None, *, code: str, params: dict[str, Any]) -> None:
        """A review item in English, with its `NoteCode` and figures for other languages."""
        item: dict[str, Any] = {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": message,
            "code": code,
            "params": params,
        }
        if slug:
            item["slug"] = slug
        self.review_items.append(item)

    def passes(
        self,
        *,
        trigger: str,
        mode: str,
        risk: str,
        confidence: float | None,
        action: str,
        reasons: Sequence[str],
    ) -> bool:
        """Ask the matrix (`propose_all` lets every decision through)."""
        return self.propose_all or should_queue(
            trigger=trigger,
            mode=mode,
            risk=risk,
            confidence=confidence,
            action=action,
            reasons=reasons,
        )

    def hold(self, reasons: Iterable[str], confidence: float | None) -> None:
        """Count a decision held back: skipped, and in the bucket of each kind of reason."""
        self.review_skipped += 1
        for bucket in rejection_buckets(reasons, confidence):
            self.buckets[bucket] += 1

    def admits(
        self,
        *,
        trigger: str,
        mode: str,
        risk: str,
        confidence: float | None,
        action: str,
        reasons: Sequence[str],
    ) -> bool:
        """Ask the matrix; a decision held back is counted (`hold`)."""
        if self.passes(
            trigger=trigger,
            mode=mode,
            risk=risk,
            confidence=confidence,
            action=action,
            reasons=reasons,
        ):
            return True
        self.hold(reasons, confidence)
        return False


def build_decisions(
    plans: Sequence[ClusterPlan],
    *,
    trigger: str,
    mode: str,
    propose_all: bool = False,
    kept_apart: KeptApart | None = None,
) -> GateResult:
    """Gate every proposed decision; what passes becomes a SafeDecision (REFERENCE A10).

    `propose_all` (the offline planner's runs, which are only ever proposals for a person)
    keeps every well-formed decision with its derived risk instead of holding back those the
    matrix would not let through; nothing of such a run is applied without a person.
    A merge of two memories in `kept_apart` is held back whatever the matrix says (issue 15).
    """
    out = GateResult(propose_all=propose_all)
    for plan in plans:
        by_slug = {entry.slug: entry for entry in plan.cluster.entries}
        for item in plan.decisions:
            if item.action == "keep":
                continue
            if item.action in ("mark_review", "rewrite_hint"):
                out.review_skipped += 1
                out.buckets[RejectionBucket.REVIEW_REQUIRED_BY_LLM] += 1
                subject = item.slug or item.target_slug or ", ".join(item.source_slugs)
                why = item.reason or item.rewrite_goal or "needs review"
                out.note(
                    f"{plan.cluster.id}: {item.action} {subject or '(unknown)'} - {why}",
                    item.slug or item.target_slug,
                    code=NoteCode.REVIEW_REQUESTED,
                    params={
                        "cluster": plan.cluster.id,
                        "action": item.action,
                        "subject": subject,
                        "why": item.reason or item.rewrite_goal or "",
                    },
                )
                continue
            if item.action == "delete":
                _gate_delete(out, plan, item, by_slug, trigger=trigger, mode=mode)
            elif item.action == "merge_into":
                _gate_merge(
                    out, plan, item, by_slug, trigger=trigger, mode=mode, kept_apart=kept_apart
                )
            else:
                out.review_skipped += 1
                out.buckets[RejectionBucket.UNSUPPORTED] += 1
    return out


def _gate_delete(
    out: GateResult,
    plan: ClusterPlan,
    item: PlanDecision,
    by_slug: dict[str, OrganizerEntry],
    *,
    trigger: str,
    mode: str,
) -> None:
    slug = item.slug or item.target_slug
    entry = by_slug.get(slug or "")
    if entry is None or entry.type == "daily":
        out.review_skipped += 1
        out.buckets[RejectionBucket.UNSUPPORTED] += 1
        return
    risk, reasons = derive_risk(
        action="delete",
        llm_risk=item.risk_level,
        confidence=item.confidence,
        target=entry,
        sources=[entry],
    )
    if not out.admits(
        trigger=trigger,
        mode=mode,
        risk=risk,
        confidence=item.confidence,
        action="delete",
        reasons=reasons,
    ):
        return
    out.decisions.append(
        SafeDecision(
            op="delete",
            slug=entry.slug,
            scope=entry.scope,
            workdir_hash=entry.workdir_hash,
            reason=item.reason or "memory organizer delete",
            reason_code=item.reason_code if item.reason else ReasonCode.ORGANIZER_DELETE,
            reason_params=item.reason_params,
            confidence=item.confidence,
            risk_level=risk,
            requires_user_ack=risk != RiskLevel.LOW or entry.reviewed,
            source_slugs=(entry.slug,),
            evidence_preserved=item.preserved_evidence,
            blocked_reasons=reasons,
        )
    )


def _gate_merge(
    out: GateResult,
    plan: ClusterPlan,
    item: PlanDecision,
    by_slug: dict[str, OrganizerEntry],
    *,
    trigger: str,
    mode: str,
    kept_apart: KeptApart | None = None,
) -> None:
    members = _merge_members(item, by_slug)
    if members is None:
        out.review_skipped += 1
        out.buckets[RejectionBucket.UNSUPPORTED] += 1
        return
    target, sources = members
    source_slugs = tuple(source.slug for source in sources)
    if kept_apart and _held_apart(out, plan, item, [target, *sources], kept_apart):
        return
    risk, reasons = derive_risk(
        action="merge",
        llm_risk=item.risk_level,
        confidence=item.confidence,
        target=target,
        sources=[target, *sources],
    )
    if not out.admits(
        trigger=trigger,
        mode=mode,
        risk=risk,
        confidence=item.confidence,
        action="merge",
        reasons=reasons,
    ):
        return
    body = merged_text(target, sources)
    if len(body.encode("utf-8")) > config.MAX_BODY_BYTES:
        out.review_skipped += 1
        out.buckets[RejectionBucket.MISSING_PAYLOAD] += 1
        out.note(
            f"{plan.cluster.id}: merge_into {target.slug} - merged body exceeds "
            f"{config.MAX_BODY_BYTES} bytes; needs a shorter manual rewrite",
            target.slug,
            code=NoteCode.MERGE_TOO_LONG,
            params={
                "cluster": plan.cluster.id,
                "target": target.slug,
                "bytes": config.MAX_BODY_BYTES,
            },
        )
        return
    group = merge_group_id(plan.cluster.id, target.slug, [target.slug, *source_slugs])
    deletes = [_merged_source(item, source, target, risk, group) for source in sources]
    held = [
        (delete, reasons)
        for delete, reasons in deletes
        if not out.passes(
            trigger=trigger,
            mode=mode,
            risk=delete.risk_level,
            confidence=item.confidence,
            action="delete",
            reasons=reasons,
        )
    ]
    if held:
        # docs/ARCHITECTURE.md "Where each rule lives" (organizer/review.py): a merge and its
        # deletions are one decision. Trigger: the gate holds back the delete of a source.
        # Outcome: the whole merge is held back; half of it would leave a merged memory beside
        # a memory it took in.
        _hold_merge(out, plan, item, target, held)
        return
    out.decisions.append(_merged_upsert(item, target, sources, body, risk, reasons, group))
    out.decisions.extend(delete for delete, _reasons in deletes)
    out.merged_count += len(deletes)


def _merge_members(
    item: PlanDecision, by_slug: dict[str, OrganizerEntry]
) -> tuple[OrganizerEntry, list[OrganizerEntry]] | None:
    """A merge's target and sources, each once; None when one is not in the cluster, there is
    no source, or one is a daily (a journal day is never merged)."""
    target_slug = item.target_slug or item.slug
    target = by_slug.get(target_slug or "")
    source_slugs = tuple(dict.fromkeys(s for s in item.source_slugs if s != target_slug))
    sources = [by_slug[s] for s in source_slugs if s in by_slug]
    if (
        target is None
        or target.type == "daily"
        or not source_slugs
        or len(sources) != len(source_slugs)
        or any(source.type == "daily" for source in sources)
    ):
        return None
    return target, sources


_KEPT_APART_WORDS = {Verdict.CONTRADICTION: "disagree", Verdict.DIFFERENT: "are different facts"}


def _held_apart(
    out: GateResult,
    plan: ClusterPlan,
    item: PlanDecision,
    members: list[OrganizerEntry],
    kept_apart: KeptApart,
) -> bool:
    """Hold back a merge of two memories the duplicate check kept apart (`members[0]` is the
    target); False when it merges none.

    docs/ARCHITECTURE.md "Where each rule lives" (decisions by difference). Trigger: a merge
    takes in two memories judged a contradiction or different facts. Outcome: held back whole,
    counted, and a note names the pair and what differs; a contradiction is a person's choice.
    """
    for first, second in combinations(members, 2):
        judgement = kept_apart.get(frozenset((first.identity, second.identity)))
        if judgement is None or judgement.verdict not in _KEPT_APART_WORDS:
            continue
        out.hold(("kept_apart",), item.confidence)
        target = members[0].slug
        out.note(
            f"{plan.cluster.id}: merge_into {target} held back: the duplicate check found that "
            f"{first.slug} and {second.slug} {_KEPT_APART_WORDS[judgement.verdict]} "
            f"({judgement.describe()})",
            target,
            code=NoteCode.MERGE_KEPT_APART,
            params={
                "cluster": plan.cluster.id,
                "target": target,
                "first": first.slug,
                "second": second.slug,
                "verdict": str(judgement.verdict),
                "differences": [d.to_dict() for d in judgement.differences],
            },
        )
        return True
    return False


def _hold_merge(
    out: GateResult,
    plan: ClusterPlan,
    item: PlanDecision,
    target: OrganizerEntry,
    held: list[tuple[SafeDecision, tuple[str, ...]]],
) -> None:
    """Count a merge held back whole because the gate holds back deleting some of its sources."""
    out.hold({reason for _delete, reasons in held for reason in reasons}, item.confidence)
    slugs = [delete.slug for delete, _reasons in held]
    out.note(
        f"{plan.cluster.id}: merge_into {target.slug} held back: deleting "
        f"{', '.join(slugs)} needs review",
        target.slug,
        code=NoteCode.MERGE_HELD_BACK,
        params={"cluster": plan.cluster.id, "target": target.slug, "slugs": slugs},
    )


def _merged_upsert(
    item: PlanDecision,
    target: OrganizerEntry,
    sources: list[OrganizerEntry],
    body: str,
    risk: RiskLevel,
    reasons: tuple[str, ...],
    group: str,
) -> SafeDecision:
    """A merge's write: `target` rewritten with the merged `body`."""
    crossed = "cross_type" in reasons or "cross_scope" in reasons
    return SafeDecision(
        op="upsert",
        slug=target.slug,
        scope=target.scope,
        workdir_hash=target.workdir_hash,
        reason=item.reason or "memory organizer update",
        reason_code=item.reason_code if item.reason else ReasonCode.ORGANIZER_UPDATE,
        reason_params=item.reason_params,
        confidence=item.confidence,
        risk_level=risk,
        requires_user_ack=risk != RiskLevel.LOW
        or target.reviewed
        or any(s.reviewed for s in sources)
        or crossed,
        source_slugs=(target.slug, *(s.slug for s in sources)),
        evidence_preserved=item.preserved_evidence,
        blocked_reasons=reasons,
        group_id=group,
        memory_type=target.type,
        description=(item.description_hint or target.description)[: config.MAX_DESCRIPTION_CHARS],
        body=body,
        previous_body=target.body,
    )


def _merged_source(
    item: PlanDecision,
    source: OrganizerEntry,
    target: OrganizerEntry,
    merge_risk: RiskLevel,
    group: str,
) -> tuple[SafeDecision, tuple[str, ...]]:
    """A merge's delete of one source with its own risk, and the reasons of that risk."""
    risk, reasons = derive_risk(
        action="delete",
        llm_risk=merge_risk,
        confidence=item.confidence,
        target=source,
        sources=[source, target],
    )
    delete = SafeDecision(
        op="delete",
        slug=source.slug,
        scope=source.scope,
        workdir_hash=source.workdir_hash,
        reason=f"merged into {target.slug}",
        reason_code=ReasonCode.MERGED_INTO,
        reason_params={"target": target.slug},
        confidence=item.confidence,
        risk_level=risk,
        requires_user_ack=risk != RiskLevel.LOW
        or source.reviewed
        or "cross_type" in reasons
        or "cross_scope" in reasons,
        source_slugs=(source.slug, target.slug),
        evidence_preserved=item.preserved_evidence,
        blocked_reasons=reasons,
        group_id=group,
    )
    return delete, reasons

"""Offline planner: duplicate memories proposed as merges, contradictions shown, with no model.

SPEC 4 offline mode. Within one (scope, project) - never across - memories are compared on
description + body:

- exact duplicates: equal after NFKC, casefold, and dropping whitespace, punctuation and symbols;
- the other candidate pairs come from organizer/candidates.py: alike in words (token overlap,
  weighted by rarity in the scope) or, with a `Meanings` source (the local model), close in
  meaning; each is judged by what differs (organizer/differences.py, issue 15).

Only duplicates are grouped; a contradiction (the same subject with another number, or a rule
and its negation) is never merged but returned beside the plans (`OfflineProposals`) for the run
report; different facts (another name, environment or subject) are left alone.
Groups are stars around the best keeper: every member is itself a duplicate of the target, so
a chain of pairwise-similar memories (A~B, B~C) never merges two that are unrelated (A, C).
Each group becomes one `merge_into` decision; the gate (`build_decisions`) judges it like any
model proposal. Plain Python, no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.risk import RiskLevel
from liveagent_memory.organizer.candidates import (
    Finding,
    Item,
    Meanings,
    Rarity,
    compare,
    findings,
    make_item,
)
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    OrganizerEntry,
    PlanDecision,
)
from liveagent_memory.organizer.differences import Judgement, Verdict
from liveagent_memory.organizer.run_record import NoteCode, ReasonCode

_CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}  # anything else ("unknown") ranks 0


@dataclass(frozen=True)
class Contradiction:
    """Two memories of one scope that say different things on one subject: shown, not merged."""

    first: OrganizerEntry
    second: OrganizerEntry
    judgement: Judgement

    def review_item(self) -> dict[str, Any]:
        """The run report's review item (run_record.py `NoteCode.CONTRADICTION`)."""
        first, second = self.first.slug, self.second.slug
        return {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": _clip(
                f"contradiction: {first} and {second} disagree ({self.judgement.describe()}); "
                "which one is current?",
                config.OFFLINE_REASON_MAX_CHARS,
            ),
            "code": NoteCode.CONTRADICTION,
            "slug": first,
            "params": {
                "first": first,
                "second": second,
                "differences": [d.to_dict() for d in self.judgement.differences],
            },
        }


@dataclass(frozen=True)
class OfflineProposals:
    """What the offline planner proposes: merges of duplicates, and contradictions to show;
    and every candidate pair it judged (for the model organizer's prompt)."""

    plans: list[ClusterPlan]
    contradictions: list[Contradiction]
    findings: list[Finding]


def keeper_rank(entry: OrganizerEntry) -> tuple[int, int, int, int, str]:
    """Sort key, best keeper first: reviewed, surer, newer, longer; then by slug."""
    return (
        0 if entry.reviewed else 1,
        -_CONFIDENCE_RANK.get(entry.confidence, 0),
        -entry.updated_at,
        -len(entry.body),
        entry.slug,
    )


def offline_plans(
    entries: Sequence[OrganizerEntry], meanings: Meanings | None = None
) -> list[ClusterPlan]:
    """Propose one merge per group of duplicate memories, per (scope, project)."""
    return offline_proposals(entries, meanings).plans


def offline_proposals(
    entries: Sequence[OrganizerEntry], meanings: Meanings | None = None
) -> OfflineProposals:
    """One merge per group of duplicate memories, and the contradicting pairs, per (scope,
    project); with `meanings`, pairs close in meaning are candidates too.

    Dailies are journals, not memories, and are never compared. The result is deterministic:
    the same entries in any order give the same plans in the same order.
    """
    partitions: dict[tuple[str, str], dict[str, OrganizerEntry]] = defaultdict(dict)
    for entry in sorted(entries, key=keeper_rank):
        if entry.type == "daily":
            continue
        # A slug appearing twice in one scope is not a state the store produces; keep the best.
        partitions[(entry.scope, entry.workdir_hash)].setdefault(entry.slug, entry)
    out = OfflineProposals([], [], [])
    for (scope, workdir_hash), by_slug in sorted(partitions.items()):
        prefix = f"offline:{scope}:{workdir_hash or 'global'}"
        groups = _groups(list(by_slug.values()), meanings, out)
        for number, (target, members) in enumerate(groups, start=1):
            out.plans.append(_plan(f"{prefix}:{number}", target, members))
    return out


_Member = tuple[Item, Finding]  # a group's member and how it compares with the target


def _groups(
    entries: list[OrganizerEntry], meanings: Meanings | None, out: OfflineProposals
) -> list[tuple[Item, list[_Member]]]:
    """Stars of duplicates around the best keeper, best keepers first (`entries` is ranked).

    The candidate pairs (organizer/candidates.py) are added to `out.findings`, the
    contradictions among them to `out.contradictions`; only duplicates are grouped.
    """
    # A memory with no letter or digit has nothing to compare.
    items = [item for item in map(make_item, entries) if item.key]
    # Exact copies form one unit (in rank order); only a unit's first item is compared with
    # other units, so a thousand identical memories cost one comparison, not a million.
    units: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        units.setdefault(item.key, []).append(index)
    heads = [items[members[0]] for members in units.values()]
    rarity = Rarity([head.tokens for head in heads])  # exact copies count once
    near: dict[str, dict[str, Finding]] = defaultdict(dict)  # duplicates
    joins: dict[str, dict[str, Finding]] = defaultdict(dict)  # and what may join through one
    for finding in findings(heads, rarity, meanings):
        out.findings.append(finding)
        first, second = finding.first, finding.second
        if finding.joins:
            joins[first.key][second.key] = joins[second.key][first.key] = finding
        if finding.duplicate:
            near[first.key][second.key] = near[second.key][first.key] = finding
        elif finding.contradiction and len(out.contradictions) < config.OFFLINE_MAX_CONTRADICTIONS:
            out.contradictions.append(Contradiction(first.entry, second.entry, finding.judgement))

    cap = config.OFFLINE_MAX_CLUSTER_ENTRIES - 1  # sources per group, beside the target
    taken: set[int] = set()
    groups: list[tuple[Item, list[_Member]]] = []
    for index, item in enumerate(items):  # ranked order: the first free keeper leads
        if index in taken:
            continue
        free: list[tuple[Finding, int]] = []
        for key, compared in _star(item.key, near, joins):
            # Within a unit the copies compare alike, so the first `cap` free ones (best
            # keepers) are all a star could take from it.
            found = 0
            for other in units[key]:
                if found == cap:
                    break
                if other != index and other not in taken:
                    free.append((compared or _copy(item, items[other]), other))
                    found += 1
        if not free:
            continue
        # Exact copies first, then the closest, then the better keepers.
        free.sort(key=lambda match: (not match[0].overlap.exact, -match[0].score, match[1]))
        chosen = free[:cap]
        taken.add(index)
        taken.update(other for _finding, other in chosen)
        groups.append((item, [(items[other], finding) for finding, other in chosen]))
    return groups


def _star(
    key: str, near: dict[str, dict[str, Finding]], joins: dict[str, dict[str, Finding]]
) -> list[tuple[str, Finding | None]]:
    """The units a star around `key` may take, with how each compares with it (None: its own
    copies): its duplicates, then their duplicates that are themselves near `key` (`joins`:
    three rewordings of one fact, one pair of them just under the bar)."""
    direct = near[key]
    through = {
        other: joins[key][other]
        for member in sorted(direct)
        for other in sorted(near[member])
        if other != key and other not in direct and other in joins[key]
    }
    return [(key, None), *sorted(direct.items()), *sorted(through.items())]


def _copy(item: Item, other: Item) -> Finding:
    """Two memories with the same text (after normalizing): duplicates, nothing to judge."""
    return Finding(item, other, Judgement(Verdict.DUPLICATE), compare(item, other))


def _plan(cluster_id: str, target: Item, members: list[_Member]) -> ClusterPlan:
    sources = [item.entry for item, _finding in members]
    exact = all(finding.overlap.exact for _item, finding in members)
    kind = "exact" if exact else "near"
    slug = target.entry.slug
    if exact:
        reason = (
            f"exact duplicates of {slug} (similarity 1.00: equal after normalizing case, "
            f"width, whitespace and punctuation): {', '.join(entry.slug for entry in sources)}"
        )
    else:
        details = "; ".join(f"{item.entry.slug} ({f.describe()})" for item, f in members)
        reason = f"near duplicates of {slug} (nothing material differs): {details}"
    crossed = [entry for entry in sources if entry.type != target.entry.type]
    if crossed:  # the gate raises the risk (cross_type); the reviewer should see why
        kinds = ", ".join(f"{entry.slug} is {entry.type}" for entry in crossed)
        reason += f"; types differ: {slug} is {target.entry.type}, {kinds}"
    evidence = tuple(
        _clip(f"{entry.slug}: {_gist(entry)}", config.OFFLINE_EVIDENCE_MAX_CHARS)
        for entry in sources[: config.OFFLINE_EVIDENCE_MAX_ITEMS]
    )
    decision = PlanDecision(
        action="merge_into",
        target_slug=slug,
        source_slugs=tuple(entry.slug for entry in sources),
        risk_level=RiskLevel.LOW if exact else RiskLevel.MEDIUM,
        confidence=min(finding.confidence for _item, finding in members),
        reason=_clip(reason, config.OFFLINE_REASON_MAX_CHARS),
        preserved_evidence=evidence,
        reason_code=ReasonCode.EXACT_DUPLICATES if exact else ReasonCode.NEAR_DUPLICATES,
        reason_params=_reason_params(target.entry, members, crossed),
    )
    summary = f"offline: {len(sources)} {kind} duplicate(s) of {slug} proposed for merging"
    return ClusterPlan(
        cluster=Cluster(id=cluster_id, entries=(target.entry, *sources)),
        decisions=(decision,),
        summary=_clip(summary, config.OFFLINE_SUMMARY_MAX_CHARS),
    )


def _reason_params(
    target: OrganizerEntry, members: list[_Member], crossed: list[OrganizerEntry]
) -> dict[str, Any]:
    """The figures of a duplicates reason (run_record.py `ReasonCode`), for other languages."""
    params: dict[str, Any] = {"target": target.slug}
    if all(finding.overlap.exact for _item, finding in members):
        params["slugs"] = [item.entry.slug for item, _finding in members]
    else:
        params["pairs"] = [_pair_params(item, finding) for item, finding in members]
    if crossed:
        params["targetType"] = target.type
        params["types"] = {entry.slug: entry.type for entry in crossed}
    return params


def _pair_params(item: Item, finding: Finding) -> dict[str, Any]:
    overlap = finding.overlap
    params: dict[str, Any] = {
        "slug": item.entry.slug,
        "exact": overlap.exact,
        "similarity": round(overlap.score, 2),
        "jaccard": round(overlap.jaccard, 2),
        "containment": round(overlap.containment, 2),
    }
    if finding.by_meaning and finding.meaning is not None:
        params["margin"] = round(finding.meaning.margin, 3)
        params["cosine"] = round(finding.meaning.cosine, 2)
        params["crossLingual"] = finding.meaning.cross_lingual
    return params


def _gist(entry: OrganizerEntry) -> str:
    """What a source says, in one line: its description, else headline, else body start."""
    for text in (entry.description, entry.headline, entry.body):
        line = " ".join(text.split())
        if line:
            return line
    return "(empty)"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."

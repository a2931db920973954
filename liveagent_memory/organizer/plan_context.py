"""What a model run's plan calls are told besides their memories, and what the check decides.

Issue 15: the model organizer gets the offline duplicate check's help. The check
(organizer/offline.py `offline_proposals`) runs once per model run over all its memories; then

- each cluster's plan call carries a compact inventory of the rest of the run's scope (slug,
  scope/type, review state, description; REFERENCE A10's global inventory) and what the check
  found among the cluster's memories: contradictions, look-alike pairs that are different
  facts, likely duplicates and exact copies (`findings_text`);
- the gate holds back a model's merge of a pair the check kept apart (`kept_apart`, handed to
  organizer/decisions.py `build_decisions`);
- each contradiction the model's plan left open goes into the run's report as a review item
  (`unresolved`).

Memory text stays fenced as the rest of the prompt is (prompts/shared.py NOT_INSTRUCTIONS):
inventory lines inside a `<memories>` block, and the words a finding quotes as JSON strings
with their angle brackets escaped, so a memory can never close a block. Memories holding a
secret are never indexed (store/documents.py), so none reaches the check or this text.
Plain Python, no I/O.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

from liveagent_memory.domain import config
from liveagent_memory.organizer.candidates import Finding, make_item
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    EntryKey,
    GateResult,
    KeptApart,
    OrganizerEntry,
)
from liveagent_memory.organizer.differences import Difference, Judgement, Verdict
from liveagent_memory.organizer.offline import Contradiction
from liveagent_memory.prompts import organizer as prompt
from liveagent_memory.prompts.shared import NOT_INSTRUCTIONS

_KEPT_APART = (Verdict.CONTRADICTION, Verdict.DIFFERENT)
# The order a cluster's findings are listed in: what must never be merged first, so a long
# list that is cut keeps them.
_ORDER = {Verdict.CONTRADICTION: 0, Verdict.DIFFERENT: 1, Verdict.DUPLICATE: 2}


# --- the scope inventory ------------------------------------------------------------------------
def inventory(
    entries: Sequence[OrganizerEntry], limit: int, *, leave_out: Iterable[EntryKey] = ()
) -> str:
    """One line per memory (slug, scope/type, review state, description) inside a fenced
    `<memories>` block of at most about `limit` characters; the memories `leave_out` names
    are not listed. "" when there is nothing to list."""
    left_out = set(leave_out)
    listed = [entry for entry in entries if entry.identity not in left_out]
    if not listed:
        return ""
    lines = [NOT_INSTRUCTIONS, "<memories>"]
    used = sum(len(line) for line in lines)
    for shown, entry in enumerate(listed):
        state = "reviewed" if entry.reviewed else "unreviewed"
        # One line each: a description with a line break could forge another entry.
        description = " ".join(entry.description.split())
        description = description[: config.ORGANIZE_INVENTORY_DESCRIPTION_CHARS]
        line = f"- {entry.slug} ({entry.scope}/{entry.type}, {state}) — {description}"
        if used + len(line) > limit:
            lines.append(f"- … {len(listed) - shown} more not shown")
            break
        lines.append(line)
        used += len(line) + 1
    lines.append("</memories>")
    return "\n".join(lines)


def scope_inventory(entries: Sequence[OrganizerEntry], cluster: Cluster) -> str:
    """The plan call's inventory: the run's memories but the cluster's own, those of the
    cluster's scopes and projects first (a cut list keeps the nearest), then by scope, project,
    type and slug (as REFERENCE A10 sorts it); "" for none."""
    own = {entry.identity for entry in cluster.entries}
    places = {(entry.scope, entry.workdir_hash) for entry in cluster.entries}
    ordered = sorted(
        entries,
        key=lambda e: (
            (e.scope, e.workdir_hash) not in places,
            e.scope,
            e.workdir_hash,
            e.type,
            e.slug,
        ),
    )
    listed = inventory(ordered, config.ORGANIZE_PLAN_INVENTORY_CHARS, leave_out=own)
    return f"{prompt.SCOPE_INVENTORY}\n{listed}" if listed else ""


# --- what the duplicate check found -------------------------------------------------------------
def by_cluster(clusters: Sequence[Cluster], found: Iterable[Finding]) -> dict[str, list[Finding]]:
    """The findings worth telling each cluster's plan call (duplicates, contradictions,
    different facts) whose two memories are both in it, by cluster id."""
    where = {entry.identity: cluster.id for cluster in clusters for entry in cluster.entries}
    out: dict[str, list[Finding]] = defaultdict(list)
    for finding in found:
        if not (finding.duplicate or finding.judgement.verdict in _KEPT_APART):
            continue  # alike in a few words only, and nothing differs: not worth a line
        first = where.get(finding.first.entry.identity)
        if first is not None and first == where.get(finding.second.entry.identity):
            out[first].append(finding)
    return dict(out)


def exact_copies(cluster: Cluster) -> list[list[str]]:
    """The cluster's memories with the same text (the check's own normalizing, `make_item`),
    by group of two or more slugs. The check compares one of a group with the others, so
    its findings never name the copies themselves."""
    groups: dict[str, list[str]] = defaultdict(list)
    for entry in cluster.entries:
        key = make_item(entry).key
        if key:  # no letter or digit: nothing to compare
            groups[key].append(entry.slug)
    return [slugs for slugs in groups.values() if len(slugs) > 1]


def findings_text(found: Sequence[Finding], copies: Sequence[Sequence[str]] = ()) -> str:
    """What the check found among one cluster's memories (its findings, then its exact
    copies), at most about `ORGANIZE_PLAN_FINDINGS_CHARS` long; "" when it found nothing."""
    ordered = sorted(found, key=lambda finding: _ORDER[finding.judgement.verdict])
    said = [_finding_line(finding) for finding in ordered]
    said += [prompt.CHECK_COPIES.format(slugs=" / ".join(slugs)) for slugs in copies]
    if not said:
        return ""
    lines = [prompt.DUPLICATE_CHECK, "<duplicate-check>"]
    used = sum(len(line) + 1 for line in lines)
    for shown, line in enumerate(said):
        if used + len(line) > config.ORGANIZE_PLAN_FINDINGS_CHARS:
            lines.append(prompt.CHECK_MORE.format(count=len(said) - shown))
            break
        lines.append(line)
        used += len(line) + 1
    lines.append("</duplicate-check>")
    return "\n".join(lines)


def _finding_line(finding: Finding) -> str:
    first, second = finding.first.entry.slug, finding.second.entry.slug
    verdict = finding.judgement.verdict
    if verdict == Verdict.DUPLICATE:
        return prompt.CHECK_DUPLICATE.format(first=first, second=second, how=finding.describe())
    differences = "; ".join(_difference(d, first, second) for d in finding.judgement.differences)
    contradiction = verdict == Verdict.CONTRADICTION
    template = prompt.CHECK_CONTRADICTION if contradiction else prompt.CHECK_DIFFERENT
    return template.format(first=first, second=second, differences=differences)


def _difference(difference: Difference, first: str, second: str) -> str:
    return prompt.CHECK_DIFFERENCE.format(
        kind=difference.kind,
        first=first,
        first_words=_quoted(difference.first),
        second=second,
        second_words=_quoted(difference.second),
    )


def _quoted(words: Sequence[str]) -> str:
    """Memory words as JSON strings, clipped, with `<` `>` escaped: data that cannot end
    the block it stands in."""
    if not words:
        return prompt.CHECK_NOTHING
    text = ", ".join(json.dumps(word, ensure_ascii=False) for word in words)
    if len(text) > config.ORGANIZE_FINDING_SIDE_CHARS:
        text = text[: config.ORGANIZE_FINDING_SIDE_CHARS - 1] + "…"
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


# --- what the check decides in a model run ------------------------------------------------------
def kept_apart(found: Iterable[Finding]) -> KeptApart:
    """The pairs the check judged a contradiction or different facts, for the gate."""
    out: dict[frozenset[EntryKey], Judgement] = {}
    for finding in found:
        if finding.judgement.verdict in _KEPT_APART:
            pair = frozenset((finding.first.entry.identity, finding.second.entry.identity))
            out[pair] = finding.judgement
    return out


def unresolved(
    contradictions: Iterable[Contradiction], plans: Sequence[ClusterPlan], gate: GateResult
) -> list[Contradiction]:
    """The contradictions the model's plans left open: shown to the person as review items.

    A plan resolved a pair when the gate let through a delete of one of the two (keep one),
    when it keeps both, or when it asked a person to look at either (mark_review,
    rewrite_hint: the gate already notes those). A merge of the two is no answer: the gate
    holds it back.
    """
    settled = {
        (decision.scope, decision.workdir_hash, decision.slug)
        for decision in gate.decisions
        if decision.op == "delete" and decision.group_id is None
    }
    kept: set[EntryKey] = set()
    for plan in plans:
        by_slug = {entry.slug: entry.identity for entry in plan.cluster.entries}
        for item in plan.decisions:
            named = [item.slug, item.target_slug, *item.source_slugs]
            keys = {by_slug[slug] for slug in named if slug in by_slug}
            if item.action == "keep":
                kept |= keys
            elif item.action in ("mark_review", "rewrite_hint"):
                settled |= keys
    return [
        c
        for c in contradictions
        if not {c.first.identity, c.second.identity} & settled
        and not {c.first.identity, c.second.identity} <= kept
    ]

"""The organizer's model protocol: SubmitMemoryTopicClusters and SubmitMemoryOrganizePlan.

REFERENCE A10: tool schemas, structural clusters, and the validation that turns the model's
arguments into clusters and plan decisions (invalid parts are dropped, never trusted).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import clean_payload
from liveagent_memory.domain.risk import RISK_LEVELS, parse_risk_level
from liveagent_memory.organizer.decisions import ACTIONS, Cluster, OrganizerEntry
from liveagent_memory.organizer.decisions import PlanDecision as Decision
from liveagent_memory.prompts import organizer as prompt
from liveagent_memory.store.rules import find_secret

HINTS = ("merge", "rewrite", "delete", "review", "keep")


def topic_tool_schema() -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": prompt.CLUSTER_TOOL,
            "description": "Submit topic clusters of the memories listed.",
            "parameters": {
                "type": "object",
                "properties": {
                    "topic_clusters": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "topic": {"type": "string", "maxLength": 120},
                                "slugs": {
                                    "type": "array",
                                    "items": {"type": "string"},
                                    "maxItems": config.ORGANIZE_TOPIC_CLUSTER_SIZE,
                                },
                                "suspected_duplicate": {"type": "boolean"},
                                "target_action_hint": {"type": "string", "enum": list(HINTS)},
                            },
                            "required": ["topic", "slugs"],
                        },
                    },
                    "target_total_after": {"type": "integer", "minimum": 0},
                },
                "required": ["topic_clusters"],
            },
        },
    }


def plan_tool_schema() -> dict[str, Any]:
    decision = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "slug": {"type": "string"},
            "target_slug": {"type": "string"},
            "source_slugs": {"type": "array", "items": {"type": "string"}, "maxItems": 12},
            "risk_level": {"type": "string", "enum": [level.value for level in RISK_LEVELS]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string", "maxLength": 1200},
            "preserved_evidence": {
                "type": "array",
                "items": {"type": "string", "maxLength": 400},
                "maxItems": 24,
            },
            "description_hint": {"type": "string", "maxLength": 160},
            "rewrite_goal": {"type": "string", "maxLength": 800},
        },
        "required": ["action"],
    }
    return {
        "type": "function",
        "function": {
            "name": prompt.PLAN_TOOL,
            "description": "Submit the tidy-up decisions for this cluster of memories.",
            "parameters": {
                "type": "object",
                "properties": {
                    "summary": {"type": "string", "maxLength": 600},
                    "compression": {
                        "type": "object",
                        "properties": {
                            "before": {"type": "integer"},
                            "after": {"type": "integer"},
                            "deletions": {"type": "integer"},
                        },
                    },
                    "decisions": {"type": "array", "items": decision},
                },
                "required": ["decisions"],
            },
        },
    }


def structural_clusters(entries: Sequence[OrganizerEntry]) -> list[Cluster]:
    """Group by scope, project and type, in chunks of 8 sorted by slug (REFERENCE A10)."""
    groups: dict[str, list[OrganizerEntry]] = {}
    for entry in entries:
        groups.setdefault(f"{entry.scope}:{entry.workdir_hash}:{entry.type}", []).append(entry)
    size = config.ORGANIZE_STRUCTURAL_CLUSTER_SIZE
    clusters: list[Cluster] = []
    for key, group in groups.items():
        ordered = sorted(group, key=lambda e: (e.slug, -e.updated_at))
        for start in range(0, len(ordered), size):
            clusters.append(
                Cluster(
                    id=f"{key}:{start // size + 1}", entries=tuple(ordered[start : start + size])
                )
            )
    return clusters


def _text(value: Any, limit: int) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def _strings(value: Any, *, limit: int, each: int) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    out = [v.strip()[:each] for v in value if isinstance(v, str) and v.strip()]
    return tuple(dict.fromkeys(out))[:limit]


def topic_clusters(args: Any, entries: Sequence[OrganizerEntry]) -> list[Cluster]:
    """Clusters from SubmitMemoryTopicClusters; leftovers go to structural clusters.

    A cluster keeps only known, not-yet-used slugs (at most 12) and needs at least 2.
    """
    by_slug = {entry.slug: entry for entry in entries}
    used: set[str] = set()
    clusters: list[Cluster] = []
    items = args.get("topic_clusters") if isinstance(args, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        slugs = [
            s
            for s in _strings(item.get("slugs"), limit=64, each=200)
            if s in by_slug and s not in used
        ][: config.ORGANIZE_TOPIC_CLUSTER_SIZE]
        if len(slugs) < 2:
            continue
        used.update(slugs)
        topic = _text(item.get("topic"), 120) or f"topic-{len(clusters) + 1}"
        name = re.sub(r"[^a-z0-9_-]+", "-", topic, flags=re.I).strip("-")[:48]
        cluster_id = f"topic:{name or len(clusters) + 1}"
        if any(c.id == cluster_id for c in clusters):  # two topics with the same name
            cluster_id = f"{cluster_id}-{len(clusters) + 1}"
        clusters.append(
            Cluster(
                id=cluster_id,
                entries=tuple(by_slug[s] for s in slugs),
            )
        )
    leftovers = [entry for entry in entries if entry.slug not in used]
    return clusters + structural_clusters(leftovers)


class PlanArgumentsError(ValueError):
    """The plan call's arguments are not a plan (no decisions list)."""


class SecretInArguments(PlanArgumentsError):
    """A model's answer holds what looks like a credential: it is discarded whole (issue 12),
    so none of its text (topics, reasons, evidence) reaches the run report."""

    code = "risk_hard_blocked"


def refuse_secrets(args: Any) -> None:
    """Raise SecretInArguments when any text of a tool call's arguments holds a secret."""
    found = find_secret(args)
    if found is not None:
        field, label = found
        raise SecretInArguments(
            f"the model's answer held what looks like a secret ({label}) in {field}; "
            "it was discarded"
        )


def plan_decisions(args: Any) -> tuple[tuple[Decision, ...], str]:
    """Normalize SubmitMemoryOrganizePlan arguments; unknown actions are dropped."""
    if not isinstance(args, dict) or not isinstance(args.get("decisions"), list):
        raise PlanArgumentsError("decisions must be a list")
    try:
        # Model output that reaches memory bodies, the audit log and the run report: the one
        # text rule (domain/inputs.py); a lone surrogate failed the whole run with
        # UnicodeEncodeError. A plan breaking it fails its cluster alone, like a bad shape.
        args = clean_payload(args)
    except InvalidArgument as exc:
        raise PlanArgumentsError(exc.message) from None
    out: list[Decision] = []
    for item in args["decisions"]:
        if not isinstance(item, dict) or item.get("action") not in ACTIONS:
            continue
        confidence = item.get("confidence")
        if isinstance(confidence, str):  # some models quote numbers: "0.9"
            try:
                confidence = float(confidence)
            except ValueError:
                confidence = None
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            confidence = None
        elif not 0 <= confidence <= 1:
            confidence = None
        risk = item.get("risk_level")
        out.append(
            Decision(
                action=str(item["action"]),
                slug=_text(item.get("slug"), 200) or None,
                target_slug=_text(item.get("target_slug"), 200) or None,
                source_slugs=_strings(item.get("source_slugs"), limit=12, each=200),
                risk_level=parse_risk_level(risk),
                confidence=float(confidence) if confidence is not None else None,
                reason=_text(item.get("reason"), 1200),
                preserved_evidence=_strings(item.get("preserved_evidence"), limit=24, each=400),
                description_hint=_text(item.get("description_hint"), 160) or None,
                rewrite_goal=_text(item.get("rewrite_goal"), 800) or None,
            )
        )
    return tuple(out), _text(args.get("summary"), 600)


def pattern_tool_schema() -> dict[str, Any]:
    """Issue 18: the words of a pattern learned from episodes (organizer/consolidate.py)."""
    text = {"type": "string", "minLength": 1}
    return {
        "type": "function",
        "function": {
            "name": prompt.PATTERN_TOOL,
            "description": "Submit the lesson these episodes share.",
            "parameters": {
                "type": "object",
                "properties": {
                    "description": {**text, "maxLength": config.MAX_DESCRIPTION_CHARS},
                    "pattern": {**text, "maxLength": 1200},
                    "conditions": {"type": "string", "maxLength": 400},
                },
                "required": ["description", "pattern"],
            },
        },
    }


def pattern_words(args: Any) -> dict[str, str]:
    """The pattern tool's arguments, checked: description and pattern are needed text
    (PlanArgumentsError when they are not); a secret in any of them is refused."""
    if not isinstance(args, dict):
        raise PlanArgumentsError("the pattern must be an object")
    refuse_secrets(args)
    words = {key: _text(args.get(key), 1200) for key in ("description", "pattern", "conditions")}
    missing = [key for key in ("description", "pattern") if not words[key].strip()]
    if missing:
        raise PlanArgumentsError(f"the pattern has no {' or '.join(missing)}")
    return words

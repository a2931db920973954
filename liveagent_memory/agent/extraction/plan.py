"""SubmitMemoryPlan: the tool schema, per-item validation with reject codes, batch mapping.

REFERENCE A9. Items are checked in the reference's order; the first failing check names the
reject code. Valid items become one `memory_apply_batch` payload; daily lines are joined into
its `daily_append`.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import clean_payload, clean_text
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType
from liveagent_memory.prompts import extraction as prompt

ACTIONS = ("write", "update", "accept", "delete", "append_daily")
# What the schema offers: accept is a person's act (issue 12), so the model is not invited to
# use it. An accept item that comes anyway is validated and sent like any other; the store
# refuses it for the extractor (action_not_allowed) and the run reports that.
OFFERED_ACTIONS = tuple(action for action in ACTIONS if action != "accept")
SCOPES = ("global", "project")
TYPES = tuple(t.value for t in MemoryType if t in WRITABLE_TYPES)  # SPEC 1.2, in enum order

# Reject codes (REFERENCE A9), in check order; plus three of ours: two for shapes the
# reference's schema enforced before validation (`too-many-items`, `invalid-type`), and
# `invalid-text`, checked first, for text the store must never receive (domain/inputs.py).
INVALID_TEXT = "invalid-text"
INVALID_ACTION = "invalid-action"
EMPTY_DAILY_BODY = "empty-daily-body"
BODY_TOO_LARGE = "body-too-large"
MISSING_SLUG = "missing-slug"
INVALID_SCOPE = "invalid-scope"
PROJECT_SCOPE_GATE = "project-scope-gate"
DUPLICATE_SLUG = "duplicate-slug-in-plan"
ALREADY_WRITTEN = "already-written-this-turn"
REJECTED_SLUG = "rejected-slug-no-override"
MISSING_TYPE = "missing-type-for-write"
INVALID_TYPE = "invalid-type"
MISSING_DESCRIPTION = "missing-description-for-write"
MISSING_BODY = "missing-body-for-write"
TOO_MANY_ITEMS = "too-many-items"


def plan_tool_schema() -> dict[str, Any]:
    """OpenAI-style function tool for SubmitMemoryPlan."""
    item = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(OFFERED_ACTIONS)},
            "slug": {"type": "string", "description": "Not used for append_daily."},
            "scope": {"type": "string", "enum": list(SCOPES)},
            "type": {"type": "string", "enum": list(TYPES)},
            "description": {"type": "string", "maxLength": config.MAX_DESCRIPTION_CHARS},
            "body": {"type": "string"},
            "mode": {"type": "string", "enum": ["merge", "replace"]},
            "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
            "source_quote": {"type": "string", "maxLength": config.PLAN_QUOTE_MAX_CHARS},
            "reasoning": {"type": "string"},
            "aliases": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": config.PLAN_ALIASES_MAX,
            },
            "supersedes": {"type": "string"},
            "conflicts_with": {"type": "array", "items": {"type": "string"}},
            "override_reject": {"type": "string"},
        },
        "required": ["action"],
    }
    return {
        "type": "function",
        "function": {
            "name": prompt.PLAN_TOOL,
            "description": prompt.PLAN_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["updated", "noop"]},
                    "note": {"type": "string", "maxLength": config.PLAN_NOTE_MAX_CHARS},
                    "items": {
                        "type": "array",
                        "items": item,
                        "maxItems": config.EXTRACTION_MAX_PLAN_ITEMS,
                    },
                },
                "required": ["status", "items"],
            },
        },
    }


class PlanShapeError(ValueError):
    """The arguments are not a plan at all (not an object, items not a list)."""


@dataclass(frozen=True)
class Rejection:
    index: int
    code: str
    slug: str | None
    message: str = ""  # what exactly was wrong, when the code alone does not say


@dataclass
class ValidatedPlan:
    status: str
    note: str
    items: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (plan index, item)
    daily: list[str] = field(default_factory=list)
    daily_indexes: list[int] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    proposed: int = 0

    def receipt(self) -> str:
        accepted = len(self.items) + len(self.daily_indexes)
        text = f"Plan received: {accepted} accepted, {len(self.rejections)} rejected"
        if self.rejections:
            text += " (" + ", ".join(f"index {r.index}: {r.code}" for r in self.rejections) + ")"
        return text


def _text(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    return value.strip() if isinstance(value, str) else ""


def _list(item: Mapping[str, Any], key: str, limit: int) -> list[str]:
    value = item.get(key)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()][:limit]


def _check(
    item: Any,
    *,
    workdir: str | None,
    seen: dict[str, set[str]],
    written: Set[str],
    rejected: Set[str],
) -> str | None:
    """The first reject code for one item, or None when it is valid."""
    if not isinstance(item, Mapping) or item.get("action") not in ACTIONS:
        return INVALID_ACTION
    action = str(item["action"])
    body = _text(item, "body")
    if action == "append_daily":
        if not body:
            return EMPTY_DAILY_BODY
        return BODY_TOO_LARGE if len(body.encode()) > config.MAX_BODY_BYTES else None
    if len(body.encode()) > config.MAX_BODY_BYTES:
        return BODY_TOO_LARGE
    slug = _text(item, "slug").lower()
    if len(slug) < config.PLAN_MIN_SLUG_CHARS:
        return MISSING_SLUG
    scope = _text(item, "scope")
    if (action in ("write", "accept", "delete") or scope) and scope not in SCOPES:
        return INVALID_SCOPE
    if scope == "project" and workdir is None and action != "delete":
        return PROJECT_SCOPE_GATE
    earlier = seen.setdefault(slug, set())
    if (
        "delete" in earlier
        or (action == "delete" and earlier)
        or (action in ("write", "update") and earlier & {"write", "update", "accept"})
        or (action == "accept" and "accept" in earlier)
    ):
        return DUPLICATE_SLUG
    if action in ("write", "update") and slug in written:
        return ALREADY_WRITTEN
    if action in ("write", "update") and slug in rejected and not _text(item, "override_reject"):
        return REJECTED_SLUG
    kind = _text(item, "type")
    if action == "write" and not kind:
        return MISSING_TYPE
    if kind and kind not in TYPES:
        return INVALID_TYPE
    if action == "write" and not _text(item, "description"):
        return MISSING_DESCRIPTION
    if action == "write" and not body:
        return MISSING_BODY
    earlier.add(action)
    return None


def validate_plan(
    arguments: Mapping[str, Any],
    *,
    workdir: str | None,
    written: Set[str] = frozenset(),
    rejected: Set[str] = frozenset(),
) -> ValidatedPlan:
    """Check every item; raise PlanShapeError only when the arguments are not a plan."""
    if not isinstance(arguments, Mapping):
        raise PlanShapeError("arguments must be an object")
    items = arguments.get("items", [])
    if items is None:
        items = []
    if not isinstance(items, list):
        raise PlanShapeError("items must be a list")
    status = arguments.get("status")
    status = status if status in ("updated", "noop") else ("updated" if items else "noop")
    raw_note = arguments.get("note")
    try:
        note = clean_text(raw_note, field="note") if isinstance(raw_note, str) else ""
    except InvalidArgument as exc:  # the note is shown and logged: a plan, but not a usable one
        raise PlanShapeError(exc.message) from None
    plan = ValidatedPlan(
        status=status, note=note[: config.PLAN_NOTE_MAX_CHARS], proposed=len(items)
    )
    seen: dict[str, set[str]] = {}
    for index, raw_item in enumerate(items):
        try:
            # Model output goes to files: the one text rule first, so a lone surrogate or a
            # NUL costs this item only, not the batch (the batch would refuse them all).
            item = clean_payload(raw_item, path=f"items.{index}")
        except InvalidArgument as exc:
            plan.rejections.append(Rejection(index, INVALID_TEXT, None, exc.message))
            continue
        slug = _text(item, "slug").lower() if isinstance(item, Mapping) else ""
        if index >= config.EXTRACTION_MAX_PLAN_ITEMS:
            plan.rejections.append(Rejection(index, TOO_MANY_ITEMS, slug or None))
            continue
        code = _check(item, workdir=workdir, seen=seen, written=written, rejected=rejected)
        if code is not None:
            plan.rejections.append(Rejection(index, code, slug or None))
        elif item["action"] == "append_daily":
            plan.daily.append(_text(item, "body"))
            plan.daily_indexes.append(index)
        else:
            plan.items.append((index, _batch_item(item)))
    return plan


def _batch_item(item: Mapping[str, Any]) -> dict[str, Any]:
    action = str(item["action"])
    out: dict[str, Any] = {"slug": _text(item, "slug").lower()}
    if _text(item, "scope"):
        out["scope"] = _text(item, "scope")
    if action == "delete":
        out["op"] = "delete"
        out["reason"] = _text(item, "reasoning") or "extractor: the user said this is wrong"
        return out
    if action == "accept":
        out["op"] = "accept"
        return out
    out["op"] = "upsert" if action == "write" else "update"
    if action == "update":
        out["mode"] = (
            _text(item, "mode") if _text(item, "mode") in ("merge", "replace") else "merge"
        )
    for key in ("type", "description", "body", "confidence", "reasoning", "supersedes"):
        if _text(item, key):
            out[key] = _text(item, key)
    if _text(item, "source_quote"):
        out["source_quote"] = _text(item, "source_quote")[: config.PLAN_QUOTE_MAX_CHARS]
    if _text(item, "override_reject"):
        out["override_reject"] = _text(item, "override_reject")
    aliases = _list(item, "aliases", config.PLAN_ALIASES_MAX)
    if aliases:
        out["aliases"] = aliases
    conflicts = _list(item, "conflicts_with", config.MAX_EVIDENCE_LIST_ITEMS)
    if conflicts:
        out["conflicts_with"] = conflicts
    return out


def batch_payload(
    plan: ValidatedPlan,
    *,
    workdir: str | None,
    conversation_id: str,
    model: str | None,
) -> dict[str, Any]:
    """The one `memory_apply_batch` payload for a validated plan."""
    payload: dict[str, Any] = {
        "items": [item for _, item in plan.items],
        "actor": "extractor",
        "conversation_id": conversation_id,
        "trigger": "post-turn",
    }
    if workdir:
        payload["workdir"] = workdir
    if model:
        payload["model"] = model
    if plan.daily:
        payload["daily_append"] = {"bullet": "\n".join(plan.daily)}
    return payload

"""Command payloads the memory pages build: a memory's address, the editor's values as a
write or an update, and the first failure of a batch result. Plain data, no widgets.
"""

from __future__ import annotations

from typing import Any

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import Row


def target(entry: Row) -> dict[str, Any]:
    """The command fields that address one memory."""
    out = {"slug": entry["slug"], "scope": entry["scope"]}
    if entry["scope"] == "project":
        out["workdir_hash"] = entry["workdir_hash"]
    return out


def batch_failure(result: dict[str, Any]) -> MemoryDomainError | None:
    """The first failed item of a memory_apply_batch result as an error, if any failed."""
    for item in result.get("items", []):
        if item.get("status") != "applied" and item.get("error"):
            error = item["error"]
            return MemoryDomainError(error.get("message", ""), code=error.get("error"))
    return None


def batch_target(entry: Row) -> dict[str, Any]:
    """The fields of a memory_apply_batch item that address one memory."""
    return {key: entry[key] for key in ("slug", "scope", "workdir_hash")}


def write_payload(values: dict[str, Any]) -> dict[str, Any]:
    """memory_write's payload for a new memory from the editor's values (by the user)."""
    payload = {key: values[key] for key in ("slug", "scope", "type", "description", "body")}
    payload["actor"] = "user"
    if values["scope"] == "project":
        payload["workdir"] = values["workdir"]
    evidence = ("confidence", "source_quote", "reasoning", "aliases")
    if any(values[key] for key in evidence):
        payload.update({key: values[key] or None for key in evidence})
    return payload


def update_payload(data: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """memory_update's payload from the editor's values over `data` (memory_read's result):
    only what changed, None when nothing did."""
    entry = data["entry"]
    old: dict[str, Any] = data.get("evidence") or {}
    changes: dict[str, Any] = {}
    if values["body"] != (data.get("content") or "").strip():
        changes["body"] = values["body"]
    if values["description"] != (entry.get("description") or ""):
        changes["description"] = values["description"]
    if values["type"] != entry["type"]:
        changes["type"] = values["type"]
    old_confidence = old.get("confidence") if old.get("confidence") != "unknown" else None
    before = (
        old_confidence,
        old.get("source_quote") or "",
        old.get("reasoning") or "",
        list(old.get("aliases") or []),
    )
    after = (
        values["confidence"],
        values["source_quote"],
        values["reasoning"],
        values["aliases"],
    )
    if before != after:
        # The evidence block is written whole, so the fields not edited here go along.
        changes.update(
            confidence=values["confidence"],
            source_quote=values["source_quote"] or None,
            reasoning=values["reasoning"] or None,
            aliases=values["aliases"] or None,
            conflicts_with=list(old.get("conflicts_with") or []) or None,
            supersedes=old.get("supersedes") or None,
            override_reject=old.get("override_reject") or None,
        )
    if not changes:
        return None
    return {**target(entry), "actor": "user", "mode": "replace", **changes}

"""Undoing one change of a memory: an accept, an edit, a restore (an undo too) or a delete.

docs/ARCHITECTURE.md "Where each rule lives": the undo rule. A change is named by the history
version its mutation result carried (`change`, "audit:ID"). Undo puts back the exact bytes
the change replaced (the audit entry's `previous`, or the trash copy of a delete), not a
document rendered again: an undone accept is the unreviewed file it was, byte for byte, and
an undone edit brings back the text before it. Undo refuses (`memory_changed`) when the
memory is no longer what the change left (edited on disk, changed by another writer, deleted
or brought back since, or already undone), so it never overwrites anything. The undo is
itself a change in the history: a `restore` (the audit log's ops are the reference's, REFERENCE
A4) whose detail names the change it undid (`undo_of`) and keeps the text it replaced, so it
can be restored, or undone in turn.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    InvalidArgument,
    MemoryChanged,
    VersionNotFound,
)
from liveagent_memory.domain.requests import UndoRequest
from liveagent_memory.domain.schema import Actor, AuditOp, MutationResult
from liveagent_memory.store import rules
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.db import json_object
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.evidence import DocumentError, parse_document
from liveagent_memory.store.history import MemoryKey, history_key, make_room, trash_versions
from liveagent_memory.store.mutation import mutation
from liveagent_memory.store.resolve import Resolved, check_quota
from liveagent_memory.store.writes import audit, normalize_actor, save_text

# Changes whose audit entry keeps the whole file they replaced (`previous`); an undo is a restore.
TEXT_OPS = frozenset({AuditOp.ACCEPT, AuditOp.UPDATE, AuditOp.RESTORE})


def undo(ctx: StoreContext, req: UndoRequest) -> MutationResult:
    """Put a memory back exactly as it was before the change `req.change`."""
    actor = normalize_actor(req.actor, default=Actor.USER)
    if actor is not Actor.USER:
        # Undo sets a memory's review state back to what it was; like accepting (issue 12),
        # that is a person's decision, never a model's.
        raise ActionNotAllowed(
            f"only a person can undo a change, not the {actor.value}", field="actor"
        )
    with mutation(ctx) as changes, ctx.index.write() as conn:
        key, resolved = history_key(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        scope, project, slug = key
        row = _change_row(ctx, conn, key, req.change)
        detail = json_object(row.detail_json)
        if row.op == AuditOp.DELETE:
            text = _deleted_copy(ctx, key, detail, resolved)
        elif row.op in TEXT_OPS:
            text = _replaced_text(key, detail, resolved)
        else:
            raise InvalidArgument(
                f"change {req.change} is a {row.op}; only an accept, an edit, a restore or a "
                "delete can be undone",
                field="change",
            )
        rules.refuse_secrets(slug, text)
        try:
            doc = parse_document(text)
        except DocumentError as exc:
            raise VersionNotFound(
                f"the text before change {req.change} cannot be read: {exc.reason}",
                field="change",
            ) from exc
        memory_type = rules.normalize_type(doc.meta.type or "reference").value
        if resolved is None:
            check_quota(ctx, conn, scope, project)
        target = make_room(ctx, conn, changes, key, resolved, memory_type)
        saved, _ = save_text(
            ctx, conn, changes, target, text, scope=scope, project=project, name=slug
        )
        undone = {
            "undo_of": req.change,
            "undone": row.op,
            "type": memory_type,
            "before_hash": sha256_hex(resolved.loaded.raw) if resolved else None,
            "after_hash": saved.sha256,
            "previous": resolved.loaded.text if resolved else None,
        }
        now = ctx.now_ms()
        change = audit(ctx, conn, AuditOp.RESTORE, key, actor=actor.value, ts=now, detail=undone)
    return MutationResult(
        slug=slug,
        scope=scope,
        workdir_hash=project,
        type=memory_type,
        created=resolved is None,
        updated=resolved is not None,
        unreviewed=doc.meta.unreviewed,
        risk_flag=doc.meta.risk_flag,
        path=saved.path,
        change=change,
    )


def _change_row(ctx: StoreContext, conn: sa.Connection, key: MemoryKey, change: str) -> Any:
    """The audit entry of `change` ("audit:ID") of the memory `key` (VersionNotFound if none)."""
    kind, _, ref = change.partition(":")
    row = ctx.index.audit_row(conn, int(ref)) if kind == "audit" and ref.isdigit() else None
    if row is None or (row.scope, row.workdir_hash, row.slug) != key:
        raise VersionNotFound(
            f"no change {change!r} for memory {key[2]!r} (see its history)", field="change"
        )
    return row


def _replaced_text(key: MemoryKey, detail: dict[str, Any], resolved: Resolved | None) -> str:
    """The file an accept, edit, restore or undo replaced, if the memory is still as it left it."""
    slug = key[2]
    if resolved is None:
        raise MemoryChanged(
            f"memory {slug!r} was deleted after that change; nothing was written",
            suggested_next_call={"action": "history", "slug": slug, "scope": key[0]},
        )
    now = sha256_hex(resolved.loaded.raw)
    if now != detail.get("after_hash"):
        why = (
            "that change was already undone"
            if now == detail.get("before_hash")
            else "it changed since (on disk or by another writer) and undo would overwrite that"
        )
        raise MemoryChanged(
            f"memory {slug!r} cannot be undone: {why}; nothing was written",
            suggested_next_call={"action": "history", "slug": slug, "scope": key[0]},
        )
    previous = detail.get("previous")
    if not isinstance(previous, str):
        raise VersionNotFound(f"that change of {slug!r} kept no earlier text", field="change")
    return previous


def _deleted_copy(
    ctx: StoreContext, key: MemoryKey, detail: dict[str, Any], resolved: Resolved | None
) -> str:
    """The trash copy a delete made, if the memory has not come back since."""
    slug = key[2]
    if resolved is not None:
        raise MemoryChanged(
            f"memory {slug!r} exists again; undoing its delete would overwrite it",
            suggested_next_call={"action": "history", "slug": slug, "scope": key[0]},
        )
    name = PurePosixPath(str(detail.get("trashPath") or "")).name
    copy = next((path for _, path, _ in trash_versions(ctx, *key) if path.name == name), None)
    if copy is None:
        raise VersionNotFound(f"the trash copy of {slug!r} is no longer there", field="change")
    try:
        raw = copy.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VersionNotFound(f"the trash copy of {slug!r} cannot be read: {exc}") from exc
    if detail.get("before_hash") not in (None, sha256_hex(raw)):
        raise MemoryChanged(
            f"the trash copy of {slug!r} changed since it was deleted; restore it from its "
            "history instead",
            suggested_next_call={"action": "history", "slug": slug, "scope": key[0]},
        )
    return text

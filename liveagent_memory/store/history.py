"""A memory's history and restoring a version of it (SPEC 1.9).

Versions come from three places: the audit log (an entry that kept the text it replaced),
the scope's .trash/ (deleted memories) and .organize-snapshots/ (copies taken before the
organizer changed a memory). Restoring makes a version the current file again; the version
it replaces is kept in the audit log, so nothing is lost.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.errors import ScopeAmbiguous, SlugNotFound, VersionNotFound
from liveagent_memory.domain.requests import HistoryRequest, RestoreRequest
from liveagent_memory.domain.schema import (
    Actor,
    AuditOp,
    HistoryEntry,
    HistoryResult,
    MutationResult,
    Scope,
    VersionParts,
)
from liveagent_memory.store import rules
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.db import json_object
from liveagent_memory.store.documents import load_file, sha256_hex
from liveagent_memory.store.evidence import (
    DocumentError,
    MemoryDocument,
    body_content,
    parse_document,
    read_evidence,
    render_document,
)
from liveagent_memory.store.files import list_folder
from liveagent_memory.store.mutation import Changes, mutation
from liveagent_memory.store.resolve import Resolved, check_quota, not_found, resolve
from liveagent_memory.store.writes import (
    audit,
    normalize_actor,
    refuse_foreign_file,
    save,
    source_block,
)

MemoryKey = tuple[str, str, str]  # (scope, project, slug)


def history(ctx: StoreContext, req: HistoryRequest) -> HistoryResult:
    """Versions of a memory: audit log entries, trash copies and organizer snapshots; with
    `with_text`, each version's text, which one is the current file, and the current text."""
    limit = req.limit or config.HISTORY_DEFAULT_LIMIT
    with ctx.index.read() as conn:
        key, resolved = history_key(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        rows = ctx.index.audit_rows(conn, *key, limit)
        entries = [_audit_entry(row) for row in rows]
        entries.extend(_file_versions(ctx, key))
        entries.sort(key=_history_order, reverse=True)
        entries = entries[:limit]
        current = resolved.loaded.text if resolved is not None else None
        if req.with_text:
            for entry in entries:
                entry.text = _text_if_kept(ctx, conn, key, entry, resolved)
                entry.current = entry.text is not None and entry.text == current
                entry.parts = version_parts(entry.text)
    scope, project, slug = key
    return HistoryResult(
        slug=slug,
        scope=scope,
        workdir_hash=project,
        exists=resolved is not None,
        entries=entries,
        current_text=current if req.with_text else None,
        current_parts=version_parts(current) if req.with_text else None,
    )


def version_parts(text: str | None) -> VersionParts | None:
    """What a person reads in a version's file (None: no text, or a file that cannot be
    parsed; the app then compares the raw texts)."""
    if text is None:
        return None
    try:
        doc = parse_document(text)
    except DocumentError:
        return None
    evidence = read_evidence(doc.body)
    return VersionParts(
        description=doc.meta.description,
        type=doc.meta.type,
        scope=doc.meta.scope,
        unreviewed=doc.meta.unreviewed,
        content=body_content(doc.body),
        confidence=evidence.confidence,
        source_quote=evidence.source_quote,
    )


def _audit_entry(row: sa.Row[Any]) -> HistoryEntry:
    """One audit log row as a history entry (restorable when it kept the text it replaced)."""
    detail = json_object(row.detail_json)
    return HistoryEntry(
        version=f"audit:{row.id}",
        ts=int(row.ts),
        source="audit",
        op=row.op,
        who=_who(row.actor, row.trigger),
        actor=row.actor,
        trigger=row.trigger,
        conversation_id=row.conversation_id,
        model=row.model,
        before_hash=detail.get("before_hash"),
        after_hash=detail.get("after_hash"),
        restorable=bool(detail.get("previous") or detail.get("previous_body")),
        reason=detail.get("reason"),
        undo_of=detail.get("undo_of"),
    )


def _text_if_kept(
    ctx: StoreContext,
    conn: sa.Connection,
    key: MemoryKey,
    entry: HistoryEntry,
    resolved: Resolved | None,
) -> str | None:
    """The text restoring `entry` would bring back (the one rule: _version_text), or None
    when that version kept none or is gone."""
    if not entry.restorable:
        return None
    try:
        return _version_text(ctx, conn, key, entry.version, resolved)
    except VersionNotFound:
        return None


def _file_versions(ctx: StoreContext, key: MemoryKey) -> list[HistoryEntry]:
    """The trash copies and organizer snapshots of a memory, as history entries."""
    entries: list[HistoryEntry] = []
    for kind, versions in (
        ("trash", trash_versions(ctx, *key)),
        ("snapshot", _snapshot_versions(ctx, *key)),
    ):
        for version, path, ts in versions:
            description = None
            with contextlib.suppress(OSError, DocumentError, UnicodeDecodeError):
                description = load_file(path).doc.meta.description
            entries.append(
                HistoryEntry(
                    version=version,
                    ts=ts,
                    source=kind,
                    op="delete" if kind == "trash" else "organize",
                    who="organizer" if kind == "snapshot" else "unknown",
                    restorable=True,
                    description=description,
                )
            )
    return entries


def restore(ctx: StoreContext, req: RestoreRequest) -> MutationResult:
    """Make an earlier version (from history) the current one. Nothing is lost: the
    version being replaced is itself kept in the audit log."""
    actor = normalize_actor(req.actor, default=Actor.USER)
    with mutation(ctx) as changes, ctx.index.write() as conn:
        key, resolved = history_key(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        scope, project, slug = key
        text = _version_text(ctx, conn, key, req.version, resolved)
        try:
            doc = parse_document(text)
        except DocumentError as exc:
            raise VersionNotFound(
                f"version {req.version} cannot be read: {exc.reason}", field="version"
            ) from exc
        memory_type = rules.normalize_type(doc.meta.type or "reference")
        if resolved is None:
            check_quota(ctx, conn, scope, project)
        now = ctx.now_ms()
        doc.meta.name, doc.meta.scope, doc.meta.type = slug, scope, memory_type.value
        doc.meta.updated_at = format_rfc3339(now)
        doc.meta.created_at = doc.meta.created_at or format_rfc3339(now)
        unreviewed = False if actor is Actor.USER else doc.meta.unreviewed
        doc.meta.source = source_block(
            doc.meta.source, actor=actor, unreviewed=unreviewed, risk_flag=doc.meta.risk_flag
        )
        rules.refuse_secrets(slug, text)  # the whole version: its source block too
        target = make_room(ctx, conn, changes, key, resolved, memory_type.value)
        row, _ = save(ctx, conn, changes, target, doc, scope=scope, project=project)
        detail = {
            "from": req.version,
            "type": memory_type.value,
            "before_hash": sha256_hex(resolved.loaded.raw) if resolved else None,
            "after_hash": row.sha256,
            "previous": resolved.loaded.text if resolved else None,
        }
        change = audit(ctx, conn, AuditOp.RESTORE, key, actor=actor.value, ts=now, detail=detail)
    return MutationResult(
        slug=slug,
        scope=scope,
        workdir_hash=project,
        type=memory_type.value,
        created=resolved is None,
        updated=resolved is not None,
        unreviewed=unreviewed,
        path=row.path,
        change=change,
    )


def make_room(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    key: MemoryKey,
    resolved: Resolved | None,
    memory_type: str,
) -> Path:
    """The file a version of memory `key` goes back to: its type's path. A file there that is
    not this memory is refused (never overwritten); the memory's file at another path (the
    version has another type) leaves the index and the disk."""
    scope, project, slug = key
    target = ctx.layout.path_for(scope, project, memory_type, slug)
    if resolved is None or resolved.path != target:
        refuse_foreign_file(ctx, target)
    if resolved is not None and resolved.path != target:
        ctx.index.remove(conn, resolved.entry.path)
        changes.files.remove(resolved.path, resolved.loaded.raw)
    return target


def history_key(
    ctx: StoreContext,
    conn: sa.Connection,
    slug_input: str,
    scope_input: str | None,
    workdir: str | None,
    workdir_hash_input: str | None,
) -> tuple[MemoryKey, Resolved | None]:
    """(scope, project, slug) of a memory that may exist or may only be in the trash."""
    try:
        resolved = resolve(ctx, conn, slug_input, scope_input, workdir, workdir_hash_input)
    except SlugNotFound:
        resolved = None
    if resolved is not None:
        e = resolved.entry
        return (e.scope, e.workdir_hash, e.slug), resolved
    slug = rules.normalize_slug(slug_input, action="history")
    scope = rules.normalize_scope_filter(scope_input)
    project = ctx.hash_of(workdir, workdir_hash_input) or ""
    keys = []
    if scope in (None, Scope.GLOBAL):
        keys.append(("global", ""))
    if scope in (None, Scope.PROJECT) and project:
        keys.append(("project", project))
    known = [k for k in keys if _has_past(ctx, conn, k[0], k[1], slug)]
    if not known:
        raise not_found(conn, slug)
    if len(known) > 1:
        raise ScopeAmbiguous(
            f"memory slug {slug!r} has history in more than one scope; pass scope",
            candidates=[{"slug": slug, "scope": s} for s, _ in known],
            field="scope",
        )
    return (known[0][0], known[0][1], slug), None


def _has_past(ctx: StoreContext, conn: sa.Connection, scope: str, project: str, slug: str) -> bool:
    if ctx.index.audit_rows(conn, scope, project, slug, 1):
        return True
    return bool(trash_versions(ctx, scope, project, slug))


def trash_versions(
    ctx: StoreContext, scope: str, project: str, slug: str
) -> list[tuple[str, Path, int]]:
    found = []
    pattern = re.compile(rf"^{re.escape(slug)}\.(\d+)(?:-\d+)?\.md$")
    for path in list_folder(ctx.layout.trash_dir(scope, project)):
        match = pattern.match(path.name)
        if match:
            found.append((f"trash:{path.name}", path, int(match.group(1))))
    return found


def _snapshot_versions(
    ctx: StoreContext, scope: str, project: str, slug: str
) -> list[tuple[str, Path, int]]:
    found = []
    pattern = re.compile(rf"^(\d+)\.{re.escape(slug)}\.md$")
    for path in list_folder(ctx.layout.snapshot_dir(scope, project)):
        match = pattern.match(path.name)
        if match:
            found.append((f"snapshot:{path.name}", path, int(match.group(1))))
    return found


def _version_text(
    ctx: StoreContext,
    conn: sa.Connection,
    key: MemoryKey,
    version: str,
    resolved: Resolved | None,
) -> str:
    """The text of one version of the memory `key` (VersionNotFound when there is none)."""
    scope, project, slug = key
    kind, _, ref = version.partition(":")
    if kind == "audit" and ref.isdigit():
        row = ctx.index.audit_row(conn, int(ref))
        if row is None or (row.scope, row.workdir_hash, row.slug) != key:
            raise VersionNotFound(f"no version {version} for memory {slug!r}", field="version")
        detail = json_object(row.detail_json)
        if isinstance(detail.get("previous"), str):
            return str(detail["previous"])
        if isinstance(detail.get("previous_body"), str) and resolved is not None:
            current = resolved.doc
            return render_document(MemoryDocument(current.meta, detail["previous_body"]))
        raise VersionNotFound(
            f"version {version} has no stored content to restore", field="version"
        )
    candidates = (
        trash_versions(ctx, scope, project, slug)
        if kind == "trash"
        else _snapshot_versions(ctx, scope, project, slug)
        if kind == "snapshot"
        else []
    )
    for name, path, _ in candidates:
        if name == version:
            try:
                return path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise VersionNotFound(
                    f"version {version} cannot be read: {exc}", field="version"
                ) from exc
    raise VersionNotFound(
        f"no version {version!r} for memory {slug!r} (see history)", field="version"
    )


def _history_order(entry: HistoryEntry) -> tuple[int, int, str]:
    """Newest first; two audit rows of the same millisecond by their row id, not as text
    ("audit:12" sorts before "audit:9" as a string)."""
    kind, _, ref = entry.version.partition(":")
    return (entry.ts, int(ref) if kind == "audit" and ref.isdigit() else -1, entry.version)


def _who(actor: str | None, trigger: str | None) -> str:
    """Who made a change, in SPEC 1.9's words."""
    if trigger == config.ORGANIZE_TRIGGER:
        return "organizer"
    if trigger == config.LOKI_IMPORT_TRIGGER:
        return "importer"
    return {"extractor": "extraction"}.get(actor or "", actor or "unknown")

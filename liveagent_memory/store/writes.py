"""Writing memories: create, update, delete (to the trash) and accept, plus what every
mutation of a memory file shares (saving and indexing a document, its `source:` block, the
audit log entry).

Each function runs inside a mutation (store/mutation.py) and an index write transaction the
caller opened, so a batch (store/batch.py) can run many in one transaction. Requests are
checked before anything is written: the actor, secrets in what they bring (SPEC 7), the
journal's names (REFERENCE A3: journals are appended, never written), the quota, and that a
file is never written through a symbolic link below the root (Layout.check_inside).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    DailyArchived,
    InvalidArgument,
    InvalidType,
    SkillInvalid,
    SlugExists,
    WorkdirRequired,
)
from liveagent_memory.domain.requests import (
    AcceptRequest,
    DeleteRequest,
    Provenance,
    SkillInput,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.risk import RiskClass, risk_flag_for
from liveagent_memory.domain.schema import (
    Actor,
    AuditOp,
    Evidence,
    MemoryEntry,
    MemoryType,
    MutationResult,
    Scope,
    UpdateMode,
)
from liveagent_memory.store import rules
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import LoadedFile, describe, sha256_hex
from liveagent_memory.store.evidence import (
    DocumentError,
    FrontMatter,
    MemoryDocument,
    apply_evidence,
    evidence_from_block,
    is_evidence_only,
    join_evidence,
    parse_document,
    render_document,
    split_evidence,
)
from liveagent_memory.store.files import FoundFile, ensure_private_dir
from liveagent_memory.store.markers import this_machine, write_workdir_marker
from liveagent_memory.store.merge import merge_bodies
from liveagent_memory.store.mutation import Changes
from liveagent_memory.store.project_keys import ProjectPlace
from liveagent_memory.store.resolve import Resolved, check_quota, resolve
from liveagent_memory.store.rows import IndexRow
from liveagent_memory.store.skills import merge_skills, parse_skill, render_skill, skill_from_input

ACTOR_ALIASES = {"extraction": "extractor", "organizer": "extractor", "person": "user"}


# --- what every mutation shares -----------------------------------------------------------------


def normalize_actor(raw: str | None, *, default: Actor = Actor.TOOL) -> Actor:
    """Who asks for a change (user, tool or extractor; old names accepted)."""
    value = (raw or "").strip().lower()
    if not value:
        return default
    value = ACTOR_ALIASES.get(value, value)
    if value == Actor.RECONCILE:
        raise InvalidArgument("actor 'reconcile' is reserved for the store itself", field="actor")
    try:
        return Actor(value)
    except ValueError:
        raise InvalidArgument(
            f"unknown actor {raw!r} (use user, tool or extractor)", field="actor"
        ) from None


def refuse_secret_input(req: Provenance, what: str) -> None:
    """SPEC 7: refuse a request whose provenance, reason, workdir or slug holds a secret.

    Body and description are scanned after evidence is applied (rules.refuse_secrets).
    """
    rules.refuse_secret_fields(req.model_dump(exclude={"body", "description"}), what=what)


def save(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    path: Path,
    doc: MemoryDocument,
    *,
    scope: str,
    project: str,
    archived: bool = False,
) -> tuple[IndexRow, bytes]:
    """Write a document atomically and index it exactly as reconcile would."""
    text = render_document(doc)
    name = doc.meta.name
    return save_text(
        ctx, conn, changes, path, text, scope=scope, project=project, name=name, archived=archived
    )


def save_text(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    path: Path,
    text: str,
    *,
    scope: str,
    project: str,
    name: str,
    archived: bool = False,
) -> tuple[IndexRow, bytes]:
    """Write a memory file's whole text as it is (undo puts back the exact bytes a change
    replaced) and index it exactly as reconcile would; `name` names it in errors."""
    try:
        loaded = LoadedFile(text.encode("utf-8"), parse_document(text))
    except (UnicodeEncodeError, DocumentError) as exc:
        # A value no request model should have let through: refuse it before any byte
        # reaches the disk, so the file never exists in a form the index cannot hold.
        reason = exc.reason if isinstance(exc, DocumentError) else "an invalid character"
        raise InvalidArgument(f"memory {name!r} cannot be stored: {reason}") from None
    data = loaded.raw
    if b"\x00" in data:  # a file with a NUL could not be read back (load_bytes)
        raise InvalidArgument(f"memory {name!r} cannot be stored: it holds a NUL")
    stat = changes.files.write(path, data)
    found = FoundFile(
        relpath=ctx.layout.relpath(path),
        abspath=str(path),
        scope=Scope(scope),
        workdir_hash=project,
        archived=archived,
        in_daily_folder=path.parent == ctx.layout.daily_dir or archived,
        mtime_ns=stat.st_mtime_ns,
        size=stat.st_size,
        ctime_ns=stat.st_ctime_ns,  # a batch's deferred write: stamped after its rename
    )
    row = describe(found, loaded)
    ctx.index.upsert(conn, row, fts=changes.fts)
    changes.scopes.add((scope, project))
    return row, data


def source_block(
    previous: dict[str, Any],
    *,
    actor: Actor,
    unreviewed: bool,
    conversation_id: str | None = None,
    trigger: str | None = None,
    model: str | None = None,
    risk_flag: str | None = None,
) -> dict[str, Any]:
    """The `source:` block after a mutation (REFERENCE normalize_source_json)."""
    source = dict(previous)
    source["trigger"] = actor.value
    source["unreviewed"] = unreviewed
    if conversation_id:
        source["conversationId"] = conversation_id
    if trigger:
        source["lifecycle"] = trigger
    if model:
        source["model"] = model
    if risk_flag:
        source["risk_flag"] = risk_flag
    else:
        source.pop("risk_flag", None)
    return source


def audit(
    ctx: StoreContext,
    conn: sa.Connection,
    op: AuditOp,
    key: tuple[str, str, str],
    *,
    actor: str,
    ts: int,
    detail: dict[str, Any],
    req: Provenance | None = None,
) -> str:
    """Log one mutation of memory `key` = (scope, project, slug) with who did it; returns
    the history version of the change ("audit:ID", which memory_undo takes)."""
    scope, project, slug = key
    audit_id = ctx.index.audit(
        conn,
        ts=ts,
        op=op.value,
        scope=scope,
        workdir_hash=project,
        slug=slug,
        actor=actor,
        conversation_id=req.conversation_id if req else None,
        trigger=req.trigger if req else None,
        model=req.model if req else None,
        detail=detail,
    )
    return f"audit:{audit_id}"


def refuse_foreign_file(ctx: StoreContext, target: Path) -> None:
    """Never overwrite a file the index does not describe (e.g. one that failed to parse)."""
    if target.exists():
        raise SlugExists(
            f"{ctx.layout.relpath(target)} already exists and is not this memory; "
            "fix or move that file first (see the problems list)",
        )


def _reason(text: str | None) -> dict[str, str]:
    """The audit detail's `reason` (a history entry shows it), when a caller said why."""
    reason = (text or "").strip()
    return {"reason": reason} if reason else {}


def snapshot(ctx: StoreContext, changes: Changes, resolved: Resolved, now: int) -> None:
    """Copy a memory aside before the organizer changes it (REFERENCE A1)."""
    folder = ctx.layout.snapshot_dir(resolved.entry.scope, resolved.entry.workdir_hash)
    changes.files.write(folder / f"{now}.{resolved.entry.slug}.md", resolved.loaded.raw)


# --- write --------------------------------------------------------------------------------------


def write(
    ctx: StoreContext, conn: sa.Connection, changes: Changes, req: WriteRequest
) -> MutationResult:
    """Create a memory (`slug_exists` if it is already there)."""
    actor = normalize_actor(req.actor)
    refuse_secret_input(req, "memory_write")
    slug = rules.normalize_slug(req.slug)
    rules.refuse_journal_name(slug)
    scope = rules.normalize_scope(req.scope)
    memory_type = rules.normalize_type(req.type)
    if req.skill is None and "body" not in req.model_fields_set:
        raise InvalidArgument("A new memory needs a text", field="body")
    text = _request_text(req.skill, req.body, memory_type) or ""
    if memory_type is MemoryType.SKILL:
        _check_skill(text, req.description)  # before the description rule: it may serve
    description = rules.normalize_description(req.description)
    body, confidence, downgraded = _prepare_body(text, req.evidence())
    rules.check_body_size(body, slug=slug)
    risk = rules.refuse_secrets(slug, body, description)
    place = _project_of(ctx, req, scope)
    project = place.key if place else ""
    existing = ctx.index.path_for_key(conn, scope.value, project, slug)
    path = ctx.layout.path_for(scope.value, project, memory_type.value, slug)
    if existing is not None or path.exists():
        raise SlugExists(
            f"memory {slug!r} already exists in the {scope.value} scope",
            suggested_next_call={"action": "update", "slug": slug, "scope": scope.value},
        )
    check_quota(ctx, conn, scope.value, project, changes.quota)
    now = ctx.now_ms()
    # Only a person writes a reviewed memory: what a model writes (extraction, or the chat's
    # MemoryManager tool) waits for review like a model's accept would (issue 12).
    unreviewed = actor is not Actor.USER or risk is RiskClass.SOFT
    risk_flag = risk_flag_for(risk)
    stamp = format_rfc3339(now)
    meta = FrontMatter(
        name=slug,
        description=description,
        type=memory_type.value,
        scope=scope.value,
        created_at=stamp,
        updated_at=stamp,
        source=source_block(
            {},
            actor=actor,
            unreviewed=unreviewed,
            conversation_id=req.conversation_id,
            trigger=req.trigger,
            model=req.model,
            risk_flag=risk_flag,
        ),
    )
    ctx.layout.check_inside(path)  # before the marker: nothing written through a link
    if place is not None:
        project_dir = ctx.layout.project_dir(project)
        ensure_private_dir(project_dir)
        write_workdir_marker(
            project_dir, place.workdir, now, project_id=place.project_id, machine=this_machine()
        )
    row, _ = save(
        ctx, conn, changes, path, MemoryDocument(meta, body), scope=scope.value, project=project
    )
    detail = {"type": memory_type.value, "after_hash": row.sha256, "path": row.path}
    detail.update(_reason(req.reason))
    key = (scope.value, project, slug)
    change = audit(ctx, conn, AuditOp.WRITE, key, actor=actor.value, ts=now, req=req, detail=detail)
    return MutationResult(
        slug=slug,
        scope=scope.value,
        workdir_hash=project,
        type=memory_type.value,
        created=True,
        unreviewed=unreviewed,
        risk_flag=risk_flag,
        applied_confidence=confidence,
        auto_downgraded=downgraded,
        path=row.path,
        change=change,
    )


def _project_of(ctx: StoreContext, req: WriteRequest, scope: Scope) -> ProjectPlace | None:
    """The project folder of a new memory (store/project_keys.py); None in the global scope."""
    if scope is not Scope.PROJECT:
        return None
    if not req.workdir or not req.workdir.strip():
        raise WorkdirRequired("project memory requires a workdir", field="workdir")
    return ctx.place_of(req.workdir)


def _request_text(
    skill: SkillInput | None, body: str | None, memory_type: MemoryType
) -> str | None:
    """The text a write or update brings: its body, or its `skill` sections rendered.

    A `skill` object needs type skill and leaves no room for body text (an inline evidence
    block in `body` is kept); anything else is an InvalidArgument before anything is written.
    """
    if skill is None:
        return body
    if memory_type is not MemoryType.SKILL:
        raise InvalidArgument(
            f"a skill object is only for type skill, not {memory_type.value!r}; "
            "send the text as body instead",
            field="skill",
        )
    block, content = split_evidence(body or "")
    if content.strip():
        raise InvalidArgument("give either a skill object or a body, not both", field="body")
    return join_evidence(block, render_skill(skill_from_input(skill)))


def _check_skill(text: str, description: str | None) -> None:
    """SPEC 1.2: a skill written through a command needs a step and a "when to use" (its
    section, or else the description). Hand-edited files are never checked (reconcile)."""
    missing = parse_skill(split_evidence(text)[1]).missing(description or "")
    if not missing:
        return
    needs = {
        "when_to_use": 'a "## When to use" section (or a description saying when to use it)',
        "steps": 'at least one step under "## Steps" (1., 2., ...)',
    }
    raise SkillInvalid(
        "a skill needs " + " and ".join(needs[name] for name in missing), field=missing[0]
    )


def _prepare_body(body: str, evidence: Evidence | None) -> tuple[str, str | None, bool | None]:
    """Apply structured (or inline) evidence to a new body under the confidence contract."""
    block, content = split_evidence(body)
    if evidence is None and block is not None and block.strip():
        evidence = evidence_from_block(block)
    if evidence is None:
        return body.strip(), None, None
    new_body, confidence, downgraded = apply_evidence(content, evidence, previous_body=None)
    return new_body, confidence.value, downgraded


# --- update -------------------------------------------------------------------------------------


def update(
    ctx: StoreContext, conn: sa.Connection, changes: Changes, req: UpdateRequest
) -> MutationResult:
    """Change an existing memory: body (replace or merge), description, type, evidence."""
    actor = normalize_actor(req.actor)
    refuse_secret_input(req, "memory_update")
    default_mode = UpdateMode.MERGE if actor is Actor.EXTRACTOR else UpdateMode.REPLACE
    mode = rules.normalize_mode(req.mode, default_mode, slug=req.slug)
    resolved = resolve(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
    entry, doc = resolved.entry, resolved.doc
    if entry.type == MemoryType.DAILY:
        raise InvalidType("daily journals are appended, not updated", field="slug")
    memory_type = rules.normalize_type(req.type) if req.type is not None else MemoryType(entry.type)
    description = (
        rules.normalize_description(req.description)
        if req.description is not None
        else doc.meta.description
    )
    current = doc.body
    body, evidence, evidence_only = _updated_body(req, entry, current, memory_type, mode)
    if memory_type is MemoryType.SKILL and not evidence_only:
        _check_skill(body, description)
    confidence: str | None = None
    downgraded: bool | None = None
    if evidence is not None:
        body, applied, downgraded = apply_evidence(body, evidence, previous_body=current)
        confidence = applied.value
    rules.check_body_size(body, slug=entry.slug)
    risk = rules.refuse_secrets(entry.slug, body, description)
    unreviewed = _review_state(actor, entry, evidence_only=evidence_only, risk=risk)
    risk_flag = risk_flag_for(risk)
    now = ctx.now_ms()
    if req.trigger == config.ORGANIZE_TRIGGER:
        snapshot(ctx, changes, resolved, now)
    meta = doc.meta
    meta.type = memory_type.value
    meta.description = description
    meta.updated_at = format_rfc3339(now)
    meta.source = source_block(
        meta.source,
        actor=actor,
        unreviewed=unreviewed,
        conversation_id=req.conversation_id,
        trigger=req.trigger,
        model=req.model,
        risk_flag=risk_flag,
    )
    doc.body = body
    row = _save_in_place(ctx, conn, changes, resolved, memory_type)
    detail = {
        "type": memory_type.value,
        "mode": mode.value,
        "before_hash": sha256_hex(resolved.loaded.raw),
        "after_hash": row.sha256,
        "previous": resolved.loaded.text,
        "path": row.path,
        **_reason(req.reason),
    }
    key = (entry.scope, entry.workdir_hash, entry.slug)
    change = audit(
        ctx, conn, AuditOp.UPDATE, key, actor=actor.value, ts=now, req=req, detail=detail
    )
    return MutationResult(
        slug=entry.slug,
        scope=entry.scope,
        workdir_hash=entry.workdir_hash,
        type=memory_type.value,
        updated=True,
        unreviewed=unreviewed,
        risk_flag=risk_flag,
        applied_confidence=confidence,
        auto_downgraded=downgraded,
        path=row.path,
        change=change,
    )


def _updated_body(
    req: UpdateRequest,
    entry: MemoryEntry,
    current: str,
    memory_type: MemoryType,
    mode: UpdateMode,
) -> tuple[str, Evidence | None, bool]:
    """(the new body before evidence is applied, the evidence, whether only evidence changes)."""
    evidence = req.evidence()
    text = _request_text(req.skill, req.body, memory_type)
    evidence_only = (text is None or is_evidence_only(text)) and (
        req.skill is None and req.description is None and req.type is None
    )
    if text is None:
        return current, evidence, evidence_only
    block, content = split_evidence(text)
    if evidence is None and block is not None and block.strip():
        evidence = evidence_from_block(block)
    if req.skill is not None:
        body = join_evidence(split_evidence(current)[0], content)  # sections replace
    elif not content.strip():
        body = current  # evidence-only: the content stays (SPEC 1.4)
    elif mode is UpdateMode.MERGE and memory_type == entry.type == MemoryType.SKILL:
        # A skill merges section by section (store/skills.py), so added steps or
        # pitfalls land in their sections instead of after the last one.
        old_block, old_content = split_evidence(current)
        merged = merge_skills(parse_skill(old_content), parse_skill(content))
        body = join_evidence(old_block, render_skill(merged))
    elif mode is UpdateMode.MERGE:
        body = merge_bodies(current, content)
    else:
        body = join_evidence(split_evidence(current)[0], content)
    return body, evidence, evidence_only


def _review_state(
    actor: Actor, entry: MemoryEntry, *, evidence_only: bool, risk: RiskClass | None
) -> bool:
    """Whether an updated memory is unreviewed (REFERENCE A7, made stricter for issue 12).

    A person's update is reviewed; a model's (extractor or tool) leaves a memory unreviewed
    once it changes what the memory says, or a reviewed memory could be rewritten by a prompt
    injection and stay reviewed. An evidence-only update keeps the state it had; a soft risk
    always needs review.
    """
    if actor is Actor.USER:
        unreviewed = False
    else:
        unreviewed = entry.unreviewed if evidence_only else True
    return unreviewed or risk is RiskClass.SOFT


def _save_in_place(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    resolved: Resolved,
    memory_type: MemoryType,
) -> IndexRow:
    """Save an updated document at its type's path; a type change moves the file."""
    entry = resolved.entry
    target = ctx.layout.path_for(entry.scope, entry.workdir_hash, memory_type.value, entry.slug)
    if target != resolved.path:
        refuse_foreign_file(ctx, target)
        ctx.index.remove(conn, entry.path, fts=changes.fts)
    row, _ = save(
        ctx, conn, changes, target, resolved.doc, scope=entry.scope, project=entry.workdir_hash
    )
    if target != resolved.path:
        changes.files.remove(resolved.path, resolved.loaded.raw)
    return row


# --- delete and accept --------------------------------------------------------------------------


def delete(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    req: DeleteRequest,
    *,
    trash_to: Path | None = None,
) -> MutationResult:
    """Move a memory to its scope's .trash/ (restorable; audit records who and why).

    `trash_to`: another .trash/ (a merged project folder's memories go to the target's, so
    its history keeps them once the emptied folder is removed: store/project_merge.py)."""
    actor = normalize_actor(req.actor)
    refuse_secret_input(req, "memory_delete")  # the reason goes to the audit log
    resolved = resolve(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
    entry = resolved.entry
    if entry.archived:
        raise DailyArchived("archived daily memory is read-only")
    now = ctx.now_ms()
    if req.trigger == config.ORGANIZE_TRIGGER:
        snapshot(ctx, changes, resolved, now)
    trash = changes.files.move(
        resolved.path,
        trash_to or ctx.layout.trash_dir(entry.scope, entry.workdir_hash),
        f"{entry.slug}.{now}.md",
    )
    ctx.index.remove(conn, entry.path, fts=changes.fts)
    changes.scopes.add((entry.scope, entry.workdir_hash))
    detail: dict[str, Any] = {
        "trashPath": ctx.layout.relpath(trash),
        "type": entry.type,
        "before_hash": sha256_hex(resolved.loaded.raw),
        **_reason(req.reason),
    }
    key = (entry.scope, entry.workdir_hash, entry.slug)
    change = audit(
        ctx, conn, AuditOp.DELETE, key, actor=actor.value, ts=now, req=req, detail=detail
    )
    return MutationResult(
        slug=entry.slug,
        scope=entry.scope,
        workdir_hash=entry.workdir_hash,
        type=entry.type,
        deleted=True,
        unreviewed=entry.unreviewed,
        path=ctx.layout.relpath(trash),
        change=change,
    )


def accept(
    ctx: StoreContext, conn: sa.Connection, changes: Changes, req: AcceptRequest
) -> MutationResult:
    """Mark a memory reviewed (REFERENCE accept: a person vouches for it)."""
    actor = normalize_actor(req.actor, default=Actor.USER)
    if actor is not Actor.USER:
        # Issue 12: accepting vouches for a memory (reviewed, risk flag cleared, trigger
        # user). A model approving its own text would launder a prompt injection into every
        # future Memory Index, so the tool and the extractor are refused here, once, for
        # every path (command, tool, batch); their memories keep their true trigger.
        raise ActionNotAllowed(
            f"only a person can accept a memory (mark it reviewed), not the {actor.value}; "
            "it stays unreviewed until someone reviews it in the app or with the CLI",
            field="actor",
        )
    resolved = resolve(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
    entry, doc = resolved.entry, resolved.doc
    if entry.type == MemoryType.DAILY:
        raise InvalidType("daily entries cannot be accepted", field="slug")
    now = ctx.now_ms()
    doc.meta.source = source_block(doc.meta.source, actor=actor, unreviewed=False)
    row, _ = save(
        ctx, conn, changes, resolved.path, doc, scope=entry.scope, project=entry.workdir_hash
    )
    detail = {
        "unreviewed": False,
        "before_hash": sha256_hex(resolved.loaded.raw),
        "after_hash": row.sha256,
        "previous": resolved.loaded.text,
    }
    key = (entry.scope, entry.workdir_hash, entry.slug)
    change = audit(ctx, conn, AuditOp.ACCEPT, key, actor=actor.value, ts=now, detail=detail)
    return MutationResult(
        slug=entry.slug,
        scope=entry.scope,
        workdir_hash=entry.workdir_hash,
        type=entry.type,
        updated=True,
        unreviewed=False,
        path=row.path,
        change=change,
    )

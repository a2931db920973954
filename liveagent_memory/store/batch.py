"""Many operations at once (SPEC 2): memory_apply_batch, as extraction and the organizer send it.

Each item is validated and applied on its own (its own savepoint): one bad item fails alone
and every item gets a result. Items sharing a `group_id` (a merge) are one unit, all or
nothing: the group's upserts and updates run first, then its deletes (skipped once an upsert
failed, so a merge never loses its sources), and when any of its items fails the items already
applied are undone, index and files, and reported skipped: a merged memory never says it
replaced memories that are still there. Items share index transactions in chunks; a chunk the
index turns out damaged in is rolled back, the index rebuilt, and the chunk run again.

Durability (issue 17): a chunk's files are written to temp names and made durable together
just before its index commit (FileChanges deferred: all fsynced, then renamed), instead of one
fsync per file; an item that may read a file this batch has not flushed yet flushes first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError, StoreUnavailable
from liveagent_memory.domain.requests import (
    CLEANED,
    AcceptRequest,
    BatchItem,
    BatchRequest,
    DailyAppendRequest,
    DeleteRequest,
    EvidenceFields,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.schema import (
    BatchItemResult,
    BatchItemStatus,
    BatchOp,
    BatchResult,
    BatchWarning,
    MemoryType,
    MutationResult,
    UpdateMode,
)
from liveagent_memory.store import journal, rules, writes
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.damage import IndexDamaged, is_file_failure
from liveagent_memory.store.db import isolated
from liveagent_memory.store.index import FtsBuffer
from liveagent_memory.store.mutation import Changes, mutation

EVIDENCE_FIELDS = frozenset(EvidenceFields.model_fields)
_RESULT_LISTS = ("items", "created", "updated", "deleted", "warnings", "warning_details")

Unit = list[int]  # positions in the batch applied together: one item, or a merge group


def apply_batch(
    ctx: StoreContext, req: BatchRequest, *, heal: Callable[[IndexDamaged], None]
) -> BatchResult:
    """Apply many operations, each validated on its own; `heal` rebuilds a damaged index."""
    writes.normalize_actor(req.actor)  # fail fast on a bad actor, before anything is written
    # The same for a secret in what every item shares (ids, model, trigger, workdir); each
    # item's own text is checked by its operation, so one bad item fails alone.
    fields = req.model_dump(exclude={"items", "daily_append"})
    rules.refuse_secret_fields(fields, what="memory_apply_batch")
    out = _empty_result()
    results = out.items
    items, units = _units(req)
    with mutation(ctx, deferred=True) as changes:
        changes.quota = {}
        for chunk in _chunks(units):
            before = _result_lengths(out)
            try:
                _durable_chunk(ctx, changes, req, items, chunk, out)
            except IndexDamaged as exc:
                # The chunk was rolled back, index and files; the ones before it are
                # committed. Rebuild the index and run this chunk again (once).
                _forget_chunk(changes, out, before)
                heal(exc)
                _durable_chunk(ctx, changes, req, items, chunk, out)
    results.sort(key=lambda r: r.index)
    out.applied = sum(r.status == BatchItemStatus.APPLIED for r in results)
    out.failed = sum(r.status == BatchItemStatus.FAILED for r in results)
    out.skipped = sum(r.status == BatchItemStatus.SKIPPED for r in results)
    return out


def _units(req: BatchRequest) -> tuple[list[BatchItem], list[Unit]]:
    """Every item (the top-level daily_append last) and the units they are applied in."""
    items = list(req.items)
    units: list[Unit] = []
    if req.daily_append is not None and req.daily_append.bullet.strip():
        items.append(BatchItem(op=BatchOp.DAILY_APPEND.value, body=req.daily_append.bullet))
        units.append([len(items) - 1])
    groups: dict[str, list[int]] = {}
    for position, item in enumerate(req.items):
        if item.group_id and item.group_id.strip():
            groups.setdefault(item.group_id, []).append(position)
    done: set[int] = set()
    for position, item in enumerate(req.items):
        if position in done:
            continue
        members = groups.get(item.group_id or "", [])
        unit = members if len(members) > 1 else [position]
        done.update(unit)
        units.append(unit)
    return items, units


def _chunks(units: list[Unit]) -> list[list[Unit]]:
    """Units grouped into index transactions of about BATCH_ITEMS_PER_TRANSACTION items.

    Several items share one index transaction (each in its own savepoint): a commit per item
    cost more than the item. The files are written one by one atomically either way, and a
    crash is repaired by the next reconcile.
    """
    chunks: list[list[Unit]] = [[]]
    for unit in units:
        if sum(len(u) for u in chunks[-1]) >= config.BATCH_ITEMS_PER_TRANSACTION:
            chunks.append([])
        chunks[-1].append(unit)
    return [chunk for chunk in chunks if chunk]


def _durable_chunk(
    ctx: StoreContext,
    changes: Changes,
    req: BatchRequest,
    items: list[BatchItem],
    units: list[Unit],
    out: BatchResult,
) -> None:
    """Run one chunk; if its files cannot be made durable, fail its items instead."""
    before = _result_lengths(out)
    try:
        try:
            _batch_chunk(ctx, changes, req, items, units, out, buffered=True)
        except _Unbuffered:
            # Trigger: the chunk's full-text rows, written together, were refused. Why: one
            # item's row must fail that item alone. Outcome: the chunk is rolled back and run
            # again with every item indexed on its own, as before issue 17.
            _forget_chunk(changes, out, before)
            _batch_chunk(ctx, changes, req, items, units, out, buffered=False)
    except _NotDurable as exc:
        # Trigger: the chunk's files could not be made durable (disk full, I/O error).
        # Why: the index must not describe files that are not there. Outcome: the chunk is
        # rolled back, index and files, and each of its items fails with the store's error,
        # as a write failing alone would.
        _forget_chunk(changes, out, before)
        _fail_chunk(req, items, units, out, exc.error)


def _forget_chunk(changes: Changes, out: BatchResult, before: tuple[int, ...]) -> None:
    """Roll back what an uncommitted chunk did to the files, and forget its results."""
    changes.files.rollback()
    _truncate_result(out, before)
    _forget_counts(changes)


def _forget_counts(changes: Changes) -> None:
    if changes.quota is not None:
        changes.quota.clear()


def _count_result(changes: Changes, result: MutationResult) -> None:
    """Move the batch's quota counts on with an applied item (see resolve.check_quota): a new
    ordinary memory adds one to its scope, anything else makes them count again."""
    if changes.quota is None:
        return
    key = (result.scope, result.workdir_hash or "")
    if result.created and result.type != MemoryType.DAILY and key in changes.quota:
        changes.quota[key] += 1
    elif not (result.created and result.type == MemoryType.DAILY):
        changes.quota.clear()


def _batch_chunk(
    ctx: StoreContext,
    changes: Changes,
    req: BatchRequest,
    items: list[BatchItem],
    units: list[Unit],
    out: BatchResult,
    *,
    buffered: bool,
) -> None:
    with ctx.index.write() as conn:
        changes.fts = FtsBuffer() if buffered else None
        try:
            for unit in units:
                if len(unit) == 1:
                    # The top-level daily_append sits after req.items; it reports index -1.
                    label = unit[0] if unit[0] < len(req.items) else -1
                    _batch_item(ctx, conn, changes, req, label, items[unit[0]], out)
                else:
                    _batch_group(ctx, conn, changes, req, unit, out)
            # Files durable and in place before the index says so; then the chunk's
            # full-text rows, then the commit.
            _flush(changes)
            ctx.index.stamp_ctimes(conn, changes.files.placed)
            changes.files.placed.clear()
            _write_fts(conn, changes.fts)
        finally:
            changes.fts = None
    changes.files.commit()  # the chunk is in the index: its files stay whatever follows


def _batch_group(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    req: BatchRequest,
    members: Unit,
    out: BatchResult,
) -> None:
    """A merge group, all or nothing (see the module docstring)."""
    deletes = [p for p in members if req.items[p].op.strip() == BatchOp.DELETE]
    ordered = [p for p in members if p not in deletes] + deletes
    mark = changes.files.mark()
    fts_mark = changes.fts.mark() if changes.fts is not None else 0
    savepoint = conn.begin_nested()
    trial = _empty_result()
    failed: BatchItem | None = None
    for position in ordered:
        item = req.items[position]
        if failed is None:
            if not _batch_item(ctx, conn, changes, req, position, item, trial):
                failed = item
        elif position in deletes and failed.op.strip() != BatchOp.DELETE:
            message = f"skipped delete {item.slug!r} because its merge group's write failed"
            error = {"error": "group_upsert_failed", "message": message}
            _record(trial, position, item, BatchItemStatus.SKIPPED, None, error)
        else:
            _record(trial, position, item, BatchItemStatus.SKIPPED, None, _undone(failed))
    if failed is None:
        savepoint.commit()
        for name in _RESULT_LISTS:
            getattr(out, name).extend(getattr(trial, name))
        return
    # Trigger: one item of the group failed after others were applied. Why: half a merge
    # leaves a memory that says it replaced memories still there. Outcome: the group's
    # savepoint and files are rolled back; what had been applied is reported skipped.
    savepoint.rollback()
    changes.files.rollback(mark)
    if changes.fts is not None:
        changes.fts.rollback(fts_mark)
    _forget_counts(changes)
    for result in trial.items:
        item = req.items[result.index]
        if result.status == BatchItemStatus.APPLIED:
            _record(out, result.index, item, BatchItemStatus.SKIPPED, None, _undone(failed))
        else:
            _record(out, result.index, item, BatchItemStatus(result.status), None, result.error)


def _empty_result() -> BatchResult:
    return BatchResult(
        items=[], created=[], updated=[], deleted=[], warnings=[], warning_details=[]
    )


def _undone(failed: BatchItem) -> dict[str, Any]:
    """The error of a group item undone (or not run) because `failed` of its group failed."""
    message = (
        f"not applied because {failed.op.strip()} {failed.slug!r} of its merge group failed; "
        "a merge is applied whole or not at all"
    )
    return {"error": "group_item_failed", "message": message}


def _batch_item(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    req: BatchRequest,
    position: int,
    item: BatchItem,
    out: BatchResult,
) -> bool:
    mark = changes.files.mark()
    _settle_touched(changes, item)
    fts_mark = changes.fts.mark() if changes.fts is not None else 0
    try:
        with isolated(conn):  # a plain savepoint: SQLAlchemy's cost more than the item's SQL
            result = _apply_item(ctx, conn, changes, req, item)
    except (MemoryDomainError, sa.exc.IntegrityError, sqlite3.IntegrityError) as exc:
        changes.files.rollback(mark)  # its savepoint is rolled back: so are its files
        if changes.fts is not None:
            changes.fts.rollback(fts_mark)  # ...and its full-text rows
        _forget_counts(changes)
        error = (
            exc.to_dict()
            if isinstance(exc, MemoryDomainError)
            else {
                "error": "index_unavailable",
                "message": f"the index refused it: {getattr(exc, 'orig', exc)}",
            }
        )
        _record(out, position, item, BatchItemStatus.FAILED, None, error)
        return False
    _count_result(changes, result)
    _record(out, position, item, BatchItemStatus.APPLIED, result, None)
    return True


def _settle_touched(changes: Changes, item: BatchItem) -> None:
    """Flush the batch's pending writes before an item that may read one of them.

    An item reads only the file its slug names (`<slug>.md`, a journal's `<day>.md`) and a
    journal append today's journal, so a pending file of another name cannot be read by it.
    """
    if not changes.files.has_pending:
        return
    slug = (item.slug or "").strip().lower().replace("_", "-")
    names = (f"{slug}.md", f"{slug.removeprefix('daily-')}.md")
    daily = item.op.strip() == BatchOp.DAILY_APPEND or not slug
    if daily or changes.files.pending_named(names):
        _flush(changes)


class _Unbuffered(Exception):
    """A chunk's full-text rows, written together, were refused: run it item by item."""


def _write_fts(conn: sa.Connection, fts: FtsBuffer | None) -> None:
    if fts is None:
        return
    try:
        fts.write(conn)
    except Exception as exc:
        if not is_file_failure(exc):
            raise  # damage, a full disk, a busy index: the chunk's error as before
        raise _Unbuffered() from exc


class _NotDurable(Exception):
    """A chunk's pending files could not be made durable; `error` says why."""

    def __init__(self, error: StoreUnavailable) -> None:
        super().__init__(error.message)
        self.error = error


def _flush(changes: Changes) -> None:
    try:
        changes.files.flush()
    except StoreUnavailable as exc:
        raise _NotDurable(exc) from exc


def _fail_chunk(
    req: BatchRequest,
    items: list[BatchItem],
    units: list[Unit],
    out: BatchResult,
    error: StoreUnavailable,
) -> None:
    """Record every item of a rolled-back chunk as failed with `error`."""
    for unit in units:
        for position in unit:
            label = position if position < len(req.items) else -1
            _record(out, label, items[position], BatchItemStatus.FAILED, None, error.to_dict())


def _record(
    out: BatchResult,
    position: int,
    item: BatchItem,
    status: BatchItemStatus,
    result: MutationResult | None,
    error: dict[str, Any] | None,
) -> None:
    out.items.append(
        BatchItemResult(
            index=position,
            op=item.op,
            slug=item.slug,
            status=status.value,
            group_id=item.group_id,
            result=result,
            error=error,
        )
    )
    if result is not None:
        if result.created:
            out.created.append(result.slug)
        elif result.deleted:
            out.deleted.append(result.slug)
        else:
            out.updated.append(result.slug)
        if result.warning:
            out.warnings.append(result.warning)
    if error is not None:
        out.warnings.append(error["message"])
        out.warning_details.append(
            BatchWarning(
                code=error["error"],
                message=error["message"],
                slug=item.slug,
                op=item.op,
                group_id=item.group_id,
                decision_index=position if position >= 0 else None,
            )
        )


def _apply_item(
    ctx: StoreContext, conn: sa.Connection, changes: Changes, req: BatchRequest, item: BatchItem
) -> MutationResult:
    op = item.op.strip()
    if op not in set(BatchOp):
        # Checked first: an unknown op is the item's problem, whatever else it lacks.
        raise InvalidArgument(f"unknown op {op!r}: use {', '.join(BatchOp)}", field="op")
    # Every item was validated with the batch: the requests built from it are not walked
    # again (CLEANED).
    fields: dict[str, Any] = item.model_dump(exclude_none=True)
    evidence: dict[str, Any] = {k: v for k, v in fields.items() if k in EVIDENCE_FIELDS}
    who: dict[str, Any] = {
        "actor": req.actor,
        "conversation_id": req.conversation_id,
        "model": req.model,
        "trigger": req.trigger,
    }
    if op == BatchOp.DAILY_APPEND:
        daily = {"body": item.body or "", "local_date": req.local_date, **who}
        return journal.append_daily(
            ctx, conn, changes, DailyAppendRequest.model_validate(daily, context=CLEANED)
        )
    if not item.slug:
        raise InvalidArgument(f"batch op {op!r} needs a slug", field="slug")
    target: dict[str, Any] = {
        "slug": item.slug,
        "scope": item.scope,
        "workdir": req.workdir,
        "workdir_hash": item.workdir_hash,
    }
    content: dict[str, Any] = {
        k: fields[k] for k in ("type", "description", "body", "mode", "reason") if k in fields
    }
    if op == BatchOp.DELETE:
        delete = {**target, "reason": item.reason, **who}
        return writes.delete(
            ctx, conn, changes, DeleteRequest.model_validate(delete, context=CLEANED)
        )
    if op == BatchOp.ACCEPT:  # with the batch's actor: only a person may accept
        accept = {**target, "actor": req.actor}
        return writes.accept(
            ctx, conn, changes, AcceptRequest.model_validate(accept, context=CLEANED)
        )
    if op == BatchOp.UPDATE:
        if rules.is_daily_slug(item.slug):
            raise InvalidArgument(
                "a day's journal is not updated: append to it with a daily-append item", field="op"
            )
        update = {**target, **content, **evidence, **who}
        return writes.update(
            ctx, conn, changes, UpdateRequest.model_validate(update, context=CLEANED)
        )
    missing = [name for name in ("type", "description", "body") if name not in fields]
    if missing:
        raise InvalidArgument(
            f"upsert of {item.slug!r} is missing {', '.join(missing)}", field=missing[0]
        )
    return _upsert(ctx, conn, changes, req, item, target, {**content, **evidence, **who})


def _upsert(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    req: BatchRequest,
    item: BatchItem,
    target: dict[str, Any],
    given: dict[str, Any],
) -> MutationResult:
    """An upsert: a write of a new slug, or else an update (REFERENCE: merge, or replace for
    the organizer, which sends the complete merged body). `given` is content, evidence, who."""
    assert item.slug  # _apply_item checked it
    scope = item.scope or ("project" if req.workdir else "global")
    slug = rules.normalize_slug(item.slug)
    project = ctx.hash_of(req.workdir, item.workdir_hash) if scope == "project" else ""
    if ctx.index.path_for_key(conn, scope, project or "", slug) is None:
        write: dict[str, Any] = {**target, "slug": slug, "scope": scope, **given}
        write.pop("workdir_hash", None)
        write.pop("mode", None)
        return writes.write(ctx, conn, changes, WriteRequest.model_validate(write, context=CLEANED))
    organize = req.trigger == config.ORGANIZE_TRIGGER
    default_mode = UpdateMode.REPLACE if organize else UpdateMode.MERGE
    update = {**target, "slug": slug, "scope": scope, "mode": default_mode.value, **given}
    return writes.update(ctx, conn, changes, UpdateRequest.model_validate(update, context=CLEANED))


def _result_lengths(out: BatchResult) -> tuple[int, ...]:
    """How long a batch result's lists are (to forget a chunk that was rolled back)."""
    return tuple(len(getattr(out, name)) for name in _RESULT_LISTS)


def _truncate_result(out: BatchResult, lengths: tuple[int, ...]) -> None:
    for name, length in zip(_RESULT_LISTS, lengths, strict=True):
        del getattr(out, name)[length:]

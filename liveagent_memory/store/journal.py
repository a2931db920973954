"""The daily journal (SPEC 1.8): appending to a day's file, and the days that have one.

A day's journal is `global/daily/YYYY-MM-DD.md`, only ever appended to (REFERENCE A3: an
update needs mode "append"); past the retention window it moves to the read-only archive
(store/reconcile.py). The journal's today starts at the rollover hour (StoreContext.today).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.errors import (
    AppendModeRequired,
    BodyTooLarge,
    DailyArchived,
    InvalidArgument,
    MemoryDomainError,
    SlugExists,
)
from liveagent_memory.domain.journal import JournalDay, JournalDaysResult
from liveagent_memory.domain.requests import DailyAppendRequest, JournalDaysRequest, UpdateRequest
from liveagent_memory.domain.schema import (
    AuditOp,
    MemoryType,
    MutationResult,
    Scope,
    UpdateMode,
)
from liveagent_memory.domain.visibility import visibility
from liveagent_memory.store import rules
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import LoadedFile, load_file
from liveagent_memory.store.evidence import DocumentError, FrontMatter, MemoryDocument
from liveagent_memory.store.filters import scope_sql
from liveagent_memory.store.mutation import Changes
from liveagent_memory.store.writes import audit, normalize_actor, refuse_secret_input, save

_MONTH_PATTERN = re.compile(r"^([0-9]{4})-([0-9]{2})\Z")


def append_request(ctx: StoreContext, req: UpdateRequest) -> DailyAppendRequest:
    """What an update of a journal means: an append (`append_mode_required` otherwise)."""
    mode = (req.mode or "").strip()
    if mode != UpdateMode.APPEND:
        raise AppendModeRequired(
            'daily memory must be updated with mode="append"',
            suggested_next_call={"action": "update", "slug": req.slug, "mode": "append"},
            field="mode",
        )
    slug = rules.normalize_daily_slug(req.slug, today=ctx.today().isoformat())
    return DailyAppendRequest(
        body=req.body or "",
        local_date=slug.removeprefix("daily-"),
        actor=req.actor,
        conversation_id=req.conversation_id,
        model=req.model,
        trigger=req.trigger,
    )


def append_daily(
    ctx: StoreContext, conn: sa.Connection, changes: Changes, req: DailyAppendRequest
) -> MutationResult:
    """Append an entry to a day's journal (today by default; SPEC 1.8)."""
    actor = normalize_actor(req.actor)
    refuse_secret_input(req, "memory_daily_append")  # its source: id, model, trigger
    day = _day_of(ctx, req.local_date)
    slug = f"daily-{day.isoformat()}"
    text = req.body.strip()
    if not text:
        raise InvalidArgument("a journal entry needs text", field="body")
    rules.refuse_secrets(slug, text)
    if ctx.layout.archived_daily_path(day).exists():
        raise DailyArchived(f"the journal of {day.isoformat()} is archived and read-only")
    path = ctx.layout.path_for("global", "", MemoryType.DAILY.value, slug)
    holder = ctx.index.path_for_key(conn, "global", "", slug)
    if holder is not None and holder != ctx.layout.relpath(path):
        # Before anything is written: appending would index a second row for the key.
        raise SlugExists(
            f"{holder} holds the name {slug!r}, which belongs to the journal of "
            f"{day.isoformat()}; rename that memory to append to this day",
            field="local_date",
        )
    now = ctx.now_ms()
    loaded = _load_journal(ctx, path)
    if loaded is not None:
        doc = loaded.doc
        previous_body = doc.body.rstrip()
    else:
        doc = MemoryDocument(FrontMatter(created_at=format_rfc3339(now)), "")
        previous_body = ""
    body = f"{previous_body}\n\n{text}" if previous_body else text
    warning = _check_size(day, slug, body)
    meta = doc.meta
    meta.name, meta.type, meta.scope = slug, MemoryType.DAILY.value, Scope.GLOBAL.value
    meta.date = meta.headline = day.isoformat()
    meta.append_count += 1
    meta.updated_at = format_rfc3339(now)
    meta.sources.append(
        {
            "conversationId": req.conversation_id or "",
            "appendedAt": format_rfc3339(now),
            "trigger": req.trigger or config.DAILY_DEFAULT_TRIGGER,
            "model": req.model or "",
        }
    )
    doc.body = body
    row, _ = save(ctx, conn, changes, path, doc, scope="global", project="")
    op = AuditOp.UPDATE if loaded else AuditOp.WRITE
    detail = {"type": "daily", "append": True, "appended": text, "after_hash": row.sha256}
    audit(ctx, conn, op, ("global", "", slug), actor=actor.value, ts=now, req=req, detail=detail)
    return MutationResult(
        slug=slug,
        scope="global",
        workdir_hash="",
        type=MemoryType.DAILY.value,
        created=loaded is None,
        updated=loaded is not None,
        warning=warning,
        path=row.path,
    )


def _day_of(ctx: StoreContext, local_date: str | None) -> date:
    """The day an append goes to: `local_date` (YYYY-MM-DD) or the journal's today."""
    if not local_date:
        return ctx.today()
    day = clockmod.parse_local_date(local_date)
    if day is None:
        raise InvalidArgument("The date must be YYYY-MM-DD", field="local_date")
    return day


def _load_journal(ctx: StoreContext, path: Path) -> LoadedFile | None:
    """A day's journal file as it is; None when the day has none yet."""
    try:
        return load_file(path)
    except FileNotFoundError:
        return None
    except DocumentError as exc:
        raise MemoryDomainError(
            f"journal file {ctx.layout.relpath(path)} cannot be read: {exc.reason}",
            code="file_unparsable",
        ) from exc


def _check_size(day: date, slug: str, body: str) -> str | None:
    """body_too_large past the daily limit (REFERENCE A3); a warning near it, else None."""
    size = len(body.encode("utf-8"))
    if size > config.MAX_DAILY_BYTES:
        raise BodyTooLarge(
            f"the journal of {day.isoformat()} would be {size} bytes; the daily limit is "
            f"{config.MAX_DAILY_BYTES} bytes",
            suggested_next_call={
                "action": "update",
                "slug": slug,
                "mode": "append",
                "body": "<consolidated daily summary>",
            },
            field="body",
        )
    if size >= config.DAILY_NEAR_LIMIT_BYTES:
        return f"{slug} is near the 32 KB daily limit; consolidate soon"
    return None


# The daily rows through their partial index: the scope condition names a global row's key
# (store/filters.py), which would otherwise lead SQLite to the (scope, workdir_hash, type)
# index and a sort by date.
_DAILY_ROWS = "memory_meta INDEXED BY idx_memory_meta_daily"


def journal_days(ctx: StoreContext, req: JournalDaysRequest) -> JournalDaysResult:
    """Days that have a journal, newest first (SPEC 1.8), optionally of one month or range.

    Reads only memory_meta's daily rows (its partial daily index), never a memory file.
    """
    seen = visibility(
        rules.normalize_scope_filter(req.scope),
        ctx.hash_of(req.workdir, req.workdir_hash),
        all_projects=req.include_all_projects,
        purpose="listing project journals",
    )
    first, last = _journal_window(req.month, req.date_from, req.date_to)
    limit = min(req.limit or config.LIST_DEFAULT_LIMIT, config.LIST_MAX_LIMIT)
    where = ["type = 'daily'"]
    clause, params = scope_sql(seen)
    if clause is not None:
        where.append(clause)
    if first is not None:
        where.append("date_local >= :first")
        params["first"] = first.isoformat()
    if last is not None:
        where.append("date_local <= :last")
        params["last"] = last.isoformat()
    clause = " WHERE " + " AND ".join(where)
    with ctx.index.read() as conn:
        total = int(
            conn.execute(sa.text(f"SELECT COUNT(*) FROM {_DAILY_ROWS}" + clause), params).scalar()
            or 0
        )
        rows = conn.execute(
            sa.text(
                "SELECT scope, workdir_hash, slug, date_local, append_count, archived, "
                f"created_at, updated_at, file_size FROM {_DAILY_ROWS}"
                + clause
                + " ORDER BY date_local DESC, scope ASC, workdir_hash ASC LIMIT :limit"
            ),
            {**params, "limit": limit},
        ).all()
    workdirs = ctx.workdirs({row.workdir_hash for row in rows})
    days = [_journal_day(row, workdirs) for row in rows]
    return JournalDaysResult(
        days=days, total=total, truncated=len(days) < total, today=ctx.today().isoformat()
    )


def _journal_day(row: sa.Row[Any], workdirs: dict[str, str | None]) -> JournalDay:
    return JournalDay(
        date=str(row.date_local),
        slug=row.slug,
        scope=row.scope,
        workdir_hash=row.workdir_hash,
        workdir=workdirs.get(row.workdir_hash),
        # A hand-written journal without appendCount still holds (at least) one entry.
        entry_count=max(int(row.append_count), 1),
        archived=bool(row.archived),
        created_at=int(row.created_at),
        updated_at=int(row.updated_at),
        size=int(row.file_size),
    )


def _journal_window(
    month: str | None, date_from: str | None, date_to: str | None
) -> tuple[date | None, date | None]:
    """First and last day (inclusive) of a journal listing; InvalidArgument on bad input."""
    if month is not None:
        if date_from is not None or date_to is not None:
            raise InvalidArgument(
                "Give either a month or a range of dates, not both", field="month"
            )
        match = _MONTH_PATTERN.match(month.strip())
        if match is None or not 1 <= int(match.group(2)) <= 12:
            raise InvalidArgument(f"month must be YYYY-MM, not {month!r}", field="month")
        year, number = int(match.group(1)), int(match.group(2))
        following = date(year + 1, 1, 1) if number == 12 else date(year, number + 1, 1)
        return date(year, number, 1), following - timedelta(days=1)
    bounds: list[date | None] = []
    for name, text in (("date_from", date_from), ("date_to", date_to)):
        day = clockmod.parse_local_date(text) if text is not None else None
        if text is not None and day is None:
            raise InvalidArgument(f"{name} must be YYYY-MM-DD, not {text!r}", field=name)
        bounds.append(day)
    first, last = bounds
    if first is not None and last is not None and first > last:
        raise InvalidArgument("The first date is after the last one", field="date_from")
    return first, last

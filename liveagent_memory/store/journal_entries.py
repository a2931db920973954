"""A day's journal as entries (SPEC 1.8): each append's text beside the `sources` item that
recorded it, and the memories written or changed in the conversation it came from.

An append adds its text after a blank line and one item to the frontmatter's `sources`
(store/journal.py `append_daily`), so the n-th entry is the n-th source. The file is the
truth: its body, split at blank lines, gives the entries when that makes one piece per
source. An entry that itself held a blank line is found through the audit log, which keeps
each append's text; a file edited by hand so that neither matches gives its pieces unpaired
(`paired` false) rather than guessing.

An entry's memories are those the audit log records under the entry's conversation id (an
extraction writes its memories and its journal lines in one batch with that id), that still
exist.
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import parse_local_date
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.journal import JournalEntriesResult, JournalEntry, LinkedMemory
from liveagent_memory.domain.requests import JournalEntriesRequest
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.db import json_object
from liveagent_memory.store.resolve import resolve

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_LINKED_SQL = sa.text(
    "SELECT DISTINCT a.conversation_id, m.scope, m.workdir_hash, m.slug, m.type, m.description "
    "FROM memory_audit_log a JOIN memory_meta m ON m.scope = a.scope "
    "AND m.workdir_hash = a.workdir_hash AND m.slug = a.slug "
    "WHERE a.conversation_id IN :ids AND m.type != 'daily' "
    "ORDER BY m.scope, m.workdir_hash, m.slug"
).bindparams(sa.bindparam("ids", expanding=True))


def journal_entries(ctx: StoreContext, req: JournalEntriesRequest) -> JournalEntriesResult:
    """The entries of the journal of `req.date`, oldest first, each with its source."""
    day = parse_local_date(req.date)
    if day is None:
        raise InvalidArgument(f"date must be YYYY-MM-DD, not {req.date!r}", field="date")
    slug = f"daily-{day.isoformat()}"
    with ctx.index.read() as conn:
        resolved = resolve(ctx, conn, slug, "global", None, None)
        sources = [s if isinstance(s, dict) else {} for s in resolved.doc.meta.sources]
        rows = ctx.index.audit_rows(
            conn, "global", "", slug, len(sources) + config.HISTORY_DEFAULT_LIMIT
        )
        appended = [
            detail["appended"]
            for detail in (json_object(row.detail_json) for row in reversed(rows))
            if detail.get("append") and isinstance(detail.get("appended"), str)
        ]
        entries, paired = _pair(resolved.doc.body.strip(), appended, sources)
        ids = sorted({e.conversation_id for e in entries if e.conversation_id})
        linked = _linked_memories(conn, ids) if ids else {}
    for entry in entries:
        entry.memories = linked.get(entry.conversation_id or "", [])
    return JournalEntriesResult(date=day.isoformat(), slug=slug, entries=entries, paired=paired)


def _pair(
    body: str, appended: list[str], sources: list[dict[str, Any]]
) -> tuple[list[JournalEntry], bool]:
    """The body's entries, each with its source when one text per source can be found."""
    count = len(sources)
    pieces = [piece.strip() for piece in _BLANK_LINE.split(body) if piece.strip()]
    texts: list[str] | None = None
    if count and len(appended) >= count and "\n\n".join(appended[-count:]) == body:
        texts = appended[-count:]  # the audit log's texts make up the body exactly
    elif count and len(pieces) == count:
        texts = pieces
    if texts is None:
        return [JournalEntry(text=piece, source=None) for piece in pieces], not pieces
    return [_entry(text, n, sources[n]) for n, text in enumerate(texts)], True


def _entry(text: str, position: int, source: dict[str, Any]) -> JournalEntry:
    def field(key: str) -> str | None:
        value = source.get(key)
        return str(value) if value not in (None, "") else None

    return JournalEntry(
        text=text,
        source=position,
        appended_at=field("appendedAt"),
        trigger=field("trigger"),
        model=field("model"),
        conversation_id=field("conversationId"),
    )


def _linked_memories(conn: sa.Connection, ids: list[str]) -> dict[str, list[LinkedMemory]]:
    """Conversation id → the existing memories the audit log records under it."""
    found: dict[str, list[LinkedMemory]] = {}
    for row in conn.execute(_LINKED_SQL, {"ids": ids}):
        found.setdefault(row.conversation_id, []).append(
            LinkedMemory(
                slug=row.slug,
                scope=row.scope,
                workdir_hash=row.workdir_hash,
                type=row.type,
                description=row.description,
            )
        )
    return found

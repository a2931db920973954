"""A store kept in a synced folder: its sync conflicts listed and resolved, and a journal day
edited on two machines merged entry by entry (issue 19).

What counts as a conflict is `store/conflicts.py`'s rule; reconcile records each one
(`memory_conflicts`). Resolving one writes the chosen text through the normal write path
(audit, history) and removes the copy; whichever text loses is kept in the history, so it can
be restored. A journal day's entries are append-only, so its conflicts need no person: both
versions' entries are joined in time order (`merge_journals`, after every reconcile).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain.clock import format_rfc3339, parse_rfc3339_ms
from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    ConflictNotFound,
    InvalidArgument,
    StoreUnavailable,
)
from liveagent_memory.domain.requests import SyncResolveRequest
from liveagent_memory.domain.schema import Actor, AuditOp
from liveagent_memory.store import conflicts
from liveagent_memory.store.conflicts import SYNC_CONFLICT_CODE
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.evidence import (
    DocumentError,
    MemoryDocument,
    parse_document,
    render_document,
)
from liveagent_memory.store.files import ARCHIVE_DIRNAME, DAILY_FILE_PATTERN, store_unavailable
from liveagent_memory.store.mutation import Changes, mutation
from liveagent_memory.store.writes import audit, normalize_actor, save_text

log = logging.getLogger(__name__)

_BLANK_LINE = re.compile(r"\n[ \t]*\n")  # as store/journal_entries.py splits a day


@dataclass(frozen=True)
class _Conflict:
    path: str  # the copy, or the file holding git markers
    original: str  # the file it is a version of (itself for git markers)
    tool: str

    @property
    def markers(self) -> bool:
        # git makes copies too (store/git_sync.py): a file that is its own original holds markers.
        return self.path == self.original


def status(ctx: StoreContext) -> dict[str, Any]:
    """Every sync conflict: the two versions' files, the tool, the memory it belongs to."""
    with ctx.index.read() as conn:
        found = [_Conflict(*row) for row in ctx.index.conflicts(conn)]
        rows = [(item, ctx.index.file_state(conn, item.original)) for item in found]
    items = []
    for item, state in rows:
        items.append(
            {
                "path": item.path,
                "original": item.original,
                "tool": item.tool,
                "kind": "markers" if item.markers else "copy",
                "code": SYNC_CONFLICT_CODE,
                "journal": is_journal(item.original),
                "scope": state.scope if state and state.problem is None else None,
                "workdir_hash": state.workdir_hash if state and state.problem is None else None,
                "slug": state.slug if state and state.problem is None else None,
            }
        )
    return {"conflicts": items, "count": len(items)}


def versions(ctx: StoreContext, path: str) -> dict[str, Any]:
    """The two texts of one conflict, for a side-by-side view: `original` and `copy` (for git
    markers: the file's first and second side)."""
    with ctx.index.read() as conn:
        item = _find(ctx, conn, path)
    original, copy = _texts(ctx, item)
    return {
        "path": item.path,
        "original_path": item.original,
        "tool": item.tool,
        "original": original or "",
        "copy": copy,
    }


def resolve(ctx: StoreContext, req: SyncResolveRequest) -> dict[str, Any]:
    """Keep one version of a conflict (or a merged text); the copy goes, the losing text is
    kept in the history."""
    actor = normalize_actor(req.actor, default=Actor.USER)
    if actor is not Actor.USER:
        # Which version of a memory is true is a person's call, as accepting one is.
        raise ActionNotAllowed(
            f"only a person resolves a sync conflict, not the {actor.value}", field="actor"
        )
    if req.keep == "merged" and not (req.text or "").strip():
        raise InvalidArgument("keep='merged' needs the merged text", field="text")
    if req.keep != "merged" and req.text is not None:
        raise InvalidArgument("text goes with keep='merged' only", field="text")
    with mutation(ctx) as changes, ctx.index.write() as conn:
        item = _find(ctx, conn, req.path)
        original, copy = _texts(ctx, item)
        chosen = {"original": original, "copy": copy, "merged": req.text}[req.keep]
        if chosen is None:  # keep="original" of a copy whose original is gone
            raise InvalidArgument(f"{item.original} no longer exists: keep the copy", field="keep")
        if conflicts.has_markers(chosen):
            raise InvalidArgument("the text still holds git conflict markers", field="text")
        return _settle(ctx, conn, changes, item, original, copy, chosen, actor.value)


def merge_journals(ctx: StoreContext) -> int:
    """Merge every journal day that has a conflict (a copy or git markers) entry by entry;
    returns how many were merged. A day that cannot be merged stays listed as a conflict."""
    with ctx.index.read() as conn:
        found = [_Conflict(*row) for row in ctx.index.conflicts(conn)]
    merged = 0
    for item in found:
        if not is_journal(item.original):
            continue
        try:
            with mutation(ctx) as changes, ctx.index.write() as conn:
                original, copy = _texts(ctx, item)
                text = copy if original is None else merge_journal_texts(original, copy)
                _settle(ctx, conn, changes, item, original, copy, text, Actor.RECONCILE.value)
            merged += 1
        except (DocumentError, InvalidArgument, StoreUnavailable, ConflictNotFound) as exc:
            # One day that cannot be merged stays a listed conflict for a person.
            log.warning("journal conflict %s not merged: %s", item.path, exc)
    return merged


def merge_journal_texts(first: str, second: str) -> str:
    """One journal day from two versions: every entry of both, each once, in time order.

    A day's entries are append-only (store/journal.py): the n-th blank-line piece of the body
    is the n-th `sources` item. An entry is the same in both when its text and its source's
    `appendedAt` are; the entries then go in `appendedAt` order (the first version's order
    for equal times and for entries without a time, which follow).
    """
    docs = [parse_document(first), parse_document(second)]
    entries: list[tuple[str, dict[str, Any]]] = []
    seen: set[tuple[str, str]] = set()
    for doc in docs:
        for text, source in _entries(doc):
            key = (text, str(source.get("appendedAt") or ""))
            if key not in seen:
                seen.add(key)
                entries.append((text, source))
    timed = sorted(
        (e for e in entries if _entry_ms(e) is not None), key=lambda e: _entry_ms(e) or 0
    )
    ordered = timed + [e for e in entries if _entry_ms(e) is None]
    doc = docs[0]
    meta = doc.meta
    if all(source for _, source in ordered):
        meta.sources = [source for _, source in ordered]
    else:
        # Pieces and sources did not pair up in a version (edited by hand, or git markers
        # inside the body): every source of both, each once, in time order.
        pool = [s for d in docs for s in d.meta.sources if isinstance(s, dict)]
        unique = {(str(s.get("appendedAt")), str(s.get("conversationId"))): s for s in pool}
        meta.sources = sorted(
            unique.values(), key=lambda s: parse_rfc3339_ms(str(s.get("appendedAt"))) or 0
        )
    meta.append_count = len(ordered)
    created = [d.meta.created_at for d in docs if d.meta.created_at]
    updated = [d.meta.updated_at for d in docs if d.meta.updated_at]
    if created:
        meta.created_at = min(created, key=lambda t: parse_rfc3339_ms(t) or 0)
    if updated:
        meta.updated_at = max(updated, key=lambda t: parse_rfc3339_ms(t) or 0)
    doc.body = "\n\n".join(text for text, _ in ordered)
    return render_document(doc)


def _entries(doc: MemoryDocument) -> list[tuple[str, dict[str, Any]]]:
    """A day's entries with their sources ({} when the pieces and sources do not pair up)."""
    pieces = [p.strip() for p in _BLANK_LINE.split(doc.body.strip()) if p.strip()]
    sources = [s if isinstance(s, dict) else {} for s in doc.meta.sources]
    if len(pieces) == len(sources):
        return list(zip(pieces, sources, strict=True))
    return [(piece, {}) for piece in pieces]


def _entry_ms(entry: tuple[str, dict[str, Any]]) -> int | None:
    return parse_rfc3339_ms(str(entry[1].get("appendedAt") or ""))


def is_journal(relpath: str) -> bool:
    """Whether `relpath` is a journal day (`global/daily/YYYY-MM-DD.md`)."""
    folder, _, name = relpath.rpartition("/")
    return folder == "global/daily" and DAILY_FILE_PATTERN.match(name) is not None


def _find(ctx: StoreContext, conn: sa.Connection, path: str) -> _Conflict:
    for row in ctx.index.conflicts(conn):
        if row[0] == path:
            return _Conflict(*row)
    raise ConflictNotFound(
        f"{path} is not a sync conflict (resolved already?); see `liveagent-memory sync status`",
        field="path",
    )


def _read(ctx: StoreContext, relpath: str) -> str | None:
    path = ctx.layout.abspath(relpath)
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise InvalidArgument(f"{relpath} is not UTF-8 text", field="path") from None
    except OSError as exc:
        raise store_unavailable(exc, path) from exc


def _texts(ctx: StoreContext, item: _Conflict) -> tuple[str | None, str]:
    """(the original's text or None when it is gone, the copy's text)."""
    if item.markers:
        text = _read(ctx, item.path)
        if text is None or not conflicts.has_markers(text):
            raise ConflictNotFound(f"{item.path} no longer holds conflict markers", field="path")
        return conflicts.ours(text), conflicts.theirs(text)
    copy = _read(ctx, item.path)
    if copy is None:
        raise ConflictNotFound(f"{item.path} no longer exists", field="path")
    return _read(ctx, item.original), copy


def _settle(
    ctx: StoreContext,
    conn: sa.Connection,
    changes: Changes,
    item: _Conflict,
    original: str | None,
    copy: str,
    chosen: str,
    actor: str,
) -> dict[str, Any]:
    """Write `chosen` as the original, keep every text that lost in the history, remove the
    copy (for git markers: the file, rewritten, is both)."""
    target = ctx.layout.abspath(item.original)
    on_disk = target.read_bytes() if target.exists() else None
    scope, project = _place(item.original)
    now = ctx.now_ms()
    try:
        doc = parse_document(chosen)
    except DocumentError as exc:
        raise InvalidArgument(f"the chosen text cannot be stored: {exc.reason}") from None
    slug = doc.meta.name or item.original.rsplit("/", 1)[-1].removesuffix(".md")
    key = (scope, project, slug)
    if copy != chosen and not item.markers:
        # The copy's text, kept so it can be restored (history shows the entry).
        kept_copy: dict[str, Any] = {
            "change": "sync_conflict_copy",
            "path": item.path,
            "previous": copy,
            "reason": f"{item.tool} conflict copy {item.path}, not kept",
        }
        audit(ctx, conn, AuditOp.UPDATE, key, actor=actor, ts=now, detail=kept_copy)
    written = on_disk is None or on_disk.decode("utf-8", "replace") != chosen
    after = None
    if written:
        archived = f"/{ARCHIVE_DIRNAME}/" in item.original  # an archived journal day stays so
        row, _ = save_text(
            ctx,
            conn,
            changes,
            target,
            chosen,
            scope=scope,
            project=project,
            name=slug,
            archived=archived,
        )
        after = row.sha256
        previous = on_disk.decode("utf-8", "replace") if on_disk is not None else None
        detail = {
            "change": "sync_resolve",
            "path": item.original,
            "before_hash": sha256_hex(on_disk) if on_disk is not None else None,
            "after_hash": after,
            "previous": previous,
            "reason": f"{item.tool} sync conflict resolved",
        }
        audit(ctx, conn, AuditOp.UPDATE, key, actor=actor, ts=now, detail=detail)
    if not item.markers:
        copy_path = ctx.layout.abspath(item.path)
        changes.files.remove(copy_path, copy_path.read_bytes())
        ctx.index.remove(conn, item.path)
    changes.scopes.add((scope, project))
    return {
        "path": item.path,
        "original": item.original,
        "kept": _which(chosen, original, copy),
        "written": written,
        "scope": scope,
        "workdir_hash": project,
        "slug": slug,
        "updated_at": format_rfc3339(now),
    }


def _which(chosen: str, original: str | None, copy: str) -> str:
    if chosen == original:
        return "original"
    return "copy" if chosen == copy else "merged"


def _place(relpath: str) -> tuple[str, str]:
    """(scope, project) of a memory file by where it sits (REFERENCE A1)."""
    parts = relpath.split("/")
    if parts[0] == "projects" and len(parts) > 2:
        return "project", parts[1]
    return "global", ""

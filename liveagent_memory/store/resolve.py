"""Finding memories in the index: one by its slug (REFERENCE resolve_entry), a page of rows
as MemoryEntry values, and how many ordinary memories a scope holds (its quota, SPEC 1.7)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    MemoryDomainError,
    QuotaExceeded,
    ScopeAmbiguous,
    SlugNotFound,
)
from liveagent_memory.domain.schema import MemoryEntry, Scope
from liveagent_memory.domain.similar import close_matches
from liveagent_memory.domain.visibility import visibility
from liveagent_memory.store import rules
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.db import json_object
from liveagent_memory.store.documents import LoadedFile, load_file
from liveagent_memory.store.evidence import DocumentError, MemoryDocument
from liveagent_memory.store.files import store_unavailable
from liveagent_memory.store.filters import scope_sql

ENTRY_COLUMNS = (
    "m.scope, m.workdir_hash, m.slug, m.type, m.description, m.headline, m.date_local, "
    "m.created_at, m.updated_at, m.append_count, m.archived, m.source_json, m.file_size, f.path"
)
_FILE_JOIN = (
    "JOIN memory_files f ON f.scope = m.scope AND f.workdir_hash = m.workdir_hash "
    "AND f.slug = m.slug AND f.problem IS NULL"
)
META_SELECT = f"SELECT {ENTRY_COLUMNS} FROM memory_meta m {_FILE_JOIN}"


def meta_page(clause: str, order: str, limit: str) -> str:
    """Select a page of rows: filter, order and limit memory_meta alone, then join the files.

    Joining after the LIMIT keeps a 10k-row scope from paying one file lookup per row.
    """
    return (
        f"SELECT {ENTRY_COLUMNS} FROM (SELECT * FROM memory_meta m{clause} ORDER BY {order} "
        f"{limit}) m {_FILE_JOIN} ORDER BY {order}"
    )


@dataclass
class Resolved:
    """An existing memory: its index entry, its file and the file as read."""

    entry: MemoryEntry
    path: Path
    loaded: LoadedFile

    @property
    def doc(self) -> MemoryDocument:
        return self.loaded.doc


def entry_from_row(row: sa.Row[Any], workdirs: dict[str, str | None] | None = None) -> MemoryEntry:
    """A META_SELECT (or meta_page) row as a MemoryEntry; `workdirs` names project folders."""
    source = json_object(row.source_json)
    workdir = workdirs.get(row.workdir_hash) if workdirs is not None else None
    return MemoryEntry(
        slug=row.slug,
        scope=row.scope,
        workdir_hash=row.workdir_hash,
        type=row.type,
        description=row.description,
        headline=row.headline,
        date_local=row.date_local,
        created_at=int(row.created_at),
        updated_at=int(row.updated_at),
        append_count=int(row.append_count),
        archived=bool(row.archived),
        unreviewed=source.get("unreviewed") is True,
        confidence=str(source.get("confidence") or "unknown"),
        risk_flag=str(source["risk_flag"]) if source.get("risk_flag") else None,
        file_size=int(row.file_size),
        path=row.path,
        workdir=workdir,
    )


def resolve(
    ctx: StoreContext,
    conn: sa.Connection,
    slug_input: str,
    scope_input: str | None,
    workdir: str | None,
    workdir_hash_input: str | None,
) -> Resolved:
    """Find one existing memory (REFERENCE resolve_entry) and read its file."""
    if rules.is_daily_slug(slug_input):
        slug = rules.normalize_daily_slug(slug_input, today=ctx.today().isoformat())
    else:
        slug = rules.normalize_slug(slug_input, action="read")
    scope = rules.normalize_scope_filter(scope_input)
    seen = visibility(scope, ctx.hash_of(workdir, workdir_hash_input), purpose="project memory")
    # scope_sql names a global row's workdir_hash (''), so SQLite finds the slug through the
    # (scope, workdir_hash, slug) key instead of scanning every global row (6 ms at 10k).
    clause, params = scope_sql(seen, "m.")
    rows = conn.execute(
        sa.text(META_SELECT + f" WHERE m.slug = :slug AND {clause}"), {**params, "slug": slug}
    ).all()
    if not rows:
        raise not_found(conn, slug)
    if len(rows) > 1:
        raise ScopeAmbiguous(
            f"memory slug {slug!r} exists in more than one scope; pass scope",
            candidates=[{"slug": r.slug, "scope": r.scope} for r in rows],
            field="scope",
        )
    row = rows[0]
    entry = entry_from_row(row, ctx.workdirs({row.workdir_hash}))
    return Resolved(entry, *_read_file(ctx, row.path, slug))


def _read_file(ctx: StoreContext, relpath: str, slug: str) -> tuple[Path, LoadedFile]:
    """The file of an indexed memory, read and parsed (typed errors when it can't be)."""
    path = ctx.layout.abspath(relpath)
    try:
        return path, load_file(path)
    except FileNotFoundError:
        raise SlugNotFound(
            f"the file of memory {slug!r} is missing ({relpath}); run reconcile",
            suggested_next_call={"action": "search", "query": slug.replace("-", " ")},
        ) from None
    except DocumentError as exc:
        raise MemoryDomainError(
            f"memory file {relpath} cannot be read: {exc.reason}", code="file_unparsable"
        ) from exc
    except OSError as exc:
        raise store_unavailable(exc, path) from exc


def not_found(conn: sa.Connection, slug: str) -> SlugNotFound:
    """slug_not_found, with up to SLUG_CANDIDATES_LIMIT similar slugs: the reference's LIKE
    matches (REFERENCE A3), then near matches of a mistyped slug (`tea-prf` -> `tea-pref`)."""
    limit = config.SLUG_CANDIDATES_LIMIT
    pattern = "%" + slug.replace("-", "%") + "%"
    rows = conn.execute(
        sa.text(
            "SELECT slug, scope FROM memory_meta WHERE slug LIKE :p "
            "ORDER BY updated_at DESC LIMIT :n"
        ),
        {"p": pattern, "n": limit},
    ).all()
    day = rules.DAILY_SLUG_PATTERN.match(slug)
    found = [(r.slug, r.scope) for r in rows]
    # A day without a journal is no typo (today's is often missing): no near matches there.
    if len(found) < limit and day is None:
        found += _near_slugs(conn, slug, limit)
    suggestion: dict[str, Any] = (
        {"action": "search", "query": day.group(1)}
        if day
        else {"action": "search", "query": slug.replace("-", " ")}
    )
    return SlugNotFound(
        f"memory slug {slug!r} was not found",
        suggested_next_call=suggestion,
        candidates=[{"slug": name, "scope": scope} for name, scope in dict.fromkeys(found)][:limit],
    )


def _near_slugs(conn: sa.Connection, slug: str, limit: int) -> list[tuple[str, str]]:
    """(slug, scope) of the memories whose slugs are near `slug`, nearest first.

    Reads every slug: on an error path only (about 40 ms of difflib at 10,000 memories).
    """
    every = conn.execute(sa.text("SELECT slug, scope FROM memory_meta")).all()
    near = close_matches(slug, (r.slug for r in every), limit=limit)
    return [(name, r.scope) for name in near for r in every if r.slug == name]


def count_ordinary(conn: sa.Connection, scope: str, project: str, *, cap: int | None = None) -> int:
    """Ordinary (non-daily) memories of a scope; stops counting at `cap`."""
    limit = "" if cap is None else f" LIMIT {int(cap)}"
    return int(
        conn.exec_driver_sql(
            "SELECT COUNT(*) FROM (SELECT 1 FROM memory_meta WHERE scope = ? "
            f"AND workdir_hash = ? AND type != 'daily'{limit})",
            (scope, project),
        ).scalar()
        or 0
    )


def check_quota(
    ctx: StoreContext,
    conn: sa.Connection,
    scope: str,
    project: str,
    known: dict[tuple[str, str], int] | None = None,
) -> None:
    """quota_exceeded when the scope already holds its limit of ordinary memories.

    `known` (a batch's, store/batch.py) keeps the counts it took, which the batch moves on
    with each memory it creates and forgets at any other change, so it counts once per scope.
    """
    limit = ctx.limits.scope_limit
    used = known.get((scope, project)) if known is not None else None
    if used is None:
        used = count_ordinary(conn, scope, project, cap=limit)
        if known is not None:
            known[(scope, project)] = used
    if used >= limit:
        where = "global scope" if scope == Scope.GLOBAL else f"project {project}"
        raise QuotaExceeded(
            f"the {where} already holds {used} memories (limit {limit}); "
            "update or delete one, or run the organizer",
            suggested_next_call={"action": "list", "scope": scope, "include_daily": False},
        )

"""Reading the store: list, read, search, the Memory Index overview, quota and projects.

Everything here reads the index without the write lock (SQLite WAL gives a consistent
snapshot); only `read` and `entries_with_content` open memory files.

This module is the home of a scope's quota figures (`scope_figures`: used, limit, headroom,
counts per type, unreviewed; docs/ARCHITECTURE.md "Where each rule lives"): `quota_summary`
and `projects` only shape them; the ladder over a headroom is domain/quota.py's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain import config
from liveagent_memory.domain.dates import DateSpan
from liveagent_memory.domain.errors import ProjectMarkerInvalid
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.quota import quota_ladder
from liveagent_memory.domain.requests import (
    ListRequest,
    ReadRequest,
    RecentRejectionsRequest,
    SearchRequest,
)
from liveagent_memory.domain.schema import (
    ListResult,
    MemoryEntry,
    MemoryType,
    OverviewBuckets,
    OverviewEntry,
    ProjectsResult,
    ProjectSummary,
    QuotaScope,
    QuotaSummary,
    ReadResult,
    ReadWindow,
    RejectionEntry,
    Scope,
    SearchResult,
)
from liveagent_memory.domain.sorting import SortField, project_name
from liveagent_memory.domain.visibility import GLOBAL_ONLY, Visibility, visibility
from liveagent_memory.store import (
    conflicts,
    episode_index,
    project_keys,
    search_dates,
    word_shares,
)
from liveagent_memory.store.conflicts import MARKERS_REASON, SYNC_CONFLICT_CODE
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.db import json_object
from liveagent_memory.store.documents import load_file
from liveagent_memory.store.evidence import (
    DocumentError,
    MemoryDocument,
    parse_document,
    read_evidence,
    split_evidence,
)
from liveagent_memory.store.filters import (
    PROJECT_PARAM,
    REVIEWED_SQL,
    filter_sql,
    memory_filter,
    scope_sql,
)
from liveagent_memory.store.markers import ProjectMarker
from liveagent_memory.store.resolve import META_SELECT, entry_from_row, meta_page, resolve
from liveagent_memory.store.search import SearchQuery
from liveagent_memory.store.search import search as run_search
from liveagent_memory.store.skills import parse_skill
from liveagent_memory.store.sorting import order_sql

CLOUD_FOLDERS = (
    ("mobile documents", "iCloud"),
    ("icloud", "iCloud"),
    ("dropbox", "Dropbox"),
    ("onedrive", "OneDrive"),
    ("google drive", "Google Drive"),
)
_USER_TYPES = "m.type IN ('user', 'feedback')"
# Only the memories a request names: its `keys` as one JSON parameter, [[scope, hash, slug]].
KEYS_SQL = (
    "(m.scope, m.workdir_hash, m.slug) IN (SELECT json_extract(value, '$[0]'), "
    "json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(:keys))"
)


def list_entries(ctx: StoreContext, req: ListRequest) -> ListResult:
    """List memories, newest first or in the order asked for (REFERENCE A3: default 200, max
    1000); with `keys`, only those memories, in their given order unless a sort is asked for."""
    flt = memory_filter(ctx, req, purpose="listing project memories", daily_by_default=False)
    limit = min(req.limit or config.LIST_DEFAULT_LIMIT, config.LIST_MAX_LIMIT)
    where, params = filter_sql(flt)
    if req.keys is not None:
        where.append(KEYS_SQL)
        params["keys"] = json.dumps([[k.scope, k.workdir_hash, k.slug] for k in req.keys])
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    with ctx.index.read() as conn:
        projects = _projects_by_name(ctx, conn) if req.sort is SortField.SCOPE else None
        order, order_params = order_sql(req.sort, req.direction, project_order=projects)
        total = int(
            conn.execute(sa.text("SELECT COUNT(*) FROM memory_meta m" + clause), params).scalar()
            or 0
        )
        # A key list is short (at most LIST_MAX_LIMIT): read it whole, then put it in the
        # order of the keys when no sort was asked for, and take the page.
        page = "" if req.keys is not None else "LIMIT :limit OFFSET :offset"
        rows = list(
            conn.execute(
                sa.text(meta_page(clause, order, page)),
                {**params, **order_params, "limit": limit, "offset": req.offset},
            ).all()
        )
    if req.keys is not None:
        rows = _in_key_order(rows, req) if req.sort is None else rows
        rows = rows[req.offset : req.offset + limit]
    workdirs = ctx.workdirs({row.workdir_hash for row in rows})
    entries = [entry_from_row(row, workdirs) for row in rows]
    return ListResult(entries=entries, total=total, truncated=req.offset + len(rows) < total)


def _projects_by_name(ctx: StoreContext, conn: sa.Connection) -> list[str]:
    """The hashes of the projects with memories, in the order of their names."""
    hashes = {
        str(row[0])
        for row in conn.execute(
            sa.text("SELECT DISTINCT workdir_hash FROM memory_meta WHERE scope = 'project'")
        )
    }
    names = ctx.workdirs(hashes)
    return sorted(hashes, key=lambda h: (project_name(names.get(h), h).casefold(), h))


def _in_key_order(rows: list[sa.Row[Any]], req: ListRequest) -> list[sa.Row[Any]]:
    assert req.keys is not None
    position = {(k.scope, k.workdir_hash, k.slug): n for n, k in enumerate(req.keys)}
    return sorted(rows, key=lambda r: position.get((r.scope, r.workdir_hash, r.slug), 0))


def filtered_keys(ctx: StoreContext, flt: MemoryFilter) -> set[tuple[str, str, str]]:
    """(scope, workdir_hash, slug) of every memory the filter keeps (journal days as it says)."""
    where, params = filter_sql(flt)
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    with ctx.index.read() as conn:
        rows = conn.execute(
            sa.text("SELECT m.scope, m.workdir_hash, m.slug FROM memory_meta m" + clause), params
        ).all()
    return {(str(row[0]), str(row[1]), str(row[2])) for row in rows}


def dated_keys(
    ctx: StoreContext, flt: MemoryFilter, spans: list[DateSpan], limit: int
) -> list[tuple[str, str, str]]:
    """(scope, workdir_hash, slug) of at most `limit` memories the filter keeps dated in
    `spans`, in no particular order (store/search_dates.py)."""
    with ctx.index.read() as conn:
        return search_dates.dated_keys(conn, flt, spans, limit)


def common_words(ctx: StoreContext, words: Sequence[str], share: float, minimum: int) -> list[str]:
    """The `words` more than `share` of the store's memories hold (store/word_shares.py)."""
    with ctx.index.read() as conn:
        return word_shares.common_words(conn, words, share, minimum)


def read(ctx: StoreContext, req: ReadRequest) -> ReadResult:
    """Read one memory, optionally a window of its body lines (REFERENCE read)."""
    with ctx.index.read() as conn:
        resolved = resolve(ctx, conn, req.slug, req.scope, req.workdir, req.workdir_hash)
    doc = _unmarked(resolved.doc, resolved.loaded.raw)
    lines = doc.body.split("\n") if doc.body else []
    total = len(lines)
    offset = min(req.offset or 0, total)
    available = total - offset
    length = min(req.length if req.length is not None else available, available)
    truncated = offset > 0 or offset + length < total
    extra = {k: v for k, v in doc.meta.extra.items()}
    content = split_evidence(doc.body)[1]
    skill = (
        parse_skill(content).view(doc.meta.description)
        if resolved.entry.type == MemoryType.SKILL
        else None
    )
    return ReadResult(
        entry=resolved.entry,
        body="\n".join(lines[offset : offset + length]),
        total_lines=total,
        window=ReadWindow(offset=offset, length=length, truncated=truncated),
        content=content,
        evidence=read_evidence(doc.body),
        source=dict(doc.meta.source)
        if doc.meta.type != MemoryType.DAILY
        else {"sources": doc.meta.sources},
        links=list(doc.meta.links),
        extra=extra,
        skill=skill,
    )


def entries_with_content(ctx: StoreContext, req: ListRequest) -> list[tuple[MemoryEntry, str]]:
    """Every memory a listing matches (all pages) with its text, evidence block removed.

    A file that vanished or stopped parsing since it was indexed is left out; the next
    reconcile reports it.
    """
    out: list[tuple[MemoryEntry, str]] = []
    offset = 0
    while True:
        page = list_entries(
            ctx, req.model_copy(update={"limit": config.LIST_MAX_LIMIT, "offset": offset})
        )
        out.extend(_with_content(ctx, page.entries))
        offset += len(page.entries)
        if not page.truncated or not page.entries:
            return out


def entries_with_content_page(
    ctx: StoreContext, req: ListRequest
) -> tuple[list[tuple[MemoryEntry, str]], bool]:
    """One page of `entries_with_content` (the request's own limit and offset), and whether
    more follow: a long pass reads page by page, so other calls can run between its pages."""
    page = list_entries(ctx, req)
    return _with_content(ctx, page.entries), page.truncated


def _with_content(ctx: StoreContext, entries: list[MemoryEntry]) -> list[tuple[MemoryEntry, str]]:
    """Each entry with its file's text, evidence block removed; a file that vanished or stopped
    parsing since it was indexed is left out."""
    out: list[tuple[MemoryEntry, str]] = []
    for entry in entries:
        try:
            loaded = load_file(ctx.root / entry.path)
        except (OSError, DocumentError):
            continue
        out.append((entry, split_evidence(loaded.doc.body)[1]))
    return out


def search(ctx: StoreContext, req: SearchRequest) -> SearchResult:
    """Keyword search (see store/search.py), with the list's filter."""
    flt = memory_filter(ctx, req, purpose="searching project memories", daily_by_default=True)
    limit = min(req.limit or config.SEARCH_DEFAULT_LIMIT, config.SEARCH_MAX_LIMIT)
    query = SearchQuery(text=req.query, filter=flt, limit=limit, explain=req.explain)
    with ctx.index.read() as conn:
        return run_search(conn, query, today=ctx.today())


def overview(ctx: StoreContext, workdir: str | None) -> OverviewBuckets:
    """Memory Index data for a system prompt (REFERENCE A6 buckets, gap fixed)."""
    project = ctx.hash_of(workdir, None)
    totals: dict[str, int] = {}
    in_global, _ = scope_sql(GLOBAL_ONLY, "m.")
    in_project, _ = scope_sql(Visibility(global_scope=False, project=project or ""), "m.")
    with ctx.index.read() as conn:

        def rows(bucket: str, where: str) -> list[OverviewEntry]:
            return _bucket(conn, bucket, where, project=project, totals=totals)

        user = rows("user", f"{in_global} AND {_USER_TYPES} AND {REVIEWED_SQL}")
        unreviewed_user = rows(
            "unreviewed_user", f"{in_global} AND {_USER_TYPES} AND NOT ({REVIEWED_SQL})"
        )
        project_rows = rows("project", f"{in_project} AND m.type != 'daily'") if project else []
        # A global memory shadowed by a project one of the same slug is left out (REFERENCE A5).
        global_rows = rows(
            "global",
            f"{in_global} AND m.type NOT IN ('daily', 'user', 'feedback') AND "
            "m.slug NOT IN (SELECT slug FROM memory_meta WHERE scope = 'project' "
            f"AND workdir_hash = :{PROJECT_PARAM} AND type != 'daily')",
        )
        days = conn.execute(
            sa.text(
                META_SELECT + " WHERE m.type = 'daily' AND m.archived = 0 "
                "ORDER BY m.date_local DESC LIMIT :n"
            ),
            {"n": config.RECENT_DAILY_DAYS},
        ).all()
    return OverviewBuckets(
        user=user,
        unreviewed_user=unreviewed_user,
        project=project_rows,
        global_=global_rows,
        recent_days=[_overview_entry(row) for row in days],
        root=str(ctx.root),
        workdir_hash=project,
        workdir=workdir if project else None,
        totals=totals,
        now_ms=ctx.now_ms(),
        today=ctx.today().isoformat(),
    )


def _bucket(
    conn: sa.Connection, bucket: str, where: str, *, project: str | None, totals: dict[str, int]
) -> list[OverviewEntry]:
    """One overview bucket, newest first, capped; its full size goes to `totals`."""
    n = config.OVERVIEW_BUCKET_LIMIT
    params = {"n": n, PROJECT_PARAM: project or ""}
    result = conn.execute(
        sa.text(meta_page(" WHERE " + where, "m.updated_at DESC, m.slug ASC", "LIMIT :n")), params
    ).all()
    totals[bucket] = len(result)
    if len(result) == n:  # capped: count the rest for the "N more hidden" note
        totals[bucket] = int(
            conn.execute(
                sa.text("SELECT COUNT(*) FROM memory_meta m WHERE " + where), params
            ).scalar_one()
        )
    return [_overview_entry(row) for row in result]


def _overview_entry(row: sa.Row[Any]) -> OverviewEntry:
    entry = entry_from_row(row)
    return OverviewEntry(
        slug=entry.slug,
        scope=entry.scope,
        type=entry.type,
        description=entry.description,
        headline=entry.headline,
        date_local=entry.date_local,
        updated_at=entry.updated_at,
        unreviewed=entry.unreviewed,
        confidence=entry.confidence,
    )


@dataclass(frozen=True)
class ScopeFigures:
    """One scope's memory counts and quota figures (SPEC 1.7): computed only here."""

    scope: str
    workdir_hash: str
    counts: dict[str, int]  # memories per type, daily included
    used: int  # ordinary (non-daily) memories: what counts toward the quota
    limit: int
    archived: int
    unreviewed: int  # ordinary memories nobody has reviewed yet
    oldest_unreviewed: int | None  # ms
    updated_at: int | None  # newest change to any of its memories (ms), None when empty

    @property
    def headroom(self) -> int:
        return max(0, self.limit - self.used)


_TYPES = tuple(t.value for t in MemoryType)
_SCOPE_FIGURES = (
    "SELECT scope, workdir_hash, "
    + ", ".join(f"SUM(type = '{t}') AS n_{t}" for t in _TYPES)
    + ", SUM(archived = 1) AS archived, SUM(ordinary AND unrev) AS unrev, "
    "MIN(CASE WHEN ordinary AND unrev THEN updated_at END) AS oldest, "
    "MAX(updated_at) AS newest "
    "FROM (SELECT *, type != 'daily' AS ordinary, "
    "IFNULL(json_extract(source_json, '$.unreviewed'), 0) = 1 AS unrev "
    "FROM memory_meta) GROUP BY scope, workdir_hash"
)


def scope_figures(ctx: StoreContext, *, also: set[tuple[str, str]]) -> list[ScopeFigures]:
    """Every scope holding memories, plus the (scope, workdir_hash) keys of `also` (empty if
    they hold none), each with its counts and quota figures: one GROUP BY over memory_meta."""
    with ctx.index.read() as conn:
        rows = {(r.scope, r.workdir_hash): r for r in conn.execute(sa.text(_SCOPE_FIGURES))}
    out: list[ScopeFigures] = []
    for scope, project in set(rows) | also:
        row = rows.get((scope, project))
        counts = {t: int(getattr(row, f"n_{t}") or 0) if row else 0 for t in _TYPES}
        out.append(
            ScopeFigures(
                scope=scope,
                workdir_hash=project,
                counts=counts,
                used=sum(n for t, n in counts.items() if t != MemoryType.DAILY),
                limit=ctx.limits.scope_limit,
                archived=int(row.archived or 0) if row else 0,
                unreviewed=int(row.unrev or 0) if row else 0,
                oldest_unreviewed=int(row.oldest) if row and row.oldest is not None else None,
                updated_at=int(row.newest) if row and row.newest is not None else None,
            )
        )
    return out


def quota_summary(ctx: StoreContext, workdir: str | None = None) -> QuotaSummary:
    """Per-scope quota figures and the ladder of the tightest scope (SPEC 1.7)."""
    project = ctx.hash_of(workdir, None)
    now = ctx.now_ms()
    also = {("global", "")} | ({("project", project)} if project else set())
    figures = sorted(
        scope_figures(ctx, also=also), key=lambda f: (f.scope != "global", f.workdir_hash)
    )
    workdirs = ctx.workdirs({f.workdir_hash for f in figures})
    scopes = [
        QuotaScope(
            scope=f.scope,
            workdir_hash=f.workdir_hash,
            workdir=workdirs.get(f.workdir_hash),
            used=f.used,
            limit=f.limit,
            headroom=f.headroom,
            archived=f.archived,
            unreviewed=f.unreviewed,
            oldest_unreviewed_days=round(clockmod.age_days(now, f.oldest_unreviewed), 2)
            if f.oldest_unreviewed is not None
            else None,
        )
        for f in figures
    ]
    tightest = min(s.headroom for s in scopes)
    level = quota_ladder(tightest)
    limit = ctx.limits.scope_limit
    target = limit - config.QUOTA_COMPRESSION_MARGIN if level.value != "normal" else None
    return QuotaSummary(
        scopes=scopes, ladder=level.value, tightest_headroom=tightest, compression_target=target
    )


def projects(ctx: StoreContext) -> ProjectsResult:
    """Every scope holding memories, the global one first, with counts and quota figures.

    The only per-project work is reading its .workdir.json and checking that the folder still
    exists (SPEC 6 cross-project index). Folders of one portable project (seen at several
    paths before its id was recorded) are one row (store/project_keys.py `group`).
    """
    figures = scope_figures(ctx, also={(Scope.GLOBAL.value, "")})
    found = project_keys.markers(ctx)
    out: list[ProjectSummary] = []
    for f in figures:
        marker = found.get(f.workdir_hash) if f.scope == Scope.PROJECT else None
        known = marker if isinstance(marker, ProjectMarker) else None
        paths = known.seen_paths() if known else []
        out.append(
            ProjectSummary(
                scope=f.scope,
                workdir_hash=f.workdir_hash,
                workdir=known.path if known else None,
                folder_exists=None,
                counts=f.counts,
                unreviewed=f.unreviewed,
                used=f.used,
                limit=f.limit,
                headroom=f.headroom,
                ladder=quota_ladder(f.headroom).value,
                updated_at=f.updated_at,
                project_id=known.project_id if known else None,
                paths=paths,
                folders=[f.workdir_hash] if f.scope == Scope.PROJECT else [],
                marker_problem=marker.code if isinstance(marker, ProjectMarkerInvalid) else None,
            )
        )
    created = {k: m.created_at for k, m in found.items() if isinstance(m, ProjectMarker)}
    out = project_keys.group(out, created=created)
    for row in out:
        # The folder shown is the first path that is there on this machine (a project seen on
        # several machines is "missing" only when none of its paths is here).
        here = next((p.path for p in row.paths if _is_dir(p.path)), None)
        row.workdir = here or row.workdir
        row.folder_exists = (here is not None) if row.workdir else None
    out.sort(key=lambda p: (p.scope != Scope.GLOBAL, -(p.updated_at or 0), p.workdir_hash))
    return ProjectsResult(projects=out, project_count=sum(p.scope == Scope.PROJECT for p in out))


def _is_dir(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def recent_rejections(ctx: StoreContext, req: RecentRejectionsRequest) -> list[RejectionEntry]:
    """Memories a person deleted recently (REFERENCE A4): extraction must not rewrite them."""
    days = min(
        max(req.since_days or config.REJECTIONS_DEFAULT_DAYS, config.REJECTIONS_MIN_DAYS),
        config.REJECTIONS_MAX_DAYS,
    )
    limit = min(max(req.limit or config.REJECTIONS_DEFAULT_LIMIT, 1), config.REJECTIONS_MAX_LIMIT)
    project = ctx.hash_of(req.workdir, None)
    cutoff = ctx.now_ms() - days * clockmod.MS_PER_DAY
    scope_clause, params = scope_sql(visibility(None, project))
    with ctx.index.read() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT slug, scope, workdir_hash, ts, actor, detail_json "
                "FROM memory_audit_log WHERE op = 'delete' AND actor = 'user' "
                f"AND ts >= :cutoff AND slug != '*' AND {scope_clause} "
                "ORDER BY ts DESC LIMIT :n"
            ),
            {**params, "cutoff": cutoff, "n": limit},
        ).all()
    seen: set[tuple[str, str, str]] = set()
    out: list[RejectionEntry] = []
    for row in rows:
        key = (row.scope, row.workdir_hash, row.slug)
        if key in seen:
            continue
        seen.add(key)
        reason = json_object(row.detail_json).get("reason")
        out.append(
            RejectionEntry(
                slug=row.slug,
                scope=row.scope,
                workdir_hash=row.workdir_hash,
                rejected_at=int(row.ts),
                actor=row.actor,
                reason=reason,
            )
        )
    return out


def _unmarked(doc: MemoryDocument, raw: bytes) -> MemoryDocument:
    """The document a read shows: a file holding git conflict markers as its first side, as
    the index holds it, so no marker reaches an agent's context (store/conflicts.py)."""
    if b"<<<<<<<" not in raw:
        return doc
    text = raw.decode("utf-8", "replace")
    if not conflicts.has_markers(text):
        return doc
    try:
        return parse_document(conflicts.ours(text))
    except DocumentError:
        return doc


def problems(ctx: StoreContext) -> list[dict[str, str]]:
    """Files reconcile could not index, with the reason (they stay on disk untouched), and
    the sync conflicts (store/conflicts.py), these with the code `sync_conflict`."""
    with ctx.index.read() as conn:
        rows = ctx.index.problems(conn) + episode_index.problems(conn)
        found = ctx.index.conflicts(conn)
    copies = {path for path, original, _ in found if path != original}
    listed = [
        {"path": path, "reason": reason, **({"code": SYNC_CONFLICT_CODE} if path in copies else {})}
        for path, reason in rows
    ]
    listed += [
        {"path": path, "reason": MARKERS_REASON, "code": SYNC_CONFLICT_CODE}
        for path, original, _ in found
        if path == original
    ]
    return sorted(listed, key=lambda problem: problem["path"])


def paths_info(ctx: StoreContext) -> dict[str, Any]:
    """Where the store is, how much it holds, and whether it sits in a synced cloud folder."""
    with ctx.index.read() as conn:
        counts = conn.execute(
            sa.text(
                "SELECT SUM(type != 'daily'), SUM(type = 'daily'), "
                "COUNT(DISTINCT CASE WHEN scope = 'project' THEN workdir_hash END) "
                "FROM memory_meta"
            )
        ).one()
    memories, dailies, project_count = (int(v or 0) for v in counts)
    lowered = str(ctx.root).lower()
    provider = next((name for needle, name in CLOUD_FOLDERS if needle in lowered), None)
    return {
        "root": str(ctx.root),
        "index_path": str(ctx.layout.index_path),
        "is_fresh": memories == 0 and dailies == 0,
        "is_in_cloud": provider is not None,
        "cloud_provider": provider,
        "memory_count": memories,
        "daily_count": dailies,
        "project_count": project_count,
    }


def footprint(ctx: StoreContext, workdir: str | None) -> dict[str, int]:
    """What loading everything for `workdir` would read (SPEC 6 "tokens saved")."""
    with ctx.index.read() as conn:
        counts = ctx.index.footprint(conn, visibility(None, ctx.hash_of(workdir, None)))
    names = ("memories", "memory_bytes", "memory_tokens", "episodes", "episode_bytes")
    return dict(zip((*names, "episode_tokens"), counts, strict=True))

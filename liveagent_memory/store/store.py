"""MemoryStore: the only code that touches memory files and the index.

Every mutation runs under the store's cross-process write lock: read the current file, write
the new one atomically, index it, append to the audit log, regenerate the scope's MEMORY.md.
Reads use the index without the lock (SQLite WAL gives them a consistent snapshot).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import sqlalchemy as sa

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import Clock, format_rfc3339, system_clock
from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    AppendModeRequired,
    BodyTooLarge,
    DailyArchived,
    InvalidArgument,
    InvalidType,
    MemoryDomainError,
    QuotaExceeded,
    ScopeAmbiguous,
    SkillInvalid,
    SlugExists,
    SlugNotFound,
    StoreUnavailable,
    VersionNotFound,
    WorkdirRequired,
)
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchItem,
    BatchRequest,
    DailyAppendRequest,
    DeleteProjectRequest,
    DeleteRequest,
    EpisodeListRequest,
    EpisodeReadRequest,
    EvidenceFields,
    HistoryRequest,
    JournalDaysRequest,
    ListRequest,
    Provenance,
    ReadRequest,
    RecentRejectionsRequest,
    RestoreRequest,
    SearchRequest,
    SkillInput,
    TimelineRequest,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.schema import (
    Actor,
    AuditOp,
    BatchItemResult,
    BatchItemStatus,
    BatchOp,
    BatchResult,
    BatchWarning,
    Episode,
    EpisodeListResult,
    EpisodeOutcome,
    EpisodeReadResult,
    EpisodeRecordResult,
    EpisodeSearchResult,
    Evidence,
    HistoryEntry,
    HistoryResult,
    JournalDay,
    JournalDaysResult,
    ListResult,
    MemoryEntry,
    MemoryType,
    MutationResult,
    OrganizeRun,
    OverviewBuckets,
    OverviewEntry,
    ProjectsResult,
    ProjectSummary,
    QuotaScope,
    QuotaSummary,
    ReadResult,
    ReadWindow,
    ReconcileReport,
    RejectionEntry,
    RiskClass,
    Scope,
    SearchResult,
    TaskType,
    Timeline,
    UpdateMode,
)
from liveagent_memory.organizer.quota import quota_ladder
from liveagent_memory.paths import canonical_workdir, default_home, workdir_hash
from liveagent_memory.store import episodes as episode_store
from liveagent_memory.store import rules, runs
from liveagent_memory.store.damage import IndexDamaged
from liveagent_memory.store.db import json_object
from liveagent_memory.store.documents import LoadedFile, describe, load_file, sha256_hex
from liveagent_memory.store.episode_timeline import build_timeline
from liveagent_memory.store.evidence import (
    DocumentError,
    FrontMatter,
    MemoryDocument,
    apply_evidence,
    evidence_from_block,
    is_evidence_only,
    join_evidence,
    parse_document,
    read_evidence,
    render_document,
    split_evidence,
)
from liveagent_memory.store.files import (
    FileChanges,
    FoundFile,
    Layout,
    WriteLock,
    atomic_write,
    ensure_private_dir,
    fsync_dir,
    move_file,
    read_workdir_marker,
    store_unavailable,
    write_workdir_marker,
)
from liveagent_memory.store.index import Index, OpenReport
from liveagent_memory.store.merge import merge_bodies
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.reconcile import reconcile as run_reconcile
from liveagent_memory.store.rows import IndexRow
from liveagent_memory.store.search import SearchQuery
from liveagent_memory.store.search import search as run_search
from liveagent_memory.store.skills import merge_skills, parse_skill, render_skill, skill_from_input

log = logging.getLogger(__name__)

EVIDENCE_FIELDS = frozenset(EvidenceFields.model_fields)
ACTOR_ALIASES = {"extraction": "extractor", "organizer": "extractor", "person": "user"}
CLOUD_FOLDERS = (
    ("mobile documents", "iCloud"),
    ("icloud", "iCloud"),
    ("dropbox", "Dropbox"),
    ("onedrive", "OneDrive"),
    ("google drive", "Google Drive"),
)

_META_SELECT = (
    "SELECT m.scope, m.workdir_hash, m.slug, m.type, m.description, m.headline, m.date_local, "
    "m.created_at, m.updated_at, m.append_count, m.archived, m.source_json, m.file_size, "
    "f.path FROM memory_meta m JOIN memory_files f ON f.scope = m.scope "
    "AND f.workdir_hash = m.workdir_hash AND f.slug = m.slug AND f.problem IS NULL"
)


def _meta_page(clause: str, order: str, limit: str) -> str:
    """Select a page of rows: filter, order and limit memory_meta alone, then join the files.

    Joining after the LIMIT keeps a 10k-row scope from paying one file lookup per row.
    """
    return (
        "SELECT m.scope, m.workdir_hash, m.slug, m.type, m.description, m.headline, "
        "m.date_local, m.created_at, m.updated_at, m.append_count, m.archived, m.source_json, "
        f"m.file_size, f.path FROM (SELECT * FROM memory_meta m{clause} ORDER BY {order} "
        f"{limit}) m JOIN memory_files f ON f.scope = m.scope AND f.workdir_hash = "
        f"m.workdir_hash AND f.slug = m.slug AND f.problem IS NULL ORDER BY {order}"
    )


@dataclass
class _Changes:
    """What a mutation touched: its files (to flush, or to put back if it fails) and the
    scopes whose MEMORY.md to refresh."""

    files: FileChanges
    scopes: set[tuple[str, str]] = field(default_factory=set)


P = ParamSpec("P")
T = TypeVar("T")


def _heals(
    method: Callable[Concatenate[MemoryStore, P], T],
) -> Callable[Concatenate[MemoryStore, P], T]:
    """Run a store method again after rebuilding an index SQLite found damaged in use.

    The index is a cache of the files: damage that `quick_check` missed at open (broken FTS5
    blocks) is handled like a corrupt file at open, quarantined and rebuilt, instead of failing
    this and every later call. Only for methods that change nothing before they fail (one
    transaction); apply_batch, which commits chunk by chunk, resumes by itself.
    """

    @functools.wraps(method)
    def healing(store: MemoryStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(store, *args, **kwargs)
        except IndexDamaged as exc:
            store.rebuild_damaged_index(exc)
        return method(store, *args, **kwargs)

    return healing


@dataclass
class _Resolved:
    entry: MemoryEntry
    path: Path
    loaded: LoadedFile

    @property
    def doc(self) -> MemoryDocument:
        return self.loaded.doc


def _entry(row: sa.Row[Any], workdirs: dict[str, str | None] | None = None) -> MemoryEntry:
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


def normalize_actor(raw: str | None, *, default: Actor = Actor.TOOL) -> Actor:
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


def _refuse_secret_input(req: Provenance, what: str) -> None:
    """SPEC 7: refuse a request whose provenance, reason, workdir or slug holds a secret.

    Body and description are scanned after evidence is applied (rules.refuse_secrets).
    """
    rules.refuse_secret_fields(req.model_dump(exclude={"body", "description"}), what=what)


class MemoryStore:
    """A store of memory files plus its SQLite index (see module docstring)."""

    def __init__(
        self,
        layout: Layout,
        index: Index,
        open_report: OpenReport,
        *,
        clock: Clock,
        scope_limit: int,
        rollover_hour: int,
        retention_days: int,
        executes_runs: bool = True,
    ) -> None:
        self.layout = layout
        self.index = index
        self.open_report = open_report
        self._clock = clock
        self.scope_limit = scope_limit
        self.rollover_hour = rollover_hour
        self.retention_days = retention_days
        self.executes_runs = executes_runs
        self._lock = WriteLock(layout.lock_path)
        self.last_reconcile: ReconcileReport | None = None

    # --- lifecycle --------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path | str | None = None,
        *,
        clock: Clock = system_clock,
        scope_limit: int = config.SCOPE_MEMORY_LIMIT,
        rollover_hour: int = config.DAILY_ROLLOVER_HOUR,
        retention_days: int = config.DAILY_RETENTION_DAYS,
        reconcile: bool = True,
        executes_runs: bool = True,
    ) -> MemoryStore:
        """Open (creating if needed) the store at `root` and bring its index up to date.

        `executes_runs=False` is for one-shot processes (the `call` command) that never run the
        organizer pipeline: an organizer run they create without `due_at` is queued for the
        desktop app, and a run they claim is held only by its lease (issue 12).
        """
        path = Path(root).expanduser() if root is not None else default_home()
        layout = Layout(path.absolute())
        if layout.root.exists() and not layout.root.is_dir():
            raise StoreUnavailable(f"{layout.root} exists and is not a folder")
        layout.ensure()
        lock = WriteLock(layout.lock_path)
        with lock:
            index, report = Index.open(layout, now_ms=clock())
            store = cls(
                layout,
                index,
                report,
                clock=clock,
                scope_limit=scope_limit,
                rollover_hour=rollover_hour,
                retention_days=retention_days,
                executes_runs=executes_runs,
            )
            store._lock = lock
            try:
                if reconcile:
                    try:
                        store.last_reconcile = store._reconcile_locked(full=report.created)
                    except IndexDamaged as exc:
                        store.rebuild_damaged_index(exc)
                store._collect_garbage()
            except BaseException:
                store.index.close()
                raise
        return store

    def rebuild_damaged_index(self, damage: IndexDamaged) -> None:
        """Quarantine an index found damaged while in use and rebuild it from the files.

        Its audit log and run history are copied over when still readable. If another
        process already replaced the file, this one just reconnects to it.
        """
        with self._lock:
            log.warning("the memory index is damaged (%s); rebuilding it from the files", damage)
            self.index, moved = self.index.replace_damaged(self.now_ms())
            if moved is not None:
                self.open_report = OpenReport(True, str(moved), None)
                self.last_reconcile = self._reconcile_locked(full=True)

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root(self) -> Path:
        return self.layout.root

    def now_ms(self) -> int:
        return self._clock()

    def today(self) -> date:
        """The journal's today (local date, before 04:00 still yesterday)."""
        return clockmod.journal_date(self._clock(), self.rollover_hour)

    # --- helpers ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _mutation(self) -> Iterator[_Changes]:
        """Hold the write lock for one mutation; if it fails, put its files back.

        An error means nothing changed (or says what did: the files that could not be put
        back). MEMORY.md is refreshed after the commit; a refresh that fails is left to the
        next reconcile (the scope stays marked dirty) instead of turning a saved change into
        an error.
        """
        with self._lock:
            changes = _Changes(FileChanges(self.layout))
            try:
                yield changes
            except BaseException as exc:
                stuck = changes.files.rollback()
                if stuck and isinstance(exc, MemoryDomainError):
                    exc.message += (
                        f" (the change could not be taken back from {', '.join(stuck)}; "
                        "the next reconcile indexes what is there)"
                    )
                    exc.args = (exc.message,)
                raise
            finally:
                for folder in sorted(changes.files.dirs):
                    fsync_dir(folder)
                for scope, project in sorted(changes.scopes):
                    try:
                        self._refresh_scope_index(scope, project)
                    except StoreUnavailable as exc:
                        log.warning("MEMORY.md of %s %s not refreshed: %s", scope, project, exc)

    def _hash_of(self, workdir: str | None, explicit_hash: str | None) -> str | None:
        explicit = rules.normalize_workdir_hash(explicit_hash)
        if explicit:
            return explicit
        if workdir and workdir.strip():
            return workdir_hash(workdir)
        return None

    def _workdirs(self, hashes: set[str]) -> dict[str, str | None]:
        return {h: read_workdir_marker(self.layout.project_dir(h)) for h in hashes if h}

    def _resolve(
        self,
        conn: sa.Connection,
        slug_input: str,
        scope_input: str | None,
        workdir: str | None,
        workdir_hash_input: str | None,
    ) -> _Resolved:
        """Find one existing memory (REFERENCE resolve_entry) and read its file."""
        if rules.is_daily_slug(slug_input):
            slug = rules.normalize_daily_slug(slug_input, today=self.today().isoformat())
        else:
            slug = rules.normalize_slug(slug_input, action="read")
        scope = rules.normalize_scope_filter(scope_input)
        project = self._hash_of(workdir, workdir_hash_input)
        where = ["m.slug = :slug"]
        params: dict[str, Any] = {"slug": slug, "hash": project or ""}
        # Global rows have workdir_hash '': saying so lets SQLite find the slug through the
        # (scope, workdir_hash, slug) key instead of scanning every global row (6 ms at 10k).
        if scope is Scope.GLOBAL:
            where.append("m.scope = 'global' AND m.workdir_hash = ''")
        elif scope is Scope.PROJECT:
            if project is None:
                raise WorkdirRequired("project memory requires a workdir", field="workdir")
            where.append("m.scope = 'project' AND m.workdir_hash = :hash")
        else:
            where.append(
                "((m.scope = 'global' AND m.workdir_hash = '') OR "
                "(m.scope = 'project' AND m.workdir_hash = :hash))"
            )
        rows = conn.execute(sa.text(_META_SELECT + " WHERE " + " AND ".join(where)), params).all()
        if not rows:
            raise self._not_found(conn, slug)
        if len(rows) > 1:
            raise ScopeAmbiguous(
                f"memory slug {slug!r} exists in more than one scope; pass scope",
                candidates=[{"slug": r.slug, "scope": r.scope} for r in rows],
                field="scope",
            )
        row = rows[0]
        entry = _entry(row, self._workdirs({row.workdir_hash}))
        path = self.layout.abspath(row.path)
        try:
            loaded = load_file(path)
        except FileNotFoundError:
            raise SlugNotFound(
                f"the file of memory {slug!r} is missing ({row.path}); run reconcile",
                suggested_next_call={"action": "search", "query": slug.replace("-", " ")},
            ) from None
        except DocumentError as exc:
            raise MemoryDomainError(
                f"memory file {row.path} cannot be read: {exc.reason}", code="file_unparsable"
            ) from exc
        except OSError as exc:
            raise store_unavailable(exc, path) from exc
        return _Resolved(entry, path, loaded)

    def _not_found(self, conn: sa.Connection, slug: str) -> SlugNotFound:
        pattern = "%" + slug.replace("-", "%") + "%"
        rows = conn.execute(
            sa.text(
                "SELECT slug, scope FROM memory_meta WHERE slug LIKE :p "
                "ORDER BY updated_at DESC LIMIT :n"
            ),
            {"p": pattern, "n": config.SLUG_CANDIDATES_LIMIT},
        ).all()
        day = rules.DAILY_SLUG_PATTERN.match(slug)
        suggestion: dict[str, Any] = (
            {"action": "search", "query": day.group(1)}
            if day
            else {"action": "search", "query": slug.replace("-", " ")}
        )
        return SlugNotFound(
            f"memory slug {slug!r} was not found",
            suggested_next_call=suggestion,
            candidates=[{"slug": r.slug, "scope": r.scope} for r in rows],
        )

    def _count_ordinary(
        self, conn: sa.Connection, scope: str, project: str, *, cap: int | None = None
    ) -> int:
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

    def _check_quota(self, conn: sa.Connection, scope: str, project: str) -> None:
        used = self._count_ordinary(conn, scope, project, cap=self.scope_limit)
        if used >= self.scope_limit:
            where = "global scope" if scope == Scope.GLOBAL else f"project {project}"
            raise QuotaExceeded(
                f"the {where} already holds {used} memories (limit {self.scope_limit}); "
                "update or delete one, or run the organizer",
                suggested_next_call={"action": "list", "scope": scope, "include_daily": False},
            )

    def _save(
        self,
        conn: sa.Connection,
        changes: _Changes,
        path: Path,
        doc: MemoryDocument,
        *,
        scope: str,
        project: str,
        archived: bool = False,
    ) -> tuple[IndexRow, bytes]:
        """Write a document atomically and index it exactly as reconcile would."""
        text = render_document(doc)
        try:
            loaded = LoadedFile(text.encode("utf-8"), parse_document(text))
        except (UnicodeEncodeError, DocumentError) as exc:
            # A value no request model should have let through: refuse it before any byte
            # reaches the disk, so the file never exists in a form the index cannot hold.
            reason = exc.reason if isinstance(exc, DocumentError) else "an invalid character"
            raise InvalidArgument(f"memory {doc.meta.name!r} cannot be stored: {reason}") from None
        data = loaded.raw
        if b"\x00" in data:  # a file with a NUL could not be read back (load_bytes)
            raise InvalidArgument(f"memory {doc.meta.name!r} cannot be stored: it holds a NUL")
        changes.files.write(path, data)
        stat = path.stat()
        found = FoundFile(
            relpath=self.layout.relpath(path),
            abspath=str(path),
            scope=Scope(scope),
            workdir_hash=project,
            archived=archived,
            in_daily_folder=path.parent == self.layout.daily_dir or archived,
            mtime_ns=stat.st_mtime_ns,
            size=stat.st_size,
        )
        row = describe(found, loaded)
        self.index.upsert(conn, row)
        changes.scopes.add((scope, project))
        return row, data

    def _refresh_scope_index(self, scope: str, project: str) -> None:
        """Regenerate a scope folder's MEMORY.md (REFERENCE A1), only when it changed."""
        folder = self.layout.scope_dir(scope, project)
        if not folder.is_dir() or folder.is_symlink():  # a linked folder is not the store's
            with self.index.write() as conn:
                self.index.clear_dirty(conn, scope, project)
            return
        # A skill's line links to its file (skills/<slug>.md, relative to this folder); the
        # other lines keep LiveAgent's exact format, so a store without skills gets the same
        # MEMORY.md as LiveAgent writes.
        prefix = self.layout.relpath(folder) + "/"
        with self.index.read() as conn:
            rows = conn.exec_driver_sql(
                "SELECT '- [' || slug || ']' || CASE WHEN type = 'skill' THEN IFNULL('(' || "
                "substr((SELECT f.path FROM memory_files f WHERE f.scope = m.scope AND "
                "f.workdir_hash = m.workdir_hash AND f.slug = m.slug AND f.problem IS NULL), "
                "length(?) + 1) || ')', '') ELSE '' END || ' type=' || type || CASE WHEN "
                "IFNULL(json_extract(source_json, '$.unreviewed'), 0) = 1 "
                "THEN ' (unreviewed)' ELSE '' END || ' — ' || description FROM memory_meta m "
                "WHERE scope = ? AND workdir_hash = ? AND type != 'daily' "
                "ORDER BY updated_at DESC, slug ASC",
                (prefix, scope, project),
            ).all()
        lines = [
            "# MEMORY",
            "",
            "This file is auto-generated by LiveAgent Memory. Edit individual memory "
            "Markdown files instead.",
            "",
        ]
        lines.extend(row[0] for row in rows)
        lines.append("")
        data = "\n".join(lines).encode("utf-8")
        target = folder / config.SCOPE_INDEX_FILENAME
        try:
            unchanged = target.read_bytes() == data
        except OSError:
            unchanged = False
        if not unchanged:
            atomic_write(target, data)
        with self.index.write() as conn:
            self.index.clear_dirty(conn, scope, project)

    @staticmethod
    def _source(
        previous: dict[str, Any],
        *,
        actor: Actor,
        unreviewed: bool,
        conversation_id: str | None,
        trigger: str | None,
        model: str | None,
        risk_flag: str | None,
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

    def _prepare_body(
        self, body: str, evidence: Evidence | None, *, previous_body: str | None = None
    ) -> tuple[str, str | None, bool | None]:
        """Apply structured (or inline) evidence to a body under the confidence contract."""
        block, content = split_evidence(body)
        if evidence is None and block is not None and block.strip():
            evidence = evidence_from_block(block)
        if evidence is None:
            return body.strip(), None, None
        new_body, confidence, downgraded = apply_evidence(
            content, evidence, previous_body=previous_body
        )
        return new_body, confidence.value, downgraded

    # --- reads ------------------------------------------------------------------------------

    @_heals
    def list_entries(self, req: ListRequest) -> ListResult:
        """List memories, newest first (REFERENCE A3: default 200, max 1000)."""
        scope = rules.normalize_scope_filter(req.scope)
        project = self._hash_of(req.workdir, req.workdir_hash)
        if scope is Scope.PROJECT and project is None and not req.include_all_projects:
            raise WorkdirRequired("listing project memories requires a workdir", field="workdir")
        type_filter = rules.normalize_type(req.type, allow_daily=True) if req.type else None
        include_daily = req.include_daily or type_filter is MemoryType.DAILY
        limit = min(req.limit or config.LIST_DEFAULT_LIMIT, config.LIST_MAX_LIMIT)
        where: list[str] = []
        params: dict[str, Any] = {"hash": project or ""}
        if not include_daily:
            where.append("m.type != 'daily'")
        if scope is not None:
            where.append("m.scope = :scope")
            params["scope"] = scope.value
        if type_filter is not None:
            where.append("m.type = :type")
            params["type"] = type_filter.value
        if not req.include_all_projects:
            if project:
                where.append("(m.scope = 'global' OR m.workdir_hash = :hash)")
            else:
                where.append("m.scope = 'global'")
        if req.unreviewed is True:
            where.append("json_extract(m.source_json, '$.unreviewed') = 1")
        elif req.unreviewed is False:
            where.append("IFNULL(json_extract(m.source_json, '$.unreviewed'), 0) != 1")
        if req.confidence is not None:
            where.append("IFNULL(json_extract(m.source_json, '$.confidence'), 'unknown') = :conf")
            params["conf"] = req.confidence.value
        if req.risk_flagged is True:
            where.append("IFNULL(json_extract(m.source_json, '$.risk_flag'), '') != ''")
        elif req.risk_flagged is False:
            where.append("IFNULL(json_extract(m.source_json, '$.risk_flag'), '') = ''")
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        with self.index.read() as conn:
            total = int(
                conn.execute(
                    sa.text("SELECT COUNT(*) FROM memory_meta m" + clause), params
                ).scalar()
                or 0
            )
            rows = conn.execute(
                sa.text(
                    _meta_page(
                        clause, "m.updated_at DESC, m.slug ASC", "LIMIT :limit OFFSET :offset"
                    )
                ),
                {**params, "limit": limit, "offset": req.offset},
            ).all()
        workdirs = self._workdirs({row.workdir_hash for row in rows})
        entries = [_entry(row, workdirs) for row in rows]
        return ListResult(entries=entries, total=total, truncated=req.offset + len(rows) < total)

    @_heals
    def read(self, req: ReadRequest) -> ReadResult:
        """Read one memory, optionally a window of its body lines (REFERENCE read)."""
        with self.index.read() as conn:
            resolved = self._resolve(conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        doc = resolved.doc
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

    @_heals
    def entries_with_content(self, req: ListRequest) -> list[tuple[MemoryEntry, str]]:
        """Every memory a listing matches (all pages) with its text, evidence block removed.

        For whole-store passes such as the organizer's scan. A file that vanished or stopped
        parsing since it was indexed is left out; the next reconcile reports it.
        """
        out: list[tuple[MemoryEntry, str]] = []
        offset = 0
        while True:
            page = self.list_entries(
                req.model_copy(update={"limit": config.LIST_MAX_LIMIT, "offset": offset})
            )
            for entry in page.entries:
                try:
                    loaded = load_file(self.root / entry.path)
                except (OSError, DocumentError):
                    continue
                out.append((entry, split_evidence(loaded.doc.body)[1]))
            offset += len(page.entries)
            if not page.truncated or not page.entries:
                return out

    @_heals
    def search(self, req: SearchRequest) -> SearchResult:
        """Keyword search (see store/search.py)."""
        scope = rules.normalize_scope_filter(req.scope)
        project = self._hash_of(req.workdir, None)
        if scope is Scope.PROJECT and project is None and not req.include_all_projects:
            raise WorkdirRequired("searching project memories requires a workdir", field="workdir")
        type_filter = rules.normalize_type(req.type, allow_daily=True) if req.type else None
        limit = min(req.limit or config.SEARCH_DEFAULT_LIMIT, config.SEARCH_MAX_LIMIT)
        query = SearchQuery(
            text=req.query,
            scope=scope,
            workdir_hash=project,
            all_projects=req.include_all_projects,
            type=type_filter,
            limit=limit,
            explain=req.explain,
        )
        with self.index.read() as conn:
            return run_search(conn, query, today=self.today())

    @_heals
    def overview(self, workdir: str | None) -> OverviewBuckets:
        """Memory Index data for a system prompt (REFERENCE A6 buckets, gap fixed)."""
        project = self._hash_of(workdir, None)
        n = config.OVERVIEW_BUCKET_LIMIT
        order = "m.updated_at DESC, m.slug ASC"
        reviewed = "IFNULL(json_extract(m.source_json, '$.unreviewed'), 0) != 1"
        user_types = "m.type IN ('user', 'feedback')"
        with self.index.read() as conn:
            totals: dict[str, int] = {}

            def rows(bucket: str, where: str) -> list[OverviewEntry]:
                params = {"n": n, "hash": project or ""}
                result = conn.execute(
                    sa.text(_meta_page(" WHERE " + where, order, "LIMIT :n")), params
                ).all()
                totals[bucket] = len(result)
                if len(result) == n:  # capped: count the rest for the "N more hidden" note
                    totals[bucket] = int(
                        conn.execute(
                            sa.text("SELECT COUNT(*) FROM memory_meta m WHERE " + where), params
                        ).scalar_one()
                    )
                return [_overview_entry(row) for row in result]

            user = rows("user", f"m.scope = 'global' AND {user_types} AND {reviewed}")
            unreviewed_user = rows(
                "unreviewed_user", f"m.scope = 'global' AND {user_types} AND NOT ({reviewed})"
            )
            project_rows = (
                rows(
                    "project",
                    "m.scope = 'project' AND m.workdir_hash = :hash AND m.type != 'daily'",
                )
                if project
                else []
            )
            global_rows = rows(
                "global",
                "m.scope = 'global' AND m.type NOT IN ('daily', 'user', 'feedback') AND "
                "m.slug NOT IN (SELECT slug FROM memory_meta WHERE scope = 'project' "
                "AND workdir_hash = :hash AND type != 'daily')",
            )
            days = conn.execute(
                sa.text(
                    _META_SELECT + " WHERE m.type = 'daily' AND m.archived = 0 "
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
            root=str(self.root),
            workdir_hash=project,
            workdir=workdir if project else None,
            totals=totals,
            now_ms=self.now_ms(),
            today=self.today().isoformat(),
        )

    # --- organizer runs (REFERENCE A10) -------------------------------------------------------

    def _run_owner(self) -> RunOwner:
        """This process as the owner of the runs it creates or claims."""
        return RunOwner.current() if self.executes_runs else RunOwner.one_shot()

    @_heals
    def organize_run_create(self, /, **fields: Any) -> tuple[OrganizeRun, bool]:
        """Claim the organizer (one active run); returns (run, claimed)."""
        rules.refuse_secret_fields(fields, what="organize_run_create")
        with self._lock, self.index.write() as conn:
            return runs.create(conn, self.now_ms(), owner=self._run_owner(), **fields)

    @_heals
    def organize_run_update(self, /, run_id: str, **fields: Any) -> OrganizeRun:
        """Record a run's progress; refused whole if any text (report, error) holds a secret."""
        rules.refuse_secret_fields(fields, what="organize_run_update")
        with self._lock, self.index.write() as conn:
            return runs.update(conn, self.now_ms(), run_id, **fields)

    @_heals
    def organize_run_read(self, run_id: str) -> OrganizeRun:
        with self._lock, self.index.write() as conn:  # may fail an abandoned run first
            runs.reap(conn, self.now_ms())
            return runs.read(conn, run_id)

    @_heals
    def organize_run_list(self, *, limit: int, status: str | None = None) -> list[OrganizeRun]:
        with self._lock, self.index.write() as conn:
            runs.reap(conn, self.now_ms())
            return runs.list_runs(conn, limit=limit, status=status)

    @_heals
    def organize_run_clear_history(self) -> int:
        with self._lock, self.index.write() as conn:
            return runs.clear_history(conn)

    @_heals
    def organize_due_claim(self, now_ms: int | None = None) -> OrganizeRun | None:
        """Start the oldest due pending run, if nothing runs; None when there is none."""
        with self.index.read() as conn:
            # The app polls this every few seconds: with no active run (the usual case) one
            # indexed read answers, without taking the write lock.
            if not runs.any_active(conn):
                return None
        with self._lock, self.index.write() as conn:
            now = self.now_ms() if now_ms is None else now_ms
            return runs.claim_due(conn, now, owner=self._run_owner())

    @_heals
    def quota_summary(self, workdir: str | None = None) -> QuotaSummary:
        """Per-scope quota figures and the ladder of the tightest scope (SPEC 1.7)."""
        project = self._hash_of(workdir, None)
        now = self.now_ms()
        with self.index.read() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT scope, workdir_hash, SUM(ordinary) AS used, "
                    "SUM(archived = 1) AS archived, SUM(ordinary AND unrev) AS unrev, "
                    "MIN(CASE WHEN ordinary AND unrev THEN updated_at END) AS oldest "
                    "FROM (SELECT *, type != 'daily' AS ordinary, "
                    "IFNULL(json_extract(source_json, '$.unreviewed'), 0) = 1 AS unrev "
                    "FROM memory_meta) GROUP BY scope, workdir_hash"
                )
            ).all()
        by_key = {(r.scope, r.workdir_hash): r for r in rows}
        keys = {("global", "")} | set(by_key)
        if project:
            keys.add(("project", project))
        workdirs = self._workdirs({h for _, h in keys})
        scopes: list[QuotaScope] = []
        for scope, h in sorted(keys, key=lambda k: (k[0] != "global", k[1])):
            row = by_key.get((scope, h))
            used = int(row.used or 0) if row else 0
            oldest = row.oldest if row else None
            scopes.append(
                QuotaScope(
                    scope=scope,
                    workdir_hash=h,
                    workdir=workdirs.get(h),
                    used=used,
                    limit=self.scope_limit,
                    headroom=max(0, self.scope_limit - used),
                    archived=int(row.archived or 0) if row else 0,
                    unreviewed=int(row.unrev or 0) if row else 0,
                    oldest_unreviewed_days=round(clockmod.age_days(now, int(oldest)), 2)
                    if oldest is not None
                    else None,
                )
            )
        tightest = min(s.headroom for s in scopes)
        level = quota_ladder(tightest)
        target = (
            self.scope_limit - config.QUOTA_COMPRESSION_MARGIN if level.value != "normal" else None
        )
        return QuotaSummary(
            scopes=scopes, ladder=level.value, tightest_headroom=tightest, compression_target=target
        )

    @_heals
    def recent_rejections(self, req: RecentRejectionsRequest) -> list[RejectionEntry]:
        """Memories a person deleted recently (REFERENCE A4): extraction must not rewrite them."""
        days = min(
            max(req.since_days or config.REJECTIONS_DEFAULT_DAYS, config.REJECTIONS_MIN_DAYS),
            config.REJECTIONS_MAX_DAYS,
        )
        limit = min(
            max(req.limit or config.REJECTIONS_DEFAULT_LIMIT, 1), config.REJECTIONS_MAX_LIMIT
        )
        project = self._hash_of(req.workdir, None)
        cutoff = self.now_ms() - days * 86_400_000
        scope_clause = (
            "(scope = 'global' OR (scope = 'project' AND workdir_hash = :hash))"
            if project
            else "scope = 'global'"
        )
        with self.index.read() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT slug, scope, workdir_hash, ts, actor, detail_json "
                    "FROM memory_audit_log WHERE op = 'delete' AND actor = 'user' "
                    f"AND ts >= :cutoff AND slug != '*' AND {scope_clause} "
                    "ORDER BY ts DESC LIMIT :n"
                ),
                {"cutoff": cutoff, "hash": project or "", "n": limit},
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

    @_heals
    def problems(self) -> list[dict[str, str]]:
        """Files reconcile could not index, with the reason (they stay on disk untouched)."""
        with self.index.read() as conn:
            rows = self.index.problems(conn) + episode_store.problems(conn)
        return [{"path": path, "reason": reason} for path, reason in rows]

    @_heals
    def paths_info(self) -> dict[str, Any]:
        with self.index.read() as conn:
            counts = conn.execute(
                sa.text(
                    "SELECT SUM(type != 'daily'), SUM(type = 'daily'), "
                    "COUNT(DISTINCT CASE WHEN scope = 'project' THEN workdir_hash END) "
                    "FROM memory_meta"
                )
            ).one()
        memories, dailies, projects = (int(v or 0) for v in counts)
        lowered = str(self.root).lower()
        provider = next((name for needle, name in CLOUD_FOLDERS if needle in lowered), None)
        return {
            "root": str(self.root),
            "index_path": str(self.layout.index_path),
            "is_fresh": memories == 0 and dailies == 0,
            "is_in_cloud": provider is not None,
            "cloud_provider": provider,
            "memory_count": memories,
            "daily_count": dailies,
            "project_count": projects,
        }

    @_heals
    def today_daily(self) -> ReadResult | None:
        """Today's journal, or None when nothing was appended today."""
        slug = f"daily-{self.today().isoformat()}"
        try:
            return self.read(ReadRequest(slug=slug, scope="global"))
        except SlugNotFound:
            return None

    # --- mutations --------------------------------------------------------------------------

    @_heals
    def write(self, req: WriteRequest) -> MutationResult:
        """Create a memory (`slug_exists` if it is already there)."""
        with self._mutation() as changes, self.index.write() as conn:
            return self._write(conn, changes, req)

    def _write(
        self, conn: sa.Connection, changes: _Changes, req: WriteRequest, *, upsert: bool = False
    ) -> MutationResult:
        actor = normalize_actor(req.actor)
        _refuse_secret_input(req, "memory_write")
        slug = rules.normalize_slug(req.slug)
        rules.refuse_journal_name(slug)
        scope = rules.normalize_scope(req.scope)
        memory_type = rules.normalize_type(req.type)
        if req.skill is None and "body" not in req.model_fields_set:
            raise InvalidArgument("memory_write needs a body", field="body")
        text = _request_text(req.skill, req.body, memory_type) or ""
        if memory_type is MemoryType.SKILL:
            _check_skill(text, req.description)  # before the description rule: it may serve
        description = rules.normalize_description(req.description)
        body, confidence, downgraded = self._prepare_body(text, req.evidence())
        rules.check_body_size(body, slug=slug)
        risk = rules.refuse_secrets(slug, body, description)
        project, workdir = "", None
        if scope is Scope.PROJECT:
            if not req.workdir or not req.workdir.strip():
                raise WorkdirRequired("project memory requires a workdir", field="workdir")
            workdir = canonical_workdir(req.workdir)
            project = workdir_hash(req.workdir)
        existing = self.index.path_for_key(conn, scope.value, project, slug)
        path = self.layout.path_for(scope.value, project, memory_type.value, slug)
        if existing is not None or path.exists():
            raise SlugExists(
                f"memory {slug!r} already exists in the {scope.value} scope",
                suggested_next_call={"action": "update", "slug": slug, "scope": scope.value},
            )
        self._check_quota(conn, scope.value, project)
        now = self.now_ms()
        # Only a person writes a reviewed memory: what a model writes (extraction, or the chat's
        # MemoryManager tool) waits for review like a model's accept would (issue 12).
        unreviewed = actor is not Actor.USER or risk is RiskClass.SOFT
        risk_flag = "low" if risk is RiskClass.SOFT else None
        doc = MemoryDocument(
            FrontMatter(
                name=slug,
                description=description,
                type=memory_type.value,
                scope=scope.value,
                created_at=format_rfc3339(now),
                updated_at=format_rfc3339(now),
                source=self._source(
                    {},
                    actor=actor,
                    unreviewed=unreviewed,
                    conversation_id=req.conversation_id,
                    trigger=req.trigger,
                    model=req.model,
                    risk_flag=risk_flag,
                ),
            ),
            body,
        )
        self.layout.check_inside(path)  # before the marker: nothing written through a link
        if workdir is not None:
            project_dir = self.layout.project_dir(project)
            ensure_private_dir(project_dir)
            write_workdir_marker(project_dir, workdir, now)
        row, data = self._save(conn, changes, path, doc, scope=scope.value, project=project)
        self._audit(
            conn,
            AuditOp.WRITE,
            (scope.value, project, slug),
            actor=actor.value,
            ts=now,
            req=req,
            detail={"type": memory_type.value, "after_hash": row.sha256, "path": row.path},
        )
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
        )

    @_heals
    def update(self, req: UpdateRequest) -> MutationResult:
        """Change an existing memory: body (replace or merge), description, type, evidence."""
        if rules.is_daily_slug(req.slug):
            return self._update_daily(req)
        with self._mutation() as changes, self.index.write() as conn:
            return self._update(conn, changes, req)

    def _update_daily(self, req: UpdateRequest) -> MutationResult:
        mode = (req.mode or "").strip()
        if mode != UpdateMode.APPEND:
            raise AppendModeRequired(
                'daily memory must be updated with mode="append"',
                suggested_next_call={"action": "update", "slug": req.slug, "mode": "append"},
                field="mode",
            )
        slug = rules.normalize_daily_slug(req.slug, today=self.today().isoformat())
        return self.append_daily(
            DailyAppendRequest(
                body=req.body or "",
                local_date=slug.removeprefix("daily-"),
                actor=req.actor,
                conversation_id=req.conversation_id,
                model=req.model,
                trigger=req.trigger,
            )
        )

    def _update(self, conn: sa.Connection, changes: _Changes, req: UpdateRequest) -> MutationResult:
        actor = normalize_actor(req.actor)
        _refuse_secret_input(req, "memory_update")
        default_mode = UpdateMode.MERGE if actor is Actor.EXTRACTOR else UpdateMode.REPLACE
        mode = rules.normalize_mode(req.mode, default_mode, slug=req.slug)
        resolved = self._resolve(conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        entry, doc = resolved.entry, resolved.doc
        if entry.type == MemoryType.DAILY:
            raise InvalidType("daily journals are appended, not updated", field="slug")
        memory_type = (
            rules.normalize_type(req.type) if req.type is not None else MemoryType(entry.type)
        )
        description = (
            rules.normalize_description(req.description)
            if req.description is not None
            else doc.meta.description
        )
        evidence = req.evidence()
        current = doc.body
        text = _request_text(req.skill, req.body, memory_type)
        evidence_only = (text is None or is_evidence_only(text)) and (
            req.skill is None and req.description is None and req.type is None
        )
        if text is None:
            body = current
        else:
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
        if memory_type is MemoryType.SKILL and not evidence_only:
            _check_skill(body, description)
        confidence: str | None = None
        downgraded: bool | None = None
        if evidence is not None:
            body, applied, downgraded = apply_evidence(body, evidence, previous_body=current)
            confidence = applied.value
        rules.check_body_size(body, slug=entry.slug)
        risk = rules.refuse_secrets(entry.slug, body, description)
        # Review state (REFERENCE A7, made stricter for issue 12): a person's update is
        # reviewed; a model's (extractor or tool) leaves a memory unreviewed once it changes
        # what the memory says, or a reviewed memory could be rewritten by a prompt injection
        # and stay reviewed. An evidence-only update keeps the state it had.
        if actor is Actor.USER:
            unreviewed = False
        else:
            unreviewed = entry.unreviewed if evidence_only else True
        risk_flag = "low" if risk is RiskClass.SOFT else None
        unreviewed = unreviewed or risk is RiskClass.SOFT
        now = self.now_ms()
        if req.trigger == config.ORGANIZE_TRIGGER:
            self._snapshot(changes, resolved, now)
        meta = doc.meta
        meta.type = memory_type.value
        meta.description = description
        meta.updated_at = format_rfc3339(now)
        meta.source = self._source(
            meta.source,
            actor=actor,
            unreviewed=unreviewed,
            conversation_id=req.conversation_id,
            trigger=req.trigger,
            model=req.model,
            risk_flag=risk_flag,
        )
        doc.body = body
        target = self.layout.path_for(
            entry.scope, entry.workdir_hash, memory_type.value, entry.slug
        )
        if target != resolved.path:
            self._refuse_foreign_file(target)
            self.index.remove(conn, entry.path)
        row, _ = self._save(
            conn, changes, target, doc, scope=entry.scope, project=entry.workdir_hash
        )
        if target != resolved.path:
            changes.files.remove(resolved.path, resolved.loaded.raw)
        self._audit(
            conn,
            AuditOp.UPDATE,
            (entry.scope, entry.workdir_hash, entry.slug),
            actor=actor.value,
            ts=now,
            req=req,
            detail={
                "type": memory_type.value,
                "mode": mode.value,
                "before_hash": sha256_hex(resolved.loaded.raw),
                "after_hash": row.sha256,
                "previous": resolved.loaded.text,
                "path": row.path,
            },
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
        )

    def _audit(
        self,
        conn: sa.Connection,
        op: AuditOp,
        key: tuple[str, str, str],
        *,
        actor: str,
        ts: int,
        detail: dict[str, Any],
        req: Provenance | None = None,
    ) -> None:
        """Log one mutation of memory `key` = (scope, project, slug) with who did it."""
        scope, project, slug = key
        self.index.audit(
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

    def _refuse_foreign_file(self, target: Path) -> None:
        """Never overwrite a file the index does not describe (e.g. one that failed to parse)."""
        if target.exists():
            raise SlugExists(
                f"{self.layout.relpath(target)} already exists and is not this memory; "
                "fix or move that file first (see memory_problems)",
            )

    def _snapshot(self, changes: _Changes, resolved: _Resolved, now: int) -> None:
        """Copy a memory aside before the organizer changes it (REFERENCE A1)."""
        folder = self.layout.snapshot_dir(resolved.entry.scope, resolved.entry.workdir_hash)
        changes.files.write(folder / f"{now}.{resolved.entry.slug}.md", resolved.loaded.raw)

    @_heals
    def delete(self, req: DeleteRequest) -> MutationResult:
        """Move a memory to its scope's .trash/ (restorable; audit records who and why)."""
        with self._mutation() as changes, self.index.write() as conn:
            return self._delete(conn, changes, req)

    def _delete(self, conn: sa.Connection, changes: _Changes, req: DeleteRequest) -> MutationResult:
        actor = normalize_actor(req.actor)
        _refuse_secret_input(req, "memory_delete")  # the reason goes to the audit log
        resolved = self._resolve(conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        entry = resolved.entry
        if entry.archived:
            raise DailyArchived("archived daily memory is read-only")
        now = self.now_ms()
        if req.trigger == config.ORGANIZE_TRIGGER:
            self._snapshot(changes, resolved, now)
        trash = changes.files.move(
            resolved.path,
            self.layout.trash_dir(entry.scope, entry.workdir_hash),
            f"{entry.slug}.{now}.md",
        )
        self.index.remove(conn, entry.path)
        changes.scopes.add((entry.scope, entry.workdir_hash))
        reason = (req.reason or "").strip() or None
        detail: dict[str, Any] = {
            "trashPath": self.layout.relpath(trash),
            "type": entry.type,
            "before_hash": sha256_hex(resolved.loaded.raw),
        }
        if reason:
            detail["reason"] = reason
        self._audit(
            conn,
            AuditOp.DELETE,
            (entry.scope, entry.workdir_hash, entry.slug),
            actor=actor.value,
            ts=now,
            req=req,
            detail=detail,
        )
        return MutationResult(
            slug=entry.slug,
            scope=entry.scope,
            workdir_hash=entry.workdir_hash,
            type=entry.type,
            deleted=True,
            unreviewed=entry.unreviewed,
            path=self.layout.relpath(trash),
        )

    @_heals
    def accept(self, req: AcceptRequest) -> MutationResult:
        """Mark a memory reviewed (REFERENCE accept: a person vouches for it)."""
        with self._mutation() as changes, self.index.write() as conn:
            return self._accept(conn, changes, req)

    def _accept(self, conn: sa.Connection, changes: _Changes, req: AcceptRequest) -> MutationResult:
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
        resolved = self._resolve(conn, req.slug, req.scope, req.workdir, req.workdir_hash)
        entry, doc = resolved.entry, resolved.doc
        if entry.type == MemoryType.DAILY:
            raise InvalidType("daily entries cannot be accepted", field="slug")
        now = self.now_ms()
        doc.meta.source = self._source(
            doc.meta.source,
            actor=actor,
            unreviewed=False,
            conversation_id=None,
            trigger=None,
            model=None,
            risk_flag=None,
        )
        row, _ = self._save(
            conn, changes, resolved.path, doc, scope=entry.scope, project=entry.workdir_hash
        )
        self._audit(
            conn,
            AuditOp.ACCEPT,
            (entry.scope, entry.workdir_hash, entry.slug),
            actor=actor.value,
            ts=now,
            detail={
                "unreviewed": False,
                "before_hash": sha256_hex(resolved.loaded.raw),
                "after_hash": row.sha256,
                "previous": resolved.loaded.text,
            },
        )
        return MutationResult(
            slug=entry.slug,
            scope=entry.scope,
            workdir_hash=entry.workdir_hash,
            type=entry.type,
            updated=True,
            unreviewed=False,
            path=row.path,
        )

    @_heals
    def append_daily(self, req: DailyAppendRequest) -> MutationResult:
        """Append an entry to a day's journal (today by default; SPEC 1.8)."""
        with self._mutation() as changes, self.index.write() as conn:
            return self._append_daily(conn, changes, req)

    def _append_daily(
        self, conn: sa.Connection, changes: _Changes, req: DailyAppendRequest
    ) -> MutationResult:
        actor = normalize_actor(req.actor)
        _refuse_secret_input(req, "memory_daily_append")  # its source: id, model, trigger
        if req.local_date:
            day = clockmod.parse_local_date(req.local_date)
            if day is None:
                raise InvalidArgument("local_date must be YYYY-MM-DD", field="local_date")
        else:
            day = self.today()
        slug = f"daily-{day.isoformat()}"
        text = req.body.strip()
        if not text:
            raise InvalidArgument("a journal entry needs text", field="body")
        rules.refuse_secrets(slug, text)
        if self.layout.archived_daily_path(day).exists():
            raise DailyArchived(f"the journal of {day.isoformat()} is archived and read-only")
        path = self.layout.path_for("global", "", MemoryType.DAILY.value, slug)
        holder = self.index.path_for_key(conn, "global", "", slug)
        if holder is not None and holder != self.layout.relpath(path):
            # Before anything is written: appending would index a second row for the key.
            raise SlugExists(
                f"{holder} holds the name {slug!r}, which belongs to the journal of "
                f"{day.isoformat()}; rename that memory to append to this day",
                field="local_date",
            )
        now = self.now_ms()
        try:
            loaded: LoadedFile | None = load_file(path)
        except FileNotFoundError:
            loaded = None
        except DocumentError as exc:
            raise MemoryDomainError(
                f"journal file {self.layout.relpath(path)} cannot be read: {exc.reason}",
                code="file_unparsable",
            ) from exc
        if loaded is not None:
            doc = loaded.doc
            previous_body = doc.body.rstrip()
        else:
            doc = MemoryDocument(FrontMatter(created_at=format_rfc3339(now)), "")
            previous_body = ""
        body = f"{previous_body}\n\n{text}" if previous_body else text
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
        warning = None
        if size >= config.DAILY_NEAR_LIMIT_BYTES:
            warning = f"{slug} is near the 32 KB daily limit; consolidate soon"
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
        row, _ = self._save(conn, changes, path, doc, scope="global", project="")
        self._audit(
            conn,
            (AuditOp.UPDATE if loaded else AuditOp.WRITE),
            ("global", "", slug),
            actor=actor.value,
            ts=now,
            req=req,
            detail={"type": "daily", "append": True, "appended": text, "after_hash": row.sha256},
        )
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

    # --- batch ------------------------------------------------------------------------------

    def apply_batch(self, req: BatchRequest) -> BatchResult:
        """Apply many operations, each validated on its own (SPEC 2).

        Items sharing a `group_id` (a merge) run together: the group's upserts and updates
        first, then its deletes — and the deletes are skipped if any upsert failed, so a
        merge never loses its sources. Every item gets a result; nothing stops the batch
        except a bug.
        """
        normalize_actor(req.actor)  # fail fast on a bad actor, before anything is written
        # The same for a secret in what every item shares (ids, model, trigger, workdir); each
        # item's own text is checked by its operation, so one bad item fails alone.
        fields = req.model_dump(exclude={"items", "daily_append"})
        rules.refuse_secret_fields(fields, what="memory_apply_batch")
        results: list[BatchItemResult] = []
        out = BatchResult(
            items=results, created=[], updated=[], deleted=[], warnings=[], warning_details=[]
        )
        items = list(req.items)
        units: list[list[int]] = []  # positions applied together: one item, or a merge group
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
        # Several items share one index transaction (each in its own savepoint): a commit per
        # item cost more than the item. The files are written one by one atomically either
        # way, and a crash is repaired by the next reconcile.
        chunks: list[list[list[int]]] = [[]]
        for unit in units:
            if sum(len(u) for u in chunks[-1]) >= config.BATCH_ITEMS_PER_TRANSACTION:
                chunks.append([])
            chunks[-1].append(unit)
        with self._mutation() as changes:
            for chunk in chunks:
                if not chunk:
                    continue
                before = _result_lengths(out)
                try:
                    self._batch_chunk(changes, req, items, chunk, out)
                except IndexDamaged as exc:
                    # The chunk was rolled back, index and files; the ones before it are
                    # committed. Rebuild the index and run this chunk again (once).
                    changes.files.rollback()
                    _truncate_result(out, before)
                    self.rebuild_damaged_index(exc)
                    self._batch_chunk(changes, req, items, chunk, out)
        results.sort(key=lambda r: r.index)
        out.applied = sum(r.status == BatchItemStatus.APPLIED for r in results)
        out.failed = sum(r.status == BatchItemStatus.FAILED for r in results)
        out.skipped = sum(r.status == BatchItemStatus.SKIPPED for r in results)
        return out

    def _batch_chunk(
        self,
        changes: _Changes,
        req: BatchRequest,
        items: list[BatchItem],
        units: list[list[int]],
        out: BatchResult,
    ) -> None:
        with self.index.write() as conn:
            for unit in units:
                if len(unit) == 1:
                    # The top-level daily_append sits after req.items; it reports index -1.
                    label = unit[0] if unit[0] < len(req.items) else -1
                    self._batch_item(conn, changes, req, label, items[unit[0]], out)
                else:
                    self._batch_group(conn, changes, req, unit, out)
        changes.files.commit()  # the chunk is in the index: its files stay whatever follows

    def _batch_group(
        self,
        conn: sa.Connection,
        changes: _Changes,
        req: BatchRequest,
        members: list[int],
        out: BatchResult,
    ) -> None:
        deletes = [p for p in members if req.items[p].op.strip() == BatchOp.DELETE]
        failed = False
        for position in members:
            if position in deletes:
                continue
            if not self._batch_item(conn, changes, req, position, req.items[position], out):
                failed = True
        for position in deletes:
            item = req.items[position]
            if failed:
                message = f"skipped delete {item.slug!r} because its merge group's write failed"
                self._record(
                    out,
                    position,
                    item,
                    BatchItemStatus.SKIPPED,
                    None,
                    {"error": "group_upsert_failed", "message": message},
                )
            else:
                self._batch_item(conn, changes, req, position, item, out)

    def _record(
        self,
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

    def _batch_item(
        self,
        conn: sa.Connection,
        changes: _Changes,
        req: BatchRequest,
        position: int,
        item: BatchItem,
        out: BatchResult,
    ) -> bool:
        mark = changes.files.mark()
        try:
            with conn.begin_nested():
                result = self._apply_item(conn, changes, req, item)
        except (MemoryDomainError, sa.exc.IntegrityError, sqlite3.IntegrityError) as exc:
            changes.files.rollback(mark)  # its savepoint is rolled back: so are its files
            error = (
                exc.to_dict()
                if isinstance(exc, MemoryDomainError)
                else {
                    "error": "index_unavailable",
                    "message": f"the index refused it: {getattr(exc, 'orig', exc)}",
                }
            )
            self._record(out, position, item, BatchItemStatus.FAILED, None, error)
            return False
        self._record(out, position, item, BatchItemStatus.APPLIED, result, None)
        return True

    def _apply_item(
        self, conn: sa.Connection, changes: _Changes, req: BatchRequest, item: BatchItem
    ) -> MutationResult:
        op = item.op.strip()
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
            return self._append_daily(conn, changes, DailyAppendRequest.model_validate(daily))
        if not item.slug:
            raise InvalidArgument(f"batch op {op!r} needs a slug", field="slug")
        target: dict[str, Any] = {
            "slug": item.slug,
            "scope": item.scope,
            "workdir": req.workdir,
            "workdir_hash": item.workdir_hash,
        }
        content: dict[str, Any] = {
            k: fields[k] for k in ("type", "description", "body", "mode") if k in fields
        }
        if op == BatchOp.DELETE:
            delete = {**target, "reason": item.reason, **who}
            return self._delete(conn, changes, DeleteRequest.model_validate(delete))
        if op == BatchOp.ACCEPT:  # with the batch's actor: only a person may accept
            accept = {**target, "actor": req.actor}
            return self._accept(conn, changes, AcceptRequest.model_validate(accept))
        if op == BatchOp.UPDATE:
            if rules.is_daily_slug(item.slug):
                raise InvalidArgument("append to a journal with op 'daily_append'", field="op")
            update = {**target, **content, **evidence, **who}
            return self._update(conn, changes, UpdateRequest.model_validate(update))
        if op != BatchOp.UPSERT:
            raise InvalidArgument(
                f"unsupported batch op {op!r} (use upsert, update, delete, accept, daily_append)",
                field="op",
            )
        missing = [name for name in ("type", "description", "body") if name not in fields]
        if missing:
            raise InvalidArgument(
                f"upsert of {item.slug!r} is missing {', '.join(missing)}", field=missing[0]
            )
        # REFERENCE: an upsert of an existing slug becomes an update (merge, or replace for
        # the organizer, which sends the complete merged body).
        scope = item.scope or ("project" if req.workdir else "global")
        slug = rules.normalize_slug(item.slug)
        project = self._hash_of(req.workdir, item.workdir_hash) if scope == "project" else ""
        if self.index.path_for_key(conn, scope, project or "", slug) is None:
            write: dict[str, Any] = {
                **target,
                "slug": slug,
                "scope": scope,
                **content,
                **evidence,
                **who,
            }
            write.pop("workdir_hash", None)
            write.pop("mode", None)
            return self._write(conn, changes, WriteRequest.model_validate(write))
        organize = req.trigger == config.ORGANIZE_TRIGGER
        default_mode = UpdateMode.REPLACE if organize else UpdateMode.MERGE
        update = {
            **target,
            "slug": slug,
            "scope": scope,
            "mode": default_mode.value,
            **content,
            **evidence,
            **who,
        }
        return self._update(conn, changes, UpdateRequest.model_validate(update))

    # --- history and restore ----------------------------------------------------------------

    def _history_key(
        self,
        conn: sa.Connection,
        slug_input: str,
        scope_input: str | None,
        workdir: str | None,
        workdir_hash_input: str | None,
    ) -> tuple[str, str, str, _Resolved | None]:
        """(scope, project, slug) of a memory that may exist or may only be in the trash."""
        try:
            resolved = self._resolve(conn, slug_input, scope_input, workdir, workdir_hash_input)
        except SlugNotFound:
            resolved = None
        if resolved is not None:
            e = resolved.entry
            return e.scope, e.workdir_hash, e.slug, resolved
        slug = rules.normalize_slug(slug_input, action="history")
        scope = rules.normalize_scope_filter(scope_input)
        project = self._hash_of(workdir, workdir_hash_input) or ""
        keys = []
        if scope in (None, Scope.GLOBAL):
            keys.append(("global", ""))
        if scope in (None, Scope.PROJECT) and project:
            keys.append(("project", project))
        known = [k for k in keys if self._has_past(conn, k[0], k[1], slug)]
        if not known:
            raise self._not_found(conn, slug)
        if len(known) > 1:
            raise ScopeAmbiguous(
                f"memory slug {slug!r} has history in more than one scope; pass scope",
                candidates=[{"slug": slug, "scope": s} for s, _ in known],
                field="scope",
            )
        return known[0][0], known[0][1], slug, None

    def _has_past(self, conn: sa.Connection, scope: str, project: str, slug: str) -> bool:
        if self.index.audit_rows(conn, scope, project, slug, 1):
            return True
        return bool(self._trash_versions(scope, project, slug))

    def _trash_versions(self, scope: str, project: str, slug: str) -> list[tuple[str, Path, int]]:
        found = []
        pattern = re.compile(rf"^{re.escape(slug)}\.(\d+)(?:-\d+)?\.md$")
        for path in _listdir(self.layout.trash_dir(scope, project)):
            match = pattern.match(path.name)
            if match:
                found.append((f"trash:{path.name}", path, int(match.group(1))))
        return found

    def _snapshot_versions(
        self, scope: str, project: str, slug: str
    ) -> list[tuple[str, Path, int]]:
        found = []
        pattern = re.compile(rf"^(\d+)\.{re.escape(slug)}\.md$")
        for path in _listdir(self.layout.snapshot_dir(scope, project)):
            match = pattern.match(path.name)
            if match:
                found.append((f"snapshot:{path.name}", path, int(match.group(1))))
        return found

    @_heals
    def history(self, req: HistoryRequest) -> HistoryResult:
        """Versions of a memory: audit log entries, trash copies and organizer snapshots."""
        limit = req.limit or config.HISTORY_DEFAULT_LIMIT
        with self.index.read() as conn:
            scope, project, slug, resolved = self._history_key(
                conn, req.slug, req.scope, req.workdir, req.workdir_hash
            )
            rows = self.index.audit_rows(conn, scope, project, slug, limit)
        entries: list[HistoryEntry] = []
        for row in rows:
            detail = json_object(row.detail_json)
            restorable = bool(detail.get("previous") or detail.get("previous_body"))
            entries.append(
                HistoryEntry(
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
                    restorable=restorable,
                    reason=detail.get("reason"),
                )
            )
        for kind, versions in (
            ("trash", self._trash_versions(scope, project, slug)),
            ("snapshot", self._snapshot_versions(scope, project, slug)),
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
        entries.sort(key=_history_order, reverse=True)
        return HistoryResult(
            slug=slug,
            scope=scope,
            workdir_hash=project,
            exists=resolved is not None,
            entries=entries[:limit],
        )

    @_heals
    def restore(self, req: RestoreRequest) -> MutationResult:
        """Make an earlier version (from history) the current one. Nothing is lost: the
        version being replaced is itself kept in the audit log."""
        actor = normalize_actor(req.actor, default=Actor.USER)
        with self._mutation() as changes, self.index.write() as conn:
            scope, project, slug, resolved = self._history_key(
                conn, req.slug, req.scope, req.workdir, req.workdir_hash
            )
            text = self._version_text(conn, scope, project, slug, req.version, resolved)
            try:
                doc = parse_document(text)
            except DocumentError as exc:
                raise VersionNotFound(
                    f"version {req.version} cannot be read: {exc.reason}", field="version"
                ) from exc
            memory_type = rules.normalize_type(doc.meta.type or "reference")
            if resolved is None:
                self._check_quota(conn, scope, project)
            now = self.now_ms()
            doc.meta.name, doc.meta.scope, doc.meta.type = slug, scope, memory_type.value
            doc.meta.updated_at = format_rfc3339(now)
            doc.meta.created_at = doc.meta.created_at or format_rfc3339(now)
            previous_unreviewed = doc.meta.unreviewed
            unreviewed = False if actor is Actor.USER else previous_unreviewed
            doc.meta.source = self._source(
                doc.meta.source,
                actor=actor,
                unreviewed=unreviewed,
                conversation_id=None,
                trigger=None,
                model=None,
                risk_flag=doc.meta.risk_flag,
            )
            rules.refuse_secrets(slug, text)  # the whole version: its source block too
            target = self.layout.path_for(scope, project, memory_type.value, slug)
            if resolved is None or resolved.path != target:
                self._refuse_foreign_file(target)
            if resolved is not None and resolved.path != target:
                self.index.remove(conn, resolved.entry.path)
                changes.files.remove(resolved.path, resolved.loaded.raw)
            row, _ = self._save(conn, changes, target, doc, scope=scope, project=project)
            self._audit(
                conn,
                AuditOp.RESTORE,
                (scope, project, slug),
                actor=actor.value,
                ts=now,
                detail={
                    "from": req.version,
                    "type": memory_type.value,
                    "before_hash": sha256_hex(resolved.loaded.raw) if resolved else None,
                    "after_hash": row.sha256,
                    "previous": resolved.loaded.text if resolved else None,
                },
            )
        return MutationResult(
            slug=slug,
            scope=scope,
            workdir_hash=project,
            type=memory_type.value,
            created=resolved is None,
            updated=resolved is not None,
            unreviewed=unreviewed,
            path=row.path,
        )

    def _version_text(
        self,
        conn: sa.Connection,
        scope: str,
        project: str,
        slug: str,
        version: str,
        resolved: _Resolved | None,
    ) -> str:
        kind, _, ref = version.partition(":")
        if kind == "audit" and ref.isdigit():
            row = self.index.audit_row(conn, int(ref))
            if row is None or (row.scope, row.workdir_hash, row.slug) != (scope, project, slug):
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
            self._trash_versions(scope, project, slug)
            if kind == "trash"
            else self._snapshot_versions(scope, project, slug)
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

    # --- maintenance ------------------------------------------------------------------------

    @_heals
    def reconcile(self, *, full: bool = False) -> ReconcileReport:
        """Bring the index in line with the files (incremental unless `full`)."""
        with self._lock:
            self.last_reconcile = self._reconcile_locked(full=full)
            return self.last_reconcile

    def _reconcile_locked(self, *, full: bool) -> ReconcileReport:
        report = run_reconcile(
            self.layout,
            self.index,
            full=full,
            today=self.today(),
            now_ms=self.now_ms(),
            refresh_scope=self._refresh_scope_index,
            retention_days=self.retention_days,
        )
        # Episode files in the same pass and report (store/episodes.py).
        episodes = episode_store.reconcile(self.layout, self.index, full=full)
        return episode_store.merge_report(report, episodes)

    @_heals
    def delete_project(self, req: DeleteProjectRequest) -> dict[str, Any]:
        """Move a whole project's memories to .quarantine/ (REFERENCE delete_project)."""
        actor = normalize_actor(req.actor, default=Actor.USER)
        rules.refuse_secret_fields(req.model_dump(), what="memory_delete_project")
        if not req.workdir.strip():
            raise WorkdirRequired("project memory deletion requires a workdir", field="workdir")
        project = workdir_hash(req.workdir)
        if not self.layout.project_dir(project).exists():
            project = self._project_by_marker(req.workdir) or project
        folder = self.layout.project_dir(project)
        now = self.now_ms()
        with self._lock, self.index.write() as conn:
            prefix = f"projects/{project}/"
            paths = [p for p in self.index.file_states(conn) if p.startswith(prefix)]
            count = self._count_ordinary(conn, "project", project)
            quarantine: Path | None = None
            if folder.exists():
                quarantine = move_file(
                    folder, self.layout.quarantine_dir, f"deleted-project-{project}-{now}"
                )
            for path in paths:
                self.index.remove(conn, path)
            if paths or quarantine is not None:
                detail: dict[str, Any] = {"workdir": req.workdir, "deletedCount": count}
                if quarantine is not None:
                    detail["quarantinePath"] = self.layout.relpath(quarantine)
                if req.reason:
                    detail["reason"] = req.reason
                self._audit(
                    conn,
                    AuditOp.DELETE,
                    ("project", project, "*"),
                    actor=actor.value,
                    ts=now,
                    detail=detail,
                )
        return {
            "workdir_hash": project,
            "deleted_count": count,
            "quarantine_path": str(quarantine) if quarantine else None,
        }

    def _project_by_marker(self, workdir: str) -> str | None:
        wanted = canonical_workdir(workdir)
        for folder in _listdir(self.layout.projects_dir):
            marker = read_workdir_marker(folder)
            if marker and (marker == workdir or canonical_workdir(marker) == wanted):
                return folder.name
        return None

    def wipe_all(self) -> dict[str, Any]:
        """Move every memory, the index, the vector index and the retrieval metrics to
        .quarantine/wiped-{ms}/ and start empty."""
        now = self.now_ms()
        with self._lock:
            target = self.layout.quarantine_dir / f"wiped-{now}"
            ensure_private_dir(target)
            self.index.close()
            for name in (
                "global",
                "projects",
                config.EPISODES_DIRNAME,
                config.INDEX_FILENAME,
                f"{config.INDEX_FILENAME}-wal",
                f"{config.INDEX_FILENAME}-shm",
                config.VECTORS_DIRNAME,
                *(f"{config.METRICS_FILENAME}{s}" for s in ("", "-wal", "-shm", "-journal")),
            ):
                source = self.root / name
                if source.exists():
                    try:
                        os.replace(source, target / name)
                    except OSError as exc:
                        raise store_unavailable(exc, source) from exc
            self.layout.ensure()
            self.index, self.open_report = Index.open(self.layout, now_ms=now)
            self.last_reconcile = self._reconcile_locked(full=True)
            with self.index.write() as conn:
                self._audit(
                    conn,
                    AuditOp.WIPE,
                    ("global", "", "*"),
                    actor=Actor.USER.value,
                    ts=now,
                    detail={"backup": self.layout.relpath(target)},
                )
        return {"backup_path": str(target), **self.paths_info()}

    def _collect_garbage(self) -> None:
        """Drop organizer snapshots after 30 days and wipe backups after 7 (REFERENCE A1)."""
        now = self.now_ms()
        snapshot_cutoff = now - config.SNAPSHOT_RETENTION_DAYS * 86_400_000
        folders = [self.layout.snapshot_dir("global", "")]
        folders += [
            self.layout.snapshot_dir("project", p.name) for p in _listdir(self.layout.projects_dir)
        ]
        for folder in folders:
            for path in _listdir(folder):
                stamp = path.name.split(".", 1)[0]
                if stamp.isdigit() and int(stamp) < snapshot_cutoff:
                    with contextlib.suppress(OSError):
                        path.unlink()
        wipe_cutoff = now - config.WIPE_BACKUP_RETENTION_DAYS * 86_400_000
        for path in _listdir(self.layout.quarantine_dir):
            stamp = path.name.removeprefix("wiped-")
            if path.name.startswith("wiped-") and stamp.isdigit() and int(stamp) < wipe_cutoff:
                shutil.rmtree(path, ignore_errors=True)

    @_heals
    def footprint(self, workdir: str | None) -> dict[str, int]:
        """What loading everything would read: file count and bytes of the memories and the
        episodes a context for `workdir` could draw on — global
        and unscoped ones, plus that project's (SPEC 6 "tokens saved vs loading everything")."""
        with self.index.read() as conn:
            counts = self.index.footprint(conn, self._hash_of(workdir, None) or "")
        return dict(
            zip(("memories", "memory_bytes", "episodes", "episode_bytes"), counts, strict=True)
        )

    # --- journal days and projects ----------------------------------------------------------

    @_heals
    def journal_days(self, req: JournalDaysRequest) -> JournalDaysResult:
        """Days that have a journal, newest first (SPEC 1.8), optionally of one month or range.

        Reads only memory_meta's daily rows (its partial daily index), never a memory file.
        """
        scope = rules.normalize_scope_filter(req.scope)
        project = self._hash_of(req.workdir, req.workdir_hash)
        if scope is Scope.PROJECT and project is None and not req.include_all_projects:
            raise WorkdirRequired("listing project journals requires a workdir", field="workdir")
        first, last = _journal_window(req.month, req.date_from, req.date_to)
        limit = min(req.limit or config.LIST_DEFAULT_LIMIT, config.LIST_MAX_LIMIT)
        where = ["type = 'daily'"]
        params: dict[str, Any] = {"hash": project or ""}
        if scope is not None:
            where.append("scope = :scope")
            params["scope"] = scope.value
        if not req.include_all_projects:
            where.append(
                "(scope = 'global' OR workdir_hash = :hash)" if project else "scope = 'global'"
            )
        if first is not None:
            where.append("date_local >= :first")
            params["first"] = first.isoformat()
        if last is not None:
            where.append("date_local <= :last")
            params["last"] = last.isoformat()
        clause = " WHERE " + " AND ".join(where)
        with self.index.read() as conn:
            total = int(
                conn.execute(sa.text("SELECT COUNT(*) FROM memory_meta" + clause), params).scalar()
                or 0
            )
            rows = conn.execute(
                sa.text(
                    "SELECT scope, workdir_hash, slug, date_local, append_count, archived, "
                    "created_at, updated_at, file_size FROM memory_meta"
                    + clause
                    + " ORDER BY date_local DESC, scope ASC, workdir_hash ASC LIMIT :limit"
                ),
                {**params, "limit": limit},
            ).all()
        workdirs = self._workdirs({row.workdir_hash for row in rows})
        days = [
            JournalDay(
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
            for row in rows
        ]
        return JournalDaysResult(
            days=days, total=total, truncated=len(days) < total, today=self.today().isoformat()
        )

    @_heals
    def projects(self) -> ProjectsResult:
        """Every scope holding memories, the global one first, with counts and quota figures.

        One GROUP BY over memory_meta; the only per-project work is reading its .workdir.json
        and checking that the folder still exists (SPEC 6 cross-project index).
        """
        types = [t.value for t in MemoryType]
        counts_sql = ", ".join(f"SUM(type = '{t}') AS n_{t}" for t in types)
        with self.index.read() as conn:
            rows = conn.execute(
                sa.text(
                    f"SELECT scope, workdir_hash, {counts_sql}, "
                    "SUM(type != 'daily' AND IFNULL(json_extract(source_json, "
                    "'$.unreviewed'), 0) = 1) AS unrev, MAX(updated_at) AS newest "
                    "FROM memory_meta GROUP BY scope, workdir_hash"
                )
            ).all()
        by_key: dict[tuple[str, str], sa.Row[Any] | None] = {
            (row.scope, row.workdir_hash): row for row in rows
        }
        by_key.setdefault((Scope.GLOBAL.value, ""), None)
        workdirs = self._workdirs({h for s, h in by_key if s == Scope.PROJECT})
        out: list[ProjectSummary] = []
        for (scope, project), row in by_key.items():
            counts = {t: int(getattr(row, f"n_{t}") or 0) if row else 0 for t in types}
            used = sum(n for t, n in counts.items() if t != MemoryType.DAILY)
            headroom = max(0, self.scope_limit - used)
            workdir = workdirs.get(project) if scope == Scope.PROJECT else None
            out.append(
                ProjectSummary(
                    scope=scope,
                    workdir_hash=project,
                    workdir=workdir,
                    folder_exists=_is_dir(workdir) if workdir else None,
                    counts=counts,
                    unreviewed=int(row.unrev or 0) if row else 0,
                    used=used,
                    limit=self.scope_limit,
                    headroom=headroom,
                    ladder=quota_ladder(headroom).value,
                    updated_at=int(row.newest) if row and row.newest is not None else None,
                )
            )
        out.sort(key=lambda p: (p.scope != Scope.GLOBAL, -(p.updated_at or 0), p.workdir_hash))
        return ProjectsResult(
            projects=out, project_count=sum(p.scope == Scope.PROJECT for p in out)
        )

    # --- episodes (SPEC 6; files and index rows in store/episodes.py) -------------------------

    @_heals
    def record_episode(self, episode: Episode, *, replace: bool = False) -> EpisodeRecordResult:
        """Store and index one normalized episode (`episode_exists` unless replace).

        The episode comes from retrieval's normalize_episode (the `episode_record` command);
        one that is not normalized, or holds a secret, is refused and nothing is written.
        """
        with self._lock:
            path, created = episode_store.record(self.layout, self.index, episode, replace=replace)
        start = clockmod.parse_rfc3339_ms(episode.timestamp) or 0
        return EpisodeRecordResult(
            episode=episode,
            path=path,
            created=created,
            date=clockmod.utc_date(start),
            date_local=clockmod.local_date(start, self.rollover_hour),
        )

    @_heals
    def episode_read(self, req: EpisodeReadRequest) -> EpisodeReadResult:
        """One episode, read from its file."""
        episode, path = episode_store.read(self.layout, self.index, req.id)
        start = clockmod.parse_rfc3339_ms(episode.timestamp) or 0
        return EpisodeReadResult(
            episode=episode,
            path=path,
            date=clockmod.utc_date(start),
            date_local=clockmod.local_date(start, self.rollover_hour),
        )

    @_heals
    def episode_list(self, req: EpisodeListRequest) -> EpisodeListResult:
        """Episodes newest first, by UTC date (`date`) or journal day (`date_local`)."""
        where = episode_store.EpisodeFilter(
            project=self._hash_of(req.workdir, req.workdir_hash),
            date=_episode_day(req.date, "date"),
            outcome=_episode_choice(req.outcome, "outcome", [o.value for o in EpisodeOutcome]),
            task_type=_episode_choice(req.task_type, "task_type", [t.value for t in TaskType]),
        )
        day = _episode_day(req.date_local, "date_local")
        if day is not None:
            start, end = clockmod.journal_day_bounds(date.fromisoformat(day), self.rollover_hour)
            where = dataclasses.replace(where, start_ms=start, end_ms=end)
        limit = min(req.limit or config.EPISODE_LIST_DEFAULT_LIMIT, config.EPISODE_LIST_MAX_LIMIT)
        rows, total = episode_store.list_page(
            self.index, where, limit=limit, offset=req.offset, rollover_hour=self.rollover_hour
        )
        return EpisodeListResult(
            episodes=rows, total=total, truncated=req.offset + len(rows) < total
        )

    @_heals
    def episode_search(
        self, query: str, *, limit: int | None = None, workdir: str | None = None
    ) -> EpisodeSearchResult:
        """Episodes ranked by BM25 for `query` (a workdir adds its project's to unscoped ones)."""
        size = min(limit or config.EPISODE_SEARCH_DEFAULT_LIMIT, config.EPISODE_SEARCH_MAX_LIMIT)
        hits, terms = episode_store.search(
            self.index, query, limit=max(size, 1), project=self._hash_of(workdir, None)
        )
        return EpisodeSearchResult(hits=hits, terms=terms)

    @_heals
    def episode_timeline(self, req: TimelineRequest) -> Timeline:
        """REFERENCE B6 layer 2 from the newest episodes (computed, never stored)."""
        where = episode_store.EpisodeFilter(project=self._hash_of(req.workdir, req.workdir_hash))
        actions_limit = min(
            req.actions_limit or config.TIMELINE_MAX_RECENT_ACTIONS,
            config.TIMELINE_MAX_RECENT_ACTIONS,
        )
        decisions_limit = min(
            req.decisions_limit or config.TIMELINE_MAX_KEY_DECISIONS,
            config.TIMELINE_MAX_KEY_DECISIONS,
        )
        # Read newest first until both lists can be full (at least the minimum for the open
        # tasks of active_context, never past the maximum).
        scanned: list[Episode] = []
        while len(scanned) < config.TIMELINE_SCAN_MAX_EPISODES:
            size = config.TIMELINE_SCAN_MIN_EPISODES if not scanned else config.TIMELINE_SCAN_PAGE
            page = episode_store.newest(self.index, where, limit=size, offset=len(scanned))
            scanned.extend(page)
            actions = sum(len(e.action_log) for e in scanned)
            decisions = sum(len(e.key_decisions) for e in scanned)
            if len(page) < size or (actions >= actions_limit and decisions >= decisions_limit):
                break
        return build_timeline(
            scanned[: config.TIMELINE_SCAN_MAX_EPISODES],
            actions_limit=actions_limit,
            decisions_limit=decisions_limit,
        )


_MONTH_PATTERN = re.compile(r"^([0-9]{4})-([0-9]{2})\Z")


def _journal_window(
    month: str | None, date_from: str | None, date_to: str | None
) -> tuple[date | None, date | None]:
    """First and last day (inclusive) of a journal listing; InvalidArgument on bad input."""
    if month is not None:
        if date_from is not None or date_to is not None:
            raise InvalidArgument("pass either month or date_from/date_to, not both", field="month")
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
        raise InvalidArgument("date_from is after date_to", field="date_from")
    return first, last


_RESULT_LISTS = ("items", "created", "updated", "deleted", "warnings", "warning_details")


def _result_lengths(out: BatchResult) -> tuple[int, ...]:
    """How long a batch result's lists are (to forget a chunk that was rolled back)."""
    return tuple(len(getattr(out, name)) for name in _RESULT_LISTS)


def _truncate_result(out: BatchResult, lengths: tuple[int, ...]) -> None:
    for name, length in zip(_RESULT_LISTS, lengths, strict=True):
        del getattr(out, name)[length:]


def _is_dir(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def _listdir(folder: Path) -> list[Path]:
    try:
        return sorted(Path(entry.path) for entry in os.scandir(folder))
    except OSError:
        return []


def _history_order(entry: HistoryEntry) -> tuple[int, int, str]:
    """Newest first; two audit rows of the same millisecond by their row id, not as text
    ("audit:12" sorts before "audit:9" as a string)."""
    kind, _, ref = entry.version.partition(":")
    return (entry.ts, int(ref) if kind == "audit" and ref.isdigit() else -1, entry.version)


def _who(actor: str | None, trigger: str | None) -> str:
    """Who made a change, in SPEC 1.9's words."""
    if trigger == config.ORGANIZE_TRIGGER:
        return "organizer"
    return {"extractor": "extraction"}.get(actor or "", actor or "unknown")


def _overview_entry(row: sa.Row[Any]) -> OverviewEntry:
    entry = _entry(row)
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


def _episode_day(text: str | None, field: str) -> str | None:
    """A YYYY-MM-DD filter of episode_list (InvalidArgument when it is not a date)."""
    if text is None:
        return None
    day = clockmod.parse_local_date(text)
    if day is None:
        raise InvalidArgument(f"{field} must be YYYY-MM-DD, not {text!r}", field=field)
    return day.isoformat()


def _episode_choice(value: str | None, field: str, allowed: list[str]) -> str | None:
    if value is None or not value.strip():
        return None
    if value.strip().lower() not in allowed:
        raise InvalidArgument(
            f"{field} must be one of {', '.join(allowed)}, not {value!r}", field=field
        )
    return value.strip().lower()

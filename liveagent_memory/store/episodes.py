"""Episodes (SPEC 6): their files, and recording, reading, listing and searching them.

Layout. Each episode is one JSON file, `episodes/YYYY-MM-DD/<id>.json`, in the folder of the
UTC date of its start. Loki Mode keeps `episodic/{date}/task-{id}.json` (REFERENCE B1); we keep
its one-file-per-episode, per-date shape, under a folder named for what it holds, and name the
file by the id alone (ids already read `ep-…`; the `task-` prefix named the episode, not its
task). The date is UTC so a path never depends on the machine's time zone; the journal's local
day of an episode is computed when listing (`date_local`). Files are written atomically under
the store's write lock, 0600 like memories, and an existing id is never overwritten unless the
caller asks to replace it.

The index rows and queries are store/episode_index.py; reconcile is store/episode_reconcile.py.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import parse_rfc3339_ms, utc_date
from liveagent_memory.domain.errors import (
    EpisodeExists,
    EpisodeNotFound,
    EpisodeUnreadable,
    InvalidArgument,
)
from liveagent_memory.domain.requests import (
    EpisodeListRequest,
    EpisodeReadRequest,
    TimelineRequest,
)
from liveagent_memory.domain.schema import (
    Episode,
    EpisodeListResult,
    EpisodeOutcome,
    EpisodeReadResult,
    EpisodeRecordResult,
    EpisodeSearchResult,
    TaskType,
    Timeline,
)
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store import episode_index
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.episode_docs import (
    ID_PATTERN,
    check_normalized,
    detect_episode_task_type,
    episode_document,
    parse_episode,
)
from liveagent_memory.store.episode_timeline import build_timeline
from liveagent_memory.store.files import FileChanges, Layout, fsync_dir, store_unavailable
from liveagent_memory.store.index import Index
from liveagent_memory.store.rules import refuse_secret_fields

FILE_SUFFIX = ".json"
LOKI_FILE_PREFIX = "task-"  # REFERENCE B1 file names: task-{id}.json


class EpisodeFileError(Exception):
    """An episode file that cannot be indexed; `reason` is what the problems list shows."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------------------------
# Files


def episode_path(layout: Layout, episode: Episode) -> Path:
    """Where an episode lives: episodes/<UTC date of its start>/<id>.json."""
    start = parse_rfc3339_ms(episode.timestamp)
    assert start is not None  # parse_episode wrote it (record checks it first)
    return layout.episodes_dir / utc_date(start) / f"{episode.id}{FILE_SUFFIX}"


def render(episode: Episode) -> bytes:
    """The file's bytes: indented UTF-8 JSON, Chinese as itself (readable, stable diffs)."""
    text = json.dumps(episode_document(episode), ensure_ascii=False, indent=2)
    return (text + "\n").encode("utf-8")


def parse_file(raw: bytes, *, name: str, mtime_ns: int) -> Episode:
    """Parse an episode file (EpisodeFileError with the reason when it cannot be used).

    A file without an id takes it from its name (`<id>.json`, Loki's `task-<id>.json`); a file
    without `recorded_at` was recorded when it was last written; a file without a task_type
    gets the detected one (domain/task_types.py, as `episode record` does).
    """
    if len(raw) > config.EPISODE_MAX_FILE_BYTES:
        raise EpisodeFileError(
            f"file too large ({len(raw)} bytes; the limit is {config.EPISODE_MAX_FILE_BYTES})"
        )
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise EpisodeFileError("not UTF-8 text") from None
    except ValueError as exc:
        raise EpisodeFileError(f"not valid JSON: {exc}") from None
    stem = name.removesuffix(FILE_SUFFIX).removeprefix(LOKI_FILE_PREFIX)
    try:
        return parse_episode(
            data,
            now_ms=mtime_ns // 1_000_000,
            default_id=stem if ID_PATTERN.match(stem) else None,
            require_timestamp=True,
            task_type_of=detect_episode_task_type,
        )
    except InvalidArgument as exc:
        raise EpisodeFileError(exc.message) from None


def refuse_secrets(episode: Episode) -> None:
    """SPEC 7: an episode holding a private key or a known token shape is not stored.

    Every field is scanned, not only the searchable ones: the id becomes a file name, and the
    task id, git commit and workdir are written to the file as they are. The error names the
    field, never its text (which may be the id).
    """
    refuse_secret_fields(episode_document(episode), what="episode_record")


# --------------------------------------------------------------------------------------------
# Record and read


def record(layout: Layout, index: Index, episode: Episode, *, replace: bool) -> tuple[str, bool]:
    """Write the episode's file and index it; returns (relative path, created).

    The caller holds the store's write lock. `episode` must be normalized (retrieval's
    normalize_episode): anything else is refused before a byte is written, as is a secret. An
    id that is indexed, or a file already at the target path, raises EpisodeExists unless
    `replace`; replacing an episode whose start moved to another day removes its old file.
    """
    refuse_secrets(episode)  # first: check_normalized's message would quote the id
    check_normalized(episode)  # the id is a file name and the date a folder: check, don't trust
    data = render(episode)
    if len(data) > config.EPISODE_MAX_FILE_BYTES:
        raise InvalidArgument(
            f"episode {episode.id!r} is {len(data)} bytes as JSON; the limit is "
            f"{config.EPISODE_MAX_FILE_BYTES} (shorten the action log)",
            field="episode",
        )
    target = episode_path(layout, episode)
    relpath = layout.relpath(target)
    files = FileChanges(layout)  # a failure after the write puts the files back
    try:
        with index.write() as conn:
            holder = episode_index.path_of(conn, episode.id)
            holder_exists = holder is not None and layout.abspath(holder).exists()
            target_exists = target.exists()
            if (holder_exists or target_exists) and not replace:
                where = holder if holder_exists else relpath
                raise EpisodeExists(
                    f"episode {episode.id!r} is already stored ({where}); pass replace to "
                    "overwrite it, or leave the id out to get a new one",
                    field="id",
                )
            files.write(target, data)
            if holder is not None and holder != relpath:
                # Its start moved to another day: one id, one file.
                old = layout.abspath(holder)
                try:
                    old_data = old.read_bytes()
                except FileNotFoundError:
                    old_data = None
                except OSError as exc:
                    raise store_unavailable(exc, old) from exc
                if old_data is not None:
                    files.remove(old, old_data)
                episode_index.remove(conn, holder)
            stat = target.stat()
            episode_index.upsert(
                conn,
                relpath,
                mtime_ns=stat.st_mtime_ns,
                size=stat.st_size,
                sha256=sha256_hex(data),
                episode=episode,
                text=data.decode("utf-8"),
                ctime_ns=stat.st_ctime_ns,
            )
    except BaseException:
        files.rollback()
        raise
    finally:
        for folder in files.dirs:
            fsync_dir(folder)
    return relpath, not (holder_exists or target_exists)


def read(layout: Layout, index: Index, episode_id: str) -> tuple[Episode, str]:
    """The episode with this id, parsed from its file (the truth); (episode, relative path)."""
    with index.read() as conn:
        path = episode_index.path_of(conn, episode_id.strip())
    if path is None:
        raise EpisodeNotFound(
            f"No episode {episode_id!r}: list the episodes to see their ids", field="id"
        )
    abspath = layout.abspath(path)
    try:
        raw = abspath.read_bytes()
        mtime_ns = abspath.stat().st_mtime_ns
    except FileNotFoundError:
        raise EpisodeNotFound(
            f"episode {episode_id!r} was indexed at {path}, but the file is gone; "
            "reconcile brings the index up to date",
            field="id",
        ) from None
    except OSError as exc:
        raise EpisodeUnreadable(f"{path} cannot be read: {exc.strerror}", field="id") from exc
    try:
        episode = parse_file(raw, name=abspath.name, mtime_ns=mtime_ns)
    except EpisodeFileError as exc:
        raise EpisodeUnreadable(
            f"{path} was edited and cannot be used: {exc.reason}", field="id"
        ) from None
    if episode.id != episode_id.strip():
        raise EpisodeNotFound(
            f"{path} now holds episode {episode.id!r}; reconcile brings the index up to date",
            field="id",
        )
    return episode, path


# --------------------------------------------------------------------------------------------
# The store's episode operations (MemoryStore's episode_* methods)


def record_episode(ctx: StoreContext, episode: Episode, *, replace: bool) -> EpisodeRecordResult:
    """Store and index one normalized episode under the write lock (`episode_exists` unless
    replace)."""
    if episode.workdir and episode.workdir_hash == workdir_hash(episode.workdir):
        # Keyed by its path alone: file it under the folder that path opens (issue 19), so
        # an episode from a clone at another path joins the project's others.
        episode = dataclasses.replace(episode, workdir_hash=ctx.place_of(episode.workdir).key)
    with ctx.lock:
        path, created = record(ctx.layout, ctx.index, episode, replace=replace)
    start = clockmod.parse_rfc3339_ms(episode.timestamp) or 0
    return EpisodeRecordResult(
        episode=episode,
        path=path,
        created=created,
        date=clockmod.utc_date(start),
        date_local=clockmod.local_date(start, ctx.limits.rollover_hour),
    )


def read_episode(ctx: StoreContext, req: EpisodeReadRequest) -> EpisodeReadResult:
    """One episode, read from its file."""
    episode, path = read(ctx.layout, ctx.index, req.id)
    start = clockmod.parse_rfc3339_ms(episode.timestamp) or 0
    return EpisodeReadResult(
        episode=episode,
        path=path,
        date=clockmod.utc_date(start),
        date_local=clockmod.local_date(start, ctx.limits.rollover_hour),
    )


def list_episodes(ctx: StoreContext, req: EpisodeListRequest) -> EpisodeListResult:
    """Episodes newest first, by UTC date (`date`) or journal day (`date_local`)."""
    rollover_hour = ctx.limits.rollover_hour
    where = episode_index.EpisodeFilter(
        project=ctx.hash_of(req.workdir, req.workdir_hash),
        date=_episode_day(req.date, "date"),
        outcome=_episode_choice(req.outcome, "outcome", [o.value for o in EpisodeOutcome]),
        task_type=_episode_choice(req.task_type, "task_type", [t.value for t in TaskType]),
    )
    day = _episode_day(req.date_local, "date_local")
    if day is not None:
        start, end = clockmod.journal_day_bounds(date.fromisoformat(day), rollover_hour)
        where = dataclasses.replace(where, start_ms=start, end_ms=end)
    limit = min(req.limit or config.EPISODE_LIST_DEFAULT_LIMIT, config.EPISODE_LIST_MAX_LIMIT)
    rows, total = episode_index.list_page(
        ctx.index, where, limit=limit, offset=req.offset, rollover_hour=rollover_hour
    )
    return EpisodeListResult(episodes=rows, total=total, truncated=req.offset + len(rows) < total)


def search_episodes(
    ctx: StoreContext, query: str, *, limit: int | None, workdir: str | None
) -> EpisodeSearchResult:
    """Episodes ranked by BM25 for `query` (a workdir adds its project's to unscoped ones)."""
    size = min(limit or config.EPISODE_SEARCH_DEFAULT_LIMIT, config.EPISODE_SEARCH_MAX_LIMIT)
    hits, terms = episode_index.search(
        ctx.index, query, limit=max(size, 1), project=ctx.hash_of(workdir, None)
    )
    return EpisodeSearchResult(hits=hits, terms=terms)


def timeline(ctx: StoreContext, req: TimelineRequest) -> Timeline:
    """REFERENCE B6 layer 2 from the newest episodes (computed, never stored)."""
    where = episode_index.EpisodeFilter(project=ctx.hash_of(req.workdir, req.workdir_hash))
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
        page = episode_index.newest(ctx.index, where, limit=size, offset=len(scanned))
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

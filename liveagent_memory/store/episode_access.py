"""Episode use written to the episode files: access counts and importance decay (issue 18).

REFERENCE B2 gives every episode `importance`, `last_accessed` and `access_count`; B4 raises
importance with use (+0.05 x log1p(access_count)) and lowers it with time (apply_decay,
x exp(-0.1 x days / 30), floor 0.01); B10 lists "boosts never persisted" among its bugs. Here
both reach the episode's own file, the truth, so they survive an index rebuild:

- Reads are counted in memory (`EpisodeAccesses`, one per store object): reading an episode
  (`episode_read`) or serving it in a context costs no file or index write. `flush` writes
  them in one batch: on close, before a decay pass, and at a read once the oldest count waits
  longer than `EPISODE_ACCESS_FLUSH_SECONDS`. Each file is read again under the store's write
  lock and only its three B2 fields change (the rest of the JSON, ours or Loki's, stays as it
  is), so a count another process wrote meanwhile is added to, never replaced; a file that
  changes between that read and the atomic write is left alone and its count stays pending.
- `apply_decay(now)` flushes, then lowers each episode's stored importance for the days since
  the later of its start and the last pass (its time kept in `EPISODE_DECAY_FILENAME`, a dot
  file beside the date folders); it runs at most once per UTC day, so a second pass the same
  day changes nothing.
- A file that no longer parses (a hand edit left `access_count: "two"`) is skipped and named in
  the result; its reads stay pending and every other file is written.

Retrieval reads the persisted importance and decays it only for the time since the last pass
(`decay_anchor_ms`), so nothing is decayed twice.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MS_PER_DAY, format_rfc3339, parse_rfc3339_ms, utc_date
from liveagent_memory.domain.episode_use import EpisodeUseResult, SkippedEpisode
from liveagent_memory.domain.schema import Episode
from liveagent_memory.store import episode_index
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.episode_docs import access_raised, decayed
from liveagent_memory.store.episode_reads import PendingReads
from liveagent_memory.store.episodes import EpisodeFileError, parse_file
from liveagent_memory.store.files import FileChanges, atomic_write, fsync_dir

log = logging.getLogger(__name__)
_STAMP_VERSION = 1

# (the file's JSON, as parsed; the episode it holds) -> the episode changed, or None when it
# stays as it is; edits the JSON in place, only the fields REFERENCE B2 gives use.
Change = Callable[[dict[str, Any], Episode], Episode | None]


# --------------------------------------------------------------------------------------------
# Counting reads


def count_reads(ctx: StoreContext, episode_ids: list[str]) -> None:
    """Count one read of each episode (in memory: `flush_if_due` writes them)."""
    if episode_ids:
        ctx.accesses.add(episode_ids, ctx.now_ms())


def flush_if_due(ctx: StoreContext) -> None:
    """Write the pending reads once the oldest has waited `EPISODE_ACCESS_FLUSH_SECONDS`."""
    if ctx.accesses.due(ctx.now_ms()):
        flush(ctx)


def with_pending(ctx: StoreContext, episode: Episode) -> Episode:
    """The episode as it will read once its pending reads are written."""
    reads = ctx.accesses.of(episode.id)
    return episode if reads is None else _with_reads(episode, reads)


def _with_reads(episode: Episode, reads: PendingReads) -> Episode:
    count = episode.access_count + reads.count
    return dataclasses.replace(
        episode,
        access_count=count,
        last_accessed=_latest(episode.last_accessed, reads.last_ms),
        importance=access_raised(episode.importance, episode.access_count, count),
    )


def flush(ctx: StoreContext) -> EpisodeUseResult:
    """Write every pending read to its episode's file (see the module docstring)."""
    result = EpisodeUseResult()
    if not len(ctx.accesses):
        return result
    with ctx.lock:
        taken = ctx.accesses.take()
        kept: dict[str, PendingReads] = {}
        try:
            result.flushed = _rewrite_all(
                ctx, {i: _add_reads(reads) for i, reads in taken.items()}, result
            )
        except BaseException:
            kept = taken  # nothing was written: every count waits for the next flush
            raise
        finally:
            # A skipped file keeps its reads for the next flush; an episode gone from the
            # index (deleted) has nothing to keep them for.
            kept.update({s.id: taken[s.id] for s in result.skipped if s.path and s.id in taken})
            ctx.accesses.put_back(kept, ctx.now_ms())
    return result


def _add_reads(reads: PendingReads) -> Change:
    def change(data: dict[str, Any], episode: Episode) -> Episode | None:
        updated = _with_reads(episode, reads)
        data["access_count"] = updated.access_count
        data["last_accessed"] = updated.last_accessed
        data["importance"] = updated.importance
        return updated

    return change


def _latest(last_accessed: str | None, read_ms: int) -> str:
    previous = parse_rfc3339_ms(last_accessed) if last_accessed else None
    return format_rfc3339(max(read_ms, previous or 0))


# --------------------------------------------------------------------------------------------
# Decay


def apply_decay(ctx: StoreContext, now_ms: int) -> EpisodeUseResult:
    """Flush the pending reads, then decay every episode's stored importance (REFERENCE B4)
    for the days since the later of its start and the last pass; at most one pass per UTC
    day (a second one that day changes nothing).

    The pass's time is written first, under the write lock that read the last one, so two
    processes never decay the same days twice; the files follow a chunk per lock, so the
    store's other writers wait for one chunk at most (a pass cut short by a crash leaves the
    rest undecayed for those days: less decay, never double).
    """
    result = flush(ctx)
    with ctx.lock:
        applied_at = decay_anchor_ms(ctx)
        if applied_at is not None and utc_date(applied_at) >= utc_date(now_ms):
            result.applied_on = utc_date(applied_at)
            return result  # already applied today (or a clock that went back): nothing to do
        with ctx.index.read() as conn:
            rows = episode_index.importance_rows(conn)
        _write_anchor(ctx, now_ms)
    changes: dict[str, Change] = {}
    for episode_id, start_ms, importance in rows:
        since = max(start_ms, applied_at) if applied_at is not None else start_ms
        days = (now_ms - since) / MS_PER_DAY
        if days > 0 and decayed(importance, days) != importance:
            changes[episode_id] = _decay(days)
    result.decayed = _rewrite_all(ctx, changes, result)
    result.applied_on = utc_date(now_ms)
    return result


def _decay(days: float) -> Change:
    def change(data: dict[str, Any], episode: Episode) -> Episode | None:
        lowered = decayed(episode.importance, days)
        if lowered == episode.importance:
            return None
        data["importance"] = lowered
        return dataclasses.replace(episode, importance=lowered)

    return change


def _stamp_path(ctx: StoreContext) -> Path:
    return ctx.layout.episodes_dir / config.EPISODE_DECAY_FILENAME


def decay_anchor_ms(ctx: StoreContext) -> int | None:
    """When decay was last applied (ms): stored importance is decayed up to then. None: never
    (or an unreadable stamp, logged: decay then counts from each episode's start)."""
    path = _stamp_path(ctx)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        applied_at = parse_rfc3339_ms(data["applied_at"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("%s is unreadable (%s): decay counts from each episode's start", path, exc)
        return None
    if applied_at is None:
        log.warning("%s holds no valid time: decay counts from each episode's start", path)
    return applied_at


def _write_anchor(ctx: StoreContext, now_ms: int) -> None:
    data = {"version": _STAMP_VERSION, "applied_at": format_rfc3339(now_ms)}
    ctx.layout.episodes_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(_stamp_path(ctx), (json.dumps(data) + "\n").encode("utf-8"))


# --------------------------------------------------------------------------------------------
# Rewriting files


class _Skip(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


def _rewrite_all(ctx: StoreContext, changes: dict[str, Change], result: EpisodeUseResult) -> int:
    """Apply `changes` (by episode id) to the files and the index, a chunk of files per
    write lock and transaction; files that cannot be changed go to `result.skipped`."""
    written = 0
    ids = list(changes)
    step = config.EPISODE_USE_WRITE_CHUNK
    for start in range(0, len(ids), step):
        chunk = {episode_id: changes[episode_id] for episode_id in ids[start : start + step]}
        with ctx.lock:
            written += _rewrite_chunk(ctx, chunk, result)
    return written


def _rewrite_chunk(ctx: StoreContext, changes: dict[str, Change], result: EpisodeUseResult) -> int:
    """One transaction: the files are written to temp files and made durable together (one
    round of fsyncs, store/files.py `FileChanges(deferred=True)`) before the index commits;
    a failure puts every file of the chunk back."""
    written = 0
    files = FileChanges(ctx.layout, deferred=True)
    try:
        with ctx.index.write() as conn:
            for episode_id, change in changes.items():
                try:
                    written += _rewrite(ctx, conn, files, episode_id, change)
                except _Skip as skip:
                    log.warning("episode file %s left as it is: %s", skip.path, skip.reason)
                    result.skipped.append(SkippedEpisode(episode_id, skip.path, skip.reason))
            files.flush()
    except BaseException:
        files.rollback()
        raise
    finally:
        for folder in files.dirs:
            fsync_dir(folder)
    return written


def _rewrite(
    ctx: StoreContext, conn: Connection, files: FileChanges, episode_id: str, change: Change
) -> int:
    """Change one episode's file in place (1) or not (0); `_Skip` when it cannot be."""
    relpath = episode_index.path_of(conn, episode_id)
    if relpath is None:
        raise _Skip("", "no such episode in the index (deleted, or reconcile has not seen it)")
    path = ctx.layout.abspath(relpath)
    try:
        raw = path.read_bytes()
        mtime_ns = path.stat().st_mtime_ns
        episode = parse_file(raw, name=path.name, mtime_ns=mtime_ns)
    except OSError as exc:
        raise _Skip(relpath, f"cannot be read: {exc.strerror}") from None
    except EpisodeFileError as exc:
        raise _Skip(relpath, f"was edited and cannot be used: {exc.reason}") from None
    if episode.id != episode_id:
        raise _Skip(relpath, f"now holds episode {episode.id!r}")
    data = json.loads(raw.decode("utf-8-sig"))  # parse_file read it: a JSON object
    updated = change(data, episode)
    if updated is None:
        return 0
    # The three fields hold what parse_episode would read back (a float, an int, RFC 3339),
    # so the file is not parsed a second time.
    new_raw = (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    try:
        unchanged = path.read_bytes() == raw
    except OSError:
        unchanged = False
    if not unchanged:
        # Trigger: an editor saved the file while we worked on it. Outcome: its bytes win.
        raise _Skip(relpath, "changed while its use was being written; tried again next time")
    stat = files.write(path, new_raw)
    # The file as indexed: only its use changes, the search rows stay; edited since (by hand,
    # by another program): indexed again in full.
    known = episode_index.state(conn, relpath)
    as_indexed = known is not None and known.sha256 == sha256_hex(raw)
    refresh = episode_index.update_use if as_indexed else episode_index.upsert
    refresh(
        conn,
        relpath,
        mtime_ns=stat.st_mtime_ns,
        size=stat.st_size,
        sha256=sha256_hex(new_raw),
        episode=updated,
        text=new_raw.decode("utf-8"),
    )
    return 1

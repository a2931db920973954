"""Reconcile for episode files: bring the episode tables in line with episodes/ (SPEC 6).

Like memories (store/reconcile.py): mtime and size are compared, only what changed is read
again, everything is rebuilt from the files when the tables disagree, and a file that cannot
be used is recorded as a problem and left as it is on disk.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Connection

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import RiskHardBlocked
from liveagent_memory.domain.schema import Problem, ReconcileReport
from liveagent_memory.store import episode_index
from liveagent_memory.store.damage import is_file_failure
from liveagent_memory.store.db import isolated
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.episodes import (
    FILE_SUFFIX,
    EpisodeFileError,
    parse_file,
    refuse_secrets,
)
from liveagent_memory.store.files import (
    LINKED_FOLDER_REASON,
    NOT_UTF8_NAME_REASON,
    Layout,
    folder_files,
    is_utf8_name,
    shown_path,
)
from liveagent_memory.store.index import Index
from liveagent_memory.store.rows import DUPLICATE_PREFIX, UNREADABLE_PREFIX, FileState

log = logging.getLogger(__name__)

DATE_DIR_PATTERN = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
OUT_OF_PLACE_REASON = "not in a YYYY-MM-DD folder: not read"


@dataclass(frozen=True)
class FoundEpisode:
    """An episode file found on disk."""

    relpath: str
    abspath: str
    mtime_ns: int
    size: int
    ctime_ns: int = 0  # as store/files.py FoundFile's


@dataclass
class EpisodeReconcile:
    """What one reconcile pass over the episode files did."""

    full: bool
    scanned: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    problems: list[Problem] = dataclasses.field(default_factory=list)
    duration_ms: float = 0.0


def scan(layout: Layout) -> tuple[list[FoundEpisode], list[Problem]]:
    """Every episode file (episodes/YYYY-MM-DD/*.json), and JSON files found out of place."""
    found: list[FoundEpisode] = []
    skipped: list[Problem] = []
    root = layout.episodes_dir
    try:
        folders = list(os.scandir(root))
    except FileNotFoundError:
        return found, skipped
    except OSError as exc:
        skipped.append(Problem(layout.relpath(root), f"{UNREADABLE_PREFIX} {exc.strerror}"))
        return found, skipped
    for folder in folders:
        relfolder = f"{config.EPISODES_DIRNAME}/{folder.name}"
        if folder.name.startswith("."):
            continue
        if not is_utf8_name(folder.name):
            skipped.append(Problem(shown_path(relfolder), NOT_UTF8_NAME_REASON))
            continue
        if folder.is_symlink() and folder.is_dir():
            skipped.append(Problem(relfolder, LINKED_FOLDER_REASON))
            continue
        if not folder.is_dir(follow_symlinks=False):
            if folder.name.endswith(FILE_SUFFIX):
                skipped.append(Problem(relfolder, OUT_OF_PLACE_REASON))
            continue
        dated = DATE_DIR_PATTERN.match(folder.name) is not None
        try:
            entries = list(os.scandir(folder.path))
        except OSError as exc:
            skipped.append(Problem(relfolder, f"{UNREADABLE_PREFIX} {exc.strerror}"))
            continue
        files = folder_files(
            entries,
            f"{relfolder}/",
            FILE_SUFFIX,
            lambda relpath, reason: skipped.append(Problem(relpath, reason)),
            refused=None if dated else OUT_OF_PLACE_REASON,
        )
        found.extend(
            FoundEpisode(relpath, abspath, stat.st_mtime_ns, stat.st_size, stat.st_ctime_ns)
            for relpath, abspath, stat in files
        )
    return found, skipped


def reconcile(layout: Layout, index: Index, *, full: bool) -> EpisodeReconcile:
    """Bring the episode tables in line with the files; the caller holds the write lock."""
    started = time.perf_counter()
    found, skipped = scan(layout)
    with index.read() as conn:
        if not full and not episode_index.consistent(conn):
            log.info("episode index rows disagree; rebuilding them from the files")
            full = True
        # A full pass forgets every row and reads every file again.
        had_rows = episode_index.has_rows(conn)
        states = {} if full else episode_index.states(conn)
        current = episode_index.problems(conn)
    report = EpisodeReconcile(full=full, scanned=len(found))
    present = {item.relpath for item in found} | {skip.path for skip in skipped}
    changed: list[FoundEpisode] = []
    for item in found:
        state = states.get(item.relpath)
        if (
            state is not None
            and state.mtime_ns == item.mtime_ns
            and state.size == item.size
            and state.ctime_ns == item.ctime_ns
            and not state.transient
        ):
            report.unchanged += 1
        else:
            changed.append(item)
    changed_paths = {item.relpath for item in changed}
    # Ids held by files that stay as they are; a changed file claiming one is a duplicate.
    claimed = {
        state.episode_id: path
        for path, state in states.items()
        if state.problem is None
        and state.episode_id is not None
        and path in present
        and path not in changed_paths
    }
    # Re-checked duplicates last, after the file holding their id may have changed or gone;
    # by path, so two files claiming one id always resolve the same way.
    changed.sort(key=lambda item: (_is_transient(states.get(item.relpath)), item.relpath))
    gone = [path for path in states if path not in present]
    fresh_skips = [
        skip
        for skip in skipped
        if states.get(skip.path) is None or states[skip.path].problem != skip.reason
    ]
    if not (gone or changed or fresh_skips or (full and had_rows)):
        # Nothing to do (a warm pass, or a store without episodes): no write lock taken.
        report.problems = [Problem(path=p, reason=r) for p, r in current]
        report.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        return report
    with index.write() as conn:
        if full:
            episode_index.clear(conn)
        for path in gone:
            episode_index.remove(conn, path)
            report.removed += 1 if states[path].problem is None else 0
        for item in changed:
            try:
                with isolated(conn):
                    _index_file(conn, layout, item, states.get(item.relpath), claimed, report)
            except Exception as exc:
                if not is_file_failure(exc):
                    raise
                # One bad file stays one bad file: recorded, left as it is, the rest indexed.
                log.warning("episode file %s could not be indexed", item.relpath, exc_info=exc)
                for episode_id in [k for k, path in claimed.items() if path == item.relpath]:
                    del claimed[episode_id]
                _item_problem(conn, item, f"could not be indexed: {type(exc).__name__}: {exc}")
        for skip in fresh_skips:
            episode_index.record_problem(
                conn, skip.path, mtime_ns=0, size=0, sha256="", reason=skip.reason
            )
        report.problems = [Problem(path=p, reason=r) for p, r in episode_index.problems(conn)]
    report.duration_ms = round((time.perf_counter() - started) * 1000, 3)
    return report


def _item_problem(conn: Connection, item: FoundEpisode, reason: str, sha256: str = "") -> None:
    """Record why a found episode file is not indexed (the file is left as it is)."""
    episode_index.record_problem(
        conn,
        item.relpath,
        mtime_ns=item.mtime_ns,
        size=item.size,
        sha256=sha256,
        reason=reason,
        ctime_ns=item.ctime_ns,
    )


def _is_transient(state: FileState | None) -> bool:
    return state is not None and state.transient


def _index_file(
    conn: Connection,
    layout: Layout,
    item: FoundEpisode,
    old: FileState | None,
    claimed: dict[str, str],
    report: EpisodeReconcile,
) -> None:
    if item.size > config.EPISODE_MAX_FILE_BYTES:  # not even read: it is refused anyway
        limit = config.EPISODE_MAX_FILE_BYTES
        _item_problem(conn, item, f"file too large ({item.size} bytes; the limit is {limit})")
        return
    try:
        raw = Path(item.abspath).read_bytes()
    except FileNotFoundError:
        return  # gone between scan and read: the next pass forgets it
    except OSError as exc:
        _item_problem(conn, item, f"{UNREADABLE_PREFIX} {exc.strerror}")
        return
    digest = sha256_hex(raw)
    if old is not None and old.problem is None and old.sha256 == digest:
        # Same bytes, new stamps (touched, copied back, synced): re-stamp it, don't parse it
        # again.
        episode_index.touch(conn, old.id, item.mtime_ns, item.ctime_ns)
        report.unchanged += 1
        if old.episode_id is not None:
            claimed[old.episode_id] = item.relpath
        return
    name = item.relpath.rsplit("/", 1)[-1]
    try:
        episode = parse_file(raw, name=name, mtime_ns=item.mtime_ns)
        refuse_secrets(episode)  # a hand-made file: indexed, it would reach a model
    except EpisodeFileError as exc:
        _item_problem(conn, item, exc.reason, digest)
        return
    except RiskHardBlocked as exc:
        _item_problem(conn, item, f"not indexed: {exc.message}", digest)
        return
    holder = claimed.get(episode.id)
    if holder is None and not report.full:
        # (A full pass started from empty tables: `claimed` already knows every holder.)
        holder = episode_index.path_of(conn, episode.id)
        if holder is not None and holder != item.relpath and not layout.abspath(holder).exists():
            episode_index.remove(conn, holder)  # the episode moved to another file
            holder = None
    if holder is not None and holder != item.relpath:
        reason = f"{DUPLICATE_PREFIX} id {episode.id!r} is already used by {holder}"
        _item_problem(conn, item, reason, digest)
        return
    claimed[episode.id] = item.relpath
    episode_index.upsert(
        conn,
        item.relpath,
        mtime_ns=item.mtime_ns,
        size=item.size,
        sha256=digest,
        episode=episode,
        text=raw.decode("utf-8", errors="replace"),
        ctime_ns=item.ctime_ns,
    )
    if old is None or old.problem is not None:
        report.added += 1
    else:
        report.updated += 1


def merge_report(report: ReconcileReport, episodes: EpisodeReconcile) -> ReconcileReport:
    """One reconcile report for memory and episode files (counts add up, problems join)."""
    return dataclasses.replace(
        report,
        full_rebuild=report.full_rebuild or episodes.full,
        scanned=report.scanned + episodes.scanned,
        added=report.added + episodes.added,
        updated=report.updated + episodes.updated,
        removed=report.removed + episodes.removed,
        unchanged=report.unchanged + episodes.unchanged,
        problems=sorted([*report.problems, *episodes.problems], key=lambda p: p.path),
        duration_ms=round(report.duration_ms + episodes.duration_ms, 3),
    )

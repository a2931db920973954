"""Episode files and their index rows: record, read, list, search, newest, reconcile (SPEC 6).

Layout. Each episode is one JSON file, `episodes/YYYY-MM-DD/<id>.json`, in the folder of the
UTC date of its start. Loki Mode keeps `episodic/{date}/task-{id}.json` (REFERENCE B1); we keep
its one-file-per-episode, per-date shape, under a folder named for what it holds, and name the
file by the id alone (ids already read `ep-…`; the `task-` prefix named the episode, not its
task). The date is UTC so a path never depends on the machine's time zone; the journal's local
day of an episode is computed when listing (`date_local`). Files are written atomically under
the store's write lock, 0600 like memories, and an existing id is never overwritten unless the
caller asks to replace it.

Index. episode_files (one row per file: stamps, hash, problem), episode_meta (the columns that
list and filter, plus the normalized episode as JSON for the timeline) and episode_search
(FTS5: Porter for Latin words, CJK bigrams like memory_search) are derived from the files.
Reconcile compares mtime and size like memories, re-reads only what changed, rebuilds all from
the files when the tables disagree, and records an unparsable file as a problem, leaving it as
it is on disk.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import local_date, parse_rfc3339_ms, utc_date
from liveagent_memory.domain.errors import (
    EpisodeExists,
    EpisodeNotFound,
    EpisodeUnreadable,
    InvalidArgument,
    RiskHardBlocked,
)
from liveagent_memory.domain.schema import (
    Episode,
    EpisodeHit,
    EpisodeSummary,
    Problem,
    ReconcileReport,
)
from liveagent_memory.store.damage import is_file_failure, isolated
from liveagent_memory.store.db import driver
from liveagent_memory.store.documents import sha256_hex
from liveagent_memory.store.episode_docs import (
    ID_PATTERN,
    check_normalized,
    detect_episode_task_type,
    episode_document,
    episode_from_document,
    parse_episode,
    search_texts,
)
from liveagent_memory.store.files import (
    LINKED_FOLDER_REASON,
    NOT_UTF8_NAME_REASON,
    FileChanges,
    Layout,
    fsync_dir,
    is_utf8_name,
    shown_path,
    store_unavailable,
)
from liveagent_memory.store.index import Index
from liveagent_memory.store.rules import refuse_secret_fields
from liveagent_memory.store.text import (
    STOP_WORDS,
    cjk_tokens,
    fts_quote,
    latin_text,
    query_cjk_runs,
    query_words,
    run_bigrams,
    snippet,
)

log = logging.getLogger(__name__)

DATE_DIR_PATTERN = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
FILE_SUFFIX = ".json"
LOKI_FILE_PREFIX = "task-"  # REFERENCE B1 file names: task-{id}.json
# Problems that depend on more than the file's bytes: re-checked on every pass (as memories).
DUPLICATE_PREFIX = "duplicate:"
UNREADABLE_PREFIX = "unreadable:"
TRANSIENT_PREFIXES = (DUPLICATE_PREFIX, UNREADABLE_PREFIX)
# BM25 weights of episode_search: goal, summary, actions, errors, decisions, hcjk, bcjk.
COLUMN_WEIGHTS = (3.0, 2.0, 1.0, 1.5, 1.5, 3.0, 1.0)
LATIN_COLUMNS = "{goal summary actions errors decisions}"
CJK_COLUMNS = "{hcjk bcjk}"

_FILE_COLUMNS = "id, path, mtime_ns, size, sha256, episode_id, problem"
_SUMMARY_COLUMNS = "m.file_id, m.data_json, m.ts, m.date, f.path"


class EpisodeFileError(Exception):
    """An episode file that cannot be indexed; `reason` is what the problems list shows."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class FileState:
    id: int
    path: str
    mtime_ns: int
    size: int
    sha256: str
    episode_id: str | None
    problem: str | None


@dataclass(frozen=True)
class FoundEpisode:
    relpath: str
    abspath: str
    mtime_ns: int
    size: int


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
                skipped.append(Problem(relfolder, "not in a YYYY-MM-DD folder: not read"))
            continue
        dated = DATE_DIR_PATTERN.match(folder.name) is not None
        try:
            entries = list(os.scandir(folder.path))
        except OSError as exc:
            skipped.append(Problem(relfolder, f"{UNREADABLE_PREFIX} {exc.strerror}"))
            continue
        for entry in entries:
            name = entry.name
            if not name.endswith(FILE_SUFFIX) or name.startswith("."):
                continue  # our temp files, editor files, notes
            relpath = f"{relfolder}/{name}"
            if not is_utf8_name(name):
                skipped.append(Problem(shown_path(relpath), NOT_UTF8_NAME_REASON))
                continue
            if not dated:
                skipped.append(Problem(relpath, "not in a YYYY-MM-DD folder: not read"))
                continue
            if entry.is_symlink():
                skipped.append(Problem(relpath, "symbolic link: not followed"))
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            try:
                stat = entry.stat(follow_symlinks=False)
            except OSError as exc:
                skipped.append(Problem(relpath, f"{UNREADABLE_PREFIX} {exc.strerror}"))
                continue
            found.append(FoundEpisode(relpath, entry.path, stat.st_mtime_ns, stat.st_size))
    return found, skipped


def refuse_secrets(episode: Episode) -> None:
    """SPEC 7: an episode holding a private key or a known token shape is not stored.

    Every field is scanned, not only the searchable ones: the id becomes a file name, and the
    task id, git commit and workdir are written to the file as they are. The error names the
    field, never its text (which may be the id).
    """
    refuse_secret_fields(episode_document(episode), what="episode_record")


# --------------------------------------------------------------------------------------------
# Index rows (the caller runs them inside Index.write()/read())


def _states(conn: Connection) -> dict[str, FileState]:
    rows = driver(conn).execute(f"SELECT {_FILE_COLUMNS} FROM episode_files").fetchall()
    return {row[1]: FileState(*row) for row in rows}


def _state(conn: Connection, path: str) -> FileState | None:
    row = (
        driver(conn)
        .execute(f"SELECT {_FILE_COLUMNS} FROM episode_files WHERE path = ?", (path,))
        .fetchone()
    )
    return FileState(*row) if row else None


def _path_of(conn: Connection, episode_id: str) -> str | None:
    row = (
        driver(conn)
        .execute(
            "SELECT path FROM episode_files WHERE episode_id = ? AND problem IS NULL", (episode_id,)
        )
        .fetchone()
    )
    return str(row[0]) if row is not None else None


def _delete_rows(conn: Connection, file_id: int) -> None:
    driver(conn).execute("DELETE FROM episode_search WHERE rowid = ?", (file_id,))
    driver(conn).execute("DELETE FROM episode_meta WHERE file_id = ?", (file_id,))


def _file_row(
    conn: Connection,
    path: str,
    *,
    mtime_ns: int,
    size: int,
    sha256: str,
    episode_id: str | None,
    problem: str | None,
) -> int:
    """Insert or update the episode_files row of `path` (its index rows dropped); its id."""
    previous = _state(conn, path)
    if previous is None:
        result = driver(conn).execute(
            "INSERT INTO episode_files (path, mtime_ns, size, sha256, episode_id, problem) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (path, mtime_ns, size, sha256, episode_id, problem),
        )
        return int(result.lastrowid or 0)
    _delete_rows(conn, previous.id)
    driver(conn).execute(
        "UPDATE episode_files SET mtime_ns = ?, size = ?, sha256 = ?, episode_id = ?, "
        "problem = ? WHERE id = ?",
        (mtime_ns, size, sha256, episode_id, problem, previous.id),
    )
    return previous.id


def _upsert(
    conn: Connection, path: str, *, mtime_ns: int, size: int, sha256: str, episode: Episode
) -> None:
    file_id = _file_row(
        conn, path, mtime_ns=mtime_ns, size=size, sha256=sha256, episode_id=episode.id, problem=None
    )
    start = parse_rfc3339_ms(episode.timestamp)
    assert start is not None
    driver(conn).execute(
        "INSERT INTO episode_meta (file_id, episode_id, ts, date, outcome, phase, task_type, "
        "workdir_hash, importance, action_count, error_count, data_json) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            file_id,
            episode.id,
            start,
            utc_date(start),
            episode.outcome,
            episode.phase,
            episode.task_type,
            episode.workdir_hash,
            episode.importance,
            len(episode.action_log),
            len(episode.errors_encountered),
            json.dumps(episode_document(episode), ensure_ascii=False),
        ),
    )
    texts = search_texts(episode)
    head = f"{texts['goal']}\n{texts['summary']}"
    rest = f"{texts['actions']}\n{texts['errors']}\n{texts['decisions']}"
    driver(conn).execute(
        "INSERT INTO episode_search (rowid, goal, summary, actions, errors, decisions, hcjk, "
        "bcjk) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            file_id,
            latin_text(texts["goal"]),
            latin_text(texts["summary"]),
            latin_text(texts["actions"]),
            latin_text(texts["errors"]),
            latin_text(texts["decisions"]),
            cjk_tokens(head),
            cjk_tokens(rest),
        ),
    )


def _record_problem(
    conn: Connection, path: str, *, mtime_ns: int, size: int, sha256: str, reason: str
) -> None:
    log.warning("episode file %s skipped: %s", path, reason)
    _file_row(
        conn, path, mtime_ns=mtime_ns, size=size, sha256=sha256, episode_id=None, problem=reason
    )


def _remove(conn: Connection, path: str) -> None:
    previous = _state(conn, path)
    if previous is not None:
        _delete_rows(conn, previous.id)
        driver(conn).execute("DELETE FROM episode_files WHERE id = ?", (previous.id,))


def _clear(conn: Connection) -> None:
    for table in ("episode_search", "episode_meta", "episode_files"):
        driver(conn).execute(f"DELETE FROM {table}")


def _consistent(conn: Connection) -> bool:
    """episode_files (without problems), episode_meta and episode_search hold the same rows."""
    files, meta, search, joined = (
        driver(conn)
        .execute(
            "SELECT (SELECT COUNT(*) FROM episode_files WHERE problem IS NULL), "
            "(SELECT COUNT(*) FROM episode_meta), (SELECT COUNT(*) FROM episode_search), "
            "(SELECT COUNT(*) FROM episode_meta m JOIN episode_files f ON f.id = m.file_id "
            "AND f.problem IS NULL AND f.episode_id = m.episode_id)"
        )
        .fetchone()
    )
    return bool(files == meta == search == joined)


def problems(conn: Connection) -> list[tuple[str, str]]:
    """(path, reason) of every episode file that could not be indexed."""
    rows = (
        driver(conn)
        .execute("SELECT path, problem FROM episode_files WHERE problem IS NOT NULL ORDER BY path")
        .fetchall()
    )
    return [(str(path), str(reason)) for path, reason in rows]


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
            holder = _path_of(conn, episode.id)
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
                _remove(conn, holder)
            stat = target.stat()
            _upsert(
                conn,
                relpath,
                mtime_ns=stat.st_mtime_ns,
                size=stat.st_size,
                sha256=sha256_hex(data),
                episode=episode,
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
        path = _path_of(conn, episode_id.strip())
    if path is None:
        raise EpisodeNotFound(f"no episode {episode_id!r} (see episode_list)", field="id")
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
# Queries


@dataclass(frozen=True)
class EpisodeFilter:
    """Which episodes a query looks at; `project` keeps that project's and unscoped ones."""

    project: str | None = None
    date: str | None = None  # UTC date
    start_ms: int | None = None  # [start_ms, end_ms) of the start time
    end_ms: int | None = None
    outcome: str | None = None
    task_type: str | None = None

    def where(self) -> tuple[str, dict[str, Any]]:
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if self.project is not None:
            clauses.append("m.workdir_hash IN ('', :project)")
            params["project"] = self.project
        if self.date is not None:
            clauses.append("m.date = :date")
            params["date"] = self.date
        if self.start_ms is not None:
            clauses.append("m.ts >= :start_ms")
            params["start_ms"] = self.start_ms
        if self.end_ms is not None:
            clauses.append("m.ts < :end_ms")
            params["end_ms"] = self.end_ms
        if self.outcome is not None:
            clauses.append("m.outcome = :outcome")
            params["outcome"] = self.outcome
        if self.task_type is not None:
            clauses.append("m.task_type = :task_type")
            params["task_type"] = self.task_type
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def list_page(
    index: Index, where: EpisodeFilter, *, limit: int, offset: int, rollover_hour: int
) -> tuple[list[EpisodeSummary], int]:
    """A page of episodes, newest start first, and how many match in all."""
    clause, params = where.where()
    with index.read() as conn:
        total = int(
            conn.execute(sa.text("SELECT COUNT(*) FROM episode_meta m" + clause), params).scalar()
            or 0
        )
        rows = conn.execute(
            sa.text(
                f"SELECT {_SUMMARY_COLUMNS} FROM episode_meta m JOIN episode_files f "
                f"ON f.id = m.file_id{clause} ORDER BY m.ts DESC, m.episode_id DESC "
                "LIMIT :limit OFFSET :offset"
            ),
            {**params, "limit": limit, "offset": offset},
        ).all()
    return [_summary(row, rollover_hour) for row in rows], total


def _summary(row: sa.Row[Any], rollover_hour: int) -> EpisodeSummary:
    data = json.loads(row.data_json)
    return EpisodeSummary(
        id=data["id"],
        timestamp=data["timestamp"],
        date=str(row.date),
        date_local=local_date(int(row.ts), rollover_hour),
        goal=data["goal"],
        summary=data["summary"],
        outcome=data["outcome"],
        phase=data["phase"],
        task_type=data["task_type"],
        agent=data["agent"],
        task_id=data["task_id"],
        workdir_hash=data["workdir_hash"],
        importance=float(data["importance"]),
        action_count=len(data["action_log"]),
        error_count=len(data["errors_encountered"]),
        duration_seconds=data["duration_seconds"],
        path=str(row.path),
    )


def newest(index: Index, where: EpisodeFilter, *, limit: int, offset: int) -> list[Episode]:
    """Whole episodes (the index's copy), newest start first."""
    clause, params = where.where()
    with index.read() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT m.data_json FROM episode_meta m"
                + clause
                + " ORDER BY m.ts DESC, m.episode_id DESC LIMIT :limit OFFSET :offset"
            ),
            {**params, "limit": limit, "offset": offset},
        ).all()
    return [episode_from_document(json.loads(row.data_json)) for row in rows]


def match_expression(query: str) -> tuple[str, list[str]]:
    """FTS5 MATCH text for a query and the terms it searches for ('' when it has none).

    Every term is quoted, so user text is never FTS syntax; stop words are dropped unless the
    query has nothing else; Chinese goes through bigrams (a single character as a prefix).
    """
    words = query_words(query)
    content = [w for w in words if w not in STOP_WORDS]
    runs = query_cjk_runs(query)
    if not content and not runs:
        content = words
    parts: list[str] = []
    if content:
        parts.append(f"{LATIN_COLUMNS} : (" + " OR ".join(fts_quote(w) for w in content) + ")")
    cjk: list[str] = []
    for run in runs:
        if len(run) == 1:
            cjk.append(fts_quote(run) + " *")
        else:
            cjk.extend(fts_quote(bigram) for bigram in run_bigrams(run))
    if cjk:
        parts.append(f"{CJK_COLUMNS} : (" + " OR ".join(dict.fromkeys(cjk)) + ")")
    return " OR ".join(f"({part})" for part in parts), [*content, *runs]


def search(
    index: Index, query: str, *, limit: int, project: str | None
) -> tuple[list[EpisodeHit], list[str]]:
    """Episodes ranked by BM25 over goal, summary, actions, errors and decisions."""
    expression, terms = match_expression(query)
    if not expression:
        return [], terms
    clause, params = EpisodeFilter(project=project).where()
    extra = clause.replace(" WHERE ", " AND ", 1)
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    with index.read() as conn:
        rows = conn.execute(
            sa.text(
                f"SELECT m.data_json, bm25(episode_search, {weights}) AS rank "
                "FROM episode_search JOIN episode_meta m ON m.file_id = episode_search.rowid "
                f"WHERE episode_search MATCH :match{extra} ORDER BY rank, m.ts DESC LIMIT :limit"
            ),
            {**params, "match": expression, "limit": limit},
        ).all()
    hits: list[EpisodeHit] = []
    for row in rows:
        episode = episode_from_document(json.loads(row.data_json))
        texts = search_texts(episode)
        hits.append(
            EpisodeHit(
                id=episode.id,
                timestamp=episode.timestamp,
                goal=episode.goal,
                summary=episode.summary,
                outcome=episode.outcome,
                task_type=episode.task_type,
                workdir_hash=episode.workdir_hash,
                importance=episode.importance,
                score=round(-float(row.rank), 6),
                snippet=snippet(
                    "\n".join(texts.values()),
                    terms,
                    before=config.SEARCH_SNIPPET_CONTEXT_BEFORE,
                    after=config.SEARCH_SNIPPET_CONTEXT_AFTER,
                    limit=config.EPISODE_SNIPPET_MAX_CHARS,
                ),
            )
        )
    return hits, terms


# --------------------------------------------------------------------------------------------
# Reconcile


def reconcile(layout: Layout, index: Index, *, full: bool) -> EpisodeReconcile:
    """Bring the episode tables in line with the files; the caller holds the write lock."""
    started = time.perf_counter()
    found, skipped = scan(layout)
    with index.read() as conn:
        if not full and not _consistent(conn):
            log.info("episode index rows disagree; rebuilding them from the files")
            full = True
        # A full pass forgets every row and reads every file again.
        had_rows = bool(
            driver(conn).execute("SELECT EXISTS (SELECT 1 FROM episode_files)").fetchone()[0]
        )
        states = {} if full else _states(conn)
        current = problems(conn)
    report = EpisodeReconcile(full=full, scanned=len(found))
    present = {item.relpath for item in found} | {skip.path for skip in skipped}
    changed: list[FoundEpisode] = []
    for item in found:
        state = states.get(item.relpath)
        if (
            state is not None
            and state.mtime_ns == item.mtime_ns
            and state.size == item.size
            and not (state.problem or "").startswith(TRANSIENT_PREFIXES)
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
    changed.sort(key=lambda item: (_transient(states.get(item.relpath)), item.relpath))
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
            _clear(conn)
        for path in gone:
            _remove(conn, path)
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
            _record_problem(conn, skip.path, mtime_ns=0, size=0, sha256="", reason=skip.reason)
        report.problems = [Problem(path=p, reason=r) for p, r in problems(conn)]
    report.duration_ms = round((time.perf_counter() - started) * 1000, 3)
    return report


def _item_problem(conn: Connection, item: FoundEpisode, reason: str, sha256: str = "") -> None:
    """Record why a found episode file is not indexed (the file is left as it is)."""
    _record_problem(
        conn, item.relpath, mtime_ns=item.mtime_ns, size=item.size, sha256=sha256, reason=reason
    )


def _transient(state: FileState | None) -> bool:
    return state is not None and (state.problem or "").startswith(TRANSIENT_PREFIXES)


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
        # Same bytes, new mtime (touched, copied back): re-stamp it, don't parse it again.
        driver(conn).execute(
            "UPDATE episode_files SET mtime_ns = ? WHERE id = ?", (item.mtime_ns, old.id)
        )
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
        holder = _path_of(conn, episode.id)
        if holder is not None and holder != item.relpath and not layout.abspath(holder).exists():
            _remove(conn, holder)  # the episode moved to another file
            holder = None
    if holder is not None and holder != item.relpath:
        reason = f"{DUPLICATE_PREFIX} id {episode.id!r} is already used by {holder}"
        _item_problem(conn, item, reason, digest)
        return
    claimed[episode.id] = item.relpath
    _upsert(
        conn, item.relpath, mtime_ns=item.mtime_ns, size=item.size, sha256=digest, episode=episode
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

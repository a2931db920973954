"""The episode tables of the index: row upkeep and queries (list, newest, search; SPEC 6).

episode_files (one row per file: stamps, hash, problem), episode_meta (the columns that list
and filter, plus the normalized episode as JSON for the timeline) and episode_search (FTS5:
Porter for Latin words, CJK bigrams like memory_search) are derived from the files
(store/episodes.py writes them, store/episode_reconcile.py brings them in line). Row upkeep
runs inside the caller's Index.write()/read() transaction.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import local_date, parse_rfc3339_ms, utc_date
from liveagent_memory.domain.schema import Episode, EpisodeHit, EpisodeSummary
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.store.db import driver
from liveagent_memory.store.episode_docs import (
    episode_document,
    episode_from_document,
    search_texts,
)
from liveagent_memory.store.index import Index
from liveagent_memory.store.lemmas import lemma
from liveagent_memory.store.rows import FileState
from liveagent_memory.store.text import (
    STOP_WORDS,
    cjk_tokens,
    fts_quote,
    index_text,
    query_cjk_runs,
    query_words,
    run_bigrams,
    snippet,
)

log = logging.getLogger(__name__)

# BM25 weights of episode_search: goal, summary, actions, errors, decisions, hcjk, bcjk.
COLUMN_WEIGHTS = (3.0, 2.0, 1.0, 1.5, 1.5, 3.0, 1.0)
LATIN_COLUMNS = "{goal summary actions errors decisions}"
CJK_COLUMNS = "{hcjk bcjk}"

_FILE_FIELDS = ("id", "path", "mtime_ns", "size", "sha256", "episode_id", "problem", "ctime_ns")
_FILE_COLUMNS = ", ".join(_FILE_FIELDS)
_SUMMARY_COLUMNS = "m.file_id, m.data_json, m.ts, m.date, f.path"


# --------------------------------------------------------------------------------------------
# Rows


def states(conn: Connection) -> dict[str, FileState]:
    rows = driver(conn).execute(f"SELECT {_FILE_COLUMNS} FROM episode_files").fetchall()
    return {row[1]: FileState.from_row(_FILE_FIELDS, row) for row in rows}


def state(conn: Connection, path: str) -> FileState | None:
    row = (
        driver(conn)
        .execute(f"SELECT {_FILE_COLUMNS} FROM episode_files WHERE path = ?", (path,))
        .fetchone()
    )
    return FileState.from_row(_FILE_FIELDS, row) if row else None


def path_of(conn: Connection, episode_id: str) -> str | None:
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
    tokens: int = 0,
    ctime_ns: int = 0,
) -> int:
    """Insert or update the episode_files row of `path` (its index rows dropped); its id."""
    previous = state(conn, path)
    if previous is None:
        result = driver(conn).execute(
            "INSERT INTO episode_files (path, mtime_ns, size, sha256, episode_id, problem, "
            "tokens, ctime_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (path, mtime_ns, size, sha256, episode_id, problem, tokens, ctime_ns),
        )
        return int(result.lastrowid or 0)
    _delete_rows(conn, previous.id)
    driver(conn).execute(
        "UPDATE episode_files SET mtime_ns = ?, size = ?, sha256 = ?, episode_id = ?, "
        "problem = ?, tokens = ?, ctime_ns = ? WHERE id = ?",
        (mtime_ns, size, sha256, episode_id, problem, tokens, ctime_ns, previous.id),
    )
    return previous.id


def upsert(
    conn: Connection,
    path: str,
    *,
    mtime_ns: int,
    size: int,
    sha256: str,
    episode: Episode,
    text: str,
    ctime_ns: int = 0,
) -> None:
    """Index one parsed episode file; `text` is the file's, for its token estimate."""
    file_id = _file_row(
        conn,
        path,
        mtime_ns=mtime_ns,
        size=size,
        sha256=sha256,
        episode_id=episode.id,
        problem=None,
        tokens=estimate_tokens(text),
        ctime_ns=ctime_ns,
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
            index_text(texts["goal"]),
            index_text(texts["summary"]),
            index_text(texts["actions"]),
            index_text(texts["errors"]),
            index_text(texts["decisions"]),
            cjk_tokens(head),
            cjk_tokens(rest),
        ),
    )


def record_problem(
    conn: Connection,
    path: str,
    *,
    mtime_ns: int,
    size: int,
    sha256: str,
    reason: str,
    ctime_ns: int = 0,
) -> None:
    log.warning("episode file %s skipped: %s", path, reason)
    _file_row(
        conn,
        path,
        mtime_ns=mtime_ns,
        size=size,
        sha256=sha256,
        episode_id=None,
        problem=reason,
        ctime_ns=ctime_ns,
    )


def remove(conn: Connection, path: str) -> None:
    previous = state(conn, path)
    if previous is not None:
        _delete_rows(conn, previous.id)
        driver(conn).execute("DELETE FROM episode_files WHERE id = ?", (previous.id,))


def touch(conn: Connection, file_id: int, mtime_ns: int, ctime_ns: int = 0) -> None:
    """The file's bytes are unchanged: remember its new stamps."""
    driver(conn).execute(
        "UPDATE episode_files SET mtime_ns = ?, ctime_ns = ? WHERE id = ?",
        (mtime_ns, ctime_ns, file_id),
    )


def has_rows(conn: Connection) -> bool:
    """Whether any episode file is indexed (or recorded as a problem)."""
    return bool(driver(conn).execute("SELECT EXISTS (SELECT 1 FROM episode_files)").fetchone()[0])


def clear(conn: Connection) -> None:
    for table in ("episode_search", "episode_meta", "episode_files"):
        driver(conn).execute(f"DELETE FROM {table}")


def consistent(conn: Connection) -> bool:
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
        # irregular forms as the index writes them (store/lemmas.py)
        matched = dict.fromkeys(lemma(w) for w in content)
        parts.append(f"{LATIN_COLUMNS} : (" + " OR ".join(fts_quote(w) for w in matched) + ")")
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
    hits = [
        episode_hit(episode_from_document(json.loads(row.data_json)), -float(row.rank), terms)
        for row in rows
    ]
    return hits, terms


def episode_hit(episode: Episode, score: float, terms: list[str]) -> EpisodeHit:
    """An episode as a search hit: `score` (higher is better) and a snippet around `terms`
    (also for an episode found by its meaning, retrieval/unified.py)."""
    return EpisodeHit(
        id=episode.id,
        timestamp=episode.timestamp,
        goal=episode.goal,
        summary=episode.summary,
        outcome=episode.outcome,
        task_type=episode.task_type,
        workdir_hash=episode.workdir_hash,
        importance=episode.importance,
        score=round(score, 6),
        snippet=snippet(
            "\n".join(search_texts(episode).values()),
            terms,
            before=config.SEARCH_SNIPPET_CONTEXT_BEFORE,
            after=config.SEARCH_SNIPPET_CONTEXT_AFTER,
            limit=config.EPISODE_SNIPPET_MAX_CHARS,
        ),
    )


def ids_of_project(index: Index, project: str) -> list[str]:
    """The id of every episode filed under project folder `project` (not the unscoped ones)."""
    with index.read() as conn:
        rows = (
            driver(conn)
            .execute(
                "SELECT episode_id FROM episode_meta WHERE workdir_hash = ? ORDER BY episode_id",
                (project,),
            )
            .fetchall()
        )
    return [str(row[0]) for row in rows]


def episode_ids(index: Index) -> list[str]:
    """The id of every indexed episode, oldest start first (one query, no file read)."""
    with index.read() as conn:
        rows = (
            driver(conn)
            .execute("SELECT episode_id FROM episode_meta ORDER BY ts, episode_id")
            .fetchall()
        )
    return [str(row[0]) for row in rows]


def indexed_episodes(index: Index, ids: list[str]) -> dict[str, Episode]:
    """The index's copy of the episodes of `ids` (an id it does not hold is absent)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, Episode] = {}
    step = config.VECTOR_BUILD_READ_PAGE  # well under SQLite's limit of bound values
    with index.read() as conn:
        for start in range(0, len(wanted), step):
            chunk = wanted[start : start + step]
            marks = ", ".join("?" for _ in chunk)
            rows = (
                driver(conn)
                .execute(f"SELECT data_json FROM episode_meta WHERE episode_id IN ({marks})", chunk)
                .fetchall()
            )
            for (data,) in rows:
                episode = episode_from_document(json.loads(data))
                out[episode.id] = episode
    return out


def importance_rows(conn: Connection) -> list[tuple[str, int, float]]:
    """(episode id, its start in ms, stored importance) of every indexed episode."""
    rows = driver(conn).execute("SELECT episode_id, ts, importance FROM episode_meta").fetchall()
    return [(str(i), int(start), float(importance)) for i, start, importance in rows]


def update_use(
    conn: Connection,
    path: str,
    *,
    mtime_ns: int,
    size: int,
    sha256: str,
    episode: Episode,
    text: str,
) -> None:
    """The file of an indexed episode changed only in its use (access count, last read,
    importance: store/episode_access.py): new stamps and importance, the search rows kept."""
    driver(conn).execute(
        "UPDATE episode_files SET mtime_ns = ?, size = ?, sha256 = ?, tokens = ? WHERE path = ?",
        (mtime_ns, size, sha256, estimate_tokens(text), path),
    )
    driver(conn).execute(
        "UPDATE episode_meta SET importance = ?, data_json = ? WHERE episode_id = ?",
        (
            episode.importance,
            json.dumps(episode_document(episode), ensure_ascii=False),
            episode.id,
        ),
    )

"""Episode traces from outside: validate and normalize one into an Episode before the store.

`normalize_episode` is the entry point for outside data: it is how a caller's trace (the
`episode_record` command, a Loki Mode file given to `episode record`) becomes an Episode. It calls
store/episode_docs.parse_episode, which checks every field (REFERENCE B2, both action forms, UTC
times through domain/clock.py), and passes it the store's `detect_episode_task_type` for a trace
that names no task type (built on domain/task_types.py, the one detector). The store is then
handed the normalized Episode.
"""

from __future__ import annotations

from typing import Any

from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import EpisodeRecordRequest, EpisodeSearchRequest
from liveagent_memory.domain.schema import Episode, EpisodeRecordResult, EpisodeSearchResult
from liveagent_memory.store.episode_docs import detect_episode_task_type, parse_episode
from liveagent_memory.store.store import MemoryStore


def normalize_episode(
    raw: Any,
    *,
    now_ms: int,
    default_workdir: str | None = None,
    default_id: str | None = None,
    require_timestamp: bool = False,
) -> Episode:
    """Validate an episode trace and return it normalized (InvalidArgument naming the field).

    Args:
        now_ms: the start when neither the trace nor its actions give a time (else the
            earliest absolute action time), and `recorded_at` when it has none.
        default_workdir: the project when the trace names none (the caller's --workdir).
        default_id: the id when the trace has none (a file's name); else one is generated.
        require_timestamp: the trace must say when it happened.
    """
    return parse_episode(
        raw,
        now_ms=now_ms,
        default_workdir=default_workdir,
        default_id=default_id,
        require_timestamp=require_timestamp,
        task_type_of=detect_episode_task_type,
    )


def record_episode(store: MemoryStore, req: EpisodeRecordRequest) -> EpisodeRecordResult:
    """Normalize an outside trace (the request's workdir when it names none) and store it.

    Outside data is normalized here, above the store (with the task-type detector); the store
    checks the normalized form it is handed.
    """
    episode = normalize_episode(req.episode, now_ms=store.now_ms(), default_workdir=req.workdir)
    return store.record_episode(episode, replace=req.replace)


def search_episodes(store: MemoryStore, req: EpisodeSearchRequest) -> EpisodeSearchResult:
    """Episodes ranked by keywords for the request's query; a query without text is refused."""
    if not req.query.strip():
        raise InvalidArgument(
            "An episode search needs a query: words to look for in the episodes", field="query"
        )
    return store.episode_search(req.query, limit=req.limit, workdir=req.workdir)

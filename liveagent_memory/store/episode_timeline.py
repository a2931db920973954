"""The episode timeline (REFERENCE B6 layer 2): recent actions, key decisions, active context.

Computed on demand from the newest episodes (MemoryStore.episode_timeline reads them), so there
is no timeline.json to go stale. Plain Python over Episode values: no files, no SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from liveagent_memory.domain import config
from liveagent_memory.domain.schema import (
    ActiveContext,
    Episode,
    EpisodeOutcome,
    Timeline,
    TimelineAction,
    TimelineBlocker,
    TimelineDecision,
)


def _short(text: str) -> str:
    """Timeline entries are a glance (the reference cuts goals to 100 characters there); the
    whole text stays in the episode."""
    limit = config.TIMELINE_TEXT_MAX_CHARS
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def open_episodes(episodes: Sequence[Episode]) -> list[Episode]:
    """Episodes, newest first, whose task has not ended in success since.

    An episode is open when its outcome is not success and no newer episode of the same
    task_id succeeded; of several open attempts at one task only the newest counts.
    """
    closed: set[str] = set()
    seen: set[str] = set()
    out: list[Episode] = []
    for episode in episodes:
        key = episode.task_id
        if episode.outcome == EpisodeOutcome.SUCCESS:
            if key:
                closed.add(key)
            continue
        if key and (key in closed or key in seen):
            continue
        if key:
            seen.add(key)
        out.append(episode)
    return out


def build_timeline(
    episodes: Sequence[Episode],
    *,
    actions_limit: int = config.TIMELINE_MAX_RECENT_ACTIONS,
    decisions_limit: int = config.TIMELINE_MAX_KEY_DECISIONS,
) -> Timeline:
    """The timeline of `episodes` (newest start first).

    recent_actions: every action, newest first (an action without a time takes its episode's
    start). key_decisions: newest episode first, later decisions of one episode first.
    active_context: the focus is the newest open episode (see open_episodes), else the newest
    episode; blocked_by are the open episodes' unresolved errors; next_up the other open goals.
    """
    actions_limit = min(max(actions_limit, 0), config.TIMELINE_MAX_RECENT_ACTIONS)
    decisions_limit = min(max(decisions_limit, 0), config.TIMELINE_MAX_KEY_DECISIONS)
    ranked: list[tuple[str, int, int, TimelineAction]] = []
    for position, episode in enumerate(episodes):
        for index, action in enumerate(episode.action_log):
            when = action.timestamp or episode.timestamp
            entry = TimelineAction(
                episode_id=episode.id,
                time=when,
                action=_short(action.tool),
                target=_short(action.input),
                result=_short(action.output),
            )
            # RFC 3339 UTC with fixed width sorts as text; ties: newer episode, later step.
            ranked.append((when, -position, index, entry))
    ranked.sort(key=lambda item: item[:3], reverse=True)
    decisions = [
        TimelineDecision(episode_id=episode.id, time=episode.timestamp, decision=_short(text))
        for episode in episodes
        for text in reversed(episode.key_decisions)
    ]
    pending = open_episodes(episodes)
    focus = pending[0] if pending else (episodes[0] if episodes else None)
    blockers = [
        TimelineBlocker(
            episode_id=episode.id,
            time=episode.timestamp,
            error_type=error.error_type,
            message=_short(error.message),
        )
        for episode in pending
        for error in reversed(episode.errors_encountered)
        if not error.resolution
    ]
    return Timeline(
        recent_actions=[item[3] for item in ranked[:actions_limit]],
        key_decisions=decisions[:decisions_limit],
        active_context=ActiveContext(
            current_focus=focus.goal if focus is not None else "",
            focus_episode_id=focus.id if focus is not None else None,
            blocked_by=blockers[: config.TIMELINE_MAX_BLOCKERS],
            next_up=[episode.goal for episode in pending[1:]][: config.TIMELINE_MAX_NEXT_UP],
        ),
        episodes_scanned=len(episodes),
    )

"""What writing episode use to the files did: counts written, importance decayed, files skipped
(issue 18; store/episode_access.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from liveagent_memory.domain.schema import Shape


@dataclass(frozen=True)
class SkippedEpisode(Shape):
    """An episode file left as it is, and why (hand-edited and unreadable, changed meanwhile)."""

    id: str
    path: str
    reason: str


@dataclass
class EpisodeUseResult(Shape):
    """One flush of access counts and, for `episode_decay`, one decay pass.

    `flushed` episodes had their reads added to their files; `decayed` had their importance
    lowered; `applied_on` is the UTC day of the last decay pass (None: no decay ran);
    `skipped` files kept their bytes (their counts stay pending for the next flush).
    """

    flushed: int = 0
    decayed: int = 0
    applied_on: str | None = None
    skipped: list[SkippedEpisode] = field(default_factory=list)

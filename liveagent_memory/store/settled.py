"""Settled contradictions: pairs of memories a person kept both of (issue 15).

When a person answers "these two disagree — which one is current?" with "keep both", nothing
changes in either memory, yet a later organizer run must not ask again about the same two
texts. The answer is remembered per scope in a small JSON file beside `.trash/`
(`config.CONTRADICTION_SETTLED_FILENAME`): a dot file, so the memory scans pass it over and the
reference never reads it, and it travels with the scope's folder when a store is synced. Each
pair keeps the fingerprint of both texts as they were (the organizer computes them); a changed
text no longer matches, so the pair is a new question.

The file is a hint, never the truth of a memory: an unreadable one reads as empty (and is
logged), and the next "keep both" writes a good one.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.files import ensure_private_dir
from liveagent_memory.store.mutation import mutation

log = logging.getLogger(__name__)
_VERSION = 1


@dataclass(frozen=True)
class SettledPair:
    """Two memories of one scope a person kept both of, by slug, with their texts' prints."""

    first: str
    second: str
    first_print: str
    second_print: str
    at: int  # when it was settled (ms)
    run_id: str  # the organizer run whose question it answered

    def matches(self, prints: dict[str, str]) -> bool:
        """The same two memories with the same texts (`prints`: slug -> print now)."""
        return (
            prints.get(self.first) == self.first_print
            and prints.get(self.second) == self.second_print
        )

    @property
    def slugs(self) -> frozenset[str]:
        return frozenset((self.first, self.second))


def _path(ctx: StoreContext, scope: str, workdir_hash: str) -> Path:
    return ctx.layout.scope_dir(scope, workdir_hash) / config.CONTRADICTION_SETTLED_FILENAME


def settled_pairs(ctx: StoreContext, scope: str, workdir_hash: str) -> list[SettledPair]:
    """The pairs settled in one scope, oldest first (none when the file is missing or
    unreadable)."""
    path = _path(ctx, scope, workdir_hash)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [SettledPair(**item) for item in data["pairs"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring unreadable settled contradictions in %s: %s", path, exc)
        return []


def settle_pair(ctx: StoreContext, scope: str, workdir_hash: str, pair: SettledPair) -> None:
    """Remember `pair` (replacing an older answer about the same two memories), under the
    store's write lock; the oldest pairs go beyond the cap."""
    with mutation(ctx) as changes:
        kept = [p for p in settled_pairs(ctx, scope, workdir_hash) if p.slugs != pair.slugs]
        kept = [*kept, pair][-config.CONTRADICTION_SETTLED_MAX_PAIRS :]
        path = _path(ctx, scope, workdir_hash)
        ensure_private_dir(path.parent)
        data: dict[str, Any] = {"version": _VERSION, "pairs": [asdict(p) for p in kept]}
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        changes.files.write(path, text.encode("utf-8"))
        changes.files.commit()

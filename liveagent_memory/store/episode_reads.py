"""Reads of episodes counted in memory until store/episode_access.py writes them (issue 18)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from liveagent_memory.domain import config


@dataclass
class PendingReads:
    """Reads of one episode not yet in its file: how many, and the latest (ms)."""

    count: int
    last_ms: int


class EpisodeAccesses:
    """The reads this store object counted and has not written yet (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, PendingReads] = {}
        self._oldest_ms: int | None = None

    def add(self, episode_ids: list[str], now_ms: int) -> None:
        with self._lock:
            for episode_id in episode_ids:
                reads = self._pending.setdefault(episode_id, PendingReads(0, now_ms))
                reads.count += 1
                reads.last_ms = max(reads.last_ms, now_ms)
            if self._pending and self._oldest_ms is None:
                self._oldest_ms = now_ms

    def of(self, episode_id: str) -> PendingReads | None:
        with self._lock:
            reads = self._pending.get(episode_id)
            return PendingReads(reads.count, reads.last_ms) if reads else None

    def due(self, now_ms: int) -> bool:
        """Whether the oldest unwritten read has waited long enough to be written now."""
        with self._lock:
            oldest = self._oldest_ms
        return oldest is not None and now_ms - oldest >= config.EPISODE_ACCESS_FLUSH_SECONDS * 1000

    def take(self) -> dict[str, PendingReads]:
        """Every pending read, forgotten here (a caller that cannot write them puts them back)."""
        with self._lock:
            taken, self._pending, self._oldest_ms = self._pending, {}, None
            return taken

    def put_back(self, reads: dict[str, PendingReads], now_ms: int) -> None:
        with self._lock:
            for episode_id, back in reads.items():
                mine = self._pending.setdefault(episode_id, PendingReads(0, back.last_ms))
                mine.count += back.count
                mine.last_ms = max(mine.last_ms, back.last_ms)
            if self._pending and self._oldest_ms is None:
                self._oldest_ms = now_ms

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

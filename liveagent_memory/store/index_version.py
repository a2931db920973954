"""Whether the index changed since a figure was computed from it (issue 17).

Every context reports what loading everything would cost (store/index.py `footprint`: the
count, bytes and tokens of the visible memories and episodes), two sums over every row: ~7 ms
of a 10k store's ~34 ms context. The figure only changes when the index does, so it is kept
with the index's version and computed again when that moved.

The version is SQLite's `PRAGMA data_version`, read on a connection of its own that never
writes: it changes whenever any other connection commits to the index, this process's engine
or another program, and costs ~2 us to read.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from liveagent_memory.domain import config


class IndexVersion:
    """The index file's `PRAGMA data_version`, seen from a connection used for nothing else."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def current(self) -> int | None:
        """The version now; None when it cannot be read (then nothing may be kept)."""
        with self._lock:
            try:
                if self._db is None:
                    self._db = sqlite3.connect(
                        self.path,
                        timeout=config.SQLITE_BUSY_TIMEOUT_MS / 1000,
                        check_same_thread=False,  # under the lock, from any thread
                    )
                row = self._db.execute("PRAGMA data_version").fetchone()
            except sqlite3.Error:
                self._close()
                return None
            return int(row[0])

    def close(self) -> None:
        """Close its connection (the next `current` opens one again: e.g. on a new file)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

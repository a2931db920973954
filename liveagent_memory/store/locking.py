"""The store's write lock: one mutation at a time, across threads and processes (SPEC 1.1)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import filelock

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store.files import store_unavailable


class WriteLock:
    """Serializes every mutation across threads and processes (SPEC 1.1).

    The GUI, the CLI and an agent process can share one store: each write takes this lock,
    so read-modify-write sequences never interleave and no write is lost.
    """

    def __init__(
        self,
        lock_path: Path,
        timeout: float = config.LOCK_TIMEOUT_SECONDS,
        *,
        on_acquire: Callable[[], None] | None = None,
    ) -> None:
        """`on_acquire` runs each time the lock is taken anew (not when re-entered), before
        the holder does anything: the store undoes a git sync another process left half done
        there (store/git_sync.py `recover`)."""
        self._path = lock_path
        self._thread_lock = threading.RLock()
        self._file_lock = filelock.FileLock(str(lock_path), timeout=timeout, mode=config.FILE_MODE)
        self._on_acquire = on_acquire
        self._depth = 0  # guarded by the thread lock

    def __enter__(self) -> WriteLock:
        self._thread_lock.acquire()
        try:
            self._file_lock.acquire()
        except filelock.Timeout as exc:
            self._thread_lock.release()
            raise StoreUnavailable(
                f"another process has held the store's write lock for too long ({self._path})"
            ) from exc
        except OSError as exc:
            self._thread_lock.release()
            raise store_unavailable(exc, self._path) from exc
        self._depth += 1
        if self._depth == 1 and self._on_acquire is not None:
            try:
                self._on_acquire()
            except BaseException:
                self.__exit__(None, None, None)
                raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._depth -= 1
        self._file_lock.release()
        self._thread_lock.release()

    @property
    def held(self) -> bool:
        return self._file_lock.is_locked

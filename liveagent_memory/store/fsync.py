"""Making many files durable at once: fsync on a pool of threads (issue 17).

A batch (store/files.py FileChanges, deferred) writes a chunk's files to temp names and
fsyncs them all here before renaming any.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from liveagent_memory.domain import config


def sync_files(files: list[tuple[str, int | None]]) -> None:
    """fsync every (name, open fd or None) file, DURABLE_SYNC_THREADS at a time: concurrent
    fsyncs share the journal's commits, so many files become durable in about the time of
    one. A file without an fd is opened by name. Raises the first OSError after all have
    been tried."""

    def sync(item: tuple[str, int | None]) -> None:
        name, kept = item
        fd = os.open(name, os.O_WRONLY) if kept is None else kept
        try:
            os.fsync(fd)
        finally:
            if kept is None:
                os.close(fd)

    if len(files) == 1:
        sync(files[0])
        return
    pool = _sync_pool()
    for future in [pool.submit(sync, item) for item in files]:
        future.result()


_pool: tuple[int, ThreadPoolExecutor] | None = None


def _sync_pool() -> ThreadPoolExecutor:
    """The fsync threads, kept between a batch's chunks instead of 16 new ones per chunk; a
    new pool after a fork, whose child has none of the parent's threads."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        pool = ThreadPoolExecutor(config.DURABLE_SYNC_THREADS, thread_name_prefix="fsync")
        _pool = (os.getpid(), pool)
    return _pool[1]

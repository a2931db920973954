"""Making many files durable at once (issue 17).

A batch (store/files.py FileChanges, deferred) writes a chunk's files to temp names and makes
them all durable here before renaming any. On Linux one `syncfs` per file system does it: a
single call that writes back every dirty file of that file system and commits its journal,
instead of one fsync per file. Elsewhere, or for a few files, each file is fsynced, on a pool
of threads so their fsyncs share the journal's commits.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from liveagent_memory.domain import config

SyncedFile = tuple[str, int | None]  # a temp file's name and its open fd (None: opened by name)
# syncfs reports write-back errors (EIO, ENOSPC of delayed allocation) only since Linux 5.8;
# before, it returned 0 whatever happened, which must not count as durable.
SYNCFS_MIN_KERNEL = (5, 8)


def sync_files(files: list[SyncedFile]) -> None:
    """Make every (name, open fd or None) file durable. Raises the first OSError (after all
    files were tried, on the per-file path)."""
    if len(files) >= config.DURABLE_SYNCFS_MIN_FILES and _syncfs_each_device(files):
        return
    _fsync_each(files)


def _syncfs_each_device(files: list[SyncedFile]) -> bool:
    """One syncfs per file system the files are on; False when this system has no usable
    syncfs (the caller fsyncs each file instead)."""
    syncfs = _syncfs()
    if syncfs is None:
        return False
    devices: dict[int, SyncedFile] = {}
    for name, fd in files:
        device = (os.fstat(fd) if fd is not None else os.stat(name)).st_dev
        devices.setdefault(device, (name, fd))
    for name, kept in devices.values():
        fd = os.open(name, os.O_RDONLY) if kept is None else kept
        try:
            syncfs(fd)
        finally:
            if kept is None:
                os.close(fd)
    return True


def _fsync_each(files: list[SyncedFile]) -> None:
    """fsync every file, DURABLE_SYNC_THREADS at a time: concurrent fsyncs share the journal's
    commits, so many files become durable in about the time of one."""

    def sync(item: SyncedFile) -> None:
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


_UNKNOWN: object = object()
_syncfs_call: Callable[[int], None] | None | object = _UNKNOWN


def _syncfs() -> Callable[[int], None] | None:
    """syncfs(fd) raising OSError on failure, or None where there is none that reports errors
    (not Linux, a kernel before SYNCFS_MIN_KERNEL, no such libc symbol). Looked up once;
    ctypes is imported only then, not at start-up."""
    global _syncfs_call
    if _syncfs_call is _UNKNOWN:
        _syncfs_call = _load_syncfs()
    return _syncfs_call  # type: ignore[return-value]


def _load_syncfs() -> Callable[[int], None] | None:
    if not sys.platform.startswith("linux") or kernel_version() < SYNCFS_MIN_KERNEL:
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int

    def call(fd: int) -> None:
        if function(fd) != 0:
            code = ctypes.get_errno() or errno.EIO
            raise OSError(code, os.strerror(code))

    return call


def kernel_version() -> tuple[int, int]:
    """The running kernel's (major, minor), (0, 0) when it cannot be read."""
    release = os.uname().release if hasattr(os, "uname") else ""
    found = re.match(r"(\d+)\.(\d+)", release)
    return (int(found[1]), int(found[2])) if found else (0, 0)

"""A batch's chunk made durable by one syncfs per file system (issue 17; store/fsync.py).

From DURABLE_SYNCFS_MIN_FILES files a chunk's temp files are made durable with one syncfs of
each file system they are on, before any is renamed; fewer files, or a system without a
syncfs that reports errors, fsync each file. The real syncfs runs (counted by a wrapper that
calls it); a failing one, which a healthy disk cannot produce, is a stand-in raising EIO.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import BatchItem, BatchRequest, ListRequest, ReadRequest
from liveagent_memory.store import fsync
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_files, mounted_tmpfs, temp_files
from tests.helpers.fakes import FakeClock

needs_syncfs = pytest.mark.skipif(fsync._syncfs() is None, reason="no syncfs that reports errors")


def _items(count: int, *, prefix: str = "fact", type: str = "reference") -> list[BatchItem]:
    return [
        BatchItem(
            op="upsert",
            slug=f"{prefix}-{i:02d}",
            scope="global",
            type=type,
            description=f"{prefix} {i}",
            body=f"The {prefix} number {i}.",
        )
        for i in range(count)
    ]


@pytest.fixture
def syncfs_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The device of each fd the real syncfs is called on."""
    real = fsync._syncfs()
    assert real is not None
    calls: list[int] = []

    def counted(fd: int) -> None:
        calls.append(os.fstat(fd).st_dev)
        real(fd)

    monkeypatch.setattr(fsync, "_syncfs_call", counted)
    return calls


@needs_syncfs
def test_a_chunk_of_many_files_is_made_durable_by_one_syncfs(
    home: Path, clock: FakeClock, syncfs_calls: list[int]
) -> None:
    count = config.BATCH_ITEMS_PER_TRANSACTION + config.DURABLE_SYNCFS_MIN_FILES
    with MemoryStore.open(home, clock=clock) as store:
        result = store.apply_batch(BatchRequest(actor="user", items=_items(count)))
        assert (result.applied, result.failed) == (count, 0)
        assert "The fact number 7." in store.read(ReadRequest(slug="fact-07")).body
    assert len(syncfs_calls) == 2  # one per chunk: 100 files, then 16
    assert len(memory_files(home)) == count
    assert temp_files(home) == []


@needs_syncfs
def test_a_few_files_are_fsynced_each_not_the_whole_file_system(
    home: Path, clock: FakeClock, syncfs_calls: list[int]
) -> None:
    count = config.DURABLE_SYNCFS_MIN_FILES - 1
    with MemoryStore.open(home, clock=clock) as store:
        result = store.apply_batch(BatchRequest(actor="user", items=_items(count)))
        assert result.applied == count
    assert syncfs_calls == []
    assert len(memory_files(home)) == count


def test_without_syncfs_every_file_is_fsynced_and_written(
    home: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsync, "_syncfs_call", None)  # not Linux, or a kernel before 5.8
    synced: list[int] = []
    real_fsync = os.fsync

    def counted(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counted)
    count = config.DURABLE_SYNCFS_MIN_FILES + 4
    with MemoryStore.open(home, clock=clock) as store:
        assert store.apply_batch(BatchRequest(actor="user", items=_items(count))).applied == count
    assert len(synced) >= count  # every temp file (and the folders after the renames)
    assert len(memory_files(home)) == count


def test_a_failing_syncfs_fails_the_chunk_and_changes_nothing(
    home: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        store.apply_batch(BatchRequest(actor="user", items=_items(2, prefix="kept")))
        before = memory_files(home)

        def failing(fd: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(fsync, "_syncfs_call", failing)
        count = config.DURABLE_SYNCFS_MIN_FILES + 2
        result = store.apply_batch(BatchRequest(actor="user", items=_items(count)))
        assert (result.applied, result.failed) == (0, count)
        assert {w.code for w in result.warning_details} == {"store_unavailable"}
        assert "Input/output error" in result.warning_details[0].message
        listed = store.list_entries(ListRequest()).entries
        assert sorted(entry.slug for entry in listed) == ["kept-00", "kept-01"]
    assert memory_files(home) == before  # no file of the failed chunk, old ones untouched
    assert temp_files(home) == []


@pytest.fixture
def mounted_user_folder(home: Path) -> Iterator[Path]:
    """global/user/ on a tmpfs of its own (a second file system under the store)."""
    folder = home / "global" / "user"
    folder.mkdir(parents=True)
    with mounted_tmpfs(folder, 8 * 1024 * 1024, mode="0700") as mounted:
        yield mounted


@needs_syncfs
def test_a_chunk_on_two_file_systems_syncs_each_once(
    home: Path, clock: FakeClock, syncfs_calls: list[int], mounted_user_folder: Path
) -> None:
    items = _items(10) + _items(10, prefix="likes", type="user")  # user memories: global/user/
    with MemoryStore.open(home, clock=clock) as store:
        assert store.apply_batch(BatchRequest(actor="user", items=items)).applied == 20
    devices = {(home / "global").stat().st_dev, mounted_user_folder.stat().st_dev}
    assert len(devices) == 2
    assert sorted(syncfs_calls) == sorted(devices)
    assert len(list(mounted_user_folder.glob("likes-*.md"))) == 10
    assert temp_files(home) == []


@pytest.mark.parametrize(
    ("release", "expected"),
    [("6.18.0-1-amd64", (6, 18)), ("5.8.0", (5, 8)), ("5.7rc1", (5, 7)), ("weird", (0, 0))],
)
def test_the_kernel_version_is_read_from_its_release(
    monkeypatch: pytest.MonkeyPatch, release: str, expected: tuple[int, int]
) -> None:
    uname = os.uname()

    class Uname:
        def __getattr__(self, name: str) -> object:
            return release if name == "release" else getattr(uname, name)

    monkeypatch.setattr(os, "uname", Uname)
    assert fsync.kernel_version() == expected


def test_a_kernel_whose_syncfs_hides_errors_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fsync, "kernel_version", lambda: (5, 7))
    assert fsync._load_syncfs() is None


def _loaded(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None] | None:
    monkeypatch.setattr(fsync, "_syncfs_call", fsync._UNKNOWN)
    return fsync._syncfs()


@needs_syncfs
def test_the_real_syncfs_reports_a_bad_descriptor(monkeypatch: pytest.MonkeyPatch) -> None:
    call = _loaded(monkeypatch)
    assert call is not None
    with pytest.raises(OSError) as caught:
        call(-1)
    assert caught.value.errno == errno.EBADF

"""Stale temp files: reconcile removes what a crashed atomic write left behind (issue 12).

A `.tmp-*.part` holds the full text of a memory. Reconcile deletes the store's own ones once
they are older than config.TEMP_FILE_STALE_SECONDS, and nothing else: not a younger one (another
process may be writing it), not a symlink or what it points to, not a file that only looks alike.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest, WriteRequest
from liveagent_memory.store.files import TEMP_PREFIX, TEMP_SUFFIX
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.diskstore import memory_files, set_age, temp_files, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.unprivileged import Unprivileged

PROJECT_HASH = "0123456789abcdef"
STALE = config.TEMP_FILE_STALE_SECONDS

# Every folder an atomic write lands in: memories, journals, skills, trash, snapshots, projects,
# episodes, vectors, and the root (settings.json).
WRITTEN_FOLDERS = (
    "",
    "global",
    "global/user",
    "global/daily",
    "global/daily/.archive/2026",
    "global/skills",
    "global/.trash",
    "global/.organize-snapshots",
    f"projects/{PROJECT_HASH}",
    f"projects/{PROJECT_HASH}/skills",
    f"projects/{PROJECT_HASH}/.trash",
    "episodes/2026-11-30",
    config.VECTORS_DIRNAME,
)


def make_temp_file(folder: Path, *, age_seconds: float, data: bytes = b"---\nname: half") -> Path:
    """A temp file as atomic_write makes it (same mkstemp call), last written `age` ago."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    set_age(Path(name), age_seconds)
    return Path(name)


def write_note(store: MemoryStore, slug: str, body: str) -> None:
    store.write(
        WriteRequest(slug=slug, scope="global", type="reference", description=slug, body=body)
    )


def test_old_temp_files_are_removed_from_every_folder_the_store_writes(
    store: MemoryStore,
) -> None:
    write_note(store, "kept-note", "the memory itself stays")
    before = memory_files(store.root)
    for folder in WRITTEN_FOLDERS:
        make_temp_file(store.root / folder, age_seconds=STALE + 1)
    assert len(temp_files(store.root)) == len(WRITTEN_FOLDERS)

    report = store.reconcile()

    assert report.temp_files_removed == len(WRITTEN_FOLDERS)
    assert temp_files(store.root) == []
    assert memory_files(store.root) == before
    assert (report.added, report.updated, report.removed, report.problems) == (0, 0, 0, [])
    hits = store.search(SearchRequest(query="memory itself")).matches
    assert [hit.slug for hit in hits] == ["kept-note"]
    assert store.reconcile().temp_files_removed == 0  # nothing left to remove


def test_a_temp_file_younger_than_the_threshold_is_kept(store: MemoryStore) -> None:
    old = make_temp_file(store.root / "global", age_seconds=STALE + 1)
    recent = make_temp_file(store.root / "global", age_seconds=STALE - 10, data=b"being written")
    fresh = make_temp_file(store.root / "global", age_seconds=0, data=b"just started")

    report = store.reconcile()

    assert report.temp_files_removed == 1
    assert not old.exists()
    assert recent.read_bytes() == b"being written"
    assert fresh.read_bytes() == b"just started"


def test_symlinks_are_neither_followed_nor_removed(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    target = make_temp_file(outside, age_seconds=STALE * 10, data=b"someone else's")
    # A linked project folder full of old temp files, and a link that is named like ours.
    (store.root / "projects" / PROJECT_HASH).symlink_to(outside, target_is_directory=True)
    link = store.root / "global" / f"{TEMP_PREFIX}linked{TEMP_SUFFIX}"
    link.symlink_to(target)
    set_age(link, STALE * 10)

    report = store.reconcile()

    assert report.temp_files_removed == 0
    assert link.is_symlink() and target.read_bytes() == b"someone else's"
    assert (store.root / "projects" / PROJECT_HASH).is_symlink()
    assert temp_files(outside) == [target.name]


def test_files_that_only_look_like_temp_files_are_kept(store: MemoryStore) -> None:
    look_alikes = [
        "global/notes.part",
        "global/tmp-abc12345.part",
        f"global/{TEMP_PREFIX}abc12345.md",
        f"global/{TEMP_PREFIX}abc12345{TEMP_SUFFIX}.bak",
        f"global/{TEMP_PREFIX}{TEMP_SUFFIX}",
        f"global/{TEMP_PREFIX}a b{TEMP_SUFFIX}",
        # Not the store's own folders: quarantined backups stay as moved; other folders aren't ours.
        f".quarantine/wiped-1/global/{TEMP_PREFIX}abc12345{TEMP_SUFFIX}",
        f"someone-else/{TEMP_PREFIX}abc12345{TEMP_SUFFIX}",
    ]
    for relpath in look_alikes:
        set_age(write_file(store.root, relpath, b"keep me"), STALE * 10)
    folder_named_like_one = store.root / "global" / f"{TEMP_PREFIX}folder{TEMP_SUFFIX}"
    folder_named_like_one.mkdir()
    set_age(folder_named_like_one, STALE * 10)

    report = store.reconcile()

    assert report.temp_files_removed == 0
    for relpath in look_alikes:
        assert (store.root / relpath).read_bytes() == b"keep me", relpath
    assert folder_named_like_one.is_dir()


def test_a_temp_file_that_cannot_be_removed_stays_and_reconcile_goes_on(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    home = unprivileged.folder / "memory"

    def reconcile_with_a_read_only_folder() -> tuple[int, int]:
        with MemoryStore.open(home, clock=clock) as store:
            write_note(store, "kept-note", "reconcile still works")
            stuck = make_temp_file(store.root / "global", age_seconds=STALE + 1)
            (store.root / "global").chmod(0o500)
            try:
                blocked = store.reconcile()
            finally:
                (store.root / "global").chmod(0o700)
            assert blocked.problems == [] and blocked.unchanged == 1
            assert stuck.exists()
            later = store.reconcile()  # the next pass tries again
            assert not stuck.exists()
            return blocked.temp_files_removed, later.temp_files_removed

    assert unprivileged.run(reconcile_with_a_read_only_folder) == (0, 1)
    assert set(memory_files(home)) == {"global/kept-note.md"}


def test_opening_the_store_from_the_cli_removes_them(tmp_path: Path) -> None:
    home = tmp_path / "store"
    MemoryStore.open(home, clock=FakeClock()).close()
    make_temp_file(home / "global", age_seconds=STALE + 1)
    code, out, err = run_cli("--home", str(home), "reconcile", "--json")

    assert (code, err) == (0, "")
    assert temp_files(home) == []
    # The pass that opened the store removed it; the asked-for pass found none left.
    assert json.loads(out)["temp_files_removed"] == 0

"""A batch's files are made durable together, then renamed (issue 17; store/files.py
FileChanges deferred, store/batch.py).

A child process runs a batch with an audit hook (`sys.addaudithook`, Python's own event for
`os.replace`) that stops it at an exact point: SIGKILL at the first rename of a chunk (every
temp file written, none renamed) or partway through the renames, or a refused rename (the disk
giving out). Nothing of the package is replaced; the hook only watches the OS calls.
"""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import BatchItem, BatchRequest, ReadRequest
from liveagent_memory.store.documents import load_file
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    FIXED_MS,
    INDEX_NAME,
    crash_batch_items,
    crash_old_text,
    fixed_clock,
    memory_files,
    query,
    set_age,
    start_python,
    temp_files,
    write_file,
)

COUNT = 150  # two index transactions (BATCH_ITEMS_PER_TRANSACTION = 100 items)
BIG_LIMIT = 10**6

# argv: home, count, fixed_ms, mode (kill | fail), how many renames of memory files go through
# before the next one is stopped (kill: SIGKILL; fail: that one rename refused, disk full)
STOP_SCRIPT = """
import errno, json, os, signal, sys
from liveagent_memory.domain.requests import BatchItem, BatchRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import crash_batch_items

home, count, fixed_ms, mode, allowed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \\
    sys.argv[4], int(sys.argv[5])
renames = []

def hook(event, args):
    if event != "os.rename" or not renames:
        return
    source, target = os.fsdecode(args[0]), os.fsdecode(args[1])
    if not (os.path.basename(source).startswith(".tmp-") and target.endswith(".md")):
        return
    if os.path.basename(target) == "MEMORY.md":
        return
    renames.append(target)
    if len(renames) == allowed + 2:
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise OSError(errno.ENOSPC, "No space left on device")  # this rename only

sys.addaudithook(hook)
items = [BatchItem(**item) for item in crash_batch_items(count)]
with MemoryStore.open(home, scope_limit=10**6, clock=lambda: fixed_ms) as store:
    renames.append("armed")  # the hook watches the batch only, not the open
    result = store.apply_batch(BatchRequest(items=items, actor="tool"))
    print(json.dumps(result.to_dict()), flush=True)
"""


def _old_store(path: Path) -> dict[str, bytes]:
    """A store of COUNT hand-written memories, indexed; returns its files."""
    old = {f"global/m-{i:04d}.md": crash_old_text(i).encode("utf-8") for i in range(COUNT)}
    for rel, data in old.items():
        write_file(path, rel, data)
    with MemoryStore.open(path, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == COUNT
    return old


def _new_versions(tmp_path: Path, initial: Path) -> dict[str, bytes]:
    """The batch applied whole to a copy of the old store: every file's new version."""
    reference = tmp_path / "reference"
    shutil.copytree(initial, reference)
    items = [BatchItem.model_validate(item) for item in crash_batch_items(COUNT)]
    with MemoryStore.open(reference, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        assert store.apply_batch(BatchRequest(items=items, actor="tool")).failed == 0
    return memory_files(reference)


def _run_child(home: Path, mode: str, allowed: int) -> tuple[int, list[str]]:
    child = start_python(STOP_SCRIPT, str(home), str(COUNT), str(FIXED_MS), mode, str(allowed))
    out, err = child.communicate(timeout=180)
    return child.returncode, [line for line in out.splitlines() if line.strip()] or [err]


def _audit_count(home: Path) -> int:
    return int(str(query(home / INDEX_NAME, "SELECT count(*) FROM memory_audit_log")[0][0]))


def _reopen_after_kill(home: Path) -> MemoryStore:
    """Age the killed batch's temp files past the threshold and open the store again."""
    for rel in temp_files(home):
        set_age(home / rel, config.TEMP_FILE_STALE_SECONDS + 1)
    return MemoryStore.open(home, clock=fixed_clock, scope_limit=BIG_LIMIT)


@pytest.mark.slow
@pytest.mark.parametrize("allowed", [0, 37])
def test_kill_between_the_durable_temp_writes_and_the_renames_leaves_old_or_new(
    tmp_path: Path, allowed: int
) -> None:
    initial = tmp_path / "initial"
    old = _old_store(initial)
    new = _new_versions(tmp_path, initial)
    audits_before = _audit_count(initial)
    home = tmp_path / "home"
    shutil.copytree(initial, home)

    code, lines = _run_child(home, "kill", allowed)

    assert code == -signal.SIGKILL, lines
    waiting = temp_files(home)
    on_disk = memory_files(home)
    changed = {rel for rel, data in on_disk.items() if data != old.get(rel)}
    # The first chunk's files were all written to temp names before the first rename; the
    # `allowed` renamed ones are complete new versions, every other file is its old version.
    assert len(changed) == allowed
    assert len(waiting) == config.BATCH_ITEMS_PER_TRANSACTION - allowed
    for rel, data in on_disk.items():
        assert data == (new[rel] if rel in changed else old[rel]), rel
    for rel in waiting:  # each waiting temp file is a complete new version of some memory
        assert (home / rel).read_bytes() in new.values(), rel
    assert _audit_count(home) == audits_before  # the chunk's index transaction never committed

    with _reopen_after_kill(home) as store:
        report = store.last_reconcile
        assert report is not None and report.problems == []
        assert report.temp_files_removed == len(waiting)
        assert (report.added, report.updated) == (
            sum(rel not in old for rel in changed),
            sum(rel in old for rel in changed),
        )
        assert temp_files(home) == []
        indexed = query(home / INDEX_NAME, "SELECT path, size FROM memory_files")
        assert {str(path): size for path, size in indexed} == {
            rel: len(data) for rel, data in on_disk.items()
        }
        for rel in sorted(on_disk)[:20]:
            slug = Path(rel).stem
            assert store.read(ReadRequest(slug=slug)).content == load_file(home / rel).doc.body
    # What the batch changed before the kill is in the history as reconcile's finding.
    assert _audit_count(home) == audits_before + len(changed)


@pytest.mark.slow
def test_a_chunk_whose_files_cannot_be_renamed_fails_its_items_and_loses_nothing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    old = _old_store(home)
    audits_before = _audit_count(home)
    first = config.BATCH_ITEMS_PER_TRANSACTION  # the first chunk's items, one file each
    code, lines = _run_child(home, "fail", first + 10)  # the second chunk's 11th rename fails

    assert code == 0, lines
    result = json.loads(lines[-1])
    statuses = [item["status"] for item in result["items"]]
    assert statuses == ["applied"] * first + ["failed"] * (len(statuses) - first)
    for item in result["items"][first:]:
        assert item["error"]["error"] == "store_unavailable"
        assert "disk is full" in item["error"]["message"]
    on_disk = memory_files(home)
    assert temp_files(home) == []  # the failed chunk's temp files were removed
    changed = {rel for rel, data in on_disk.items() if data != old.get(rel)}
    assert len(changed) == first  # the first chunk's files, none of the second's
    assert on_disk.keys() >= old.keys()
    for rel in on_disk.keys() - changed:
        assert on_disk[rel] == old[rel]
    assert _audit_count(home) == audits_before + first
    with MemoryStore.open(home, clock=fixed_clock, scope_limit=BIG_LIMIT) as store:
        report = store.last_reconcile
        assert report is not None
        assert (report.added, report.updated, report.removed, report.problems) == (0, 0, 0, [])

"""The unprivileged runner of tests/helpers/unprivileged.py: permissions apply, results return.

These run both as root (CI: the code runs in a child as `nobody`) and as a normal user (the code
runs directly); either way a test using the runner sees the file permissions a person would.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import SlugNotFound
from liveagent_memory.domain.requests import ReadRequest, WriteRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.unprivileged import ChildFailed, Unprivileged, nobody_ids, unprivileged_folder


def read_locked_file(folder: Path) -> bytes:
    secret = folder / "secret.txt"
    secret.write_bytes(b"top secret")
    secret.chmod(0)
    try:
        return secret.read_bytes()
    finally:
        secret.chmod(0o600)


def test_file_modes_stop_the_code_even_when_the_suite_runs_as_root(
    unprivileged: Unprivileged,
) -> None:
    with pytest.raises(PermissionError):
        unprivileged.run(read_locked_file, unprivileged.folder)

    # The folder is the code's own: it made the file, and the file is intact after the refusal.
    secret = unprivileged.folder / "secret.txt"
    assert secret.read_bytes() == b"top secret"
    assert secret.stat().st_uid == unprivileged.folder.stat().st_uid
    assert unprivileged.run(os.geteuid) == (nobody_ids()[0] if unprivileged.drops else os.geteuid())
    assert unprivileged.run(os.getgroups) == ([] if unprivileged.drops else os.getgroups())


def test_a_typed_error_comes_back_with_its_code_and_the_childs_traceback(
    unprivileged: Unprivileged, clock: FakeClock, tmp_path: Path
) -> None:
    def read_a_missing_memory(home: Path) -> None:
        with MemoryStore.open(home, clock=clock) as store:
            store.write(
                WriteRequest(
                    slug="kept-note", scope="global", type="user", description="x", body="y"
                )
            )
            store.read(ReadRequest(slug="kept"))

    with pytest.raises(SlugNotFound) as direct:
        read_a_missing_memory(tmp_path / "direct")
    with pytest.raises(SlugNotFound) as caught:
        unprivileged.run(read_a_missing_memory, unprivileged.folder / "memory")

    assert caught.value.code == "slug_not_found"
    assert caught.value.to_dict() == direct.value.to_dict()  # candidates and all
    assert caught.value.candidates  # (so the comparison covers more than the message)
    if unprivileged.drops:
        [note] = caught.value.__notes__
        assert f"as uid {nobody_ids()[0]}" in note and "read_a_missing_memory" in note


def test_a_failed_assert_and_a_return_value_cross_back(unprivileged: Unprivileged) -> None:
    def compare(left: int, right: int) -> int:
        assert left == right, f"{left} is not {right}"
        return left + right

    assert unprivileged.run(compare, 2, right=2) == 4
    with pytest.raises(AssertionError, match="2 is not 3"):
        unprivileged.run(compare, 2, right=3)


def test_a_given_tree_belongs_to_the_code_that_runs(unprivileged: Unprivileged) -> None:
    tree = unprivileged.folder / "tree"
    (tree / "inner").mkdir(parents=True)
    (tree / "inner" / "note.md").write_text("made by the test")
    (tree / "inner").chmod(0o700)
    (tree / "inner" / "note.md").chmod(0o600)

    unprivileged.hand_over(tree)

    def append() -> str:
        with open(tree / "inner" / "note.md", "a") as handle:
            handle.write(", changed by the code")
        (tree / "inner" / "new.md").write_text("new")
        return (tree / "inner" / "note.md").read_text()

    assert unprivileged.run(append) == "made by the test, changed by the code"
    owner = unprivileged.folder.stat().st_uid
    assert {p.stat().st_uid for p in [tree, *tree.rglob("*")]} == {owner}


def test_a_child_that_dies_or_cannot_send_its_result_is_a_clear_failure(
    unprivileged: Unprivileged,
) -> None:
    if not unprivileged.drops:
        pytest.skip("without root the code runs in this process: there is no child to lose")
    with pytest.raises(ChildFailed, match="exit code 3"):
        unprivileged.run(os._exit, 3)
    with pytest.raises(ChildFailed, match="cannot be pickled"):
        unprivileged.run(lambda: lambda: None)
    assert unprivileged.run(lambda: "still usable") == "still usable"


def test_the_folder_goes_away_with_everything_the_code_left_in_it(tmp_path: Path) -> None:
    with unprivileged_folder(tmp_path) as runner:
        folder = runner.folder

        def leave_a_locked_tree() -> None:
            (folder / "deep" / "er").mkdir(parents=True)
            (folder / "deep" / "er" / "file").write_text("left behind")
            (folder / "deep" / "er").chmod(0)
            (folder / "deep").chmod(0o500)

        runner.run(leave_a_locked_tree)
        assert (folder / "deep").stat().st_mode & 0o777 == 0o500
        if not runner.drops:
            (folder / "deep").chmod(0o700)  # tmp_path is pytest's to clean; leave it cleanable
            (folder / "deep" / "er").chmod(0o700)

    if runner.drops:
        assert not folder.exists()  # nothing of nobody's left outside pytest's tmp_path
    else:
        assert folder.parent == tmp_path

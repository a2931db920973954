"""`liveagent-memory sync init REMOTE | sync | sync status`, run as a person would (issue 19):
two store folders and a bare remote, real git; and the errors of a mistyped command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.git_repos import git

# A git that reads no config of this machine (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("git_env")


def write(slug: str, body: str) -> tuple[str, ...]:
    return ("write", slug, "--type", "reference", "--description", f"About {slug}", "--body", body)


def test_init_sync_and_status_from_the_command_line(tmp_path: Path) -> None:
    remote = tmp_path / "memory.git"
    git("init", "--bare", "-q", str(remote), cwd=tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    run = run_cli(*write("deploy", "Deploy with make ship."), home=a)
    assert run.code == 0, run.err
    status = run_cli("sync", "status", home=a)
    assert status.code == 0 and "Git sync: off" in status.out

    run = run_cli("sync", "init", str(remote), home=a)
    assert run.code == 0 and "its memories are pushed" in run.out, run.err
    run = run_cli("sync", "init", str(remote), home=b)
    assert run.code == 0 and "took its memories" in run.out, run.err
    run = run_cli("read", "deploy", home=b)
    assert "Deploy with make ship." in run.out

    run_cli(*write("release", "Releases go out on Tuesdays."), home=b)
    run = run_cli("sync", home=b)
    assert run.code == 0 and "0 files pulled, pushed" in run.out, run.err
    run = run_cli("sync", home=a)
    assert run.code == 0 and "1 file pulled" in run.out, run.err
    status = run_cli("sync", "status", home=a)
    assert f"Git sync: {remote} (main): 0 commits to push, 0 to pull" in status.out
    assert "Last sync:" in status.out and "ok" in status.out
    data = run_cli("sync", "status", "--json", home=a).json()
    assert data["git"]["remote"] == str(remote) and data["count"] == 0


@pytest.mark.parametrize(
    ("argv", "words", "code"),
    [
        (("sync", "init"), "sync init needs the REMOTE", 1),
        (("sync", "status", "extra"), "sync status takes no 'extra'", 1),
        (("sync", "stauts"), "did you mean status?", 2),
        (("sync",), "does not sync with git yet: run `liveagent-memory sync init REMOTE`", 1),
        (("sync", "init", "--bad"), "unrecognized arguments", 2),
    ],
)
def test_mistyped_or_incomplete_sync_commands_say_what_to_do(
    tmp_path: Path, argv: tuple[str, ...], words: str, code: int
) -> None:
    run = run_cli(*argv, home=tmp_path / "memory")
    assert run.code == code
    assert words in run.err, run.err


def test_an_unreachable_remote_is_one_clear_line(tmp_path: Path) -> None:
    run = run_cli("sync", "init", str(tmp_path / "nowhere.git"), home=tmp_path / "memory")
    assert run.code == 1
    assert "error: cannot fetch from" in run.err and "does not appear to be a git" in run.err
    assert not (tmp_path / "memory" / ".git").exists()


def test_a_remote_folder_named_from_here_is_the_one_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git("init", "--bare", "-q", "memory.git", cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    run = run_cli(*write("deploy", "Deploy with make ship."), home=tmp_path / "store")
    run = run_cli("sync", "init", "memory.git", home=tmp_path / "store")
    assert run.code == 0, run.err
    assert str(tmp_path / "memory.git") in run.out
    assert git("log", "--format=%s", "main", cwd=tmp_path / "memory.git").strip()

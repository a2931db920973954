"""project_identity.py: a workdir's portable id read from real git repositories and id files."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import ProjectIdInvalid
from liveagent_memory.project_identity import (
    git_remote_id,
    id_file,
    portable_id,
    read_id_file,
    write_id_file,
)
from tests.helpers.git_repos import bare_repository, clone, git, plain_repository


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bare_repository(tmp_path_factory.mktemp("server") / "shop.git")


def test_two_clones_at_different_paths_have_one_id(server: Path, tmp_path: Path) -> None:
    first = clone(server, tmp_path / "alice" / "src" / "shop")
    second = clone(server, tmp_path / "bob" / "work" / "shop-checkout")

    assert portable_id(first) == portable_id(second) == f"git:{str(server)[: -len('.git')]}"


def test_a_subfolder_and_a_worktree(server: Path, tmp_path: Path) -> None:
    repo = clone(server, tmp_path / "shop")
    (repo / "web").mkdir()
    worktree = tmp_path / "shop-hotfix"
    git("worktree", "add", "-q", str(worktree), cwd=repo)  # a `.git` file, then `commondir`

    assert (worktree / ".git").is_file()
    assert git_remote_id(worktree) == git_remote_id(repo)
    assert git_remote_id(repo / "web") == f"{git_remote_id(repo)}#web"


def test_origin_wins_over_other_remotes_else_the_first(tmp_path: Path) -> None:
    repo = plain_repository(tmp_path / "repo")
    git("remote", "add", "upstream", "https://github.com/up/shop.git", cwd=repo)
    git("remote", "add", "origin", "git@github.com:me/shop.git", cwd=repo)
    assert git_remote_id(repo) == "git:github.com/me/shop"

    git("remote", "remove", "origin", cwd=repo)
    assert git_remote_id(repo) == "git:github.com/up/shop"


def test_no_repository_or_no_remote_gives_no_id(
    server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    repo = plain_repository(tmp_path / "repo")
    shop = clone(server, tmp_path / "shop")
    monkeypatch.chdir(shop)

    assert portable_id(plain) is None
    assert portable_id(repo) is None
    # A missing or relative path never borrows the id of a repository around it.
    assert portable_id(shop / "deleted") is None
    assert portable_id("sub") is None
    assert portable_id("/" + "x" * 5000) is None  # too long a name for the system


def test_an_unreadable_git_config_gives_no_id(tmp_path: Path) -> None:
    repo = plain_repository(tmp_path / "repo")
    (repo / ".git" / "config").write_bytes(b"x" * (config.GIT_CONFIG_MAX_BYTES + 1))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("not a gitdir line\n", encoding="utf-8")

    assert git_remote_id(repo) is None
    assert git_remote_id(broken) is None


def test_the_id_file_wins_over_the_remote(server: Path, tmp_path: Path) -> None:
    repo = clone(server, tmp_path / "shop")
    assert read_id_file(repo) is None

    written = write_id_file(repo, "id:pinned-shop")

    assert written == id_file(repo) == repo / ".liveagent" / "project-id"
    assert written.read_text(encoding="utf-8") == "id:pinned-shop\n"
    assert portable_id(repo) == "id:pinned-shop"


def test_a_bad_id_file_is_a_typed_error_and_open_falls_back(
    server: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = clone(server, tmp_path / "shop")
    id_file(repo).parent.mkdir()
    id_file(repo).write_bytes(b"\xff\xfe not text")

    with pytest.raises(ProjectIdInvalid) as raised:
        read_id_file(repo)
    assert raised.value.code == "project_id_invalid"
    with caplog.at_level(logging.WARNING):
        assert portable_id(repo) == git_remote_id(repo)  # the remote still names the project
    assert "project id file" in caplog.text

    id_file(repo).write_text("\n", encoding="utf-8")
    with pytest.raises(ProjectIdInvalid):
        read_id_file(repo)

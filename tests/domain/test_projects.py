"""domain/projects.py: remote URLs of one repository normalise to one id; an id file's id."""

from __future__ import annotations

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.projects import (
    normalize_remote,
    remote_project_id,
    valid_project_id,
)

SAME_REPOSITORY = [
    "git@github.com:a/b.git",
    "git@github.com:a/b",
    "https://github.com/a/b",
    "https://github.com/a/b.git",
    "https://github.com/a/b/",
    "https://user:token@github.com/a/b.git",
    "https://GitHub.COM/a/b",
    "http://github.com:8080/a/b.git",
    "ssh://git@github.com/a/b.git",
    "ssh://git@github.com:22/a/b.git",
    "git://github.com/a/b.git",
    "  git@github.com:a/b.git\n",
]


@pytest.mark.parametrize("url", SAME_REPOSITORY)
def test_every_spelling_of_one_remote_is_one_repository(url: str) -> None:
    assert normalize_remote(url) == "github.com/a/b"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/srv/git/shop.git", "/srv/git/shop"),  # a remote on this disk keeps its path
        ("file:///srv/git/shop.git", "/srv/git/shop"),
        ("C:\\repos\\shop.git", "C:/repos/shop"),  # a Windows drive is no scp host
        ("git@gitlab.example.com:group/sub/proj.git", "gitlab.example.com/group/sub/proj"),
        ("https://dev.azure.com/org/p/_git/repo", "dev.azure.com/org/p/_git/repo"),
        ("git@github.com:A/B.git", "github.com/A/B"),  # the path keeps its case
    ],
)
def test_other_hosts_and_local_remotes(url: str, expected: str) -> None:
    assert normalize_remote(url) == expected


@pytest.mark.parametrize("url", ["", "   ", "https://github.com/", "git@github.com:", "a\nb"])
def test_a_url_naming_no_repository_gives_none(url: str) -> None:
    assert normalize_remote(url) is None


def test_a_subfolder_of_a_repository_is_its_own_project() -> None:
    assert remote_project_id("git@github.com:a/b.git") == "git:github.com/a/b"
    assert remote_project_id("https://github.com/a/b", ".") == "git:github.com/a/b"
    assert remote_project_id("https://github.com/a/b", "web/app") == "git:github.com/a/b#web/app"
    assert remote_project_id("https://github.com/a/b", "api") != remote_project_id(
        "https://github.com/a/b", "web"
    )
    assert remote_project_id("", "web") is None


def test_an_id_file_holds_its_first_line_trimmed() -> None:
    assert valid_project_id("id:1234\n") == "id:1234"
    assert valid_project_id("  shop-backend  \nsecond line") == "shop-backend"
    assert valid_project_id("") is None
    assert valid_project_id("\n\n") is None
    assert valid_project_id("a\x07b") is None
    assert valid_project_id("x" * (config.PROJECT_ID_MAX_CHARS + 1)) is None
    assert valid_project_id("x" * config.PROJECT_ID_MAX_CHARS) is not None

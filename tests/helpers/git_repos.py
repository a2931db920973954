"""Real git repositories for the portable-project tests: a bare "server" repository and
clones of it at any path, made by the `git` program itself (no mocks)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# A git that reads no config of the machine running the tests, and commits without asking.
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_TERMINAL_PROMPT": "0",
}


def git(*args: str, cwd: Path) -> str:
    """Run git in `cwd`; its output (a failure raises with git's own message)."""
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def bare_repository(path: Path) -> Path:
    """A bare repository with one commit on `main`, as a server would hold it."""
    path.mkdir(parents=True)
    git("init", "--bare", "-q", "-b", "main", str(path), cwd=path.parent)
    seed = path.parent / f"{path.name}-seed"
    git("clone", "-q", str(path), str(seed), cwd=path.parent)
    (seed / "README.md").write_text("shop\n", encoding="utf-8")
    git("add", "README.md", cwd=seed)
    git("commit", "-q", "-m", "first", cwd=seed)
    git("push", "-q", "origin", "HEAD:main", cwd=seed)
    return path


def clone(remote: str | Path, target: Path) -> Path:
    """`git clone remote target`; returns the clone's folder."""
    target.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", str(remote), str(target), cwd=target.parent)
    return target


def plain_repository(path: Path) -> Path:
    """A repository with no remote (`git init` only)."""
    path.mkdir(parents=True)
    git("init", "-q", str(path), cwd=path.parent)
    return path

"""A synced store's per-machine files (issue 19): the ignore files git and Syncthing read list
them in a marked block kept up to date at open, and a person's own lines stay."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.store.ignore_files import BEGIN, END
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock


def test_open_writes_both_ignore_files_listing_the_per_machine_files(
    home: Path, clock: FakeClock
) -> None:
    with MemoryStore.open(home, clock=clock):
        pass
    git = (home / ".gitignore").read_text("utf-8").splitlines()
    st = (home / ".stignore").read_text("utf-8").splitlines()
    assert git[0] == f"# {BEGIN}" and git[-1] == f"# {END}"
    assert st[0] == f"// {BEGIN}" and st[-1] == f"// {END}"
    for lines in (git, st):
        assert "/memory-index.sqlite3*" in lines
        assert "/retrieval-metrics.sqlite3*" in lines
        assert "/vectors" in lines and "/.write.lock" in lines and "MEMORY.md" in lines


def test_a_persons_lines_are_kept_and_an_outdated_block_is_replaced(
    home: Path, clock: FakeClock
) -> None:
    home.mkdir(parents=True)
    (home / ".gitignore").write_text(f"notes/\n# {BEGIN}\nold-pattern\n# {END}\n*.bak\n", "utf-8")
    with MemoryStore.open(home, clock=clock):
        pass
    text = (home / ".gitignore").read_text("utf-8")
    assert text.startswith("notes/\n") and text.endswith("*.bak\n")
    assert "old-pattern" not in text and text.count(BEGIN) == 1
    before = (home / ".gitignore").stat().st_mtime_ns
    with MemoryStore.open(home, clock=clock):
        pass
    assert (home / ".gitignore").stat().st_mtime_ns == before  # up to date: not written


@pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)
def test_git_ignores_every_derived_file_and_keeps_every_memory(
    home: Path, clock: FakeClock
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        store.write(
            WriteRequest(slug="tea", scope="global", type="user", description="Tea", body="Green")
        )
        store.presence_record(transport="stdio", workdir=None).start()  # an MCP server here
    (home / "settings.json").write_text("{}", encoding="utf-8")
    write_file(home, "global/.tmp-abc.part", "x")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "init", "-q", str(home)], check=True, env=env)
    listed = subprocess.run(
        ["git", "-C", str(home), "ls-files", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    assert "global/user/tea.md" in listed and ".gitignore" in listed
    assert not [p for p in listed if "sqlite3" in p or p.endswith("MEMORY.md")]
    assert not [p for p in listed if p.startswith((".quarantine", "vectors", ".write.lock"))]
    assert not [p for p in listed if p.startswith(".runtime")]
    assert "settings.json" not in listed  # each machine's own settings
    assert "global/.tmp-abc.part" not in listed


def test_a_synced_in_change_rewrites_the_scopes_memory_md(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        store.write(
            WriteRequest(slug="tea", scope="global", type="user", description="Tea", body="Green")
        )
    # Another machine's new memory arrives by sync; MEMORY.md itself is not synced.
    write_file(home, "global/coffee.md", memory_text("coffee", description="Coffee at nine"))
    with MemoryStore.open(home, clock=clock) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == 1
    assert "Coffee at nine" in (home / "global" / "MEMORY.md").read_text("utf-8")

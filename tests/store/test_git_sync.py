"""Issue 19, git sync built in: two machines, one bare remote, real git.

Each "machine" has its own HOME, its own store folder and its own clone of a project at its own
path; the remote is a bare repository in the test's folder. Nothing is mocked: the store runs
the `git` program, a refusing remote is a real pre-receive hook, and a sync killed mid-way is
a real process killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import (
    GitMissing,
    SyncAlreadyInitialised,
    SyncFailed,
    SyncNotInitialised,
    SyncRemoteNotEmpty,
    SyncRemoteUnreachable,
)
from liveagent_memory.domain.requests import DailyAppendRequest, JournalEntriesRequest
from liveagent_memory.store import conflicts, git_sync
from liveagent_memory.store.markers import merged_marker_text
from liveagent_memory.store.store import MemoryStore
from tests.helpers import memories
from tests.helpers.fakes import FakeClock
from tests.helpers.git_repos import bare_repository, clone, git
from tests.helpers.organizer import new_run

KILL_WAIT_S = 60.0  # the child reaching its hook; a passing test waits only as long as that takes


class Machine:
    """One machine: its HOME, its store folder, its clone of the project."""

    def __init__(self, name: str, root: Path, workdir: Path) -> None:
        self.name, self.root, self.workdir = name, root, workdir
        self.home = root / "home"
        self.store_dir = self.home / ".liveagent" / "memory"

    def open(self, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> MemoryStore:
        monkeypatch.setenv("HOME", str(self.home))
        monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", self.name)
        return MemoryStore.open(self.store_dir, clock=clock)

    def call(
        self, monkeypatch: pytest.MonkeyPatch, clock: FakeClock, command: str, **payload: Any
    ) -> dict[str, Any]:
        with self.open(monkeypatch, clock) as store:
            return dispatch(store, command, payload)

    def git(self, *args: str) -> str:
        return git(*args, cwd=self.store_dir).strip()


# A git that reads no config of this machine (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("git_env")


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[tuple[Machine, Machine]]:
    project = bare_repository(tmp_path / "server" / "shop.git")
    a = Machine("laptop", tmp_path / "a", clone(project, tmp_path / "a" / "src" / "shop"))
    b = Machine("desktop", tmp_path / "b", clone(project, tmp_path / "b" / "w" / "checkout"))
    yield a, b


@pytest.fixture
def synced(
    machines: tuple[Machine, Machine],
    remote: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> tuple[Machine, Machine]:
    """A with one memory, pushed by `sync init`; B, an empty store, took it by `sync init`."""
    a, b = machines
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "deploy", body="Deploy with make ship.")
        assert not dispatch(store, "sync_init", {"remote": str(remote)})["took_remote"]
    taken = b.call(monkeypatch, clock, "sync_init", remote=str(remote))
    assert taken["took_remote"]
    return a, b


def body_of(m: Machine, monkeypatch: pytest.MonkeyPatch, clock: FakeClock, slug: str) -> str:
    return str(m.call(monkeypatch, clock, "memory_read", slug=slug)["body"])


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file git would sync (the tracked and untracked ones, not the ignored)."""
    names = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=folder)
    return {n: (folder / n).read_bytes() for n in names.split("\0") if n and (folder / n).exists()}


def no_markers(folder: Path) -> None:
    for name, data in files_of(folder).items():
        assert not conflicts.has_markers(data.decode("utf-8", "replace")), name


# --- the proof -------------------------------------------------------------------------------


def test_init_then_a_memory_written_on_a_appears_on_b_after_sync(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    assert body_of(b, monkeypatch, clock, "deploy") == "Deploy with make ship."
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "release", body="Releases go out on Tuesdays.")
        done = dispatch(store, "sync_run", {})
    assert done["pushed"] and done["conflicts"] == 0

    done = b.call(monkeypatch, clock, "sync_run")
    assert done["pulled"] == 1 and not done["pushed"]
    assert body_of(b, monkeypatch, clock, "release") == "Releases go out on Tuesdays."
    # The commit names its change and its actor (the agent's write through the tool).
    message = a.git("log", "-1", "--format=%B")
    assert "tool: write global/release" in message and "on laptop" in message
    state = b.call(monkeypatch, clock, "sync_status")["git"]
    assert (state["ahead"], state["behind"], state["uncommitted"]) == (0, 0, 0)
    assert state["last_sync"]["ok"] is True


def test_a_fetch_alone_changes_no_file_and_the_sync_after_it_merges_what_it_fetched(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    """The app's two steps: `sync_fetch` beside the store worker, then `sync_run` fetched."""
    a, b = synced
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "release", body="Releases go out on Tuesdays.")
        dispatch(store, "sync_run", {})
    with b.open(monkeypatch, clock) as store:
        before = (b.git("rev-parse", "HEAD"), files_of(b.store_dir))
        fetched = dispatch(store, "sync_fetch", {})
        assert fetched["branch"] == b.git("rev-parse", "--abbrev-ref", "HEAD")
        # Only the remote-tracking branch moved: no file, no commit, no index row.
        assert (b.git("rev-parse", "HEAD"), files_of(b.store_dir)) == before
        assert b.git("rev-parse", "origin/" + fetched["branch"]) == a.git("rev-parse", "HEAD")
        assert "release" not in {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]}
        # The remote moves again after the fetch: the sync still ends with both sides' work.
        with a.open(monkeypatch, clock) as other:
            memories.remember(other, "rollback", body="Roll back with make undo.")
            dispatch(other, "sync_run", {})
        memories.remember(store, "local", body="Written on the desktop.")
        done = dispatch(store, "sync_run", {"fetched": True})
        slugs = {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]}
    assert done["pushed"] and {"release", "rollback", "local"} <= slugs
    assert a.call(monkeypatch, clock, "sync_run")["pulled"] == 1


def test_a_fetch_that_cannot_reach_the_remote_is_the_last_sync_failed(
    synced: tuple[Machine, Machine],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, _ = synced
    a.git("remote", "set-url", "origin", str(tmp_path / "gone.git"))
    with a.open(monkeypatch, clock) as store:
        with pytest.raises(SyncRemoteUnreachable):
            dispatch(store, "sync_fetch", {})
        last = dispatch(store, "sync_status", {})["git"]["last_sync"]
    assert last["ok"] is False and "gone.git" in last["message"]


def test_the_same_project_at_different_paths_shares_its_memories(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    with a.open(monkeypatch, clock) as store:
        memories.remember(
            store,
            "shop-db",
            scope="project",
            type="project",
            workdir=str(a.workdir),
            body="The shop's database is Postgres 16.",
        )
        dispatch(store, "sync_run", {})
    b.call(monkeypatch, clock, "sync_run")
    listed = b.call(monkeypatch, clock, "memory_list", scope="project", workdir=str(b.workdir))
    assert [e["slug"] for e in listed["entries"]] == ["shop-db"]

    # Both machines write to the project: its .workdir.json on each names its own path, and
    # the sync joins them (no conflict copy, no marker).
    with b.open(monkeypatch, clock) as store:
        memories.remember(store, "shop-ci", scope="project", type="project", workdir=str(b.workdir))
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "shop-cd", scope="project", type="project", workdir=str(a.workdir))
    a.call(monkeypatch, clock, "sync_run")
    b.call(monkeypatch, clock, "sync_run")
    a.call(monkeypatch, clock, "sync_run")
    for m in (a, b):
        listed = m.call(monkeypatch, clock, "memory_list", scope="project", workdir=str(m.workdir))
        assert {e["slug"] for e in listed["entries"]} == {"shop-db", "shop-ci", "shop-cd"}
        assert m.call(monkeypatch, clock, "sync_status")["count"] == 0
        no_markers(m.store_dir)
    marker_files = list((a.store_dir / "projects").glob("*/.workdir.json"))
    assert len(marker_files) == 1
    paths = {p["path"] for p in json.loads(marker_files[0].read_text("utf-8"))["paths"]}
    assert {str(a.workdir), str(b.workdir)} <= paths


def test_the_same_memory_edited_on_both_sides_is_a_conflict_for_review_nothing_lost(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    for m, text in ((a, "Deploy with make ship-a."), (b, "Deploy with make ship-b.")):
        with m.open(monkeypatch, clock) as store:
            dispatch(store, "memory_update", {"slug": "deploy", "body": text, "actor": "user"})
    a.call(monkeypatch, clock, "sync_run")
    done = b.call(monkeypatch, clock, "sync_run")
    assert done["conflicts"] == 1 and done["pushed"]

    # B keeps its own text in place, A's beside it as a copy listed for review.
    assert body_of(b, monkeypatch, clock, "deploy") == "Deploy with make ship-b."
    status = b.call(monkeypatch, clock, "sync_status")
    assert status["count"] == 1
    item = status["conflicts"][0]
    assert (item["tool"], item["kind"], item["slug"]) == ("git", "copy", "deploy")
    assert "Deploy with make ship-a." in (b.store_dir / item["path"]).read_text("utf-8")
    versions = b.call(monkeypatch, clock, "sync_versions", path=item["path"])
    assert "ship-b" in versions["original"] and "ship-a" in versions["copy"]
    no_markers(b.store_dir)
    problems = b.call(monkeypatch, clock, "memory_problems")
    assert any(p.get("code") == "sync_conflict" for p in problems["problems"])

    # A person keeps A's version on B; the sync takes it to A; B's text stays in history.
    b.call(monkeypatch, clock, "sync_resolve", path=item["path"], keep="copy")
    b.call(monkeypatch, clock, "sync_run")
    a.call(monkeypatch, clock, "sync_run")
    for m in (a, b):
        assert body_of(m, monkeypatch, clock, "deploy") == "Deploy with make ship-a."
        assert m.call(monkeypatch, clock, "sync_status")["count"] == 0
    history = b.call(monkeypatch, clock, "memory_history", slug="deploy", with_text=True)
    assert any(e["restorable"] and "ship-b" in (e["text"] or "") for e in history["entries"])


def test_journal_entries_from_both_sides_are_all_kept(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    day = "2026-11-30"
    with a.open(monkeypatch, clock) as store:
        store.append_daily(DailyAppendRequest(body="shared first entry", local_date=day))
        dispatch(store, "sync_run", {})
    b.call(monkeypatch, clock, "sync_run")
    for m, text in ((a, "laptop entry"), (b, "desktop entry")):
        clock.advance(seconds=60)
        with m.open(monkeypatch, clock) as store:
            store.append_daily(DailyAppendRequest(body=text, local_date=day))
    a.call(monkeypatch, clock, "sync_run")
    assert b.call(monkeypatch, clock, "sync_run")["journals_merged"] == 1
    a.call(monkeypatch, clock, "sync_run")
    for m in (a, b):
        with m.open(monkeypatch, clock) as store:
            entries = store.journal_entries(JournalEntriesRequest(date=day))
        texts = [e.text for e in entries.entries]
        assert texts == ["shared first entry", "laptop entry", "desktop entry"]
        assert m.call(monkeypatch, clock, "sync_status")["count"] == 0
        no_markers(m.store_dir)


def test_runs_audit_and_review_queue_stay_per_store_and_survive_sync(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    with a.open(monkeypatch, clock) as store:
        run = new_run(store, dry_run=True)
        memories.remember(store, "queued", body="An agent's unreviewed memory.")
        runs_before = dispatch(store, "organize_run_list", {})["runs"]
        history_before = dispatch(store, "memory_history", {"slug": "deploy"})["entries"]
    for m in (a, b, a, b):
        m.call(monkeypatch, clock, "sync_run")
    with a.open(monkeypatch, clock) as store:
        assert dispatch(store, "organize_run_list", {})["runs"] == runs_before
        assert dispatch(store, "memory_history", {"slug": "deploy"})["entries"] == history_before
    with b.open(monkeypatch, clock) as store:
        assert run["run_id"] not in {
            r["run_id"] for r in dispatch(store, "organize_run_list", {})["runs"]
        }
        queue = dispatch(store, "memory_list", {"unreviewed": True})["entries"]
        # The agents' memories travel as files, unreviewed: B's queue is A's.
        assert [e["slug"] for e in queue] == ["deploy", "queued"]
    ignored = (a.store_dir / ".gitignore").read_text("utf-8")
    assert "/memory-index.sqlite3*" in ignored
    assert "memory-index.sqlite3" not in a.git("ls-files")


# --- a failed sync changes nothing -----------------------------------------------------------


def pending_change_from_b(b: Machine, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> None:
    with b.open(monkeypatch, clock) as store:
        memories.remember(store, "from-b", body="Written on the desktop.")
        dispatch(store, "sync_run", {})


def test_an_unreachable_remote_changes_nothing(
    synced: tuple[Machine, Machine],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, _ = synced
    a.git("remote", "set-url", "origin", str(tmp_path / "gone.git"))
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "local", body="Only here.")
        before = (a.git("rev-parse", "HEAD"), files_of(a.store_dir))
        with pytest.raises(SyncRemoteUnreachable) as caught:
            dispatch(store, "sync_run", {})
        assert "gone.git" in caught.value.message and caught.value.stderr
        assert (a.git("rev-parse", "HEAD"), files_of(a.store_dir)) == before
        last = dispatch(store, "sync_status", {})["git"]["last_sync"]
    assert last["ok"] is False and "gone.git" in last["message"]


def test_a_remote_that_refuses_the_push_changes_nothing_locally(
    synced: tuple[Machine, Machine],
    remote: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, b = synced
    pending_change_from_b(b, monkeypatch, clock)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'read-only mirror' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    remote_head = git("rev-parse", "HEAD", cwd=remote).strip()
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "local", body="Only here.")
        with pytest.raises(SyncFailed) as caught:
            dispatch(store, "sync_run", {})
        assert "refused" in caught.value.message
        # B's memory was merged, then the merge undone: A is as before the sync.
        assert not (a.store_dir / "global" / "from-b.md").exists()
        assert (a.store_dir / "global" / "local.md").exists()
        assert not (a.store_dir / ".git" / "MERGE_HEAD").exists()
        assert a.git("status", "--porcelain") == ""
        listed = dispatch(store, "memory_list", {})["entries"]
        assert "from-b" not in {e["slug"] for e in listed}
    assert git("rev-parse", "HEAD", cwd=remote).strip() == remote_head


def test_a_remote_that_moved_during_the_push_is_merged_again_never_forced(
    synced: tuple[Machine, Machine],
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, _ = synced
    # A third clone pushes just before A's push goes out (A's own pre-push hook, once).
    other = tmp_path / "third"
    git("clone", "-q", "-b", "main", str(remote), str(other), cwd=tmp_path)
    (other / "global" / "from-third.md").write_text(
        (a.store_dir / "global" / "deploy.md").read_text("utf-8").replace("deploy", "from-third"),
        encoding="utf-8",
    )
    git("add", "-A", cwd=other)
    git("commit", "-q", "-m", "third", cwd=other)
    flag = tmp_path / "pushed-once"
    hook = a.store_dir / ".git" / "hooks" / "pre-push"
    hook.write_text(
        f"#!/bin/sh\n[ -e '{flag}' ] && exit 0\ntouch '{flag}'\n"
        f"git -C '{other}' push -q origin HEAD:main\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "local", body="Only here.")
        done = dispatch(store, "sync_run", {})
    assert done["pushed"] and flag.exists()
    assert (a.store_dir / "global" / "from-third.md").exists()
    remote_log = git("log", "--format=%s", "main", cwd=remote)
    assert "third" in remote_log  # the third machine's commit is there: nothing was forced


def sync_killed_at(store_dir: Path, hook: str, tmp_path: Path, guard: str = "") -> None:
    """Run a sync of `store_dir` in a real child process and SIGKILL it once it reaches git's
    `hook` (after `guard`, a shell test that lets the hook pass by until it holds)."""
    reached = tmp_path / "reached"
    script = store_dir / ".git" / "hooks" / hook
    script.write_text(f"#!/bin/sh\n{guard}touch '{reached}'\nsleep 120\n", encoding="utf-8")
    script.chmod(0o755)
    child = subprocess.Popen(
        [sys.executable, "-c", _SYNC_CHILD, str(store_dir)],
        env=dict(os.environ),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + KILL_WAIT_S
        while not reached.exists():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the sync never reached its hook"
            time.sleep(0.02)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    script.unlink()
    reached.unlink()
    assert git_sync.interrupted(store_dir)


@pytest.mark.parametrize("hook", ["pre-push", "pre-commit"])
def test_a_sync_killed_mid_way_leaves_both_sides_consistent(
    synced: tuple[Machine, Machine],
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
    hook: str,
) -> None:
    a, b = synced
    pending_change_from_b(b, monkeypatch, clock)
    # An edit on both sides too, so the killed merge had written a conflict copy.
    for m, text in ((b, "Deploy, desktop."), (a, "Deploy, laptop.")):
        with m.open(monkeypatch, clock) as store:
            dispatch(store, "memory_update", {"slug": "deploy", "body": text, "actor": "user"})
            if m is b:
                dispatch(store, "sync_run", {})
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "local", body="Only here.")
    # pre-push: after the merge commit; pre-commit while merging: before it (conflicts settled).
    guard = "" if hook == "pre-push" else "[ -e .git/MERGE_HEAD ] || exit 0\n"
    remote_head = git("rev-parse", "HEAD", cwd=remote).strip()
    before = files_of(a.store_dir)

    sync_killed_at(a.store_dir, hook, tmp_path, guard)
    assert git("rev-parse", "HEAD", cwd=remote).strip() == remote_head  # the remote untouched

    # The next open undoes it: A's files as before, no merge, no copy, the index agreeing.
    with a.open(monkeypatch, clock) as store:
        assert not git_sync.interrupted(a.store_dir)
        assert files_of(a.store_dir) == before
        assert not (a.store_dir / ".git" / "MERGE_HEAD").exists()
        assert dispatch(store, "sync_status", {})["count"] == 0
        assert {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]} == {
            "deploy",
            "local",
        }
        last = dispatch(store, "sync_status", {})["git"]["last_sync"]
        assert last["ok"] is False and "interrupted" in last["message"]
        # And the next sync completes: B's memory arrives, the double edit is for review.
        done = dispatch(store, "sync_run", {})
        assert done["pushed"] and done["conflicts"] == 1
        assert {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]} >= {
            "from-b",
            "local",
        }
    b.call(monkeypatch, clock, "sync_run")
    assert body_of(b, monkeypatch, clock, "local") == "Only here."


def test_a_write_after_a_killed_sync_is_kept_not_rolled_back_later(
    synced: tuple[Machine, Machine],
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    # The app has the store open while a `liveagent-memory sync` in a terminal is killed after
    # its merge; the app then writes. Its write must survive the undoing of that sync.
    a, b = synced
    pending_change_from_b(b, monkeypatch, clock)
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "local", body="Only here.")
    with a.open(monkeypatch, clock) as app:  # open all along, as the app is
        sync_killed_at(a.store_dir, "pre-push", tmp_path)
        assert (a.store_dir / "global" / "from-b.md").exists()  # the half-done merge's file

        update = {"slug": "local", "body": "Written after the kill.", "actor": "user"}
        dispatch(app, "memory_update", update)

        assert not git_sync.interrupted(a.store_dir)  # the writer undid the sync first
        assert not (a.store_dir / "global" / "from-b.md").exists()
        assert dispatch(app, "memory_read", {"slug": "local"})["body"] == "Written after the kill."
        done = dispatch(app, "sync_run", {})
        assert done["pushed"]
        assert dispatch(app, "memory_read", {"slug": "local"})["body"] == "Written after the kill."
    b.call(monkeypatch, clock, "sync_run")
    assert body_of(b, monkeypatch, clock, "local") == "Written after the kill."


_SYNC_CHILD = """
import sys
from liveagent_memory.store.store import MemoryStore
with MemoryStore.open(sys.argv[1]) as store:
    store.git_sync()
"""


# --- init and its errors ---------------------------------------------------------------------


def test_init_refuses_a_remote_holding_a_store_when_this_store_has_memories(
    synced: tuple[Machine, Machine],
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    third = Machine("third", tmp_path / "c", tmp_path / "c" / "work")
    with third.open(monkeypatch, clock) as store:
        memories.remember(store, "mine", body="A memory of the third machine.")
        with pytest.raises(SyncRemoteNotEmpty):
            dispatch(store, "sync_init", {"remote": str(remote)})
        assert not (third.store_dir / ".git").exists()  # the failed init left nothing
        assert (third.store_dir / "global" / "mine.md").exists()
        with pytest.raises(SyncNotInitialised):
            dispatch(store, "sync_run", {})
    a, _ = synced
    with a.open(monkeypatch, clock) as store, pytest.raises(SyncAlreadyInitialised):
        dispatch(store, "sync_init", {"remote": str(remote)})


def test_init_with_an_unreachable_remote_leaves_no_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    m = Machine("solo", tmp_path / "s", tmp_path / "s" / "work")
    with m.open(monkeypatch, clock) as store:
        with pytest.raises(SyncRemoteUnreachable) as caught:
            dispatch(store, "sync_init", {"remote": str(tmp_path / "nowhere.git")})
        assert caught.value.to_dict()["stderr"]
        assert not (m.store_dir / ".git").exists()
        assert dispatch(store, "sync_status", {})["git"] == {"initialised": False}


def test_no_git_program_is_a_typed_error(
    synced: tuple[Machine, Machine],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, _ = synced
    with a.open(monkeypatch, clock) as store:
        monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
        monkeypatch.setattr(git_sync, "_VERSION_CHECKED", [])
        with pytest.raises(GitMissing):
            dispatch(store, "sync_run", {})
        assert dispatch(store, "sync_status", {})["git"]["error"] == "git_missing"


# --- the pieces ------------------------------------------------------------------------------


def test_git_conflict_copy_names_are_recognised_as_git_copies() -> None:
    name = conflicts.git_copy_name("deploy.md", "20260102-101010", "0A1B2C3D4E")
    assert name == "deploy.git-conflict-20260102-101010-0a1b2c3.md"
    found = conflicts.copy_by_name(name)
    assert found is not None and (found.original, found.tool) == ("deploy.md", "git")
    assert conflicts.copy_by_name("deploy.git-conflict-notes.md") is None


def test_two_machines_workdir_markers_join_their_paths() -> None:
    ours = {"path": "/a/shop", "projectId": "git:shop", "paths": [{"path": "/a/shop"}]}
    theirs = {"path": "/a/shop", "paths": [{"path": "/a/shop"}, {"path": "/b/co"}], "x": 1}
    joined = merged_marker_text(json.dumps(ours), json.dumps(theirs))
    assert joined is not None
    data = json.loads(joined)
    assert [p["path"] for p in data["paths"]] == ["/a/shop", "/b/co"]
    assert data["projectId"] == "git:shop"
    assert merged_marker_text("not json", json.dumps(theirs)) is None


def test_a_repository_named_by_the_environment_is_not_the_one_synced(
    synced: tuple[Machine, Machine],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    a, b = synced
    elsewhere = tmp_path / "elsewhere"
    git("init", "-q", str(elsewhere), cwd=tmp_path)
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))  # as inside another repo's hook
    with a.open(monkeypatch, clock) as store:
        memories.remember(store, "hooked", body="Written with GIT_DIR set.")
        assert dispatch(store, "sync_run", {})["pushed"]
    monkeypatch.delenv("GIT_DIR")
    assert git("rev-list", "--all", cwd=elsewhere).strip() == ""
    b.call(monkeypatch, clock, "sync_run")
    assert body_of(b, monkeypatch, clock, "hooked") == "Written with GIT_DIR set."


def test_a_day_begun_on_both_machines_and_an_edit_beside_a_deletion_lose_nothing(
    synced: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    a, b = synced
    day = "2026-12-01"
    for m, text in ((a, "laptop began the day"), (b, "desktop began the day")):
        clock.advance(seconds=60)
        with m.open(monkeypatch, clock) as store:
            store.append_daily(DailyAppendRequest(body=text, local_date=day))
    with a.open(monkeypatch, clock) as store:
        dispatch(store, "memory_update", {"slug": "deploy", "body": "Edited.", "actor": "user"})
    with b.open(monkeypatch, clock) as store:
        dispatch(store, "memory_delete", {"slug": "deploy", "actor": "user", "reason": "old"})
    a.call(monkeypatch, clock, "sync_run")
    done = b.call(monkeypatch, clock, "sync_run")
    assert (done["journals_merged"], done["kept_edited"], done["conflicts"]) == (1, 1, 0)
    a.call(monkeypatch, clock, "sync_run")
    for m in (a, b):
        with m.open(monkeypatch, clock) as store:
            entries = store.journal_entries(JournalEntriesRequest(date=day)).entries
        assert [e.text for e in entries] == ["laptop began the day", "desktop began the day"]
        assert body_of(m, monkeypatch, clock, "deploy") == "Edited."
        no_markers(m.store_dir)


def test_a_history_with_two_merge_bases_still_merges(
    synced: tuple[Machine, Machine],
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    # A criss-cross: A merged B's commit, and a third clone merged A's, each on its own side.
    a, b = synced
    (a.store_dir / "from-a.txt").write_text("a\n", encoding="utf-8")
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "a1")
    a.git("branch", "a1")
    (b.store_dir / "from-b.txt").write_text("b\n", encoding="utf-8")
    b.git("add", "-A")
    b.git("commit", "-q", "-m", "b1")
    b.git("push", "-q", "origin", "HEAD:main")
    a.git("fetch", "-q", "origin")
    a.git("merge", "-q", "--no-edit", "origin/main")
    third = tmp_path / "third"
    git("clone", "-q", "-b", "main", str(remote), str(third), cwd=tmp_path)
    git("fetch", "-q", str(a.store_dir), "a1", cwd=third)
    git("merge", "-q", "--no-edit", "FETCH_HEAD", cwd=third)
    git("push", "-q", "origin", "HEAD:main", cwd=third)
    a.git("fetch", "-q", "origin")
    assert len(a.git("merge-base", "--all", "HEAD", "origin/main").split()) == 2

    done = a.call(monkeypatch, clock, "sync_run")
    assert done["pushed"]
    b.call(monkeypatch, clock, "sync_run")
    for m in (a, b):
        assert (m.store_dir / "from-a.txt").exists() and (m.store_dir / "from-b.txt").exists()

"""Issue 19: one project used on two machines before their first sync has two folders; a
person merges them (`project_merge`, `projects merge`). Real store folders, real files, real
git clones of one bare repository, real SQLite."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import (
    InvalidArgument,
    InvalidWorkdirHash,
    NothingToMerge,
    ProjectNotPortable,
)
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from tests.helpers import memories
from tests.helpers.cli import run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.git_repos import bare_repository, clone, plain_repository

SKILL = {
    "when_to_use": "when a release is due",
    "steps": ["tag it", "push the tag"],
}


class TwoFolders:
    """Machine A's store after a folder sync brought machine B's project folder in: one
    project id, two folders (A's by its path's hash, B's by another path's)."""

    def __init__(self, tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
        server = bare_repository(tmp_path / "server" / "shop.git")
        self.a = clone(server, tmp_path / "a" / "src" / "shop")
        self.b = clone(server, tmp_path / "b" / "w" / "co")
        self.home, self.clock, self.monkeypatch = tmp_path / "a" / "memory", clock, monkeypatch
        other = tmp_path / "b" / "memory"
        monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "desktop")
        with MemoryStore.open(other, clock=clock) as store:
            write(store, "b-only", self.b, "Only B knows: the CI runs on Fridays.")
            write(store, "same-note", self.b, "Deploy with make release.")
            write(store, "clash", self.b, "Staging is at staging-2.")
            memories.remember(
                store,
                "release-skill",
                scope="project",
                type="skill",
                workdir=str(self.b),
                description="How a release goes",
                skill=SKILL,
                body="",
            )
            episode(store, self.b, "ep-b0000001", "fix the flaky test")
        clock.advance(seconds=60)
        monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "laptop")
        with self.open() as store:
            write(store, "a-only", self.a, "Only A knows: the logs are in /var/log/shop.")
            write(store, "same-note", self.a, "Deploy with make release.")
            write(store, "clash", self.a, "Staging is at staging-1.")
        self.key_a, self.key_b = workdir_hash(str(self.a)), workdir_hash(str(self.b))
        # The sync: B's project folder and episodes arrive in A's store.
        shutil.copytree(other / "projects" / self.key_b, self.home / "projects" / self.key_b)
        shutil.copytree(other / "episodes", self.home / "episodes", dirs_exist_ok=True)

    def open(self) -> MemoryStore:
        return MemoryStore.open(self.home, clock=self.clock)

    def folder(self, key: str) -> Path:
        return self.home / "projects" / key


@pytest.fixture
def two(tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> TwoFolders:
    return TwoFolders(tmp_path, clock, monkeypatch)


def write(store: MemoryStore, slug: str, workdir: Path, body: str) -> dict[str, Any]:
    return memories.remember(
        store, slug, scope="project", type="project", workdir=str(workdir), body=body, actor="user"
    )


def episode(store: MemoryStore, workdir: Path, episode_id: str, goal: str) -> None:
    body = {"id": episode_id, "goal": goal, "outcome": "success"}
    dispatch(store, "episode_record", {"episode": body, "workdir": str(workdir)})


def slugs(store: MemoryStore, workdir: Path) -> set[str]:
    payload = {"scope": "project", "workdir": str(workdir)}
    return {e["slug"] for e in dispatch(store, "memory_list", payload)["entries"]}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the store's projects/ and episodes/, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for folder in ("projects", "episodes")
        for p in sorted((root / folder).rglob("*"))
        if p.is_file()
    }


ALL = {"a-only", "b-only", "same-note", "clash", "release-skill"}


def test_merge_leaves_one_folder_that_every_path_opens(two: TwoFolders) -> None:
    with two.open() as store:
        assert slugs(store, two.a) == {"a-only", "same-note", "clash"}
        assert slugs(store, two.b) == {"b-only", "same-note", "clash", "release-skill"}
        merged = dispatch(store, "project_merge", {"workdir": str(two.a)})
        renamed = f"clash-{two.key_b[:6]}"
        from_a, from_b = slugs(store, two.a), slugs(store, two.b)
        clash = dispatch(store, "memory_read", {"slug": renamed, "workdir": str(two.a)})
        found = dispatch(store, "memory_search", {"query": "Fridays", "workdir": str(two.b)})
        listed = dispatch(store, "episode_list", {"workdir": str(two.a)})

    assert merged["target"] == two.key_a and merged["merged"] == [two.key_b]
    assert merged["removed"] == [two.key_b] and merged["problems"] == []
    actions = {m["from_slug"]: (m["action"], m["slug"]) for m in merged["moves"]}
    assert actions == {
        "b-only": ("moved", "b-only"),
        "same-note": ("deduplicated", "same-note"),  # the same text: one copy
        "clash": ("renamed", renamed),  # another text: both kept
        "release-skill": ("moved", "release-skill"),
    }
    assert not two.folder(two.key_b).exists()
    assert from_a == from_b == ALL | {renamed}
    assert clash["entry"]["unreviewed"] is True  # a person sees the pair
    assert "staging-2" in clash["content"]
    assert (two.folder(two.key_a) / "skills" / "release-skill.md").is_file()
    assert [h["slug"] for h in found["matches"]] == ["b-only"]
    assert merged["episodes"] == 1
    assert [e["id"] for e in listed["episodes"]] == ["ep-b0000001"]
    marker = json.loads((two.folder(two.key_a) / ".workdir.json").read_text("utf-8"))
    assert [p["path"] for p in marker["paths"]] == [str(two.a.resolve()), str(two.b.resolve())]
    assert merged["paths_added"] == [str(two.b.resolve())]

    with two.open() as store:  # a reconcile from cold finds the same
        assert store.project_key(str(two.b)) == two.key_a
        assert slugs(store, two.b) == ALL | {renamed}
        [row] = [p for p in store.projects().projects if p.scope == "project"]
    assert row.folders == [two.key_a]


def test_a_dry_run_says_what_would_move_and_writes_nothing(two: TwoFolders) -> None:
    with two.open() as store:
        slugs(store, two.b)  # B's path is recorded in its folder's marker first
        before = tree(two.home)
        plan = dispatch(store, "project_merge", {"workdir": str(two.a), "dry_run": True})
        assert slugs(store, two.a) == {"a-only", "same-note", "clash"}
    assert tree(two.home) == before
    assert plan["dry_run"] is True and plan["removed"] == []
    assert sorted(m["action"] for m in plan["moves"]) == [
        "deduplicated",
        "moved",
        "moved",
        "renamed",
    ]
    assert plan["episodes"] == 1 and plan["paths_added"] == [str(two.b.resolve())]


def test_a_path_of_another_machine_merges_into_the_folder_named(two: TwoFolders) -> None:
    # The Projects page's row names a folder and the path it was first written from, which
    # may be another machine's: the folder's marker says which project it is.
    elsewhere = str(two.a.parent / "not-on-this-machine")
    with two.open() as store:
        slugs(store, two.b)
        payload = {"workdir": elsewhere, "target": two.key_b}
        merged = dispatch(store, "project_merge", payload)
    assert (merged["target"], merged["merged"]) == (two.key_b, [two.key_a])
    assert not two.folder(two.key_a).exists()


def test_a_moved_memory_keeps_its_history_and_can_be_restored(two: TwoFolders) -> None:
    with two.open() as store:
        dispatch(store, "project_merge", {"workdir": str(two.b)})  # B's path opens B's folder
        where = {"slug": "a-only", "workdir": str(two.a)}  # A's path now opens B's
        dispatch(store, "memory_update", {**where, "body": "Edited after the merge."})
        history = dispatch(store, "memory_history", where)
        ops = [(e["source"], e["op"]) for e in history["entries"]]
        [trashed] = [e["version"] for e in history["entries"] if e["source"] == "trash"]
        dispatch(store, "memory_restore", {**where, "version": trashed})
        body = dispatch(store, "memory_read", where)["content"]
        same = dispatch(store, "memory_history", {"slug": "same-note", "workdir": str(two.a)})
    assert history["workdir_hash"] == two.key_b
    assert ("audit", "write") in ops and ("audit", "update") in ops
    assert "Only A knows" in body  # the version merged in, back
    # The deduplicated copy is gone from the folders, not from history.
    assert [e["source"] for e in same["entries"]].count("trash") == 1


def test_a_malformed_file_is_reported_and_the_rest_moves(two: TwoFolders) -> None:
    bad = two.folder(two.key_b) / "broken.md"
    bad.write_bytes(b"---\nname: [unclosed\n---\n\nBody.\n")
    with two.open() as store:
        merged = dispatch(store, "project_merge", {"workdir": str(two.a)})
        from_a = slugs(store, two.a)
    [problem] = merged["problems"]
    assert problem["path"] == f"projects/{two.key_b}/broken.md"
    assert problem["code"] == "unreadable" and problem["message"]
    assert "b-only" in from_a and "release-skill" in from_a
    assert bad.read_bytes() == b"---\nname: [unclosed\n---\n\nBody.\n"  # loses nothing
    assert (two.folder(two.key_b) / ".workdir.json").is_file()  # still its project's
    assert two.key_b in merged["kept"] and merged["removed"] == []


def test_the_target_quota_holds_and_what_is_over_it_stays(two: TwoFolders) -> None:
    with MemoryStore.open(two.home, clock=two.clock, scope_limit=4) as store:
        plan = dispatch(store, "project_merge", {"workdir": str(two.a), "dry_run": True})
        merged = dispatch(store, "project_merge", {"workdir": str(two.a)})
    for result in (plan, merged):  # A holds 3: one more moves, the twin needs no room
        assert sorted(m["action"] for m in result["moves"]) == ["deduplicated", "moved"]
        assert [p["code"] for p in result["problems"]] == ["quota_exceeded"] * 2
    left = {p.name for p in two.folder(two.key_b).glob("**/*.md") if p.name != "MEMORY.md"}
    assert len(left) == 2 and two.key_b in merged["kept"]  # still there, with its marker
    assert (two.folder(two.key_b) / ".workdir.json").is_file()


def test_nothing_to_merge_and_a_project_without_an_id_are_typed_errors(
    two: TwoFolders, tmp_path: Path
) -> None:
    notes = plain_repository(tmp_path / "notes")
    with two.open() as store:
        with pytest.raises(InvalidWorkdirHash):  # a folder that is not there: nothing moves
            dispatch(store, "project_merge", {"workdir": str(two.a), "target": "0" * 16})
        write(store, "naming", notes, "Notes are named by date.")
        notes_key = store.project_key(str(notes))
        with pytest.raises(InvalidArgument):  # another project's folder
            dispatch(store, "project_merge", {"workdir": str(two.a), "target": notes_key})
        assert two.folder(two.key_b).is_dir()
        dispatch(store, "project_merge", {"workdir": str(two.a)})
        with pytest.raises(NothingToMerge):
            dispatch(store, "project_merge", {"workdir": str(two.a)})
        with pytest.raises(ProjectNotPortable):
            dispatch(store, "project_merge", {"workdir": str(notes)})


def test_the_cli_merges_as_a_person_types_it(two: TwoFolders) -> None:
    argv = ("projects", "merge", "--workdir", str(two.a))
    code, out, _ = run_cli(*argv, "--dry-run", home=two.home, clock=two.clock)
    assert code == 0, out
    assert out.startswith(f"Would merge {two.key_b} into project folder {two.key_a} (git:")
    assert "4 memories, 1 episode" in out
    assert two.folder(two.key_b).is_dir()

    code, out, _ = run_cli(*argv, home=two.home, clock=two.clock)
    assert code == 0, out
    assert f"Removed the emptied folder {two.key_b}" in out
    assert not two.folder(two.key_b).exists()

    code, out, err = run_cli(*argv, "--json", home=two.home, clock=two.clock)
    assert code != 0 and json.loads(out or err)["error"] == "nothing_to_merge"
    code, _, err = run_cli("projects", "merge", home=two.home, clock=two.clock)
    assert code == 2 and "needs --workdir" in err
    code, _, err = run_cli("projects", "merg", "--workdir", str(two.a), home=two.home)
    assert code == 2 and "invalid choice 'merg'; did you mean merge?" in err

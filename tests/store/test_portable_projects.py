"""Issue 19, portable projects: one project on two machines.

Each "machine" is its own store folder (a copy of the other's, as a sync leaves it) and its
own clone of one bare git repository at a different path; the same project opened on B finds
what was written on A. Real files, real git, real SQLite.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import PathNotFound, ProjectIdInvalid, WorkdirRequired
from liveagent_memory.paths import workdir_hash
from liveagent_memory.project_identity import id_file
from liveagent_memory.store.store import MemoryStore
from tests.helpers import memories
from tests.helpers.fakes import FakeClock
from tests.helpers.git_repos import bare_repository, clone, plain_repository


class Machine:
    """One machine: its store folder, its clone of the project, its name in the markers."""

    def __init__(self, name: str, home: Path, workdir: Path) -> None:
        self.name, self.home, self.workdir = name, home, workdir

    def open(self, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> MemoryStore:
        monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", self.name)
        return MemoryStore.open(self.home, clock=clock)


@pytest.fixture
def server(tmp_path: Path) -> Path:
    return bare_repository(tmp_path / "server" / "shop.git")


@pytest.fixture
def machines(tmp_path: Path, server: Path) -> Iterator[tuple[Machine, Machine]]:
    a = Machine("laptop", tmp_path / "a" / "memory", clone(server, tmp_path / "a" / "src" / "shop"))
    b = Machine("desktop", tmp_path / "b" / "memory", clone(server, tmp_path / "b" / "w" / "co"))
    yield a, b


def write(store: MemoryStore, slug: str, workdir: Path, body: str) -> dict[str, Any]:
    return memories.remember(
        store, slug, scope="project", type="project", workdir=str(workdir), body=body
    )


def slugs(store: MemoryStore, workdir: Path, query: str | None = None) -> set[str]:
    payload = {"scope": "project", "workdir": str(workdir)}
    if query is None:
        return {e["slug"] for e in dispatch(store, "memory_list", payload)["entries"]}
    payload["query"] = query
    return {h["slug"] for h in dispatch(store, "memory_search", payload)["matches"]}


def sync(source: Machine, target: Machine) -> None:
    """What a folder sync does: the target's store becomes a copy of the source's."""
    shutil.rmtree(target.home, ignore_errors=True)
    shutil.copytree(source.home, target.home)


def marker(home: Path, key: str) -> dict[str, Any]:
    data = json.loads((home / "projects" / key / ".workdir.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_memory_written_on_a_is_found_on_b_at_another_path(
    machines: tuple[Machine, Machine],
    server: Path,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = machines
    with a.open(monkeypatch, clock) as store:
        written = write(store, "deploy-steps", a.workdir, "Deploy with make release.")
    key = written["workdir_hash"]
    assert key == workdir_hash(str(a.workdir))  # the LiveAgent folder name stays the path's
    sync(a, b)

    with b.open(monkeypatch, clock) as store:
        assert store.project_key(str(b.workdir)) == key
        assert slugs(store, b.workdir) == {"deploy-steps"}
        assert slugs(store, b.workdir, "release") == {"deploy-steps"}
        read = dispatch(store, "memory_read", {"slug": "deploy-steps", "workdir": str(b.workdir)})
        assert read["entry"]["workdir_hash"] == key
        more = write(store, "test-command", b.workdir, "Run the tests with make check.")
        assert more["workdir_hash"] == key  # B's writes join the same folder
        [project] = [p for p in store.projects().projects if p.scope == "project"]

    assert not (b.home / "projects" / workdir_hash(str(b.workdir))).exists()
    recorded = marker(b.home, key)
    assert recorded["path"] == str(a.workdir.resolve())  # the reference's meaning, unchanged
    assert recorded["projectId"] == f"git:{str(server)[: -len('.git')]}"
    assert [(p["path"], p["machine"]) for p in recorded["paths"]] == [
        (str(a.workdir.resolve()), "laptop"),
        (str(b.workdir.resolve()), "desktop"),
    ]
    assert project.project_id == recorded["projectId"]
    assert [p.path for p in project.paths] == [str(a.workdir.resolve()), str(b.workdir.resolve())]
    assert project.counts["project"] == 2

    sync(b, a)  # and back: A sees B's memory under its own path
    with a.open(monkeypatch, clock) as store:
        assert slugs(store, a.workdir) == {"deploy-steps", "test-command"}


def test_every_entry_point_uses_the_same_folder(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    with a.open(monkeypatch, clock) as store:
        key = write(store, "deploy-steps", a.workdir, "Deploy with make release.")["workdir_hash"]
    sync(a, b)

    with b.open(monkeypatch, clock) as store:
        batch = dispatch(
            store,
            "memory_apply_batch",
            {
                "workdir": str(b.workdir),
                "items": [
                    {
                        "op": "upsert",
                        "slug": "from-a-batch",
                        "scope": "project",
                        "type": "project",
                        "description": "Batch",
                        "body": "Written by extraction.",
                    }
                ],
            },
        )
        episode = dispatch(
            store,
            "episode_record",
            {"episode": {"goal": "fix the build", "outcome": "success"}, "workdir": str(b.workdir)},
        )
        quota = dispatch(store, "memory_quota_summary", {"workdir": str(b.workdir)})

    assert batch["items"][0]["status"] == "applied", batch["items"][0]["error"]
    assert batch["items"][0]["result"]["workdir_hash"] == key
    assert episode["episode"]["workdir_hash"] == key
    assert ("project", key) in {(s["scope"], s["workdir_hash"]) for s in quota["scopes"]}


def test_the_id_file_carries_a_project_without_a_remote(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = Machine("laptop", tmp_path / "a" / "memory", plain_repository(tmp_path / "a" / "notes"))
    with a.open(monkeypatch, clock) as store:
        key = write(store, "naming", a.workdir, "Notes are named by date.")["workdir_hash"]
        assert marker(a.home, key).get("projectId") is None  # no remote, no id: the path
        pinned = dispatch(store, "project_pin", {"workdir": str(a.workdir)})
        again = dispatch(store, "project_pin", {"workdir": str(a.workdir)})
    assert pinned["written"] is True and again["written"] is False
    assert pinned["project_id"].startswith("id:") and again["project_id"] == pinned["project_id"]
    assert pinned["workdir_hash"] == key
    assert id_file(a.workdir).read_text("utf-8").strip() == pinned["project_id"]
    assert marker(a.home, key)["projectId"] == pinned["project_id"]

    # Machine B: the project folder came along with its id file (a commit, a copy), elsewhere.
    b = Machine("desktop", tmp_path / "b" / "memory", tmp_path / "b" / "elsewhere" / "notes")
    shutil.copytree(a.workdir, b.workdir)
    sync(a, b)
    with b.open(monkeypatch, clock) as store:
        assert slugs(store, b.workdir) == {"naming"}


def test_no_remote_and_no_id_file_is_the_path_as_before(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = Machine("laptop", tmp_path / "a" / "memory", plain_repository(tmp_path / "a" / "notes"))
    with a.open(monkeypatch, clock) as store:
        write(store, "naming", a.workdir, "Notes are named by date.")
    b = Machine("desktop", tmp_path / "b" / "memory", tmp_path / "b" / "elsewhere" / "notes")
    shutil.copytree(a.workdir, b.workdir)
    sync(a, b)

    with b.open(monkeypatch, clock) as store:
        assert store.project_key(str(b.workdir)) == workdir_hash(str(b.workdir))
        assert slugs(store, b.workdir) == set()  # another path is another project
        assert slugs(store, a.workdir) == {"naming"}


def test_a_reference_marker_gains_the_id_and_keeps_its_path(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    key = workdir_hash(str(a.workdir))
    folder = a.home / "projects" / key
    folder.mkdir(parents=True)
    (folder / ".workdir.json").write_text(
        json.dumps({"path": str(a.workdir.resolve()), "createdAt": "2026-01-01T00:00:00.000Z"}),
        encoding="utf-8",
    )
    (folder / "old-note.md").write_text(
        "---\nname: old-note\ndescription: Old\ntype: project\nscope: project\n---\n\nOld.\n",
        encoding="utf-8",
    )
    with a.open(monkeypatch, clock) as store:
        assert slugs(store, a.workdir) == {"old-note"}  # opening records the id
    recorded = marker(a.home, key)
    assert recorded["path"] == str(a.workdir.resolve())
    assert recorded["createdAt"] == "2026-01-01T00:00:00.000Z"
    assert recorded["projectId"].startswith("git:")
    assert recorded["paths"][0]["path"] == str(a.workdir.resolve())

    sync(a, b)
    with b.open(monkeypatch, clock) as store:
        assert slugs(store, b.workdir) == {"old-note"}


def test_two_folders_of_one_project_are_one_row_with_both_paths(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    with a.open(monkeypatch, clock) as store:
        key_a = write(store, "deploy-steps", a.workdir, "Deploy.")["workdir_hash"]
    sync(a, b)
    # Before B ever opened it here, LiveAgent wrote into B's own hash folder.
    key_b = workdir_hash(str(b.workdir))
    folder = b.home / "projects" / key_b
    folder.mkdir()
    (folder / ".workdir.json").write_text(
        json.dumps({"path": str(b.workdir.resolve()), "createdAt": "2099-01-01T00:00:00.000Z"}),
        encoding="utf-8",
    )
    (folder / "b-note.md").write_text(
        "---\nname: b-note\ndescription: B\ntype: project\nscope: project\n---\n\nB.\n",
        encoding="utf-8",
    )
    clock.advance(seconds=60)
    with b.open(monkeypatch, clock) as store:
        assert store.project_key(str(b.workdir)) == key_b  # its own folder, as LiveAgent's
        assert slugs(store, b.workdir) == {"b-note"}
        rows = [p for p in store.projects().projects if p.scope == "project"]
        listing = dispatch(store, "memory_projects", {})

    [row] = rows
    assert row.workdir_hash == key_a  # the older folder: where a new path would go
    assert row.folders == [key_a, key_b]
    assert [p.path for p in row.paths] == [str(a.workdir.resolve()), str(b.workdir.resolve())]
    assert row.counts["project"] == 2
    assert listing["project_count"] == 1
    assert listing["projects"][1]["folders"] == [key_a, key_b]


def test_a_malformed_marker_is_a_typed_problem_and_is_left_alone(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = machines
    with a.open(monkeypatch, clock) as store:
        key = write(store, "deploy-steps", a.workdir, "Deploy.")["workdir_hash"]
    marker_path = a.home / "projects" / key / ".workdir.json"
    marker_path.write_text("{not json", encoding="utf-8")
    other = a.home / "projects" / "00000000000000aa"
    other.mkdir()
    (other / ".workdir.json").write_text('["a list"]', encoding="utf-8")
    (a.home / "projects" / ".DS_Store").write_bytes(b"\x00\x01")  # a stray file, no folder

    with a.open(monkeypatch, clock) as store:
        assert slugs(store, a.workdir) == {"deploy-steps"}  # found by its hash all the same
        assert slugs(store, a.workdir.parent) == set()  # a new path scans the bad markers
        [row] = [p for p in store.projects().projects if p.scope == "project"]

    assert row.marker_problem == "project_marker_invalid"
    assert row.workdir is None
    assert marker_path.read_text("utf-8") == "{not json"  # never rewritten: loses nothing


def test_pin_refuses_a_missing_folder_and_a_bad_id_file(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = machines
    id_file(a.workdir).parent.mkdir()
    id_file(a.workdir).write_text("   \n", encoding="utf-8")
    with a.open(monkeypatch, clock) as store:
        with pytest.raises(ProjectIdInvalid):
            dispatch(store, "project_pin", {"workdir": str(a.workdir)})
        with pytest.raises(PathNotFound):
            dispatch(store, "project_pin", {"workdir": str(a.workdir / "missing")})
        with pytest.raises(WorkdirRequired):
            dispatch(store, "project_pin", {"workdir": "  "})
    assert id_file(a.workdir).read_text("utf-8") == "   \n"  # the person's file, untouched


def test_a_subfolder_of_the_repository_is_another_project(
    machines: tuple[Machine, Machine], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    (a.workdir / "web").mkdir()
    (b.workdir / "web").mkdir()
    with a.open(monkeypatch, clock) as store:
        write(store, "root-note", a.workdir, "Root.")
        write(store, "web-note", a.workdir / "web", "Web.")
    sync(a, b)
    with b.open(monkeypatch, clock) as store:
        assert slugs(store, b.workdir) == {"root-note"}
        assert slugs(store, b.workdir / "web") == {"web-note"}

"""`liveagent-memory projects`: this store's projects and stores found under --root, as a table
or as JSON (the projects_index command's response)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.git_repos import bare_repository, clone, plain_repository

HASH = "0123456789abcdef"


def seed(home: Path, workdir: str) -> None:
    with MemoryStore.open(home, clock=FakeClock()) as store:
        for slug, scope in (("style-guide", "global"), ("local-note", "project")):
            payload = {"slug": slug, "scope": scope, "type": "project", "description": slug}
            payload.update(body=f"Body of {slug}.", workdir=workdir)
            dispatch(store, "memory_write", payload)


def other_stores(root: Path) -> tuple[Path, Path]:
    loki = root / "clients" / "acme" / "api" / ".loki" / "memory"
    write_file(loki, "episodic/2026-01-01/task-1.json", "{}")
    write_file(loki, "episodic/2026-01-02/task-2.json", "{}")
    write_file(loki, "semantic/patterns.json", '{"patterns": [{"id": "p"}]}')
    write_file(loki, "skills/deploy.json", "{}")
    write_file(root / "broken" / ".loki" / "memory", "semantic/patterns.json", "{nope")
    liveagent = root / "laptop-memory"
    write_file(liveagent, f"projects/{HASH}/a.md", memory_text("a", type="feedback"))
    write_file(liveagent, f"projects/{HASH}/.workdir.json", '{"path": "/src/shop"}')
    write_file(liveagent, "global/user/me.md", memory_text("me", type="user"))
    write_file(liveagent, "memory-index.sqlite3", b"")
    return loki, liveagent


def test_without_roots_the_table_shows_this_store(home: Path, workdir: str) -> None:
    seed(home, workdir)
    code, out, _ = run_cli("projects", "--home", str(home))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"This store: {home} (1 project with memories)"  # one plural rule
    assert lines[1].split()[:3] == ["scope", "memories", "user"]
    assert lines[1].endswith("project folder")
    assert lines[2].split()[:2] == ["global", "1"]
    assert lines[3].split()[:2] == ["project", "1"]
    assert str(Path(workdir).resolve()) in lines[3]
    assert "No folders searched for other stores (add --root DIR)." in out


def test_with_roots_the_table_lists_each_store_and_the_totals(
    home: Path, workdir: str, tmp_path: Path
) -> None:
    seed(home, workdir)
    loki, liveagent = other_stores(tmp_path / "disk")
    code, out, _ = run_cli("projects", "--home", str(home), "--root", str(tmp_path / "disk"))
    assert code == 0
    table = {line.split()[1]: line.split() for line in out.splitlines() if line[:3] == "  l"}
    assert table["api"][:5] == ["loki", "api", "3", "4", "1"]
    assert str(loki) in out and "episodic 2, semantic 1, skills 1" in out
    assert table["laptop-memory"][:5] == ["liveagent", "laptop-memory", "1", "2", "1"]
    assert str(liveagent) in out and "user 1, feedback 1" in out
    assert "3 stores found" in out
    assert "Totals: 3 projects, 2 LiveAgent memories, 2 episodes, 1 pattern, 1 skill" in out
    assert "Problems (1)" in out and "corrupt_json" in out


def test_json_is_the_command_response(home: Path, workdir: str, tmp_path: Path) -> None:
    seed(home, workdir)
    other_stores(tmp_path / "disk")
    argv = ["projects", "--home", str(home), "--root", str(tmp_path / "disk"), "--json"]
    code, out, _ = run_cli(*argv, "--max-depth", "2")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"this_store", "discovered", "skipped", "totals", "duration_ms"}
    assert data["this_store"]["project_count"] == 1
    # The Loki project sits three folders down: beyond --max-depth 2.
    assert [d["name"] for d in data["discovered"]] == ["broken", "laptop-memory"]
    assert data["max_depth"] == 2 and data["totals"]["depth_limited"] >= 1
    code, out, _ = run_cli(*argv)
    assert sorted(d["name"] for d in json.loads(out)["discovered"]) == [
        "api",
        "broken",
        "laptop-memory",
    ]


def test_a_bad_root_is_a_typed_error_with_exit_code_1(home: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere")
    code, out, _ = run_cli("projects", "--root", missing, "--json", home=home)
    assert code == 1
    error = json.loads(out)
    assert error["error"] == "invalid_argument" and missing in error["message"]
    code, out, _ = run_cli(
        "projects", "--root", str(tmp_path), "--max-depth", "-1", "--json", home=home
    )
    assert code == 1 and json.loads(out)["field"] == "max_depth"


def test_a_project_seen_at_two_paths_lists_both(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = bare_repository(tmp_path / "server" / "shop.git")
    first = clone(server, tmp_path / "a" / "shop")
    second = clone(server, tmp_path / "b" / "checkout")
    monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "laptop")
    seed(home, str(first))
    monkeypatch.setenv("LIVEAGENT_MEMORY_MACHINE", "desktop")
    code, _, _ = run_cli("list", "--workdir", str(second), home=home)  # B opens the project
    assert code == 0

    code, out, _ = run_cli("projects", home=home)

    assert code == 0
    assert f"Project {workdir_hash(str(first))} (git:{str(server)[:-4]}):" in out
    assert f"  seen at {first.resolve()} on laptop\n" in out
    assert f"  seen at {second.resolve()} on desktop\n" in out
    code, out, _ = run_cli("projects", "--json", home=home)
    [project] = json.loads(out)["this_store"]["projects"][1:]
    assert [p["path"] for p in project["paths"]] == [str(first.resolve()), str(second.resolve())]


def test_pin_writes_the_id_file_and_needs_a_workdir(home: Path, tmp_path: Path) -> None:
    notes = plain_repository(tmp_path / "notes")
    seed(home, str(notes))

    code, out, err = run_cli("projects", "pin", home=home)
    assert code == 2 and "needs --workdir" in err
    code, out, _ = run_cli("projects", "pin", "--workdir", str(notes), home=home)
    assert code == 0
    pinned = (notes / ".liveagent" / "project-id").read_text("utf-8").strip()
    assert out.startswith(f"Wrote {notes.resolve()}/.liveagent/project-id ({pinned}); commit it")
    code, out, _ = run_cli("projects", "pin", "--workdir", str(notes), "--json", home=home)
    assert code == 0
    again = json.loads(out)
    assert (again["written"], again["project_id"]) == (False, pinned)

"""`liveagent-memory import-loki PATH` (issue 18): the real command line on a real Loki store."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import cli_call_ok, run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.loki import EPISODE_1, write_loki_store


def test_import_prints_what_each_entry_became(home: Path, clock: FakeClock, tmp_path: Path) -> None:
    memory = write_loki_store(tmp_path / "shop")
    (memory / "skills" / "broken.json").write_text("{", encoding="utf-8")

    run = run_cli("import-loki", str(tmp_path / "shop"), home=home, clock=clock)

    assert run.code == 0, run.err
    assert run.out.startswith(f"Imported {memory.resolve()} into global memories\n")
    assert "loki-sem-001 (reference)" in run.out
    assert "loki-skill-api-implementation (skill)" in run.out
    assert f"{EPISODE_1}    created" in run.out
    assert "2 anti-patterns: created 2\n" in run.out
    assert "8 entries written; the memories wait for review" in run.out
    assert f"corrupt_json  {memory.resolve() / 'skills' / 'broken.json'}: " in run.out
    listed = cli_call_ok(home, clock, "memory_list", {"unreviewed": True})
    assert listed["total"] == 5

    again = run_cli("import-loki", str(tmp_path / "shop"), home=home, clock=clock)

    assert again.code == 0, again.err
    assert "Nothing new: every entry is already in this store as it is." in again.out
    assert "written" not in again.out
    assert "3 episodes: exists 3\n" in again.out


def test_json_and_dry_run_write_nothing(home: Path, clock: FakeClock, tmp_path: Path) -> None:
    write_loki_store(tmp_path / "shop")

    run = run_cli(
        "import-loki", str(tmp_path / "shop"), "--dry-run", "--json", home=home, clock=clock
    )

    assert run.code == 0, run.err
    data = run.json()
    assert data["dry_run"] is True
    assert data["written"] == 0
    assert data["counts"]["pattern"] == {"created": 2}
    assert {item["target"] for item in data["items"] if item["kind"] == "skill"} == {
        "loki-skill-api-implementation"
    }
    assert cli_call_ok(home, clock, "memory_list", {})["total"] == 0
    assert cli_call_ok(home, clock, "episode_list", {})["total"] == 0


def test_workdir_puts_the_import_in_that_project(
    home: Path, clock: FakeClock, tmp_path: Path, workdir: str
) -> None:
    write_loki_store(tmp_path / "shop")

    run = run_cli(
        "import-loki",
        str(tmp_path / "shop"),
        "--workdir",
        workdir,
        "--json",
        home=home,
        clock=clock,
    )

    assert run.code == 0, run.err
    assert run.json()["workdir"] == str(Path(workdir).resolve())
    found = cli_call_ok(
        home, clock, "memory_read", {"slug": "loki-sem-001", "scope": "project", "workdir": workdir}
    )
    assert found["entry"]["type"] == "project"


def test_a_missing_path_and_a_folder_without_loki_memory_are_typed_errors(
    home: Path, clock: FakeClock, tmp_path: Path
) -> None:
    missing = run_cli("import-loki", str(tmp_path / "nowhere"), home=home, clock=clock)
    assert missing.code == 1
    assert missing.err == f"error: There is no folder at {tmp_path / 'nowhere'}\n"
    assert missing.out == ""

    (tmp_path / "plain").mkdir()
    plain = run_cli("import-loki", str(tmp_path / "plain"), "--json", home=home, clock=clock)
    assert plain.code == 1
    assert plain.json()["error"] == "loki_store_not_found"
    assert plain.json()["field"] == "path"
    assert cli_call_ok(home, clock, "memory_list", {})["total"] == 0

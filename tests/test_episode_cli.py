"""`liveagent-memory episode …` run in-process: record from a file and stdin, list, show."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import run_cli

EPISODE = {
    "goal": "Fix the login crash",
    "timestamp": "2026-11-30T10:00:00Z",
    "outcome": "failure",
    "action_log": [{"t": 0, "action": "run_test", "target": "login", "result": "1 failed"}],
    "errors_encountered": [{"type": "TypeError", "message": "x is undefined"}],
    "key_decisions": ["reproduce on Safari first"],
}


def test_record_from_a_file_then_show_and_list(cli_home: str, tmp_path: Path) -> None:
    source = tmp_path / "episode.json"
    source.write_text(json.dumps({**EPISODE, "id": "ep-cli-1"}), "utf-8")
    code, out, _ = run_cli("--home", cli_home, "episode", "record", str(source))
    assert code == 0
    assert out.startswith("recorded ep-cli-1 (failure, debugging")
    assert "episodes/2026-11-30/ep-cli-1.json" in out
    assert (Path(cli_home) / "episodes" / "2026-11-30" / "ep-cli-1.json").is_file()

    code, out, _ = run_cli("--home", cli_home, "episode", "show", "ep-cli-1")
    assert code == 0
    assert "goal: Fix the login crash" in out
    assert "run_test login -> 1 failed" in out
    assert "TypeError: x is undefined (unresolved)" in out
    assert "decision: reproduce on Safari first" in out

    code, out, _ = run_cli("--home", cli_home, "episode", "list")
    assert code == 0 and "ep-cli-1  failure" in out and "1 of 1 episode\n" in out

    code, out, _ = run_cli("--home", cli_home, "--json", "episode", "record", str(source))
    assert code == 1 and json.loads(out)["error"] == "episode_exists"
    code, out, _ = run_cli("--home", cli_home, "episode", "record", str(source), "--replace")
    assert code == 0 and out.startswith("replaced ep-cli-1")


def test_record_from_stdin_with_the_workdir(cli_home: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = json.dumps({"goal": "重构认证模块", "outcome": "partial"})
    code, out, _ = run_cli(
        "--home", cli_home, "--workdir", str(project), "episode", "record", "-", stdin=payload
    )
    assert code == 0 and "(partial, refactoring" in out

    code, out, _ = run_cli("--home", cli_home, "episode", "list", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 1
    row = data["episodes"][0]
    assert row["goal"] == "重构认证模块" and row["task_type"] == "refactoring"
    assert len(row["workdir_hash"]) == 16

    code, out, _ = run_cli("--home", cli_home, "episode", "timeline", "--json")
    assert code == 0 and json.loads(out)["active_context"]["current_focus"] == "重构认证模块"
    code, out, _ = run_cli("--home", cli_home, "episode", "timeline")
    assert code == 0 and out.startswith("Current focus: 重构认证模块")


def test_list_filters_by_journal_day_and_outcome(cli_home: str) -> None:
    for episode in (
        {**EPISODE, "id": "night", "timestamp": "2026-11-30T02:00:00Z"},
        {**EPISODE, "id": "day", "timestamp": "2026-11-30T12:00:00Z", "outcome": "success"},
    ):
        code, _, _ = run_cli(
            "--home", cli_home, "episode", "record", "-", stdin=json.dumps(episode)
        )
        assert code == 0

    def ids(*extra: str) -> list[str]:
        code, out, _ = run_cli("--home", cli_home, "episode", "list", "--json", *extra)
        assert code == 0
        return [row["id"] for row in json.loads(out)["episodes"]]

    assert ids() == ["day", "night"]
    assert ids("--utc-date", "2026-11-30") == ["day", "night"]
    # Tests run in UTC; the journal's day rolls over at 04:00, so 02:00 is still the 29th.
    assert ids("--date", "2026-11-29") == ["night"]
    assert ids("--date", "2026-11-30") == ["day"]
    assert ids("--outcome", "success") == ["day"]
    code, out, _ = run_cli("--home", cli_home, "--json", "episode", "list", "--date", "30/11/2026")
    assert code == 1 and json.loads(out)["field"] == "date_local"


def test_bad_input_exits_1_with_a_typed_error(cli_home: str, tmp_path: Path) -> None:
    code, out, _ = run_cli(
        "--home", cli_home, "--json", "episode", "record", "-", stdin="{not json"
    )
    assert code == 1 and json.loads(out)["error"] == "invalid_argument"
    code, out, _ = run_cli(
        "--home", cli_home, "--json", "episode", "record", str(tmp_path / "missing.json")
    )
    assert code == 1 and "cannot read" in json.loads(out)["message"]
    bad = json.dumps({"goal": "g", "phase": "PLAN"})
    code, out, _ = run_cli("--home", cli_home, "--json", "episode", "record", "-", stdin=bad)
    assert code == 1 and json.loads(out)["field"] == "phase"
    code, out, _ = run_cli("--home", cli_home, "--json", "episode", "record")
    assert code == 1 and json.loads(out)["field"] == "episode"
    code, out, _ = run_cli("--home", cli_home, "--json", "episode", "show", "ep-missing")
    assert code == 1 and json.loads(out)["error"] == "episode_not_found"
    code, _, err = run_cli("--home", cli_home, "episode", "forget")
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_cli("--home", cli_home, "episode", "list")
    assert code == 0 and out == "No episodes.\n"


def test_episode_commands_are_listed(cli_home: str) -> None:
    code, out, _ = run_cli("commands")
    assert code == 0
    for name in ("episode_record", "episode_list", "episode_read", "episode_timeline"):
        assert name in out
    code, out, _ = run_cli("--home", cli_home, "call", "episode_list", "{}")
    assert code == 0 and json.loads(out)["episodes"] == []


def test_search_in_english_and_chinese(cli_home: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for episode, where in (
        ({**EPISODE, "id": "en"}, ()),
        ({"id": "zh", "goal": "修复登录页面的崩溃", "timestamp": "2026-11-30T11:00:00Z"}, ()),
        ({"id": "mine", "goal": "crash in the exporter", "outcome": "success"}, project),
    ):
        extra = ("--workdir", str(where)) if where else ()
        code, _, _ = run_cli(
            "--home", cli_home, *extra, "episode", "record", "-", stdin=json.dumps(episode)
        )
        assert code == 0

    code, out, _ = run_cli("--home", cli_home, "episode", "search", "login crash")
    assert code == 0
    assert "en  failure  debugging\n    Fix the login crash\n" in out
    assert "[login]" in out and out.endswith("2 episodes found\n")  # the Chinese one: no "crash"

    code, out, _ = run_cli("--home", cli_home, "episode", "search", "登录", "--json")
    assert code == 0
    data = json.loads(out)
    assert [hit["id"] for hit in data["hits"]] == ["zh"] and data["terms"] == ["登录"]

    def ids(*extra: str) -> list[str]:
        code, out, _ = run_cli("--home", cli_home, "episode", "search", "crash", "--json", *extra)
        assert code == 0
        return sorted(hit["id"] for hit in json.loads(out)["hits"])

    assert ids() == ["en", "mine"]  # Chinese text has no Latin "crash"
    assert ids("--workdir", str(project)) == ["en", "mine"]
    assert ids("--workdir", str(tmp_path)) == ["en"]  # another project: its own and unscoped
    assert len(ids("--limit", "1")) == 1

    code, out, _ = run_cli("--home", cli_home, "episode", "search", "kubernetes")
    assert code == 0 and out == "No episodes found.\n"


def test_search_needs_a_query_and_a_positive_limit(cli_home: str) -> None:
    for argv in (("episode", "search"), ("episode", "search", "  ")):
        code, out, _ = run_cli("--home", cli_home, "--json", *argv)
        assert code == 1 and json.loads(out)["field"] == "query"
    code, out, _ = run_cli(
        "--home", cli_home, "--json", "episode", "search", "crash", "--limit", "0"
    )
    assert code == 1 and json.loads(out)["field"] == "limit"
    code, _, err = run_cli("--home", cli_home, "episode", "search", "crash", "--limit", "two")
    assert code == 2 and "invalid int value" in err
    code, out, _ = run_cli("commands")
    assert code == 0 and "episode_search" in out

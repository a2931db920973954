"""The command-line interface, run in-process and as a real subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from liveagent_memory.cli import main
from tests.helpers.cli import run_cli


def test_no_arguments_prints_status(cli_home: str) -> None:
    code, out, _ = run_cli("--home", cli_home)
    assert code == 0
    assert f"store at {Path(cli_home).absolute()}" in out
    # Plain words for the quota ladder's level and headroom (issue 14).
    assert "Memory space: plenty of room (" in out and "left in the fullest scope)" in out
    assert "ladder" not in out.lower() and "headroom" not in out.lower()


def test_write_search_read_list_delete_cycle(cli_home: str) -> None:
    code, out, _ = run_cli(
        "write",
        "tea-pref",
        "--home",
        cli_home,
        "--type",
        "user",
        "--description",
        "Drinks green tea",
        "--body",
        "用户喜欢喝绿茶。",
        "--confidence",
        "high",
        "--quote",
        "我只喝绿茶",
    )
    assert code == 0 and "created tea-pref" in out and "confidence high" in out
    code, out, _ = run_cli("--home", cli_home, "search", "绿茶")
    assert code == 0 and "tea-pref" in out and "[绿茶]" in out
    code, out, _ = run_cli("--home", cli_home, "read", "tea-pref")
    assert "用户喜欢喝绿茶。" in out and "quote: '我只喝绿茶'" in out
    code, out, _ = run_cli("--home", cli_home, "list", "--json")
    assert json.loads(out)["entries"][0]["slug"] == "tea-pref"
    code, out, _ = run_cli("--home", cli_home, "delete", "tea-pref", "--reason", "no")
    assert code == 0 and "deleted tea-pref" in out
    code, out, _ = run_cli("--home", cli_home, "history", "tea-pref")
    assert "(deleted)" in out and "trash:" in out


def test_write_body_from_stdin_and_project_scope(cli_home: str, tmp_path: Path) -> None:
    workdir = tmp_path / "proj"
    workdir.mkdir()
    code, out, _ = run_cli(
        "--home",
        cli_home,
        "--workdir",
        str(workdir),
        "write",
        "build-cmd",
        "--type",
        "project",
        "--description",
        "Build",
        "--json",
        stdin="Run make.",
    )
    data = json.loads(out)
    assert code == 0 and data["scope"] == "project" and data["path"].startswith("projects/")


def test_call_exit_codes(cli_home: str) -> None:
    code, out, _ = run_cli(
        "--home",
        cli_home,
        "call",
        "memory_write",
        json.dumps(
            {"slug": "x-y-z", "scope": "global", "type": "user", "description": "d", "body": "b"}
        ),
    )
    assert code == 0 and json.loads(out)["created"]
    code, out, _ = run_cli("--home", cli_home, "call", "memory_read", '{"slug": "missing-one"}')
    assert code == 1 and json.loads(out)["error"] == "slug_not_found"
    code, out, err = run_cli("--home", cli_home, "call", "memory_read", "{not json")
    assert code == 2 and "not valid JSON" in err
    code, out, _ = run_cli("--home", cli_home, "call", "nonsense")
    assert code == 1 and json.loads(out)["error"] == "unknown_command"
    code, _, err = run_cli("--home", cli_home, "list", "--no-such-flag")
    assert code == 2 and "unrecognized arguments" in err
    code, out, _ = run_cli("--home", cli_home, "call", "memory_list", "-", stdin='{"limit": 5}')
    assert code == 0 and json.loads(out)["total"] == 1


def test_call_fills_workdir_from_option(cli_home: str, tmp_path: Path) -> None:
    code, out, _ = run_cli(
        "--home",
        cli_home,
        "--workdir",
        str(tmp_path),
        "call",
        "memory_write",
        json.dumps(
            {
                "slug": "p-note",
                "scope": "project",
                "type": "project",
                "description": "d",
                "body": "b",
            }
        ),
    )
    assert code == 0 and json.loads(out)["scope"] == "project"


def test_apply_batch_file(cli_home: str, tmp_path: Path) -> None:
    batch = tmp_path / "batch.json"
    batch.write_text(
        json.dumps(
            {
                "items": [
                    {
                        "op": "upsert",
                        "slug": "one-fact",
                        "scope": "global",
                        "type": "reference",
                        "description": "d",
                        "body": "b",
                    },
                    {"op": "delete", "slug": "not-there", "scope": "global"},
                ]
            }
        )
    )
    code, out, _ = run_cli("--home", cli_home, "apply-batch", str(batch))
    # An item failed: the batch did not do all it was asked (issue 14: it exited 0).
    assert code == 1 and "2 items: 1 applied, 1 failed" in out
    assert "item 1 (delete not-there): memory slug 'not-there' was not found" in out
    code, _, err = run_cli("--home", cli_home, "apply-batch", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_daily_quota_reconcile_problems(cli_home: str) -> None:
    assert run_cli("--home", cli_home, "daily", "Shipped it")[0] == 0
    code, out, _ = run_cli("--home", cli_home, "daily")
    assert "Shipped it" in out
    code, out, _ = run_cli("--home", cli_home, "quota", "--json")
    assert json.loads(out)["ladder"] == "normal"
    bad = Path(cli_home) / "global" / "broken.md"
    bad.write_text("---\nname: broken\ntype: banana\n---\nbody\n")
    code, out, _ = run_cli("--home", cli_home, "reconcile")
    assert code == 0 and "global/broken.md: unknown type 'banana'" in out
    assert bad.exists()
    code, out, _ = run_cli("--home", cli_home, "problems", "--json")
    assert json.loads(out)["problems"][0]["path"] == "global/broken.md"


def test_update_accept_restore(cli_home: str) -> None:
    run_cli(
        "--home",
        cli_home,
        "call",
        "memory_write",
        json.dumps(
            {
                "slug": "tone",
                "scope": "global",
                "type": "feedback",
                "description": "Tone",
                "body": "Be formal.",
                "actor": "extractor",
            }
        ),
    )
    code, out, _ = run_cli("--home", cli_home, "accept", "tone")
    assert code == 0
    code, out, _ = run_cli("--home", cli_home, "update", "tone", "--body", "Be casual.")
    assert code == 0 and "updated tone" in out
    code, out, _ = run_cli("--home", cli_home, "history", "tone", "--json")
    version = next(e["version"] for e in json.loads(out)["entries"] if e["op"] == "update")
    code, out, _ = run_cli("--home", cli_home, "restore", "tone", version)
    assert code == 0
    code, out, _ = run_cli("--home", cli_home, "read", "tone")
    assert "Be formal." in out


def test_home_from_environment_and_real_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "LIVEAGENT_MEMORY_HOME": str(tmp_path / "env-home")}
    proc = subprocess.run(
        [sys.executable, "-m", "liveagent_memory", "call", "memory_paths_info"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["root"] == str(tmp_path / "env-home")
    proc = subprocess.run(
        [sys.executable, "-m", "liveagent_memory", "call", "memory_read", '{"slug": "no"}'],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1 and json.loads(proc.stdout)["error"] == "slug_invalid"


class _ClosedPipe(io.StringIO):
    """Standard output whose reader went away (`liveagent-memory … | head -1`)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_quietly(cli_home: str) -> None:
    err = io.StringIO()
    code = main(["list", "--home", cli_home], stdout=_ClosedPipe(), stderr=err)
    assert code == 141
    assert err.getvalue() == ""
    code = main(["organize", "history", "--home", cli_home], stdout=_ClosedPipe(), stderr=err)
    assert code == 141
    assert "Traceback" not in err.getvalue()


def test_the_command_line_imports_no_server_until_a_server_command_runs() -> None:
    # Every command, and the app's start (`liveagent-memory` with no arguments), imports the
    # CLI: the MCP SDK (about half a second) and aiohttp's server wait for `mcp` and `serve`.
    probe = (
        "import sys, liveagent_memory.cli\n"
        "loaded = [m for m in ('mcp', 'uvicorn', 'starlette', 'aiohttp', 'litellm')"
        " if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-800:]


def test_sync_status_lists_conflict_copies_and_call_resolves_one(cli_home: str) -> None:
    code, out, _ = run_cli("--home", cli_home, "sync", "status")
    assert code == 0 and "No sync conflicts" in out
    folder = Path(cli_home) / "global"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "deploy.md").write_text("---\nname: deploy\ntype: reference\n---\nblue green\n")
    copy = folder / "deploy (conflicted copy 2026-01-02).md"
    copy.write_text("---\nname: deploy\ntype: reference\n---\ncanary\n")

    code, out, _ = run_cli("--home", cli_home, "sync", "status")
    assert code == 0 and "1 sync conflict" in out
    assert "dropbox" in out and "global/deploy (conflicted copy 2026-01-02).md" in out
    code, out, _ = run_cli("--home", cli_home, "sync", "status", "--json")
    [item] = json.loads(out)["conflicts"]
    assert (item["original"], item["tool"], item["slug"]) == (
        "global/deploy.md",
        "dropbox",
        "deploy",
    )
    code, out, _ = run_cli("--home", cli_home, "problems", "--json")
    assert json.loads(out)["problems"][0]["code"] == "sync_conflict"

    payload = json.dumps({"path": item["path"], "keep": "copy"})
    code, out, _ = run_cli("--home", cli_home, "call", "sync_resolve", payload)
    assert code == 0 and json.loads(out)["kept"] == "copy"
    assert not copy.exists() and "canary" in (folder / "deploy.md").read_text()
    code, out, _ = run_cli("--home", cli_home, "sync", "status", "--json")
    assert json.loads(out) == {"conflicts": [], "count": 0, "git": {"initialised": False}}

"""Every `liveagent-memory` example in README.md's command-line sections runs as written.

The examples are read from the README's `sh` blocks from "Using the store from the command
line" on, and run in order through the real CLI, from the repository's folder, on a fresh
default store (LIVEAGENT_MEMORY_HOME: the README's commands give no --home). A comment
"(exit code N)" says what the line should end with; the rest must succeed.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from liveagent_memory.domain.config import HOME_ENV_VAR
from tests.helpers.cli import run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import seed_home

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
FIRST_SECTION = "## Using the store from the command line"
# Lines that need a model server or an OS keyring this test does not have; the chat tests
# (tests/test_chat_cli.py) run the same commands against the fake model server.
NEEDS_A_MODEL = (("settings", "--model"), ("key", "set"), ("chat",))


def readme_commands() -> list[str]:
    """The README's `liveagent-memory …` lines (continued lines joined), in order."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text[text.index(FIRST_SECTION) :], re.S)
    commands: list[str] = []
    for block in blocks:
        pending = ""
        for line in block.splitlines():
            pending = f"{pending}\n{line}" if pending else line
            if pending.endswith("\\"):
                pending = pending[:-1]
                continue
            try:
                shlex.split(pending, comments=True)
            except ValueError:  # a quote still open: the command goes on on the next line
                continue
            if pending.startswith("liveagent-memory "):
                commands.append(pending)
            pending = ""
    return commands


def test_the_readme_has_its_command_line_examples() -> None:
    commands = readme_commands()
    assert len(commands) >= 20, commands
    assert any("episode record docs/examples/trace.json" in c for c in commands)


def test_every_readme_cli_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    home = tmp_path / "default-home"
    monkeypatch.setenv(HOME_ENV_VAR, str(home))
    monkeypatch.chdir(REPO)
    # Two copies of one memory, so the organizer examples have decisions to show and apply.
    twin = {"scope": "global", "type": "user", "description": "Morning tea", "actor": "user"}
    body = "I drink green tea every morning."
    # And two that disagree, so the contradiction examples have one to list and answer.
    rates = [
        {"scope": "global", "type": "reference", "slug": f"rate-{n}", "description": f"限 {n} 次"}
        | {"body": f"结算接口每个用户每秒限 {n} 次请求"}
        for n in (10, 5)
    ]
    seed_home(
        home,
        [{**twin, "slug": "tea-a", "body": body}, {**twin, "slug": "tea-b", "body": body}, *rates],
    )

    ran = []
    for command in readme_commands():
        words = shlex.split(command, comments=True)[1:]
        if any(tuple(words[: len(skip)]) == skip for skip in NEEDS_A_MODEL):
            continue
        if "RUN" in words:
            newest = run_cli("organize", "history", "--json", clock=clock).json()[0]
            words = [newest["run_id"] if word == "RUN" else word for word in words]
        expected = re.search(r"\(exit code (\d)\)", command)

        code, out, err = run_cli(*words, clock=clock)

        assert code == (int(expected.group(1)) if expected else 0), (command, out, err)
        ran.append(words[0])
    assert {"write", "search", "episode", "context", "organize"} <= set(ran)

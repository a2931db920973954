"""The real command line, run in-process: `liveagent_memory.cli.main` with strings for its
streams, on the test's clock."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, NamedTuple

from liveagent_memory.cli import main
from liveagent_memory.domain.clock import Clock, system_clock


class CliRun(NamedTuple):
    """One run: its exit code and what it printed to stdout and stderr."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """What it printed, parsed as JSON."""
        return json.loads(self.out)


def run_cli(
    *argv: str, home: Path | str | None = None, stdin: str = "", clock: Clock = system_clock
) -> CliRun:
    """`liveagent-memory [--home HOME --create] ARGV…` with `stdin` as its input, on `clock`
    (the CLI is a composition root: data a test made on a fake clock needs the CLI on it
    too). The test's `home` may not exist yet: it is the store the test means to use, made on
    first use (`--create`). A traceback on stderr fails the test: errors are typed lines,
    never a crash."""
    out, err = io.StringIO(), io.StringIO()
    prefix = ["--home", str(home), "--create"] if home is not None else []
    code = main([*prefix, *argv], stdin=io.StringIO(stdin), stdout=out, stderr=err, clock=clock)
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return CliRun(code, out.getvalue(), err.getvalue())


def cli_call(home: Path, clock: Clock, command: str, payload: dict[str, Any]) -> tuple[int, Any]:
    """`liveagent-memory --home HOME call COMMAND JSON`: (exit code, the JSON it printed)."""
    run = run_cli("call", command, json.dumps(payload), home=home, clock=clock)
    return run.code, run.json()


def cli_call_ok(home: Path, clock: Clock, command: str, payload: dict[str, Any]) -> Any:
    """`cli_call` of a command that must succeed: the JSON it printed."""
    code, out = cli_call(home, clock, command, payload)
    assert code == 0, out
    return out

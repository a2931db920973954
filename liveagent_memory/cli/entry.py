"""The entry point: parse, build the run's AppContext once, run one subcommand, exit.

A composition root (docs/ARCHITECTURE.md "Composition roots"): the one AppContext of a run is
built here and handed to the command group of the subcommand; nothing below reads settings or
opens the store by itself. Typed errors are printed for a person on stderr (cli/errors.py), or
as their JSON shape with --json and for `call` (exit 1; 2 for a --home that is not there), bad
arguments on stderr (exit 2); anything else is a bug, printed with its traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from liveagent_memory.cli import (
    agent,
    app,
    embeddings,
    episodes,
    keys,
    loki_import,
    mcp_command,
    memories,
    model_settings,
    organize,
    projects,
    serve,
    sync,
    task_context,
)
from liveagent_memory.cli.errors import write_error
from liveagent_memory.cli.group import Group, Streams
from liveagent_memory.cli.output import emit_json
from liveagent_memory.cli.parser import UsageError, build_parser
from liveagent_memory.context import AppContext
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.domain.errors import MemoryDomainError, StoreNotFound
from liveagent_memory.domain.inputs import clean_text

EXIT_OK, EXIT_COMMAND_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left

# In the order their subcommands appear in --help.
GROUPS: tuple[Group, ...] = (
    memories.GROUP,
    app.GROUP,
    agent.GROUP,
    model_settings.GROUP,
    organize.GROUP,
    keys.GROUP,
    projects.GROUP,
    loki_import.GROUP,
    episodes.GROUP,
    embeddings.GROUP,
    sync.GROUP,
    task_context.GROUP,
    serve.GROUP,
    mcp_command.GROUP,
)


def group_of(command: str) -> Group:
    """The group that runs `command` (a subcommand the parser accepted)."""
    return next(group for group in GROUPS if command in group.commands)


def chosen_command(args: argparse.Namespace, *, display: bool) -> str:
    """The subcommand to run: the one given, else the app with a display, else `status`."""
    return str(args.command) if args.command else ("app" if display else "status")


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    clock: Clock = system_clock,
) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 command error, 2 usage error).

    `clock` is the one time source of everything this run opens: the CLI is a composition
    root, so a test that made its data with a fake clock runs the CLI on that clock too.
    """
    streams = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    try:
        return _main(argv, streams, clock=clock)
    except BrokenPipeError:
        # Trigger: the output was piped into a reader that stopped early (`| head`).
        # Outcome: end quietly like other command-line tools, with no traceback; the
        # interpreter's final flush of stdout must not fail again.
        if stdout is None or stdout is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None, streams: Streams, *, clock: Clock) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        args = build_parser(GROUPS).parse_args(argv)
    except UsageError as exc:
        streams.err.write(f"{exc}\n")
        return EXIT_USAGE
    args.command = chosen_command(args, display=app.display_available())
    if args.command == "commands":
        memories.show_commands(streams.out)
        return EXIT_OK
    try:
        _check_locations(args)
        _check_home(args)
    except MemoryDomainError as exc:
        return _failed(exc, args, streams)
    group = group_of(args.command)
    home = getattr(args, "home", None)
    with AppContext.open(home, clock=clock, executes_runs=group.executes_runs) as context:
        return _run(group, args, context, streams)


def _run(group: Group, args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run the group's command on the context; every failure becomes an exit code."""
    try:
        if group.opens_store:
            context.open_store()
        return group.run(args, context, streams)
    except UsageError as exc:
        streams.err.write(f"{exc}\n")
        return EXIT_USAGE
    except MemoryDomainError as exc:
        return _failed(exc, args, streams)
    except BrokenPipeError:
        raise  # the reader left; main() ends quietly
    except Exception as exc:  # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=streams.err)
        message = f"{type(exc).__name__}: {exc}"
        if wants_json(args):
            emit_json({"error": "internal_error", "message": message}, streams.out)
        else:
            streams.err.write(f"error: internal error (a bug; the traceback is above): {message}\n")
        return EXIT_COMMAND_ERROR


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the run prints JSON: with --json, and always for `call` (the machine face)."""
    return args.command == "call" or bool(getattr(args, "json", False))


def _failed(exc: MemoryDomainError, args: argparse.Namespace, streams: Streams) -> int:
    """Print a typed error (its JSON shape on stdout, or for a person on stderr); the exit
    code: 2 for a store folder that is not there (a usage slip), else 1."""
    if wants_json(args):
        emit_json(exc.to_dict(), streams.out)
    else:
        write_error(exc, streams.err)
    return EXIT_USAGE if isinstance(exc, StoreNotFound) else EXIT_COMMAND_ERROR


def _check_locations(args: argparse.Namespace) -> None:
    """Hold `--home` and `--workdir` to the text rule of every request (domain/inputs.py).

    Every subcommand uses them, some before any request model sees them; a NUL in a path
    made the operating system calls raise a bare ValueError.
    """
    for name in ("home", "workdir"):
        value = getattr(args, name, None)
        if value is not None:
            setattr(args, name, clean_text(value, field=name))


def _check_home(args: argparse.Namespace) -> None:
    """An explicit --home must name an existing folder unless --create is given.

    Why: a typo in it silently started an empty store that looked like lost memories. The
    default home (and LIVEAGENT_MEMORY_HOME) is created on first use as before, and so is a
    --home given to `call`: that is the face for programs (an agent, a script, an evaluation
    harness), which start their stores on first use the way the agent's tool does.
    """
    home = getattr(args, "home", None)
    if home is None or getattr(args, "create", False) or Path(home).exists():
        return
    if args.command == "call":
        return
    raise StoreNotFound(
        f"there is no memory store at {home}: the folder does not exist. Check the path, or "
        "add --create to start a new store there",
        field="home",
    )


if __name__ == "__main__":
    raise SystemExit(main())

"""The argument parser of `liveagent-memory`: its shared options and its usage errors.

`--home DIR` (or LIVEAGENT_MEMORY_HOME) picks the store (a --home folder that does not exist is
an error unless `--create` is given), `--workdir DIR` the project; all work before or after the
subcommand. Every subcommand takes `--json`. The command groups
register their subcommands (cli/group.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from liveagent_memory import __version__
from liveagent_memory.cli.group import Group
from liveagent_memory.domain import config
from liveagent_memory.domain.similar import close_matches


class UsageError(Exception):
    """Bad command-line input (exit code 2)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's hook; raise instead of exiting
        raise UsageError(f"{self.prog}: {message}")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value outside a choice list (a subcommand, --type, --scope, ...) is named with the
        near ones first (`serch` -> did you mean search?), then every choice."""
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        near = close_matches(str(value), names, limit=config.COMMAND_CANDIDATES_LIMIT)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        raise argparse.ArgumentError(
            action, f"invalid choice {value!r}{hint} (choose from {', '.join(names)})"
        )


def _common() -> Parser:
    common = Parser(add_help=False)
    common.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="store folder (default: $LIVEAGENT_MEMORY_HOME or ~/.liveagent/memory)",
    )
    common.add_argument(
        "--create",
        action="store_true",
        default=argparse.SUPPRESS,
        help="with --home: start a new store there if the folder does not exist",
    )
    common.add_argument(
        "--workdir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="project folder: adds its project memories",
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print the JSON response"
    )
    return common


def build_parser(groups: Sequence[Group]) -> argparse.ArgumentParser:
    """The parser with every group's subcommands, in the groups' order."""
    common = _common()
    parser = Parser(
        prog="liveagent-memory",
        description="Long-term memory for AI agents that you can see, review and correct.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_text, description=help_text)

    for group in groups:
        group.add_parsers(add)
    return parser

"""What a command group of the CLI is: its subcommands, their parsers, how it runs them.

Each group module (`memories`, `app`, `agent`, `model_settings`, `organize`, `keys`,
`projects`, `loki_import`, `episodes`, `embeddings`, `sync`, `task_context`, `serve`) defines one
`GROUP`; `entry.py` lists them in the order their subcommands appear in `--help`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from liveagent_memory.context import AppContext

AddParser = Callable[[str, str], argparse.ArgumentParser]


@dataclass(frozen=True)
class Streams:
    """The text streams of one CLI run."""

    stdin: TextIO
    out: TextIO
    err: TextIO


@dataclass(frozen=True)
class Group:
    """A command group.

    `add_parsers` registers its subcommands; `run` runs one of them on the run's AppContext and
    returns the exit code, letting typed errors propagate to the entry point. With
    `opens_store` the store is opened before `run` (a store that cannot open is the first
    error); `executes_runs` is what the store is opened with (False: a one-shot process that
    never runs the organizer pipeline queues a run it creates for the desktop app).
    """

    commands: tuple[str, ...]
    add_parsers: Callable[[AddParser], None]
    run: Callable[[argparse.Namespace, AppContext, Streams], int]
    opens_store: bool = True
    executes_runs: bool = True

"""`liveagent-memory app` and `screenshots`: the only place outside ui/ that starts the app.

With no subcommand the CLI opens the app when a display is available, else prints the status
(docs/ARCHITECTURE.md "Layers": only the CLI starts the app). Qt is imported only here, and
only when one of these runs, so every other subcommand starts without it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.context import AppContext


def display_available() -> bool:
    """Whether a window can be shown (no display: `liveagent-memory` prints the status)."""
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def add_parsers(add: AddParser) -> None:
    """Register `app` and `screenshots`."""
    add("app", "open the desktop app (the default when a display is available)")
    p = add("screenshots", "render the app's pages to PNG files (works without a display)")
    p.add_argument("outdir", type=Path)
    p.add_argument(
        "--lang", choices=("en", "zh_CN"), help="language of the labels (default: settings/system)"
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Open the app on the context's home, or render its pages to PNG files."""
    # Qt is loaded only now.
    from liveagent_memory.ui.app import run_app, run_screenshots

    if args.command == "app":
        return run_app(context.home)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in run_screenshots(context.home, args.outdir, language=args.lang):
        streams.out.write(f"{path}\n")
    return 0


# The app opens its store itself, on its own worker thread.
GROUP = Group(commands=("app", "screenshots"), add_parsers=add_parsers, run=run, opens_store=False)

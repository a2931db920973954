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
from liveagent_memory.cli.output import emit_json
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config


def display_available() -> bool:
    """Whether a window can be shown (no display: `liveagent-memory` prints the status)."""
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def window_size(text: str) -> tuple[int, int]:
    """`--size WxH`: a window at least the app's minimum (argparse's usage error otherwise)."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1280x800 (width x height)")
    size = (int(width), int(height))
    min_w, min_h = config.WINDOW_MIN_SIZE
    if size[0] < min_w or size[1] < min_h:
        raise argparse.ArgumentTypeError(
            f"{text} is smaller than the window's minimum, {min_w}x{min_h}"
        )
    if max(size) > config.SCREENSHOT_MAX_SIDE:
        raise argparse.ArgumentTypeError(
            f"{text} is too large: at most {config.SCREENSHOT_MAX_SIDE} pixels a side"
        )
    return size


def add_parsers(add: AddParser) -> None:
    """Register `app` and `screenshots`."""
    add("app", "open the desktop app (the default when a display is available)")
    p = add("screenshots", "render the app's pages to PNG files (works without a display)")
    p.add_argument("outdir", type=Path)
    p.add_argument(
        "--lang", choices=("en", "zh_CN"), help="language of the labels (default: settings/system)"
    )
    width, height = config.SCREENSHOT_SIZE
    p.add_argument(
        "--size",
        type=window_size,
        default=config.SCREENSHOT_SIZE,
        metavar="WxH",
        help=f"window size in pixels (default: {width}x{height})",
    )
    p.add_argument(
        "--states",
        action="store_true",
        help="also picture the states a reviewer checks (selection, review mode, editor error, "
        "history diff, review queue, compare, quota levels, About)",
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Open the app on the context's home, or render its pages to PNG files."""
    # Qt is loaded only now.
    from liveagent_memory.ui.app import run_app, run_screenshots

    if args.command == "app":
        return run_app(context.home)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    shots = run_screenshots(
        context.home, args.outdir, language=args.lang, size=args.size, states=args.states
    )
    if getattr(args, "json", False):
        missing = [{"file": name, "reason": why} for name, why in shots.missing]
        emit_json({"files": [str(path) for path in shots.written], "missing": missing}, streams.out)
        return 0
    for path in shots.written:
        streams.out.write(f"{path}\n")
    for name, why in shots.missing:
        streams.out.write(f"not written: {name}: {why}\n")
    return 0


# The app opens its store itself, on its own worker thread.
GROUP = Group(commands=("app", "screenshots"), add_parsers=add_parsers, run=run, opens_store=False)

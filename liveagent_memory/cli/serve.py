"""`liveagent-memory serve`: the local web bridge and the organizer scheduler, headless.

A composition root like the rest of the CLI: the run's AppContext (one-shot, so runs created
through the bridge are queued) serves the bridge; a second context of the same home executes
the runs the scheduler claims (web/headless.py).
"""

from __future__ import annotations

import argparse
import asyncio

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.parser import UsageError
from liveagent_memory.context import AppContext
from liveagent_memory.domain import web_config
from liveagent_memory.settings import MAX_PORT
from liveagent_memory.web.guard import check_bind


def add_parsers(add: AddParser) -> None:
    """Register `serve`."""
    p = add("serve", "run the local web bridge and the organizer without a window")
    p.add_argument(
        "--port",
        type=int,
        default=web_config.BRIDGE_DEFAULT_PORT,
        help=f"port to listen on (default {web_config.BRIDGE_DEFAULT_PORT}; 0: any free port)",
    )
    p.add_argument(
        "--host",
        default=web_config.BRIDGE_DEFAULT_HOST,
        help=f"address to bind (default {web_config.BRIDGE_DEFAULT_HOST}, this machine only)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (the token is then all that protects it)",
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Serve until SIGINT/SIGTERM; exit 0 after a clean stop."""
    # Imported here, as `mcp` imports its server: aiohttp's web server is for this command only.
    from liveagent_memory.web.headless import ServeOptions, serve

    if not 0 <= args.port <= MAX_PORT:
        raise UsageError(f"--port must be 0 … {MAX_PORT}, not {args.port}")
    check_bind(args.host, allow_remote=args.allow_remote)
    options = ServeOptions(host=args.host, port=args.port, allow_remote=args.allow_remote)
    with AppContext.open(context.home, clock=context.clock, secrets=context.secrets) as runner:
        asyncio.run(serve(context, runner, options, streams.out))
    return 0


GROUP = Group(
    commands=("serve",), add_parsers=add_parsers, run=run, opens_store=False, executes_runs=False
)

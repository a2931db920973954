"""`liveagent-memory mcp`: the MCP server for any MCP client (Claude, Cursor, VS Code, …).

The composition root of the server: the run's AppContext (store opened, never running the
organizer) goes to `McpMemory` with the workdir and the permission; stdio by default,
streamable HTTP with `--http HOST:PORT` (a non-loopback host gets a bearer token, printed once
on stderr).
"""

from __future__ import annotations

import argparse
import asyncio

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.context import AppContext


def add_parsers(add: AddParser) -> None:
    """Register `mcp`."""
    p = add("mcp", "serve this memory to MCP clients (stdio, or streamable HTTP with --http)")
    p.add_argument(
        "--read-write",
        action="store_true",
        help="also offer write, update and delete (saved unreviewed for you to review)",
    )
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP instead of stdio; a non-loopback host needs the printed token",
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Serve until the client leaves (stdio) or the process is stopped (HTTP)."""
    # Imported here: the MCP SDK takes about half a second to import, which every other
    # command and the app's start (`liveagent-memory` with no arguments) would wait for.
    from liveagent_memory.mcp_server.memory import McpMemory
    from liveagent_memory.mcp_server.server import (
        StoreWorker,
        build_server,
        parse_address,
        serve_http,
        serve_stdio,
    )

    address = parse_address(args.http) if args.http else None
    memory = McpMemory(
        context, workdir=getattr(args, "workdir", None), writable=bool(args.read_write)
    )
    worker = StoreWorker()
    # The app's Web and agents page lists the MCP servers running now: this one's record.
    presence = context.store.presence_record(
        transport="stdio" if address is None else "http", workdir=memory.workdir
    )
    presence.start()
    server = build_server(memory, worker, presence)
    try:
        if address is None:
            asyncio.run(serve_stdio(server))
        else:
            asyncio.run(serve_http(server, address, streams.err))
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a person stops an HTTP server: not an error
    finally:
        worker.close()
        presence.stop()
    return 0


GROUP = Group(commands=("mcp",), add_parsers=add_parsers, run=run, executes_runs=False)

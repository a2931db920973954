"""The real `liveagent-memory mcp` as a subprocess, driven by the official SDK's own client.

`mcp_stdio` starts the server over stdio; `mcp_http` starts it on streamable HTTP and returns
its address and the bearer token it printed (None on loopback); `http_client` connects to it
with or without that token. `ask` calls the MemoryManager tool and splits its answer into what
the model reads, the scope and project it resolved to, and the JSON body.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

# A subprocess server must not reach the machine's keyring (there is none on CI; a real one
# would hand it keys).
SERVER_ENV = {"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
START_WAIT_S = 30.0  # process start with the store open: seconds on a busy 2-core box
_RESOLVED = re.compile(r"\A\[resolved: (\{.*?\})\]\n", re.S)


def server_argv(home: Path, *argv: str) -> list[str]:
    """`python -m liveagent_memory --home HOME --create ARGV…` (ARGV names `mcp` itself)."""
    return [sys.executable, "-m", "liveagent_memory", "--home", str(home), "--create", *argv]


@asynccontextmanager
async def mcp_stdio(home: Path, *argv: str) -> AsyncIterator[Client]:
    """A client of `liveagent-memory … ARGV` over stdio (ARGV e.g. "--workdir", W, "mcp")."""
    command, *args = server_argv(home, *argv)
    params = StdioServerParameters(command=command, args=args, env=SERVER_ENV)
    async with Client(params) as client:
        yield client


@dataclass(frozen=True)
class HttpServer:
    """A running HTTP server: its endpoint and the token it printed (None: loopback)."""

    url: str
    token: str | None
    process: subprocess.Popen[str]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def mcp_http(home: Path, host: str, *argv: str) -> Iterator[HttpServer]:
    """`liveagent-memory … mcp --http HOST:PORT ARGV…` until the block ends; reached on
    127.0.0.1 (a wildcard host listens there too)."""
    port = free_port()
    cmd = server_argv(home, "mcp", "--http", f"{host}:{port}", *argv)
    process = subprocess.Popen(
        cmd, stderr=subprocess.PIPE, text=True, env={**os.environ, **SERVER_ENV}
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith("MCP server on http://"), first
        token = None
        if host not in ("127.0.0.1", "localhost", "::1"):
            line = process.stderr.readline()
            assert line.startswith("bearer token (shown once): "), line
            token = line.split(": ", 1)[1].strip()
        _wait_listening(port, process)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", token, process)
    finally:
        process.terminate()
        process.wait(timeout=START_WAIT_S)


def _wait_listening(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server ended before it listened"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listened on port {port} after {START_WAIT_S}s")


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """A client of the HTTP server, sending `Authorization: Bearer TOKEN` when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


@dataclass(frozen=True)
class Answer:
    """A MemoryManager answer: ok or a tool error, where it resolved to, and its JSON body
    (None for action=context, whose answer is Markdown: see `text`)."""

    ok: bool
    resolved: dict[str, Any]
    body: Any
    text: str


async def ask(client: Client, **arguments: Any) -> Answer:
    """Call MemoryManager with `arguments`."""
    result = await client.call_tool("MemoryManager", arguments)
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    structured = result.structured_content
    assert isinstance(structured, dict)
    if result.is_error:
        error = json.loads(block.text)
        return Answer(False, error.pop("resolved"), error, block.text)
    match = _RESOLVED.match(block.text)
    assert match, block.text
    rest = block.text[match.end() :]
    assert json.loads(match.group(1)) == structured["resolved"]
    try:
        body: Any = json.loads(rest)
    except ValueError:
        body = None
    return Answer(True, structured["resolved"], body, rest)

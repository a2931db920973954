"""The protocol side of the MCP server: the official SDK's low-level `Server` over `McpMemory`.

The low-level server takes the tool's JSON schema as it is (the high-level `MCPServer` would
derive one from a Python signature: a second copy of the MemoryManager's). Every store call runs
on one worker thread, in order, like the app's store worker: the loop keeps serving while a
search runs, and the store is never entered from two threads at once.

Transports: stdio (the default), or streamable HTTP at `MCP_HTTP_PATH`. HTTP on a loopback host
needs no token (the SDK then also checks the Host and Origin headers against DNS rebinding); on
any other host a bearer token is required: made at start, shown once, checked on every request
(401 without it).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TextIO, TypeVar

import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from liveagent_memory import __version__
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.mcp_server.memory import INDEX_URI, PROMPTS, McpMemory
from liveagent_memory.prompts import mcp as text

T = TypeVar("T")
SERVER_NAME = "liveagent-memory"
Ctx = ServerRequestContext[Any]
# JSON-RPC's "invalid params": a resource or prompt asked for wrongly; the typed error's code,
# message and hints travel in the error's data.
_INVALID_PARAMS = -32602


@dataclass(frozen=True)
class HttpAddress:
    """Where the HTTP transport listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return self.host in config.MCP_LOOPBACK_HOSTS

    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{config.MCP_HTTP_PATH}"


def parse_address(value: str) -> HttpAddress:
    """`HOST:PORT` (`[::1]:PORT` for IPv6) as an address; `invalid_argument` otherwise."""
    host, sep, port = value.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidArgument(
            f"--http wants HOST:PORT, e.g. 127.0.0.1:8765 (got {value!r})", field="http"
        )
    return HttpAddress(host, int(port))


class StoreWorker:
    """One thread that runs every store call in order."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-store")

    async def run(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _protocol_error(exc: MemoryDomainError) -> MCPError:
    return MCPError(_INVALID_PARAMS, exc.message, exc.to_dict())


class Presence(Protocol):
    """This server's record of its client for the app's list of running agents (the
    store's `presence_record`: store/presence.py)."""

    def saw(self, client: str, version: str, *, call: bool) -> None: ...


def _presence_hook(
    presence: Presence | None, worker: StoreWorker
) -> Callable[..., Awaitable[None]]:
    """What each request handler awaits first: `seen(ctx, call=…)` notes the client."""

    async def seen(ctx: Ctx, *, call: bool) -> None:
        if presence is None:
            return
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        name, version = (info.name, info.version) if info is not None else ("", "")
        await worker.run(lambda: presence.saw(name, version, call=call))

    return seen


def _prompt_list() -> types.ListPromptsResult:
    prompts = [
        types.Prompt(
            name=p.name,
            description=p.description,
            arguments=[
                types.PromptArgument(
                    name=p.argument, description=p.argument_description, required=True
                )
            ],
        )
        for p in PROMPTS
    ]
    return types.ListPromptsResult(prompts=prompts)


def build_server(
    memory: McpMemory, worker: StoreWorker, presence: Presence | None = None
) -> Server[Any]:
    """The SDK server: one tool, the index and the memories as resources, two prompts.
    With `presence`, every request notes the client (by the name it gave when it connected)
    and the ones that use memory count as calls."""

    seen = _presence_hook(presence, worker)

    async def list_tools(ctx: Ctx, _params: types.PaginatedRequestParams | None) -> Any:
        await seen(ctx, call=False)
        return types.ListToolsResult(tools=[types.Tool(**memory.tool())])

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> Any:
        await seen(ctx, call=True)
        reply = await worker.run(lambda: memory.call(params.name, params.arguments))
        return types.CallToolResult(
            content=[types.TextContent(text=reply.text)],
            structured_content=reply.structured,
            is_error=not reply.ok,
        )

    async def list_resources(ctx: Ctx, _params: types.PaginatedRequestParams | None) -> Any:
        await seen(ctx, call=False)
        found = await worker.run(memory.resources)
        index = types.Resource(
            uri=INDEX_URI,
            name=text.INDEX_NAME,
            description=text.INDEX_DESCRIPTION,
            mime_type="text/markdown",
        )
        memories = [
            types.Resource(
                uri=r.uri, name=r.name, description=r.description, mime_type="text/markdown"
            )
            for r in found
        ]
        return types.ListResourcesResult(resources=[index, *memories])

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> Any:
        await seen(ctx, call=True)
        try:
            body = await worker.run(lambda: memory.read(str(params.uri)))
        except MemoryDomainError as exc:
            raise _protocol_error(exc) from None
        contents = types.TextResourceContents(
            uri=str(params.uri), text=body, mime_type="text/markdown"
        )
        return types.ReadResourceResult(contents=[contents])

    async def list_prompts(ctx: Ctx, _params: types.PaginatedRequestParams | None) -> Any:
        await seen(ctx, call=False)
        return _prompt_list()

    async def get_prompt(ctx: Ctx, params: types.GetPromptRequestParams) -> Any:
        await seen(ctx, call=True)
        try:
            body = memory.prompt(params.name, params.arguments)
        except MemoryDomainError as exc:
            raise _protocol_error(exc) from None
        message = types.PromptMessage(role="user", content=types.TextContent(text=body))
        return types.GetPromptResult(messages=[message])

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=text.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on this process's stdin and stdout until it closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class BearerGate:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <token>` gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            refusal = JSONResponse(
                {"error": "unauthorized", "message": "a bearer token is required"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        return hmac.compare_digest(given, self._expected)  # constant time: no timing oracle


def new_token() -> str:
    """A fresh bearer token (MCP_TOKEN_BYTES random bytes, URL-safe)."""
    return secrets.token_urlsafe(config.MCP_TOKEN_BYTES)


async def serve_http(server: Server[Any], address: HttpAddress, announce: TextIO) -> None:
    """Serve streamable HTTP at `address`; off loopback, behind a new bearer token that is
    written once to `announce` with the address."""
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=config.MCP_HTTP_PATH,
        host=address.host,
        max_request_body_size=config.MCP_MAX_REQUEST_BYTES,
    )
    announce.write(f"MCP server on {address.url()}\n")
    if not address.loopback:
        token = new_token()
        app = BearerGate(app, token)
        announce.write(f"bearer token (shown once): {token}\n")
    announce.flush()
    settings = uvicorn.Config(app, host=address.host, port=address.port, log_level="warning")
    await uvicorn.Server(settings).serve()

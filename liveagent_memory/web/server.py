"""The bridge's HTTP routes over the named-command table, on the caller's asyncio loop.

- `POST /api/memory.manage` `{command, payload, workdir}`: any command of the table (the
  organizer's run commands included) but the person-only ones; the workdir goes into the
  payload of a command that takes one, so a project memory lands in its project.
- `POST /api/context` (`memory_context`), `POST /api/episodes` (`episode_record`: the
  episode itself, or `{episode, replace}`),
  `GET /api/metrics` (`memory_metrics`).

The caller is an agent or a model, never a person: every request runs as BRIDGE_ACTOR, so the
review gate applies (its writes land unreviewed and it cannot accept). Every command runs
through `store_call` (`serve` passes its store worker), so the loop never waits on the store.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from liveagent_memory.commands import dispatch, find_command
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import ActionNotAllowed, InvalidArgument, MemoryDomainError
from liveagent_memory.web.callers import CallerLog
from liveagent_memory.web.errors import BindFailed, RequestTooLarge, RouteNotFound, http_status
from liveagent_memory.web.guard import Guard

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Payload = dict[str, Any]


def error_response(exc: MemoryDomainError) -> web.Response:
    """A typed error as the command layer's JSON shape, with its HTTP status."""
    return web.json_response(exc.to_dict(), status=http_status(exc))


def manage_payload(command: str, payload: Any, workdir: Any, *, now_ms: int) -> tuple[str, Payload]:
    """The command's name and its payload as the bridge runs it: the workdir added where the
    command takes one, the actor set to BRIDGE_ACTOR, a new organizer run queued (due at
    `now_ms` unless the caller said when). Person-only commands are refused."""
    found = find_command(command)
    if found.name in config.BRIDGE_PERSON_ONLY_COMMANDS:
        raise ActionNotAllowed(
            f"{found.name} is for a person in the app or the command line, not the web bridge"
        )
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        raise InvalidArgument("payload must be a JSON object", field="payload")
    if workdir is not None and not isinstance(workdir, str):
        raise InvalidArgument("workdir must be a folder path", field="workdir")
    refuse_providers(payload)
    fields = found.request.model_fields
    out = dict(payload)
    if workdir is not None and "workdir" in fields:
        if out.get("workdir", workdir) != workdir:
            raise InvalidArgument(
                "the request's workdir and the payload's differ; send one", field="workdir"
            )
        out["workdir"] = workdir
    if "actor" in fields:
        out["actor"] = config.BRIDGE_ACTOR
    if found.name == "organize_run_create":
        # The bridge never runs the pipeline: a run it created as running would have nobody
        # to run it. Pending, the app or `serve` claims it within ORGANIZE_PENDING_POLL_MS.
        out.setdefault("due_at", now_ms)
    return found.name, out


def refuse_providers(payload: Payload) -> None:
    """A caller may not choose the embedding providers: a provider names where to send a text
    and which key goes with it (the keyring's, or the provider's environment variable), so a
    caller's `api_base` would receive the person's key. The bridge uses the settings' chain."""
    if payload.get("providers") is not None:
        raise ActionNotAllowed(
            "the bridge embeds with the providers of the app's settings; a caller cannot "
            "choose them (a provider's address would receive your API key): leave out "
            "`providers`",
            field="providers",
        )


async def read_object(request: web.Request) -> Payload:
    """The request's JSON object body (RequestTooLarge past the limit, else InvalidArgument)."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large() from None
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise InvalidArgument("the request body is not JSON", field="body") from None
    if not isinstance(body, dict):
        raise InvalidArgument("the request body must be a JSON object", field="body")
    return body


def _too_large() -> RequestTooLarge:
    return RequestTooLarge(
        f"the request is larger than {config.BRIDGE_MAX_REQUEST_BYTES} bytes", field="body"
    )


ROUTES = (
    "the bridge answers POST /api/memory.manage, POST /api/context, POST /api/episodes and "
    "GET /api/metrics"
)


class BridgeServer:
    """The bridge on one AppContext: `start` binds it, `aclose` stops it."""

    def __init__(self, context: AppContext, guard: Guard, *, store_call: SyncCall = call_here):
        self._context = context
        self.guard = guard
        self._store_call = store_call
        self._runner: web.AppRunner | None = None
        self.callers = CallerLog(context.clock)  # who it answered lately (web/callers.py)
        self.app = web.Application(
            client_max_size=config.BRIDGE_MAX_REQUEST_BYTES, middlewares=[self._protect]
        )
        self.app.router.add_post("/api/memory.manage", self._manage)
        self.app.router.add_post("/api/context", self._context_route)
        self.app.router.add_post("/api/episodes", self._episodes)
        self.app.router.add_get("/api/metrics", self._metrics)

    @property
    def address(self) -> str:
        host = self.guard.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.guard.port}/"

    async def start(self) -> str:
        """Bind to the guard's host and port (0: a free one) and return the address."""
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.guard.host, self.guard.port)
        try:
            await site.start()
        except OSError as exc:
            await self.aclose()
            raise BindFailed(
                f"cannot listen on {self.guard.host}:{self.guard.port}: {exc.strerror or exc} "
                "(is another bridge running? choose another --port)",
                field="port",
            ) from None
        if self.guard.port == 0:  # the system chose one: the guard checks Host against it
            self.guard.port = int(self._runner.addresses[0][1])
        return self.address

    async def aclose(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _protect(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            self.guard.check(request.headers)
            if (request.content_length or 0) > config.BRIDGE_MAX_REQUEST_BYTES:
                raise _too_large()
            self.callers.saw(request.headers.get("User-Agent"), request.path)
            return await handler(request)
        except MemoryDomainError as exc:
            return error_response(exc)
        except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
            # A client reads JSON from every answer, a wrong path or method included.
            return error_response(
                RouteNotFound(f"no route {request.method} {request.path}; {ROUTES}")
            )

    async def _run(self, name: str, payload: Payload) -> web.Response:
        result = await self._store_call(dispatch, self._context, name, payload)
        return web.json_response(result)

    async def _manage(self, request: web.Request) -> web.Response:
        body = await read_object(request)
        command = body.get("command")
        if not isinstance(command, str):
            raise InvalidArgument("command must name a command (see `liveagent-memory commands`)")
        name, payload = manage_payload(
            command, body.get("payload"), body.get("workdir"), now_ms=self._context.clock()
        )
        return await self._run(name, payload)

    async def _context_route(self, request: web.Request) -> web.Response:
        body = await read_object(request)
        refuse_providers(body)
        return await self._run("memory_context", body)

    async def _episodes(self, request: web.Request) -> web.Response:
        body = await read_object(request)
        # The episode itself (a trace file as it is) or `episode_record`'s {episode, replace}.
        return await self._run("episode_record", body if "episode" in body else {"episode": body})

    async def _metrics(self, request: web.Request) -> web.Response:
        # A GET only reads: resetting the counts is `memory_metrics {"reset": true}` through
        # memory.manage, a POST.
        return await self._run("memory_metrics", {})

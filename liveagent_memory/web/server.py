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

The web panel (`/`, `/static/*`, `/panel/*`: web/panel.py) is a person's page on the same
server: its routes are admitted by a session the panel key opened, not by the bearer token.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import web_config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.web.callers import CallerLog
from liveagent_memory.web.errors import BindFailed, RouteNotFound, http_status
from liveagent_memory.web.guard import Guard
from liveagent_memory.web.panel import Panel, is_panel_path, secure
from liveagent_memory.web.payloads import (
    Payload,
    manage_payload,
    read_object,
    refuse_providers,
    too_large,
)

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_response(exc: MemoryDomainError) -> web.Response:
    """A typed error as the command layer's JSON shape, with its HTTP status."""
    return web.json_response(exc.to_dict(), status=http_status(exc))


ROUTES = (
    "the bridge answers POST /api/memory.manage, POST /api/context, POST /api/episodes and "
    "GET /api/metrics (with the bearer token), and the web panel at GET / (a person's session)"
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
            client_max_size=web_config.BRIDGE_MAX_REQUEST_BYTES, middlewares=[self._protect]
        )
        self.app.router.add_post("/api/memory.manage", self._manage)
        self.app.router.add_post("/api/context", self._context_route)
        self.app.router.add_post("/api/episodes", self._episodes)
        self.app.router.add_get("/api/metrics", self._metrics)
        self.panel = Panel(context, guard, store_call)  # the person's page (web/panel.py)
        self.panel.add_routes(self.app)

    @property
    def address(self) -> str:
        host = self.guard.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.guard.port}/"

    @property
    def panel_url(self) -> str:
        """The web panel's link: the address with this start's panel key (it opens a session
        and leaves the address bar at once)."""
        return f"{self.address}?key={self.guard.panel.key}"

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
        await self.panel.aclose()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _protect(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        panel = is_panel_path(request.path)
        response = await self._answer(request, handler, panel=panel)
        if panel and not response.prepared:  # a WebSocket has sent its headers already
            secure(response, request.host)
        return response

    async def _answer(
        self, request: web.Request, handler: Handler, *, panel: bool
    ) -> web.StreamResponse:
        try:
            if panel:
                self.panel.check(request)  # a person's session (web/guard.py)
            else:
                self.guard.check(request.headers)  # an agent's bearer token
            if (request.content_length or 0) > web_config.BRIDGE_MAX_REQUEST_BYTES:
                raise too_large()
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

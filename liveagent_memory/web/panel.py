"""The web panel the bridge serves: a person's page over the same commands (issue 16).

- `GET /?key=K`: the panel key (web/guard.py `PanelSessions`) opens a session and answers
  `303 See Other` to `/` with the session cookie, so the key leaves the address bar. `GET /`
  with a live session serves the panel (`static/index.html`); without one, a small page (401)
  says how to open it (`static/login.html`).
- `GET /static/<file>`: the page's script and stylesheet (no memory in them).
- `POST /panel/api/call` `{command, payload, workdir}`: one of PANEL_COMMANDS, run as the
  person (PANEL_ACTOR); the workdir goes in as for `memory.manage` (server.py
  `command_payload`); "Run now" is queued pending for the app or `serve` to claim.
- `GET /panel/ws`: a WebSocket pushing `{"type": "runs", "runs": [...]}` (the newest
  PANEL_RUNS_PUSHED runs) whenever they change, read from the store every
  PANEL_PROGRESS_POLL_MS: the runner may be another process, so the store is the truth.

Who may call which route is guard.py's (`check_page`, `check_panel`); every panel answer
carries the headers of `secure` (no caching, a strict Content-Security-Policy, no framing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from importlib import resources
from typing import Any

from aiohttp import WSCloseCode, web

from liveagent_memory.commands import dispatch, find_command
from liveagent_memory.context import AppContext
from liveagent_memory.domain import web_config
from liveagent_memory.domain.calls import SyncCall
from liveagent_memory.domain.errors import ActionNotAllowed, MemoryDomainError, SettingsInvalid
from liveagent_memory.web.guard import Guard
from liveagent_memory.web.payloads import Payload, command_payload, read_object

log = logging.getLogger(__name__)

STATIC_PREFIX = "/static/"
API_PREFIX = "/panel/"
# The files `GET /static/<name>` serves, with their types: nothing else is reachable.
STATIC_FILES = {"panel.js": "text/javascript", "panel.css": "text/css"}


def static_text(name: str) -> str:
    """One file of the panel, as the installed package holds it (web/static/)."""
    return resources.files("liveagent_memory.web").joinpath("static", name).read_text("utf-8")


def is_panel_path(path: str) -> bool:
    """Whether `path` is the panel's (its page, files, calls) rather than the agents' API."""
    return path == "/" or path.startswith((STATIC_PREFIX, API_PREFIX))


def panel_payload(command: Any, payload: Any, workdir: Any, *, now_ms: int) -> tuple[str, Payload]:
    """A panel call's command and payload: one of PANEL_COMMANDS, run as PANEL_ACTOR."""
    if not isinstance(command, str) or command not in web_config.PANEL_COMMANDS:
        raise ActionNotAllowed(
            f"the web panel does not run {command!r}; "
            f"it runs {', '.join(web_config.PANEL_COMMANDS)}",
            field="command",
        )
    found = find_command(command)
    out = command_payload(found, payload, workdir, actor=web_config.PANEL_ACTOR, now_ms=now_ms)
    return found.name, out


def secure(response: web.StreamResponse, host: str) -> None:
    """The panel's headers: never cached (memories are private), scripts and connections to
    the bridge itself only, no framing, no referrer."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self' ws://{host}; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"


class Panel:
    """The panel's routes on one bridge: `add_routes` registers them, `aclose` closes sockets."""

    def __init__(self, context: AppContext, guard: Guard, store_call: SyncCall) -> None:
        self._context = context
        self._guard = guard
        self._store_call = store_call
        self._sockets: set[web.WebSocketResponse] = set()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._index)
        app.router.add_get(STATIC_PREFIX + "{name}", self._static)
        app.router.add_post(API_PREFIX + "api/call", self._call)
        app.router.add_get(API_PREFIX + "ws", self._socket)

    def check(self, request: web.Request) -> None:
        """The guard's rule for this panel request: a page or file, or a call or socket."""
        if request.path.startswith(API_PREFIX):
            session = request.cookies.get(web_config.PANEL_SESSION_COOKIE)
            self._guard.check_panel(request.headers, session)
        else:
            self._guard.check_page(request.headers)

    async def aclose(self) -> None:
        """Close every open WebSocket (the page reconnects to the next bridge)."""
        for socket in list(self._sockets):
            await socket.close(code=WSCloseCode.GOING_AWAY, message=b"bridge stopping")

    # --- the page ---------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.Response:
        key = request.query.get("key")
        if key is not None:
            try:
                session = self._guard.panel.open(key)
            except MemoryDomainError:
                return self._login()
            # 303: the browser asks for `/` again, so the key leaves the address bar.
            answer = web.Response(status=303, headers={"Location": "/"})
            answer.set_cookie(
                web_config.PANEL_SESSION_COOKIE, session, httponly=True, samesite="Strict", path="/"
            )
            return answer
        if not self._guard.panel.valid(request.cookies.get(web_config.PANEL_SESSION_COOKIE)):
            return self._login()
        page = static_text("index.html")
        page = page.replace("{{poll_ms}}", str(web_config.PANEL_PROGRESS_POLL_MS))
        page = page.replace("{{unclaimed_ms}}", str(web_config.PANEL_UNCLAIMED_NOTICE_MS))
        return web.Response(text=page, content_type="text/html")

    def _login(self) -> web.Response:
        return web.Response(text=static_text("login.html"), content_type="text/html", status=401)

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC_FILES:
            raise web.HTTPNotFound()
        return web.Response(text=static_text(name), content_type=STATIC_FILES[name])

    # --- calls ------------------------------------------------------------------------------
    async def _call(self, request: web.Request) -> web.Response:
        body = await read_object(request)
        name, payload = panel_payload(
            body.get("command"),
            body.get("payload"),
            body.get("workdir"),
            now_ms=self._context.clock(),
        )
        if name == "organize_run_create":
            for field, value in (await self._store_call(self._run_defaults)).items():
                payload.setdefault(field, value)
        result = await self._store_call(dispatch, self._context, name, payload)
        return web.json_response(result)

    def _run_defaults(self) -> dict[str, str]:
        """A "Run now"'s scope and mode: the organizer settings', as the app's Run now."""
        try:
            organizer = self._context.settings.current().organizer
        except SettingsInvalid as exc:
            # The run still goes: the command's own defaults (all scopes, conservative).
            log.warning("organizer settings unreadable for a panel run: %s", exc.message)
            return {}
        return {"scope": organizer.scope, "mode": organizer.mode}

    # --- live progress ----------------------------------------------------------------------
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.add(socket)
        pusher = asyncio.create_task(self._push_runs(socket))
        try:
            async for _message in socket:
                pass  # the page sends nothing; reading is how a close is noticed
        finally:
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pusher
            self._sockets.discard(socket)
        return socket

    async def _push_runs(self, socket: web.WebSocketResponse) -> None:
        last: dict[str, Any] | None = None
        while not socket.closed:
            message = await self._runs_message()
            if message != last:
                try:
                    await socket.send_json(message)
                except ConnectionError:
                    return  # the page went away between two reads
                last = message
            await asyncio.sleep(web_config.PANEL_PROGRESS_POLL_MS / 1000)

    async def _runs_message(self) -> dict[str, Any]:
        try:
            listing = await self._store_call(
                dispatch,
                self._context,
                "organize_run_list",
                {"limit": web_config.PANEL_RUNS_PUSHED},
            )
        except MemoryDomainError as exc:
            # A busy or closed store is said on the page; the next read may succeed.
            return {"type": "error", **exc.to_dict()}
        return {"type": "runs", "runs": listing["runs"]}

"""A real HTTP client of the web bridge (aiohttp's), for the bridge's tests.

`BridgeClient` sends JSON to a running bridge with its token (or the headers a test chooses)
and returns (status, JSON answer); `manage` is `POST /api/memory.manage`. `PanelClient` is a
browser's side of the web panel: its key, its session cookie, its own Origin.
"""

from __future__ import annotations

from typing import Any

import aiohttp

from liveagent_memory.domain import web_config

Answer = tuple[int, Any]


class BridgeClient:
    """Requests to the bridge at `address` (`http://127.0.0.1:PORT/`) with `token`."""

    def __init__(self, session: aiohttp.ClientSession, address: str, token: str) -> None:
        self.session = session
        self.address = address
        self.token = token

    def headers(self, **extra: str) -> dict[str, str]:
        """The token's Authorization header, plus `extra` (e.g. Origin, Host)."""
        return {"Authorization": f"Bearer {self.token}", **extra}

    async def post(
        self, path: str, body: Any = None, *, headers: dict[str, str] | None = None
    ) -> Answer:
        async with self.session.post(
            self.address + path,
            json=body,
            headers=self.headers() if headers is None else headers,
        ) as response:
            return response.status, await response.json()

    async def post_raw(self, path: str, data: bytes) -> Answer:
        async with self.session.post(
            self.address + path, data=data, headers=self.headers()
        ) as response:
            return response.status, await response.json()

    async def get(self, path: str, *, headers: dict[str, str] | None = None) -> Answer:
        async with self.session.get(
            self.address + path, headers=self.headers() if headers is None else headers
        ) as response:
            return response.status, await response.json()

    async def manage(
        self, command: str, payload: dict[str, Any] | None = None, workdir: str | None = None
    ) -> Answer:
        """`POST /api/memory.manage {command, payload, workdir}`."""
        body: dict[str, Any] = {"command": command, "payload": payload or {}}
        if workdir is not None:
            body["workdir"] = workdir
        return await self.post("api/memory.manage", body)


class PanelClient:
    """A browser's requests to the web panel, as HTTP: the panel key opens a session (its
    cookie sent by hand, so a test sees exactly what is sent), calls carry the bridge's own
    Origin like the panel's page does."""

    def __init__(self, session: aiohttp.ClientSession, address: str, key: str) -> None:
        self.session = session
        self.address = address
        self.key = key
        self.cookie = ""  # the session id, once `open` got one
        self.origin = address.rstrip("/")

    async def open(self, key: str | None = None) -> aiohttp.ClientResponse:
        """`GET /?key=…` (the panel's link) without following the redirect; keeps the
        session cookie it set, if any."""
        params = {"key": self.key if key is None else key}
        async with self.session.get(self.address, params=params, allow_redirects=False) as answer:
            await answer.read()
            morsel = answer.cookies.get(web_config.PANEL_SESSION_COOKIE)
            if morsel is not None:
                self.cookie = morsel.value
            return answer

    def headers(self, **extra: str) -> dict[str, str]:
        """The session cookie and the bridge's own Origin, plus `extra` (which may replace them)."""
        headers = {"Origin": self.origin, **extra}
        if self.cookie:
            headers.setdefault("Cookie", f"{web_config.PANEL_SESSION_COOKIE}={self.cookie}")
        return headers

    async def call(
        self,
        command: str,
        payload: dict[str, Any] | None = None,
        workdir: str | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """`POST /panel/api/call {command, payload, workdir}`."""
        body: dict[str, Any] = {"command": command, "payload": payload or {}}
        if workdir is not None:
            body["workdir"] = workdir
        async with self.session.post(
            self.address + "panel/api/call",
            json=body,
            headers=self.headers() if headers is None else headers,
        ) as response:
            return response.status, await response.json()

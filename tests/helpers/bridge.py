"""A real HTTP client of the web bridge (aiohttp's), for the bridge's tests.

`BridgeClient` sends JSON to a running bridge with its token (or the headers a test chooses)
and returns (status, JSON answer); `manage` is `POST /api/memory.manage`.
"""

from __future__ import annotations

from typing import Any

import aiohttp

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

"""The local web bridge inside the desktop app, on the app's one loop (issue 16).

The same `BridgeServer` as `liveagent-memory serve` (web/server.py), on the window's
AppContext: its commands run on the app's store worker (`Bridge.run_store`), so the loop keeps
painting while a request reads the store, and an organizer run queued through it is claimed by
the app's own OrganizerService poll. The token is `serve`'s (web/tokens.py `bridge_token`: the
keyring's `front_end_token`, or one for this run only without a keyring). Nothing here is Qt:
the "Web and agents" page (ui/pages/web.py) shows the state and drives it. aiohttp's server is
imported when the bridge starts: the window paints without it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from liveagent_memory.context import AppContext
from liveagent_memory.domain import web_config
from liveagent_memory.domain.errors import KeyringUnavailable, MemoryDomainError
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.web.callers import Caller
from liveagent_memory.web.guard import Guard, new_token
from liveagent_memory.web.tokens import Token, bridge_token

if TYPE_CHECKING:  # aiohttp's server is imported when the bridge starts, not with the window
    from liveagent_memory.web.server import BridgeServer


class BridgeState(StrEnum):
    OFF = "off"
    STARTING = "starting"
    ON = "on"
    FAILED = "failed"


class WebBridgeService:
    """Start, stop and re-key the app's bridge; what it is doing and who called it."""

    def __init__(self, context: AppContext, bridge: Bridge) -> None:
        self._context = context
        self._bridge = bridge
        self.state = BridgeState.OFF
        self.address = ""
        self.failure: MemoryDomainError | None = None
        self.token: Token | None = None
        self.keyring_missing = False  # the last keyring read found no secure keyring
        self._looked = False  # the keyring was read once: a page refresh does not read it again
        self._server: BridgeServer | None = None

    async def read_token(self) -> Token | None:
        """The token the keyring keeps, if any (read once, on the store worker: it may
        block). Nothing is written: opening the app makes no token."""
        if self.token is None and not self._looked:
            self._looked = True
            try:
                value = await self._bridge.run_store(
                    self._context.secrets.front_end_token, web_config.BRIDGE_TOKEN_KEY
                )
            except KeyringUnavailable:
                self.keyring_missing = True
                return None
            if value is not None:
                self.token = Token(value, True, "the token is kept in the system keyring")
        return self.token

    async def load_token(self) -> Token:
        """The token to serve with: the kept one, else a new one (kept in the keyring when
        there is one; `serve`'s rule, web/tokens.py `bridge_token`)."""
        if self.token is None:
            self.token = await self._bridge.run_store(bridge_token, self._context.secrets)
            self.keyring_missing = not self.token.kept
        return self.token

    async def start(self, port: int) -> str:
        """Listen on loopback at `port` (0: a free one); its address. A port in use is
        BindFailed, kept in `failure` too (state FAILED)."""
        if self._server is not None:
            return self.address
        self.state, self.failure = BridgeState.STARTING, None
        try:
            from liveagent_memory.web.server import BridgeServer  # aiohttp: ~0.2 s to import

            token = await self.load_token()
            guard = Guard(token.value, web_config.BRIDGE_DEFAULT_HOST, port)
            server = BridgeServer(self._context, guard, store_call=self._bridge.run_store)
            self.address = await server.start()
        except MemoryDomainError as exc:
            self.state, self.failure, self.address = BridgeState.FAILED, exc, ""
            raise
        except BaseException:  # a bug (or a cancel): not running, and not a failure to show
            self.state, self.address = BridgeState.OFF, ""
            raise
        self._server, self.state = server, BridgeState.ON
        return self.address

    async def stop(self) -> None:
        """Stop listening (a request in flight is answered first); calling it again is fine."""
        server, self._server = self._server, None
        if server is not None:
            await server.aclose()
        self.state, self.address = BridgeState.OFF, ""

    async def renew_token(self) -> Token:
        """A new token, kept in the keyring (else for this run only); the old one stops
        working at once, on a running bridge too."""
        value = new_token()
        try:
            await self._bridge.run_store(
                self._context.secrets.keep_front_end_token, web_config.BRIDGE_TOKEN_KEY, value
            )
            self.token = Token(value, True, "a new token, kept in the system keyring")
        except KeyringUnavailable:
            self.token = Token(value, False, "no secure keyring: this token lasts for this run")
            self.keyring_missing = True
        if self._server is not None:
            self._server.guard.token = value
        return self.token

    @property
    def panel_url(self) -> str:
        """The web panel's link of the running bridge (its key is new at each start); "" off."""
        return self._server.panel_url if self._server is not None else ""

    def callers(self) -> list[Caller]:
        """The programs the running bridge answered lately, newest first (none when off)."""
        return self._server.callers.recent() if self._server is not None else []

"""The bridge's protection rules, in one place: bind address, Host, Origin, token, rate.

- Bind: loopback only, unless the person asks for another address (`--allow-remote`).
- Host: a request must name the bridge by a loopback name and its port; any other name is a
  page whose own domain resolved to 127.0.0.1 (DNS rebinding) and is refused.
- Origin: a browser names the page that sent a request; only the bridge's own pages may call
  it. A request without Origin comes from a program (an agent, curl), not a page, and passes.
- Token: `Authorization: Bearer <token>`, compared in constant time.
- Rate: one token bucket for every client (they all share one machine and one store).

The web panel (web/panel.py) is a person's page, so its routes have their own rules here too:
- Panel key: a random secret made when the bridge starts, in memory only. `GET /?key=K` with
  it opens a session (a random id in an HttpOnly, SameSite=Strict cookie); an agent that holds
  the bearer token does not hold the key, and the token opens no session.
- Session: the cookie, not the bearer token, admits the panel's routes, until it expires.
- Origin: a panel POST and the WebSocket upgrade must carry the bridge's own Origin (a browser
  always sends one there): with SameSite=Strict, the defence against another site's page.
- Host and rate: as for every route.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from liveagent_memory.domain import web_config
from liveagent_memory.web.errors import (
    ForbiddenRequest,
    RateLimited,
    RemoteBindRefused,
    Unauthorized,
)

_WILDCARDS = ("0.0.0.0", "::", "")


def new_token() -> str:
    """A fresh random bearer token (BRIDGE_TOKEN_BYTES of randomness, URL-safe)."""
    return secrets.token_urlsafe(web_config.BRIDGE_TOKEN_BYTES)


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, allow_remote: bool) -> None:
    """Refuse a bind address other than loopback unless the person asked for one."""
    if not is_loopback(host) and not allow_remote:
        raise RemoteBindRefused(
            f"{host!r} is not a loopback address: other machines could reach your memory. "
            "Bind to 127.0.0.1 (the default), or add --allow-remote if you mean it",
            field="host",
        )


def _name_and_port(authority: str) -> tuple[str, int | None]:
    """`name[:port]` of a Host header (IPv6 in brackets); ValueError when it is not one."""
    parts = urlsplit(f"//{authority}")
    return (parts.hostname or ""), parts.port


@dataclass
class TokenBucket:
    """`rate` requests a second on average, `burst` at once; `take` says whether one may go."""

    rate: float = web_config.BRIDGE_RATE_PER_SECOND
    burst: float = web_config.BRIDGE_RATE_BURST
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(init=False)
    _at: float = field(init=False)

    def __post_init__(self) -> None:
        self._tokens = self.burst
        self._at = self.clock()

    def take(self) -> bool:
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


def same_secret(given: str, secret: str) -> bool:
    """Whether `given` is `secret`, compared in constant time."""
    return hmac.compare_digest(given.encode(), secret.encode())


@dataclass
class PanelSessions:
    """The panel's key and the sessions it opened: in memory only, new at each start."""

    key: str = field(default_factory=new_token)
    lifetime: float = web_config.PANEL_SESSION_SECONDS
    keep: int = web_config.PANEL_SESSIONS_KEPT
    clock: Callable[[], float] = time.monotonic
    _expires: OrderedDict[str, float] = field(init=False, default_factory=OrderedDict)

    def open(self, key: str) -> str:
        """A new session's id for the right key; Unauthorized for any other."""
        if not same_secret(key, self.key):
            raise Unauthorized(
                "this panel link is not the running bridge's (it changes at each start): open "
                "the panel again from the app or the link `liveagent-memory serve` printed",
                field="key",
            )
        session = secrets.token_urlsafe(web_config.BRIDGE_TOKEN_BYTES)
        self._expires[session] = self.clock() + self.lifetime
        while len(self._expires) > self.keep:
            self._expires.popitem(last=False)  # the oldest session goes first
        return session

    def valid(self, session: str | None) -> bool:
        """Whether `session` is a live session of this bridge (an expired one is forgotten)."""
        if not session:
            return False
        for known, expires in list(self._expires.items()):
            if expires <= self.clock():
                del self._expires[known]
            elif same_secret(session, known):
                return True
        return False

    def check(self, session: str | None) -> None:
        if not self.valid(session):
            raise Unauthorized(
                "no panel session: open the panel from the app's Web and agents page (Open web "
                "panel) or the link `liveagent-memory serve` printed",
                field="session",
            )


@dataclass
class Guard:
    """The checks of one running bridge: its token, where it is bound, its rate bucket, the
    panel's key and sessions."""

    token: str
    host: str
    port: int
    allow_remote: bool = False
    bucket: TokenBucket = field(default_factory=TokenBucket)
    panel: PanelSessions = field(default_factory=PanelSessions)

    def names(self) -> set[str] | None:
        """The host names a request may use; None: any (a wildcard bind the person asked for,
        where only the token protects)."""
        if self.allow_remote and self.host in _WILDCARDS:
            return None
        return {name.lower() for name in (*web_config.BRIDGE_LOOPBACK_HOSTS, self.host.strip("[]"))}

    def check(self, headers: Mapping[str, str]) -> None:
        """Every check of one request, in order: Host, Origin, rate, token."""
        self.check_host(headers.get("Host", ""))
        origin = headers.get("Origin")
        if origin is not None:
            self.check_origin(origin)
        self._take()
        self.check_token(headers.get("Authorization", ""))

    def check_page(self, headers: Mapping[str, str]) -> None:
        """A panel page or file a browser opens by its address: Host and rate (a top-level
        navigation may carry no Origin; what it answers depends on the session)."""
        self.check_host(headers.get("Host", ""))
        self._take()

    def check_panel(self, headers: Mapping[str, str], session: str | None) -> None:
        """A panel call or its WebSocket: Host, the bridge's own Origin (required), rate,
        the session cookie. The bearer token does not count here."""
        self.check_host(headers.get("Host", ""))
        origin = headers.get("Origin")
        if origin is None:
            raise ForbiddenRequest(
                "a panel request must come from the panel's page (it carries no Origin)",
                field="Origin",
            )
        self.check_origin(origin)
        self._take()
        self.panel.check(session)

    def _take(self) -> None:
        if not self.bucket.take():
            raise RateLimited("too many requests: wait a moment and try again")

    def _ours(self, name: str, port: int | None) -> bool:
        names = self.names()
        return (names is None or name.lower() in names) and port == self.port

    def check_host(self, host: str) -> None:
        try:
            name, port = _name_and_port(host)
        except ValueError:
            name, port = "", None
        if not self._ours(name, port if port is not None else 80):
            raise ForbiddenRequest(
                f"the Host header {host!r} does not name this bridge (127.0.0.1:{self.port}); "
                "a page of another site cannot reach it",
                field="Host",
            )

    def check_origin(self, origin: str) -> None:
        try:
            parts = urlsplit(origin)
            port = parts.port
        except ValueError:
            parts, port = urlsplit(""), None
        default = 443 if parts.scheme == "https" else 80
        if parts.scheme not in ("http", "https") or not self._ours(
            parts.hostname or "", port if port is not None else default
        ):
            raise ForbiddenRequest(
                f"requests from the page {origin!r} are not allowed: only the bridge's own pages "
                "and programs (no Origin header) may call it",
                field="Origin",
            )

    def check_token(self, authorization: str) -> None:
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise Unauthorized("send the bridge's token as 'Authorization: Bearer <token>'")
        if not same_secret(given.strip(), self.token):
            raise Unauthorized("the bearer token is not this bridge's")

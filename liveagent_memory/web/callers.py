"""Who called the bridge lately: each caller by its User-Agent, with its last request.

HTTP has no "connected" clients: an agent or a page calls when it needs to. What the bridge
can honestly tell is which programs it answered and when last, so that is what it keeps, in
memory only (BRIDGE_CALLERS_KEPT of them, the one silent longest forgotten first). Only
requests that passed every check count: a refused request is no client of this bridge.
"""

from __future__ import annotations

from dataclasses import dataclass

from liveagent_memory.domain import web_config
from liveagent_memory.domain.clock import Clock

NO_AGENT = ""  # a caller that sent no User-Agent header


@dataclass(frozen=True)
class Caller:
    """One program the bridge answered: its User-Agent, how many requests, the last one."""

    user_agent: str
    requests: int
    last_at_ms: int
    last_path: str


class CallerLog:
    """The callers of one running bridge, newest first."""

    def __init__(self, clock: Clock, *, keep: int = web_config.BRIDGE_CALLERS_KEPT) -> None:
        self._clock = clock
        self._keep = keep
        self._callers: dict[str, Caller] = {}

    def saw(self, user_agent: str | None, path: str) -> None:
        """Count one answered request of `user_agent` to `path`, now."""
        agent = (user_agent or NO_AGENT).strip()[: web_config.BRIDGE_CALLER_AGENT_CHARS]
        before = self._callers.pop(agent, None)
        count = 1 if before is None else before.requests + 1
        self._callers[agent] = Caller(agent, count, self._clock(), path)
        while len(self._callers) > self._keep:
            del self._callers[next(iter(self._callers))]  # the one silent longest

    def recent(self) -> list[Caller]:
        """Every caller kept, the most recent first."""
        return list(reversed(self._callers.values()))

    def clear(self) -> None:
        self._callers.clear()

"""The web tests' shared parts: a running bridge with its panel on the test's store (HTTP tests),
and, for the browser tests, one headless Chromium per module (tests/helpers/browser.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import pytest_asyncio

from liveagent_memory.context import context_for
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.web.guard import Guard, new_token
from liveagent_memory.web.server import BridgeServer
from tests.helpers.bridge import BridgeClient, PanelClient


@dataclass
class PanelBridge:
    """A running bridge: the server itself, an agent's client (the bearer token) and a
    browser's client of its panel (the panel key, no session yet)."""

    server: BridgeServer
    api: BridgeClient
    panel: PanelClient


@pytest_asyncio.fixture
async def panel_bridge(store: MemoryStore) -> AsyncIterator[PanelBridge]:
    """A bridge on the test's store, on a free loopback port."""
    context = context_for(store)
    server = BridgeServer(context, Guard(new_token(), "127.0.0.1", 0))
    address = await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            api = BridgeClient(session, address, server.guard.token)
            yield PanelBridge(server, api, PanelClient(session, address, server.guard.panel.key))
    finally:
        await server.aclose()
        context.close()

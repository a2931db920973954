"""The web tests' shared parts: a running bridge with its panel on the test's store (HTTP tests),
and, for the browser tests, one headless Chromium per module (tests/helpers/browser.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import aiohttp
import pytest
import pytest_asyncio
from selenium.webdriver.remote.webdriver import WebDriver

from liveagent_memory.context import context_for
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.web.guard import Guard, new_token
from liveagent_memory.web.server import BridgeServer
from tests.helpers.bridge import BridgeClient, PanelClient
from tests.helpers.browser import chromium, require_browser_or_skip

BROWSER_SIZE = (1280, 800)


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


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """One headless Chromium for a whole module (starting one takes a second or two); each
    test opens its own bridge, so no session or page state carries over."""
    require_browser_or_skip()
    driver = chromium(BROWSER_SIZE)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def fresh_browser(browser: WebDriver) -> WebDriver:
    """The module's browser on a blank page (the previous test's page and its socket closed)."""
    browser.get("about:blank")
    return browser

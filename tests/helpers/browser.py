"""A real headless Chromium (Selenium) and a real bridge running beside it, for the web panel.

`chromium(size)` starts the system's Chromium through the system's chromedriver (Debian's
`chromium` and `chromium-driver`): Selenium Manager never downloads anything. A machine
without them skips the browser tests with the reason; LIVEAGENT_REQUIRE_BROWSER=1 (set by
.ci/run, which installs them) makes that a failure.

`LiveBridge` runs the bridge on its own thread and asyncio loop (Selenium's calls block), on a
store at `home`: with `runner=True` it is `serve`'s runtime (web/headless.py `Headless`: the
organizer scheduler claims a queued run and runs it), else the bridge alone (a queued run stays
queued). `dispatch` runs a command on the bridge's store, on its thread, so a test can check
what the page did.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.web.guard import Guard, new_token
from liveagent_memory.web.headless import Headless, ServeOptions
from liveagent_memory.web.server import BridgeServer
from liveagent_memory.web.tokens import Token

T = TypeVar("T")
REQUIRE_ENV = "LIVEAGENT_REQUIRE_BROWSER"
START_S = 60.0  # opening a store and binding, on a busy 2-core box
WAIT_S = 15.0  # a page's answer; a passing test returns as soon as it shows


def browser_missing() -> str | None:
    """Why no browser test can run here, or None."""
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    if not missing:
        return None
    return (
        f"needs {' and '.join(missing)} (Debian: chromium chromium-driver; .ci/run installs them)"
    )


def require_browser_or_skip() -> None:
    import pytest

    reason = browser_missing()
    if reason is None:
        return
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def chromium(size: tuple[int, int] = (1280, 800), *, lang: str = "en-US") -> WebDriver:
    """A headless Chromium whose page area is `size` and preferred language `lang`."""
    options = webdriver.ChromeOptions()
    binary = shutil.which("chromium")
    if binary is not None:
        options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        f"--window-size={size[0]},{size[1]}",
        f"--lang={lang}",
    ):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    service = Service(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(START_S)
    # The page's own area is `size` (a window's size would include what the browser draws).
    metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    return driver


def wait_for(driver: WebDriver, found: Callable[[WebDriver], T], timeout: float = WAIT_S) -> T:
    """`found(driver)` once it is truthy (Selenium's wait; it fails naming the timeout). An
    element the page redrew while it was read is read again, not a failure."""
    ignored = (StaleElementReferenceException,)
    return WebDriverWait(driver, timeout, ignored_exceptions=ignored).until(found)


def text_shows(driver: WebDriver, element_id: str, text: str) -> WebElement:
    """The element `element_id` once its visible text holds `text`."""

    def check(d: WebDriver) -> WebElement | None:
        elements = d.find_elements("id", element_id)
        return elements[0] if elements and text in elements[0].text else None

    found = wait_for(driver, check)
    assert found is not None
    return found


def card_with(driver: WebDriver, css: str, *texts: str) -> str:
    """The text of the first element matching `css` once it holds every one of `texts` (read
    in one go: the page may redraw the card between finding it and reading it)."""

    def check(d: WebDriver) -> str | None:
        found = d.find_elements(By.CSS_SELECTOR, css)
        text = found[0].text if found else ""
        return text if found and all(part in text for part in texts) else None

    text = wait_for(driver, check)
    assert text is not None
    return text


def click_in(driver: WebDriver, css: str, label: str) -> None:
    """Click the button `label` of the first element matching `css`, found again if the page
    redrew it in between."""

    def click(d: WebDriver) -> bool:
        card = d.find_element(By.CSS_SELECTOR, css)
        card.find_element(By.XPATH, f".//button[text()='{label}']").click()
        return True

    wait_for(driver, click)


class LiveBridge:
    """The bridge (and with `runner`, the organizer scheduler) on its own thread and loop."""

    def __init__(self, home: Path, *, runner: bool) -> None:
        self.home = home
        self._with_runner = runner
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._headless: Headless | None = None
        self._server: BridgeServer | None = None
        self._contexts: list[AppContext] = []

    def __enter__(self) -> LiveBridge:
        self._thread.start()
        self._on_loop(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._on_loop(self._stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(START_S)
            self._loop.close()

    @property
    def server(self) -> BridgeServer:
        assert self._server is not None
        return self._server

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def panel_url(self) -> str:
        return self.server.panel_url

    def dispatch(self, name: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a command on the bridge's store (on the bridge's thread), as a person would."""
        return self._on_loop(self._dispatch(name, payload or {}))

    def _on_loop(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(START_S)

    async def _start(self) -> None:
        bridge = AppContext.open(self.home, executes_runs=False)
        self._contexts.append(bridge)
        if self._with_runner:
            runner = AppContext.open(self.home)
            self._contexts.append(runner)
            token = Token(new_token(), False, "for this test only")
            self._headless = Headless(bridge, runner, token, ServeOptions(port=0))
            await self._headless.start()
            self._server = self._headless.server
        else:
            bridge.open_store()
            self._server = BridgeServer(bridge, Guard(new_token(), "127.0.0.1", 0))
            await self._server.start()

    async def _stop(self) -> None:
        if self._headless is not None:
            await self._headless.aclose()  # closes the stores too
        elif self._server is not None:
            await self._server.aclose()
            for context in self._contexts:
                context.close()

    async def _dispatch(self, name: str, payload: dict[str, Any]) -> dict[str, Any]:
        context = self._contexts[0]
        if self._headless is not None:
            return await self._headless.store_call(dispatch, context, name, payload)
        return dispatch(context, name, payload)

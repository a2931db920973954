"""The "Web and agents" page in the real window (offscreen): the switch starts a real bridge on
127.0.0.1 that a real HTTP client reaches with the page's token, stops it again, shows a taken
port as a failure, and a new token retires the old one; the MCP configuration is this store's."""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QApplication

from liveagent_memory.domain import config, web_config
from liveagent_memory.settings import load_settings
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.mcp_snippets import CLIENTS
from liveagent_memory.ui.pages.web import WebPage
from liveagent_memory.ui.web_service import BridgeState
from liveagent_memory.ui.window import MainWindow
from tests.helpers.bridge import BridgeClient
from tests.helpers.checks import present
from tests.helpers.fakes import MemoryKeyring
from tests.helpers.mcp_client import free_port
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, UrlCatcher, seed

# The app claims a queued run at its next poll; the margin covers a slow, shared machine.
CLAIM_WITHIN_S = config.ORGANIZE_PENDING_POLL_MS / 1000 + 10


@pytest_asyncio.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another program listens on for the whole test."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


@pytest.fixture
def opened_links(qapp: QApplication) -> Iterator[UrlCatcher]:
    """Every web link the app opens, instead of a real browser."""
    catcher = UrlCatcher()
    # PySide6 takes the slot's name as str at run time; its stub says bytes.
    QDesktopServices.setUrlHandler("http", catcher, "open")  # type: ignore[arg-type]
    yield catcher
    QDesktopServices.unsetUrlHandler("http")


async def web_page(open_window: OpenWindow) -> WebPage:
    window = await open_window()
    page = window.page("web")
    assert isinstance(page, WebPage)
    window.open_page("web")
    return page


async def switch(page: WebPage, on: bool, state: BridgeState) -> None:
    page.switch.setChecked(on)
    await until(lambda: page.service.state is state, what=f"the bridge {state}")


@pytest.mark.asyncio
async def test_switching_on_serves_the_token_only_and_switching_off_stops_it(
    open_window: OpenWindow, session: aiohttp.ClientSession, home: Path
) -> None:
    page = await web_page(open_window)
    port = free_port()
    page.port.setValue(port)
    await switch(page, True, BridgeState.ON)

    address = f"http://127.0.0.1:{port}/"
    assert page.state_line.text() == f"On at {address}"
    assert page.address.text() == address and not page.port.isEnabled()
    client = BridgeClient(session, address, page.token.text())
    status, metrics = await client.get("api/metrics")
    assert status == 200 and isinstance(metrics, dict)
    wrong = {"Authorization": "Bearer not-the-token"}
    status, refused = await client.get("api/metrics", headers=wrong)
    assert (status, refused["error"]) == (401, "unauthorized")
    await until(lambda: load_settings(home).bridge_port == port, what="the port saved")

    page.show_callers()  # the timer's step, now
    assert page.callers.rowCount() == 1  # the refused request is no client
    agent, path = page.callers.item(0, 0), page.callers.item(0, 3)
    assert agent is not None and agent.text().startswith("Python/")
    assert path is not None and path.text() == "/api/metrics"

    await switch(page, False, BridgeState.OFF)
    assert page.state_line.text() == "Off" and page.port.isEnabled()
    assert page.address.text() == "" and page.callers.rowCount() == 0
    # A plain socket, not the loop's: qasync leaves a refused connect's notifier to the collector.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


@pytest.mark.asyncio
async def test_a_taken_port_shows_the_failure_and_leaves_the_bridge_off(
    open_window: OpenWindow, taken_port: int, home: Path
) -> None:
    page = await web_page(open_window)
    page.port.setValue(taken_port)
    await switch(page, True, BridgeState.FAILED)

    failure = page.service.failure
    assert failure is not None and (failure.code, failure.field) == ("bind_failed", "port")
    assert page.state_line.text().startswith("Failed: The web bridge cannot listen on that port")
    assert str(taken_port) in page.state_line.toolTip()  # the core's words name the port
    assert not page.switch.isChecked() and page.port.isEnabled()
    window = page.window()
    assert "cannot listen" in window.statusBar().currentMessage()  # type: ignore[attr-defined]
    assert load_settings(home).bridge_port == web_config.BRIDGE_DEFAULT_PORT  # not remembered

    page.port.setValue(free_port())  # another port works at once
    await switch(page, True, BridgeState.ON)
    assert page.switch.isChecked()


@pytest.mark.asyncio
async def test_a_new_token_retires_the_old_one_on_the_running_bridge(
    open_window: OpenWindow, session: aiohttp.ClientSession, memory_keyring: MemoryKeyring
) -> None:
    page = await web_page(open_window)
    page.port.setValue(free_port())
    await switch(page, True, BridgeState.ON)
    old = page.token.text()
    assert memory_keyring.secrets[(config.KEYRING_SERVICE, web_config.BRIDGE_TOKEN_KEY)] == old
    assert "kept in the system keyring" in page.token_note.text()

    page.new_token.click()
    await until(lambda: page.token.text() != old, what="a new token shown")

    new = page.token.text()
    assert memory_keyring.secrets[(config.KEYRING_SERVICE, web_config.BRIDGE_TOKEN_KEY)] == new
    status, refused = await BridgeClient(session, page.address.text(), old).get("api/metrics")
    assert (status, refused["error"]) == (401, "unauthorized")
    status, _ = await BridgeClient(session, page.address.text(), new).get("api/metrics")
    assert status == 200
    page.copy_token.click()
    assert QGuiApplication.clipboard().text() == new


@pytest.mark.asyncio
@pytest.mark.usefixtures("no_keyring")
async def test_without_a_keyring_the_page_says_the_token_lasts_until_the_app_closes(
    open_window: OpenWindow, session: aiohttp.ClientSession
) -> None:
    page = await web_page(open_window)
    await until(lambda: page.token_note.text() != "", what="the keyring read")
    assert page.token_note.text().startswith("No secure keyring on this system: a token is made")
    assert page.token.text() == "" and not page.copy_token.isEnabled()
    page.port.setValue(free_port())
    await switch(page, True, BridgeState.ON)
    assert page.token_note.text().startswith("No secure keyring on this system: this token lasts")
    status, _ = await BridgeClient(session, page.address.text(), page.token.text()).get(
        "api/metrics"
    )
    assert status == 200


@pytest.mark.asyncio
async def test_the_mcp_snippet_is_this_stores_for_each_client(
    open_window: OpenWindow, home: Path
) -> None:
    page = await web_page(open_window)
    texts = {}
    for index, client in enumerate(CLIENTS):
        page.client_choice.setCurrentIndex(index)
        texts[client] = page.snippet.toPlainText()
    command = page.command
    desktop = json.loads(texts["claude_desktop"])["mcpServers"]["liveagent-memory"]
    assert desktop == {"command": command, "args": ["mcp", "--home", str(home), "--read-write"]}
    cursor = json.loads(texts["cursor"])["mcpServers"]["liveagent-memory"]
    assert cursor["args"] == [
        "mcp", "--home", str(home), "--workdir", "${workspaceFolder}", "--read-write"
    ]  # fmt: skip
    vscode = json.loads(texts["vscode"])["servers"]["liveagent-memory"]
    assert vscode == {"type": "stdio", "command": command, "args": cursor["args"]}
    words = shlex.split(texts["claude_code"])
    assert words == [
        "claude", "mcp", "add", "liveagent-memory", "--", command,
        "mcp", "--home", str(home), "--workdir", "$PWD", "--read-write",
    ]  # fmt: skip
    assert page.where.text() == ".vscode/mcp.json in the workspace."
    page.copy_snippet.click()
    assert QGuiApplication.clipboard().text() == texts["vscode"]


@pytest.mark.asyncio
async def test_in_chinese_the_page_speaks_chinese(
    open_window: OpenWindow, english: Translations
) -> None:
    page = await web_page(open_window)
    english.switch("zh_CN")
    try:
        assert page.title() == "网页与智能体"
        # The page re-labels itself when Qt delivers the LanguageChange event.
        await until(lambda: page.switch.text() == "运行网页桥接", what="the page in Chinese")
        assert page.state_line.text() == "已关闭"
        assert page.callers_group.title() == "已连接的客户端"
        assert page.copy_snippet.text() == "复制"
        assert page.port_label.text() == "端口："  # Chinese punctuation
    finally:
        english.switch("en")
    await until(lambda: page.switch.text() == "Run the web bridge", what="the page in English")


@pytest.mark.asyncio
async def test_the_agents_using_mcp_now_are_listed_and_leave_when_they_stop(
    open_window: OpenWindow, home: Path, workdir: str, english: Translations
) -> None:
    page = await web_page(open_window)
    assert page.agents.rowCount() == 0
    assert page.agents_help.text().startswith("No agent is using MCP now.")
    with MemoryStore.open(home) as store:  # a server's record, as `liveagent-memory mcp` keeps
        record = store.presence_record(transport="stdio", workdir=workdir)
        record.start()
        record.saw("claude-code", "2.1", call=True)

    page.agents_timer.setInterval(50)  # the page re-reads while it is shown
    await until(lambda: page.agents.rowCount() == 1, what="the agent listed")
    cells = [present(page.agents.item(0, column)).text() for column in range(5)]
    assert cells[:4] == ["claude-code 2.1", "stdio", workdir, "1"]
    assert cells[4].startswith("20")  # the last call's time
    english.switch("zh_CN")
    try:
        await until(lambda: page.agents_group.title() == "正在使用 MCP 的智能体", what="Chinese")
        assert present(page.agents.horizontalHeaderItem(0)).text() == "客户端"
    finally:
        english.switch("en")

    record.stop()
    await until(lambda: page.agents.rowCount() == 0, what="the agent gone")


@pytest.mark.asyncio
async def test_closing_the_window_stops_the_bridge(open_window: OpenWindow) -> None:
    page = await web_page(open_window)
    port = free_port()
    page.port.setValue(port)
    await switch(page, True, BridgeState.ON)
    socket.create_connection(("127.0.0.1", port), timeout=1).close()  # it listens

    window = page.window()
    assert isinstance(window, MainWindow)
    await window.aclose()

    assert page.service.state is BridgeState.OFF
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


@pytest.mark.asyncio
async def test_a_run_queued_through_the_apps_bridge_is_run_by_the_app(
    open_window: OpenWindow, session: aiohttp.ClientSession, home: Path
) -> None:
    # Two memories saying the same: the run has something to propose.
    same = "Use pnpm, not npm, to install the shop's packages."
    pair = [
        {"slug": slug, "scope": "global", "type": "feedback", "description": "pnpm", "body": same}
        for slug in ("use-pnpm", "pnpm-not-npm")
    ]
    seed(home, pair)
    page = await web_page(open_window)
    page.port.setValue(free_port())
    await switch(page, True, BridgeState.ON)
    client = BridgeClient(session, page.address.text(), page.token.text())

    status, created = await client.manage("organize_run_create", {"trigger": "manual"})
    assert status == 200, created
    run_id = created["run"]["run_id"]
    assert created["run"]["status"] == "pending"  # the bridge only queues it

    async def status_now() -> str:
        _, read = await client.manage("organize_run_read", {"run_id": run_id})
        return str(read["run"]["status"])

    deadline = asyncio.get_running_loop().time() + CLAIM_WITHIN_S + 30
    while (now := await status_now()) in ("pending", "running"):
        assert asyncio.get_running_loop().time() < deadline, f"the run is still {now}"
        await asyncio.sleep(0.3)
    assert now == "succeeded"  # claimed and run by the app's own scheduler
    _, read = await client.manage("organize_run_read", {"run_id": run_id})
    assert read["run"]["claimed_at"] is not None and read["run"]["input_count"] == 2


@pytest.mark.asyncio
async def test_open_web_panel_hands_the_browser_the_panels_link_while_the_bridge_runs(
    open_window: OpenWindow, session: aiohttp.ClientSession, opened_links: UrlCatcher
) -> None:
    page = await web_page(open_window)
    assert not page.open_panel.isEnabled()  # off: there is no panel to open
    page.port.setValue(free_port())
    await switch(page, True, BridgeState.ON)
    assert page.open_panel.isEnabled() and page.open_panel.text() == "Open web panel"
    page.open_panel.click()
    assert [url.toString() for url in opened_links.urls] == [page.service.panel_url]
    link = opened_links.urls[0].toString()
    assert link.startswith(page.address.text() + "?key=")
    assert page.token.text() not in link  # the panel's key, never the agents' token
    async with session.get(link, allow_redirects=False) as answer:
        assert (answer.status, answer.headers["Location"]) == (303, "/")
        assert web_config.PANEL_SESSION_COOKIE in answer.cookies
    await switch(page, False, BridgeState.OFF)
    assert not page.open_panel.isEnabled()

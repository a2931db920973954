"""The web panel over real HTTP: aiohttp's client against the real bridge on 127.0.0.1, on a
real store. A person's session comes only from the panel key; every refusal says its typed code
and status and leaves the memory as it was."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path

import aiohttp
import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import web_config
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.web.errors import Unauthorized
from liveagent_memory.web.guard import PanelSessions
from liveagent_memory.web.panel import STATIC_FILES
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import remember
from tests.web.conftest import PanelBridge

REPO = Path(__file__).resolve().parents[2]
PAGE_FILES = ("index.html", "login.html", *STATIC_FILES)


def unreviewed(store: MemoryStore, slug: str) -> bool:
    entry = dispatch(store, "memory_read", {"slug": slug, "scope": "global"})["entry"]
    return bool(entry["unreviewed"])


def file_text(home: Path, slug: str) -> str:
    return (home / "global" / f"{slug}.md").read_text(encoding="utf-8")


async def get(panel_bridge: PanelBridge, path: str, **headers: str) -> aiohttp.ClientResponse:
    panel = panel_bridge.panel
    async with panel.session.get(
        panel.address + path, headers=headers, allow_redirects=False
    ) as answer:
        await answer.read()
        return answer


# --- opening the panel --------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_key_opens_a_session_with_a_303_and_a_strict_cookie(
    panel_bridge: PanelBridge,
) -> None:
    opened = await panel_bridge.panel.open()
    assert (opened.status, opened.headers["Location"]) == (303, "/")
    cookie = opened.headers["Set-Cookie"]
    assert cookie.startswith(f"{web_config.PANEL_SESSION_COOKIE}={panel_bridge.panel.cookie};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert panel_bridge.server.panel_url.endswith(f"/?key={panel_bridge.panel.key}")
    page = await get(panel_bridge, "", Cookie=panel_bridge.panel.headers()["Cookie"])
    assert page.status == 200
    assert '<script src="/static/panel.js"' in await page.text()


@pytest.mark.asyncio
async def test_a_wrong_key_or_the_bearer_token_opens_no_session(panel_bridge: PanelBridge) -> None:
    for key in ("not-the-key", panel_bridge.api.token, ""):
        opened = await panel_bridge.panel.open(key)
        assert opened.status == 401
        assert web_config.PANEL_SESSION_COOKIE not in opened.cookies
        assert "Open web panel" in await opened.text()  # the how-to page
    page = await get(panel_bridge, "", Authorization=f"Bearer {panel_bridge.api.token}")
    assert page.status == 401
    assert "liveagent-memory serve" in await page.text()
    status, answer = await panel_bridge.panel.call(
        "memory_list", headers={"Origin": panel_bridge.panel.origin, **panel_bridge.api.headers()}
    )
    assert (status, answer["error"], answer["field"]) == (401, "unauthorized", "session")


@pytest.mark.asyncio
async def test_panel_headers_forbid_caching_framing_and_foreign_scripts(
    panel_bridge: PanelBridge,
) -> None:
    await panel_bridge.panel.open()
    cookie = panel_bridge.panel.headers()["Cookie"]
    for path, headers in (("", {"Cookie": cookie}), ("", {}), ("static/panel.js", {})):
        answer = await get(panel_bridge, path, **headers)
        assert answer.headers["Cache-Control"] == "no-store"
        policy = answer.headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        host = panel_bridge.panel.origin.removeprefix("http://")
        assert f"connect-src 'self' ws://{host}" in policy
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.asyncio
async def test_a_foreign_host_cannot_open_the_panel(panel_bridge: PanelBridge) -> None:
    port = panel_bridge.panel.origin.rsplit(":", 1)[1]
    answer = await get(panel_bridge, f"?key={panel_bridge.panel.key}", Host=f"evil.example:{port}")
    assert answer.status == 403
    assert web_config.PANEL_SESSION_COOKIE not in answer.cookies


# --- calls --------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_a_panel_call_without_a_session_is_401(
    panel_bridge: PanelBridge, store: MemoryStore
) -> None:
    remember(store, "tea")
    status, answer = await panel_bridge.panel.call("memory_accept", {"slug": "tea"})
    assert (status, answer["error"]) == (401, "unauthorized")
    assert unreviewed(store, "tea")


@pytest.mark.asyncio
@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", None])
async def test_a_panel_call_needs_the_bridges_own_origin(
    panel_bridge: PanelBridge, store: MemoryStore, origin: str | None
) -> None:
    remember(store, "tea")
    await panel_bridge.panel.open()
    headers = panel_bridge.panel.headers()
    if origin is None:
        del headers["Origin"]
    else:
        headers["Origin"] = origin
    status, answer = await panel_bridge.panel.call(
        "memory_accept", {"slug": "tea"}, headers=headers
    )
    assert (status, answer["error"], answer["field"]) == (403, "forbidden_request", "Origin")
    assert unreviewed(store, "tea")


@pytest.mark.asyncio
@pytest.mark.parametrize("command", ["memory_wipe_all", "memory_write", "settings_get", "wipe_all"])
async def test_a_command_outside_the_panels_list_is_a_typed_403(
    panel_bridge: PanelBridge, store: MemoryStore, command: str
) -> None:
    remember(store, "tea")
    await panel_bridge.panel.open()
    status, answer = await panel_bridge.panel.call(command, {"confirm": True, "slug": "x"})
    assert (status, answer["error"], answer["field"]) == (403, "action_not_allowed", "command")
    assert "memory_list" in answer["message"]
    listing = dispatch(store, "memory_list", {})
    assert [entry["slug"] for entry in listing["entries"]] == ["tea"]


@pytest.mark.asyncio
async def test_the_panel_accepts_as_the_person_while_an_agent_cannot(
    panel_bridge: PanelBridge, store: MemoryStore, home: Path
) -> None:
    remember(store, "tea")
    status, answer = await panel_bridge.api.manage(
        "memory_accept", {"slug": "tea", "scope": "global", "actor": "user"}
    )
    assert (status, answer["error"]) == (403, "action_not_allowed")
    assert "unreviewed: true" in file_text(home, "tea")
    await panel_bridge.panel.open()
    # The payload's actor is not the panel's to choose: it runs as the person whatever it says.
    status, answer = await panel_bridge.panel.call(
        "memory_accept", {"slug": "tea", "scope": "global", "actor": "tool"}
    )
    assert status == 200, answer
    assert not unreviewed(store, "tea")
    assert "unreviewed: false" in file_text(home, "tea")


@pytest.mark.asyncio
async def test_a_panel_call_takes_the_workdir_as_memory_manage_does(
    panel_bridge: PanelBridge, store: MemoryStore, workdir: str
) -> None:
    remember(store, "proj-note", scope="project", workdir=workdir)
    remember(store, "tea")
    await panel_bridge.panel.open()
    status, answer = await panel_bridge.panel.call("memory_list", {"scope": "project"}, workdir)
    assert status == 200, answer
    assert [entry["slug"] for entry in answer["entries"]] == ["proj-note"]
    status, answer = await panel_bridge.panel.call(
        "memory_list", {"workdir": "/elsewhere"}, workdir
    )
    assert (status, answer["error"], answer["field"]) == (400, "invalid_argument", "workdir")


@pytest.mark.asyncio
async def test_run_now_from_the_panel_is_queued_pending(
    panel_bridge: PanelBridge, store: MemoryStore, clock: FakeClock
) -> None:
    await panel_bridge.panel.open()
    status, answer = await panel_bridge.panel.call("organize_run_create", {"trigger": "manual"})
    assert status == 200, answer
    run = answer["run"]
    assert (run["status"], run["due_at"], run["claimed_at"]) == ("pending", clock(), None)
    assert run["mode"] == "conservative"  # the organizer settings' mode (the default here)
    rows = dispatch(store, "organize_run_list", {})["runs"]
    assert [(row["run_id"], row["status"]) for row in rows] == [(run["run_id"], "pending")]


@pytest.mark.asyncio
async def test_a_bad_payload_is_the_command_layers_typed_error(
    panel_bridge: PanelBridge, store: MemoryStore
) -> None:
    remember(store, "tea")
    await panel_bridge.panel.open()
    status, answer = await panel_bridge.panel.call("memory_accept", {"slug": "teaa"})
    assert (status, answer["error"]) == (404, "slug_not_found")
    assert answer["candidates"][0]["slug"] == "tea"
    assert unreviewed(store, "tea")


# --- the live progress socket -------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_websocket_pushes_the_runs_when_they_change(
    panel_bridge: PanelBridge, store: MemoryStore
) -> None:
    panel = panel_bridge.panel
    url = panel.address + "panel/ws"
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await panel.session.ws_connect(url, headers={"Origin": panel.origin})
    assert refused.value.status == 401  # no session, no socket
    await panel.open()
    socket = await panel.session.ws_connect(url, headers=panel.headers())
    try:
        first = await socket.receive_json(timeout=5)
        assert first == {"type": "runs", "runs": []}
        created = dispatch(store, "organize_run_create", {"trigger": "manual", "due_at": 1})
        pushed = await socket.receive_json(timeout=5 + web_config.PANEL_PROGRESS_POLL_MS / 1000)
        assert pushed["type"] == "runs"
        assert [run["run_id"] for run in pushed["runs"]] == [created["run"]["run_id"]]
        assert pushed["runs"][0]["status"] == "pending"
        await panel_bridge.server.aclose()  # stopping the bridge closes the page's socket
        closing = await socket.receive(timeout=5)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    finally:
        await socket.close()


@pytest.mark.asyncio
async def test_the_websocket_refuses_a_foreign_origin(panel_bridge: PanelBridge) -> None:
    panel = panel_bridge.panel
    await panel.open()
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await panel.session.ws_connect(
            panel.address + "panel/ws", headers=panel.headers(Origin="http://evil.example")
        )
    assert refused.value.status == 403
    await asyncio.sleep(0)


# --- sessions and files -------------------------------------------------------------------------
def test_a_session_expires_and_the_oldest_goes_past_the_cap() -> None:
    now = [0.0]
    sessions = PanelSessions(lifetime=60, keep=2, clock=lambda: now[0])
    with pytest.raises(Unauthorized) as refused:
        sessions.open("not-the-key")
    assert refused.value.code == "unauthorized"
    first = sessions.open(sessions.key)
    assert sessions.valid(first) and not sessions.valid("made-up") and not sessions.valid(None)
    second, third = sessions.open(sessions.key), sessions.open(sessions.key)
    assert not sessions.valid(first)  # past the cap, the oldest went
    assert sessions.valid(second) and sessions.valid(third)
    now[0] = 61
    assert not sessions.valid(third)
    with pytest.raises(Unauthorized):
        sessions.check(second)


@pytest.mark.asyncio
async def test_the_panels_files_ship_in_the_package(panel_bridge: PanelBridge) -> None:
    static = resources.files("liveagent_memory.web").joinpath("static")
    for name in PAGE_FILES:
        assert static.joinpath(name).is_file(), name
    for name, kind in STATIC_FILES.items():
        answer = await get(panel_bridge, f"static/{name}")
        assert (answer.status, answer.content_type) == (200, kind)
    for name in ("index.html", "login.html", "..%2Fpanel.py", "nothing.js"):
        answer = await get(panel_bridge, f"static/{name}")
        assert answer.status == 404  # the page itself only at `/`, nothing else at all
    setup = (REPO / "setup.py").read_text(encoding="utf-8")
    assert '"liveagent_memory.web": ["static/*"]' in setup  # a wheel carries them

"""`liveagent-memory serve` as a real subprocess: it prints its address and token, answers
over HTTP, claims a run queued through `memory.manage` within seconds, and stops cleanly."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from liveagent_memory.domain import config
from tests.helpers.bridge import BridgeClient
from tests.helpers.diskstore import child_env
from tests.helpers.memories import memory_payload, seed_home

START_S = 60.0  # a cold start imports the package on a busy 2-core box
# A claim comes within one poll (config.ORGANIZE_PENDING_POLL_MS); the run then ends in seconds.
CLAIM_S = config.ORGANIZE_PENDING_POLL_MS / 1000 + 5
STOP_S = 30.0


class Served:
    """The running `serve` child and a client of its bridge."""

    def __init__(self, child: asyncio.subprocess.Process, client: BridgeClient, banner: str):
        self.child = child
        self.client = client
        self.banner = banner


async def _banner(child: asyncio.subprocess.Process) -> tuple[str, str, str]:
    """The start banner, up to its last line: (address, token, all the text)."""
    assert child.stdout is not None
    text, address, token = "", "", ""
    while "Ctrl+C" not in text:
        line = (await asyncio.wait_for(child.stdout.readline(), START_S)).decode()
        assert line, f"serve ended before printing its banner: {text}"
        text += line
        key, _, value = line.strip().partition(":")
        if key == "Address":
            address = value.strip()
        elif key == "Token":
            token = value.strip()
    assert address and token, text
    return address, token, text


@pytest_asyncio.fixture
async def served(home: Path) -> AsyncIterator[Served]:
    # Two ways of saying one thing: the offline organizer proposes merging them.
    seed_home(
        home,
        [
            memory_payload("tea-a", body="The user drinks green tea every morning."),
            memory_payload("tea-b", body="Every morning the user drinks green tea."),
        ],
    )
    env = {**child_env(), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "liveagent_memory",
        "--home",
        str(home),
        "serve",
        "--port",
        "0",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        address, token, text = await _banner(child)
        async with aiohttp.ClientSession() as session:
            yield Served(child, BridgeClient(session, address, token), text)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()


async def _stop(child: asyncio.subprocess.Process, sig: signal.Signals) -> tuple[int, str, str]:
    child.send_signal(sig)
    out, err = await asyncio.wait_for(child.communicate(), STOP_S)
    assert child.returncode is not None
    return child.returncode, out.decode(), err.decode()


@pytest.mark.slow
@pytest.mark.asyncio
async def test_serve_claims_a_run_queued_through_the_bridge(served: Served) -> None:
    assert "this run only" in served.banner  # no keyring here: it says so
    status, created = await served.client.manage("organize_run_create", {"trigger": "manual"})
    assert status == 200, created
    run_id = created["run"]["run_id"]
    assert created["run"]["status"] == "pending"
    deadline = time.monotonic() + CLAIM_S
    while True:
        status, read = await served.client.manage("organize_run_read", {"run_id": run_id})
        assert status == 200, read
        if read["run"]["claimed_at"] is not None:
            break
        assert time.monotonic() < deadline, f"serve did not claim the run: {read['run']}"
        await asyncio.sleep(0.1)
    code, out, err = await _stop(served.child, signal.SIGTERM)
    assert code == 0, err
    assert "Stopped." in out and "Traceback" not in err
    status_after = read["run"]["status"]
    assert status_after in ("running", "succeeded"), read["run"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_serve_answers_and_stops_on_sigint(served: Served, home: Path) -> None:
    status, answer = await served.client.get("api/metrics")
    assert (status, answer["contexts"]) == (200, 0)
    status, answer = await served.client.get("api/metrics", headers={})
    assert (status, answer["error"]) == (401, "unauthorized")
    # The panel's link is printed beside the token, and opens a session (web/panel.py).
    link = next(line for line in served.banner.splitlines() if "Web panel:" in line)
    url = link.split("Web panel:", 1)[1].strip()
    assert url.startswith(served.client.address + "?key=")
    async with served.client.session.get(url, allow_redirects=False) as opened:
        assert (opened.status, opened.headers["Location"]) == (303, "/")
    code, out, err = await _stop(served.child, signal.SIGINT)
    assert code == 0, err
    assert "Stopped." in out and "Traceback" not in err

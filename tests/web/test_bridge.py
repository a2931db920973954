"""The web bridge over real HTTP: aiohttp's client against the real server on 127.0.0.1, on a
real store. Every refusal says its typed code and HTTP status, and leaves the store as it was."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain import config, web_config
from liveagent_memory.settings import SecretStore
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.web.callers import NO_AGENT, CallerLog
from liveagent_memory.web.errors import BindFailed, RemoteBindRefused
from liveagent_memory.web.guard import Guard, TokenBucket, check_bind, new_token
from liveagent_memory.web.server import BridgeServer
from liveagent_memory.web.tokens import bridge_token
from tests.helpers.bridge import BridgeClient
from tests.helpers.cli import run_cli
from tests.helpers.fake_llm import FakeLLMServer
from tests.helpers.fakes import FakeClock, MemoryKeyring
from tests.helpers.memories import memory_payload, remember

REPO = Path(__file__).resolve().parents[2]


async def _serve(store: MemoryStore, guard: Guard) -> AsyncIterator[BridgeClient]:
    context = context_for(store)
    server = BridgeServer(context, guard)
    address = await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            yield BridgeClient(session, address, guard.token)
    finally:
        await server.aclose()
        context.close()


@pytest_asyncio.fixture
async def bridge(store: MemoryStore) -> AsyncIterator[BridgeClient]:
    """A bridge on the test's store, on a free loopback port."""
    async for client in _serve(store, Guard(new_token(), "127.0.0.1", 0)):
        yield client


def slugs(store: MemoryStore, **filters: Any) -> list[str]:
    listing = dispatch(store, "memory_list", {"include_all_projects": True, **filters})
    return sorted(entry["slug"] for entry in listing["entries"])


# --- protection -------------------------------------------------------------------------------
@pytest.mark.asyncio
@pytest.mark.parametrize(
    "authorization", [None, "Bearer not-the-token", "Basic abc", "Bearer "], ids=str
)
async def test_a_missing_or_wrong_token_is_401(
    bridge: BridgeClient, store: MemoryStore, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    body = {"command": "memory_write", "payload": memory_payload("tea")}
    status, answer = await bridge.post("api/memory.manage", body, headers=headers)
    assert (status, answer["error"]) == (401, "unauthorized")
    assert slugs(store) == []  # nothing written
    status, _ = await bridge.get("api/metrics")  # the right token still works
    assert status == 200


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:1", "file://"], ids=str
)
async def test_a_foreign_origin_is_403(
    bridge: BridgeClient, store: MemoryStore, origin: str
) -> None:
    body = {"command": "memory_write", "payload": memory_payload("tea")}
    status, answer = await bridge.post(
        "api/memory.manage", body, headers=bridge.headers(Origin=origin)
    )
    assert (status, answer["error"], answer["field"]) == (403, "forbidden_request", "Origin")
    assert slugs(store) == []


@pytest.mark.asyncio
async def test_the_bridges_own_origin_and_no_origin_are_allowed(bridge: BridgeClient) -> None:
    own = bridge.address.rstrip("/")
    status, _ = await bridge.get("api/metrics", headers=bridge.headers(Origin=own))
    assert status == 200
    status, _ = await bridge.get("api/metrics")  # a program sends no Origin
    assert status == 200


@pytest.mark.asyncio
@pytest.mark.parametrize("host", ["evil.example", "rebind.attacker.test:{port}", "127.0.0.1:1"])
async def test_a_foreign_host_is_403_no_dns_rebinding(
    bridge: BridgeClient, store: MemoryStore, host: str
) -> None:
    port = bridge.address.rsplit(":", 1)[1].strip("/")
    headers = bridge.headers(Host=host.format(port=port))
    body = {"command": "memory_write", "payload": memory_payload("tea")}
    status, answer = await bridge.post("api/memory.manage", body, headers=headers)
    assert (status, answer["error"], answer["field"]) == (403, "forbidden_request", "Host")
    assert slugs(store) == []
    status, _ = await bridge.get("api/metrics", headers=bridge.headers(Host=f"localhost:{port}"))
    assert status == 200  # a loopback name with the bridge's port is its own


def test_a_non_loopback_bind_is_refused_unless_asked() -> None:
    for host in ("0.0.0.0", "192.168.1.20", "example.com"):
        with pytest.raises(RemoteBindRefused) as refused:
            check_bind(host, allow_remote=False)
        assert refused.value.code == "remote_bind_refused"
        check_bind(host, allow_remote=True)  # the person asked for it
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_bind(host, allow_remote=False)


def test_serve_refuses_a_remote_host_before_listening(cli_home: str) -> None:
    run = run_cli("--home", cli_home, "serve", "--host", "0.0.0.0", "--port", "0")
    assert run.code == 1
    assert "is not a loopback address" in run.err and "--allow-remote" in run.err
    assert run.out == ""  # no address, no token: it never listened
    run = run_cli("--home", cli_home, "serve", "--port", "70000")
    assert (run.code, run.out) == (2, "")
    assert "--port must be 0" in run.err


@pytest.mark.asyncio
async def test_an_oversized_request_is_413(bridge: BridgeClient, store: MemoryStore) -> None:
    body = memory_payload("big", body="x" * web_config.BRIDGE_MAX_REQUEST_BYTES)
    status, answer = await bridge.manage("memory_write", body)
    assert (status, answer["error"]) == (413, "request_too_large")
    assert slugs(store) == []
    status, _ = await bridge.manage("memory_write", memory_payload("small"))
    assert status == 200


@pytest.mark.asyncio
async def test_requests_past_the_rate_are_429(store: MemoryStore) -> None:
    frozen = TokenBucket(clock=lambda: 0.0)  # no time passes: only the burst is allowed
    async for client in _serve(store, Guard(new_token(), "127.0.0.1", 0, bucket=frozen)):
        statuses = [
            (await client.get("api/metrics"))[0] for _ in range(web_config.BRIDGE_RATE_BURST)
        ]
        assert statuses == [200] * web_config.BRIDGE_RATE_BURST
        status, answer = await client.manage("memory_write", memory_payload("tea"))
        assert (status, answer["error"]) == (429, "rate_limited")
        assert slugs(store) == []


def test_the_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2, burst=2, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [True, True, False]
    now[0] = 0.5  # half a second at 2 a second: one more
    assert [bucket.take(), bucket.take()] == [True, False]


# --- memory.manage --------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_manage_with_a_workdir_lands_in_that_project(
    bridge: BridgeClient, store: MemoryStore, workdir: str
) -> None:
    payload = memory_payload("uses-pnpm", scope="project", type="project")
    status, answer = await bridge.manage("memory_write", payload, workdir=workdir)
    assert status == 200, answer
    assert slugs(store, workdir=workdir, scope="project") == ["uses-pnpm"]
    assert slugs(store, scope="global") == []
    status, listing = await bridge.manage("memory_list", {"scope": "project"}, workdir=workdir)
    assert [e["slug"] for e in listing["entries"]] == ["uses-pnpm"]


@pytest.mark.asyncio
async def test_manage_without_a_workdir_cannot_write_a_project_memory(
    bridge: BridgeClient, store: MemoryStore, workdir: str
) -> None:
    payload = memory_payload("uses-pnpm", scope="project", type="project")
    status, answer = await bridge.manage("memory_write", payload)
    assert (status, answer["error"]) == (400, "workdir_required")
    status, _ = await bridge.manage("memory_write", memory_payload("tea"))  # global: no workdir
    assert status == 200
    assert slugs(store) == ["tea"]


@pytest.mark.asyncio
async def test_manage_refuses_two_different_workdirs(
    bridge: BridgeClient, store: MemoryStore, workdir: str, tmp_path: Any
) -> None:
    payload = memory_payload("x", scope="project", type="project", workdir=str(tmp_path))
    status, answer = await bridge.manage("memory_write", payload, workdir=workdir)
    assert (status, answer["error"], answer["field"]) == (400, "invalid_argument", "workdir")
    assert slugs(store) == []


@pytest.mark.asyncio
async def test_a_write_lands_unreviewed_and_an_accept_is_refused(
    bridge: BridgeClient, store: MemoryStore
) -> None:
    # The caller claims to be a person: the bridge runs it as the agent it is.
    # A person's own `user` memory would be reviewed at once (tests/helpers/memories.py).
    payload = memory_payload("tea", type="user", actor="user")
    status, written = await bridge.manage("memory_write", payload)
    assert status == 200, written
    read = {"slug": "tea", "scope": "global"}
    assert dispatch(store, "memory_read", read)["entry"]["unreviewed"] is True
    status, answer = await bridge.manage(
        "memory_accept", {"slug": "tea", "scope": "global", "actor": "user"}
    )
    assert (status, answer["error"]) == (403, "action_not_allowed")
    assert dispatch(store, "memory_read", read)["entry"]["unreviewed"] is True


@pytest.mark.asyncio
async def test_person_only_commands_are_refused(bridge: BridgeClient, store: MemoryStore) -> None:
    remember(store, "tea")
    status, answer = await bridge.manage("memory_wipe_all", {"confirm": "DELETE"})
    assert (status, answer["error"]) == (403, "action_not_allowed")
    status, answer = await bridge.manage("settings_save_memory", {"settings": {}})
    assert (status, answer["error"]) == (403, "action_not_allowed")
    status, answer = await bridge.manage("organize_apply", {"run_id": "r", "all_safe": True})
    assert (status, answer["error"]) == (403, "action_not_allowed")
    status, answer = await bridge.manage("project_merge", {"workdir": "/src/shop"})
    assert (status, answer["error"]) == (403, "action_not_allowed")  # it moves a whole folder
    assert slugs(store) == ["tea"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ({"command": "memory_wirte"}, "unknown_command", 404),
        ({"payload": {}}, "invalid_argument", 400),
        ({"command": "memory_list", "payload": [1]}, "invalid_argument", 400),
        ({"command": "memory_read", "payload": {"slug": "nope"}}, "slug_not_found", 404),
    ],
)
async def test_bad_requests_are_typed_errors(
    bridge: BridgeClient, body: dict[str, Any], code: str, status: int
) -> None:
    got, answer = await bridge.post("api/memory.manage", body)
    assert (got, answer["error"]) == (status, code)
    assert answer["message"]


@pytest.mark.asyncio
async def test_a_body_that_is_not_json_is_400(bridge: BridgeClient) -> None:
    status, answer = await bridge.post_raw("api/memory.manage", b"{not json")
    assert (status, answer["error"]) == (400, "invalid_argument")


@pytest.mark.asyncio
async def test_organizer_run_commands_queue_a_run(bridge: BridgeClient) -> None:
    status, created = await bridge.manage("organize_run_create", {"trigger": "manual"})
    assert status == 200, created
    # The bridge never runs the pipeline itself: the run waits for the app or `serve`.
    assert created["run"]["status"] == "pending"
    status, listing = await bridge.manage("organize_run_list", {})
    assert [run["run_id"] for run in listing["runs"]] == [created["run"]["run_id"]]


@pytest.mark.asyncio
async def test_a_caller_cannot_choose_the_embedding_providers(
    bridge: BridgeClient, store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    # A provider names where a text goes and with which key: a caller's api_base would receive
    # the person's key (the keyring's, or OPENAI_API_KEY), so the bridge refuses the field.
    remember(store, "tea", body="Green tea in the afternoon.")
    chain = [
        {"provider": "openai", "model": "text-embedding-3-small", "api_base": llm_server.base_url}
    ]
    status, answer = await bridge.post("api/context", {"query": "tea", "providers": chain})
    assert (status, answer["error"], answer["field"]) == (403, "action_not_allowed", "providers")
    for command in ("memory_search_hybrid", "embeddings_rebuild", "memory_context"):
        status, answer = await bridge.manage(command, {"query": "tea", "providers": chain})
        assert (status, answer["error"]) == (403, "action_not_allowed"), command
    assert llm_server.requests == []  # nothing was sent anywhere
    status, answer = await bridge.post("api/context", {"query": "tea"})  # the settings' chain
    assert status == 200 and "tea" in str(answer)


# --- the retrieval API ----------------------------------------------------------------------
@pytest.mark.asyncio
async def test_context_round_trip(bridge: BridgeClient, store: MemoryStore, workdir: str) -> None:
    remember(store, "no-retry-on-401", body="Never retry a login after a 401; refresh the token.")
    remember(store, "release-train", body="Releases ship every second Tuesday.")
    request = {
        "query": "why does login fail after a 401?",
        "task_type": "debugging",
        "token_budget": 400,
        "workdir": workdir,
    }
    status, answer = await bridge.post("api/context", request)
    assert status == 200, answer
    assert "no-retry-on-401" in str(answer)
    status, answer = await bridge.post("api/context", {**request, "token_budget": "lots"})
    assert (status, answer["error"]) == (400, "invalid_argument")


@pytest.mark.asyncio
async def test_episodes_round_trip(bridge: BridgeClient, store: MemoryStore) -> None:
    episode = {"goal": "fix the login retry", "outcome": "success"}
    status, answer = await bridge.post("api/episodes", {"episode": episode})
    assert status == 200, answer
    episode_id = answer["episode"]["id"]
    listed = dispatch(store, "episode_list", {})
    assert [e["id"] for e in listed["episodes"]] == [episode_id]
    status, answer = await bridge.post("api/episodes", {"episode": "not an object"})
    assert (status, answer["error"]) == (400, "invalid_argument")
    # A trace file as it is (README's example) is the episode itself.
    trace = json.loads((REPO / "docs" / "examples" / "trace.json").read_text(encoding="utf-8"))
    status, answer = await bridge.post("api/episodes", trace)
    assert status == 200, answer
    assert len(dispatch(store, "episode_list", {})["episodes"]) == 2


@pytest.mark.asyncio
async def test_metrics_count_the_contexts_served(bridge: BridgeClient, store: MemoryStore) -> None:
    remember(store, "tea", body="The user drinks green tea.")
    status, before = await bridge.get("api/metrics")
    assert (status, before["contexts"]) == (200, 0)
    await bridge.post("api/context", {"query": "what does the user drink?"})
    status, after = await bridge.get("api/metrics")
    assert (status, after["contexts"]) == (200, 1)


# --- the token ------------------------------------------------------------------------------
def test_the_token_is_kept_in_the_keyring(memory_keyring: MemoryKeyring) -> None:
    first = bridge_token(SecretStore())
    again = bridge_token(SecretStore())
    assert first.kept and again.value == first.value
    assert len(first.value) >= web_config.BRIDGE_TOKEN_BYTES
    key = (config.KEYRING_SERVICE, web_config.BRIDGE_TOKEN_KEY)
    assert memory_keyring.secrets[key] == first.value


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_the_token_lasts_for_this_run_only() -> None:
    first = bridge_token(SecretStore())
    second = bridge_token(SecretStore())
    assert not first.kept and "this run only" in first.note
    assert first.value != second.value  # nothing was saved anywhere


@pytest.mark.asyncio
async def test_a_port_in_use_is_a_typed_error(bridge: BridgeClient, store: MemoryStore) -> None:
    port = int(bridge.address.rsplit(":", 1)[1].strip("/"))
    with context_for(store) as context:
        second = BridgeServer(context, Guard(new_token(), "127.0.0.1", port))
        with pytest.raises(BindFailed) as failed:
            await second.start()
    assert (failed.value.code, failed.value.field) == ("bind_failed", "port")
    status, _ = await bridge.get("api/metrics")  # the first one still serves
    assert status == 200


# --- who called -----------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_bridge_keeps_its_recent_callers_by_user_agent(
    store: MemoryStore, clock: FakeClock
) -> None:
    with context_for(store) as context:
        server = BridgeServer(context, Guard(new_token(), "127.0.0.1", 0))
        address = await server.start()
        try:
            async with aiohttp.ClientSession() as session:
                client = BridgeClient(session, address, server.guard.token)
                agent = client.headers(**{"User-Agent": "claude-code/2.1"})
                assert (await client.get("api/metrics", headers=agent))[0] == 200
                clock.advance(seconds=30)
                assert (await client.get("api/metrics", headers=agent))[0] == 200
                refused = {"User-Agent": "intruder/1", "Authorization": "Bearer wrong"}
                assert (await client.get("api/metrics", headers=refused))[0] == 401
                clock.advance(seconds=5)
                assert (await client.manage("memory_list"))[0] == 200
        finally:
            await server.aclose()
    callers = server.callers.recent()
    # aiohttp's own User-Agent is the newest; the refused caller is no client of the bridge.
    assert [c.user_agent.split("/")[0] for c in callers] == ["Python", "claude-code"]
    assert (callers[1].requests, callers[1].last_at_ms, callers[1].last_path) == (
        2,
        clock.ms - 5000,
        "/api/metrics",
    )
    assert callers[0].last_path == "/api/memory.manage"


def test_the_caller_log_forgets_the_one_silent_longest(clock: FakeClock) -> None:
    log = CallerLog(clock, keep=2)
    for agent in ("a", "b", "a", "c"):
        log.saw(agent, "/api/metrics")
        clock.advance(seconds=1)
    log.saw("x" * (web_config.BRIDGE_CALLER_AGENT_CHARS + 50), "/api/context")
    assert [c.user_agent for c in log.recent()] == ["x" * web_config.BRIDGE_CALLER_AGENT_CHARS, "c"]
    log.saw(None, "/api/metrics")
    assert log.recent()[0].user_agent == NO_AGENT


@pytest.mark.asyncio
async def test_a_wrong_path_or_method_is_a_typed_404_in_json(bridge: BridgeClient) -> None:
    status, answer = await bridge.get("api/memory.search")
    assert (status, answer["error"]) == (404, "route_not_found")
    assert "POST /api/memory.manage" in answer["message"]
    status, answer = await bridge.get("api/memory.manage")  # a GET where only POST answers
    assert (status, answer["error"]) == (404, "route_not_found")
    # Still after the checks: without the token a wrong path is a 401, nothing more.
    status, answer = await bridge.get("api/memory.search", headers={})
    assert (status, answer["error"]) == (401, "unauthorized")

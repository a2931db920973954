"""`liveagent-memory mcp`: the real server as a subprocess, driven by the MCP SDK's own client.

Over stdio and streamable HTTP: what it offers (one tool, the index and each memory as
resources, two prompts), search in English and Chinese, read, context within a budget, writes
landing unreviewed in read-write mode and refused in read-only mode, a secret refused, a bad
argument answered with a typed error, the scope and project in every answer, the bearer token
off loopback, and two servers and the CLI writing one store at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.paths import canonical_workdir, workdir_hash
from tests.helpers.cli import cli_call_ok, run_cli
from tests.helpers.git_repos import bare_repository, clone
from tests.helpers.mcp_client import (
    SERVER_ENV,
    ask,
    http_client,
    mcp_http,
    mcp_stdio,
    server_argv,
)
from tests.helpers.memories import memory_payload, seed_home

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

TEA = memory_payload(
    "likes-green-tea", type="user", description="Likes green tea", body="The user drinks tea."
)
DEPLOY = memory_payload(
    "deploy-steps",
    scope="project",
    type="project",
    description="部署流程: 先跑测试再发布",
    body="部署前先运行全部测试，然后发布到预发环境。",
)


def _seed(home: Path, workdir: str) -> None:
    seed_home(home, [TEA, {**DEPLOY, "workdir": workdir}])


def _listed(home: Path, workdir: str | None = None) -> dict[str, Any]:
    """The store's own answer through the CLI: every memory the workdir (or none) sees,
    journal days included."""
    payload: dict[str, Any] = {"include_daily": True}
    if workdir:
        payload["workdir"] = workdir
    listing: dict[str, Any] = cli_call_ok(home, system_clock, "memory_list", payload)
    return listing


async def test_offers_one_tool_the_index_each_memory_and_two_prompts(
    home: Path, workdir: str
) -> None:
    _seed(home, workdir)
    async with mcp_stdio(home, "--workdir", workdir, "mcp") as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        prompts = (await client.list_prompts()).prompts
        recall = await client.get_prompt("what_do_you_know", {"about": "部署"})
        remember = await client.get_prompt("remember_this", {"what": "I always use pnpm"})
    assert [tool.name for tool in tools] == ["MemoryManager"]
    actions = tools[0].input_schema["properties"]["action"]["enum"]
    assert actions == ["list", "read", "search", "context"]  # read-only: no write, no accept
    project = workdir_hash(workdir)
    assert [r.uri for r in resources] == [
        "memory://index",
        f"memory://project/{project}/deploy-steps",  # newest first
        "memory://global/likes-green-tea",
    ]
    assert [p.name for p in prompts] == ["remember_this", "what_do_you_know"]
    message = recall.messages[0].content
    assert isinstance(message, types.TextContent)
    assert "What do you know about 部署?" in message.text
    guide = remember.messages[0].content
    assert isinstance(guide, types.TextContent)
    assert "I always use pnpm" in guide.text and "source_quote" in guide.text
    assert "Pick the type by the first rule that matches" in guide.text  # the full guides


async def test_read_write_offers_writes_but_never_accept_and_stays_small(home: Path) -> None:
    async with mcp_stdio(home, "mcp", "--read-write") as client:
        tool = (await client.list_tools()).tools[0]
    actions = tool.input_schema["properties"]["action"]["enum"]
    assert actions == ["list", "read", "search", "context", "write", "update", "delete"]
    # What a client puts in the model's prompt, estimated like every budget (domain/text.py).
    sent = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
    assert estimate_tokens(json.dumps([sent], ensure_ascii=False)) < config.MCP_SCHEMA_TOKEN_LIMIT


async def test_search_in_english_and_chinese_names_scope_and_project(
    home: Path, workdir: str
) -> None:
    _seed(home, workdir)
    async with mcp_stdio(home, "--workdir", workdir, "mcp") as client:
        english = await ask(client, action="search", query="green tea")
        chinese = await ask(client, action="search", query="部署流程")
        only_global = await ask(client, action="search", query="部署流程", scope="global")
    project = workdir_hash(workdir)
    assert english.ok and english.body["hits"][0]["memory"].startswith("likes-green-tea ")
    assert chinese.ok and chinese.body["hits"][0]["memory"].startswith("deploy-steps ")
    for answer in (english, chinese):
        assert answer.resolved == {
            "scope": "global+project",
            "project": project,
            "workdir": workdir,
        }
    assert only_global.resolved["scope"] == "global"
    assert only_global.body["hits"] == []  # the project memory is not global: not mixed in


async def test_read_by_tool_and_by_resource_and_a_typed_miss(home: Path, workdir: str) -> None:
    _seed(home, workdir)
    project = workdir_hash(workdir)
    async with mcp_stdio(home, "--workdir", workdir, "mcp") as client:
        read = await ask(client, action="read", slug="deploy-steps")
        resource = await client.read_resource(f"memory://project/{project}/deploy-steps")
        index = await client.read_resource("memory://index")
        missing = await ask(client, action="read", slug="deploy-step")
        with pytest.raises(MCPError) as refused:
            await client.read_resource("memory://project/0123456789abcdef/deploy-steps")
    assert read.ok and read.resolved["scope"] == "project" and read.resolved["project"] == project
    assert "全部测试" in read.body["body"]
    resource_text = resource.contents[0]
    assert isinstance(resource_text, types.TextResourceContents)
    assert "全部测试" in resource_text.text and f'"project":"{project}"' in resource_text.text
    index_text = index.contents[0]
    assert isinstance(index_text, types.TextResourceContents)
    assert "deploy-steps" in index_text.text and "likes-green-tea" in index_text.text
    assert index_text.text.startswith('[resolved: {"scope":"global+project","project":"')
    assert not missing.ok and missing.body["error"] == "slug_not_found"
    assert missing.body["candidates"][0]["slug"] == "deploy-steps"
    assert missing.body["suggested_next_call"]["action"] == "search"
    assert refused.value.error.data["error"] == "invalid_argument"  # another project's memory


async def test_context_stays_within_its_budget(home: Path, workdir: str) -> None:
    many = [
        memory_payload(f"tea-note-{n}", body=f"Green tea note {n}: " + "steep it gently. " * 40)
        for n in range(12)
    ]
    seed_home(home, many)
    async with mcp_stdio(home, "--workdir", workdir, "mcp") as client:
        answer = await ask(
            client, action="context", query="how to make green tea", token_budget=300
        )
    assert answer.ok and answer.body is None  # Markdown, then the account line
    account = re.search(r"\[context: (\d+) of (\d+) tokens", answer.text)
    assert account, answer.text
    used, budget = int(account.group(1)), int(account.group(2))
    assert budget == 300 and 0 < used <= 300
    assert "tea-note-" in answer.text


async def test_a_write_lands_unreviewed_and_accept_is_refused(home: Path, workdir: str) -> None:
    async with mcp_stdio(home, "--workdir", workdir, "mcp", "--read-write") as client:
        wrote = await ask(
            client,
            action="write",
            slug="prefers-tabs",
            type="feedback",
            description="Indent with tabs",
            body="Always indent code with tabs.",
            confidence="high",
            source_quote="always",  # 6 chars: high keeps
        )
        weak = await ask(
            client,
            action="write",
            slug="maybe-vim",
            type="user",
            description="Might use vim",
            body="The user may use vim.",
            confidence="high",
        )
        accept = await ask(client, action="accept", slug="prefers-tabs", scope="global")
    assert wrote.ok and wrote.body["review"] == "unreviewed: a person will review it"
    assert wrote.resolved["scope"] == "global" and wrote.resolved["project"] == workdir_hash(
        workdir
    )
    assert weak.ok and "Confidence was lowered to low" in weak.body["hint"]  # the contract
    assert not accept.ok and accept.body["error"] == "action_not_allowed"
    entries = {e["slug"]: e for e in _listed(home, workdir)["entries"]}
    assert entries["prefers-tabs"]["unreviewed"] is True  # still: only a person accepts
    assert entries["prefers-tabs"]["confidence"] == "high"
    assert entries["maybe-vim"]["confidence"] == "low"


async def test_read_only_refuses_a_write_and_writes_nothing(home: Path, workdir: str) -> None:
    async with mcp_stdio(home, "--workdir", workdir, "mcp") as client:
        refused = await ask(
            client, action="write", slug="x-note", type="user", description="d", body="b"
        )
        after = await ask(client, action="list")
    assert not refused.ok and refused.body["error"] == "action_not_allowed"
    assert refused.body["suggested_next_call"] == {"action": "list"}
    assert refused.resolved["project"] == workdir_hash(workdir)
    assert after.ok and after.body["total"] == 0
    assert _listed(home, workdir)["total"] == 0


async def test_a_secret_is_refused_and_nothing_is_written(home: Path) -> None:
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"  # an AWS access key id's shape
    async with mcp_stdio(home, "mcp", "--read-write") as client:
        refused = await ask(
            client,
            action="write",
            slug="aws-key",
            type="reference",
            description="The AWS key",
            body=f"The key is {secret}.",
        )
        still = await ask(client, action="list")
    assert not refused.ok and refused.body["error"] == "risk_hard_blocked"
    assert secret not in refused.text
    assert refused.resolved == {"scope": "global", "project": None, "workdir": None}
    assert still.ok and still.body["total"] == 0


async def test_bad_arguments_get_typed_errors_and_the_server_goes_on(home: Path) -> None:
    seed_home(home, [TEA])
    async with mcp_stdio(home, "mcp") as client:
        bad_limit = await ask(client, action="list", limit=0)
        unknown = await ask(client, action="list", colour="red")
        no_tool = await client.call_tool("Remember", {})
        with pytest.raises(MCPError) as bad_prompt:
            await client.get_prompt("remember_this", {})
        fine = await ask(client, action="list")
    assert not bad_limit.ok and bad_limit.body["error"] == "invalid_argument"
    assert bad_limit.body["field"] == "limit"
    assert not unknown.ok and unknown.body == {
        "error": "invalid_argument",
        "message": "unknown MemoryManager parameter(s): colour",
        "field": "colour",
    }
    assert no_tool.is_error and json.loads(_text(no_tool))["error"] == "unknown_tool"
    assert bad_prompt.value.error.data["field"] == "what"
    assert fine.ok and fine.body["total"] == 1


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_http_on_loopback_needs_no_token(home: Path) -> None:
    seed_home(home, [TEA])
    with mcp_http(home, "127.0.0.1") as server:
        assert server.token is None
        async with http_client(server.url, None) as client:
            answer = await ask(client, action="search", query="tea")
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx2.AsyncClient() as raw:
            # A page on another site that made its name resolve here (DNS rebinding).
            rebound = await raw.post(server.url, json=request, headers={"Host": "evil.example"})
    assert answer.ok and answer.body["hits"][0]["memory"].startswith("likes-green-tea ")
    assert rebound.status_code in (403, 421)  # the SDK's Host check on loopback


async def test_http_off_loopback_refuses_requests_without_the_token(home: Path) -> None:
    seed_home(home, [TEA])
    with mcp_http(home, "0.0.0.0", "--read-write") as server:
        assert server.token and len(server.token) >= config.MCP_TOKEN_BYTES
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx2.AsyncClient() as raw:
            bare = await raw.post(server.url, json=request)
            wrong = await raw.post(
                server.url, json=request, headers={"Authorization": "Bearer wrong"}
            )
        async with http_client(server.url, server.token) as client:
            tools = (await client.list_tools()).tools
            wrote = await ask(
                client, action="write", slug="web-note", type="user", description="d", body="b."
            )
    assert bare.status_code == 401 and wrong.status_code == 401
    assert bare.json()["error"] == "unauthorized"
    assert [tool.name for tool in tools] == ["MemoryManager"]
    assert wrote.ok
    assert [e["slug"] for e in _listed(home)["entries"]] == ["web-note", TEA["slug"]]


@pytest.mark.parametrize("address", ["nowhere", "127.0.0.1:", ":8765", "127.0.0.1:70000"])
async def test_bad_http_address_is_a_typed_usage_error(home: Path, address: str) -> None:
    run = run_cli("mcp", "--json", "--http", address, home=home)
    assert run.code == 1
    assert run.json()["error"] == "invalid_argument" and run.json()["field"] == "http"


async def _write_many(client: Client, prefix: str, count: int) -> list[bool]:
    oks = []
    for n in range(count):
        answer = await ask(
            client,
            action="write",
            slug=f"{prefix}-{n}",
            type="reference",
            description=f"{prefix} note {n}",
            body=f"Note {n} from {prefix}.",
        )
        oks.append(answer.ok)
    return oks


async def _cli_writes(home: Path, count: int) -> list[int]:
    codes = []
    for n in range(count):
        payload = json.dumps(memory_payload(f"cli-{n}"))
        process = await asyncio.create_subprocess_exec(
            *server_argv(home, "call", "memory_write", payload),
            stdout=subprocess.DEVNULL,
            env={**os.environ, **SERVER_ENV},
        )
        codes.append(await process.wait())
    return codes


async def test_the_app_lists_a_running_stdio_server_with_its_client_until_it_leaves(
    home: Path, workdir: str
) -> None:
    # A stdio server talks to its client alone: the app learns of it from its record.
    _seed(home, workdir)
    command, *args = server_argv(home, "--workdir", workdir, "mcp")
    params = StdioServerParameters(command=command, args=args, env=SERVER_ENV)
    agent = types.Implementation(name="test-agent", version="4.2")
    async with Client(params, client_info=agent) as client:
        found = await ask(client, action="search", query="green tea")
        assert found.ok and found.body["hits"]
        (session,) = cli_call_ok(home, system_clock, "agents_running", {})["sessions"]
    assert (session["client"], session["client_version"]) == ("test-agent", "4.2")
    assert (session["transport"], session["workdir"]) == ("stdio", canonical_workdir(workdir))
    assert session["calls"] == 1 and session["last_call_at"] is not None
    # The client left: the server stopped and took its record with it.
    deadline = asyncio.get_running_loop().time() + 10
    while cli_call_ok(home, system_clock, "agents_running", {})["sessions"]:
        assert asyncio.get_running_loop().time() < deadline, "the record outlived its server"
        await asyncio.sleep(0.1)


async def test_two_servers_and_the_cli_write_one_store_at_once(home: Path) -> None:
    count = 8
    seed_home(home, [])
    async with (
        mcp_stdio(home, "mcp", "--read-write") as first,
        mcp_stdio(home, "mcp", "--read-write") as second,
    ):
        a, b, cli = await asyncio.gather(
            _write_many(first, "alpha", count),
            _write_many(second, "beta", count),
            _cli_writes(home, count),
        )
        seen_by_first = await ask(first, action="list", limit=100)
    assert a == [True] * count and b == [True] * count and cli == [0] * count
    expected = {f"{p}-{n}" for p in ("alpha", "beta", "cli") for n in range(count)}
    assert seen_by_first.body["total"] == len(expected)  # the other processes' writes too
    listing = _listed(home)
    assert {e["slug"] for e in listing["entries"]} == expected
    files = {p.stem for p in (home / "global").rglob("*.md") if p.parent.name != "daily"}
    files -= {"MEMORY"}  # the index file beside the memories
    assert files == expected  # the files (the truth) and the index agree
    assert cli_call_ok(home, system_clock, "memory_problems", {}) == {"problems": []}


async def test_a_clone_at_another_path_reads_the_projects_memories(
    home: Path, tmp_path: Path
) -> None:
    # Issue 19: the server asks the store's one resolver, so the same repository cloned
    # elsewhere (another machine's path) finds what was written from the first clone.
    server = bare_repository(tmp_path / "server" / "shop.git")
    first = clone(server, tmp_path / "a" / "shop")
    second = clone(server, tmp_path / "b" / "checkout")
    _seed(home, str(first))
    project = workdir_hash(str(first))
    async with mcp_stdio(home, "--workdir", str(second), "mcp") as client:
        read = await ask(client, action="read", slug="deploy-steps")
        resource = await client.read_resource(f"memory://project/{project}/deploy-steps")
    assert read.ok and read.resolved["project"] == project
    assert read.resolved["workdir"] == str(second.resolve())
    assert "全部测试" in read.body["body"]
    assert isinstance(resource.contents[0], types.TextResourceContents)

"""LLMClient against a real OpenAI-compatible HTTP server (litellm called for real)."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.domain import errors
from liveagent_memory.llm.client import (
    LLMClient,
    ModelConfig,
    ToolCall,
    Usage,
    UsageLedger,
    parse_arguments,
)
from tests.helpers.fake_llm import (
    API_KEY,
    MODEL,
    FakeLLMServer,
    Reply,
    completion_body,
    llm_client,
    tool_call,
)

MESSAGES = [{"role": "user", "content": "I always drink green tea."}]
PLAN_TOOL = {
    "type": "function",
    "function": {
        "name": "SubmitMemoryPlan",
        "description": "Submit the plan.",
        "parameters": {"type": "object", "properties": {"items": {"type": "array"}}},
    },
}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeLLMServer]:
    # One server for the module: stopping one waits out serve_forever's 0.5 s poll.
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def llm_server(shared_server: FakeLLMServer) -> FakeLLMServer:
    """The shared server, with no scripted replies and no recorded requests."""
    shared_server._replies.clear()
    for recorded in (shared_server.requests, shared_server.paths, shared_server.headers):
        recorded.clear()
    return shared_server


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def assert_no_key(exc: BaseException) -> None:
    """The API key appears nowhere a person or a log could see it."""
    rendered = "".join(traceback.format_exception(exc))
    assert API_KEY not in str(exc)
    assert API_KEY not in repr(exc)
    assert API_KEY not in rendered
    if isinstance(exc, errors.MemoryDomainError):
        assert API_KEY not in json.dumps(exc.to_dict())


# --- successful calls -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_text_reply_is_parsed_and_request_is_well_formed(llm_server: FakeLLMServer) -> None:
    llm_server.reply_text("Noted: green tea.")
    client = llm_client(llm_server, temperature=0.2)

    result = await client.complete(MESSAGES, purpose="chat")

    assert result.content == "Noted: green tea."
    assert result.tool_calls == ()
    assert result.finish_reason == "stop"
    assert result.model == "fake-model"
    assert result.usage == Usage(prompt_tokens=120, completion_tokens=30, total_tokens=150)
    assert result.assistant_message() == {"role": "assistant", "content": "Noted: green tea."}
    assert len(llm_server.requests) == 1
    body = llm_server.requests[0]
    assert llm_server.paths[0].endswith("/chat/completions")
    assert body["model"] == "fake-model"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.2
    assert "tools" not in body
    assert llm_server.headers[0]["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.asyncio
async def test_tool_call_arguments_are_decoded(llm_server: FakeLLMServer) -> None:
    args = {"items": [{"op": "write", "slug": "green-tea", "body": "绿茶"}]}
    llm_server.reply_tool("SubmitMemoryPlan", args, content="saving")
    client = llm_client(llm_server)

    result = await client.complete(MESSAGES, tools=[PLAN_TOOL], purpose="extraction")

    assert llm_server.tool_names(0) == ["SubmitMemoryPlan"]
    assert result.finish_reason == "tool_calls"
    assert len(result.tool_calls) == 1
    call = result.tool_calls[0]
    assert call.name == "SubmitMemoryPlan"
    assert call.arguments == args
    assert call.argument_error is None
    assert call.require_arguments() == args
    assert json.loads(call.raw_arguments) == args
    message = result.assistant_message()
    assert message["content"] == "saving"
    assert message["tool_calls"] == [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": "SubmitMemoryPlan", "arguments": call.raw_arguments},
        }
    ]


@pytest.mark.asyncio
async def test_several_tool_calls_keep_their_order(llm_server: FakeLLMServer) -> None:
    llm_server.reply_tools(
        [
            tool_call("MemoryManager", {"action": "search", "query": "tea"}, call_id="c1"),
            tool_call("MemoryManager", {"action": "list"}, call_id="c2"),
        ]
    )
    result = await llm_client(llm_server).complete(MESSAGES, purpose="chat")

    assert [c.id for c in result.tool_calls] == ["c1", "c2"]
    assert [c.arguments for c in result.tool_calls] == [
        {"action": "search", "query": "tea"},
        {"action": "list"},
    ]
    assert result.assistant_message()["content"] is None


@pytest.mark.asyncio
async def test_malformed_tool_arguments_are_kept_not_raised(llm_server: FakeLLMServer) -> None:
    llm_server.reply_tool("SubmitMemoryPlan", '{"items": [')
    client = llm_client(llm_server)

    result = await client.complete(MESSAGES, tools=[PLAN_TOOL], purpose="extraction")

    call = result.tool_calls[0]
    assert call.arguments is None
    assert call.raw_arguments == '{"items": ['
    assert call.argument_error is not None and "not valid JSON" in call.argument_error
    with pytest.raises(errors.MalformedToolArguments) as info:
        call.require_arguments()
    assert info.value.code == "llm_malformed_tool_arguments"
    assert "SubmitMemoryPlan" in info.value.message
    assert "not valid JSON" in info.value.message
    # A malformed reply is still a successful call: its tokens are on the ledger.
    assert client.ledger.records[-1].error is None
    assert client.ledger.records[-1].usage.total_tokens == 150


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("raw", "kind"),
    [("[1, 2]", "list"), ('"just text"', "str"), ("42", "int"), ("null", "NoneType")],
)
async def test_tool_arguments_that_are_not_an_object(
    llm_server: FakeLLMServer, raw: str, kind: str
) -> None:
    llm_server.reply_tool("SubmitMemoryPlan", raw)
    result = await llm_client(llm_server).complete(MESSAGES, purpose="extraction")

    call = result.tool_calls[0]
    assert call.arguments is None
    assert call.argument_error == f"arguments must be a JSON object, not {kind}"
    with pytest.raises(errors.MalformedToolArguments, match="must be a JSON object"):
        call.require_arguments()


@pytest.mark.asyncio
async def test_empty_tool_arguments_mean_no_arguments(llm_server: FakeLLMServer) -> None:
    llm_server.reply_tool("MemoryManager", "")
    result = await llm_client(llm_server).complete(MESSAGES, purpose="chat")
    assert result.tool_calls[0].arguments == {}
    assert result.tool_calls[0].require_arguments() == {}


@pytest.mark.parametrize(
    ("raw", "expected", "problem"),
    [
        (None, {}, None),
        ("   ", {}, None),
        ('{"a": 1}', {"a": 1}, None),
        ("{bad", None, "not valid JSON"),
        ("[]", None, "not list"),
        ("true", None, "not bool"),
    ],
)
def test_parse_arguments(raw: str | None, expected: object, problem: str | None) -> None:
    value, error = parse_arguments("X", raw)
    assert value == expected
    if problem is None:
        assert error is None
    else:
        assert error is not None and problem in error


def test_tool_call_require_arguments_without_error_text() -> None:
    call = ToolCall(id="c", name="Tool", raw_arguments="?", arguments=None)
    with pytest.raises(errors.MalformedToolArguments, match="Tool: arguments are not a JSON"):
        call.require_arguments()


# --- usage ledger -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_usage_is_recorded_per_call_and_totalled_per_purpose(
    llm_server: FakeLLMServer,
) -> None:
    ledger = UsageLedger()
    client = LLMClient(
        ModelConfig(MODEL, api_base=llm_server.base_url, api_key=API_KEY), ledger=ledger
    )
    llm_server.reply_tool(
        "T", {}, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    )
    llm_server.reply_tool(
        "T", {}, usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    )
    llm_server.reply_error(500, "boom")

    await client.complete(MESSAGES, purpose="chat")
    await client.complete(MESSAGES, purpose="extraction")
    with pytest.raises(errors.LLMUnavailable):
        await client.complete(MESSAGES, purpose="extraction")

    assert client.ledger is ledger
    assert [(r.purpose, r.error) for r in ledger.records] == [
        ("chat", None),
        ("extraction", None),
        ("extraction", "llm_unavailable"),
    ]
    assert all(r.model == MODEL and r.duration_ms >= 0 for r in ledger.records)
    assert ledger.records[0].usage == Usage(10, 5, 15)
    assert ledger.records[2].usage == Usage()
    assert ledger.total("chat") == Usage(10, 5, 15)
    assert ledger.total("extraction") == Usage(7, 3, 10)
    assert ledger.total() == Usage(17, 8, 25)
    assert ledger.total("organizer") == Usage()


@pytest.mark.asyncio
async def test_reply_without_choices_is_unavailable_and_recorded(
    llm_server: FakeLLMServer,
) -> None:
    body = completion_body(content="x")
    body["choices"] = []
    llm_server.push(Reply(body))
    client = llm_client(llm_server)

    with pytest.raises(errors.LLMUnavailable, match="no choices"):
        await client.complete(MESSAGES, purpose="extraction")

    assert len(client.ledger.records) == 1
    record = client.ledger.records[0]
    assert record.error == "llm_unavailable"
    assert record.usage.total_tokens == 150  # the provider billed it


@pytest.mark.asyncio
async def test_reply_that_is_not_a_completion_is_unavailable(llm_server: FakeLLMServer) -> None:
    llm_server.push(Reply({"unexpected": True}))
    client = llm_client(llm_server)
    with pytest.raises(errors.LLMUnavailable):
        await client.complete(MESSAGES, purpose="chat")
    assert client.ledger.records[-1].error == "llm_unavailable"


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "error_type", "retryable"),
    [
        (401, errors.LLMAuthFailed, False),
        (403, errors.LLMAuthFailed, False),
        (429, errors.LLMRateLimited, True),
        (400, errors.LLMBadRequest, False),
        (404, errors.LLMBadRequest, False),
        (500, errors.LLMUnavailable, True),
        (503, errors.LLMUnavailable, True),
    ],
)
async def test_http_errors_map_to_typed_errors_without_the_key_or_retries(
    llm_server: FakeLLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
    error_type: type[errors.LLMError],
    retryable: bool,
) -> None:
    # The server echoes the key back, as some providers do in auth errors.
    llm_server.reply_error(status, f"Incorrect API key provided: {API_KEY}")
    client = llm_client(llm_server)

    with caplog.at_level(logging.DEBUG, logger="liveagent_memory"):
        with pytest.raises(errors.LLMError) as info:
            await client.complete(MESSAGES, purpose="extraction")

    exc = info.value
    assert type(exc) is error_type
    assert exc.retryable is retryable
    assert MODEL in exc.message
    assert "[redacted]" in exc.message  # the provider's text is kept, minus the key
    assert_no_key(exc)
    assert exc.__cause__ is None
    assert len(llm_server.requests) == 1  # no hidden retries
    assert llm_server.pending == 0
    assert [r.error for r in client.ledger.records] == [error_type.code]
    ours = [r for r in caplog.records if r.name.startswith("liveagent_memory")]
    assert ours, "a failed call is logged"
    assert all(API_KEY not in r.getMessage() for r in ours)


@pytest.mark.asyncio
async def test_auth_error_says_how_to_fix_it(llm_server: FakeLLMServer) -> None:
    llm_server.reply_error(401, "invalid key")
    with pytest.raises(errors.LLMAuthFailed) as info:
        await llm_client(llm_server).complete(MESSAGES, purpose="chat")
    assert "key set" in info.value.message
    assert info.value.to_dict()["error"] == "llm_auth_failed"


@pytest.mark.asyncio
async def test_slow_reply_times_out(llm_server: FakeLLMServer) -> None:
    llm_server.reply_text("too late", delay=2)
    client = llm_client(llm_server, timeout=0.5)

    started = time.monotonic()
    with pytest.raises(errors.LLMTimeout) as info:
        await client.complete(MESSAGES, purpose="extraction")
    elapsed = time.monotonic() - started

    assert elapsed < 1.9
    assert info.value.retryable is True
    assert "0.5 s" in info.value.message
    assert_no_key(info.value)
    assert len(llm_server.requests) == 1
    assert client.ledger.records[-1].error == "llm_timeout"


@pytest.mark.asyncio
async def test_connection_refused_is_unavailable() -> None:
    client = LLMClient(
        ModelConfig(
            MODEL, api_base=f"http://127.0.0.1:{closed_port()}/v1", api_key=API_KEY, timeout=3
        )
    )
    with pytest.raises(errors.LLMUnavailable) as info:
        await client.complete(MESSAGES, purpose="chat")
    assert info.value.retryable is True
    assert_no_key(info.value)
    assert client.ledger.records[-1].error == "llm_unavailable"


@pytest.mark.asyncio
@pytest.mark.parametrize("model", ["", "   "])
async def test_no_model_is_not_configured(llm_server: FakeLLMServer, model: str) -> None:
    client = LLMClient(ModelConfig(model, api_base=llm_server.base_url, api_key=API_KEY))
    with pytest.raises(errors.LLMNotConfigured) as info:
        await client.complete(MESSAGES, purpose="chat")
    assert "settings" in info.value.message
    assert info.value.code == "llm_not_configured"
    assert llm_server.requests == []  # nothing was sent
    assert client.ledger.records == []


def test_model_config_repr_hides_the_key() -> None:
    cfg = ModelConfig(MODEL, api_base="http://127.0.0.1:1/v1", api_key=API_KEY)
    assert API_KEY not in repr(cfg)
    assert API_KEY not in str(cfg)
    assert MODEL in repr(cfg)
    assert cfg.require() is cfg


def test_importing_the_client_host_and_cli_does_not_import_litellm_or_qt() -> None:
    code = (
        "import sys\n"
        "import liveagent_memory.llm.client\n"
        "import liveagent_memory.agent.host\n"
        "import liveagent_memory.cli\n"
        "heavy = ('litellm', 'PySide6', 'qasync')  # the CLI starts without them\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.asyncio
async def test_a_key_from_the_environment_is_redacted_too(
    llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No key configured: litellm reads the provider's variable, and the server echoes it.
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    llm_server.reply_error(401, f"Incorrect API key provided: {API_KEY}")
    client = LLMClient(ModelConfig(MODEL, api_base=llm_server.base_url))
    with pytest.raises(errors.LLMAuthFailed) as info:
        await client.complete(MESSAGES, purpose="chat")
    assert "[redacted]" in info.value.message
    assert_no_key(info.value)
    assert "Bearer " + API_KEY in str(llm_server.headers[-1])  # the key did go to the server


# Awaits litellm's first import on a loop that keeps a 10 ms ticker going; prints how long the
# import took and the longest the ticker waited.
FIRST_IMPORT = """
import asyncio, json, sys, time
from liveagent_memory.llm.client import aload_litellm
assert "litellm" not in sys.modules
async def main():
    gaps = []
    async def tick():
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    started = time.monotonic()
    module = await aload_litellm()
    took = time.monotonic() - started
    await asyncio.sleep(0.05)  # the ticker wakes once more: a held loop shows as one long gap
    ticker.cancel()
    again = await aload_litellm()
    print(json.dumps({"took": took, "max_gap": max(gaps), "same": module is again,
                      "loaded": "litellm" in sys.modules}))
asyncio.run(main())
"""


def test_the_first_awaited_import_of_litellm_leaves_the_loop_free() -> None:
    """A model call's first import takes seconds; awaited, it runs on a thread, so a desktop
    app's loop (its window) keeps going meanwhile."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-800:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["loaded"] and found["same"]
    assert found["took"] > 0.3, found  # a real import, long enough to show a held loop
    assert found["max_gap"] < found["took"] / 3, found  # on the loop it would be all of it

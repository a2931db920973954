"""The connection check against a real OpenAI-compatible HTTP server (litellm called for real)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from liveagent_memory.domain import errors
from liveagent_memory.llm.client import Usage, UsageLedger
from liveagent_memory.llm.probe import (
    PROBE_PROMPT,
    PROBE_PURPOSE,
    PROBE_TIMEOUT_SECONDS,
    REPLY_PREVIEW_CHARS,
    check_connection,
    prepare_probe,
)
from liveagent_memory.settings import SecretStore
from tests.helpers.fake_llm import API_KEY, FakeLLMServer, model_config
from tests.helpers.fakes import MemoryKeyring


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeLLMServer]:
    # One server for the module: stopping one waits out serve_forever's poll.
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def llm_server(shared_server: FakeLLMServer) -> FakeLLMServer:
    """The shared server, with no scripted replies and no recorded requests."""
    shared_server._replies.clear()
    for recorded in (shared_server.requests, shared_server.paths, shared_server.headers):
        recorded.clear()
    return shared_server


# --- prepare_probe ----------------------------------------------------------------------------


def test_prepare_probe_reads_the_purpose_key_and_falls_back_to_the_default_key() -> None:
    secrets = SecretStore()
    secrets.set("default", "sk-default-key")
    secrets.set("organizer", "sk-organizer-key")

    organizer = prepare_probe(secrets, "organizer", model=" openai/x ", api_base=" http://h/v1 ")
    extraction = prepare_probe(secrets, "extraction", model="openai/x")

    assert organizer.model == "openai/x"
    assert organizer.api_base == "http://h/v1"
    assert organizer.api_key == "sk-organizer-key"
    assert organizer.timeout == PROBE_TIMEOUT_SECONDS
    assert extraction.api_key == "sk-default-key"  # no key of its own
    assert extraction.api_base is None
    assert "sk-" not in repr(organizer)  # the key stays out of repr and logs


def test_prepare_probe_without_a_keyring_leaves_the_key_to_the_environment(
    no_keyring: None,
) -> None:
    config = prepare_probe(SecretStore(), "default", model="openai/x")

    assert config.api_key is None


def test_prepare_probe_with_an_unknown_purpose_is_a_typed_error(
    memory_keyring: MemoryKeyring,
) -> None:
    with pytest.raises(errors.SettingsInvalid) as caught:
        prepare_probe(SecretStore(), "chat", model="openai/x")

    assert caught.value.field == "purpose"


# --- check_connection -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_check_connection_reports_the_model_reply_and_latency(
    llm_server: FakeLLMServer,
) -> None:
    llm_server.reply_text("  OK \n")
    ledger = UsageLedger()

    result = await check_connection(model_config(llm_server), ledger=ledger)

    assert result.model == "fake-model"
    assert result.reply == "OK"
    assert 0 <= result.latency_ms < 5000
    assert result.usage == Usage(prompt_tokens=120, completion_tokens=30, total_tokens=150)
    [request] = llm_server.requests
    assert request["messages"] == [{"role": "user", "content": PROBE_PROMPT}]
    assert "tools" not in request
    assert llm_server.headers[0]["authorization"] == f"Bearer {API_KEY}"
    [record] = ledger.records
    assert record.purpose == PROBE_PURPOSE
    assert record.error is None


@pytest.mark.asyncio
async def test_a_chatty_reply_is_cut_to_one_short_line(llm_server: FakeLLMServer) -> None:
    llm_server.reply_text("OK!\n\n" + "word " * 100)

    result = await check_connection(model_config(llm_server))

    assert "\n" not in result.reply
    assert len(result.reply) == REPLY_PREVIEW_CHARS
    assert result.reply.startswith("OK! word")
    assert result.reply.endswith("…")


@pytest.mark.asyncio
async def test_a_refused_key_is_an_auth_error_without_the_key(llm_server: FakeLLMServer) -> None:
    llm_server.reply_error(401, "Incorrect API key provided", kind="invalid_request_error")

    with pytest.raises(errors.LLMAuthFailed) as caught:
        await check_connection(model_config(llm_server))

    assert API_KEY not in str(caught.value)


@pytest.mark.asyncio
async def test_rate_limit_is_a_typed_error(llm_server: FakeLLMServer) -> None:
    llm_server.reply_error(429, "slow down")

    with pytest.raises(errors.LLMRateLimited):
        await check_connection(model_config(llm_server))


@pytest.mark.asyncio
async def test_a_slow_model_is_a_timeout(llm_server: FakeLLMServer) -> None:
    llm_server.reply_text("late", delay=1.5)
    started = time.monotonic()

    with pytest.raises(errors.LLMTimeout):
        await check_connection(model_config(llm_server, timeout=0.3))

    assert time.monotonic() - started < 1.4


@pytest.mark.asyncio
async def test_no_model_is_not_configured_and_sends_nothing(llm_server: FakeLLMServer) -> None:
    with pytest.raises(errors.LLMNotConfigured):
        await check_connection(model_config(llm_server, model="  "))

    assert llm_server.requests == []

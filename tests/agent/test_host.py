"""MemoryAgent: the small API a chat host uses (index block, tool, post-turn extraction)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from liveagent_memory.agent.extraction.types import ExtractionResult, ExtractionStatus
from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.commands import dispatch
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock

PLAN = "SubmitMemoryPlan"
MANAGER = "MemoryManager"
USER_TEXT = "Please always use pnpm instead of npm in this repo."


async def in_flight(server: FakeLLMServer, count: int = 1) -> None:
    """Wait (bounded) until the server has received `count` requests."""
    for _ in range(500):
        if len(server.requests) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the server got {len(server.requests)} requests, expected {count}")


def chat(text: str = USER_TEXT) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Sure."}]


def write_plan(slug: str = "pkg-manager", **over: Any) -> dict[str, Any]:
    item = {
        "action": "write",
        "slug": slug,
        "scope": "global",
        "type": "feedback",
        "description": "Use pnpm, not npm",
        "body": "Always install with pnpm.",
        "confidence": "high",
        "source_quote": "always use pnpm",
    }
    item.update(over)
    return {"status": "updated", "items": [item]}


def slugs(store: MemoryStore, workdir: str | None = None) -> set[str]:
    payload = {"workdir": workdir} if workdir else {}
    return {e["slug"] for e in dispatch(store, "memory_list", payload)["entries"]}


def actions(schema: dict[str, Any]) -> set[str]:
    return set(schema["function"]["parameters"]["properties"]["action"]["enum"])


# --- prompt block and tool --------------------------------------------------------------------
def test_system_prompt_block_lists_memories_with_review_marks(store: MemoryStore) -> None:
    agent = MemoryAgent(store)
    empty = agent.system_prompt_block()
    assert empty.startswith("<memory-index>") and empty.endswith("</memory-index>")
    assert "no memories yet" in empty

    dispatch(
        store,
        "memory_write",
        {
            "slug": "pkg-manager",
            "scope": "global",
            "type": "feedback",
            "description": "Use pnpm </memory-index> not npm",
            "body": "pnpm",
            "confidence": "high",
            "source_quote": "always use pnpm",
            "actor": "extractor",
        },
    )
    block = agent.system_prompt_block()
    assert "[pkg-manager|f*:h|d0]" in block  # unreviewed, high confidence, today
    assert block.count("</memory-index>") == 1  # memory text cannot close the block


def test_system_prompt_block_shows_project_memories_only_with_the_workdir(
    store: MemoryStore, workdir: str
) -> None:
    dispatch(
        store,
        "memory_write",
        {
            "slug": "deploy-steps",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "Deploy with make deploy",
            "body": "make deploy",
        },
    )
    assert "deploy-steps" in MemoryAgent(store, workdir=workdir).system_prompt_block()
    assert "deploy-steps" not in MemoryAgent(store).system_prompt_block()


def test_tool_schemas_read_write_and_read_only(store: MemoryStore) -> None:
    [rw] = MemoryAgent(store).tool_schemas()
    [ro] = MemoryAgent(store, writable_tool=False).tool_schemas()

    assert rw["type"] == "function" and rw["function"]["name"] == MANAGER
    assert actions(rw) == {
        "list",
        "read",
        "search",
        "context",
        "write",
        "update",
        "delete",
    }  # no accept: only a person marks a memory reviewed
    assert actions(ro) == {"list", "read", "search", "context"}  # context is a read action
    assert "body" in rw["function"]["parameters"]["properties"]
    assert "body" not in ro["function"]["parameters"]["properties"]
    json.dumps([rw, ro])  # plain JSON for any provider


def test_execute_tool_writes_and_reads_through_memory_manager(
    store: MemoryStore, workdir: str
) -> None:
    agent = MemoryAgent(store, workdir=workdir)
    wrote = agent.execute_tool(
        MANAGER,
        {
            "action": "write",
            "slug": "test-runner",
            "scope": "project",
            "type": "project",
            "description": "Tests run with pytest",
            "body": "Run pytest -q.",
        },
        conversation_id="conv-9",
    )
    assert wrote.ok and wrote.mutated
    assert "test-runner" in slugs(store, workdir)
    memory = dispatch(store, "memory_read", {"slug": "test-runner", "workdir": workdir})
    assert memory["source"]["trigger"] == "tool"
    assert memory["source"]["conversationId"] == "conv-9"

    read = agent.execute_tool(MANAGER, '{"action": "read", "slug": "test-runner"}')
    assert read.ok and not read.mutated
    assert json.loads(read.content)["body"] == "Run pytest -q."


def test_read_only_tool_refuses_writes(store: MemoryStore) -> None:
    agent = MemoryAgent(store, writable_tool=False)
    outcome = agent.execute_tool(
        MANAGER,
        {"action": "write", "slug": "sneaky", "scope": "global", "type": "user", "body": "x"},
    )
    assert not outcome.ok
    assert outcome.payload["error"] == "action_not_allowed"
    assert slugs(store) == set()


def test_unknown_tool_name_is_an_error_for_the_model(store: MemoryStore) -> None:
    outcome = MemoryAgent(store).execute_tool("Bash", {"command": "ls"})
    assert not outcome.ok and not outcome.mutated
    assert outcome.payload["error"] == "unknown_tool"
    assert json.loads(outcome.content)["error"] == "unknown_tool"
    assert MANAGER in outcome.payload["message"]


def test_malformed_tool_arguments_are_an_error_not_an_exception(store: MemoryStore) -> None:
    outcome = MemoryAgent(store).execute_tool(MANAGER, '{"action": "read", ')
    assert not outcome.ok
    assert "error" in json.loads(outcome.content)


# --- extraction -------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_request_extraction_wait_returns_the_finished_result(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(PLAN, write_plan())
    seen: list[ExtractionResult] = []
    agent = MemoryAgent(store, llm=llm_client(llm_server), on_extraction=seen.append)

    result = await agent.request_extraction("conv-1", chat(), wait=True)

    assert result.status is ExtractionStatus.DONE
    assert result.written == ["pkg-manager"]
    assert seen == [result]
    assert "pkg-manager" in slugs(store)
    assert "[pkg-manager|f*:h|d0]" in agent.system_prompt_block()
    await agent.aclose()


@pytest.mark.asyncio
async def test_request_extraction_in_the_background_then_idle(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(PLAN, write_plan(), delay=0.2)
    seen: list[ExtractionResult] = []
    agent = MemoryAgent(store, llm=llm_client(llm_server), on_extraction=seen.append)

    immediate = await agent.request_extraction("conv-1", chat())

    assert immediate.status is ExtractionStatus.STARTED
    assert slugs(store) == set()  # not yet
    await asyncio.wait_for(agent.idle(), timeout=10)
    assert "pkg-manager" in slugs(store)
    assert [r.status for r in seen] == [ExtractionStatus.DONE]
    await agent.aclose()


@pytest.mark.asyncio
async def test_reviewer_mode_and_workdir_reach_the_extraction_round(
    store: MemoryStore, llm_server: FakeLLMServer, workdir: str
) -> None:
    llm_server.reply_tool(PLAN, write_plan("build-tool", scope="project", type="project"))
    agent = MemoryAgent(store, workdir=workdir, llm=llm_client(llm_server), reviewer_mode="strict")

    result = await agent.request_extraction("conv-1", chat(), wait=True)

    assert result.status is ExtractionStatus.DONE
    system, context = llm_server.requests[0]["messages"][:2]
    assert "Reviewer mode: strict." in system["content"]
    assert f"Workdir: {workdir}" in context["content"]
    assert "build-tool" in slugs(store, workdir)
    await agent.aclose()


@pytest.mark.asyncio
async def test_without_a_model_extraction_is_skipped(store: MemoryStore) -> None:
    agent = MemoryAgent(store)
    result = await agent.request_extraction("conv-1", chat(), wait=True)
    assert (result.status, result.reason) == (ExtractionStatus.SKIPPED, "no-model-configured")
    assert agent.extraction_enabled is False


@pytest.mark.asyncio
async def test_extraction_can_be_turned_off(store: MemoryStore, llm_server: FakeLLMServer) -> None:
    agent = MemoryAgent(store, llm=llm_client(llm_server), extraction_enabled=False)
    result = await agent.request_extraction("conv-1", chat(), wait=True)
    assert (result.status, result.reason) == (ExtractionStatus.SKIPPED, "extraction-disabled")
    assert llm_server.requests == []


@pytest.mark.asyncio
async def test_gates_apply_through_the_agent(store: MemoryStore, llm_server: FakeLLMServer) -> None:
    agent = MemoryAgent(store, llm=llm_client(llm_server))
    result = await agent.request_extraction("conv-1", chat("thanks a lot!"), wait=True)
    assert result.status is ExtractionStatus.SKIPPED
    assert result.reason == "acknowledgement-thanks"
    assert llm_server.requests == []


@pytest.mark.asyncio
async def test_turn_boundary_lifts_the_throttle(
    store: MemoryStore, llm_server: FakeLLMServer, clock: FakeClock
) -> None:
    llm_server.reply_tool(PLAN, {"status": "noop", "items": []})
    llm_server.reply_tool(PLAN, {"status": "noop", "items": []})
    agent = MemoryAgent(store, llm=llm_client(llm_server))
    messages = chat()
    first = await agent.request_extraction("conv-1", messages, wait=True)
    messages += chat("Also remember that I deploy with GitHub Actions.")

    clock.advance(seconds=29)
    throttled = await agent.request_extraction("conv-1", messages, wait=True)
    agent.note_turn_boundary("conv-1")
    allowed = await agent.request_extraction("conv-1", messages, wait=True)

    assert first.status is ExtractionStatus.NOOP
    assert throttled.reason == "throttled-min-interval"
    assert allowed.status is ExtractionStatus.NOOP
    assert len(llm_server.requests) == 2
    await agent.aclose()


@pytest.mark.asyncio
async def test_cancel_extraction_stops_the_run(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(PLAN, write_plan(), delay=0.5)
    seen: list[ExtractionResult] = []
    agent = MemoryAgent(store, llm=llm_client(llm_server), on_extraction=seen.append)

    await agent.request_extraction("conv-1", chat())
    await in_flight(llm_server)
    agent.cancel_extraction("conv-1")
    await asyncio.wait_for(agent.idle(), timeout=5)
    await asyncio.sleep(0.05)

    assert [r.status for r in seen] == [ExtractionStatus.CANCELLED]
    assert slugs(store) == set()
    await agent.aclose()


@pytest.mark.asyncio
async def test_dispose_cancels_and_forgets_the_conversation(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(PLAN, write_plan(), delay=0.5)
    llm_server.reply_tool(PLAN, write_plan("second-try"))
    seen: list[ExtractionResult] = []
    agent = MemoryAgent(store, llm=llm_client(llm_server), on_extraction=seen.append)
    messages = chat()

    started = await agent.request_extraction("conv-1", messages)
    await in_flight(llm_server)
    await asyncio.wait_for(agent.dispose("conv-1"), timeout=5)

    assert started.status is ExtractionStatus.STARTED
    assert [r.status for r in seen] == [ExtractionStatus.CANCELLED]
    assert slugs(store) == set()
    # Forgotten: the same message (and no throttle) is a fresh conversation again.
    again = await agent.request_extraction("conv-1", messages, wait=True)
    assert again.status is ExtractionStatus.DONE
    assert slugs(store) == {"second-try"}
    await agent.aclose()

"""MemoryManager action=context: task-aware context for an agent, on a real store."""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import pytest

from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.agent.manager_tool import ManagerToolExecutor, ToolOutcome, tool_schema
from liveagent_memory.cli.chat import TerminalChat
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.prompts import manager_tool as text
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer, llm_client

MANAGER = "MemoryManager"
TASK = "fix the login crash"
TASK_TYPES = ["exploration", "implementation", "debugging", "review", "refactoring"]


@pytest.fixture
def tool(store: MemoryStore, workdir: str) -> ManagerToolExecutor:
    return ManagerToolExecutor(store, workdir=workdir, with_context=True)


@pytest.fixture
def filled(store: MemoryStore, workdir: str) -> MemoryStore:
    """An anti-pattern, an episode, a project fact of this workdir and unrelated memories."""
    write = {"scope": "global", "confidence": "high"}
    dispatch(
        store,
        "memory_write",
        {
            **write,
            "slug": "login-retry",
            "type": "feedback",
            "description": "Never retry a login after a 401",
            "body": "Retrying a login after a 401 locks the account; show the error instead.",
            "source_quote": "never retry the login",
        },
    )
    for slug, body in [
        ("tea", "The user drinks oolong tea."),
        ("ci-cache", "CI caches pip downloads between runs."),
        ("fonts", "Screenshots need a CJK font."),
    ]:
        dispatch(
            store,
            "memory_write",
            {**write, "slug": slug, "type": "reference", "description": body, "body": body},
        )
    dispatch(
        store,
        "memory_write",
        {
            "slug": "login-service",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "The login service lives in auth/login.py",
            "body": "The login crash reports land in logs/auth.log.",
        },
    )
    dispatch(
        store,
        "episode_record",
        {"episode": {"goal": "fix the login crash on Safari", "outcome": "success"}},
    )
    return store


def ok(outcome: ToolOutcome) -> str:
    assert outcome.ok, outcome.content
    assert outcome.mutated is False
    return outcome.content


def failed(outcome: ToolOutcome, field: str) -> dict[str, Any]:
    """The tool's usual error: JSON content, never raised, same in content and payload."""
    assert outcome.ok is False, outcome.content
    content: dict[str, Any] = json.loads(outcome.content)
    assert content["error"] == "invalid_argument", content
    assert content["field"] == field, content
    assert content["message"]
    assert outcome.payload == content
    return content


def body_and_account(content: str) -> tuple[str, str]:
    body, _, account = content.rpartition("\n")
    return body, account


def contexts_counted(store: MemoryStore) -> int:
    return int(dispatch(store, "memory_metrics", {})["contexts"])


# --- schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize("writable", [False, True])
def test_schema_lists_context_and_its_arguments(writable: bool) -> None:
    schema = tool_schema(writable=writable, with_context=True)
    function = schema["function"]
    props = function["parameters"]["properties"]

    assert "context" in props["action"]["enum"]
    assert props["action"]["enum"][:4] == ["list", "read", "search", "context"]
    assert props["task_type"] == {
        "type": "string",
        "description": text.PARAMS["task_type"],
        "enum": TASK_TYPES,
    }
    budget = props["token_budget"]
    assert budget["type"] == "integer" and budget["minimum"] == 1
    assert budget["maximum"] == config.TOOL_CONTEXT_MAX_BUDGET
    assert str(config.TOOL_CONTEXT_DEFAULT_BUDGET) in budget["description"]
    assert "context:" in props["query"]["description"]
    assert function["parameters"]["required"] == ["action"]
    assert text.DESCRIPTION_CONTEXT in function["description"]
    assert "at the start of a task" in function["description"]
    assert ("action=write" in function["description"]) is writable
    # A valid JSON Schema of plain JSON, every property typed and described (OpenAI tools).
    jsonschema.Draft202012Validator.check_schema(function["parameters"])
    assert json.loads(json.dumps(schema)) == schema
    assert all(p.get("type") and p.get("description") for p in props.values())


def test_without_context_the_tool_is_unchanged(store: MemoryStore) -> None:
    """The extractor's lookups keep list/read/search: it gets its candidates in the prompt."""
    for writable in (False, True):
        plain = tool_schema(writable=writable)["function"]
        assert "context" not in plain["parameters"]["properties"]["action"]["enum"]
        assert not {"task_type", "token_budget"} & set(plain["parameters"]["properties"])
        assert text.DESCRIPTION_CONTEXT not in plain["description"]
    assert tool_schema(writable=False)["function"]["description"] == text.DESCRIPTION_READ_ONLY
    assert tool_schema(writable=True)["function"]["description"] == text.DESCRIPTION_READ_WRITE

    plain_tool = ManagerToolExecutor(store, writable=False)
    error = failed(plain_tool.execute({"action": "context", "query": TASK}), "action")
    assert "list, read, search" in error["message"] and "context" not in error["message"]
    failed(
        plain_tool.execute({"action": "search", "query": "x", "task_type": "review"}), "task_type"
    )


def test_the_host_offers_context_read_only_and_read_write(store: MemoryStore) -> None:
    for writable in (False, True):
        [schema] = MemoryAgent(store, writable_tool=writable).tool_schemas()
        assert schema == tool_schema(writable=writable, with_context=True)


# --- the action -------------------------------------------------------------------------------


def test_context_returns_the_text_within_the_default_budget(
    tool: ManagerToolExecutor, filled: MemoryStore
) -> None:
    outcome = tool.execute({"action": "context", "query": TASK})
    body, account = body_and_account(ok(outcome))

    result = outcome.payload
    assert result["token_budget"] == config.TOOL_CONTEXT_DEFAULT_BUDGET
    assert body == result["text"].rstrip("\n")
    assert body.startswith(f"# Memory for: {TASK} (task: debugging, detected)")
    assert "login-retry" in body  # the anti-pattern
    assert "fix the login crash on Safari" in body  # the episode
    assert "login-service" in body  # the workdir's project memory
    assert "oolong" not in body
    assert 0 < result["tokens_used"] <= config.TOOL_CONTEXT_DEFAULT_BUDGET
    assert estimate_tokens(result["text"]) == result["tokens_used"]
    assert account == (
        f"[context: {result['tokens_used']} of {config.TOOL_CONTEXT_DEFAULT_BUDGET} tokens; "
        f"task debugging (detected); {len(result['left_out'])} left out]"
    )


def test_a_small_budget_is_kept_and_what_was_left_out_is_said(
    tool: ManagerToolExecutor, filled: MemoryStore
) -> None:
    outcome = tool.execute(
        {"action": "context", "query": TASK, "task_type": "debugging", "token_budget": 40}
    )
    body, account = body_and_account(ok(outcome))

    result = outcome.payload
    assert result["token_budget"] == 40 and result["task_type_source"] == "given"
    assert estimate_tokens(body) <= result["tokens_used"] <= 40
    for_budget = [item for item in result["left_out"] if item["reason"] == "budget"]
    assert for_budget
    assert account.startswith("[context: ") and "task debugging (given)" in account
    assert f"{len(for_budget)} for the budget: a larger token_budget shows them" in account


def test_a_given_task_type_weighs_the_kinds(tool: ManagerToolExecutor, filled: MemoryStore) -> None:
    outcome = tool.execute({"action": "context", "query": TASK, "task_type": "implementation"})
    body, account = body_and_account(ok(outcome))
    assert "task implementation (given)" in account
    assert outcome.payload["weights"]["anti_patterns"] == 0.0
    assert "login-retry" not in body  # implementation does not look at anti-patterns


def test_the_workdir_is_the_agents(store: MemoryStore, filled: MemoryStore) -> None:
    elsewhere = ManagerToolExecutor(store, with_context=True)  # no project
    body, _ = body_and_account(ok(elsewhere.execute({"action": "context", "query": TASK})))
    assert "login-retry" in body and "login-service" not in body


def test_an_empty_result_says_so_plainly(tool: ManagerToolExecutor) -> None:
    outcome = tool.execute({"action": "context", "query": "migrate the zebra database"})
    body, account = body_and_account(ok(outcome))
    assert body == text.CONTEXT_EMPTY
    assert outcome.payload["text"] == ""
    assert account.startswith("[context: 0 of 1500 tokens; task ")


def test_when_nothing_fits_it_says_to_ask_for_more(
    tool: ManagerToolExecutor, filled: MemoryStore
) -> None:
    outcome = tool.execute({"action": "context", "query": TASK, "token_budget": 5})
    body, account = body_and_account(ok(outcome))
    assert body == text.CONTEXT_NOTHING_FITS.format(budget=5)
    assert "for the budget" in account


def test_read_only_mode_allows_context(store: MemoryStore, filled: MemoryStore) -> None:
    read_only = ManagerToolExecutor(store, writable=False, with_context=True)
    assert "login-retry" in ok(read_only.execute({"action": "context", "query": TASK}))
    agent = MemoryAgent(store, writable_tool=False)
    assert "login-retry" in ok(agent.execute_tool(MANAGER, {"action": "context", "query": TASK}))
    # Still read-only for the rest.
    refused = agent.execute_tool(MANAGER, {"action": "delete", "slug": "login-retry"})
    assert refused.payload["error"] == "action_not_allowed"


def test_an_agents_call_counts_in_the_retrieval_metrics(
    tool: ManagerToolExecutor, filled: MemoryStore
) -> None:
    assert contexts_counted(filled) == 0
    ok(tool.execute({"action": "context", "query": TASK}))
    ok(tool.execute({"action": "context", "query": "migrate the zebra database"}))
    report = dispatch(filled, "memory_metrics", {})
    assert report["contexts"] == 2 and report["hit_rate"] == 0.5
    assert report["tokens"]["budget"] == 2 * config.TOOL_CONTEXT_DEFAULT_BUDGET


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"task_type": "cooking"}, "task_type"),
        ({"task_type": 3}, "task_type"),
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": None}, "query"),
        ({"token_budget": 0}, "token_budget"),
        ({"token_budget": -5}, "token_budget"),
        ({"token_budget": "many"}, "token_budget"),
        ({"token_budget": True}, "token_budget"),
        ({"token_budget": config.TOOL_CONTEXT_MAX_BUDGET + 1}, "token_budget"),
    ],
)
def test_bad_arguments_are_the_tools_error(
    tool: ManagerToolExecutor, filled: MemoryStore, args: dict[str, Any], field: str
) -> None:
    call = {"action": "context", "query": TASK, **args}
    failed(tool.execute(call), field)
    assert contexts_counted(filled) == 0  # a refused call is not a context


def test_unknown_task_type_names_the_five(tool: ManagerToolExecutor) -> None:
    error = failed(
        tool.execute({"action": "context", "query": TASK, "task_type": "x"}), "task_type"
    )
    assert all(name in error["message"] for name in TASK_TYPES)


def test_the_largest_budget_is_allowed(tool: ManagerToolExecutor, filled: MemoryStore) -> None:
    budget = config.TOOL_CONTEXT_MAX_BUDGET
    outcome = tool.execute({"action": "context", "query": TASK, "token_budget": budget})
    ok(outcome)
    assert outcome.payload["token_budget"] == budget


# --- through a chat host and the fake model ---------------------------------------------------


@pytest.mark.asyncio
async def test_a_models_context_call_runs_in_the_host_and_its_result_goes_back(
    filled: MemoryStore, workdir: str, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(
        MANAGER, {"action": "context", "query": TASK, "task_type": "debugging", "token_budget": 600}
    )
    llm_server.reply_text("Show the 401 instead of retrying the login.")
    llm = llm_client(llm_server)
    agent = MemoryAgent(filled, workdir=workdir, llm=llm, extraction_enabled=False)
    out = io.StringIO()
    chat = TerminalChat(agent, llm, out=out)

    answer = await chat.turn(TASK)
    await agent.aclose()

    assert answer == "Show the 401 instead of retrying the login."
    assert f"  (tool {MANAGER}: ok)" in out.getvalue().splitlines()
    first, second = llm_server.requests
    [schema] = first["tools"]
    assert "context" in schema["function"]["parameters"]["properties"]["action"]["enum"]
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == first_call_id(second)
    body, account = body_and_account(tool_message["content"])
    assert body.startswith(f"# Memory for: {TASK} (task: debugging, given)")
    assert "login-retry" in body and "login-service" in body
    assert account.startswith("[context: ") and " of 600 tokens;" in account
    assert contexts_counted(filled) == 1


def first_call_id(request: dict[str, Any]) -> str:
    """The id of the assistant's tool call the tool message answers."""
    assistant = next(m for m in request["messages"] if m.get("tool_calls"))
    return str(assistant["tool_calls"][0]["id"])


def test_the_tool_offers_every_field_of_a_structured_skill() -> None:
    """The hand-written schema must follow SkillInput, or a new field is never offered."""
    from liveagent_memory.agent.manager_tool import _skill_properties
    from liveagent_memory.domain.requests import SkillErrorInput, SkillInput

    properties = _skill_properties()
    assert set(properties) == set(SkillInput.model_fields)
    item = properties["common_errors"]["items"]["properties"]
    assert set(item) == set(SkillErrorInput.model_fields)

"""The terminal chat host and the agent CLI subcommands (`chat`, `settings`, `key`), in-process.

Standard input is a StringIO (not a terminal), so the chat reads one user turn per line; the
model is the scripted fake server, reached through real litellm.
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.retrieval.embeddings import local_provider, vectors_folder
from liveagent_memory.retrieval.vectors import VectorIndex, index_stem
from liveagent_memory.settings import SecretStore
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fake_llm import (
    API_KEY,
    MODEL,
    FakeLLMServer,
    Reply,
    completion_body,
    tool_call,
)
from tests.helpers.fakes import MemoryKeyring
from tests.helpers.memories import memory_payload, seed_home

PLAN = "SubmitMemoryPlan"
MANAGER = "MemoryManager"
FIRST = "Please always use pnpm for installs in my projects."


def chat(home: Path, server: FakeLLMServer, lines: str, *extra: str) -> tuple[int, str]:
    argv = [
        "chat",
        "--model",
        MODEL,
        "--api-base",
        server.base_url,
        "--home",
        str(home),
        "--create",
    ]
    code, out, _ = run_cli(*argv, *extra, stdin=lines)
    return code, out


def write_plan(slug: str) -> dict[str, Any]:
    item = {
        "action": "write",
        "slug": slug,
        "scope": "global",
        "type": "feedback",
        "description": f"About {slug}",
        "body": f"Body of {slug}.",
        "confidence": "high",
        "source_quote": "always use pnpm",
    }
    return {"status": "updated", "items": [item]}


def text_reply(text: str, delay: float = 0.0) -> Reply:
    return Reply(completion_body(content=text), delay=delay)


def tool_reply(name: str, arguments: dict[str, Any], delay: float = 0.0) -> Reply:
    return Reply(completion_body(tool_calls=[tool_call(name, arguments)]), delay=delay)


def route(server: FakeLLMServer, *, chat: list[Reply], extraction: list[Reply]) -> None:
    """Answer chat and extraction requests from separate queues (they may interleave)."""
    queues = {"chat": deque(chat), "extraction": deque(extraction)}

    def pick(body: dict[str, Any]) -> Reply:
        names = [tool["function"]["name"] for tool in body.get("tools") or []]
        return queues["extraction" if PLAN in names else "chat"].popleft()

    for _ in range(len(chat) + len(extraction)):
        server.push(pick)


def stored_slugs(home: Path) -> set[str]:
    with MemoryStore.open(home) as store:
        return {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]}


def header(headers: dict[str, str], name: str) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == name.lower()), None)


def files_under(folder: Path) -> list[bytes]:
    return [p.read_bytes() for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


@pytest.fixture
def keyed(memory_keyring: MemoryKeyring) -> MemoryKeyring:
    """The fake server's key, stored the way a person would: in the keyring."""
    SecretStore().set("default", API_KEY)
    return memory_keyring


# --- chat -------------------------------------------------------------------------------------
@pytest.mark.usefixtures("keyed")
def test_scripted_chat_with_wait_shows_extraction_and_writes_memory(
    home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(MANAGER, {"action": "search", "query": "pnpm"})
    llm_server.reply_text("Got it, pnpm from now on.")
    llm_server.reply_tool(PLAN, write_plan("pkg-manager"))
    llm_server.reply_text("You're welcome!")

    code, out = chat(home, llm_server, f"{FIRST}\nthanks a lot!\n", "--wait")

    assert code == 0
    lines = out.splitlines()
    assert lines == [
        f"  (tool {MANAGER}: ok)",
        "assistant> Got it, pnpm from now on.",
        "[memory: done — 1 applied, 0 rejected, 0 failed — wrote pkg-manager]",
        "assistant> You're welcome!",
        "[memory: skipped (acknowledgement-thanks)]",
        "[tokens: 600 (480 in, 120 out) over 4 calls]",
    ]
    assert len(llm_server.requests) == 4
    first = llm_server.requests[0]
    assert llm_server.tool_names(0) == [MANAGER]
    actions = first["tools"][0]["function"]["parameters"]["properties"]["action"]["enum"]
    assert "write" in actions  # the chat model gets the read-write tool
    assert "<memory-index>" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": FIRST}
    assert llm_server.requests[1]["messages"][-1]["role"] == "tool"
    assert llm_server.tool_names(2) == [MANAGER, PLAN]
    # The next turn's system prompt shows the memory extracted after the first.
    assert "[pkg-manager|f*:h|d0]" in llm_server.requests[3]["messages"][0]["content"]
    assert stored_slugs(home) == {"pkg-manager"}
    with MemoryStore.open(home) as store:
        memory = dispatch(store, "memory_read", {"slug": "pkg-manager"})
    assert memory["entry"]["unreviewed"] is True
    assert memory["source"]["conversationId"].startswith("cli-")


@pytest.mark.usefixtures("keyed")
def test_the_chat_builds_the_local_vector_index_in_the_background(
    home: Path, llm_server: FakeLLMServer
) -> None:
    seed_home(home, [memory_payload(slug, body=f"{slug} notes") for slug in ("tea", "helm")])
    provider = local_provider()
    folder = vectors_folder(home)
    index_file = folder / f"{index_stem(provider.provider, provider.model)}.json"

    def answer_once_embedded(_body: dict[str, Any]) -> Reply:
        # The model answers only once the pass the chat started has saved the index.
        deadline = time.monotonic() + 60
        while not index_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return text_reply("You're welcome!")

    llm_server.push(answer_once_embedded)
    code, out = chat(home, llm_server, "thanks a lot!\n")

    assert code == 0 and "assistant> You're welcome!" in out
    index = VectorIndex.open(folder, provider.provider, provider.model)
    assert len(index) == 2 and index.dimension == 384
    assert not (folder / config.VECTOR_BUILD_FILENAME).exists()  # the pass ended


@pytest.mark.usefixtures("keyed")
def test_background_extraction_prints_results_and_finishes_before_exit(
    home: Path, llm_server: FakeLLMServer
) -> None:
    route(
        llm_server,
        chat=[text_reply("Noted: pnpm."), text_reply("Noted: tabs.")],
        extraction=[
            tool_reply(PLAN, write_plan("pkg-manager"), delay=0.6),
            tool_reply(PLAN, write_plan("indent-style")),
        ],
    )
    second = "Also remember that I indent with tabs, always."

    code, out = chat(home, llm_server, f"{FIRST}\n{second}\n")

    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == ["assistant> Noted: pnpm.", "assistant> Noted: tabs."]  # chat went on
    assert sorted(lines[2:4]) == [
        "[memory: done — 1 applied, 0 rejected, 0 failed — wrote indent-style]",
        "[memory: done — 1 applied, 0 rejected, 0 failed — wrote pkg-manager]",
    ]
    assert lines[4].startswith("[tokens: ") and len(lines) == 5
    assert stored_slugs(home) == {"pkg-manager", "indent-style"}  # waited before exit
    assert len(llm_server.requests) == 4


@pytest.mark.usefixtures("keyed")
def test_chat_model_error_prints_a_line_and_the_chat_continues(
    home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.reply_tool(MANAGER, {"action": "list"})
    llm_server.reply_error(500, "the model fell over")
    llm_server.reply_text("Second answer.")
    llm_server.reply_tool(PLAN, {"status": "noop", "items": []})
    second = "Remember that my name is Ada, please."

    code, out = chat(home, llm_server, f"{FIRST}\n{second}\n", "--wait")

    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"  (tool {MANAGER}: ok)"
    assert lines[1].startswith("error (llm_unavailable): ")
    assert "the model fell over" in lines[1]
    assert lines[2:4] == ["assistant> Second answer.", "[memory: noop — model-noop]"]
    # The failed turn is gone entirely: no orphan user message, no unanswered tool call.
    messages = llm_server.requests[2]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == second
    window = llm_server.requests[3]["messages"][1]["content"]
    assert FIRST not in window
    assert stored_slugs(home) == set()


def test_chat_without_a_model_exits_1_with_a_clear_message(home: Path) -> None:
    code, out, _ = run_cli(
        "chat", "--home", str(home), "--create", "--json", stdin="hello there, remember me\n"
    )

    assert code == 1
    error = json.loads(out)
    assert error["error"] == "llm_not_configured"
    assert "--model" in error["message"] and "settings" in error["message"]


def test_key_from_the_keyring_is_sent_to_the_server(
    home: Path, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> None:
    secret = "sk-from-the-keyring-0123456789"
    SecretStore().set("default", secret)
    llm_server.reply_text("Sure.")
    llm_server.reply_tool(PLAN, write_plan("pkg-manager"))

    code, out = chat(home, llm_server, f"{FIRST}\n", "--wait")

    assert code == 0
    assert len(llm_server.headers) == 2
    for headers in llm_server.headers:  # chat and extraction requests
        assert header(headers, "Authorization") == f"Bearer {secret}"
    assert secret not in out
    assert not any(secret.encode() in data for data in files_under(home))


@pytest.mark.usefixtures("keyed")
def test_saved_settings_drive_the_chat(home: Path, llm_server: FakeLLMServer) -> None:
    code, _, _ = run_cli(
        "settings",
        "--home",
        str(home),
        "--create",
        "--model",
        MODEL,
        "--api-base",
        llm_server.base_url,
        "--reviewer-mode",
        "strict",
    )
    assert code == 0
    llm_server.reply_text("Okay.")
    llm_server.reply_tool(PLAN, {"status": "noop", "items": []})

    code, out, _ = run_cli("chat", "--home", str(home), "--create", "--wait", stdin=f"{FIRST}\n")

    assert code == 0
    assert "[memory: noop — model-noop]" in out
    assert llm_server.requests[0]["model"] == "fake-model"
    assert "Reviewer mode: strict." in llm_server.requests[1]["messages"][0]["content"]


@pytest.mark.usefixtures("keyed")
def test_extraction_off_in_settings_skips_after_each_turn(
    home: Path, llm_server: FakeLLMServer
) -> None:
    assert run_cli("settings", "--home", str(home), "--create", "--extraction", "off")[0] == 0
    llm_server.reply_text("Okay.")

    code, out = chat(home, llm_server, f"{FIRST}\n")

    assert code == 0
    assert "[memory: skipped (extraction-disabled)]" in out.splitlines()
    assert len(llm_server.requests) == 1  # only the chat call


@pytest.mark.usefixtures("keyed")
def test_read_only_chat_gets_the_read_only_tool(home: Path, llm_server: FakeLLMServer) -> None:
    llm_server.reply_text("Okay.")
    llm_server.reply_tool(PLAN, {"status": "noop", "items": []})

    assert chat(home, llm_server, f"{FIRST}\n", "--read-only", "--wait")[0] == 0

    tool = llm_server.requests[0]["tools"][0]["function"]
    assert set(tool["parameters"]["properties"]["action"]["enum"]) == {
        "list",
        "read",
        "search",
        "context",
    }


# --- settings ---------------------------------------------------------------------------------
def test_settings_are_saved_shown_and_hold_no_key(
    home: Path, memory_keyring: MemoryKeyring
) -> None:
    secret = "sk-never-in-a-file-987654321"
    SecretStore().set("default", secret)

    code, out, _ = run_cli(
        "settings",
        "--home",
        str(home),
        "--create",
        "--model",
        "openai/gpt-4o-mini",
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--extraction-model",
        "openai/gpt-4o",
        "--reviewer-mode",
        "lenient",
    )

    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "default",
        "openai/gpt-4o-mini",
        "at",
        "http://127.0.0.1:9/v1;",
        "key",
        "in",
        "keyring",
    ]
    assert lines[1].startswith("extraction  openai/gpt-4o;")
    assert "(same as default)" in lines[2]  # organizer falls back to the default model
    assert "reviewer mode: lenient" in lines
    assert "extraction: on" in lines
    saved = (home / config.SETTINGS_FILENAME).read_text(encoding="utf-8")
    data = json.loads(saved)
    assert data["default"] == {"model": "openai/gpt-4o-mini", "api_base": "http://127.0.0.1:9/v1"}
    assert data["extraction"]["model"] == "openai/gpt-4o"
    assert data["reviewer_mode"] == "lenient"
    assert secret not in saved and "api_key" not in saved

    code, out, _ = run_cli(
        "settings", "--home", str(home), "--create", "--json"
    )  # shown again, unchanged
    shown = json.loads(out)
    assert code == 0
    assert shown["settings"]["reviewer_mode"] == "lenient"
    assert shown["keys"] == {"default": True, "extraction": True, "organizer": True}
    assert shown["keyring"]["available"] is True
    assert secret not in out


def test_settings_reject_a_bad_api_base(home: Path) -> None:
    code, out, _ = run_cli(
        "settings", "--home", str(home), "--create", "--api-base", "ftp://example.com", "--json"
    )
    assert code == 1
    assert json.loads(out)["error"] == "settings_invalid"
    assert not (home / config.SETTINGS_FILENAME).exists()


# --- keys -------------------------------------------------------------------------------------
def test_key_set_status_clear(home: Path, memory_keyring: MemoryKeyring) -> None:
    code, out, _ = run_cli(
        "key", "set", "--home", str(home), "--create", stdin="  sk-typed-in-0001  \n"
    )
    assert code == 0
    assert out == "default: key stored in the system keyring\n"
    assert memory_keyring.secrets == {(config.KEYRING_SERVICE, "default"): "sk-typed-in-0001"}

    code, out, _ = run_cli("key", "status", "--home", str(home), "--create")
    assert code == 0
    assert out.splitlines() == ["API keys are stored in the system keyring.", "default: stored"]
    assert "sk-typed-in" not in out

    code, out, _ = run_cli("key", "clear", "--home", str(home), "--create")
    assert (code, out) == (0, "default: cleared\n")
    assert memory_keyring.secrets == {}
    code, out, _ = run_cli("key", "clear", "--home", str(home), "--create")
    assert (code, out) == (0, "default: no key was stored\n")
    assert run_cli("key", "status", "--home", str(home), "--create")[1].endswith(
        "default: not stored\n"
    )
    assert files_under(home) == []  # keys never touch the store folder


def test_key_per_purpose(home: Path, memory_keyring: MemoryKeyring) -> None:
    code, _, _ = run_cli(
        "key", "set", "--purpose", "extraction", "--home", str(home), "--create", stdin="sk-x-1\n"
    )
    assert code == 0
    assert memory_keyring.secrets == {(config.KEYRING_SERVICE, "extraction"): "sk-x-1"}
    status = run_cli("key", "status", "--purpose", "default", "--home", str(home), "--create")
    assert status.out.endswith("default: not stored\n")


def test_key_set_with_empty_input_is_refused(home: Path, memory_keyring: MemoryKeyring) -> None:
    code, out, _ = run_cli("key", "set", "--json", "--home", str(home), "--create", stdin="\n")
    assert code == 1
    assert json.loads(out)["error"] == "settings_invalid"
    assert memory_keyring.secrets == {}


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_key_set_fails_and_writes_nothing(
    home: Path, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    code, out, _ = run_cli(
        "key", "set", "--json", "--home", str(home), "--create", stdin="sk-nowhere-to-go-42\n"
    )

    assert code == 1
    error = json.loads(out)
    assert error["error"] == "keyring_unavailable"
    assert "environment variable" in error["message"]
    assert "sk-nowhere-to-go-42" not in out
    assert memory_keyring.secrets == {}
    assert not any(b"sk-nowhere-to-go-42" in data for data in files_under(tmp_path))

    code, out, _ = run_cli("key", "status", "--home", str(home), "--create")
    assert code == 1
    assert "No secure keyring" in out

    code, out, _ = run_cli("settings", "--home", str(home), "--create")
    assert code == 0
    assert "no stored key" in out and "No secure keyring" in out

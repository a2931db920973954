"""The AppContext (liveagent_memory/context.py): the composition root's one object.

Built once per CLI run and handed down; its settings are read again after a save and when the
file changes; commands, the embedding chain and the model factory take settings and keys from
it, so a context with in-memory settings and keys never reaches settings.json or the keyring.
Real stores in tmp_path, the real CLI, the fake OpenAI-compatible servers.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sqlite3
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.cli import app as cli_app
from liveagent_memory.cli.entry import chosen_command, group_of
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext, context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.retrieval.embeddings import EmbeddingProvider
from liveagent_memory.retrieval.vectors import numpy_available
from liveagent_memory.settings import ModelChoice, SecretStore, Settings, SettingsFile
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fake_embeddings import FakeEmbeddingServer
from tests.helpers.fake_llm import API_KEY, MODEL, FakeLLMServer
from tests.helpers.fakes import FakeClock, MemoryKeyring, MemorySettings

CONTEXT_LOGGER = "liveagent_memory.context"
BROKEN_JSON = b'{"default": {"model": '  # settings.json a person broke by hand


def tea(store: MemoryStore) -> None:
    store.write(
        WriteRequest(
            slug="tea",
            scope="global",
            type="user",
            description="Tea",
            body="The user likes oolong.",
        )
    )


# --- built once per CLI run ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("search", "oolong"),
        ("overview",),
        ("context", "oolong tea"),
        ("organize", "--offline"),
        ("settings", "--reviewer-mode", "strict"),
        ("key", "status"),
    ],
)
def test_the_cli_builds_one_context_per_run(
    home: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture, argv: tuple[str, ...]
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        tea(store)
    caplog.set_level(logging.DEBUG, logger=CONTEXT_LOGGER)

    code, _, _ = run_cli(*argv, home=home, clock=clock)

    assert code == 0
    built = [r for r in caplog.records if r.name == CONTEXT_LOGGER]
    # The commands it runs, the agent and the organizer all used the run's one context: a
    # part that built its own (a bare-store dispatch included) would add a record.
    assert [r.getMessage() for r in built] == [f"app context for {home}"]


def test_settings_and_key_commands_open_no_store(home: Path, clock: FakeClock) -> None:
    assert run_cli("key", "status", home=home, clock=clock)[0] in (0, 1)
    code, out, _ = run_cli("settings", "--json", home=home, clock=clock)

    assert code == 0 and json.loads(out)["settings"]["reviewer_mode"] == "standard"
    assert not home.exists()  # the context opens its store only when a command uses it


@pytest.mark.usefixtures("memory_keyring")
def test_a_chat_searches_with_the_configured_embedding_chain(
    home: Path, clock: FakeClock, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent reads no settings itself: the chat hands it the run's chain source."""
    if not numpy_available():
        pytest.skip("numpy (vector search) is absent")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)  # both fake servers accept it
    with FakeEmbeddingServer() as embedder:
        embedder.add_model("embed-a", dimension=16)
        provider = {"provider": "openai", "model": "embed-a", "api_base": embedder.base_url}
        saved = {"settings": {"embeddings": [provider], "extraction_enabled": False}}
        with MemoryStore.open(home, clock=clock) as store:
            tea(store)
            dispatch(store, "settings_save_memory", saved)
        assert run_cli("embeddings", "rebuild", home=home, clock=clock)[0] == 0
        llm_server.reply_tool("MemoryManager", {"action": "search", "query": "oolong"})
        llm_server.reply_text("You like oolong.")

        code, out, _ = run_cli(
            "chat",
            "--model",
            MODEL,
            "--api-base",
            llm_server.base_url,
            stdin="tea?\n",
            home=home,
            clock=clock,
        )

        assert code == 0 and "assistant> You like oolong." in out
        queries = embedder.embedding_inputs("embed-a")[1:]  # after the rebuild's
        assert len(queries) == 1 and "oolong" in queries[0][0]
        tool_answer = llm_server.requests[1]["messages"][-1]
        assert tool_answer["role"] == "tool" and "tea" in tool_answer["content"]


def test_no_arguments_with_a_display_choose_the_app() -> None:
    """Routing follows the chosen command: before the package, no arguments on a desktop
    reached the chat handler and failed with internal_error."""
    none = argparse.Namespace(command=None)
    assert chosen_command(none, display=True) == "app"
    assert chosen_command(none, display=False) == "status"
    assert group_of("app") is cli_app.GROUP
    assert group_of(chosen_command(argparse.Namespace(command="key"), display=True)).commands == (
        "key",
    )


# --- settings: current, read again after a save ----------------------------------------------


def test_settings_are_read_again_after_a_save_and_when_the_file_changes(tmp_path: Path) -> None:
    settings = SettingsFile(tmp_path)
    assert settings.current() == Settings()  # no file: the defaults

    saved = settings.save(settings.current().merged({"reviewer_mode": "strict"}))

    assert saved.reviewer_mode == settings.current().reviewer_mode == "strict"
    on_disk = json.loads((tmp_path / config.SETTINGS_FILENAME).read_text("utf-8"))
    assert on_disk["reviewer_mode"] == "strict"
    # Another program changes the file: the next call sees it.
    on_disk["reviewer_mode"] = "lenient"
    (tmp_path / config.SETTINGS_FILENAME).write_text(json.dumps(on_disk), "utf-8")
    assert settings.current().reviewer_mode == "lenient"
    # A broken file is an error at every call, never a stale answer; fixed, it counts again.
    (tmp_path / config.SETTINGS_FILENAME).write_bytes(BROKEN_JSON)
    for _ in range(2):
        with pytest.raises(SettingsInvalid) as caught:
            settings.current()
        assert caught.value.code == "settings_invalid"
    (tmp_path / config.SETTINGS_FILENAME).unlink()
    assert settings.current() == Settings()


def test_a_save_through_the_command_counts_for_the_contexts_model_factory(
    store: MemoryStore, memory_keyring: MemoryKeyring
) -> None:
    context = context_for(store)
    assert context.model_config("organizer").model == ""
    SecretStore().set("organizer", "sk-organizer-key")

    dispatch(context, "settings_save_memory", {"settings": {"organizer_model": {"model": "m/o"}}})

    client = context.llm("organizer")
    assert (client.config.model, client.config.api_key) == ("m/o", "sk-organizer-key")
    assert context.llm("default").config.model == ""  # other purposes unchanged


# --- in-memory settings and secrets: no file, no keyring -----------------------------------------


@pytest.mark.usefixtures("no_keyring")
def test_commands_on_a_context_with_in_memory_settings_and_keys_touch_no_file_or_keyring(
    store: MemoryStore,
) -> None:
    (store.root / config.SETTINGS_FILENAME).write_bytes(BROKEN_JSON)  # read: SettingsInvalid
    backend = MemoryKeyring()
    secrets = SecretStore(backend=backend)
    secrets.set("default", "sk-in-memory-key")
    broken_chain = ({"provider": "openai", "model": "m", "api_base": "ftp://nowhere"},)
    settings = MemorySettings(Settings(embeddings=broken_chain))
    context = context_for(store, settings=settings, secrets=secrets)
    tea(store)

    shown = dispatch(context, "settings_get")
    saved = dispatch(context, "settings_save_memory", {"settings": {"reviewer_mode": "strict"}})
    found = dispatch(context, "memory_search", {"query": "oolong"})

    # The context's keys, not the process keyring (which fails every call here).
    assert shown["keyring"]["available"] is True
    assert shown["keys"] == {"default": True, "extraction": True, "organizer": True}
    assert saved["settings"]["reviewer_mode"] == settings.current().reviewer_mode == "strict"
    assert len(settings.saved) == 1
    # The search's chain came from the in-memory settings (their broken provider is reported).
    assert found["mode"] == "keyword" and [m["slug"] for m in found["matches"]] == ["tea"]
    assert found["reason"] == (
        "embeddings are configured but unusable: Embedding provider 1's base URL must start "
        "with http:// or https://."
    )
    assert (store.root / config.SETTINGS_FILENAME).read_bytes() == BROKEN_JSON  # untouched
    assert context.llm("default").config.api_key == "sk-in-memory-key"
    with pytest.raises(SettingsInvalid):  # the store's own default context does read the file
        dispatch(store, "settings_get")


@pytest.mark.usefixtures("no_keyring")
def test_an_agent_given_no_chain_source_reads_no_settings(store: MemoryStore) -> None:
    """No service reads settings itself: the agent's default is nothing configured."""
    (store.root / config.SETTINGS_FILENAME).write_bytes(BROKEN_JSON)
    tea(store)

    outcome = MemoryAgent(store).execute_tool("MemoryManager", {"action": "search", "query": "tea"})

    assert outcome.ok, outcome.content
    assert outcome.payload["mode"] == "keyword"
    assert "settings" not in json.dumps(outcome.payload.get("failures", []))
    assert (store.root / config.SETTINGS_FILENAME).read_bytes() == BROKEN_JSON


# --- the store: opened on first use, closed by whoever opened it ----------------------------


def test_an_opened_context_opens_its_store_on_first_use_and_closes_it(
    home: Path, clock: FakeClock
) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # restored by the autouse fixture
    context = AppContext.open(
        home, clock=clock, settings=MemorySettings(Settings(default=ModelChoice(model="m/x")))
    )
    assert context.llm("default").config.model == "m/x"
    assert not home.exists()  # nothing opened yet

    with context:
        store = context.store
        assert context.open_store() is store and home.is_dir()
        assert dispatch(context, "memory_paths_info")["root"] == str(home.absolute())
    with context:  # closed on exit: a later use opens the store again
        assert context.store is not store


def test_a_bare_stores_default_context_leaves_the_store_open(store: MemoryStore) -> None:
    with context_for(store) as context:
        assert context.store is store and context.home == store.root
    tea(store)  # still open and usable
    assert dispatch(store, "memory_list")["total"] == 1


def test_a_context_keeps_its_own_searchers_and_closes_them_with_itself(store: MemoryStore) -> None:
    """No searcher is shared between contexts (no module-level cache); a chain whose key
    changed gets a searcher of its own; closing the context closes their caches."""
    provider = EmbeddingProvider("openai", "embed-a", api_key="sk-one")
    context, other = context_for(store), context_for(store)
    kept = context.embeddings.searchers.searcher(store, (provider,))
    assert context.embeddings.searchers.searcher(store, (provider,)) is kept
    assert other.embeddings.searchers.kept(store) == ()
    rekeyed = dataclasses.replace(provider, api_key="sk-two")  # compares equal to `provider`
    assert context.embeddings.searchers.searcher(store, (rekeyed,)) is not kept
    cache = kept.chain.cache
    assert cache is not None and len(cache) == 0

    context.close()

    assert context.embeddings.searchers.kept(store) == ()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        len(cache)
    tea(store)  # the store stays open: the caller's

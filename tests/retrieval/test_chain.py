"""retrieval/chain.py and retrieval/service.py: a request's provider chain from its source.

The chain logic moved out of the command table: given providers, else the source's configured
list, else the local provider when installed; keys by `key_purpose` from the source. Search
tolerates a broken configured list (keyword-only, reported); an explicit chain does not. Real
stores, the fake OpenAI-compatible embedding server reached through litellm.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from liveagent_memory.context import context_for
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.domain.requests import (
    EmbeddingsRequest,
    HybridSearchRequest,
    SearchRequest,
    WriteRequest,
)
from liveagent_memory.retrieval import service
from liveagent_memory.retrieval.chain import (
    ChainSource,
    provider_chain,
    unconfigured_source,
)
from liveagent_memory.retrieval.embeddings import local_installed
from liveagent_memory.retrieval.vectors import numpy_available
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_embeddings import FakeEmbeddingServer
from tests.helpers.fakes import MemoryKeyring

KEY = "sk-chain-source-key"


def source(
    configured: Sequence[dict[str, Any]] = (), keys: dict[str, str] | None = None
) -> ChainSource:
    return ChainSource(configured=lambda: list(configured), api_key=(keys or {}).get)


def broken() -> list[dict[str, Any]]:
    raise SettingsInvalid("settings.json is not valid JSON", field="settings.json")


def test_given_providers_win_and_get_their_keys() -> None:
    configured = [{"provider": "cohere", "model": "embed-x"}]
    given = [{"provider": "openai", "model": "m", "key_purpose": "organizer"}]

    (provider,) = provider_chain(source(configured, {"organizer": KEY}), given)

    assert (provider.key, provider.api_key) == ("openai/m", KEY)


def test_the_configured_list_is_used_when_none_is_given() -> None:
    configured = [
        {"provider": "openai", "model": "a", "key_purpose": "default"},
        {"provider": "ollama", "model": "b", "api_base": "http://127.0.0.1:1"},
    ]

    chain = provider_chain(source(configured, {"default": KEY}), None)

    assert [(p.key, p.api_key) for p in chain] == [("openai/a", KEY), ("ollama/b", None)]


def test_nothing_configured_falls_back_to_the_local_provider_if_installed() -> None:
    chain = provider_chain(source(), None)
    assert [p.key for p in chain] == (["local/" + chain[0].model] if local_installed() else [])
    assert provider_chain(source(), []) == ()  # an empty list given: no provider at all


@pytest.mark.parametrize(
    ("configured", "given", "field"),
    [
        ([], [{"provider": "openai"}], "providers[0].model"),
        ([{"provider": "openai", "model": "m", "bogus": 1}], None, "embeddings[0].bogus"),
    ],
)
def test_a_bad_entry_is_named(
    configured: list[dict[str, Any]], given: list[dict[str, Any]] | None, field: str
) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        provider_chain(source(configured), given)
    assert (caught.value.code, caught.value.field) == ("settings_invalid", field)


def test_a_contexts_source_reads_settings_json_at_each_use(store: MemoryStore) -> None:
    from_settings = context_for(store).embeddings
    assert provider_chain(from_settings, None) == provider_chain(source(), None)
    entry = {"provider": "openai", "model": "embed-a"}

    (store.root / "settings.json").write_text(json.dumps({"embeddings": [entry]}), "utf-8")

    assert [p.key for p in provider_chain(from_settings, None)] == ["openai/embed-a"]


# --- search with a source -----------------------------------------------------------------------
needs_numpy = pytest.mark.skipif(not numpy_available(), reason="numpy (vector search) is absent")


def drinks(store: MemoryStore) -> None:
    store.write(
        WriteRequest(
            slug="drinks", scope="global", type="reference", description="tea", body="oolong tea"
        )
    )


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as server:
        yield server


@pytest.fixture
def server(shared_server: FakeEmbeddingServer) -> FakeEmbeddingServer:
    server = shared_server.reset()
    server.add_model("embed-a", dimension=16)
    return server


def remote(server: FakeEmbeddingServer) -> dict[str, Any]:
    return {"provider": "openai", "model": "embed-a", "api_base": server.base_url}


@needs_numpy
def test_search_fuses_embeddings_of_the_sources_chain(
    store: MemoryStore, server: FakeEmbeddingServer
) -> None:
    drinks(store)
    chain = source([{**remote(server), "key_purpose": "default"}], {"default": KEY})
    rebuilt = service.embeddings_rebuild(store, EmbeddingsRequest(), chain)
    assert (rebuilt.status, rebuilt.embedded) == ("ok", 1)

    result = service.search(store, SearchRequest(query="oolong"), chain)

    assert (result.mode, result.provider) == ("hybrid", "openai/embed-a")
    assert [hit.slug for hit in result.matches] == ["drinks"]
    keys = {
        h.get("authorization")
        for h in ({k.lower(): v for k, v in h.items()} for h in server.headers)
    }
    assert keys == {f"Bearer {KEY}"}  # the source's key, for the rebuild and the query
    # the store's own settings (none) would have given keyword-only
    plain = service.search(store, SearchRequest(query="oolong"), context_for(store).embeddings)
    assert plain.mode == "keyword"


def test_search_tolerates_a_broken_configured_list_and_says_so(store: MemoryStore) -> None:
    drinks(store)
    chain = ChainSource(configured=broken, api_key=lambda _purpose: None)

    result = service.search(store, SearchRequest(query="oolong"), chain)

    assert (result.mode, [hit.slug for hit in result.matches]) == ("keyword", ["drinks"])
    assert (
        result.reason == "embeddings are configured but unusable: settings.json is not valid JSON"
    )
    assert result.failures == [
        {
            "provider": "settings",
            "error": "settings_invalid",
            "message": "settings.json is not valid JSON",
        }
    ]
    with pytest.raises(SettingsInvalid):  # the explicit hybrid search says what is wrong
        service.search_hybrid(store, HybridSearchRequest(query="oolong"), chain)


def test_the_unconfigured_source_reads_no_settings_and_no_keyring(
    store: MemoryStore, memory_keyring: MemoryKeyring
) -> None:
    """A host given no source (the agent's default) gets the local provider if installed and
    leaves keys to the environment, whatever settings.json and the keyring hold."""
    memory_keyring.set_password("liveagent-memory", "default", KEY)
    entry = {"provider": "openai", "model": "embed-a", "key_purpose": "default"}
    (store.root / "settings.json").write_text(json.dumps({"embeddings": [entry]}), "utf-8")

    chain = provider_chain(unconfigured_source(), None)

    assert chain == provider_chain(source(), None)  # as if nothing were configured
    assert all(provider.api_key is None for provider in chain)
    assert [p.key for p in provider_chain(context_for(store).embeddings, None)] == [
        "openai/embed-a"
    ]  # the same store's context does read them


def test_providers_given_to_a_hybrid_search_are_never_tolerated(store: MemoryStore) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        service.search_hybrid(
            store, HybridSearchRequest(query="x", providers=[{"provider": "?"}]), source()
        )
    assert caught.value.field == "providers[0].provider"

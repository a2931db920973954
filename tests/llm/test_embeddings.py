"""llm/embeddings.py against a real OpenAI-compatible HTTP server (litellm called for real)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from liveagent_memory.domain.errors import EmbeddingDimensionMismatch, EmbeddingUnavailable
from liveagent_memory.llm.embeddings import aembed_texts, embed_texts, parse_reply
from tests.helpers.fake_embeddings import FakeEmbeddingServer, bag_of_words
from tests.helpers.fake_llm import API_KEY, Reply, model_config

EMBED_A = "openai/embed-a"  # a model the tests register on the server as "embed-a"


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as server:
        yield server


@pytest.fixture
def server(shared_server: FakeEmbeddingServer) -> FakeEmbeddingServer:
    shared_server._replies.clear()
    shared_server.models.clear()
    for recorded in (shared_server.requests, shared_server.paths, shared_server.headers):
        recorded.clear()
    return shared_server


def test_vectors_come_back_in_input_order(server: FakeEmbeddingServer) -> None:
    server.add_model("embed-a", dimension=6)
    reply = embed_texts(model_config(server, model=EMBED_A), ["green tea", "black coffee"])
    assert reply.dimension == 6
    assert reply.vectors[0] == pytest.approx(bag_of_words("green tea", 6))
    assert reply.vectors[1] == pytest.approx(bag_of_words("black coffee", 6))
    assert server.paths == ["/v1/embeddings"]
    assert server.embedding_inputs("embed-a") == [["green tea", "black coffee"]]
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert headers["authorization"] == f"Bearer {API_KEY}"


def test_no_texts_means_no_call(server: FakeEmbeddingServer) -> None:
    assert embed_texts(model_config(server, model=EMBED_A), []).vectors == []
    assert server.requests == []


def test_a_server_error_is_typed_and_keeps_the_key_out(server: FakeEmbeddingServer) -> None:
    server.add_model("embed-a").status = 500
    with pytest.raises(EmbeddingUnavailable) as caught:
        embed_texts(model_config(server, model=EMBED_A), ["x"])
    assert "HTTP 500" in caught.value.message
    assert caught.value.code == "embedding_unavailable"
    assert API_KEY not in caught.value.message


def test_a_refused_key_is_redacted_even_when_echoed(server: FakeEmbeddingServer) -> None:
    server.push(Reply({"error": {"message": f"bad key {API_KEY}"}}, 401))
    with pytest.raises(EmbeddingUnavailable) as caught:
        embed_texts(model_config(server, model="openai/unregistered"), ["x"])
    assert "refused the API key" in caught.value.message
    assert API_KEY not in caught.value.message


def test_a_timeout_is_typed(server: FakeEmbeddingServer) -> None:
    server.add_model("embed-a").delay = 1.5
    with pytest.raises(EmbeddingUnavailable) as caught:
        embed_texts(model_config(server, model=EMBED_A, timeout=0.3), ["x"])
    assert "did not answer" in caught.value.message or "failed" in caught.value.message


def test_a_reply_with_a_missing_vector_is_refused(server: FakeEmbeddingServer) -> None:
    body = {"object": "list", "data": [{"index": 0, "embedding": [0.1, 0.2]}], "model": "m"}
    server.push(Reply(body))
    with pytest.raises(EmbeddingUnavailable, match="1 vectors for 2 texts"):
        embed_texts(model_config(server, model="openai/unregistered"), ["a", "b"])


async def _aembed(server: FakeEmbeddingServer) -> list[list[float]]:
    return (await aembed_texts(model_config(server, model=EMBED_A), ["tea"])).vectors


@pytest.mark.asyncio
async def test_async_embedding(server: FakeEmbeddingServer) -> None:
    server.add_model("embed-a", dimension=4)
    vectors = await _aembed(server)
    assert vectors[0] == pytest.approx(bag_of_words("tea", 4))


# --- parse_reply: every malformed shape is refused with a typed error --------------------------
def item(index: int, embedding: object) -> dict[str, object]:
    return {"object": "embedding", "index": index, "embedding": embedding}


def test_parse_reorders_by_index() -> None:
    reply = parse_reply({"data": [item(1, [0.0, 1.0]), item(0, [1.0, 0.0])]}, expected=2, model="m")
    assert reply.vectors == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    ("data", "error", "words"),
    [
        (None, EmbeddingUnavailable, "no vectors"),
        ([item(0, "abc")], EmbeddingUnavailable, "not a list"),
        ([item(0, [])], EmbeddingUnavailable, "not a list"),
        ([item(0, ["x", 1])], EmbeddingUnavailable, "non-numbers"),
        ([item(0, [math.nan, 1.0])], EmbeddingUnavailable, "NaN"),
        ([item(0, [1.0]), item(0, [1.0])], EmbeddingUnavailable, "two embeddings"),
        ([item(0, [1.0, 2.0]), item(1, [1.0])], EmbeddingDimensionMismatch, "different sizes"),
    ],
)
def test_parse_refuses_malformed_replies(data: object, error: type[Exception], words: str) -> None:
    expected = len(data) if isinstance(data, list) else 1
    with pytest.raises(error, match=words):
        parse_reply({"data": data}, expected=expected, model="m")

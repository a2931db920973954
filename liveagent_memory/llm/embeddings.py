"""Embedding calls through litellm (`embedding` / `aembedding`): vectors in, typed errors out.

The only module that calls litellm's embedding functions. It validates what a provider sends
back (one vector per text, numbers only, one dimension) so callers never index a torn reply,
and maps every failure onto `EmbeddingUnavailable` / `EmbeddingDimensionMismatch` with the API
key kept out of the message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingDimensionMismatch, EmbeddingUnavailable
from liveagent_memory.llm.client import ModelConfig, aload_litellm, load_litellm, redact


@dataclass(frozen=True)
class EmbeddingReply:
    """The vectors of one call, in the order of the texts, and what the provider billed."""

    vectors: list[list[float]]
    dimension: int
    prompt_tokens: int = 0


def _kwargs(model: ModelConfig, texts: Sequence[str]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": model.model,
        "input": list(texts),
        "timeout": model.timeout,
        "max_retries": config.EMBEDDING_MAX_RETRIES,
    }
    if model.api_base:
        kwargs["api_base"] = model.api_base
    if model.api_key:
        kwargs["api_key"] = model.api_key
    return kwargs


def embed_texts(model: ModelConfig, texts: Sequence[str]) -> EmbeddingReply:
    """Embed `texts` with one provider call (blocking); raise a typed EmbeddingError."""
    model.require()
    if not texts:
        return EmbeddingReply([], 0)
    litellm = load_litellm()
    try:
        response = litellm.embedding(**_kwargs(model, texts))
    except Exception as exc:  # every provider failure becomes a typed error
        raise _map_error(exc, model) from None
    return parse_reply(response, expected=len(texts), model=model.model)


async def aembed_texts(model: ModelConfig, texts: Sequence[str]) -> EmbeddingReply:
    """Embed `texts` with one provider call on the running event loop."""
    model.require()
    if not texts:
        return EmbeddingReply([], 0)
    litellm = await aload_litellm()
    try:
        response = await litellm.aembedding(**_kwargs(model, texts))
    except Exception as exc:  # every provider failure becomes a typed error
        raise _map_error(exc, model) from None
    return parse_reply(response, expected=len(texts), model=model.model)


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def parse_reply(response: Any, *, expected: int, model: str) -> EmbeddingReply:
    """Check a provider's embedding response and return its vectors in input order."""
    data = _field(response, "data")
    if not isinstance(data, list) or len(data) != expected:
        got = len(data) if isinstance(data, list) else "no"
        raise EmbeddingUnavailable(f"{model} returned {got} vectors for {expected} texts")
    ordered: list[list[float] | None] = [None] * expected
    for position, item in enumerate(data):
        index = _field(item, "index")
        slot = index if isinstance(index, int) and 0 <= index < expected else position
        raw = _field(item, "embedding")
        if not isinstance(raw, list) or not raw:
            raise EmbeddingUnavailable(f"{model} returned an embedding that is not a list")
        try:
            vector = [float(value) for value in raw]
        except (TypeError, ValueError):
            raise EmbeddingUnavailable(f"{model} returned an embedding with non-numbers") from None
        if not all(math.isfinite(value) for value in vector):
            raise EmbeddingUnavailable(f"{model} returned an embedding with NaN or infinity")
        if ordered[slot] is not None:
            raise EmbeddingUnavailable(f"{model} returned two embeddings for text {slot}")
        ordered[slot] = vector
    vectors = [vector for vector in ordered if vector is not None]
    dimensions = {len(vector) for vector in vectors}
    if len(dimensions) != 1:
        raise EmbeddingDimensionMismatch(
            f"{model} returned vectors of different sizes in one reply: {sorted(dimensions)}"
        )
    usage = _field(response, "usage")
    tokens = _field(usage, "prompt_tokens") if usage is not None else 0
    return EmbeddingReply(vectors, dimensions.pop(), int(tokens or 0))


def _map_error(exc: Exception, model: ModelConfig) -> EmbeddingUnavailable:
    litellm = load_litellm()
    message = redact(str(exc) or type(exc).__name__, model.api_key)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.Timeout):
        return EmbeddingUnavailable(f"{model.model} did not answer within {model.timeout:g} s")
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or (
        status in (401, 403)
    ):
        return EmbeddingUnavailable(f"{model.model} refused the API key: {message}")
    detail = f" (HTTP {status})" if isinstance(status, int) else ""
    return EmbeddingUnavailable(f"{model.model} failed{detail}: {message}")

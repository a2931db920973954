"""The app's search: ranked as `memory_search` ranks, with the query embedded on the loop."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
import pytest_asyncio
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext, context_for
from liveagent_memory.retrieval.embeddings import open_cache
from liveagent_memory.settings import SecretStore, settings_path
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.search import MemorySearch
from tests.helpers.corpus import FILLER
from tests.helpers.fake_embeddings import FakeEmbeddingServer
from tests.helpers.fake_llm import API_KEY
from tests.helpers.fakes import CountingKeyring, MemoryKeyring
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_searches

pytest.importorskip("numpy")

SLOW_S = 1.5  # the fake provider's delay when a test needs a call still in flight
FREE_S = 0.5  # a store call that takes longer than this waited for the provider
QUERIES = ["oolong", "car parked", "oolong", "backups nightly"]  # a repeat: a cache hit
MEMORIES = [
    *FILLER,
    ("parking", "The automobile is parked in the garage on level two."),
    ("drinks", "The user drinks oolong every afternoon."),
]


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as running:
        yield running


@pytest.fixture
def counting_keyring(memory_keyring: MemoryKeyring) -> CountingKeyring:
    counting = CountingKeyring()
    keyring.set_keyring(counting)  # memory_keyring puts the previous one back afterwards
    return counting


# Paths this process opens while a test records them (`opened_files`); None: not recording.
# Through an audit hook (PEP 578): real file opens, whoever makes them. A hook cannot be
# removed, so it is added once and records only while a list is set.
_OPENED: list[str] | None = None
_HOOKED = False


def _note_open(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str | Path):
        _OPENED.append(str(args[0]))


@contextlib.contextmanager
def opened_files() -> Iterator[list[str]]:
    """The paths of every file opened while the block runs."""
    global _OPENED, _HOOKED
    if not _HOOKED:
        sys.addaudithook(_note_open)
        _HOOKED = True
    found: list[str] = []
    _OPENED = found
    try:
        yield found
    finally:
        _OPENED = None


def configure(home: Path, server: FakeEmbeddingServer, *models: str) -> None:
    """Memories, settings.json naming `models` on the fake server (key from the keyring), and
    their vectors built as `liveagent-memory embeddings rebuild` builds them."""
    for model in models:
        server.add_model(model, dimension=16)
    providers = [
        {"provider": "openai", "model": m, "api_base": server.base_url, "key_purpose": "default"}
        for m in models
    ]
    home.mkdir(parents=True, exist_ok=True)
    settings_path(home).write_text(json.dumps({"embeddings": providers}), encoding="utf-8")
    SecretStore().set("default", API_KEY)
    with MemoryStore.open(home) as store:
        for slug, body in MEMORIES:
            dispatch(
                store,
                "memory_write",
                {"slug": slug, "scope": "global", "type": "reference", "body": body,
                 "description": slug.replace("-", " "), "actor": "user"},
            )  # fmt: skip
        for provider in providers:  # a rebuild fills the first working provider's index
            rebuilt = dispatch(store, "embeddings_rebuild", {"providers": [provider]})
            assert rebuilt["status"] == "ok"


def counters(home: Path) -> dict[str, int]:
    cache = open_cache(home, create=False)
    try:
        return cache.counters()
    finally:
        cache.close()


class Opened:
    """A MemorySearch on the app's AppContext behind a real bridge, as the window builds it."""

    def __init__(self, bridge: Bridge, context: AppContext) -> None:
        self.bridge = bridge
        self.context = context
        self.search = MemorySearch(bridge, context)


@pytest_asyncio.fixture
async def opened(home: Path) -> AsyncIterator[list[Opened]]:
    """Searches opened on real stores with `open_search(home, opened)`; closed afterwards."""
    made: list[Opened] = []
    yield made
    for one in made:
        await one.bridge.close()
        one.context.close()


async def open_search(home: Path, made: list[Opened]) -> Opened:
    bridge = Bridge()
    context = app_context(home)
    await bridge.run_store(context.open_store)  # as the window opens it
    made.append(Opened(bridge, context))
    return made[-1]


def ranked(result: dict[str, Any]) -> list[Any]:
    return [result["mode"], result.get("provider"), [m["slug"] for m in result["matches"]]]


async def assert_like_the_command(home: Path, tmp_path: Path, opened: list[Opened]) -> None:
    """The app's search and the command, on twin stores, rank and count alike (the command on
    one context, as a front end runs it: its searchers, with their cool-downs, are kept)."""
    twin = tmp_path / "twin"
    shutil.copytree(home, twin)
    app = await open_search(home, opened)
    before = counters(home)
    with MemoryStore.open(twin) as store, context_for(store) as context:
        for query in QUERIES:
            expected = dispatch(context, "memory_search", {"query": query, "limit": 5})
            got = await app.search.search({"query": query, "limit": 5})
            assert ranked(got) == ranked(expected), query
    assert counters(home) == counters(twin) != before  # one query counts once, as before


@pytest.mark.asyncio
async def test_search_ranks_and_counts_as_memory_search_does(
    home: Path, tmp_path: Path, server: FakeEmbeddingServer, opened: list[Opened]
) -> None:
    configure(home, server, "embed-a")

    await assert_like_the_command(home, tmp_path, opened)

    got = await opened[0].search.search({"query": "oolong"})
    assert got["mode"] == "hybrid" and got["provider"] == "openai/embed-a"
    assert got["matches"][0]["slug"] == "drinks"


@pytest.mark.asyncio
async def test_a_failing_provider_falls_back_and_cools_down_as_in_the_command(
    home: Path, tmp_path: Path, server: FakeEmbeddingServer, opened: list[Opened]
) -> None:
    configure(home, server, "embed-a", "embed-b")
    server.models["embed-a"].status = 500

    await assert_like_the_command(home, tmp_path, opened)

    asked = len(server.embedding_inputs("embed-a"))
    got = await opened[0].search.search({"query": "automobile"})
    assert got["provider"] == "openai/embed-b"
    assert len(server.embedding_inputs("embed-a")) == asked  # cooling down: not asked again


@pytest.mark.asyncio
async def test_a_slow_provider_never_holds_the_store_worker(
    qtbot: QtBot, home: Path, server: FakeEmbeddingServer, open_window: OpenWindow
) -> None:
    configure(home, server, "embed-a")
    server.models["embed-a"].delay = SLOW_S
    window = await open_window()
    page = window.page("memories")
    assert isinstance(page, MemoriesPage)

    searches = record_searches(page)

    qtbot.keyClicks(page.search, "oolong")  # a keystroke in the search box
    await until(lambda: server.embedding_inputs("embed-a")[-1:] == [["oolong"]], what="the call")
    started = time.monotonic()
    assert await window.bridge.run_store(lambda: "free") == "free"

    assert time.monotonic() - started < FREE_S  # the worker was not waiting for the provider
    assert searches.results == []  # the embedding call is still in flight, on the loop
    await until(lambda: bool(searches.results), SLOW_S * 4, what="the search")
    assert searches.results[0]["mode"] == "hybrid"
    assert searches.results[0]["matches"][0]["slug"] == "drinks"


@pytest.mark.asyncio
async def test_settings_and_keys_are_read_when_they_change_not_per_keystroke(
    home: Path,
    server: FakeEmbeddingServer,
    opened: list[Opened],
    counting_keyring: CountingKeyring,
) -> None:
    configure(home, server, "embed-a")
    app = await open_search(home, opened)
    counting_keyring.reads = 0

    for query in ("o", "oo", "ool", "oolong"):  # what a person types
        assert (await app.search.search({"query": query}))["mode"] == "hybrid"
    assert counting_keyring.reads == 1  # the chain was built once

    app.search.settings_changed()  # a key saved in the app, or F5
    await app.search.search({"query": "car"})
    assert counting_keyring.reads == 2

    # settings.json rewritten by the CLI or by hand: picked up by the next search.
    settings_path(home).write_text(json.dumps({"embeddings": []}), encoding="utf-8")
    calls = len(server.embedding_inputs("embed-a"))
    result = await app.search.search({"query": "automobile"})
    assert result["mode"] == "keyword"
    assert len(server.embedding_inputs("embed-a")) == calls
    assert counting_keyring.reads == 2  # no provider left that needs a key


@pytest.mark.asyncio
async def test_the_memories_page_shows_the_hybrid_ranking(
    qtbot: QtBot, home: Path, server: FakeEmbeddingServer, open_window: OpenWindow
) -> None:
    configure(home, server, "embed-a")
    window = await open_window()
    page = window.page("memories")
    assert isinstance(page, MemoriesPage)
    expected = await window.bridge.run_store(
        dispatch,
        window.app_context.store,
        "memory_search",
        {"query": "garage", "limit": 32, "include_all_projects": True},
    )
    assert expected["mode"] == "hybrid" and len(expected["matches"]) > 1  # vectors add rows

    searches = record_searches(page)
    qtbot.keyClicks(page.search, "garage")

    wanted = [m["slug"] for m in expected["matches"]]

    def shown() -> list[str | None]:
        return [(page.model.entry(row) or {}).get("slug") for row in range(page.model.rowCount())]

    await until(lambda: searches.queries() == ["garage"], what="the search")
    await until(lambda: shown() == wanted, what="the hybrid ranking")


@pytest.mark.asyncio
async def test_keystrokes_and_organizer_runs_read_no_settings_or_keys_of_their_own(
    qtbot: QtBot,
    home: Path,
    server: FakeEmbeddingServer,
    open_window: OpenWindow,
    counting_keyring: CountingKeyring,
) -> None:
    """The app's context read settings.json and the keys when the window opened; typing a
    search and running the organizer read neither again (nothing changed meanwhile)."""
    configure(home, server, "embed-a")
    window = await open_window()
    page = window.page("memories")
    assert isinstance(page, MemoriesPage) and window.context is not None
    organizer = window.context.organizer
    searches = record_searches(page)
    finished: list[dict[str, Any]] = []
    organizer.run_did_finish.connect(finished.append)
    counting_keyring.reads = 0

    with opened_files() as opened:
        qtbot.keyClicks(page.search, "oolong")  # a search per keystroke, as typed
        await until(lambda: searches.results and searches.queries()[-1] == "oolong")
        for count in (1, 2):
            await organizer.run_now(scope="global")

            def ran(n: int = count) -> bool:
                return len(finished) == n

            await until(ran, 40, what=f"organizer run {count}")

    assert searches.results[-1]["mode"] == "hybrid"  # the key reached the provider
    assert [run["status"] for run in finished] == ["succeeded", "succeeded"]
    assert counting_keyring.reads == 0
    assert [path for path in opened if path.endswith("settings.json")] == []
    assert any(path.endswith(".md") for path in opened)  # the recording did see the runs read

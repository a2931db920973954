"""Desktop-app test setup: one QApplication, async tests on a qasync loop, seeded stores.

Async tests (`@pytest.mark.asyncio`) run on a `qasync.QEventLoop`, so awaiting lets Qt deliver
timers and events while the store worker makes progress. pytest-asyncio 1.5 deprecates
overriding `event_loop_policy`; its `pytest_asyncio_loop_factories` hook does the same job and,
living in this conftest, applies only to the tests below `tests/ui/`.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import qasync
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QUrl, Slot
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.search import MemorySearch
from liveagent_memory.ui.window import MainWindow
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import WAIT_S


@pytest.fixture(scope="session", autouse=True)
def english(qapp: QApplication) -> Translations:
    """English labels as the app shows them: en.qm holds the plural forms ("1 memory")."""
    translations = Translations(qapp)
    translations.switch("en")
    return translations


def live_qt_garbage() -> list[str]:
    """Qt objects that only Python's cyclic collector would free, and so destroy on whatever
    thread runs it: Python-owned QObjects, alive on the C++ side, in unreachable cycles.

    Deferred deletions (a closed dialog, qtbot's closed widgets) are carried out first, here
    on the UI thread, as the app's loop would on its next turn.
    """
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.set_debug(gc.DEBUG_SAVEALL)  # unreachable objects are kept in gc.garbage, not freed
    found: list[str] = []
    try:
        gc.collect()
        for item in gc.garbage:
            if not (
                isinstance(item, QObject)
                and shiboken6.isValid(item)
                and shiboken6.ownedByPython(item)
            ):
                continue
            if type(item).__module__.startswith("qasync"):
                # A closed test loop's own timer, signaller and executor threads (the app has
                # one loop for its lifetime): freed here, on the UI thread.
                shiboken6.delete(item)
            else:
                found.append(f"{type(item).__name__} {item.objectName()!r}")
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()  # what the check kept is freed now, on this thread
    return found


@pytest.fixture(autouse=True)
def no_qt_object_left_to_the_collector(qapp: QApplication) -> Iterator[None]:
    """After each test, no live Qt object may be waiting for the cyclic collector.

    The app frees its Qt objects on the UI thread when it is done with them (MainWindow.dispose,
    deleteLater); one left to the collector would be destroyed by whichever thread allocates
    when it runs (a store worker, the fake servers' threads), which crashes Qt. What survives
    is frozen, so each test's collection looks only at its own objects (litellm alone is
    hundreds of thousands of objects).
    """
    yield
    left = live_qt_garbage()
    gc.freeze()
    assert not left, f"Qt objects left for the cyclic collector: {left}"


def _qasync_loop() -> asyncio.AbstractEventLoop:
    app = QApplication.instance() or QApplication([])
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)  # qasync has no type hints
    return loop


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Any]:
    return {"qasync": _qasync_loop}


async def ended(task: asyncio.Future[Any], timeout: float = WAIT_S) -> None:
    """Wait until `task` is done, however it ends (its outcome is the caller's to check)."""
    await asyncio.wait({task}, timeout=timeout)
    assert task.done(), f"the task did not end within {timeout}s"


def seed(home: Path, items: Iterable[dict[str, Any]], *, clock: FakeClock | None = None) -> None:
    """Write memories through the command table, then close the store (the app opens its own).

    Written by a person (reviewed) unless an item names another actor. With a clock, each
    memory is a minute newer than the one before (a stable list order).
    """
    with MemoryStore.open(home, clock=clock or system_clock) as store:
        for item in items:
            dispatch(store, "memory_write", {"actor": "user", **item})
            if clock is not None:
                clock.advance(seconds=60)


def sample_memories(workdir: str) -> list[dict[str, Any]]:
    """Four memories covering both scopes, four types and both review states."""
    return [
        {
            "slug": "tea-preference",
            "scope": "global",
            "type": "user",
            "description": "Likes green tea",
            "body": "# Tea\n\nThe user **prefers** green tea in the morning.\n",
            "confidence": "high",
            "source_quote": "I always drink green tea",
            "reasoning": "said twice",
            "actor": "extractor",  # extractor writes are unreviewed
        },
        {
            "slug": "build-command",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "构建命令是 make",
            "body": "运行 make 构建整个项目。\n",
            "actor": "user",
        },
        {
            "slug": "api-docs",
            "scope": "global",
            "type": "reference",
            "description": "API docs live on the wiki",
            "body": "The API reference is on the team wiki.\n",
            "actor": "user",
        },
        {
            "slug": "no-emoji",
            "scope": "global",
            "type": "feedback",
            "description": "No emoji in commit messages",
            "body": "Keep commit messages plain text.\n",
            "actor": "user",
        },
    ]


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    """The four sample memories, seeded a minute apart (the list shows them newest first)."""
    items = sample_memories(workdir)
    seed(home, items, clock=clock)
    return items


class RecordingSearch(MemorySearch):
    """The window's MemorySearch (its bridge and AppContext), recording the payload and the
    result of every search it is asked for."""

    def __init__(self, bridge: Bridge, context: AppContext) -> None:
        super().__init__(bridge, context)
        self.payloads: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    async def search(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.payloads.append(dict(payload))
        result = await super().search(payload)
        self.results.append(result)
        return result

    def queries(self) -> list[str]:
        return [payload["query"] for payload in self.payloads]


def record_searches(page: DrawerPage) -> RecordingSearch:
    """Record the searches of `page` (and of every page of its window: they share one)."""
    recording = RecordingSearch(page.context.client.bridge, page.context.app)
    page.context.search = recording
    return recording


class RecordingClient(StoreClient):
    """A page's StoreClient (its bridge and AppContext), recording each command it runs."""

    def __init__(self, inner: StoreClient) -> None:
        super().__init__(inner.bridge, inner.context)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls.append((name, dict(payload or {})))
        return await super().call(name, payload)

    def payloads(self, name: str) -> list[dict[str, Any]]:
        """The payloads of the `name` commands run so far, oldest first."""
        return [payload for called, payload in self.calls if called == name]


def record_calls(page: DrawerPage) -> RecordingClient:
    """Record the commands `page` runs from now on (its own client: other pages' are not)."""
    recording = RecordingClient(page.client)
    page.client = recording
    return recording


OpenWindow = Callable[..., Awaitable[MainWindow]]


@pytest_asyncio.fixture
async def open_window(qtbot: QtBot, home: Path) -> AsyncIterator[OpenWindow]:
    """Open the app's window on `home` (seed first); every window is closed and freed after the
    test, as the app does (MainWindow.aclose, then dispose). `vectors=True` builds the local
    vector index in the background, as the app's own window does."""
    windows: list[MainWindow] = []

    async def opener(*, vectors: bool = False) -> MainWindow:
        window = MainWindow(app_context(home), Bridge(), vectors=vectors)
        windows.append(window)
        window.show()
        await window.start()
        assert window.context is not None, window.statusBar().currentMessage()
        return window

    yield opener
    for window in windows:
        await window.aclose()
        window.dispose()


class UrlCatcher(QObject):
    """Receives what the app hands the desktop to open (QDesktopServices.setUrlHandler)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[Translations]:
    """The app in Chinese for this test (tests/ui/test_words.py has its own, after English)."""
    installed = Translations(qapp)
    installed.switch("zh_CN")
    yield installed
    installed.switch("en")  # later tests see English again

"""Desktop-app test setup: one QApplication, async tests on a qasync loop, seeded stores.

Async tests (`@pytest.mark.asyncio`) run on a `qasync.QEventLoop`, so awaiting lets Qt deliver
timers and events while the store worker makes progress. pytest-asyncio 1.5 deprecates
overriding `event_loop_policy`; its `pytest_asyncio_loop_factories` hook does the same job and,
living in this conftest, applies only to the tests below `tests/ui/`.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import qasync
from PySide6.QtWidgets import QApplication

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.gc_guard import MainThreadCollector
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.window import MainWindow
from tests.helpers.fakes import FakeClock


@pytest.fixture(scope="session", autouse=True)
def english(qapp: QApplication) -> Translations:
    """English labels as the app shows them: en.qm holds the plural forms ("1 memory")."""
    translations = Translations(qapp)
    translations.switch("en")
    return translations


@pytest.fixture(autouse=True)
def collect_on_the_ui_thread(qapp: QApplication) -> Iterator[None]:
    """Garbage is collected on the main thread only, as in the app (ui/gc_guard.py).

    Earlier tests' dead windows and loops are collected here first, before this test starts
    worker threads that could otherwise run the collector on them; what survives is frozen, so
    later collections skip the imported modules (litellm alone is hundreds of thousands of
    objects) and stay fast.
    """
    collector = MainThreadCollector()
    collector.start()
    gc.collect()
    gc.freeze()
    yield
    collector.stop()
    collector.deleteLater()


WAIT_S = 5.0  # generous ceiling for a poll; a passing test returns as soon as the state holds


def _qasync_loop() -> asyncio.AbstractEventLoop:
    app = QApplication.instance() or QApplication([])
    return qasync.QEventLoop(app)


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Any]:
    return {"qasync": _qasync_loop}


async def until(
    predicate: Callable[[], object], timeout: float = WAIT_S, *, what: str = "condition"
) -> None:
    """Let the loop (Qt events, timers, worker results) run until `predicate()` is true."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.01)


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


OpenWindow = Callable[[], Awaitable[MainWindow]]


@pytest_asyncio.fixture
async def open_window(qtbot: Any, home: Path) -> AsyncIterator[OpenWindow]:
    """Open the app's window on `home` (seed first); every window is closed after the test."""
    windows: list[MainWindow] = []

    async def opener() -> MainWindow:
        window = MainWindow(home, Bridge())
        qtbot.addWidget(window)
        windows.append(window)
        window.show()
        await window.start()
        assert window.store is not None, window.statusBar().currentMessage()
        return window

    yield opener
    for window in windows:
        await window.aclose()

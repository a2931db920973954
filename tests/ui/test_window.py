"""The main window's life: what closing it frees, and on which thread."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.window import MainWindow
from tests.ui.conftest import live_qt_garbage, sample_memories, seed


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Only the test collects: an automatic collection could hide what it would have found."""
    gc.disable()
    yield
    gc.enable()


@pytest.mark.asyncio
async def test_closing_the_window_frees_every_qt_object_it_owns_on_the_ui_thread(
    qapp: QApplication, home: Path, workdir: str, no_automatic_collection: None
) -> None:
    seed(home, sample_memories(workdir))
    window = MainWindow(home, Bridge())
    window.show()
    await window.start()
    organizer = window.context.organizer if window.context is not None else None
    assert organizer is not None and organizer.poll_timer.active  # live timers, as in the app
    window_ref, organizer_ref = weakref.ref(window), weakref.ref(organizer)
    del organizer

    await window.aclose()
    window.dispose()
    del window

    # Python's cyclic collector runs on whichever thread allocates: a store worker, the
    # organizer thread, an HTTP client's thread. Nothing Qt may be left for it to destroy.
    assert live_qt_garbage() == []
    for ref in (window_ref, organizer_ref):
        wrapper = ref()
        assert wrapper is None or not shiboken6.isValid(wrapper), f"{wrapper} is still alive"

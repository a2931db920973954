"""The main window's life: what closing it frees, and on which thread."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.errors
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from liveagent_memory.ui.app import app_context, bugs_reported_by
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.pages.model import ModelPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.fakes import MemoryKeyring
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, ended, live_qt_garbage, sample_memories, seed

KEYRING_REFUSED = (
    "No secure keyring is available on this system, so API keys cannot be stored or read here"
)
BUG_LOG = "internal error in the app"


class LockedKeyring(MemoryKeyring):
    """An OS keyring that refuses writes the way keyring documents it (a KeyringError)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("the keyring is locked")


class BrokenKeyring(MemoryKeyring):
    """An OS keyring backend with a bug: it raises what keyring never promised."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise ValueError("backend bug: bad D-Bus reply")


async def save_a_key(qtbot: QtBot, window: MainWindow) -> ModelPage:
    """Type a key on the Model & keys page and press its Save button."""
    window.open_page("model")
    page = window.page("model")
    assert isinstance(page, ModelPage)
    row = page.rows["default"]
    await until(lambda: row.key.isEnabled(), what="the keyring state")
    qtbot.keyClicks(row.key, "sk-test-abcdefghijklmnop0123")
    qtbot.mouseClick(row.save_key, Qt.MouseButton.LeftButton)
    return page


def bug_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == BUG_LOG]


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
    window = MainWindow(app_context(home), Bridge())
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


# --- the one route for failures -------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_typed_error_is_a_status_bar_line_and_no_bug(
    qtbot: QtBot,
    open_window: OpenWindow,
    memory_keyring: MemoryKeyring,
    caplog: pytest.LogCaptureFixture,
) -> None:
    keyring.set_keyring(LockedKeyring())
    window = await open_window()

    page = await save_a_key(qtbot, window)

    await until(
        lambda: window.statusBar().currentMessage().startswith(KEYRING_REFUSED),
        what="the keyring's refusal in the status bar",
    )
    assert window.error_bar.isHidden()
    assert bug_records(caplog) == []
    assert page.rows["default"].save_key.isEnabled() is False  # the typed key left the field
    assert page.rows["default"].key.isEnabled()  # and the field works again
    assert not page.rows["default"].key_busy


@pytest.mark.asyncio
async def test_a_bug_is_logged_and_stays_on_screen_until_dismissed(
    qtbot: QtBot,
    open_window: OpenWindow,
    memory_keyring: MemoryKeyring,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = BrokenKeyring()
    keyring.set_keyring(broken)
    window = await open_window()
    status_before = window.statusBar().currentMessage()

    page = await save_a_key(qtbot, window)

    await until(lambda: window.error_bar.isVisible(), what="the internal-error line")
    text = window.error_bar.text.text()
    assert text.startswith("Internal error: ValueError: backend bug: bad D-Bus reply.")
    assert "View → Refresh" in text
    [record] = bug_records(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None and isinstance(record.exc_info[1], ValueError)
    assert "set_password" in caplog.text  # the traceback reached the log
    assert window.statusBar().currentMessage() == status_before  # not a vanishing line
    assert broken.secrets == {}
    assert not page.rows["default"].key_busy  # the page is not stuck

    # A typed error later goes to the status bar; the bug stays until dismissed.
    keyring.set_keyring(LockedKeyring())
    await save_a_key(qtbot, window)
    await until(
        lambda: window.statusBar().currentMessage().startswith(KEYRING_REFUSED),
        what="the typed error",
    )
    assert window.error_bar.isVisible() and window.error_bar.text.text() == text

    qtbot.mouseClick(window.error_bar.dismiss_button, Qt.MouseButton.LeftButton)

    assert window.error_bar.isHidden()
    assert len(bug_records(caplog)) == 1


@pytest.mark.asyncio
async def test_a_newer_bug_replaces_the_line(
    open_window: OpenWindow, caplog: pytest.LogCaptureFixture
) -> None:
    window = await open_window()

    async def fails(error: Exception) -> None:
        raise error

    await ended(window.bridge.spawn(fails(KeyError("first"))))
    assert window.error_bar.text.text().startswith("Internal error: KeyError: 'first'.")
    await ended(window.bridge.spawn(fails(RuntimeError("second\nmore lines"))))

    assert window.error_bar.isVisible()
    assert window.error_bar.text.text().startswith("Internal error: RuntimeError: second.")
    assert len(bug_records(caplog)) == 2


@pytest.mark.asyncio
async def test_a_bug_in_a_qt_slot_or_a_loop_callback_reaches_the_same_handler(
    qtbot: QtBot, open_window: OpenWindow, caplog: pytest.LogCaptureFixture
) -> None:
    window = await open_window()
    loop = asyncio.get_running_loop()
    button = QPushButton(window)

    def slot_bug() -> None:
        raise LookupError("in a slot")

    def callback_bug() -> None:
        raise ArithmeticError("in a callback")

    button.clicked.connect(slot_bug)
    with bugs_reported_by(window, loop):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert window.error_bar.text.text().startswith("Internal error: LookupError: in a slot.")
        loop.call_soon(callback_bug)
        await until(lambda: "ArithmeticError" in window.error_bar.text.text(), what="the bug")

    assert [type(r.exc_info[1]) for r in bug_records(caplog) if r.exc_info] == [
        LookupError,
        ArithmeticError,
    ]

"""Composition root of the desktop app: its AppContext, QApplication, the qasync loop, the window.

The app builds one AppContext per window (`app_context`) and hands it down: to the window and
through it to the pages, the command client, the search and the organizer. Its keys are a
`KeptSecretStore` (each read once, again after a change in the app or F5), its store is opened
by the window on the store worker (docs/ARCHITECTURE.md "Composition roots"). The
screenshots are ui/screenshots.py's; `run_screenshots` runs them on a loop of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import qasync
from PySide6.QtWidgets import QApplication

from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.settings import KeptSecretStore
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.resources import APP_ICON, icon, stylesheet
from liveagent_memory.ui.window import MainWindow
from liveagent_memory.ui.window_state import LayoutState, state_path
from liveagent_memory.ui.xcb_check import check_xcb_start

if TYPE_CHECKING:
    from liveagent_memory.ui.screenshots import Shots


def application() -> QApplication:
    """The one QApplication (created on first use), with the app's look.

    DisplayUnavailable when Qt would start on X11 and could not (ui/xcb_check.py): Qt itself
    would abort the process, naming one missing library at most.
    """
    app = QApplication.instance()
    if app is None:
        check_xcb_start()
        app = QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    if not app.property("liveagent_styled"):
        app.setApplicationName("LiveAgent Memory")
        # Wayland and desktop shells match the window to resources/liveagent-memory.desktop.
        app.setDesktopFileName("liveagent-memory")
        app.setWindowIcon(icon(APP_ICON))
        app.setStyleSheet(stylesheet())
        app.setProperty("liveagent_styled", True)
    return app


def app_context(home: Path, *, clock: Clock = system_clock) -> AppContext:
    """The app's AppContext on `home`: settings.json, the OS keyring with keys kept once read,
    the store opened when the window asks (on its store worker), runs executed here."""
    return AppContext.open(home, clock=clock, secrets=KeptSecretStore())


def saved_language(context: AppContext) -> str:
    """The language chosen in settings.json ("" = system); a broken file means the system's."""
    try:
        return context.settings.current().language
    except SettingsInvalid:
        return ""  # the Model page shows the settings error once the window is open


@contextlib.contextmanager
def bugs_reported_by(window: MainWindow, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While open, a failure no code awaits goes to the window's one bug handler too.

    The bridge hands its tasks' failures to the window already; this covers the rest: an
    exception raised in a Qt slot (PySide6 passes it to sys.excepthook) and one the asyncio
    loop reports (a callback's, or a task nobody awaited).
    """
    previous_hook = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: Any) -> None:
        if not window.disposed:
            window.report_bug(exc)
        else:  # the window is already freed (the app is ending): Python's own report
            previous_hook(kind, exc, tb)

    def loop_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, Exception) and not window.disposed:
            window.report_bug(exc)
        else:
            loop.default_exception_handler(context)  # logged, as asyncio would

    sys.excepthook = hook
    loop.set_exception_handler(loop_handler)
    try:
        yield
    finally:
        loop.set_exception_handler(None)
        sys.excepthook = previous_hook


def run_app(home: Path, *, language: str | None = None) -> int:
    """Open the window on `home` and run until it is closed."""
    app = application()
    context = app_context(home)
    translations = Translations(app)
    translations.switch(saved_language(context) if language is None else language)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # This machine's layout (size, splitters, columns), outside the store (ui/window_state.py).
    layout = LayoutState(state_path())
    window = MainWindow(
        context, Bridge(), translations=translations, layout_state=layout, vectors=True
    )
    window.show()
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)

    async def main() -> None:
        window.bridge.spawn(window.start())
        await closed.wait()
        await window.aclose()
        window.dispose()

    with loop, bugs_reported_by(window, loop):
        loop.run_until_complete(main())
    return 0


def run_screenshots(
    home: Path,
    out: Path,
    *,
    language: str | None = None,
    size: tuple[int, int] = config.SCREENSHOT_SIZE,
    states: bool = False,
) -> Shots:
    """Render the pictures of `liveagent-memory screenshots` (ui/screenshots.py) on a loop of
    their own; what was written, and the states the store could not show."""
    # Imported here: ui/screenshots.py builds on this module (the app's QApplication and
    # AppContext).
    from liveagent_memory.ui.screenshots import screenshots

    loop = qasync.QEventLoop(application())
    asyncio.set_event_loop(loop)
    with loop:
        shots: Shots = loop.run_until_complete(
            screenshots(home, out, language=language, size=size, states=states)
        )
    return shots

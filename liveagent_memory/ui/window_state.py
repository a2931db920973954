"""The window's remembered layout: its size and place, the splitters, the tables' columns.

It is this machine's (a laptop and a desktop sharing one synced store want different sizes),
not the user's memories, so it never goes into the store: a QSettings INI file at
`$LIVEAGENT_MEMORY_UI_STATE`, else `<config folder>/liveagent-memory/window-state.ini`
(`~/.config/…` on Linux; docs/ARCHITECTURE.md "Inside the app"). The composition root
(ui/app.py) hands the window a `LayoutState`; the tests' conftest points the variable into each
test's folder, and the screenshots remember nothing.

What is kept: the window's geometry; per page, the sizes of each splitter on the window (not in
its dialogs), in the order the page holds them; and the state of every table header that has
an object name (column order, widths, hidden columns, the sort). A file that is missing,
unreadable, of another version or holding values that do not fit is the default layout and a
log line, never a crash.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths
from PySide6.QtWidgets import QHeaderView, QMainWindow, QSplitter, QWidget

from liveagent_memory.domain import config

log = logging.getLogger(__name__)

GEOMETRY_KEY = "window/geometry"
VERSION_KEY = "version"


def state_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where this machine keeps the app's layout: the variable's file, else the config folder's."""
    env = os.environ if environ is None else environ
    override = env.get(config.UI_STATE_ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(folder).joinpath(*config.UI_STATE_PARTS)


def window_splitters(page: QWidget) -> list[QSplitter]:
    """The splitters of `page` that are on its window (a dialog's are its own)."""
    return [s for s in page.findChildren(QSplitter) if s.window() is page.window()]


def named_headers(page: QWidget) -> list[QHeaderView]:
    """The table headers of `page` on its window whose state is kept (they have a name)."""
    return [
        h for h in page.findChildren(QHeaderView) if h.objectName() and h.window() is page.window()
    ]


def _sizes(value: Any, count: int) -> list[int] | None:
    """Saved splitter sizes when they fit a splitter of `count` panes, else None."""
    if not isinstance(value, list) or len(value) != count:
        return None
    try:
        sizes = [int(v) for v in value]
    except (TypeError, ValueError):
        return None
    return sizes if all(s >= 0 for s in sizes) and sum(sizes) > 0 else None


class LayoutState:
    """The layout file of this machine: read when the window opens, written when it closes.

    Each step opens the file anew (a QSettings kept here would be a Qt object left to Python's
    cyclic collector with the window, which may run on another thread).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._values: dict[str, Any] = {}
        self.usable = self._read()

    def _file(self) -> QSettings:
        return QSettings(str(self.path), QSettings.Format.IniFormat)

    def _read(self) -> bool:
        """Read the file; whether it holds a layout of this version (a missing one does)."""
        settings = self._file()
        version = settings.value(VERSION_KEY)
        status = settings.status()
        if status != QSettings.Status.NoError:
            log.warning(
                "window layout file %s is unreadable (%s): defaults used", self.path, status
            )
            return False
        if version is not None and str(version) != str(config.UI_STATE_VERSION):
            log.warning("window layout file %s is of version %s: defaults used", self.path, version)
            return False
        self._values = {key: settings.value(key) for key in settings.allKeys()}
        return True

    def _value(self, key: str) -> Any:
        return self._values.get(key)

    # --- reading ----------------------------------------------------------------------------
    def restore_window(self, window: QMainWindow) -> None:
        """The window's size and place (before it is shown)."""
        geometry = self._value(GEOMETRY_KEY)
        if geometry is None:
            return
        if not isinstance(geometry, QByteArray) or not window.restoreGeometry(geometry):
            log.warning("window layout: the saved window geometry does not fit; default size")

    def restore_pages(self, pages: Iterable[Any]) -> None:
        """Each page's splitters and table columns, as they were when the window closed."""
        for page in pages:
            for number, splitter in enumerate(window_splitters(page)):
                key = f"{page.NAME}/splitter-{number}"
                value = self._value(key)
                sizes = _sizes(value, splitter.count())
                if sizes is not None:
                    splitter.setSizes(sizes)
                elif value is not None:
                    log.warning("window layout: %s does not fit its splitter; default", key)
            for header in named_headers(page):
                self._restore_header(f"{page.NAME}/{header.objectName()}", header)

    def _restore_header(self, key: str, header: QHeaderView) -> None:
        state, columns = self._value(key), self._value(f"{key}-columns")
        if state is None:
            return
        fits = isinstance(state, QByteArray) and str(columns) == str(header.count())
        if not fits or not header.restoreState(state):
            log.warning("window layout: %s does not fit its table; default columns", key)

    # --- writing ----------------------------------------------------------------------------
    def save(self, window: QMainWindow, pages: Iterable[Any]) -> None:
        """Write the layout now; a file that cannot be written is a log line."""
        settings = self._file()
        pages = list(pages)
        if pages:  # a page or splitter gone since is forgotten; a window that never opened its
            settings.clear()  # store (no pages) keeps the pages' layout for the next start
        settings.setValue(VERSION_KEY, config.UI_STATE_VERSION)
        settings.setValue(GEOMETRY_KEY, window.saveGeometry())
        for page in pages:
            for number, splitter in enumerate(window_splitters(page)):
                if sum(splitter.sizes()) > 0:  # a page never shown has not laid it out
                    settings.setValue(f"{page.NAME}/splitter-{number}", splitter.sizes())
            for header in named_headers(page):
                key = f"{page.NAME}/{header.objectName()}"
                settings.setValue(key, header.saveState())
                settings.setValue(f"{key}-columns", header.count())
        settings.sync()
        if settings.status() != QSettings.Status.NoError:
            log.warning("window layout could not be written to %s", self.path)

"""What a person does with a memory's row besides reviewing it: copy its slug, open its file in
the system's editor, show the file in the file manager; and the row's context menu.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from liveagent_memory.domain.errors import SlugNotFound
from liveagent_memory.ui.models import Row


def open_url(url: QUrl) -> bool:
    """Hand `url` to the desktop (a test intercepts it with QDesktopServices.setUrlHandler)."""
    return QDesktopServices.openUrl(url)


class RowActions(QObject):
    """Copy slug, open in editor, show in folder: one QAction each, with a shortcut that works
    while `host` is shown. They act on the rows `selection()` gives when triggered; the host
    calls `enable()` when the selection changes, and connects `did_act`/`error_did_occur` to
    its notice and its error route.

    Signals:
        did_act(str): done; a sentence that says what happened.
        error_did_occur(object): the file is gone (a SlugNotFound).
    """

    did_act = Signal(str)
    error_did_occur = Signal(object)

    def __init__(self, host: QWidget, *, home: Path, selection: Callable[[], list[Row]]) -> None:
        super().__init__(host)
        self.home = home
        self.selection = selection  # the selected rows that are loaded

        def make(keys: str, slot: Callable[[], None]) -> QAction:
            action = QAction(host)
            action.setShortcut(QKeySequence(keys))
            host.addAction(action)  # window-wide while the page is shown
            action.triggered.connect(lambda _checked=False: slot())
            return action

        self.copy_slug_action = make("Ctrl+Shift+C", self.copy_slugs)
        self.open_file_action = make("Ctrl+O", self.open_file)
        self.reveal_action = make("Ctrl+Shift+R", self.reveal_file)
        self.enable()

    def retranslate(self) -> None:
        """The actions' texts: the page calls it once laid out, and on a language switch."""
        self.copy_slug_action.setText(self.tr("Copy slug"))
        self.open_file_action.setText(self.tr("Open in editor"))
        self.reveal_action.setText(self.tr("Show in folder"))
        self.copy_slug_action.setToolTip(self.tr("Copy the selected memories' slugs"))
        self.open_file_action.setToolTip(self.tr("Open the memory's file in the system's editor"))
        self.reveal_action.setToolTip(self.tr("Open the folder that holds the memory's file"))

    def enable(self) -> None:
        """Enable what applies to the selection: a slug to copy for any, a file only for one."""
        rows = self.selection()
        self.copy_slug_action.setEnabled(bool(rows))
        self.open_file_action.setEnabled(len(rows) == 1)
        self.reveal_action.setEnabled(len(rows) == 1)

    def menu(self, more: list[QAction], *, parent: QWidget) -> QMenu:
        """The row's context menu: these actions, then `more` (the page's own)."""
        menu = QMenu(parent)
        menu.addActions([self.copy_slug_action, self.open_file_action, self.reveal_action])
        menu.addSeparator()
        menu.addActions(more)
        return menu

    # --- doing ------------------------------------------------------------------------------
    def copy_slugs(self) -> None:
        """Put the slugs of the selected rows on the clipboard, one per line."""
        slugs = [str(row["slug"]) for row in self.selection()]
        if not slugs:
            return
        QGuiApplication.clipboard().setText("\n".join(slugs))
        if len(slugs) == 1:
            self.did_act.emit(self.tr("Copied %1.").replace("%1", slugs[0]))
        else:
            self.did_act.emit(self.tr("Copied %n slugs.", "", len(slugs)))

    def open_file(self) -> None:
        """Open the row's file with the program the desktop opens Markdown files with."""
        path = self._file()
        if path is not None and not open_url(QUrl.fromLocalFile(str(path))):
            self.did_act.emit(self.tr("No program opened %1.").replace("%1", str(path)))

    def reveal_file(self) -> None:
        """Open the folder holding the row's file in the file manager."""
        path = self._file()
        if path is not None and not open_url(QUrl.fromLocalFile(str(path.parent))):
            self.did_act.emit(self.tr("No program opened %1.").replace("%1", str(path.parent)))

    def _file(self) -> Path | None:
        """The one selected row's file; None (and said why) when there is none."""
        rows = self.selection()
        if len(rows) != 1:
            return None
        row = rows[0]
        path = self.home / str(row["path"])
        if not path.is_file():  # deleted or moved behind the app's back
            self.error_did_occur.emit(SlugNotFound(f"the file of {row['slug']} is gone"))
            return None
        return path

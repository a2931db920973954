"""The main window: the settings drawer's pages beside a page list, errors in the status bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QWidget,
)

from liveagent_memory.settings import SecretStore
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.drawer import DrawerContext, build_pages
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.strings import error_text

STATUS_MESSAGE_MS = 8000  # how long an error stays in the status bar


class MainWindow(QMainWindow):
    """Opens the store on the worker (reconcile never blocks painting), then fills the pages."""

    def __init__(self, home: Path, bridge: Bridge, *, secrets: SecretStore | None = None) -> None:
        super().__init__()
        self.home = home
        self.bridge = bridge
        self.secrets = secrets or SecretStore()
        bridge.on_error = self.show_error
        self.store: MemoryStore | None = None
        self.context: DrawerContext | None = None
        self.pages: list[DrawerPage] = []
        self.nav = QListWidget()
        self.nav.setFixedWidth(160)
        self.stack = QStackedWidget()
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.resize(1100, 720)
        self.retranslate()
        self.statusBar().showMessage(self.tr("Opening the memory store…"))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("LiveAgent Memory"))
        for row, page in enumerate(self.pages):
            item = self.nav.item(row)
            if item is not None:
                item.setText(page.title())
            page.retranslate()

    async def start(self) -> None:
        """Open (and reconcile) the store off the UI thread, then build and fill the pages."""
        try:
            self.store = await self.bridge.run_store(MemoryStore.open, self.home)
        except Exception as exc:
            self.show_error(exc)
            return
        self.context = DrawerContext(
            client=StoreClient(self.bridge, self.store),
            home=self.home,
            secrets=self.secrets,
            open_page=self.open_page,
        )
        # (organizer service: created and attached to the context here)
        self.pages = build_pages(self.context, parent=self.stack)
        for page in self.pages:
            self.stack.addWidget(page)
            self.nav.addItem(page.title())
            page.error_did_occur.connect(self.show_error)
            page.changes_did_apply.connect(self._changes_did_apply)
        self.nav.setCurrentRow(0)
        self.statusBar().showMessage(str(self.home), STATUS_MESSAGE_MS)
        for page in self.pages:
            await page.load()

    def open_page(self, name: str) -> None:
        """Show the page called `name` (its NAME)."""
        for row, page in enumerate(self.pages):
            if page.NAME == name:
                self.nav.setCurrentRow(row)
                return

    def page(self, name: str) -> DrawerPage:
        """The page called `name` (KeyError if none)."""
        for page in self.pages:
            if page.NAME == name:
                return page
        raise KeyError(name)

    def _changes_did_apply(self) -> None:
        """One page changed something: every other page re-queries (STYLE 4)."""
        sender = self.sender()
        for page in self.pages:
            if page is not sender:
                page.refresh()

    def show_error(self, exc: BaseException) -> None:
        """The one place errors are shown (STYLE 7): a status-bar line, never a blocking box."""
        self.statusBar().showMessage(error_text(exc), STATUS_MESSAGE_MS)

    async def aclose(self) -> None:
        # (organizer service: closed here, before the bridge)
        await self.bridge.close()
        if self.store is not None:
            self.store.close()
            self.store = None

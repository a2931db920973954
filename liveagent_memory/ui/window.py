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

from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.strings import error_text

STATUS_MESSAGE_MS = 8000  # how long an error stays in the status bar


class MainWindow(QMainWindow):
    """Opens the store on the worker (reconcile never blocks painting), then fills the pages."""

    def __init__(self, home: Path, bridge: Bridge) -> None:
        super().__init__()
        self.home = home
        self.bridge = bridge
        bridge.on_error = self.show_error
        self.store: MemoryStore | None = None
        self.pages: list[MemoriesPage] = []
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
        client = StoreClient(self.bridge, self.store)
        self.pages = [MemoriesPage(client, parent=self.stack)]
        for page in sorted(self.pages, key=lambda p: p.ORDER):
            self.stack.addWidget(page)
            self.nav.addItem(page.title())
            page.error_did_occur.connect(self.show_error)
        self.nav.setCurrentRow(0)
        self.statusBar().showMessage(str(self.home), STATUS_MESSAGE_MS)
        for page in self.pages:
            await page.load()

    def show_error(self, exc: BaseException) -> None:
        """The one place errors are shown (STYLE 7): a status-bar line, never a blocking box."""
        self.statusBar().showMessage(error_text(exc), STATUS_MESSAGE_MS)

    async def aclose(self) -> None:
        await self.bridge.close()
        if self.store is not None:
            self.store.close()
            self.store = None

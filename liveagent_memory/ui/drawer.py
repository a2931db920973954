"""The settings drawer: what its pages receive, and the one list that registers them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtWidgets import QWidget

from liveagent_memory.context import AppContext
from liveagent_memory.ui.bridge import StoreClient
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.journal import JournalPage
from liveagent_memory.ui.pages.learning import LearningPage
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.pages.model import ModelPage
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.projects import ProjectsPage
from liveagent_memory.ui.pages.web import WebPage
from liveagent_memory.ui.search import MemorySearch
from liveagent_memory.ui.web_service import WebBridgeService


@dataclass
class DrawerContext:
    """Everything a page may use; pages get nothing from globals (STYLE 2).

    Attributes:
        client: the command client (the only way into the store).
        app: the app's AppContext (ui/app.py): its home, its API keys (`app.secrets`, called on
            the store worker), the model connection check.
        search: memory_search with the query's embedding awaited on the loop (ui/search.py).
        organizer: the organizer service of the window (runs, cancel, schedule), if any.
        open_page: switch the drawer to the page with this NAME (the quota banner's button).
        web: the app's local web bridge, on the client's bridge and the AppContext (the window
            stops it in `MainWindow.aclose`).
    """

    client: StoreClient
    app: AppContext
    search: MemorySearch
    organizer: Any = None
    open_page: Callable[[str], None] = field(default=lambda _name: None)
    web: WebBridgeService = field(init=False)

    def __post_init__(self) -> None:
        self.web = WebBridgeService(self.app, self.client.bridge)


PAGES: tuple[type[DrawerPage], ...] = (
    MemoriesPage,
    OrganizerPage,
    JournalPage,
    LearningPage,
    ProjectsPage,
    ModelPage,
    WebPage,
)


def build_pages(context: DrawerContext, *, parent: QWidget | None = None) -> list[DrawerPage]:
    """One instance of every registered page, in ORDER."""
    return [page(context, parent=parent) for page in sorted(PAGES, key=lambda p: p.ORDER)]

"""The settings drawer: what its pages receive, and the one list that registers them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from liveagent_memory.settings import SecretStore
from liveagent_memory.ui.bridge import StoreClient
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.journal import JournalPage
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.pages.model import ModelPage
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.projects import ProjectsPage
from liveagent_memory.ui.search import MemorySearch


@dataclass
class DrawerContext:
    """Everything a page may use; pages get nothing from globals (STYLE 2).

    Attributes:
        client: the command client (the only way into the store).
        home: the store's folder (settings.json lives there).
        secrets: API keys in the OS keyring.
        search: memory_search with the query's embedding awaited on the loop (ui/search.py);
            told when keys change, so its embedding chain is built again.
        organizer: the organizer service of the window (runs, cancel, schedule), if any.
        open_page: switch the drawer to the page with this NAME (the quota banner's button).
    """

    client: StoreClient
    home: Path
    secrets: SecretStore
    search: MemorySearch
    organizer: Any = None
    open_page: Callable[[str], None] = field(default=lambda _name: None)


PAGES: tuple[type[DrawerPage], ...] = (
    MemoriesPage,
    OrganizerPage,
    JournalPage,
    ProjectsPage,
    ModelPage,
)


def build_pages(context: DrawerContext, *, parent: QWidget | None = None) -> list[DrawerPage]:
    """One instance of every registered page, in ORDER."""
    return [page(context, parent=parent) for page in sorted(PAGES, key=lambda p: p.ORDER)]

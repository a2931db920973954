"""What every drawer page is (STYLE 5): a name, an order, a title, labels and a load step."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QWidget

from liveagent_memory.ui.models import loop_is_running

if TYPE_CHECKING:
    from liveagent_memory.ui.bridge import StoreClient
    from liveagent_memory.ui.drawer import DrawerContext


class DrawerPage(QWidget):
    """A page of the settings drawer.

    Subclasses set NAME (stable, used in file names and `open_page`) and ORDER (position in the
    page list), implement `title()` and `retranslate()` (every visible string, called again on a
    language switch) and `load()` (fetch what the page shows through `context.client`).

    Signals:
        changes_did_apply: this page changed memories or runs (the other pages re-query).
        error_did_occur(object): a command failed with a MemoryDomainError; the window shows
            it (STYLE 7). Anything else is a bug: it leaves the task, and the bridge hands it
            to the same window handler (which logs it).
        error_did_clear: what failed was done after all (a save that failed, then
            succeeded): the window takes this page's failure line away.
    """

    NAME = ""
    ORDER = 0
    changes_did_apply = Signal()
    error_did_occur = Signal(object)
    error_did_clear = Signal()

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.client = context.client

    def title(self) -> str:
        raise NotImplementedError

    def retranslate(self) -> None:
        raise NotImplementedError

    async def load(self) -> None:
        raise NotImplementedError

    async def prepare_screenshot(self) -> None:
        """Put the page in its most telling state for `liveagent-memory screenshots`."""

    def other_page(self, name: str) -> DrawerPage | None:
        """The window's page called `name`, None when there is none (or no window yet): the
        window is the one place that knows every page."""
        find = getattr(self.window(), "page", None)
        if not callable(find):
            return None
        try:
            page = find(name)
        except KeyError:
            return None
        return page if isinstance(page, DrawerPage) else None

    def open_memory(self, scope: str, workdir_hash: str, slug: str) -> None:
        """Switch to the Memories page and show that memory there."""
        self.context.open_page("memories")
        show = getattr(self.other_page("memories"), "show_memory", None)
        if callable(show):
            show(scope, workdir_hash, slug)

    def refresh(self) -> None:
        """Reload in the background; a newer refresh of this page cancels an older one."""
        if not loop_is_running():
            return  # a timer or signal after the app's loop ended: nothing left to refresh
        self.client.bridge.preempt(f"{self.NAME}-load", self.load())

    def changeEvent(self, event: QEvent) -> None:
        # STYLE 10: a new QTranslator posts LanguageChange to every widget; re-label then.
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class PagePart:
    """A part of a drawer page (a bar, a pane, a helper of its actions) that reaches the store
    through its page's command client. Mixed into a Qt class after it: `class Bar(QWidget,
    PagePart)`; the part sets `self.page`."""

    page: DrawerPage

    @property
    def client(self) -> StoreClient:
        """The page's command client, read when used (a test may swap the page's)."""
        return self.page.client

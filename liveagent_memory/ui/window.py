"""The main window: the drawer's pages beside a page list; the one place failures are shown;
the menus (pages, language, help) and the layout it remembers (ui/window_state.py)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.context import AppContext
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.drawer import DrawerContext, build_pages
from liveagent_memory.ui.help import AboutDialog, ShortcutsDialog
from liveagent_memory.ui.i18n import LANGUAGE_NAMES, LANGUAGES, Translations
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.resources import APP_ICON, icon
from liveagent_memory.ui.search import MemorySearch
from liveagent_memory.ui.strings import error_detail, error_text
from liveagent_memory.ui.vector_service import VectorService
from liveagent_memory.ui.widgets.error_bar import ErrorBar
from liveagent_memory.ui.widgets.quota_banner import QuotaBanner
from liveagent_memory.ui.widgets.vector_status import VectorStatus
from liveagent_memory.ui.window_state import LayoutState

log = logging.getLogger(__name__)

STATUS_MESSAGE_MS = 8000  # how long an error stays in the status bar
NAV_WIDTH = 180  # fits the longest page title in English and Chinese
NAV_ICON = 20


def delete_now(obj: QObject) -> None:
    """Destroy `obj` and its children now, on this thread (the UI thread, `obj`'s own).

    deleteLater alone waits for the loop's next turn, which does not come once the app's loop
    has ended; sending the deferred delete at once is Qt's own way to carry it out now.
    """
    obj.deleteLater()
    QCoreApplication.sendPostedEvents(obj, QEvent.Type.DeferredDelete)


class MainWindow(QMainWindow):
    """Opens the store on the worker (reconcile never blocks painting), then fills the pages.

    It works on the app's one AppContext (ui/app.py) and closes it in `aclose()`. Given a
    `layout_state`, it opens at the size and with the splitters and columns it had when it last
    closed, and writes them again when it closes. With `vectors` (the app's own window), it
    builds the local vector index in the background once the pages have loaded, and again
    after changes (ui/vector_service.py), its progress on the status bar.
    """

    def __init__(
        self,
        context: AppContext,
        bridge: Bridge,
        *,
        translations: Translations | None = None,
        layout_state: LayoutState | None = None,
        vectors: bool = False,
    ) -> None:
        super().__init__()
        self.app_context = context
        self.home = context.home
        self.bridge = bridge
        self.translations = translations
        self.layout_state = layout_state
        self.about_dialog: AboutDialog | None = None
        self.shortcuts_dialog: ShortcutsDialog | None = None
        self._status_from: QObject | None = None  # the page whose failure the status bar shows
        bridge.on_error = self.show_error
        self.disposed = False  # dispose() freed the Qt side: nothing may be shown any more
        self.context: DrawerContext | None = None
        self.pages: list[DrawerPage] = []
        self.setWindowIcon(icon(APP_ICON))
        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setFixedWidth(NAV_WIDTH)
        self.nav.setIconSize(QSize(NAV_ICON, NAV_ICON))
        self.stack = QStackedWidget()
        self.banner = QuotaBanner()
        self.banner.organize_requested.connect(lambda: self.open_page("organizer"))
        self.error_bar = ErrorBar()
        self.vector_status = VectorStatus()  # the background vector build's progress
        self.statusBar().addPermanentWidget(self.vector_status)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(8, 8, 8, 0)
        right_layout.addWidget(self.error_bar)
        right_layout.addWidget(self.banner)
        right_layout.addWidget(self.stack, 1)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        layout.addWidget(right, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.resize(1100, 720)
        if layout_state is not None:
            layout_state.restore_window(self)
        self._build_menus()
        self.retranslate()
        self.vectors: VectorService | None = None
        if vectors:
            self.vectors = VectorService(context, bridge, parent=self)
            self.vectors.progressed.connect(self.vector_status.show_build)
        self.statusBar().showMessage(self.tr("Opening the memory store…"))
        self.statusBar().messageChanged.connect(self._status_changed)

    def _build_menus(self) -> None:
        """Menus: pages (Ctrl+1…), language (a manual switch), refresh and quit."""
        bar = self.menuBar()
        self.view_menu = bar.addMenu("")
        self.page_actions: list[QAction] = []
        self.language_menu = bar.addMenu("")
        self.language_group = QActionGroup(self)
        self.language_actions: dict[str, QAction] = {}
        for lang in ("", *LANGUAGES):
            action = QAction(self)
            action.setCheckable(True)
            action.setData(lang)
            action.triggered.connect(lambda _checked=False, lang=lang: self.switch_language(lang))
            self.language_group.addAction(action)
            self.language_menu.addAction(action)
            self.language_actions[lang] = action
        self.language_actions[""].setChecked(True)
        self.refresh_action = QAction(self)
        self.refresh_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Refresh))
        self.refresh_action.triggered.connect(self.refresh_current)
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        self.quit_action.triggered.connect(self.close)
        self.help_menu = bar.addMenu("")
        self.shortcuts_action = QAction(self)
        self.shortcuts_action.setObjectName("help_shortcuts")
        self.shortcuts_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.shortcuts_action.triggered.connect(self.show_shortcuts)
        self.about_action = QAction(self)
        self.about_action.setObjectName("help_about")
        self.about_action.triggered.connect(self.show_about)
        self.help_menu.addAction(self.shortcuts_action)
        self.help_menu.addAction(self.about_action)
        self.addAction(self.shortcuts_action)  # F1 works before the pages (and View) exist

    def _fill_view_menu(self) -> None:
        self.view_menu.clear()
        self.page_actions = []
        for row in range(len(self.pages)):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{row + 1}"))
            action.triggered.connect(lambda _checked=False, row=row: self.nav.setCurrentRow(row))
            self.view_menu.addAction(action)
            self.page_actions.append(action)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.refresh_action)
        self.view_menu.addAction(self.quit_action)

    def retranslate(self) -> None:
        """Every string of the window; pages re-label themselves on LanguageChange."""
        self.setWindowTitle(self.tr("LiveAgent Memory"))
        self.view_menu.setTitle(self.tr("&View"))
        self.language_menu.setTitle(self.tr("&Language"))
        for lang, action in self.language_actions.items():
            action.setText(LANGUAGE_NAMES.get(lang) or self.tr("System language"))
        self.refresh_action.setText(self.tr("Refresh"))
        self.quit_action.setText(self.tr("Quit"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.shortcuts_action.setText(self.tr("Keyboard shortcuts"))
        self.about_action.setText(self.tr("About LiveAgent Memory"))
        for row, page in enumerate(self.pages):
            item = self.nav.item(row)
            if item is not None:
                item.setText(page.title())
            # A menu reads "&" as the next letter's marker: "Model & keys" needs "&&".
            self.page_actions[row].setText(page.title().replace("&", "&&"))
        self.banner.retranslate()
        self.error_bar.retranslate()
        self.vector_status.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def switch_language(self, language: str) -> None:
        """Install `language` ("" = system) now and remember it in settings.json."""
        if self.translations is not None:
            self.translations.switch(language)
        self.language_actions[language].setChecked(True)
        if self.context is not None:
            self.bridge.spawn(self._save_language(language))

    async def _save_language(self, language: str) -> None:
        assert self.context is not None
        await self.context.client.call("settings_save_memory", {"settings": {"language": language}})

    def refresh_current(self) -> None:
        """Re-query the page on screen (F5) and the quota banner; keys are read again."""
        self.app_context.keys_changed()  # e.g. a key stored with the CLI meanwhile
        page = self.stack.currentWidget()
        if isinstance(page, DrawerPage):
            page.refresh()
        self.bridge.preempt("quota", self.refresh_quota())
        if self.vectors is not None and self.context is not None:
            self.vectors.start()  # another program may have changed memories

    async def refresh_quota(self) -> None:
        """Show or hide the quota banner for the current figures."""
        if self.context is None:
            return
        summary = await self.context.client.call("memory_quota_summary", {})
        self.banner.show_summary(summary)

    async def start(self) -> None:
        """Open (and reconcile) the store off the UI thread, then build and fill the pages."""
        try:
            await self.bridge.run_store(self.app_context.open_store)
        except MemoryDomainError as exc:
            self.show_error(exc)
            return
        self.context = DrawerContext(
            client=StoreClient(self.bridge, self.app_context),
            app=self.app_context,
            search=MemorySearch(self.bridge, self.app_context),
            open_page=self.open_page,
        )
        from liveagent_memory.ui.organizer_service import OrganizerService

        # No Qt parent: the service outlives the window's widgets until aclose() stops it.
        self.context.organizer = OrganizerService(self.app_context, bridge=self.bridge)
        try:  # scheduler bookkeeping: a missed run, a due pending run, then the timer
            await self.context.organizer.start()
        except MemoryDomainError as exc:  # e.g. a locked index: the app opens; Run now may work
            self.show_error(exc)
        self.pages = build_pages(self.context, parent=self.stack)
        for page in self.pages:
            self.stack.addWidget(page)
            self.nav.addItem(page.title())
            self.nav.item(self.nav.count() - 1).setIcon(icon(page.NAME))
            page.error_did_occur.connect(self.show_error)
            page.error_did_clear.connect(self._error_did_clear)
            page.changes_did_apply.connect(self._changes_did_apply)
        self._fill_view_menu()
        self.retranslate()
        if self.layout_state is not None:  # before the pages load: a remembered sort applies
            self.layout_state.restore_pages(self.pages)
        self.nav.setCurrentRow(0)
        self.statusBar().showMessage(str(self.home), STATUS_MESSAGE_MS)
        settings = await self.context.client.call("settings_get", {})
        language = settings.get("settings", {}).get("language", "")
        if language in self.language_actions:
            self.language_actions[language].setChecked(True)
        await self.refresh_quota()
        for page in self.pages:
            try:
                await page.load()
            except Exception as exc:  # a bug in one page must not leave the others empty
                self.report_bug(exc)
        if self.vectors is not None:  # after the pages: the first listing never waits for it
            self.vectors.start()

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

    # --- help -------------------------------------------------------------------------------
    def show_shortcuts(self) -> None:
        """The keyboard shortcuts, as the window's actions have them now (F1)."""
        if self.shortcuts_dialog is None:
            self.shortcuts_dialog = ShortcutsDialog(self, self.pages)
        self.shortcuts_dialog.refresh()
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()

    def show_about(self) -> None:
        """Version, memory folder and licence."""
        if self.about_dialog is None:
            self.about_dialog = AboutDialog(self, home=self.home)
        self.about_dialog.retranslate()
        self.about_dialog.show()
        self.about_dialog.raise_()

    # --- layout -----------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        # The layout is written when the window closes (again when it is freed: the same).
        if self.layout_state is not None:
            self.layout_state.save(self, self.pages)
        super().closeEvent(event)

    def _changes_did_apply(self) -> None:
        """One page changed something: every other page re-queries (STYLE 4)."""
        sender = self.sender()
        for page in self.pages:
            if page is not sender:
                page.refresh()
        if loop_is_running():  # a change signal delivered after the app's loop ended
            self.bridge.preempt("quota", self.refresh_quota())
            if self.vectors is not None:
                self.vectors.changed()

    def show_error(self, exc: BaseException) -> None:
        """The one place failures are shown (STYLE 7), never in a blocking box.

        A MemoryDomainError (an expected failure with a code) is a status-bar line; anything
        else is a bug, for `report_bug`. Pages and the bridge's tasks send every failure here.
        """
        if isinstance(exc, MemoryDomainError):
            self.statusBar().showMessage(error_text(exc), STATUS_MESSAGE_MS)
            self.statusBar().setToolTip(error_detail(exc))  # the core's words: what was wrong
            self._status_from = self.sender()
        else:
            self.report_bug(exc)

    def _status_changed(self, message: str) -> None:
        if not message:  # an error's details go with its line
            self.statusBar().setToolTip("")

    def _error_did_clear(self) -> None:
        """A page's retry succeeded: the failure it reported before is no longer true."""
        if self.sender() is self._status_from and self.statusBar().currentMessage():
            self.statusBar().clearMessage()
            self._status_from = None

    def report_bug(self, exc: BaseException) -> None:
        """Log a bug's traceback and show the internal-error line until it is dismissed."""
        log.exception("internal error in the app", exc_info=exc)
        self.error_bar.show_failure(exc)

    async def aclose(self) -> None:
        """Stop the organizer, every task and the store worker, and close the app context
        (its store and searchers).

        Calling it again does nothing more. The window stays usable for reading until
        `dispose()`.
        """
        if self.vectors is not None:
            self.vectors.stop()  # its pass ends after its batch; the context waits for it
        if self.context is not None and self.context.organizer is not None:
            organizer, self.context.organizer = self.context.organizer, None
            await organizer.aclose()  # its run records `cancelled` first
            # It has no Qt parent (it must outlive the widgets until its run recorded its end),
            # so it is freed here, on the UI thread, not left to the cyclic collector.
            delete_now(organizer)
        if self.context is not None:
            await self.context.web.stop()  # its requests run on the bridge's store worker
        await self.bridge.close()
        self.app_context.close()  # the worker has stopped: closed here, on the UI thread

    def dispose(self) -> None:
        """Free the window and every Qt object it owns now, on this (the UI) thread.

        Call after `aclose()`. Why: the window's widgets and their Python wrappers form
        reference cycles; left to Python's cyclic collector they would be freed on whichever
        thread happens to run it (the store or compute worker, an HTTP client's thread), and a
        Qt object destroyed outside its own thread crashes the app.
        """
        self.disposed = True
        self.close()
        delete_now(self)

"""`liveagent-memory screenshots`: the window's pages as PNGs and, with `states`, the states a
reviewer needs to see, reached by driving the real widgets as a person would.

The page shots come first (`01-memories.png`, …, then the quota banner). The states follow under
stable names (`STATES`): a selected table row, the keyboard review mode, the editor refusing a
secret, a history diff, the organizer's grouped review queue at the window's minimum size, the
compare view of a merge, the quota banner at each level, the About dialog, a run's
contradiction with its editor, the status bar's line while search vectors are built, and
the web bridge running (Web and agents, its callers). A state the store
cannot show (no memory with an earlier version, no merge to compare) is not written; `Shots`
says which and why. Nothing is changed in the store except what a person's clicks would change
there: the editor's save is refused, and only a store without a run to review gets one (the
offline organizer, and only when no model is set up: a model would cost money).
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QTreeWidgetItem, QWidget

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.quota import quota_ladder
from liveagent_memory.domain.vector_build import BuildState, VectorBuild
from liveagent_memory.ui.app import app_context, application, saved_language
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.models import key_of
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.web import WebPage
from liveagent_memory.ui.payloads import target
from liveagent_memory.ui.widgets.history_view import CURRENT, VERSION_ROLE, HistoryView
from liveagent_memory.ui.window import MainWindow

# The states' file names (without ".png"), in the order they are rendered.
TABLE_SELECTION = "10-table-selection"
REVIEW_MODE = "11-review-mode"
EDITOR_ERROR = "12-editor-error"
HISTORY_DIFF = "13-history-diff"
REVIEW_QUEUE = "14-review-queue"
COMPARE = "15-compare"
QUOTA_LEVELS = ("notice", "degraded", "critical", "exhausted")  # "normal" shows no banner
ABOUT = "17-about"
CONTRADICTION = "18-contradiction"
CONTRADICTION_EDIT = "19-contradiction-edit"
VECTOR_BUILD = "20-vector-build"
WEB_BRIDGE = "21-web-bridge"
STATES = (
    TABLE_SELECTION,
    REVIEW_MODE,
    EDITOR_ERROR,
    HISTORY_DIFF,
    REVIEW_QUEUE,
    COMPARE,
    *(f"16-quota-{level}" for level in QUOTA_LEVELS),
    ABOUT,
    CONTRADICTION,
    CONTRADICTION_EDIT,
    VECTOR_BUILD,
    WEB_BRIDGE,
)
SCREENSHOT_AGENT = "liveagent-memory-screenshots/1"  # the tour's request, among the callers
# Dialogs are pictured at their own size, the rest at the window's (REVIEW_QUEUE: the minimum).
DIALOG_STATES = frozenset({EDITOR_ERROR, HISTORY_DIFF, COMPARE, ABOUT, CONTRADICTION_EDIT})

# What the editor is given to save: a private key pasted into a note (refused, nothing written).
SECRET_MEMORY = (
    "deploy-key",
    "Deploy key of the build server",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
)


@dataclass
class Shots:
    """What a `screenshots` call wrote, and the states it could not show (file name, why)."""

    written: list[Path] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)


class StateMissing(Exception):
    """The store lacks what a state needs, or the state did not appear in time: why, in words."""


def example_quota(level: str) -> dict[str, Any]:
    """A made-up `memory_quota_summary` at `level`, for the banner's picture when the store is
    not that full itself: the global scope, its headroom midway into the level's band of the
    quota ladder (config's QUOTA_*_HEADROOM)."""
    bands = [
        config.QUOTA_NOTICE_HEADROOM,
        config.QUOTA_DEGRADED_HEADROOM,
        config.QUOTA_CRITICAL_HEADROOM,
        config.QUOTA_EXHAUSTED_HEADROOM,
        -1,
    ]
    index = QUOTA_LEVELS.index(level)
    headroom = (bands[index] + bands[index + 1] + 1) // 2
    assert quota_ladder(headroom).value == level, (level, headroom)
    limit = config.SCOPE_MEMORY_LIMIT
    scope = {
        "scope": "global",
        "workdir_hash": "",
        "workdir": None,
        "used": limit - headroom,
        "limit": limit,
        "headroom": headroom,
        "archived": 0,
        "unreviewed": 37,
        "oldest_unreviewed_days": 12.0,
    }
    return {
        "ladder": level,
        "tightest_headroom": headroom,
        "compression_target": limit - config.QUOTA_COMPRESSION_MARGIN,
        "scopes": [scope],
    }


async def settle() -> None:
    """Let queued loads and repaints finish before a grab."""
    await asyncio.sleep(config.SCREENSHOT_SETTLE_S)


async def until(
    ready: Callable[[], bool], why: str, *, timeout: float = config.SCREENSHOT_STATE_TIMEOUT_S
) -> None:
    """Wait (letting the loop run) until `ready()`; StateMissing(`why`) after `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not ready():
        if loop.time() > deadline:
            raise StateMissing(why)
        await asyncio.sleep(config.SCREENSHOT_POLL_S)


def click(widget: QWidget) -> None:
    """A left click in the middle of `widget`, as a person's."""
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def click_item(view: QAbstractItemView, at: QPoint) -> None:
    """A left click on a row of `view` at `at` (its viewport's coordinates)."""
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=at)


class Camera:
    """Saves the window or a dialog as `OUT/NAME.png` and keeps the list of what it wrote."""

    def __init__(self, window: MainWindow, out: Path) -> None:
        self.window = window
        self.out = out
        self.shots = Shots()

    def grab(self, name: str, widget: QWidget | None = None) -> None:
        path = self.out / f"{name}.png"
        (widget or self.window).grab().save(str(path))
        self.shots.written.append(path)

    def miss(self, name: str, why: str) -> None:
        self.shots.missing.append((f"{name}.png", why))


async def page_shots(camera: Camera) -> None:
    """Each page in its most telling state, then the quota banner (example figures when the
    store is not near its quota)."""
    window = camera.window
    for row, page in enumerate(window.pages):
        window.nav.setCurrentRow(row)
        await page.prepare_screenshot()
        await settle()
        camera.grab(f"{row + 1:02d}-{page.NAME}")
    window.nav.setCurrentRow(0)  # the banner above the first page, whichever page came last
    if window.banner.isHidden():
        window.banner.show_summary(example_quota("critical"))
    await settle()
    camera.grab(f"{len(window.pages) + 1:02d}-quota-banner")


class StateTour:
    """Reaches each state of `STATES` in the window on screen and has `camera` picture it."""

    def __init__(self, camera: Camera, size: tuple[int, int]) -> None:
        self.camera = camera
        self.window = camera.window
        self.size = size
        memories = self.window.page(MemoriesPage.NAME)
        organizer = self.window.page(OrganizerPage.NAME)
        assert isinstance(memories, MemoriesPage) and isinstance(organizer, OrganizerPage)
        self.memories = memories
        self.organizer = organizer

    async def run(self) -> None:
        """Every state in order; one the store cannot show is noted, the others still come."""
        for name, step in (
            (TABLE_SELECTION, self.table_selection),
            (REVIEW_MODE, self.review_mode),
            (EDITOR_ERROR, self.editor_error),
            (HISTORY_DIFF, self.history_diff),
            (REVIEW_QUEUE, self.review_queue),
            (COMPARE, self.compare),
        ):
            try:
                await step(name)
            except (StateMissing, MemoryDomainError) as exc:
                self.camera.miss(name, str(exc))
            finally:
                self.window.resize(*self.size)
        await self.quota_levels()
        await self.about()
        for name, step in (
            (CONTRADICTION, self.contradiction),
            (CONTRADICTION_EDIT, self.contradiction_edit),
        ):
            try:
                await step(name)
            except (StateMissing, MemoryDomainError) as exc:
                self.camera.miss(name, str(exc))
        await self.vector_build()
        await self.web_bridge()

    # --- Memories ---------------------------------------------------------------------------
    async def table_selection(self, name: str) -> None:
        """The first row clicked: its memory in the detail pane (an empty store: the empty
        table is the picture)."""
        page = self.memories
        self.window.open_page(page.NAME)
        await settle()
        if page.model.rowCount():
            click_item(page.list, page.list.visualRect(page.model.index(0, 0)).center())
            await until(lambda: page.current is not None, "the clicked memory did not load")
        await settle()
        self.camera.grab(name)

    async def review_mode(self, name: str) -> None:
        """Review clicked: the first unreviewed memory with its keys (none: its empty state)."""
        page = self.memories
        self.window.open_page(page.NAME)
        click(page.review_button)
        await until(lambda: page.review_mode.loaded, "the review mode did not open")
        await settle()
        self.camera.grab(name)
        click(page.review_mode.buttons["leave"])
        await settle()

    async def editor_error(self, name: str) -> None:
        """New, a private key typed into the text, Save: the editor says why it was refused."""
        page = self.memories
        self.window.open_page(page.NAME)
        click(page.new_button)
        await until(lambda: page.editor is not None, "the editor did not open")
        editor = page.editor
        assert editor is not None
        slug, description, body = SECRET_MEMORY
        QTest.keyClicks(editor.slug, slug)
        QTest.keyClicks(editor.description, description)
        QTest.keyClicks(editor.body, body)
        click(editor.save_button)
        await until(lambda: not editor.error.isHidden(), "the editor showed no error")
        await settle()
        self.camera.grab(name, editor)
        editor.reject()
        self.window.statusBar().clearMessage()  # the same failure's line: gone with the editor
        await settle()

    async def history_diff(self, name: str) -> None:
        """The history of a memory with an earlier text: its oldest such version clicked, the
        diff against the current text beside it."""
        page = self.memories
        entry = await self._memory_with_history()
        key = key_of(entry)
        self.window.open_page(page.NAME)
        page.show_memory(*key)
        await until(
            lambda: page.current is not None and key_of(page.current) == key,
            f"{entry['slug']} could not be selected",
        )
        await until(page.history_button.isEnabled, "History stayed disabled")
        click(page.history_button)
        await until(
            lambda: page.history is not None and page.history.table.topLevelItemCount() > 1,
            "the history did not load",
        )
        view = page.history
        assert view is not None
        item = self._oldest_other_text(view)
        click_item(view.table, view.table.visualItemRect(item).center())
        tabs = view.tabs.tabBar()
        QTest.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(1).center())  # Changes
        view.compare.setCurrentIndex(view.compare.findData(CURRENT))  # compared with: now
        await settle()
        self.camera.grab(name, view)
        view.reject()
        await settle()

    async def _memory_with_history(self) -> dict[str, Any]:
        """The newest memory that has a version whose text differs from its current one."""
        client = self.memories.client
        listing = await client.call(
            "memory_list",
            {"limit": config.SCREENSHOT_HISTORY_CANDIDATES, "include_daily": False},
        )
        for entry in listing["entries"]:
            history = await client.call("memory_history", {**target(entry), "with_text": True})
            now = history["current_text"]
            if any(isinstance(v.get("text"), str) and v["text"] != now for v in history["entries"]):
                return dict(entry)
        raise StateMissing(
            f"none of the {config.SCREENSHOT_HISTORY_CANDIDATES} newest memories has an earlier "
            "version to compare"
        )

    @staticmethod
    def _oldest_other_text(view: HistoryView) -> QTreeWidgetItem:
        """The row of the oldest version whose text is not the current one."""
        for row in reversed(range(view.table.topLevelItemCount())):
            item = view.table.topLevelItem(row)
            position = item.data(0, VERSION_ROLE) if item is not None else None
            if item is None or not isinstance(position, int) or position < 0:
                continue  # the current version's row
            text = view.entries[position].get("text")
            if isinstance(text, str) and text != view.current_text:
                return item
        raise StateMissing("the history has no earlier text")

    # --- Organizer --------------------------------------------------------------------------
    async def review_queue(self, name: str) -> None:
        """At the window's minimum size: the newest manual run's queue, its first merge
        current and unfolded to its parts. A store without one gets an offline run first."""
        page = self.organizer
        self.window.resize(*config.WINDOW_MIN_SIZE)
        self.window.open_page(page.NAME)
        await page.prepare_screenshot()
        if not page.queue_items():
            await self._run_offline()
            await page.prepare_screenshot()
        merge = next((item for item in page.queue_items() if item.childCount() > 1), None)
        if merge is None:
            raise StateMissing("the organizer proposed no merge to review")
        click_item(page.queue, page.queue.visualItemRect(merge).center())
        merge.setExpanded(True)
        await until(page.compare_button.isEnabled, "the merge could not be selected")
        await settle()
        self.camera.grab(name)

    async def _run_offline(self) -> None:
        """Run now, when the organizer has no model (offline: it costs nothing), to its end."""
        page, window = self.organizer, self.window
        model = await window.bridge.run_store(window.app_context.model_config, "organizer")
        if model.model:
            raise StateMissing("no organizer run to review (a model is set up: not run here)")
        organizer = page.organizer
        if organizer is None:
            raise StateMissing("the organizer is not running in this window")
        finished: list[dict[str, Any]] = []
        organizer.run_did_finish.connect(finished.append)
        await until(page.run_button.isEnabled, "Run now stayed disabled")
        click(page.run_button)
        await until(
            lambda: bool(finished), "the organizer run did not end",
            timeout=config.SCREENSHOT_RUN_TIMEOUT_S,
        )  # fmt: skip
        await page.load_history()

    async def compare(self, name: str) -> None:
        """Compare clicked on the merge the queue shows: its memories and the merged text."""
        page = self.organizer
        self.window.open_page(page.NAME)
        if not page.compare_button.isEnabled():
            raise StateMissing("no merge is selected in the review queue")
        click(page.compare_button)
        await until(lambda: page.compare_dialog is not None, "the compare view did not open")
        dialog = page.compare_dialog
        assert dialog is not None
        await settle()
        self.camera.grab(name, dialog)
        dialog.reject()
        await settle()

    async def contradiction(self, name: str) -> None:
        """The newest manual run's contradictions (issue 15): the two memories side by side
        with what differs marked, the question and the four answers."""
        page = self.organizer
        self.window.open_page(page.NAME)
        await page.prepare_screenshot()
        report = ((page.selected_run or {}).get("report") or {}).get("report") or {}
        if not any(i.get("code") == "contradiction" for i in report.get("reviewItems") or []):
            raise StateMissing("the organizer found no two memories that disagree")
        panel = page.contradictions
        await until(lambda: panel.current() is not None, "the contradictions did not load")
        page.show_contradictions_tab()
        await settle()
        self.camera.grab(name)

    async def contradiction_edit(self, name: str) -> None:
        """Edit… clicked on the contradiction shown: the editor, prefilled with A's text."""
        panel = self.organizer.contradictions
        if not panel.edit_button.isEnabled():
            raise StateMissing("no contradiction waits for an answer")
        click(panel.edit_button)
        dialog = panel.edit_dialog
        if dialog is None:
            raise StateMissing("the editor did not open")
        await settle()
        self.camera.grab(name, dialog)
        dialog.reject()
        await settle()

    # --- the window -------------------------------------------------------------------------
    async def quota_levels(self) -> None:
        """The banner at each level above normal (example figures: `example_quota`), then the
        store's own figures again."""
        self.window.open_page(self.memories.NAME)
        for level in QUOTA_LEVELS:
            self.window.banner.show_summary(example_quota(level))
            await settle()
            self.camera.grab(f"16-quota-{level}")
        await self.window.refresh_quota()

    async def about(self) -> None:
        """Help → About: version, memory folder, licence."""
        self.window.about_action.trigger()
        dialog = self.window.about_dialog
        assert dialog is not None
        await settle()
        self.camera.grab(ABOUT, dialog)
        dialog.reject()

    async def vector_build(self) -> None:
        """The status bar while the search vectors are built in the background (example
        figures: the pictures build nothing), then the line hidden again."""
        self.window.open_page(self.memories.NAME)
        provider = f"{config.LOCAL_EMBEDDING_PROVIDER}/{config.LOCAL_EMBEDDING_MODEL}"
        self.window.vector_status.show_build(
            VectorBuild(BuildState.BUILDING, 1_280, 3_200, provider)
        )
        await settle()
        self.camera.grab(VECTOR_BUILD)
        self.window.vector_status.show_build(VectorBuild(BuildState.READY, 3_200, 3_200, provider))

    async def web_bridge(self) -> None:
        """Web and agents with the bridge on (a free port, not saved as the setting) and this
        tour's own request among the callers; the token stays hidden, as the page shows it."""
        page = self.window.page(WebPage.NAME)
        assert isinstance(page, WebPage)
        self.window.open_page(page.NAME)
        chosen = page.port.value()
        address = await page.service.start(0)
        try:
            page.port.setValue(int(address.rstrip("/").rsplit(":", 1)[1]))
            page.show_state()
            page.show_token()
            token = page.token.text()
            await asyncio.to_thread(call_bridge, address, token)
            page.show_callers()
            await settle()
            page.scroll_area.ensureWidgetVisible(page.callers_group)  # the callers, below the fold
            await settle()
            self.camera.grab(WEB_BRIDGE)
        finally:
            await page.service.stop()
            page.port.setValue(chosen)
            page.show_state()
            page.show_callers()


def call_bridge(address: str, token: str) -> None:
    """One authorized request to the bridge, as a program on this machine would send it."""
    request = urllib.request.Request(
        f"{address}api/metrics",
        headers={"Authorization": f"Bearer {token}", "User-Agent": SCREENSHOT_AGENT},
    )
    with urllib.request.urlopen(request, timeout=config.SCREENSHOT_STATE_TIMEOUT_S):
        pass


async def screenshots(
    home: Path,
    out: Path,
    *,
    language: str | None = None,
    size: tuple[int, int] = config.SCREENSHOT_SIZE,
    states: bool = False,
) -> Shots:
    """Render the window, each page in its most telling state, and the quota banner to PNGs;
    with `states`, then each state of `STATES`.

    The window has the default layout: a remembered one would make the pictures differ from
    one machine to the next.
    """
    out.mkdir(parents=True, exist_ok=True)
    app = application()
    context = app_context(home)
    translations = Translations(app)
    translations.switch(saved_language(context) if language is None else language)
    window = MainWindow(context, Bridge(), translations=translations)
    window.resize(*size)
    window.show()
    camera = Camera(window, out)
    try:
        await window.start()
        await settle()
        await page_shots(camera)
        if states:
            await StateTour(camera, size).run()
    finally:
        await window.aclose()
        window.dispose()
        translations.switch("en")
    return camera.shots

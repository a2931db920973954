"""The Memories page, driven through its widgets as a person would use it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtTest import QSignalSpy
from PySide6.QtWidgets import QApplication, QComboBox

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import SlugNotFound
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.models import ENTRY_ROLE, KEY_ROLE, MemoryListModel
from liveagent_memory.ui.pages.memories import LIST_LIMIT, MemoriesPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock
from tests.ui.conftest import OpenWindow, sample_memories, seed, until

GONE = "That memory no longer exists."


class RecordingClient:
    """The page's real StoreClient, recording each command it is asked to run."""

    def __init__(self, inner: StoreClient) -> None:
        self.inner = inner
        self.bridge = inner.bridge
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls.append((name, dict(payload or {})))
        return await self.inner.call(name, payload)

    def queries(self) -> list[str]:
        return [payload["query"] for name, payload in self.calls if name == "memory_search"]


def slugs(page: MemoriesPage) -> list[str]:
    # KEY_ROLE holds only strings; reading rows with None values back through Qt is avoided
    # (PySide6 6.12 on Python 3.11 mis-counts references to None, see test_qt_runtime.py).
    return [page.model.index(row).data(KEY_ROLE)[2] for row in range(page.model.rowCount())]


def current_slug(page: MemoriesPage) -> str | None:
    return page.current["slug"] if page.current else None


def current_file(page: MemoriesPage, home: Path) -> Path:
    """The file of the memory shown in the detail pane."""
    assert page.current is not None
    return home / page.current["path"]


def detail_lines(page: MemoriesPage) -> list[str]:
    return [line for line in page.detail.toPlainText().splitlines() if line.strip()]


def fact(page: MemoriesPage, label: str) -> str:
    """The value shown next to `label` in the detail pane's table."""
    lines = detail_lines(page)
    return lines[lines.index(label) + 1]


def choose(combo: QComboBox, text: str) -> None:
    index = combo.findText(text)
    assert index >= 0, f"{text!r} is not offered"
    combo.setCurrentIndex(index)


async def click_row(qtbot: Any, page: MemoriesPage, slug: str) -> None:
    """Click a memory in the list and wait for its detail to show."""
    row = slugs(page).index(slug)
    index = page.model.index(row)
    page.list.scrollTo(index)
    qtbot.mouseClick(
        page.list.viewport(), Qt.MouseButton.LeftButton, pos=page.list.visualRect(index).center()
    )
    await until(lambda: current_slug(page) == slug, what=f"{slug} to be shown")


async def read(window: MainWindow, slug: str, scope: str = "global") -> dict[str, Any]:
    """Read a memory through the app's own store (on its worker)."""
    return await window.bridge.run_store(
        dispatch, window.store, "memory_read", {"slug": slug, "scope": scope}
    )


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    items = sample_memories(workdir)
    seed(home, items, clock=clock)
    return items


async def open_page(open_window: OpenWindow) -> tuple[MainWindow, MemoriesPage]:
    window = await open_window()
    [page] = window.pages
    await until(lambda: page.current is not None, what="the first memory's detail")
    return window, page


# --- opening and reading ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_window_opens_the_store_and_lists_every_memory(
    open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)

    # Newest first: the seed wrote them a minute apart.
    assert slugs(page) == ["no-emoji", "api-docs", "build-command", "tea-preference"]
    assert page.count.text() == "4 memories"
    assert page.list.model().rowCount() == 4
    assert window.nav.count() == 1 and window.nav.item(0).text() == "Memories"
    assert window.stack.currentWidget() is page
    assert window.statusBar().currentMessage() == str(home)
    # The first row is selected and shown.
    assert page.list.currentIndex().row() == 0
    assert current_slug(page) == "no-emoji"
    assert detail_lines(page)[0] == "No emoji in commit messages"
    # Unreviewed rows carry a mark.
    assert page.model.index(3).data() == "Likes green tea •"
    assert page.model.index(0).data() == "No emoji in commit messages"


@pytest.mark.asyncio
async def test_selecting_a_row_shows_its_detail_with_evidence_and_rendered_body(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)

    await click_row(qtbot, page, "tea-preference")

    lines = detail_lines(page)
    assert lines[0] == "Likes green tea"  # the title
    assert fact(page, "Slug") == "tea-preference"
    assert fact(page, "Scope") == "global"
    assert fact(page, "Type") == "user"
    assert fact(page, "Review") == "unreviewed"
    assert fact(page, "Confidence") == "high"
    assert fact(page, "Quote") == "I always drink green tea"
    assert fact(page, "Reasoning") == "said twice"
    assert fact(page, "Updated") == "2026-11-30 12:00"  # the seed's first write, TZ=UTC
    # The body is rendered Markdown: a heading and bold text, no Markdown syntax left.
    assert "The user prefers green tea in the morning." in lines
    assert "**" not in page.detail.toPlainText()
    blocks = {}
    block = page.detail.document().begin()
    while block.isValid():
        blocks[block.text()] = block
        block = block.next()
    assert blocks["Tea"].blockFormat().headingLevel() == 1
    assert page.accept_button.isEnabled()
    assert page.delete_button.isEnabled()


@pytest.mark.asyncio
async def test_project_memory_detail_shows_its_folder_and_chinese_title(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], workdir: str
) -> None:
    _, page = await open_page(open_window)

    await click_row(qtbot, page, "build-command")

    assert detail_lines(page)[0] == "构建命令是 make"
    assert fact(page, "Scope") == f"project {Path(workdir).resolve()}"
    assert fact(page, "Review") == "reviewed"
    assert fact(page, "Confidence") == "unknown"
    assert fact(page, "Quote") == "—"
    assert "运行 make 构建整个项目。" in detail_lines(page)
    assert not page.accept_button.isEnabled()  # already reviewed


@pytest.mark.asyncio
async def test_empty_store_shows_no_rows_and_no_detail(open_window: OpenWindow) -> None:
    window = await open_window()
    [page] = window.pages

    assert page.model.rowCount() == 0
    assert page.count.text() == "0 memories"
    assert page.detail.toPlainText().strip() == "No memory selected."
    assert not page.accept_button.isEnabled()
    assert not page.delete_button.isEnabled()
    assert not page.undo_button.isEnabled()


# --- filters and search -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_scope_type_and_review_filters_narrow_the_list(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    everything = slugs(page)

    async def shows(expected: list[str]) -> None:
        await until(lambda: slugs(page) == expected, what=f"the list to show {expected}")
        assert page.count.text() == f"{len(expected)} memories"

    choose(page.scope, "Projects")
    await shows(["build-command"])
    choose(page.scope, "Global")
    await shows(["no-emoji", "api-docs", "tea-preference"])
    choose(page.scope, "All scopes")
    await shows(everything)

    choose(page.type, "Feedback")
    await shows(["no-emoji"])
    choose(page.type, "All types")
    await shows(everything)

    choose(page.review, "Unreviewed")
    await shows(["tea-preference"])
    await until(lambda: current_slug(page) == "tea-preference", what="its detail")
    choose(page.review, "Reviewed")
    await shows(["no-emoji", "api-docs", "build-command"])

    # Reviewed user memories: none, so nothing is selected and nothing can be changed.
    choose(page.type, "User")
    await shows([])
    assert page.detail.toPlainText().strip() == "No memory selected."
    assert page.current is None
    assert not page.delete_button.isEnabled()
    assert not page.accept_button.isEnabled()


@pytest.mark.asyncio
async def test_typing_searches_after_the_debounce(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    client = page.client = RecordingClient(page.client)  # type: ignore[assignment]

    started = time.monotonic()
    qtbot.keyClicks(page.search, "wiki")
    assert client.queries() == []  # nothing yet: the search waits for a pause in typing

    await until(lambda: slugs(page) == ["api-docs"], what="the search result")
    assert time.monotonic() - started >= 0.2  # the 250 ms debounce
    assert client.queries() == ["wiki"]  # one search for four keystrokes
    assert page.count.text() == "1 memories"
    await until(lambda: current_slug(page) == "api-docs", what="the match's detail")

    # Clearing the box brings the full list back.
    page.search.clear()
    await until(lambda: len(slugs(page)) == 4, what="the full list again")


@pytest.mark.asyncio
async def test_chinese_search_typed_through_an_input_method(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)

    event = QInputMethodEvent()
    event.setCommitString("构建")  # keyClicks cannot type Chinese (TOOLCHAIN 3)
    QApplication.sendEvent(page.search, event)
    assert page.search.text() == "构建"

    await until(lambda: slugs(page) == ["build-command"], what="the Chinese match")
    await until(lambda: current_slug(page) == "build-command", what="the match's detail")
    assert detail_lines(page)[0] == "构建命令是 make"


@pytest.mark.asyncio
async def test_search_respects_the_scope_and_review_filters(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)

    page.search.setText("green")
    await until(lambda: slugs(page) == ["tea-preference"], what="the match")
    choose(page.review, "Reviewed")  # the match is unreviewed
    await until(lambda: slugs(page) == [], what="the match to be filtered out")
    choose(page.review, "Unreviewed")
    await until(lambda: slugs(page) == ["tea-preference"], what="the match again")
    choose(page.scope, "Projects")  # the match is global
    await until(lambda: slugs(page) == [], what="the global match to be filtered out")


@pytest.mark.asyncio
async def test_a_second_query_preempts_the_first(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    client = page.client = RecordingClient(page.client)  # type: ignore[assignment]
    shown: list[list[str]] = []
    page.model.modelReset.connect(lambda: shown.append(slugs(page)))
    # Hold the store worker so the first search is still waiting when the second one starts.
    gate = threading.Event()
    window.bridge.spawn(window.bridge.run_store(gate.wait, 5))

    qtbot.keyClicks(page.search, "tea")
    await until(lambda: client.queries() == ["tea"], what="the first search to start")
    page.search.clear()
    qtbot.keyClicks(page.search, "commit")
    await until(lambda: client.queries() == ["tea", "commit"], what="the second search")
    gate.set()

    await until(lambda: slugs(page) == ["no-emoji"], what="the second query's result")
    assert shown == [["no-emoji"]]  # the first query's rows were never shown
    await until(lambda: current_slug(page) == "no-emoji", what="the match's detail")


# --- actions ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_accept_marks_the_memory_reviewed(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    assert page.accept_button.isEnabled()
    changed = QSignalSpy(page.changes_did_apply)

    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)

    await until(lambda: not page.accept_button.isEnabled(), what="Accept to be disabled")
    assert (await read(window, "tea-preference"))["entry"]["unreviewed"] is False
    assert changed.count() == 1
    await until(lambda: fact(page, "Review") == "reviewed", what="the detail to say reviewed")
    assert current_slug(page) == "tea-preference"  # still selected after the reload
    row = slugs(page).index("tea-preference")
    assert page.model.index(row).data() == "Likes green tea"  # no unreviewed mark
    choose(page.review, "Unreviewed")
    await until(lambda: slugs(page) == [], what="no unreviewed memory left")


@pytest.mark.asyncio
async def test_delete_moves_to_the_trash_and_undo_restores(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    path = current_file(page, home)
    assert path.is_file()
    assert not page.undo_button.isEnabled()

    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)

    await until(lambda: "api-docs" not in slugs(page), what="the row to go")
    assert page.count.text() == "3 memories"
    assert page.undo_button.isEnabled()
    assert not path.exists()
    assert [p.name.split(".")[0] for p in (home / "global" / ".trash").glob("*.md")] == ["api-docs"]
    with pytest.raises(SlugNotFound):
        await read(window, "api-docs")
    await until(lambda: page.current is not None, what="another memory to be shown")

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: "api-docs" in slugs(page), what="the row to come back")
    assert not page.undo_button.isEnabled()
    assert path.is_file()
    assert (await read(window, "api-docs"))["content"] == "The API reference is on the team wiki."
    await until(lambda: current_slug(page) == "api-docs", what="the restored memory shown")
    assert page.list.currentIndex().data(KEY_ROLE)[2] == "api-docs"


@pytest.mark.asyncio
async def test_delete_and_undo_a_project_memory(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "build-command")
    path = current_file(page, home)

    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: "build-command" not in slugs(page), what="the row to go")
    assert not path.exists()
    assert list((path.parent / ".trash").glob("build-command.*.md"))

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    await until(lambda: "build-command" in slugs(page), what="the row to come back")
    assert path.is_file()


@pytest.mark.asyncio
async def test_an_error_shows_in_the_status_bar_and_the_app_stays_usable(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "no-emoji")
    current_file(page, home).unlink()  # behind the app's back
    errors = QSignalSpy(page.error_did_occur)

    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)

    await until(lambda: window.statusBar().currentMessage() == GONE, what="the error text")
    assert errors.count() == 1
    assert isinstance(errors.at(0)[0], SlugNotFound)
    assert "no-emoji" in slugs(page)  # the list keeps its rows
    assert not page.undo_button.isEnabled()  # nothing was deleted

    # Still usable: another memory can be read and deleted.
    await click_row(qtbot, page, "api-docs")
    assert detail_lines(page)[0] == "API docs live on the wiki"
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: "api-docs" not in slugs(page), what="the deletion")
    assert page.undo_button.isEnabled()


@pytest.mark.asyncio
async def test_a_failed_delete_keeps_the_undo_of_the_last_successful_one(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: "api-docs" not in slugs(page), what="the deletion")
    await click_row(qtbot, page, "no-emoji")
    current_file(page, home).unlink()
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.statusBar().currentMessage() == GONE, what="the error text")
    assert page.undo_button.isEnabled()

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: "api-docs" in slugs(page), what="the first deletion undone")
    assert (await read(window, "api-docs"))["entry"]["slug"] == "api-docs"
    assert not page.undo_button.isEnabled()


@pytest.mark.asyncio
async def test_a_store_that_cannot_be_opened_is_reported(qtbot: Any, home: Path) -> None:
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("not a folder")
    window = MainWindow(home, Bridge())
    qtbot.addWidget(window)
    try:
        await window.start()
        assert window.store is None
        assert window.pages == []
        assert window.statusBar().currentMessage() == "The memory folder cannot be used."
    finally:
        await window.aclose()


# --- scale ------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.asyncio
async def test_two_thousand_memories_load_and_the_list_stops_at_its_limit(
    open_window: OpenWindow, home: Path
) -> None:
    for number in range(2000):
        slug = f"note-{number:04d}"
        write_file(home, f"global/{slug}.md", memory_text(slug, description=f"Note {number}"))

    window = await open_window()  # reconciles the 2,000 hand-written files on the worker
    [page] = window.pages

    assert page.model.rowCount() == LIST_LIMIT == 1000
    assert page.count.text() == "1000 memories"  # the page shows the first 1,000 only
    await until(lambda: page.current is not None, what="the first memory's detail")
    listed = set(slugs(page))
    unlisted = next(f"note-{n:04d}" for n in range(2000) if f"note-{n:04d}" not in listed)
    page.search.setText(unlisted)  # search still reaches the memories past the limit
    await until(lambda: slugs(page)[:1] == [unlisted], what="a memory past the list limit")
    await until(lambda: current_slug(page) == unlisted, what="its detail")


# --- the model --------------------------------------------------------------------------------


def test_memory_list_model_basics(qapp: QApplication) -> None:
    model = MemoryListModel()
    resets = QSignalSpy(model.modelReset)
    rows = [
        {"slug": "tea", "scope": "global", "workdir_hash": "", "type": "user",
         "description": "Likes tea", "unreviewed": True},
        {"slug": "make", "scope": "project", "workdir_hash": "abc", "type": "project",
         "description": ""},
    ]  # fmt: skip

    model.set_rows(rows)
    rows.clear()  # the model keeps its own list

    assert resets.count() == 1
    assert model.rowCount() == 2
    assert model.rowCount(model.index(0)) == 0  # a flat list: rows have no children
    first, second = model.index(0), model.index(1)
    assert first.data() == "Likes tea •"
    assert second.data() == "make"  # no description: the slug
    assert first.data(Qt.ItemDataRole.ToolTipRole) == "tea (global/user)"
    assert second.data(KEY_ROLE) == ("project", "abc", "make")
    assert first.data(ENTRY_ROLE)["description"] == "Likes tea"
    assert model.data(first, Qt.ItemDataRole.DecorationRole) is None
    assert model.data(QModelIndex()) is None
    assert model.row_of(("project", "abc", "make")) == 1
    assert model.row_of(("global", "", "make")) == -1

    model.set_rows([])
    assert model.rowCount() == 0
    assert resets.count() == 2


@pytest.mark.asyncio
async def test_undo_after_the_trash_copy_vanished_says_so(
    qtbot: Any, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.undo_button.isEnabled(), what="undo to be offered")
    for copy in (home / "global" / ".trash").glob("api-docs*"):
        copy.unlink()  # someone emptied the trash behind the app's back

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(
        lambda: "no longer available" in window.statusBar().currentMessage(),
        what="the error in the status bar",
    )
    assert "api-docs" not in slugs(page)

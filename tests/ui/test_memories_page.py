"""The Memories page, driven through its widgets as a person would use it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QInputMethodEvent, QKeySequence
from PySide6.QtTest import QSignalSpy, QTest
from PySide6.QtWidgets import QApplication, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import SlugNotFound
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.models import KEY_ROLE, PAGE_SIZE
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import until
from tests.ui.conftest import (
    OpenWindow,
    record_calls,
    record_searches,
    sample_memories,
    seed,
)

GONE = "That memory no longer exists."
NOTHING_SELECTED = "No memory selected."
NO_MATCH = "No memory matches the search and filters."


def slugs(page: MemoriesPage) -> list[str]:
    # KEY_ROLE holds only strings; reading rows with None values back through Qt is avoided
    # (PySide6 6.12 on Python 3.11 mis-counts references to None, see test_qt_runtime.py).
    return [page.model.index(row).data(KEY_ROLE)[2] for row in range(page.model.rowCount())]


def current_slug(page: MemoriesPage) -> str | None:
    return page.current["slug"] if page.current else None


def current_file(page: MemoriesPage, home: Path) -> Path:
    """The file of the memory shown in the detail pane."""
    assert page.current is not None
    return home / str(page.current["path"])


def detail_lines(page: MemoriesPage) -> list[str]:
    return [line for line in page.detail.toPlainText().splitlines() if line.strip()]


def fact(page: MemoriesPage, label: str) -> str:
    """The value shown next to `label` in the detail pane's table."""
    lines = detail_lines(page)
    return lines[lines.index(label) + 1]


def choose(combo: QComboBox, text: str) -> None:
    index = combo.findText(text)
    assert index >= 0, (
        f"{text!r} is not offered: {[combo.itemText(i) for i in range(combo.count())]}"
    )
    combo.setCurrentIndex(index)


def offered(combo: QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


def row_point(page: MemoriesPage, slug: str) -> QPoint:
    index = page.model.index(slugs(page).index(slug))
    page.list.scrollTo(index)
    return page.list.visualRect(index).center()


async def click_row(
    qtbot: QtBot,
    page: MemoriesPage,
    slug: str,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Click a memory in the list (with Ctrl/Shift to extend); a plain click waits for it."""
    qtbot.mouseClick(
        page.list.viewport(), Qt.MouseButton.LeftButton, modifier, row_point(page, slug)
    )
    if modifier == Qt.KeyboardModifier.NoModifier:
        await until(lambda: current_slug(page) == slug, what=f"{slug} to be shown")


async def read(
    window: MainWindow, slug: str, scope: str = "global", **target: Any
) -> dict[str, Any]:
    """Read a memory through the app's own store (on its worker)."""
    return await window.bridge.run_store(
        dispatch, window.app_context.store, "memory_read", {"slug": slug, "scope": scope, **target}
    )


def memories_page(window: MainWindow) -> MemoriesPage:
    page = window.page("memories")
    assert isinstance(page, MemoriesPage)
    return page


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    items = sample_memories(workdir)
    seed(home, items, clock=clock)
    return items


async def open_page(open_window: OpenWindow) -> tuple[MainWindow, MemoriesPage]:
    window = await open_window()
    page = memories_page(window)
    await until(lambda: page.current is not None, what="the first memory's detail")
    return window, page


async def shows(page: MemoriesPage, expected: list[str]) -> None:
    await until(lambda: slugs(page) == expected, what=f"the list to show {expected}")
    assert page.count.text() == ("1 memory" if len(expected) == 1 else f"{len(expected)} memories")


def press(window: MainWindow, widget: QWidget, key: str) -> None:
    """Press a shortcut as a person would, with `widget` focused in the active window."""
    window.activateWindow()
    widget.setFocus()
    combo = QKeySequence(key)[0]  # type: ignore[index]  # PySide6's stubs lack __getitem__
    QTest.keyClick(widget, combo.key(), combo.keyboardModifiers())


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
    assert window.nav.item(0).text() == "Memories"
    assert window.stack.currentWidget() is page
    # The first row is selected and shown.
    assert page.list.currentIndex().row() == 0
    assert current_slug(page) == "no-emoji"
    assert detail_lines(page)[0] == "No emoji in commit messages"
    # Unreviewed rows carry a mark.
    assert page.model.index(3).data() == "Likes green tea •"
    assert page.model.index(0).data() == "No emoji in commit messages"
    assert not page.problems_button.isVisible()  # no unreadable files: no problems button


@pytest.mark.asyncio
async def test_selecting_a_row_shows_its_detail_with_evidence_and_rendered_body(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
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
    assert fact(page, "Written by") == "extraction after a conversation"
    assert fact(page, "Created") == "2026-11-30 12:00"  # the seed's first write, TZ=UTC
    assert fact(page, "Updated") == "2026-11-30 12:00"
    assert "Risk" not in lines
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
    assert page.edit_button.isEnabled()
    assert page.history_button.isEnabled()


@pytest.mark.asyncio
async def test_detail_shows_aliases_supersedes_conflicts_links_and_hand_added_keys(
    open_window: OpenWindow, home: Path, clock: FakeClock
) -> None:
    seed(
        home,
        [
            {
                "slug": "editor-choice",
                "scope": "global",
                "type": "user",
                "description": "Uses Helix",
                "body": "The user edits code in Helix.\n",
                "confidence": "medium",
                "source_quote": "hx",
                "aliases": ["hx", "helix editor"],
                "supersedes": "vim-user",
                "conflicts_with": ["emacs-user"],
                "conversation_id": "conv-42",
                "model": "gpt-test",
                "actor": "tool",
            }
        ],
        clock=clock,
    )
    path = home / "global" / "user" / "editor-choice.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", "---\nmood: calm\n", 1), encoding="utf-8")

    _, page = await open_page(open_window)

    assert fact(page, "Aliases") == "hx, helix editor"
    assert fact(page, "Supersedes") == "vim-user"
    assert fact(page, "Conflicts with") == "emacs-user"
    assert fact(page, "Confidence") == "medium"
    assert fact(page, "Written by") == "an agent's memory tool"
    assert fact(page, "Conversation") == "conv-42"
    assert fact(page, "Model") == "gpt-test"
    assert fact(page, "mood") == "calm"  # a key a person added by hand is shown too


@pytest.mark.asyncio
async def test_project_memory_detail_shows_its_folder_and_chinese_title(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], workdir: str
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
async def test_markdown_html_and_images_in_a_memory_are_shown_as_text_not_loaded(
    open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "private.png"
    seed(
        home,
        [
            {
                "slug": "html-note",
                "scope": "global",
                "type": "reference",
                "description": "Has HTML",
                "body": f"<b>raw</b> tag\n\n![img]({secret})\n",
                "actor": "user",
            }
        ],
    )
    _, page = await open_page(open_window)

    assert "<b>raw</b> tag" in page.detail.toPlainText()  # not interpreted
    assert page.detail.loadResource(2, str(secret)) is None
    # No image reaches the view (Qt would read a local file itself once the view declines).
    assert "<img" not in page.detail.toHtml()
    assert f"![img]({secret})" in page.detail.toPlainText()


@pytest.mark.asyncio
async def test_empty_store_says_so_and_offers_only_new(open_window: OpenWindow) -> None:
    window = await open_window()
    page = memories_page(window)

    assert page.model.rowCount() == 0
    assert page.count.text() == "0 memories"
    assert page.detail.toPlainText().strip().startswith("No memories yet.")
    assert page.new_button.isEnabled()
    for button in (
        page.accept_button,
        page.delete_button,
        page.undo_button,
        page.edit_button,
        page.history_button,
    ):
        assert not button.isEnabled(), button.objectName()


# --- filters and search -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_scope_type_and_review_filters_narrow_the_list(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    everything = slugs(page)

    choose(page.scope, "Projects")
    await shows(page, ["build-command"])
    choose(page.scope, "Global")
    await shows(page, ["no-emoji", "api-docs", "tea-preference"])
    choose(page.scope, "All scopes")
    await shows(page, everything)

    choose(page.type, "Feedback")
    await shows(page, ["no-emoji"])
    choose(page.type, "All types")
    await shows(page, everything)

    choose(page.review, "Unreviewed")
    await shows(page, ["tea-preference"])
    await until(lambda: current_slug(page) == "tea-preference", what="its detail")
    choose(page.review, "Reviewed")
    await shows(page, ["no-emoji", "api-docs", "build-command"])

    # Reviewed user memories: none, so nothing is selected and nothing can be changed.
    choose(page.type, "User")
    await shows(page, [])
    await until(lambda: page.detail.toPlainText().strip() == NO_MATCH, what="the empty state")
    assert page.current is None
    assert not page.delete_button.isEnabled()
    assert not page.accept_button.isEnabled()


@pytest.fixture
def two_projects(home: Path, workdir: str, tmp_path: Path, clock: FakeClock) -> tuple[str, str]:
    """sample_memories plus a second project folder named "app" with two memories."""
    other = tmp_path / "work" / "app"
    other.mkdir(parents=True)
    items = sample_memories(workdir) + [
        {
            "slug": "app-tests",
            "scope": "project",
            "workdir": str(other),
            "type": "project",
            "description": "Tests run with pytest",
            "body": "Run pytest -q.\n",
            "actor": "user",
        },
        {
            "slug": "app-deploy",
            "scope": "project",
            "workdir": str(other),
            "type": "reference",
            "description": "Deploys go through CI",
            "body": "Never deploy by hand.\n",
            "confidence": "low",
            "actor": "extractor",
        },
    ]
    seed(home, items, clock=clock)
    return workdir, str(other)


@pytest.mark.asyncio
async def test_project_filter_lists_projects_by_folder_name_and_narrows_the_list(
    open_window: OpenWindow, two_projects: tuple[str, str]
) -> None:
    first, second = (str(Path(p).resolve()) for p in two_projects)
    _, page = await open_page(open_window)

    await until(lambda: page.project.count() == 3, what="the projects to be listed")
    assert offered(page.project) == ["All projects", "app", "project"]
    tips = [page.project.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in (1, 2)]
    assert tips == [second, first]  # the full path as each item's tooltip

    choose(page.project, "app")
    await shows(page, ["app-deploy", "app-tests"])
    assert page.scope.currentText() == "Projects"  # a project is part of the project scope
    assert page.project.toolTip() == second
    choose(page.project, "project")
    await shows(page, ["build-command"])

    # A search stays inside the chosen project.
    page.search.setText("make")
    await shows(page, ["build-command"])
    page.search.setText("pytest")
    await shows(page, [])
    page.search.clear()

    # Global has no projects: the project filter is cleared and disabled.
    choose(page.scope, "Global")
    await shows(page, ["no-emoji", "api-docs", "tea-preference"])
    assert page.project.currentText() == "All projects"
    assert not page.project.isEnabled()


@pytest.mark.asyncio
async def test_show_project_sets_the_filters_to_that_project(
    open_window: OpenWindow, two_projects: tuple[str, str], home: Path
) -> None:
    window, page = await open_page(open_window)
    await until(lambda: page.project.count() == 3, what="the projects to be listed")
    app_hash = page.project.itemData(1)
    choose(page.type, "Feedback")
    choose(page.review, "Reviewed")
    page.search.setText("commit")
    await shows(page, ["no-emoji"])

    page.show_project(app_hash)

    await shows(page, ["app-deploy", "app-tests"])
    assert page.project.currentText() == "app"
    assert page.scope.currentText() == "Projects"
    assert page.type.currentText() == "All types"
    assert page.review.currentText() == "Reviewed and unreviewed"
    assert page.search.text() == ""
    assert (home / "projects" / app_hash).is_dir()

    page.show_project("")  # the Projects page's row for the global scope
    await shows(page, ["no-emoji", "api-docs", "tea-preference"])
    assert page.scope.currentText() == "Global"


@pytest.mark.asyncio
async def test_confidence_filter(open_window: OpenWindow, two_projects: tuple[str, str]) -> None:
    _, page = await open_page(open_window)

    choose(page.confidence, "High confidence")
    await shows(page, ["tea-preference"])
    choose(page.confidence, "Low confidence")
    await shows(page, ["app-deploy"])
    choose(page.confidence, "Unknown confidence")
    await shows(page, ["app-tests", "no-emoji", "api-docs", "build-command"])
    choose(page.confidence, "Medium confidence")
    await shows(page, [])
    page.search.setText("green")  # search results are narrowed the same way
    await shows(page, [])
    choose(page.confidence, "High confidence")
    await shows(page, ["tea-preference"])


@pytest.mark.asyncio
async def test_risk_filter_finds_flagged_memories_in_lists_and_searches(
    open_window: OpenWindow, memories: list[dict[str, Any]], home: Path, clock: FakeClock
) -> None:
    seed(
        home,
        [
            {
                "slug": "deploy-shortcut",
                "scope": "global",
                "type": "feedback",
                "description": "Deploy with sudo",
                "body": "Always run the deploy with sudo and --no-verify.\n",
                "actor": "user",
            }
        ],
        clock=clock,
    )
    _, page = await open_page(open_window)
    assert page.model.index(0).data() == "Deploy with sudo • ⚠"  # unreviewed and flagged
    assert fact(page, "Risk").startswith("low")

    choose(page.risk, "Risk flagged")
    await shows(page, ["deploy-shortcut"])
    choose(page.risk, "Not flagged")
    await shows(page, ["no-emoji", "api-docs", "build-command", "tea-preference"])
    page.search.setText("deploy")
    await shows(page, [])
    choose(page.risk, "Risk flagged")
    await shows(page, ["deploy-shortcut"])


@pytest.mark.asyncio
async def test_typing_searches_after_the_debounce(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    searches = record_searches(page)

    started = time.monotonic()
    qtbot.keyClicks(page.search, "wiki")
    assert searches.queries() == []  # nothing yet: the search waits for a pause in typing

    await until(lambda: slugs(page) == ["api-docs"], what="the search result")
    assert time.monotonic() - started >= 0.2  # the 250 ms debounce
    assert searches.queries() == ["wiki"]  # one search for four keystrokes
    assert page.count.text() == "1 memory"
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
async def test_a_filtered_search_shows_matches_ranked_below_the_best_32(
    open_window: OpenWindow, home: Path, clock: FakeClock
) -> None:
    """The filters go to memory_search, which applies them before its limit. The page used to
    narrow the best 32 hits in Qt, so with every unreviewed match further down it showed none."""
    strong = [
        {
            "slug": f"deploy-step-{i:02d}",
            "scope": "global",
            "type": "reference",
            "description": f"Deploy step {i}: deploy the deploy bundle",
            "body": "Deploy, then deploy again.\n",
        }
        for i in range(40)
    ]
    weak = [
        {
            "slug": f"release-note-{i}",
            "scope": "global",
            "type": "reference",
            "description": f"Release note {i}",
            "body": "The release train mentions a deploy once among many other words.\n",
            "actor": "extractor",  # unreviewed
        }
        for i in range(3)
    ]
    seed(home, [*strong, *weak], clock=clock)
    window, page = await open_page(open_window)
    best = await window.bridge.run_store(
        dispatch,
        window.app_context.store,
        "memory_search",
        {"query": "deploy", "include_all_projects": True, "limit": 32},
    )
    assert all(hit["slug"].startswith("deploy-step") for hit in best["matches"])

    page.search.setText("deploy")
    await until(lambda: len(slugs(page)) == 32, what="the best 32 matches")
    choose(page.review, "Unreviewed")
    release_notes = ["release-note-0", "release-note-1", "release-note-2"]
    await until(lambda: sorted(slugs(page)) == release_notes, what="the unreviewed matches")
    assert page.count.text() == "3 memories"
    choose(page.review, "Reviewed")
    await until(lambda: len(slugs(page)) == 32, what="the reviewed matches")
    assert not set(slugs(page)) & set(release_notes)


@pytest.mark.asyncio
async def test_a_second_query_preempts_the_first(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    searches = record_searches(page)
    shown: list[list[str]] = []
    page.model.modelReset.connect(lambda: shown.append(slugs(page)))
    # Hold the store worker so the first search is still waiting when the second one starts.
    gate = threading.Event()
    window.bridge.spawn(window.bridge.run_store(gate.wait, 5))

    qtbot.keyClicks(page.search, "tea")
    await until(lambda: searches.queries() == ["tea"], what="the first search to start")
    page.search.clear()
    qtbot.keyClicks(page.search, "commit")
    await until(lambda: searches.queries() == ["tea", "commit"], what="the second search")
    gate.set()

    await until(lambda: slugs(page) == ["no-emoji"], what="the second query's result")
    assert shown == [["no-emoji"]]  # the first query's rows were never shown
    await until(lambda: current_slug(page) == "no-emoji", what="the match's detail")


# --- actions ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_accept_marks_the_memory_reviewed(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
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
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
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
    # Its neighbour (the row that moved up into its place) is shown next.
    await until(lambda: current_slug(page) == "build-command", what="the neighbour")
    assert "Undo" in page.notice.text()

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: "api-docs" in slugs(page), what="the row to come back")
    assert not page.undo_button.isEnabled()
    assert path.is_file()
    assert (await read(window, "api-docs"))["content"] == "The API reference is on the team wiki."
    await until(lambda: current_slug(page) == "api-docs", what="the restored memory shown")
    assert page.list.currentIndex().data(KEY_ROLE)[2] == "api-docs"


@pytest.mark.asyncio
async def test_delete_and_undo_a_project_memory(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
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
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
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
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
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
async def test_undo_after_the_trash_copy_vanished_says_so(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
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


@pytest.mark.asyncio
async def test_a_store_that_cannot_be_opened_is_reported(qtbot: QtBot, home: Path) -> None:
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("not a folder")
    window = MainWindow(app_context(home), Bridge())
    qtbot.addWidget(window)
    try:
        await window.start()
        assert window.context is None
        assert window.pages == []
        assert window.statusBar().currentMessage() == "The memory folder cannot be used."
    finally:
        await window.aclose()


# --- bulk actions -----------------------------------------------------------------------------


@pytest.fixture
def three_unreviewed(home: Path, clock: FakeClock) -> list[str]:
    names = ["alpha-note", "beta-note", "gamma-note"]
    seed(
        home,
        [
            {
                "slug": name,
                "scope": "global",
                "type": "reference",
                "description": name.replace("-", " ").title(),
                "body": f"About {name}.\n",
                "actor": "extractor",
            }
            for name in names
        ],
        clock=clock,
    )
    return names


@pytest.mark.asyncio
async def test_bulk_accept_two_of_three(
    qtbot: QtBot, open_window: OpenWindow, three_unreviewed: list[str]
) -> None:
    window, page = await open_page(open_window)
    assert slugs(page) == ["gamma-note", "beta-note", "alpha-note"]
    await click_row(qtbot, page, "gamma-note")
    await click_row(qtbot, page, "alpha-note", Qt.KeyboardModifier.ControlModifier)

    await until(lambda: "2 memories selected" in page.detail.toPlainText(), what="the summary")
    assert page.current is None
    assert not page.edit_button.isEnabled()  # one memory at a time
    assert not page.history_button.isEnabled()
    assert page.accept_button.isEnabled()

    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)

    await until(lambda: page.notice.text() == "Accepted 2 memories.", what="the notice")
    for slug, unreviewed in (("alpha-note", False), ("beta-note", True), ("gamma-note", False)):
        assert (await read(window, slug))["entry"]["unreviewed"] is unreviewed, slug
    choose(page.review, "Unreviewed")
    await shows(page, ["beta-note"])


@pytest.mark.asyncio
async def test_bulk_delete_asks_once_and_undo_brings_all_back(
    qtbot: QtBot, open_window: OpenWindow, three_unreviewed: list[str], home: Path
) -> None:
    window, page = await open_page(open_window)
    files = {slug: home / "global" / f"{slug}.md" for slug in three_unreviewed}
    await click_row(qtbot, page, "gamma-note")
    await click_row(qtbot, page, "alpha-note", Qt.KeyboardModifier.ShiftModifier)
    await until(lambda: "3 memories selected" in page.detail.toPlainText(), what="the summary")

    # Cancel first: nothing happens.
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert page.confirm_bar.isVisible()
    assert page.confirm_label.text() == "Delete 3 memories? Undo brings them back."
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert not page.confirm_bar.isVisible()
    assert all(path.is_file() for path in files.values())

    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(page.confirm_button, Qt.MouseButton.LeftButton)

    await shows(page, [])
    assert not any(path.exists() for path in files.values())
    assert len(list((home / "global" / ".trash").glob("*.md"))) == 3
    assert page.notice.text().startswith("Deleted 3 memories.")
    assert page.undo_button.isEnabled()

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)

    await until(lambda: sorted(slugs(page)) == three_unreviewed, what="all three back")
    assert all(path.is_file() for path in files.values())
    assert page.notice.text() == "Brought back 3 memories."
    assert not page.undo_button.isEnabled()
    assert (await read(window, "beta-note"))["content"] == "About beta-note."


# --- problems ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_unreadable_files_are_listed_with_their_reasons(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    broken_bytes = b"---\nname: unclosed\ntype: reference\ndescription: no end\n\nbody\n"
    broken = write_file(home, "global/unclosed.md", broken_bytes)
    write_file(home, "global/latin1.md", b"---\nname: latin1\n---\n\n\xe9t\xe9\n")

    window, page = await open_page(open_window)

    await until(lambda: page.problems_button.isVisible(), what="the problems button")
    assert page.problems_button.text() == "Problems (2)"
    assert not page.problems_panel.isVisible()
    qtbot.mouseClick(page.problems_button, Qt.MouseButton.LeftButton)
    assert page.problems_panel.isVisible()
    items = [page.problems_list.item(i).text() for i in range(page.problems_list.count())]
    reasons = dict(item.split(" — ", 1) for item in items)
    assert sorted(reasons) == ["global/latin1.md", "global/unclosed.md"]
    assert "UTF-8" in reasons["global/latin1.md"]
    assert "not closed" in reasons["global/unclosed.md"]
    assert broken.read_bytes() == broken_bytes  # reported, never touched
    assert len(slugs(page)) == 4


# --- keyboard ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_keyboard_shortcuts_work_and_show_in_tooltips(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    assert page.accept_button.toolTip().endswith("(Ctrl+Return)")
    assert page.delete_button.toolTip().endswith("(Del)")
    assert page.undo_button.toolTip().endswith("(Ctrl+Z)")
    assert page.new_button.toolTip().endswith("(Ctrl+N)")
    assert page.edit_button.toolTip().endswith("(Ctrl+E)")
    assert [k.toString() for k in page.edit_action.shortcuts()] == ["Ctrl+E", "F2"]

    press(window, page.list, "Ctrl+F")
    assert page.search.hasFocus()

    await click_row(qtbot, page, "tea-preference")
    press(window, page.list, "Ctrl+Return")
    await until(lambda: fact(page, "Review") == "reviewed", what="accepted by Ctrl+Return")

    path = current_file(page, home)
    press(window, page.list, "Del")
    await until(lambda: "tea-preference" not in slugs(page), what="deleted by Del")
    assert not path.exists()
    press(window, page.list, "Ctrl+Z")
    await until(lambda: "tea-preference" in slugs(page), what="brought back by Ctrl+Z")
    assert path.is_file()

    # Delete typed in the search box edits the text; it never deletes a memory.
    page.search.setText("x")
    page.search.setCursorPosition(0)
    press(window, page.search, "Del")
    assert page.search.text() == ""
    await until(lambda: len(slugs(page)) == 4, what="the full list again")
    assert path.is_file()


# --- scale ------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.asyncio
async def test_two_thousand_memories_load_lazily_and_the_last_row_loads_on_scroll(
    open_window: OpenWindow, home: Path
) -> None:
    total = 2000
    for number in range(total):
        slug = f"note-{number:04d}"
        write_file(home, f"global/{slug}.md", memory_text(slug, description=f"Note {number}"))

    window = await open_window()  # reconciles the 2,000 hand-written files on the worker
    page = memories_page(window)
    client = record_calls(page)
    page.model.fetch_did_fail.connect(lambda exc: pytest.fail(f"page fetch failed: {exc}"))

    assert page.model.rowCount() == total
    assert page.count.text() == "2000 memories"  # every memory counts, not just a first page
    assert page.model.loaded_rows() == PAGE_SIZE  # only the first page was read
    await until(lambda: page.current is not None, what="the first memory's detail")
    await asyncio.sleep(0.1)
    assert not page.model.is_loaded(total - 1)
    assert client.payloads("memory_list") == []  # nothing else loads until it is looked at

    page.list.scrollToBottom()
    await until(lambda: page.model.is_loaded(total - 1), what="the last page to load")

    last = page.model.index(total - 1)
    assert last.data().startswith("Note ")
    listed = client.payloads("memory_list")
    assert [call["offset"] for call in listed] == [(total - 1) // PAGE_SIZE * PAGE_SIZE]
    assert page.model.loaded_rows() == PAGE_SIZE * 2  # the first and the last page
    # Selecting the last row shows it; nothing in between was fetched.
    page.list.setCurrentIndex(last)
    await until(
        lambda: current_slug(page) == last.data(KEY_ROLE)[2], what="the last memory's detail"
    )
    assert len(client.payloads("memory_list")) == 1
    assert page.model.index(total // 2).data() == "Loading…"  # the middle was never read

    # A search still reaches every memory.
    page.search.setText("note-1234")
    await until(
        lambda: page.model.rowCount() < PAGE_SIZE and slugs(page)[:1] == ["note-1234"],
        what="a memory deep in the list",
    )

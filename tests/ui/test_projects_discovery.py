"""The Projects page's "Other memory stores": folders to search (kept in settings.json), the
search on the store worker, and what it found in a real folder tree (SPEC 6)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileDialog, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.projects import (
    DCOL_CONTENTS,
    DCOL_KIND,
    DCOL_PATH,
    DCOL_PROBLEMS,
    DCOL_PROJECTS,
    DCOL_TOTAL,
    ProjectsPage,
)
from liveagent_memory.ui.pages.projects_rows import MISSING_COLOR
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.retrieval.test_projects import make_liveagent, make_loki
from tests.ui.conftest import OpenWindow

HASH_A = "0123456789abcdef"
HASH_B = "fedcba9876543210"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One LiveAgent store (global + two projects) and one Loki Mode store, at depth 2."""
    code = tmp_path / "code"
    make_liveagent(
        code / "team" / "shared",
        global_files={"tea.md": "user", "no-emoji.md": "feedback", "daily/2026-01-01.md": "x"},
        projects={HASH_A: ["project", "project", "reference"], HASH_B: ["skill"]},
    )
    loki = make_loki(
        code / "apps" / "shop",
        episodes=("2026-01-01/a.json", "2026-01-02/b.json", "2026-01-02/index.json"),
        patterns=3,
        skills=2,
    )
    (loki / "billing" / "episodic").mkdir(parents=True)
    (loki / "billing" / "episodic" / "c.json").write_text("{}", encoding="utf-8")
    return code


def save_roots(home: Path, roots: list[Path]) -> None:
    """settings.json as an earlier session of the app left it."""
    home.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"discovery_roots": [str(root) for root in roots]})
    (home / "settings.json").write_text(text, encoding="utf-8")


def saved_roots(home: Path) -> list[str] | None:
    path = home / "settings.json"
    if not path.exists():
        return None
    roots: list[str] = json.loads(path.read_text(encoding="utf-8")).get("discovery_roots")
    return roots


async def open_projects(open_window: OpenWindow) -> tuple[MainWindow, ProjectsPage]:
    window = await open_window()
    page = window.page("projects")
    assert isinstance(page, ProjectsPage)
    window.open_page("projects")
    await until(lambda: page.table.rowCount() > 0, what="the table")
    return window, page


async def settle(window: MainWindow) -> None:
    """Let background work finish while the loop runs (none left for the teardown)."""
    await asyncio.sleep(0.05)
    await until(lambda: window.bridge.pending == 0, what="the pages' background work")


async def search(qtbot: QtBot, page: ProjectsPage) -> None:
    """Click Search as a person would and wait for the result."""
    assert page.search_button.isEnabled()
    qtbot.mouseClick(page.search_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.searched and not page.searching, what="the search")


def stores(page: ProjectsPage) -> dict[str, QTreeWidgetItem]:
    """The found stores' rows by the last part of their path."""
    items = [page.results.topLevelItem(i) for i in range(page.results.topLevelItemCount())]
    return {short(item.text(DCOL_PATH)): item for item in items if item is not None}


def short(path: str) -> str:
    """`shared` for a LiveAgent root, `shop` for shop/.loki/memory."""
    parts = Path(path).parts
    return parts[-3] if parts[-2:] == (".loki", "memory") else parts[-1]


def children(item: QTreeWidgetItem) -> dict[str, QTreeWidgetItem]:
    kids = [item.child(i) for i in range(item.childCount())]
    return {kid.text(DCOL_PATH): kid for kid in kids if kid is not None}


def problem_lines(page: ProjectsPage) -> list[str]:
    return [page.problems.item(i).text() for i in range(page.problems.count())]


class FolderDialog:
    """Stands in for the folder picker: answers with the queued folders ('' = cancelled)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers: list[str] = []
        self.asked = 0
        monkeypatch.setattr(QFileDialog, "getExistingDirectory", self.ask)

    def ask(self, *_args: Any, **_kwargs: Any) -> str:
        self.asked += 1
        return self.answers.pop(0)


@pytest.mark.asyncio
async def test_folders_added_and_removed_are_kept_across_a_reload(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    dialog = FolderDialog(monkeypatch)
    window, page = await open_projects(open_window)
    assert page.roots_list.count() == 0
    assert not page.search_button.isEnabled()  # nothing to search yet
    assert page.results_empty.text().startswith("Add a folder to search")

    dialog.answers = [str(first), str(second), "", str(first)]
    for _ in range(4):  # the last two: cancelled, then a folder already listed
        qtbot.mouseClick(page.add_root_button, Qt.MouseButton.LeftButton)

    assert dialog.asked == 4
    assert [page.roots_list.item(i).text() for i in range(2)] == [str(first), str(second)]
    assert page.roots_list.count() == 2
    assert page.search_button.isEnabled()
    assert page.results_empty.text().startswith("Press Search")
    await until(lambda: saved_roots(home) == [str(first), str(second)], what="roots saved")

    page.roots_list.setCurrentRow(0)
    page.roots_list.setFocus()
    qtbot.keyClick(page.roots_list, Qt.Key.Key_Delete)  # Delete, like the Remove button

    assert [page.roots_list.item(i).text() for i in range(page.roots_list.count())] == [str(second)]
    await until(lambda: saved_roots(home) == [str(second)], what="the removal saved")
    settings = json.loads((home / "settings.json").read_text(encoding="utf-8"))
    assert settings["language"] == ""  # only the roots changed
    await settle(window)
    await window.aclose()

    _, reopened = await open_projects(open_window)

    await until(lambda: reopened.roots_list.count() == 1, what="the saved folder listed")
    assert reopened.roots_list.item(0).text() == str(second)
    reopened.roots_list.setCurrentRow(0)
    assert reopened.remove_root_button.isEnabled()
    qtbot.mouseClick(reopened.remove_root_button, Qt.MouseButton.LeftButton)
    assert reopened.roots_list.count() == 0
    await until(lambda: saved_roots(home) == [], what="the last removal saved")
    assert not reopened.remove_root_button.isEnabled()


@pytest.mark.asyncio
async def test_search_fills_the_table_with_each_stores_counts(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path
) -> None:
    save_roots(home, [tree])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")
    assert page.results.isHidden()  # no search until the person asks

    await search(qtbot, page)

    found = stores(page)
    assert sorted(found) == ["shared", "shop"]
    shared, shop = found["shared"], found["shop"]
    assert shared.text(DCOL_KIND) == "LiveAgent"
    assert shared.text(DCOL_PATH) == str((tree / "team" / "shared").resolve())
    assert shared.text(DCOL_PROJECTS) == "2"
    assert shared.text(DCOL_TOTAL) == "7"
    assert shared.text(DCOL_CONTENTS) == (
        "user 1 · feedback 1 · project 2 · reference 1 · skill 1 · journal 1"
    )
    assert shared.text(DCOL_PROBLEMS) == "—"
    scopes = children(shared)
    project_a = f"/src/{HASH_A}"  # make_liveagent's .workdir.json
    assert list(scopes) == ["Global", project_a, f"/src/{HASH_B}"]
    assert scopes[project_a].text(DCOL_TOTAL) == "3"
    assert scopes[project_a].text(DCOL_CONTENTS) == "project 2 · reference 1"
    assert f"Project key: {HASH_A}" in scopes[project_a].toolTip(DCOL_PATH)
    assert scopes["Global"].text(DCOL_CONTENTS) == "user 1 · feedback 1 · journal 1"

    assert shop.text(DCOL_KIND) == "Loki Mode"
    assert shop.text(DCOL_PATH) == str((tree / "apps" / "shop" / ".loki" / "memory").resolve())
    assert shop.text(DCOL_PROJECTS) == "2"  # the default namespace and billing
    assert shop.text(DCOL_CONTENTS) == "episodes 3 · patterns 3 · skills 2"  # index.json is not
    assert shop.text(DCOL_TOTAL) == "8"
    assert sorted(children(shop)) == ["billing", "default"]
    assert children(shop)["billing"].text(DCOL_CONTENTS) == "episodes 1 · patterns 0 · skills 0"

    totals = page.totals.text()
    assert totals.startswith(
        "2 stores found · 3 projects · 7 LiveAgent memories · 3 episodes · 3 patterns · 2 skills"
    )
    assert "folders searched in" in totals
    assert page.results_empty.isHidden()
    assert page.problems.isHidden() and page.problems_heading.isHidden()

    page.retranslate()  # a language switch re-labels in place: nothing is lost
    assert sorted(stores(page)) == ["shared", "shop"]
    assert page.totals.text() == totals
    await settle(window)


@pytest.mark.asyncio
async def test_a_missing_folder_is_a_problem_and_the_others_are_still_searched(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "moved-away"
    save_roots(home, [gone, tree])
    window, page = await open_projects(open_window)
    errors: list[BaseException] = []
    page.error_did_occur.connect(errors.append)
    await until(lambda: page.roots_list.count() == 2, what="the saved folders")

    await search(qtbot, page)

    assert sorted(stores(page)) == ["shared", "shop"]  # the folder that exists was searched
    assert problem_lines(page) == [f"Folder not found: {gone}"]
    assert "does not exist" in page.problems.item(0).toolTip()  # the core's own words
    assert page.problems.isVisibleTo(page)
    missing = page.roots_list.item(0)
    assert missing.text() == str(gone)
    assert missing.foreground().color() == QColor(MISSING_COLOR)
    assert "Not found in the last search" in missing.toolTip()
    assert page.roots_list.item(1).foreground().color() != QColor(MISSING_COLOR)
    assert errors == []  # an expected outcome, not an error

    page.roots_list.setCurrentRow(1)
    qtbot.mouseClick(page.remove_root_button, Qt.MouseButton.LeftButton)
    await search(qtbot, page)  # only the missing folder is left

    assert stores(page) == {}
    assert page.results.isHidden()
    assert page.results_empty.text() == (
        "None of these folders could be searched: see the problems below."
    )
    assert problem_lines(page) == [f"Folder not found: {gone}"]
    assert page.totals.text() == ""
    await settle(window)


@pytest.mark.asyncio
async def test_unreadable_files_show_as_problems_of_their_store(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path
) -> None:
    broken = tree / "apps" / "shop" / ".loki" / "memory" / "semantic" / "patterns.json"
    broken.write_text("{not json", encoding="utf-8")
    save_roots(home, [tree])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")

    await search(qtbot, page)

    shop = stores(page)["shop"]
    assert shop.text(DCOL_PROBLEMS) == "1"
    assert shop.foreground(DCOL_PROBLEMS).color() == QColor(MISSING_COLOR)
    assert shop.toolTip(DCOL_PROBLEMS) == f"Not valid JSON: {broken.resolve()}"
    assert shop.text(DCOL_CONTENTS) == "episodes 3 · patterns 0 · skills 2"  # the rest counted
    assert problem_lines(page) == [f"Not valid JSON: {broken.resolve()}"]
    await settle(window)


@pytest.mark.asyncio
async def test_nothing_found_says_so(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    save_roots(home, [plain])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")

    await search(qtbot, page)

    assert page.results.isHidden()
    assert page.results_empty.text() == "No other memory stores were found in these folders."
    assert page.totals.text().startswith("0 stores found · 0 projects")
    assert page.problems.isHidden()
    await settle(window)


@pytest.mark.asyncio
async def test_search_is_busy_and_disabled_until_the_walk_ends(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path
) -> None:
    save_roots(home, [tree])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")
    # Hold the store worker: the search queues behind this call, as behind a slow walk.
    gate = threading.Event()
    held = asyncio.ensure_future(window.bridge.run_store(gate.wait, 5.0))

    qtbot.mouseClick(page.search_button, Qt.MouseButton.LeftButton)

    assert page.searching
    assert not page.search_button.isEnabled()
    assert page.search_progress.isVisibleTo(page)
    assert page.results_empty.text() == "Searching…"
    assert page.totals.text() == "Searching 1 folder…"
    page.search()  # a second request while one runs is ignored
    await asyncio.sleep(0.05)
    assert not page.search_button.isEnabled()  # the UI thread stayed free meanwhile

    gate.set()
    await held
    await until(lambda: page.search_button.isEnabled(), what="the search to end")
    assert not page.search_progress.isVisibleTo(page)
    assert sorted(stores(page)) == ["shared", "shop"]
    await settle(window)


@pytest.mark.asyncio
async def test_a_failed_save_is_reported_and_the_folder_stays_listed(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dialog = FolderDialog(monkeypatch)
    window, page = await open_projects(open_window)
    errors: list[BaseException] = []
    page.error_did_occur.connect(errors.append)
    (home / "settings.json").mkdir()  # settings.json cannot be read nor replaced any more

    dialog.answers = [str(tmp_path)]
    qtbot.mouseClick(page.add_root_button, Qt.MouseButton.LeftButton)

    await until(lambda: bool(errors), what="the error")
    assert window.statusBar().currentMessage()  # the window showed it
    assert page.roots_list.count() == 1 and page.roots_list.item(0).text() == str(tmp_path)
    await settle(window)


@pytest.mark.asyncio
async def test_the_section_in_chinese(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path, chinese: Translations
) -> None:
    save_roots(home, [tree])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")

    await search(qtbot, page)

    assert page.discovery_group.title() == "其他记忆库"
    assert page.search_button.text() == "搜索"
    assert page.add_root_button.text() == "添加文件夹…"
    assert page.totals.text().startswith("找到 2 个记忆库 · 3 个项目 · 7 条 LiveAgent 记忆")
    shared = stores(page)["shared"]
    assert shared.text(DCOL_CONTENTS).startswith("用户 1 · 反馈 1 · 项目 2")
    assert page.results.headerItem().text(DCOL_CONTENTS) == "内容"
    await settle(window)


@pytest.mark.asyncio
async def test_a_language_switch_keeps_the_open_stores_open(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tree: Path
) -> None:
    save_roots(home, [tree])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")
    await search(qtbot, page)
    stores(page)["shop"].setExpanded(True)

    page.retranslate()

    assert stores(page)["shop"].isExpanded()
    assert not stores(page)["shared"].isExpanded()
    await settle(window)

"""The Projects page's "Merge folders…" (issue 19): a real window on a real store where one
project (one git remote, two clones) is kept in two folders; the person asks, reads what would
move, and merges."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.paths import workdir_hash
from liveagent_memory.ui.i18n import Translations
from tests.helpers.git_repos import bare_repository, clone
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, seed
from tests.ui.test_projects_discovery import open_projects, settle


def two_folders(home: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Clones A and B of one repository; B's memories written in another store, then its
    project folder copied into `home` (a sync before B's folder knew A's)."""
    server = bare_repository(tmp_path / "server" / "shop.git")
    a, b = clone(server, tmp_path / "a" / "shop"), clone(server, tmp_path / "b" / "co")
    other = tmp_path / "b-memory"
    note = {"scope": "project", "type": "project", "description": "A note"}
    seed(other, [{**note, "slug": "b-only", "body": "From B.", "workdir": str(b)}])
    seed(other, [{**note, "slug": "shared", "body": "Same text.", "workdir": str(b)}])
    seed(home, [{**note, "slug": "a-only", "body": "From A.", "workdir": str(a)}])
    seed(home, [{**note, "slug": "shared", "body": "Same text.", "workdir": str(a)}])
    key_b = workdir_hash(str(b))
    shutil.copytree(other / "projects" / key_b, home / "projects" / key_b)
    return a, b


@pytest.mark.asyncio
async def test_merge_folders_asks_then_moves(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    a, b = two_folders(home, tmp_path)
    window, page = await open_projects(open_window)
    bar = page.merge_bar
    page.table.selectRow(0)  # the global scope: one folder, nothing to merge
    assert not bar.button.isVisible()
    row = next(n for n, r in enumerate(page.rows) if len(r["folders"]) == 2)
    # The row opens the older folder, B's (seeded first): A's moves into it.
    target, other = page.rows[row]["workdir_hash"], workdir_hash(str(a))
    assert target == workdir_hash(str(b))
    page.table.selectRow(row)
    assert bar.button.isVisible() and bar.button.isEnabled()
    assert bar.button.text() == "Merge folders…"

    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.plan is not None, what="the dry run")
    assert bar.isVisible()
    assert bar.label.text() == (
        f"Move 2 memories from folder {other} into {target}? · "
        "1 is here already with the same text and is kept once · "
        "0 differ and are kept side by side, unreviewed · 0 episodes move too"
    )
    assert (home / "projects" / other).is_dir()  # asking moves nothing

    qtbot.mouseClick(bar.cancel_button, Qt.MouseButton.LeftButton)
    assert bar.plan is None and not bar.isVisible()
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.plan is not None, what="the dry run again")
    qtbot.mouseClick(bar.confirm_button, Qt.MouseButton.LeftButton)
    await until(lambda: not (home / "projects" / other).exists(), what="the merge")
    await until(lambda: all(len(r["folders"]) < 2 for r in page.rows), what="the refresh")
    listed = await page.client.call("memory_list", {"scope": "project", "workdir": str(a)})
    assert {e["slug"] for e in listed["entries"]} == {"a-only", "b-only", "shared"}
    assert not bar.button.isVisible()
    await settle(window)


@pytest.mark.asyncio
async def test_merge_folders_speaks_chinese(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    tmp_path: Path,
    chinese: Translations,
) -> None:
    two_folders(home, tmp_path)
    window, page = await open_projects(open_window)
    bar = page.merge_bar
    row = next(n for n, r in enumerate(page.rows) if len(r["folders"]) == 2)
    page.table.selectRow(row)
    assert bar.button.text() == "合并文件夹…"
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.plan is not None, what="the dry run")
    assert bar.label.text().startswith("把 2 条记忆从文件夹 ")
    assert (bar.confirm_button.text(), bar.cancel_button.text()) == ("合并", "取消")
    await settle(window)

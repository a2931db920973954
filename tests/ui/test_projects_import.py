"""The Projects page's Loki Mode import (issue 18): a real window, a real Loki store found by
the search, Preview and Import clicked as a person would."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.projects import ProjectsPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.loki import EPISODE_1, write_loki_store
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow
from tests.ui.test_projects_discovery import (
    children,
    open_projects,
    save_roots,
    search,
    settle,
    stores,
)


async def found_shop(
    qtbot: QtBot, open_window: OpenWindow, home: Path, code: Path
) -> tuple[MainWindow, ProjectsPage]:
    """The window on the Projects page, its search over `code` done."""
    save_roots(home, [code])
    window, page = await open_projects(open_window)
    await until(lambda: page.roots_list.count() == 1, what="the saved folder")
    await search(qtbot, page)
    return window, page


@pytest.mark.asyncio
async def test_preview_then_import_a_found_loki_store(
    qtbot: QtBot, open_window: OpenWindow, home: Path, tmp_path: Path
) -> None:
    code = tmp_path / "code"
    memory = write_loki_store(code / "apps" / "shop")
    broken = memory / "skills" / "broken.json"
    broken.write_text("{", encoding="utf-8")
    window, page = await found_shop(qtbot, open_window, home, code)
    bar = page.loki_import
    assert not bar.import_button.isEnabled()  # no store chosen yet
    assert bar.summary.text() == "Choose a Loki Mode store above to import it."

    shop = stores(page)["shop"]
    page.results.setCurrentItem(children(shop)["billing"])  # a namespace row names its store
    assert bar.store_path == shop.toolTip(0)
    assert bar.preview_button.isEnabled() and bar.import_button.isEnabled()

    qtbot.mouseClick(bar.preview_button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.last is not None, what="the preview")
    assert bar.summary.text() == (
        "Would import 8 new or changed entries · 0 already here · 1 problem"
    )
    assert bar.summary.toolTip() == f"corrupt_json  {broken.resolve()}"
    listed = await page.client.call("memory_list", {})
    assert listed["total"] == 0  # a preview writes nothing

    qtbot.mouseClick(bar.import_button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.last is not None and not bar.last["dry_run"], what="the import")
    assert bar.summary.text() == "Imported 8 new or changed entries · 0 already here · 1 problem"
    listed = await page.client.call("memory_list", {})
    assert listed["total"] == 5
    assert all(entry["unreviewed"] for entry in listed["entries"])  # waiting for review
    episode = await page.client.call("episode_read", {"id": EPISODE_1})
    assert episode["episode"]["id"] == EPISODE_1

    # The page re-reads its figures after an import, redrawing the results: the choice goes,
    # what the import did stays said.
    await until(lambda: bar.store_path is None, what="the page's refresh")
    assert not bar.import_button.isEnabled()
    assert bar.summary.text().startswith("Imported 8 ")
    page.results.setCurrentItem(stores(page)["shop"])
    qtbot.mouseClick(bar.import_button, Qt.MouseButton.LeftButton)  # again: nothing new
    await until(lambda: bar.last is not None and bar.last["written"] == 0, what="the re-import")
    assert bar.summary.text() == "Imported 0 new or changed entries · 8 already here · 1 problem"
    await settle(window)


@pytest.mark.asyncio
async def test_the_import_in_chinese(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    tmp_path: Path,
    chinese: Translations,
) -> None:
    code = tmp_path / "code"
    write_loki_store(code / "apps" / "shop")
    window, page = await found_shop(qtbot, open_window, home, code)
    bar = page.loki_import

    assert bar.import_button.text() == "导入"
    assert bar.preview_button.text() == "预览导入"
    assert bar.summary.text() == "在上方选择一个 Loki Mode 存储即可导入。"
    page.results.setCurrentItem(stores(page)["shop"])
    qtbot.mouseClick(bar.preview_button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.last is not None, what="the preview")
    assert bar.summary.text() == "将导入 8 条新增或更改的条目 · 0 条已存在 · 0 个问题"
    await settle(window)

"""English and Simplified Chinese: the compiled catalogue, the switch, the open window re-labels."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator
from PySide6.QtWidgets import QApplication

from liveagent_memory.ui.i18n import I18N_DIR, Translations, resolve_language, system_language
from liveagent_memory.ui.pages.memories import MemoriesPage
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, sample_memories, seed


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations(qapp)
    yield installed
    installed.switch("en")  # later tests see English again


def test_zh_cn_catalogue_translates_a_page_title(qapp: QApplication) -> None:
    translator = QTranslator()
    assert translator.load(str(I18N_DIR / "zh_CN.qm"))
    assert translator.translate("MemoriesPage", "Memories") == "记忆"
    assert translator.translate("Strings", "That memory no longer exists.") == "这条记忆已不存在。"
    # Issue 12: why an organizer run ended without finishing.
    assert translator.translate(
        "Strings", "Abandoned: the program running it stopped before it finished."
    ) == ("已放弃：运行它的程序在完成前就停止了。")


def test_unknown_language_follows_the_system() -> None:
    assert resolve_language("fr") == system_language()
    assert resolve_language("zh_CN") == "zh_CN"


@pytest.mark.asyncio
async def test_switching_language_relabels_the_open_window(
    home: Path, workdir: str, open_window: OpenWindow, translations: Translations
) -> None:
    seed(home, sample_memories(workdir))
    window = await open_window()
    window.translations = translations
    memories = window.page("memories")
    assert isinstance(memories, MemoriesPage)

    window.switch_language("zh_CN")

    await until(lambda: window.nav.item(0).text() == "记忆", what="Chinese page title")
    assert window.windowTitle() == "LiveAgent 记忆"
    assert window.language_menu.title() == "语言(&L)"
    assert memories.search.placeholderText().startswith("搜索")
    assert QCoreApplication.translate("Strings", "That memory no longer exists.") == (
        "这条记忆已不存在。"
    )
    settings = home / "settings.json"
    await until(
        lambda: (
            settings.exists()
            and json.loads(settings.read_text(encoding="utf-8"))["language"] == "zh_CN"
        ),
        what="language saved",
    )

    window.switch_language("en")

    await until(lambda: window.nav.item(0).text() == "Memories", what="English again")
    assert memories.search.placeholderText().startswith("Search")


@pytest.mark.asyncio
async def test_switching_language_relabels_the_review_mode_and_the_history(
    home: Path, workdir: str, open_window: OpenWindow, translations: Translations
) -> None:
    seed(home, sample_memories(workdir))  # tea-preference waits for review
    window = await open_window()
    window.translations = translations
    memories = window.page("memories")
    assert isinstance(memories, MemoriesPage)
    await until(lambda: memories.current is not None, what="the first memory")
    memories.history_button.click()
    history = memories.history
    assert history is not None
    await until(lambda: history.table.topLevelItemCount() > 1, what="the versions")
    memories.review_button.click()
    mode = memories.review_mode
    await until(lambda: mode.count.text() == "1 of 1", what="the review queue")

    window.switch_language("zh_CN")

    await until(lambda: mode.buttons["accept"].text() == "接受（A）", what="Chinese keys")
    assert mode.count.text() == "第 1 条，共 1 条"
    assert mode.why.text().startswith("等待审阅：")
    assert memories.undo_button.text() == "撤销"
    assert history.tabs.tabText(1) == "改动"
    assert history.table.topLevelItem(0).text(2) == "当前版本"  # type: ignore[union-attr]

    window.switch_language("en")

    await until(lambda: mode.buttons["accept"].text() == "Accept (A)", what="English again")
    assert mode.count.text() == "1 of 1" and history.tabs.tabText(1) == "Changes"

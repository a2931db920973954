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

"""Messages that were true once and are not any more go away: a failure line after the retry
succeeded, and the notice under the detail pane once the person looks elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.domain.sorting import SortField
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.models import column_of
from liveagent_memory.ui.pages.model import ModelPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow
from tests.ui.test_i18n import translations  # noqa: F401 - the fixture (switches back to English)
from tests.ui.test_memories_page import choose, click_row, open_page, slugs
from tests.ui.test_memory_editor import GITHUB_TOKEN, SECRET_REFUSED, open_editor, save

CREDENTIAL_REFUSED = "Settings never hold API keys or passwords."


@pytest.mark.asyncio
async def test_the_secret_warning_goes_once_the_fixed_text_is_saved(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    editor = open_editor(qtbot, page, "new")
    editor.slug.setText("deploy-token")
    editor.description.setText("How deploys authenticate")
    editor.body.setPlainText(f"Deploy with {GITHUB_TOKEN}.")
    await save(qtbot, page, editor)
    assert window.statusBar().currentMessage() == SECRET_REFUSED
    assert editor.error.text().splitlines()[0] == SECRET_REFUSED  # then the core's details
    assert GITHUB_TOKEN not in editor.error.text()

    editor.body.setPlainText("Deploy with the token kept in the keyring.")
    await save(qtbot, page, editor)

    assert page.editor is None  # saved
    await until(lambda: page.notice.text() == "Saved.", what="the saved notice")
    assert window.statusBar().currentMessage() == ""  # the refusal is no longer true
    [path] = home.rglob("deploy-token.md")
    assert "kept in the keyring" in path.read_text(encoding="utf-8")
    assert GITHUB_TOKEN not in "".join(p.read_text("utf-8") for p in home.rglob("*.md"))


async def refuse_a_password(qtbot: QtBot, window: MainWindow) -> ModelPage:
    """On the Model page, save a base URL with a password in it: the core refuses it."""
    window.open_page("model")
    page = window.page("model")
    assert isinstance(page, ModelPage)
    row = page.rows["default"]
    await until(lambda: row.base.isEnabled(), what="the model page")
    row.set_model("openai/gpt-4o-mini")
    qtbot.keyClicks(row.base, "http://me:hunter2-token@gpu-box:8000/v1")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    await until(
        lambda: window.statusBar().currentMessage().startswith(CREDENTIAL_REFUSED),
        what="the refusal",
    )
    return page


@pytest.mark.asyncio
async def test_the_settings_refusal_goes_once_the_fixed_settings_are_saved(
    qtbot: QtBot, open_window: OpenWindow, home: Path
) -> None:
    window = await open_window()
    page = await refuse_a_password(qtbot, window)
    row = page.rows["default"]

    row.base.clear()
    qtbot.keyClicks(row.base, "http://gpu-box:8000/v1")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)

    await until(lambda: page.status.text() == "Settings saved.", what="the save")
    assert window.statusBar().currentMessage() == ""
    text = (home / "settings.json").read_text(encoding="utf-8")
    assert json.loads(text)["default"]["api_base"] == "http://gpu-box:8000/v1"
    assert "hunter2" not in text


@pytest.mark.asyncio
async def test_another_pages_failure_stays_when_a_memory_is_saved(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await refuse_a_password(qtbot, window)
    window.open_page("memories")

    editor = open_editor(qtbot, page)
    editor.reasoning.setText("checked again")
    await save(qtbot, page, editor)

    await until(lambda: page.notice.text() == "Saved.", what="the saved notice")
    # Saving a memory fixed nothing on the Model page: its refusal still stands.
    assert window.statusBar().currentMessage().startswith(CREDENTIAL_REFUSED)
    assert not (home / "settings.json").exists()


# --- the notice under the detail pane ---------------------------------------------------------


async def accept_shown(qtbot: QtBot, window: MainWindow, page: Any) -> None:
    """Press Accept and wait for its notice and the reload it causes."""
    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.notice.text() == "Accepted.", what="the notice")
    await until(lambda: not page.accept_button.isEnabled(), what="the reload")


@pytest.mark.asyncio
async def test_the_notice_stays_through_its_own_reload_and_goes_when_another_row_is_chosen(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")

    await accept_shown(qtbot, window, page)

    # The accept reloaded the list and re-selected the memory: still the notice's moment.
    row = slugs(page).index("tea-preference")
    assert page.model.index(row, column_of(SortField.REVIEWED)).data() == ""
    assert page.notice.text() == "Accepted."

    await click_row(qtbot, page, "api-docs")  # the person looks at another memory

    assert page.notice.text() == ""


@pytest.mark.asyncio
async def test_the_notice_goes_when_the_filters_change(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    await accept_shown(qtbot, window, page)

    choose(page.type, "Feedback")

    await until(lambda: slugs(page) == ["no-emoji"], what="the filtered list")
    assert page.notice.text() == ""


@pytest.mark.asyncio
async def test_the_notice_goes_on_a_language_switch_and_the_table_relabels(
    qtbot: QtBot,
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    translations: Translations,  # noqa: F811 - the imported fixture
) -> None:
    window, page = await open_page(open_window)
    window.translations = translations
    await click_row(qtbot, page, "no-emoji")
    page.notice.setText("Accepted.")  # what the last action said, in English
    review = column_of(SortField.REVIEWED)
    unreviewed = slugs(page).index("tea-preference")

    window.switch_language("zh_CN")

    await until(lambda: page.notice.text() == "", what="the English notice to go")
    header = page.list.horizontalHeader()
    assert page.model.headerData(0, Qt.Orientation.Horizontal) == "标题"
    assert page.model.index(unreviewed, review).data() == "未审阅"
    assert not header.isSectionHidden(review)
    window.switch_language("en")
    await until(lambda: page.model.index(unreviewed, review).data() == "Unreviewed", what="en")

"""The Organizer page's contradictions (issue 15), driven through a real window: an offline run
finds two memories that disagree, the page shows them side by side with the question and the
four answers, and each click's outcome is checked on the files."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.organizer_contradictions import MARK_STYLE, ContradictionPanel
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, seed

TEN = "The checkout API allows 10 requests per second per user."
FIVE = "The checkout API allows 5 requests per second per user."


def rate(slug: str, body: str) -> dict[str, Any]:
    return {
        "slug": slug,
        "scope": "global",
        "type": "reference",
        "description": "Checkout API rate limit",
        "body": body,
        "actor": "extractor",
    }


async def offline_run(home: Path) -> str:
    """Two memories that disagree and an offline run that found them; its run id."""
    seed(home, [rate("rate-ten", TEN), rate("rate-five", FIVE)])
    with MemoryStore.open(home) as store:
        run = dispatch(store, "organize_run_create", {"trigger": "manual"})["run"]
        final = await OrganizerPipeline(store, None).run(run, offline=True)
    assert final["status"] == "succeeded"
    return str(final["run_id"])


def on_disk(home: Path) -> dict[str, str]:
    """The global memories' texts by slug."""
    with MemoryStore.open(home) as store:
        listing = dispatch(store, "memory_list", {"scope": "global"})["entries"]
        return {
            e["slug"]: dispatch(store, "memory_read", {"slug": e["slug"]})["content"]
            for e in listing
        }


async def shown(open_window: OpenWindow) -> tuple[MainWindow, OrganizerPage, ContradictionPanel]:
    window = await open_window()
    window.open_page("organizer")
    page = window.page("organizer")
    assert isinstance(page, OrganizerPage)
    panel = page.contradictions
    await until(lambda: panel.isVisible() and panel.current() is not None, what="the panel")
    return window, page, panel


async def settle(window: MainWindow) -> None:
    await until(lambda: window.bridge.pending == 0, what="background work to finish")
    await asyncio.sleep(0.05)
    await until(lambda: window.bridge.pending == 0, what="background work to finish")


def slugs(panel: ContradictionPanel) -> tuple[str, str]:
    item = panel.current()
    assert item is not None
    return item["first"]["slug"], item["second"]["slug"]


@pytest.mark.asyncio
async def test_a_contradiction_is_shown_side_by_side_with_the_question(
    open_window: OpenWindow, home: Path
) -> None:
    await offline_run(home)
    window, page, panel = await shown(open_window)

    assert panel.question.text() == "These two disagree — which one is current?"
    tabs = page.review_tabs
    assert tabs.currentWidget() is panel  # only a contradiction waits: its tab is in front
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Decisions", "Contradictions (1)"]
    first, second = slugs(panel)
    texts = {first: panel.views["first"].toPlainText(), second: panel.views["second"].toPlainText()}
    assert TEN in texts["rate-ten"] and FIVE in texts["rate-five"]
    assert texts["rate-ten"].startswith("A · ") or texts["rate-ten"].startswith("B · ")
    for view in panel.views.values():  # what differs is marked in both texts
        assert MARK_STYLE.split(";")[0] in view.toHtml().replace(" ", "")
    assert "10" in panel.differs.text() and "5" in panel.differs.text()
    assert [b.text() for b in panel.buttons()] == ["Keep A", "Keep B", "Keep both", "Edit…"]
    assert all(b.isEnabled() for b in panel.buttons())
    assert page.queue_items() == []  # the run has no merge to review: only the question
    assert on_disk(home) == {"rate-ten": TEN, "rate-five": FIVE}
    await settle(window)


@pytest.mark.asyncio
@pytest.mark.parametrize("button", ["keep_first_button", "keep_second_button", "keep_both_button"])
async def test_each_choice_is_one_click_and_the_files_show_it(
    open_window: OpenWindow, home: Path, qtbot: QtBot, button: str
) -> None:
    await offline_run(home)
    window, page, panel = await shown(open_window)
    first, second = slugs(panel)

    qtbot.mouseClick(getattr(panel, button), Qt.MouseButton.LeftButton)
    await until(lambda: panel.state_line.text().startswith("Answered"), what="the answer")

    expected = {"rate-ten": TEN, "rate-five": FIVE}
    if button == "keep_first_button":
        del expected[second]
    elif button == "keep_second_button":
        del expected[first]
    assert on_disk(home) == expected
    assert not any(b.isEnabled() for b in panel.buttons())  # answered: nothing more to do
    assert panel.picker.itemText(0).startswith("✓ ") or not panel.picker.isVisible()
    await settle(window)


@pytest.mark.asyncio
async def test_edit_opens_the_kept_text_and_saves_the_person_s_text(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    await offline_run(home)
    window, page, panel = await shown(open_window)
    first, second = slugs(panel)
    texts = {"rate-ten": TEN, "rate-five": FIVE}

    qtbot.mouseClick(panel.edit_button, Qt.MouseButton.LeftButton)
    dialog = panel.edit_dialog
    assert dialog is not None and dialog.isVisible()
    item = panel.current()
    assert item is not None
    descriptions = {side: item[side]["description"] for side in ("first", "second")}
    assert dialog.editor.toPlainText() == texts[first]  # prefilled with A's text
    assert dialog.description_edit.text() == descriptions["first"]
    dialog.keep_choice.setCurrentIndex(1)
    assert dialog.editor.toPlainText() == texts[second]  # unedited: it follows the choice
    assert dialog.description_edit.text() == descriptions["second"]
    dialog.editor.setPlainText("The checkout API allows 8 requests per second per user.")
    dialog.description_edit.setText("Checkout API: 8 requests per second")
    dialog.keep_choice.setCurrentIndex(0)  # a person's own words are never thrown away
    assert dialog.editor.toPlainText().startswith("The checkout API allows 8")
    assert dialog.description_edit.text() == "Checkout API: 8 requests per second"
    dialog.description_edit.setText(" ")
    assert not dialog.save_button.isEnabled()  # a memory needs a description
    dialog.description_edit.setText("Checkout API: 8 requests per second")
    dialog.keep_choice.setCurrentIndex(1)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: panel.state_line.text().startswith("Answered"), what="the answer")

    assert panel.edit_dialog is None
    assert on_disk(home) == {second: "The checkout API allows 8 requests per second per user."}
    with MemoryStore.open(home) as store:
        kept = dispatch(store, "memory_read", {"slug": second})
    assert kept["entry"]["description"] == "Checkout API: 8 requests per second"
    await settle(window)


@pytest.mark.asyncio
async def test_a_contradiction_that_changed_since_the_run_says_why_and_takes_no_answer(
    open_window: OpenWindow, home: Path
) -> None:
    await offline_run(home)
    with MemoryStore.open(home) as store:
        dispatch(store, "memory_update", {"slug": "rate-five", "body": "Now 6 per second."})
    window, page, panel = await shown(open_window)

    assert "changed or was deleted since this run" in panel.state_line.text()
    assert not any(b.isEnabled() for b in panel.buttons())
    assert on_disk(home) == {"rate-ten": TEN, "rate-five": "Now 6 per second."}
    await settle(window)


@pytest.mark.asyncio
async def test_the_panel_speaks_chinese(
    open_window: OpenWindow, home: Path, english: Translations
) -> None:
    await offline_run(home)
    window, page, panel = await shown(open_window)
    window.translations = english  # the session's installed translations (tests/ui/conftest.py)
    window.switch_language("zh_CN")
    try:
        await until(lambda: panel.keep_both_button.text() == "两条都保留", what="Chinese")
        assert panel.question.text() == "这两条说法矛盾——哪一条是现在的？"
        assert [b.text() for b in panel.buttons()] == ["保留 A", "保留 B", "两条都保留", "编辑…"]
        assert panel.differs.text().startswith("不同之处：")
        assert panel.current() is not None  # the same contradiction stays shown
    finally:
        window.switch_language("en")
    await until(lambda: panel.keep_both_button.text() == "Keep both", what="English again")
    await settle(window)

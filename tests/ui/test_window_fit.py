"""The window fits a laptop screen: every page at 1024×640 (the window's minimum) and 1280×720,
in English and Chinese, with the Organizer page showing a finished run (issue 14: its one-line
"Last run: …" label made the window 1,471 px wide on every page)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize, Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.settings import Settings, save_settings
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.screenshots import example_quota
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, seed

SIZES = [QSize(1024, 640), QSize(1280, 720)]
TOPICS = ["green tea", "dark mode", "pnpm installs", "the build server", "weekly reports"]


def duplicates() -> list[dict[str, Any]]:
    """Pairs of near-identical memories (each pair a merge the offline check proposes), with
    long descriptions, so the run's summary is a long line."""
    out = []
    for number, topic in enumerate(TOPICS):
        for copy in ("a", "b"):
            out.append(
                {
                    "slug": f"note-{number}-{copy}",
                    "scope": "global",
                    "type": "reference",
                    "description": f"The user's long-standing preference about {topic}",
                    "body": f"The user always prefers {topic} in every project they work on.",
                    "actor": "extractor",
                }
            )
    return out


def fits(window: MainWindow, size: QSize) -> list[str]:
    """What does not fit: the window's minimum, its size, a page squeezed under its minimum."""
    problems = []
    hint = window.minimumSizeHint()
    if hint.width() > 1024 or hint.height() > 640:
        problems.append(f"window minimum {hint.toTuple()}")
    if window.size() != size:
        problems.append(f"window {window.size().toTuple()} instead of {size.toTuple()}")
    for page in window.pages:
        need, have = page.minimumSizeHint(), window.stack.size()
        if need.width() > have.width() or need.height() > have.height():
            problems.append(f"{page.NAME} needs {need.toTuple()} in {have.toTuple()}")
    return problems


async def show_every_page(window: MainWindow, size: QSize) -> list[str]:
    window.resize(size)
    problems = []
    for row, page in enumerate(window.pages):
        window.nav.setCurrentRow(row)
        await asyncio.sleep(0.05)  # layouts settle on the loop
        problems += [f"{size.toTuple()} on {page.NAME}: {p}" for p in fits(window, size)]
    return problems


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_every_page_fits_1024x640_and_1280x720(
    open_window: OpenWindow,
    home: Path,
    qtbot: QtBot,
    english: Translations,
    language: str,
) -> None:
    seed(home, duplicates())
    save_settings(home, Settings.from_dict({"organizer": {"schedule": "weekly", "weekday": 3}}))
    english.switch(language)
    try:
        window = await open_window()
        window.banner.show_summary(
            example_quota("critical")
        )  # the quota banner takes its row as well
        window.open_page("organizer")
        page = window.page("organizer")
        assert isinstance(page, OrganizerPage)
        qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
        await until(
            lambda: (
                page.selected_run is not None
                and page.selected_run["status"] == "succeeded"
                and len(page.queue_items()) == len(TOPICS)
                and window.bridge.pending == 0
            ),
            what="the run and its review queue",
        )
        note = page.progress_label.text()
        # "Last run: succeeded — Memories: 10, clusters: 5. …": long in either language (the
        # Chinese has fewer characters, each about twice as wide).
        assert page.fontMetrics().horizontalAdvance(note) > 500

        problems = []
        for size in SIZES:
            problems += await show_every_page(window, size)
        # Unfolded, the schedule form still fits (it scrolls when short of room).
        window.open_page("organizer")
        qtbot.mouseClick(page.settings_toggle, Qt.MouseButton.LeftButton)
        await until(lambda: page.model_edit.isVisible(), what="the settings form")
        problems += await show_every_page(window, SIZES[0])

        assert problems == []
        # The long line is cut on screen, not the window stretched: its whole text is the tip.
        assert page.progress_label.toolTip() == note
        assert page.next_run.toolTip() == page.next_run.text() != ""
        window.open_page("organizer")
        await asyncio.sleep(0.05)
        assert page.progress_label.width() < page.fontMetrics().horizontalAdvance(note)
    finally:
        english.switch("en")


def test_an_elided_label_keeps_its_text_and_asks_for_little_room(qtbot: QtBot) -> None:
    from liveagent_memory.ui.widgets.elided_label import ElidedLabel

    text = "Last run: succeeded — " + "a long summary of what the run proposed " * 5
    label = ElidedLabel(text)
    qtbot.addWidget(label)
    label.resize(200, 20)
    label.show()

    assert label.text() == text and label.toolTip() == text
    assert label.minimumSizeHint().width() < 200 < label.sizeHint().width()
    assert label.elided()
    label.setText("Short.")
    assert label.toolTip() == "Short." and not label.elided()

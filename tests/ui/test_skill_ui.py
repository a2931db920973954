"""Skills in the desktop app: the type filter, the editor's section template, the projects table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from liveagent_memory.domain.errors import SkillInvalid
from liveagent_memory.domain.skills import TEMPLATE
from liveagent_memory.ui.i18n import I18N_DIR
from liveagent_memory.ui.pages.projects import COL_SKILL, ProjectsPage
from liveagent_memory.ui.strings import error_text, value_text
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, sample_memories, seed
from tests.ui.test_memories_page import choose, open_page, read, shows
from tests.ui.test_memory_editor import open_editor, save

SKILL_MEMORY = {
    "slug": "deploy-staging",
    "scope": "global",
    "type": "skill",
    "description": "Deploy to staging",
    "skill": {"when_to_use": "Before a release.", "steps": ["make deploy", "check health"]},
    "actor": "user",
}


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    items = [*sample_memories(workdir), SKILL_MEMORY]
    seed(home, items, clock=clock)
    return items


def test_a_new_skill_starts_from_the_section_template(qtbot: QtBot) -> None:
    editor = MemoryEditor()
    qtbot.addWidget(editor)
    assert editor.type.findData("skill") >= 0
    assert editor.body.toPlainText() == ""

    choose(editor.type, "Skill")
    assert editor.body.toPlainText() == TEMPLATE
    assert "## Steps\n\n1. " in TEMPLATE  # English headings: the file format's
    choose(editor.type, "Reference")
    assert editor.body.toPlainText() == ""  # the untouched template goes away again

    editor.body.setPlainText("Notes I typed myself.")
    choose(editor.type, "Skill")
    assert editor.body.toPlainText() == "Notes I typed myself."  # never overwritten


def test_editing_a_skill_shows_its_text_not_the_template(qtbot: QtBot) -> None:
    data = {
        "entry": {"slug": "deploy-staging", "scope": "global", "type": "skill"},
        "content": "## Steps\n\n1. make deploy",
        "evidence": {},
    }
    editor = MemoryEditor(data=data)
    qtbot.addWidget(editor)
    assert editor.type.currentData() == "skill"
    assert editor.body.toPlainText() == "## Steps\n\n1. make deploy"
    choose(editor.type, "Project")
    choose(editor.type, "Skill")
    assert editor.body.toPlainText() == "## Steps\n\n1. make deploy"


@pytest.mark.asyncio
async def test_type_filter_offers_skill_and_narrows_the_list(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    choose(page.type, "Skill")
    await shows(page, ["deploy-staging"])
    assert value_text("skill") == "skill"


@pytest.mark.asyncio
async def test_create_a_skill_from_the_template(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    editor = open_editor(qtbot, page, "new")
    editor.slug.setText("run-tests")
    editor.description.setText("Run the test suite")
    choose(editor.type, "Skill")

    await save(qtbot, page, editor)  # the untouched template has no step yet
    assert editor.error.text().startswith(error_text(SkillInvalid("x")) + "\nDetails: ")
    assert "Steps section" in editor.error.text()
    assert not (home / "global" / "skills" / "run-tests.md").exists()

    editor.body.setPlainText(
        editor.body.toPlainText()
        .replace("1. ", "1. make test")
        .replace("## When to use\n\n", "## When to use\n\nBefore every push.\n")
    )
    await save(qtbot, page, editor)
    assert page.editor is None, editor.error.text()
    assert (home / "global" / "skills" / "run-tests.md").is_file()
    stored = await read(window, "run-tests")
    assert stored["skill"]["steps"] == ["make test"]
    assert stored["skill"]["when_to_use"] == "Before every push."
    assert stored["skill"]["prerequisites"] == []  # the template's empty bullets are dropped


@pytest.mark.asyncio
async def test_projects_table_counts_skills(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window = await open_window()
    page = window.page("projects")
    assert isinstance(page, ProjectsPage)
    window.open_page("projects")
    await until(lambda: page.table.rowCount() > 0, what="the table")
    header = page.table.horizontalHeaderItem(COL_SKILL)
    assert header is not None and header.text() == "Skill"
    item = page.table.item(0, COL_SKILL)  # the global row
    assert item is not None and item.text() == "1"


def test_skill_is_translated_into_chinese(qapp: QApplication) -> None:
    translator = QTranslator()
    assert translator.load(str(I18N_DIR / "zh_CN.qm"))
    assert translator.translate("Strings", "skill") == "技能"
    assert translator.translate("MemoryEditor", "Skill") == "技能"
    assert translator.translate("MemoriesPage", "Skill") == "技能"
    assert translator.translate("ProjectsPage", "Skill") == "技能"

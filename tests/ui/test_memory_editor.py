"""Creating and editing memories in the editor dialog: what reaches the disk, what is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.domain.schema import WRITABLE_TYPES
from liveagent_memory.ui.pages.memories import MemoriesPage
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor, split_aliases
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_calls, sample_memories, seed
from tests.ui.test_memories_page import (
    choose,
    click_row,
    current_file,
    current_slug,
    fact,
    open_page,
    press,
    read,
    slugs,
)

SECRET_REFUSED = "The text looks like it holds a secret, so it was not saved."
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"  # the shape of a GitHub token (36 chars)


@pytest.fixture
def memories(home: Path, workdir: str, clock: FakeClock) -> list[dict[str, Any]]:
    items = sample_memories(workdir)
    seed(home, items, clock=clock)
    return items


def open_editor(qtbot: QtBot, page: MemoriesPage, button: str = "edit") -> MemoryEditor:
    qtbot.mouseClick(getattr(page, f"{button}_button"), Qt.MouseButton.LeftButton)
    editor = page.editor
    assert editor is not None and editor.isVisible()
    return editor


async def save(qtbot: QtBot, page: MemoriesPage, editor: MemoryEditor) -> None:
    """Press Save and wait until the dialog closed (saved) or shows an error."""
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    await until(
        lambda: page.editor is None or not editor.error.isHidden(), what="the save to finish"
    )


# --- editing ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_edit_body_and_evidence_rewrites_the_markdown_file(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "tea-preference")
    path = current_file(page, home)
    editor = open_editor(qtbot, page)
    assert editor.windowTitle() == "Edit tea-preference"
    assert not editor.slug.isEnabled()  # a memory keeps its identity
    assert editor.body.toPlainText() == "# Tea\n\nThe user **prefers** green tea in the morning."
    assert editor.confidence.currentText() == "High"
    assert editor.quote.text() == "I always drink green tea"

    editor.body.setPlainText("# Tea\n\nThe user now prefers **oolong** tea.")
    choose(editor.confidence, "Medium")
    editor.quote.setText("oolong please")
    editor.reasoning.setText("asked for it this morning")
    editor.aliases.setText("oolong, 乌龙茶")
    await save(qtbot, page, editor)

    assert page.editor is None  # closed once saved
    text = path.read_text(encoding="utf-8")
    assert "The user now prefers **oolong** tea." in text
    assert "green tea in the morning" not in text
    assert "confidence: medium" in text
    assert "oolong please" in text and "asked for it this morning" in text
    stored = await read(window, "tea-preference")
    assert stored["evidence"]["aliases"] == ["oolong", "乌龙茶"]
    assert stored["entry"]["unreviewed"] is False  # a person's edit is a review
    await until(lambda: fact(page, "Quote") == "oolong please", what="the detail to update")
    assert fact(page, "Confidence") == "medium"
    assert fact(page, "Aliases") == "oolong, 乌龙茶"
    assert fact(page, "Review") == "reviewed"
    assert current_slug(page) == "tea-preference"
    assert page.notice.text() == "Saved."


@pytest.mark.asyncio
async def test_evidence_only_edit_keeps_the_text_and_type_change_moves_the_file(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "api-docs")
    old_path = current_file(page, home)
    client = record_calls(page)

    editor = open_editor(qtbot, page)
    choose(editor.confidence, "High")
    editor.quote.setText("the wiki has the API docs")
    await save(qtbot, page, editor)

    [update] = client.payloads("memory_update")
    assert "body" not in update and "description" not in update  # only what changed
    assert update["confidence"] == "high" and update["actor"] == "user"
    stored = await read(window, "api-docs")
    assert stored["content"] == "The API reference is on the team wiki."
    assert stored["evidence"]["confidence"] == "high"

    editor = open_editor(qtbot, page)
    choose(editor.type, "User")  # user memories live in global/user/
    await save(qtbot, page, editor)
    await until(lambda: fact(page, "Type") == "user", what="the new type")
    assert not old_path.exists()
    assert (home / "global" / "user" / "api-docs.md").is_file()


@pytest.mark.asyncio
async def test_saving_without_changes_writes_nothing(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    _, page = await open_page(open_window)
    before = current_file(page, home).read_bytes()
    client = record_calls(page)

    editor = open_editor(qtbot, page)
    await save(qtbot, page, editor)

    assert page.editor is None
    assert client.payloads("memory_update") == []
    assert current_file(page, home).read_bytes() == before


@pytest.mark.asyncio
async def test_an_empty_text_is_refused_in_the_dialog_and_nothing_is_lost(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    _, page = await open_page(open_window)
    await click_row(qtbot, page, "no-emoji")
    path = current_file(page, home)
    before = path.read_bytes()
    client = record_calls(page)
    editor = open_editor(qtbot, page)
    editor.description.setText("No emoji, ever")
    editor.body.setPlainText("   \n")

    await save(qtbot, page, editor)

    assert editor.error.text() == "The text cannot be empty."
    assert page.editor is editor and editor.isVisible()
    assert editor.description.text() == "No emoji, ever"  # what was typed stays
    assert client.payloads("memory_update") == []  # the core would have kept the old text
    assert path.read_bytes() == before


@pytest.mark.asyncio
async def test_a_secret_is_refused_by_the_core_and_the_dialog_keeps_the_text(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    await click_row(qtbot, page, "no-emoji")
    path = current_file(page, home)
    before = path.read_bytes()
    editor = open_editor(qtbot, page)
    secret_body = f"Push with the token {GITHUB_TOKEN} from now on."
    editor.body.setPlainText(secret_body)
    editor.reasoning.setText("they pasted it")

    await save(qtbot, page, editor)

    assert editor.error.text().startswith(SECRET_REFUSED + "\nDetails: memory 'no-emoji' ")
    assert GITHUB_TOKEN not in editor.error.text()  # the details never echo the secret
    assert window.statusBar().currentMessage() == SECRET_REFUSED
    assert page.editor is editor and editor.isVisible()
    assert editor.body.toPlainText() == secret_body
    assert editor.reasoning.text() == "they pasted it"
    assert editor.save_button.isEnabled()  # ready to try again
    assert path.read_bytes() == before
    assert GITHUB_TOKEN not in "".join(p.read_text("utf-8") for p in home.rglob("*.md"))

    # Fixing the text and saving again works, from the same dialog.
    editor.body.setPlainText("Push with the token from the keyring.")
    await save(qtbot, page, editor)
    assert page.editor is None
    assert "from the keyring" in path.read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_cancel_closes_without_writing(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    _, page = await open_page(open_window)
    before = current_file(page, home).read_bytes()
    editor = open_editor(qtbot, page)
    editor.body.setPlainText("changed my mind")

    editor.reject()

    assert page.editor is None
    assert current_file(page, home).read_bytes() == before


# --- creating ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_create_a_global_memory_with_evidence(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    editor = open_editor(qtbot, page, "new")
    assert editor.windowTitle() == "New memory"
    assert editor.scope.currentText() == "Global"
    assert not editor.workdir.isEnabled()  # only a project memory has a folder

    qtbot.keyClicks(editor.slug, "dark-mode")
    choose(editor.type, "User")
    editor.description.setText("Prefers dark mode")
    editor.body.setPlainText("The user wants **dark** themes everywhere.")
    choose(editor.confidence, "High")
    editor.quote.setText("dark mode, always")
    await save(qtbot, page, editor)

    path = home / "global" / "user" / "dark-mode.md"
    assert path.is_file()
    text = path.read_text(encoding="utf-8")
    assert "The user wants **dark** themes everywhere." in text
    assert "confidence: high" in text
    stored = await read(window, "dark-mode")
    assert stored["entry"]["unreviewed"] is False
    assert stored["source"]["trigger"] == "user"
    await until(lambda: current_slug(page) == "dark-mode", what="the new memory selected")
    assert "dark-mode" in slugs(page)
    assert fact(page, "Confidence") == "high"
    assert page.count.text() == "5 memories"


@pytest.mark.asyncio
async def test_create_a_project_memory_for_the_chosen_project(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path, workdir: str
) -> None:
    window, page = await open_page(open_window)
    await until(lambda: page.project.count() == 2, what="the project list")
    choose(page.project, Path(workdir).name)
    await until(lambda: slugs(page) == ["build-command"], what="the project's memories")

    editor = open_editor(qtbot, page, "new")
    assert editor.scope.currentText() == "Project"
    assert editor.workdir.currentText() == str(Path(workdir).resolve())
    assert editor.type.currentText() == "Project"
    editor.slug.setText("test-command")
    editor.description.setText("测试命令是 make test")
    editor.body.setPlainText("运行 make test。")
    await save(qtbot, page, editor)

    await until(
        lambda: sorted(slugs(page)) == ["build-command", "test-command"], what="the new row"
    )
    project_dir = current_file(page, home).parent
    assert (project_dir / "test-command.md").is_file()
    assert project_dir.parent.name == "projects"
    stored = await read(window, "test-command", "project", workdir=workdir)
    assert stored["content"] == "运行 make test。"


@pytest.mark.asyncio
async def test_create_checks_what_the_dialog_can_see_then_shows_the_cores_errors(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]], home: Path
) -> None:
    window, page = await open_page(open_window)
    client = record_calls(page)
    editor = open_editor(qtbot, page, "new")

    await save(qtbot, page, editor)
    assert editor.error.text() == "Give the memory a slug."
    editor.slug.setText("Bad Slug!")
    await save(qtbot, page, editor)
    assert editor.error.text() == "Write a one-line description."
    choose(editor.scope, "Project")
    editor.workdir.setCurrentText("")
    editor.description.setText("A note")
    editor.body.setPlainText("Some text.")
    await save(qtbot, page, editor)
    assert editor.error.text() == "Choose the project folder this memory belongs to."
    assert client.payloads("memory_write") == []  # nothing sent so far

    choose(editor.scope, "Global")
    editor.error.hide()
    await save(qtbot, page, editor)  # the core refuses the slug and suggests one
    assert "slug" in editor.error.text() and "bad-slug" in editor.error.text()
    assert editor.slug.text() == "Bad Slug!" and editor.body.toPlainText() == "Some text."
    assert not list(home.rglob("bad*.md"))

    editor.slug.setText("bad-slug")
    await save(qtbot, page, editor)
    assert page.editor is None
    assert (home / "global" / "bad-slug.md").is_file() or (
        home / "global" / "user" / "bad-slug.md"
    ).is_file()


@pytest.mark.asyncio
async def test_a_short_quote_lowers_the_confidence_and_the_page_says_so(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    _, page = await open_page(open_window)
    editor = open_editor(qtbot, page, "new")
    editor.slug.setText("short-quote")
    editor.description.setText("A thin claim")
    editor.body.setPlainText("The user maybe likes jazz.")
    choose(editor.confidence, "High")
    editor.quote.setText("jazz")  # 4 characters: too short for high (SPEC 1.4)

    await save(qtbot, page, editor)

    assert page.notice.text().startswith("Saved with medium confidence")
    await until(lambda: current_slug(page) == "short-quote", what="the new memory")
    assert fact(page, "Confidence") == "medium (lowered: the quote is too short)"


@pytest.mark.asyncio
async def test_keyboard_opens_the_editors(
    qtbot: QtBot, open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window, page = await open_page(open_window)

    press(window, page.list, "Ctrl+N")
    assert page.editor is not None and page.editor.creating
    page.editor.reject()
    press(window, page.list, "F2")
    assert page.editor is not None and not page.editor.creating
    assert page.editor.slug.text() == current_slug(page)
    page.editor.reject()
    press(window, page.list, "Ctrl+E")
    assert page.editor is not None and not page.editor.creating


def test_aliases_split_on_english_and_chinese_commas() -> None:
    assert split_aliases("tea, 绿茶，green tea、 ,") == ["tea", "绿茶", "green tea"]
    assert split_aliases("  ") == []


def test_the_type_box_offers_the_writable_types_in_the_schema_order(qtbot: QtBot) -> None:
    editor = MemoryEditor()
    qtbot.addWidget(editor)

    offered = [editor.type.itemData(i) for i in range(editor.type.count())]
    texts = [editor.type.itemText(i) for i in range(editor.type.count())]

    assert offered == ["user", "feedback", "project", "reference", "skill"]
    assert texts == ["User", "Feedback", "Project", "Reference", "Skill"]
    assert set(offered) == {t.value for t in WRITABLE_TYPES}  # never "daily"
    assert editor.type.currentData() == "user"  # a new global memory starts as "user"

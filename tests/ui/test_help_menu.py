"""The Help menu: About (version, memory folder, licence) and the keyboard shortcuts, listed from
the window's own actions and shortcuts."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from pytestqt.qtbot import QtBot

from liveagent_memory.ui.help import AboutDialog, ShortcutsDialog
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow
from tests.ui.test_i18n import translations  # noqa: F401 - the fixture (switches back to English)
from tests.ui.test_memories_page import memories_page, press


def listed(dialog: ShortcutsDialog) -> dict[str, list[tuple[str, str]]]:
    """What the dialog shows: each group's title and its (action, keys) rows."""
    tree = dialog.tree
    out: dict[str, list[tuple[str, str]]] = {}
    for n in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(n)
        assert group is not None
        rows = [group.child(i) for i in range(group.childCount())]
        out[group.text(0)] = [(row.text(0), row.text(1)) for row in rows if row is not None]
    return out


def native(keys: str) -> str:
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


def help_action(window: MainWindow, name: str) -> QAction:
    found = next(a for a in window.help_menu.actions() if a.objectName() == name)
    assert isinstance(found, QAction)
    return found


async def shortcuts_dialog(window: MainWindow) -> ShortcutsDialog:
    press(window, memories_page(window).list, "F1")
    await until(lambda: window.shortcuts_dialog is not None, what="the dialog")
    dialog = window.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


@pytest.mark.asyncio
async def test_f1_lists_every_shortcut_the_window_has(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window = await open_window()
    assert [a.text() for a in window.help_menu.actions()] == [
        "Keyboard shortcuts",
        "About LiveAgent Memory",
    ]

    dialog = await shortcuts_dialog(window)

    groups = listed(dialog)
    assert dialog.windowTitle() == "Keyboard shortcuts"
    assert list(groups)[:2] == ["Everywhere", "Memories"]
    assert ("Keyboard shortcuts", native("F1")) in groups["Everywhere"]
    assert ("Refresh", native("F5")) in groups["Everywhere"]
    assert ("Memories", native("Ctrl+1")) in groups["Everywhere"]
    assert ("Model & keys", native("Ctrl+6")) in groups["Everywhere"]  # "&" is not a marker
    assert ("Accept", f"{native('Ctrl+Return')}, {native('Ctrl+Enter')}") in groups["Memories"]
    assert ("Copy slug", native("Ctrl+Shift+C")) in groups["Memories"]
    assert ("Save settings", native("Ctrl+S")) in groups["Model & keys"]
    # Generated from the window's actions: each one with keys is there, under its text.
    shown = {row for rows in groups.values() for row in rows}
    for action in window.findChildren(QAction):
        keys = ", ".join(
            k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()
        )
        if keys:
            label = re.sub("&(.)", r"\1", action.text())  # a menu's letter markers
            assert (label, keys) in shown, action.text()
    for shortcut in window.findChildren(QShortcut):
        assert shortcut.whatsThis(), f"{shortcut.key().toString()} says nothing in the list"
        keys = shortcut.key().toString(QKeySequence.SequenceFormat.NativeText)
        assert (shortcut.whatsThis(), keys) in shown
    assert ("Run now", native("Ctrl+R")) in groups["Organizer"]


@pytest.mark.asyncio
async def test_a_new_shortcut_is_listed_without_anyone_writing_it_down(
    open_window: OpenWindow, memories: list[dict[str, Any]]
) -> None:
    window = await open_window()
    page = memories_page(window)
    added = QAction("Jump to the newest", page)
    added.setShortcut(QKeySequence("Ctrl+J"))
    page.addAction(added)

    dialog = await shortcuts_dialog(window)

    assert ("Jump to the newest", native("Ctrl+J")) in listed(dialog)["Memories"]


@pytest.mark.asyncio
async def test_about_shows_the_version_the_memory_folder_and_the_licence(
    open_window: OpenWindow, home: Path
) -> None:
    window = await open_window()

    help_action(window, "help_about").trigger()

    dialog = window.about_dialog
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    text = dialog.text.text()
    assert f"Version {metadata.version('liveagent-memory')}" in text  # the package metadata
    assert f"Memory folder: {home}" in text
    assert "Licence: MIT" in text
    assert dialog.windowTitle() == "About LiveAgent Memory"


@pytest.mark.asyncio
async def test_the_help_windows_relabel_on_a_language_switch(
    open_window: OpenWindow,
    memories: list[dict[str, Any]],
    translations: Translations,  # noqa: F811 - the imported fixture
    qtbot: QtBot,
) -> None:
    window = await open_window()
    window.translations = translations
    dialog = await shortcuts_dialog(window)
    help_action(window, "help_about").trigger()

    window.switch_language("zh_CN")

    await until(lambda: dialog.windowTitle() == "键盘快捷键", what="the Chinese title")
    assert window.help_menu.title() == "帮助(&H)"
    assert "记忆" in listed(dialog)  # the Memories page's group, in Chinese
    about = window.about_dialog
    assert about is not None and "许可证：MIT" in about.text.text()

"""The Help menu's windows: About (version, memory folder, licence) and the keyboard shortcuts.

The shortcut list is read from the window's own QActions and QShortcuts each time it is shown
(`shortcut_groups`), so it cannot drift from what the keys do: an action is listed by its text,
a QShortcut by its `whatsThis()`.
"""

from __future__ import annotations

import html
import re
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.pages.base import DrawerPage

DISTRIBUTION = "liveagent-memory"  # the package's name in its metadata (pyproject.toml)
SHORTCUTS_SIZE = (520, 480)  # room for the longest action text and its keys, in both languages

MNEMONIC = re.compile(r"&(.)")  # an action text's shortcut letter marker
Group = tuple[str, list[tuple[str, str]]]  # a page's title (or the window's), (label, keys)


def package_facts() -> tuple[str | None, str | None]:
    """The installed package's version and licence, from its metadata (None when unknown)."""
    try:
        facts = metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None, None
    licence = facts["License-Expression"] or facts["License"]  # None when absent
    return facts["Version"], licence


def _page_of(obj: QObject) -> DrawerPage | None:
    parent = obj.parent()
    while parent is not None and not isinstance(parent, DrawerPage):
        parent = parent.parent()
    return parent


def _keys_text(keys: list[QKeySequence]) -> str:
    texts = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys if not k.isEmpty()]
    return ", ".join(texts)


def shortcut_groups(window: QWidget, pages: list[DrawerPage], *, everywhere: str) -> list[Group]:
    """Every shortcut of the window: first those that work everywhere (titled `everywhere`),
    then each page's, in page order; within a group in the order they were made."""
    found: dict[DrawerPage | None, list[tuple[str, str]]] = {None: []}
    found.update({page: [] for page in pages})
    for action in window.findChildren(QAction):
        keys = _keys_text(action.shortcuts())
        if keys:
            label = MNEMONIC.sub(r"\1", action.text())  # "&View" is "View", "&&" an "&"
            found.setdefault(_page_of(action), []).append((label, keys))
    for shortcut in window.findChildren(QShortcut):
        keys = _keys_text(shortcut.keys())
        if keys:
            label = shortcut.whatsThis() or "—"
            found.setdefault(_page_of(shortcut), []).append((label, keys))
    groups: list[Group] = []
    for owner, items in found.items():
        unique = list(dict.fromkeys(items))
        if unique:
            groups.append((everywhere if owner is None else owner.title(), unique))
    return groups


class ShortcutsDialog(QDialog):
    """The keyboard shortcuts of the window, grouped by page (read again on every `refresh`)."""

    def __init__(self, window: QWidget, pages: list[DrawerPage]) -> None:
        super().__init__(window)
        self.setObjectName("shortcuts_dialog")
        self._window, self._pages = window, pages
        self.tree = QTreeWidget()
        self.tree.setObjectName("shortcuts_list")
        self.tree.setColumnCount(2)
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(*SHORTCUTS_SIZE)
        self.refresh()

    def groups(self) -> list[Group]:
        return shortcut_groups(self._window, self._pages, everywhere=self.tr("Everywhere"))

    def refresh(self) -> None:
        """List the shortcuts as the window has them now, in the current language."""
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.tree.setHeaderLabels([self.tr("Action"), self.tr("Keys")])
        self.tree.clear()
        for title, items in self.groups():
            group = QTreeWidgetItem(self.tree, [title])
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            for label, keys in items:
                QTreeWidgetItem(group, [label, keys])
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        super().changeEvent(event)


class AboutDialog(QDialog):
    """The program's name, version and licence, and the memory folder it works on."""

    def __init__(self, window: QWidget, *, home: Path) -> None:
        super().__init__(window)
        self.setObjectName("about_dialog")
        self.home = home
        self.text = QLabel()
        self.text.setObjectName("about_text")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.retranslate()

    def retranslate(self) -> None:
        version, licence = package_facts()
        unknown = self.tr("unknown")
        self.setWindowTitle(self.tr("About LiveAgent Memory"))
        lines = [
            self.tr("Version %1").replace("%1", version or unknown),
            self.tr("Memory folder: %1").replace("%1", str(self.home)),
            self.tr("Licence: %1").replace("%1", licence or unknown),
        ]
        summary = self.tr(
            "Long-term memory for AI agents that a person can see, review and correct."
        )
        name = self.tr("LiveAgent Memory")
        paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in [summary, *lines])
        self.text.setText(f"<h3>{html.escape(name)}</h3>{paragraphs}")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

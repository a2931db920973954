"""Icons and the stylesheet shipped in `liveagent_memory/resources/` (package data)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

RESOURCES_DIR = Path(__file__).resolve().parent.parent / "resources"
APP_ICON = "liveagent-memory"


def icon(name: str) -> QIcon:
    """The icon `resources/icons/<name>.svg` (an empty icon when the file is missing)."""
    path = RESOURCES_DIR / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def stylesheet() -> str:
    """The app's one stylesheet."""
    return (RESOURCES_DIR / "style.qss").read_text(encoding="utf-8")

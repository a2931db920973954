"""Where the app's data folders are, and the icons and stylesheet in them.

`resources/` (icons, the stylesheet, the `.desktop` entry) and `i18n/` (translations) sit at the
top of the repository (docs/ARCHITECTURE.md "Data folders"). `data_dir` is the one place that
knows where they are at run time:

- an installed wheel carries them inside the package (`site-packages/liveagent_memory/i18n/`;
  setup.py maps them there), and so does the PyInstaller bundle (`_internal/liveagent_memory/`,
  packaging/liveagent-memory.spec);
- a source checkout or an editable install finds them at the repository root, next to the
  package.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

PACKAGE_DIR = Path(__file__).resolve().parent.parent
APP_ICON = "liveagent-memory"


def data_dir(name: str) -> Path:
    """The data folder `name` (`resources` or `i18n`): inside the package when installed,
    else next to the package (the repository root)."""
    inside = PACKAGE_DIR / name
    # Why inside first: in an installed wheel the folder next to the package is site-packages,
    # where another distribution may have put a top-level `i18n` or `resources` of its own.
    return inside if inside.is_dir() else PACKAGE_DIR.parent / name


RESOURCES_DIR = data_dir("resources")


def icon(name: str) -> QIcon:
    """The icon `resources/icons/<name>.svg` (an empty icon when the file is missing)."""
    path = RESOURCES_DIR / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def stylesheet() -> str:
    """The app's one stylesheet."""
    return (RESOURCES_DIR / "style.qss").read_text(encoding="utf-8")

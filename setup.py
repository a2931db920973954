"""Packaging hook: the data folders at the top of the repository ship inside the package.

`resources/` (icons, the stylesheet, the `.desktop` entry) and `i18n/` (Qt Linguist `.ts` and
`.qm` files) sit at the repository root (docs/ARCHITECTURE.md "Data folders"). A wheel carries
them as `liveagent_memory/resources/` and `liveagent_memory/i18n/`, where `ui/resources.py`
looks first. pyproject.toml cannot both discover the packages and map a folder from outside
the package into it, so this file does only that, and names the web panel's files
(`liveagent_memory/web/static/`, package data inside the package: a second `package_data` in
pyproject.toml would be overridden by this one); everything else is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "liveagent_memory"
DATA_DIRS = ("resources", "i18n")
# Files inside the package that are not Python: the web panel's page, script and stylesheet;
# the labelled task-type examples, their vectors and the classifier trained on them
# (retrieval/task_meaning.py); the Chinese-English word list of cross-language search
# (store/bilingual.py).
PACKAGE_FILES = {
    "liveagent_memory.web": ["static/*"],
    "liveagent_memory.retrieval": ["data/*"],
    "liveagent_memory.store": ["data/*"],
}
ROOT = Path(__file__).resolve().parent


def data_packages(root: Path) -> dict[str, str]:
    """Each data folder and each folder below it as a package of data files.

    Maps the dotted name inside the package (`liveagent_memory.resources.icons`) to the folder
    relative to `root` (`resources/icons`); a new subfolder needs no change here.
    """
    found: dict[str, str] = {}
    for name in DATA_DIRS:
        top = root / name
        folders = [top, *sorted(p for p in top.rglob("*") if p.is_dir())] if top.is_dir() else []
        for folder in folders:
            relative = folder.relative_to(root)
            found[".".join((PACKAGE, *relative.parts))] = relative.as_posix()
    return found


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import data_packages
    DATA = data_packages(ROOT)
    setup(
        packages=[*find_packages(where=str(ROOT), include=[f"{PACKAGE}*"]), *DATA],
        package_dir=DATA,
        # every file of each data folder, and the package's own non-Python files
        package_data={**{name: ["*"] for name in DATA}, **PACKAGE_FILES},
    )

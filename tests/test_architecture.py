"""House rules as tests: dependency direction and a few banned habits (STYLE.md 1, 14)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "liveagent_memory"
SOURCES = sorted(PACKAGE.rglob("*.py"))

# (imported top-level module, where it may be imported: package-relative prefixes)
ALLOWED = {
    "PySide6": ("ui/",),
    "qasync": ("ui/",),
    "litellm": ("llm/",),
    "sqlalchemy": ("store/",),
    "frontmatter": ("store/",),
    "yaml": ("store/",),
    "keyring": ("settings.py",),
}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_dependency_direction(path: Path) -> None:
    relative = path.relative_to(PACKAGE).as_posix()
    for name in imports(path):
        top = name.split(".")[0]
        if top in ALLOWED:
            assert relative.startswith(ALLOWED[top]), f"{relative} imports {top}"
        if relative.startswith("domain/"):
            inside = name.startswith("liveagent_memory.") and not name.startswith(
                "liveagent_memory.domain"
            )
            assert not inside, f"domain/ must not import the package: {relative} -> {name}"
        # Only the composition root of the CLI may start the app (DESIGN: no arguments opens it).
        if not relative.startswith("ui/") and not (
            relative == "cli_agent.py" and name == "liveagent_memory.ui.app"
        ):
            assert not name.startswith("liveagent_memory.ui"), f"{relative} imports the UI"


def test_no_print_no_blanket_noqa_no_fstring_tr() -> None:
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        relative = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(text)
        prints = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
        ]
        assert not prints, f"print( in {relative}"
        assert not re.search(r"#\s*noqa(?!:)", text), f"blanket noqa in {relative}"
        assert not re.search(r"\btr\(\s*f[\"']", text), f"f-string inside tr( in {relative}"


def test_every_module_opens_with_a_docstring() -> None:
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name == "__init__.py" and not tree.body:
            continue
        assert ast.get_docstring(tree), f"{path.relative_to(PACKAGE)} has no module docstring"

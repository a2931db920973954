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


def _package_imports(source: str, path: Path) -> set[str]:
    """Package modules the source of `path` imports, relative imports resolved, at any depth
    (an import inside a function counts)."""
    tree = ast.parse(source)
    parts = ("liveagent_memory", *path.relative_to(PACKAGE).with_suffix("").parts)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parts[: len(parts) - node.level])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            # `from liveagent_memory import retrieval` imports a package by its attribute name.
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "liveagent_memory"}


def _is_under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


LOWER_LAYERS = [p for p in SOURCES if p.relative_to(PACKAGE).parts[0] in ("store", "domain")]


@pytest.mark.parametrize("path", LOWER_LAYERS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_store_and_domain_sit_below_retrieval(path: Path) -> None:
    """DESIGN: retrieval -> store -> domain. The store never reaches up into retrieval, and the
    domain imports nothing of the package but the domain."""
    relative = path.relative_to(PACKAGE).as_posix()
    for name in _package_imports(path.read_text(encoding="utf-8"), path):
        assert not _is_under(name, "liveagent_memory.retrieval"), f"{relative} imports {name}"
        if relative.startswith("domain/"):
            assert _is_under(name, "liveagent_memory.domain"), (
                f"domain/ must import only domain/: {relative} -> {name}"
            )


def test_the_layer_check_sees_every_form_of_import() -> None:
    # The check above must not pass because it looks in the wrong place.
    source = (
        "import liveagent_memory.retrieval.episodes\n"
        "from liveagent_memory.retrieval import task_types\n"
        "from ..retrieval.unified import x\n"
        "from .. import retrieval\n"
        "from . import episodes\n"
        "def f():\n"
        "    from liveagent_memory.retrieval.budget import y\n"
    )
    names = _package_imports(source, PACKAGE / "store" / "probe.py")  # the path is not read
    assert {
        "liveagent_memory.retrieval.episodes",
        "liveagent_memory.retrieval.task_types",
        "liveagent_memory.retrieval.unified",
        "liveagent_memory.retrieval",
        "liveagent_memory.retrieval.budget",
        "liveagent_memory.store.episodes",
    } <= names
    assert "liveagent_memory.store.episodes" not in {
        n for n in names if _is_under(n, "liveagent_memory.retrieval")
    }
    assert LOWER_LAYERS and any(p.name == "episodes.py" for p in LOWER_LAYERS)

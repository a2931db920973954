"""House rules as tests: the layer table of docs/ARCHITECTURE.md, size limits, banned habits.

The layer table (which internal packages and which third-party modules each package may import)
is read from docs/ARCHITECTURE.md, so the page and this test cannot disagree. What today's code
still does against it is listed below in ratchet lists, each entry with its reason and what
removes it. The lists only shrink: a new violation fails, and so does an entry whose violation
is gone (delete the entry, so it cannot come back unnoticed).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "liveagent_memory"
DOC = REPO / "docs" / "ARCHITECTURE.md"
SOURCES = sorted(PACKAGE.rglob("*.py"))
ROOT = "liveagent_memory"
ROOT_UNIT = "__init__"  # the package's own __init__.py (`from liveagent_memory import __version__`)
TABLE_BEGIN = "<!-- layer-table:begin -->"
TABLE_END = "<!-- layer-table:end -->"
# In the standard library, but opening a database is the store's job (SQL only under store/).
GUARDED_STDLIB = frozenset({"sqlite3"})
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80
K = TypeVar("K")

# --- Ratchet lists: today's known violations (issue 13). They may only shrink. ---------------

# (module, package or third-party module it imports) -> why it is still there, what removes it.
LAYER_RATCHET: dict[tuple[str, str], str] = {}

# Package edges that close an import cycle today -> why, what removes it.
CYCLE_RATCHET: dict[tuple[str, str], str] = {}

# Modules over MAX_MODULE_LINES -> their size when listed (issue 13 split the last ones).
LONG_MODULES: dict[str, int] = {}

# Functions over MAX_FUNCTION_LINES ("module::qualified.name") -> their size when listed.
LONG_FUNCTIONS: dict[str, int] = {}


# --- The layer table ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One row of the layer table: what a package may import."""

    package: str
    imports: tuple[str, ...]  # internal packages
    third_party: tuple[str, ...]  # top-level module names (plus GUARDED_STDLIB ones)


def _unit_name(text: str) -> str:
    """`agent/`, `settings.py`, `__init__.py` and `agent` all name a package of the table."""
    return text.strip().removesuffix("/").removesuffix(".py")


def parse_layer_table(markdown: str) -> list[Row]:
    """The rows between the table markers, in their order (bottom layer first)."""
    begin, end = markdown.find(TABLE_BEGIN), markdown.find(TABLE_END)
    assert 0 <= begin < end, f"{DOC.name} has no layer table between {TABLE_BEGIN} and {TABLE_END}"
    rows: list[Row] = []
    for line in markdown[begin:end].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 3 or set(cells[0]) <= set("-: "):
            continue
        names = [re.findall(r"`([^`]+)`", cell) for cell in cells[:3]]
        if not names[0]:
            continue  # the header row
        assert len(names[0]) == 1, f"one package per row: {line}"
        rows.append(
            Row(
                package=_unit_name(names[0][0]),
                imports=tuple(_unit_name(name) for name in names[1]),
                third_party=tuple(names[2]),
            )
        )
    return rows


@functools.cache
def layer_table() -> tuple[Row, ...]:
    return tuple(parse_layer_table(DOC.read_text(encoding="utf-8")))


def units() -> set[str]:
    """Every package of the table's kind: top-level modules and sub-packages of the package."""
    found = {path.stem for path in PACKAGE.glob("*.py")}
    found |= {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    return found


def unit_of(relative: str) -> str:
    """The package a module (path relative to the package) belongs to."""
    return _unit_name(PurePosixPath(relative).parts[0])


# --- Reading imports ---------------------------------------------------------------------------


def imported_names(source: str, relative: str) -> set[str]:
    """Absolute dotted names `source` imports, at any depth (inside functions, under
    TYPE_CHECKING): plain and relative imports, the names a `from` import takes (a module or an
    attribute), and `importlib.import_module("x")` / `__import__("x")` with a literal name."""
    parts = (ROOT, *PurePosixPath(relative).with_suffix("").parts)
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parts[: len(parts) - node.level])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if module != ROOT:  # `from liveagent_memory import x` imports x, named below
                found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
            first = node.args[0]
            # A relative name would need its `package` argument; the code has none.
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


@dataclass(frozen=True)
class Dependencies:
    """What one module depends on, by the table's names."""

    internal: frozenset[str]  # packages of ours other than its own
    external: frozenset[str]  # third-party top-level modules, plus GUARDED_STDLIB ones


def dependencies(names: Iterable[str], relative: str, known: set[str]) -> Dependencies:
    own = unit_of(relative)
    internal: set[str] = set()
    external: set[str] = set()
    for name in names:
        parts = name.split(".")
        if parts[0] == ROOT:
            target = parts[1] if len(parts) > 1 and parts[1] in known else ROOT_UNIT
            if target != own:
                internal.add(target)
        elif parts[0] in GUARDED_STDLIB or parts[0] not in sys.stdlib_module_names:
            external.add(parts[0])
    return Dependencies(frozenset(internal), frozenset(external))


@functools.cache
def package_dependencies() -> dict[str, Dependencies]:
    """Every module of the package (relative path) -> its dependencies."""
    known = units()
    out: dict[str, Dependencies] = {}
    for path in SOURCES:
        relative = path.relative_to(PACKAGE).as_posix()
        names = imported_names(path.read_text(encoding="utf-8"), relative)
        out[relative] = dependencies(names, relative, known)
    return out


def violations(
    deps: Mapping[str, Dependencies], table: Iterable[Row]
) -> dict[tuple[str, str], str]:
    """(module, what it imports) -> what the table says, for every import the table forbids."""
    rows = {row.package: row for row in table}
    found: dict[tuple[str, str], str] = {}
    for relative, dep in deps.items():
        row = rows.get(unit_of(relative))
        if row is None:
            continue  # test_every_package_has_a_row says so
        for target in dep.internal - set(row.imports):
            found[(relative, target)] = f"{row.package} may import only {list(row.imports)}"
        for target in dep.external - set(row.third_party):
            found[(relative, target)] = f"{row.package} may use only {list(row.third_party)}"
    return found


def package_graph(deps: Mapping[str, Dependencies]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for relative, dep in deps.items():
        graph.setdefault(unit_of(relative), set()).update(dep.internal)
    return graph


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of `graph` as a path [a, b, ..., a], or None when it has none."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for target in sorted(graph.get(node, ())):
            cycle = visit(target, [*path, node])
            if cycle is not None:
                return cycle
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start, [])
        if cycle is not None:
            return cycle
    return None


def reaches(graph: Mapping[str, Iterable[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    todo = [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def closes_cycle(graph: Mapping[str, set[str]], source: str, target: str) -> bool:
    """Whether the edge source -> target exists and `target` leads back to `source`."""
    if target not in graph.get(source, set()):
        return False
    without = {
        node: targets - {target} if node == source else targets for node, targets in graph.items()
    }
    return reaches(without, target, source)


def ratchet_problems(
    found: Mapping[K, str], allowed: Mapping[K, str], *, listed_as: str
) -> list[str]:
    """What is found but not listed (new), and what is listed but no longer found (fixed)."""
    problems = [f"new: {key} ({why})" for key, why in found.items() if key not in allowed]
    problems += [
        f"gone: {key} is fixed; delete its entry from {listed_as}"
        for key in allowed
        if key not in found
    ]
    return problems


# --- Layer tests -------------------------------------------------------------------------------


def test_the_layer_table_is_read_from_the_doc() -> None:
    rows = layer_table()
    names = [row.package for row in rows]
    assert len(names) == len(set(names)), f"a package has two rows: {names}"
    assert {"domain", "store", "ui", "commands"} <= set(names)
    domain = next(row for row in rows if row.package == "domain")
    assert domain.imports == ()  # the domain imports nothing of ours
    assert "PySide6" in next(row for row in rows if row.package == "ui").third_party


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    rows = layer_table()
    named = {row.package for row in rows} | {name for row in rows for name in row.imports}
    assert not named - units(), f"{DOC.name} names packages that do not exist: {named - units()}"
    missing = units() - {row.package for row in rows}
    assert not missing, f"add a row for {sorted(missing)} to the layer table in {DOC.name}"


def test_the_rows_run_bottom_up_so_the_table_allows_no_cycle() -> None:
    """A package may import only packages of earlier rows."""
    earlier: set[str] = set()
    for row in layer_table():
        later = [name for name in row.imports if name not in earlier]
        assert not later, f"{row.package} may import {later}, which are not in an earlier row"
        earlier.add(row.package)


def test_imports_follow_the_layer_table() -> None:
    found = violations(package_dependencies(), layer_table())
    problems = ratchet_problems(found, LAYER_RATCHET, listed_as="LAYER_RATCHET")
    assert not problems, (
        "imports against docs/ARCHITECTURE.md 'Layers' (go through an allowed package, or "
        "change the table there on purpose):\n" + "\n".join(problems)
    )


def test_no_import_cycle_between_packages() -> None:
    graph = package_graph(package_dependencies())
    stale = [edge for edge in CYCLE_RATCHET if not closes_cycle(graph, *edge)]
    reduced = {source: targets.copy() for source, targets in graph.items()}
    for source, target in CYCLE_RATCHET:
        reduced.get(source, set()).discard(target)
    cycle = find_cycle(reduced)
    assert cycle is None, f"import cycle between packages: {' -> '.join(cycle or [])}"
    assert not stale, f"no longer a cycle; delete from CYCLE_RATCHET: {stale}"


def test_only_the_cli_starts_the_app() -> None:
    """Outside ui/, only cli/app.py imports the UI, and only ui.app (README: with no arguments
    `liveagent-memory` opens the app)."""
    for path in SOURCES:
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("ui/"):
            continue
        for name in imported_names(path.read_text(encoding="utf-8"), relative):
            if name == f"{ROOT}.ui" or name.startswith(f"{ROOT}.ui."):
                allowed = relative == "cli/app.py" and name.startswith(f"{ROOT}.ui.app")
                assert allowed, f"{relative} imports the UI ({name})"


def test_the_layer_check_sees_every_form_of_import() -> None:
    # The checks above must not pass because they look in the wrong place.
    source = (
        "import liveagent_memory.retrieval.episodes\n"
        "from liveagent_memory.retrieval import task_types\n"
        "from ..retrieval.unified import x\n"
        "from .. import retrieval, organizer\n"
        "from . import episodes\n"
        "from liveagent_memory import __version__\n"
        "import sqlite3, json\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from liveagent_memory.ui import app\n"
        "def f():\n"
        "    from liveagent_memory.llm.client import y\n"
        "    import importlib\n"
        "    return importlib.import_module('numpy'), __import__('litellm')\n"
    )
    names = imported_names(source, "store/probe.py")  # the path is not read
    assert {
        "liveagent_memory.retrieval.episodes",
        "liveagent_memory.retrieval.task_types",
        "liveagent_memory.retrieval.unified",
        "liveagent_memory.retrieval",
        "liveagent_memory.store.episodes",
        "liveagent_memory.llm.client",
        "numpy",
        "litellm",
    } <= names
    deps = dependencies(names, "store/probe.py", units())
    assert deps.internal == {"retrieval", "organizer", "ui", "llm", ROOT_UNIT}
    assert deps.external == {"sqlite3", "numpy", "litellm"}  # json and typing are stdlib
    found = violations({"store/probe.py": deps}, layer_table())
    assert {("store/probe.py", name) for name in ("retrieval", "ui", "numpy", "litellm")} <= set(
        found
    )
    assert ("store/probe.py", "sqlite3") not in found  # the store may open its database
    assert ("store/probe.py", "store") not in found  # its own package


def test_the_ratchet_fails_both_ways() -> None:
    found = {("a.py", "x"): "why"}
    assert ratchet_problems(found, {("a.py", "x"): "known"}, listed_as="L") == []
    assert ratchet_problems(found, {}, listed_as="L") == ["new: ('a.py', 'x') (why)"]
    assert ratchet_problems({}, {("a.py", "x"): "known"}, listed_as="L") == [
        "gone: ('a.py', 'x') is fixed; delete its entry from L"
    ]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


def test_ratchet_entries_say_why() -> None:
    for key, why in {**LAYER_RATCHET, **CYCLE_RATCHET}.items():
        assert len(why) > 20, f"{key}: say why it is allowed and what removes it"


# --- Sizes -------------------------------------------------------------------------------------


def module_sizes() -> dict[str, int]:
    return {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in SOURCES
    }


def function_sizes(source: str, relative: str) -> Iterator[tuple[str, int]]:
    """("module::Class.method", lines from `def` to its last line) for every function."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                yield f"{relative}::{name}", (child.end_lineno or child.lineno) - child.lineno + 1
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


def size_problems(sizes: Mapping[str, int], recorded: Mapping[str, int], limit: int) -> list[str]:
    problems: list[str] = []
    for key, lines in sorted(sizes.items()):
        if lines <= limit:
            continue
        if key not in recorded:
            problems.append(f"{key}: {lines} lines, over {limit}: split it")
        elif lines > recorded[key]:
            problems.append(f"{key}: grew to {lines} lines (listed at {recorded[key]}): split it")
    for key in sorted(recorded):
        now = sizes.get(key)
        if now is None:
            problems.append(f"{key} is gone: delete its entry")
        elif now <= limit:
            problems.append(f"{key} is down to {now} lines: delete its entry")
    return problems


def test_no_module_over_the_line_limit() -> None:
    problems = size_problems(module_sizes(), LONG_MODULES, MAX_MODULE_LINES)
    assert not problems, "docs/ARCHITECTURE.md 'House checks', LONG_MODULES:\n" + "\n".join(
        problems
    )


def test_no_function_over_the_line_limit() -> None:
    sizes: dict[str, int] = {}
    for path in SOURCES:
        relative = path.relative_to(PACKAGE).as_posix()
        sizes.update(function_sizes(path.read_text(encoding="utf-8"), relative))
    problems = size_problems(sizes, LONG_FUNCTIONS, MAX_FUNCTION_LINES)
    assert not problems, "docs/ARCHITECTURE.md 'House checks', LONG_FUNCTIONS:\n" + "\n".join(
        problems
    )


def test_the_size_checks_fail_both_ways() -> None:
    source = "class A:\n    def f(self):\n" + "        x = 1\n" * 5 + "def g():\n    pass\n"
    assert dict(function_sizes(source, "m.py")) == {"m.py::A.f": 6, "m.py::g": 2}
    assert size_problems({"m.py": 9}, {"m.py": 9}, 8) == []
    assert size_problems({"m.py": 10}, {"m.py": 9}, 8) == [
        "m.py: grew to 10 lines (listed at 9): split it"
    ]
    assert size_problems({"m.py": 9}, {}, 8) == ["m.py: 9 lines, over 8: split it"]
    assert size_problems({"m.py": 8}, {"m.py": 9}, 8) == [
        "m.py is down to 8 lines: delete its entry"
    ]
    assert size_problems({}, {"m.py": 9}, 8) == ["m.py is gone: delete its entry"]


# --- Banned habits (STYLE 11, 14) --------------------------------------------------------------


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

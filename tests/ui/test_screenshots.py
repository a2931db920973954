"""`liveagent-memory screenshots` renders every page; with no display the CLI prints the status."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from liveagent_memory.cli import app as cli_app
from liveagent_memory.domain.config import HOME_ENV_VAR
from liveagent_memory.ui.app import SCREENSHOT_SIZE as SCREENSHOT_SIZE_TUPLE
from liveagent_memory.ui.app import run_screenshots
from liveagent_memory.ui.drawer import PAGES
from tests.helpers.cli import run_cli
from tests.ui.conftest import sample_memories, seed

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SCREENSHOT_SIZE = QSize(*SCREENSHOT_SIZE_TUPLE)


@pytest.fixture
def no_current_loop() -> Iterator[None]:
    """run_screenshots sets (and closes) its own loop; leave no closed loop behind."""
    yield
    asyncio.set_event_loop(None)


def test_screenshots_writes_one_png_per_page(
    qapp: QApplication, home: Path, workdir: str, tmp_path: Path, no_current_loop: None
) -> None:
    seed(home, sample_memories(workdir))
    out_dir = tmp_path / "shots"
    code, out, _ = run_cli("screenshots", str(out_dir), "--home", str(home))

    assert code == 0
    printed = [Path(line) for line in out.splitlines()]
    names = [page.NAME for page in sorted(PAGES, key=lambda p: p.ORDER)] + ["quota-banner"]
    assert printed == [out_dir / f"{i:02d}-{name}.png" for i, name in enumerate(names, 1)]
    assert sorted(out_dir.iterdir()) == printed
    for path in printed:
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE)
        image = QImage(str(path))
        assert not image.isNull()
        assert image.size() == SCREENSHOT_SIZE
        # Widgets and text were drawn: a blank grab would have a handful of colours at most.
        small = image.scaled(240, 152)
        colours = {small.pixel(x, y) for x in range(small.width()) for y in range(small.height())}
        assert len(colours) > 20


def test_screenshots_of_an_empty_store(
    qapp: QApplication, home: Path, tmp_path: Path, no_current_loop: None
) -> None:
    code, out, _ = run_cli("screenshots", str(tmp_path / "shots"), home=home)

    assert code == 0
    paths = [Path(line) for line in out.splitlines()]
    assert len(paths) == len(PAGES) + 1
    assert all(QImage(str(path)).size() == SCREENSHOT_SIZE for path in paths)


def test_screenshots_at_another_window_size(
    qapp: QApplication, home: Path, tmp_path: Path, no_current_loop: None
) -> None:
    paths = run_screenshots(home, tmp_path / "shots", language="zh_CN", size=(1280, 800))

    assert len(paths) == len(PAGES) + 1
    assert {QImage(str(path)).size().toTuple() for path in paths} == {(1280, 800)}


@pytest.mark.timeout(60)  # opening the app instead would block until the window closes
def test_no_arguments_without_a_display_prints_the_status(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setenv("DISPLAY", ":0")  # the offscreen platform wins over a display variable
    monkeypatch.setenv(HOME_ENV_VAR, str(home))
    assert cli_app.display_available() is False
    code, out, _ = run_cli()

    assert code == 0
    assert f"LiveAgent Memory store at {home.absolute()}" in out
    assert "0 memories" in out


@pytest.mark.skipif(sys.platform != "linux", reason="macOS and Windows always have a display")
@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, False),
        ({"QT_QPA_PLATFORM": "minimal", "WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"DISPLAY": ":0"}, True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, True),
        ({}, False),
    ],
)
def test_display_available_on_linux(
    environ: dict[str, str], expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)

    assert cli_app.display_available() is expected

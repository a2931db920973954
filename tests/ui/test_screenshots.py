"""`liveagent-memory screenshots` renders every page (with `--states`, the states a reviewer
checks); with no display the CLI prints the status."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from liveagent_memory.cli import app as cli_app
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.domain.config import HOME_ENV_VAR, WINDOW_MIN_SIZE
from liveagent_memory.domain.config import SCREENSHOT_SIZE as SCREENSHOT_SIZE_TUPLE
from liveagent_memory.ui.app import run_screenshots
from liveagent_memory.ui.drawer import PAGES
from liveagent_memory.ui.screenshots import (
    COMPARE,
    CONTRADICTION,
    CONTRADICTION_EDIT,
    DIALOG_STATES,
    HISTORY_DIFF,
    REVIEW_QUEUE,
    STATES,
)
from tests.helpers.cli import cli_call_ok, run_cli
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
    shots = run_screenshots(home, tmp_path / "shots", language="zh_CN", size=(1280, 800))

    paths = shots.written
    assert len(paths) == len(PAGES) + 1
    assert shots.missing == []
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


# --- `--states`: the states a reviewer needs to see ------------------------------------------
DEMO_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "demo_store.py"
DEMO_MEMORIES = 40  # enough for a full page of rows; the script adds its near-duplicates anyway


def colours(image: QImage) -> int:
    """How many colours a scaled-down copy of `image` has (a blank grab has a handful)."""
    small = image.scaled(240, 152)
    return len({small.pixel(x, y) for x in range(small.width()) for y in range(small.height())})


def test_states_of_the_demo_store_are_each_a_picture(
    qapp: QApplication, tmp_path: Path, no_current_loop: None
) -> None:
    home = tmp_path / "demo"
    subprocess.run(
        [sys.executable, str(DEMO_SCRIPT), str(home), "--memories", str(DEMO_MEMORIES)],
        check=True,
        capture_output=True,
    )
    before = sorted(p.relative_to(home) for p in home.rglob("*.md"))
    out_dir = tmp_path / "shots"
    code, out, _ = run_cli(
        "screenshots", str(out_dir), "--home", str(home), "--lang", "en", "--states",
        "--size", "1280x800",
    )  # fmt: skip

    assert code == 0
    printed = [Path(line) for line in out.splitlines()]
    pages = [
        f"{i:02d}-{page.NAME}" for i, page in enumerate(sorted(PAGES, key=lambda p: p.ORDER), 1)
    ]
    names = [*pages, f"{len(PAGES) + 1:02d}-quota-banner", *STATES]
    assert printed == [out_dir / f"{name}.png" for name in names]  # no "not written" line
    for path, name in zip(printed, names, strict=True):
        assert path.read_bytes().startswith(PNG_SIGNATURE)
        image = QImage(str(path))
        if name in DIALOG_STATES:  # its own size: smaller than the window, not a sliver
            assert 300 <= image.width() < 1280 and 150 <= image.height() < 800, name
            assert colours(image) > 10, name
        else:
            expected = WINDOW_MIN_SIZE if name == REVIEW_QUEUE else (1280, 800)
            assert image.size().toTuple() == expected, name
            assert colours(image) > 20, name
    # The refused secret was not written; nothing else in the store changed either.
    assert sorted(p.relative_to(home) for p in home.rglob("*.md")) == before
    assert not list(home.rglob("deploy-key*"))


def test_states_of_an_empty_store_say_what_could_not_be_shown(
    qapp: QApplication, home: Path, tmp_path: Path, no_current_loop: None
) -> None:
    out_dir = tmp_path / "shots"
    run = run_cli("screenshots", str(out_dir), "--lang", "zh_CN", "--states", "--json", home=home)

    assert run.code == 0
    result = run.json()
    missing = {item["file"]: item["reason"] for item in result["missing"]}
    # No memory has an earlier text; the offline run found nothing to merge, so no compare,
    # and no two memories that disagree, so no contradiction (nor its editor).
    assert sorted(missing) == sorted(
        f"{name}.png"
        for name in (HISTORY_DIFF, REVIEW_QUEUE, COMPARE, CONTRADICTION, CONTRADICTION_EDIT)
    )
    assert "earlier version" in missing[f"{HISTORY_DIFF}.png"]
    assert "no merge" in missing[f"{REVIEW_QUEUE}.png"]
    assert "disagree" in missing[f"{CONTRADICTION}.png"]
    written = [Path(path) for path in result["files"]]
    states = [name for name in STATES if f"{name}.png" not in missing]
    assert written[len(PAGES) + 1 :] == [out_dir / f"{name}.png" for name in states]
    assert sorted(out_dir.iterdir()) == sorted(written)
    for path in written:  # the empty table, the empty review mode, the editor's refusal, …
        assert colours(QImage(str(path))) > 10, path.name
    # The refused secret was not written: the store still holds no memory.
    assert cli_call_ok(home, system_clock, "memory_list", {})["entries"] == []


@pytest.mark.parametrize(
    ("size", "says"),
    [
        ("12x", "is not a size like 1280x800"),
        ("0x0", "smaller than the window's minimum, 1024x640"),
        ("1000x700", "smaller than the window's minimum, 1024x640"),
        ("1280x-800", "is not a size like 1280x800"),
        ("99999x800", "too large"),
    ],
)
def test_a_bad_size_is_a_usage_error(home: Path, tmp_path: Path, size: str, says: str) -> None:
    out_dir = tmp_path / "shots"
    code, out, err = run_cli("screenshots", str(out_dir), "--size", size, home=home)

    assert code == 2
    assert says in err
    assert "--size" in err
    assert out == ""
    assert not out_dir.exists()  # nothing was rendered

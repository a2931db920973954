"""The installed `liveagent-memory` command opens a real window on a real X server.

Everything else in tests/ui/ drives the widget tree on Qt's offscreen platform. This test is
what a person does: run `liveagent-memory` with no arguments on a desktop (an Xvfb server
here, Qt's xcb platform plugin and the system's xcb libraries), see the window, and quit it
with Ctrl+Q. It catches what offscreen cannot: a missing system library, a crash in the
default-command path, a window that never maps or never paints, a quit that hangs.

Needs Xvfb, xwininfo (x11-utils), xdotool and the xcb libraries Qt loads
(`ui/xcb_check.py`); without them the test skips, unless
LIVEAGENT_REQUIRE_REAL_DISPLAY=1 (set by .ci/run, which installs them) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.ui.xcb_check import missing_xcb_libraries
from tests.helpers.memories import memory_payload, seed_home

TITLE = "LiveAgent Memory"
SCREEN = (1280, 800)
START_S = 90.0  # process start to a mapped window; imports take seconds on a busy 2-core box
QUIT_S = 30.0  # Ctrl+Q to the process ending (it stops the store worker first)
TOOLS = ("Xvfb", "xwininfo", "xdotool")

# Runs in a child with the xcb platform: grabs the window from the X server as another
# client would see it, and says how many distinct colours the picture has.
GRAB = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication([])
picture = app.primaryScreen().grabWindow(int(sys.argv[1], 16))
picture.save(sys.argv[2])
image = picture.toImage()
step = max(1, image.width() // 64)
colours = {image.pixel(x, y) for x in range(0, image.width(), step)
           for y in range(0, image.height(), step)}
print(image.width(), image.height(), len(colours))
"""


def _tools_or_skip() -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    missing += [library.soname for library in missing_xcb_libraries()]
    if not missing:
        return
    message = f"needs {', '.join(missing)} (.ci/run installs them)"
    if os.environ.get("LIVEAGENT_REQUIRE_REAL_DISPLAY") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def display() -> Iterator[str]:
    """A fresh Xvfb server; its display name (`:N`, the first free number, chosen by Xvfb)."""
    _tools_or_skip()
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "{}x{}x24".format(*SCREEN)]
        + ["-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    with os.fdopen(read_end) as announced:
        number = announced.readline().strip()
    try:
        assert number.isdigit(), f"Xvfb did not announce a display (exit {server.poll()})"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def x_env(display: str, **extra: str) -> dict[str, str]:
    """The environment of a desktop session on `display`: Qt picks xcb, as on a real one."""
    drop = ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")
    env = {key: value for key, value in os.environ.items() if key not in drop}
    return env | {"DISPLAY": display} | extra


def main_window(display: str) -> tuple[str, int, int] | None:
    """(X window id, width, height) of the app's mapped main window, if it is up yet."""
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"], env=x_env(display), capture_output=True, text=True
    ).stdout
    for line in tree.splitlines():
        # e.g. `0x200007 "LiveAgent Memory": ("liveagent-memory" "LiveAgent Memory")  1100x720+0+0`
        if f'"{TITLE}": ("' not in line:
            continue
        geometry = line.split(")")[-1].split()[0]
        width, height = (int(part) for part in geometry.split("+")[0].split("x"))
        if width > 1 and height > 1:
            return line.split()[0], width, height
    return None


def wait_for_window(display: str, app: subprocess.Popen[bytes]) -> tuple[str, int, int]:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        found = main_window(display)
        if found:
            return found
        if app.poll() is not None:
            pytest.fail(f"liveagent-memory ended with {app.returncode} before showing a window")
        time.sleep(0.25)
    pytest.fail(f"no '{TITLE}' window within {START_S} s")


@pytest.mark.timeout(START_S + QUIT_S + 90)
def test_liveagent_memory_without_arguments_opens_a_window_that_paints_and_quits(
    display: str, tmp_path: Path
) -> None:
    home = tmp_path / "memory"
    seed_home(home, [memory_payload("tea-pref", description="The user drinks green tea")])
    command = Path(sys.executable).with_name("liveagent-memory")  # the installed entry point
    log = tmp_path / "app.log"
    with log.open("wb") as output:
        app = subprocess.Popen(
            [str(command)],
            env=x_env(display, LIVEAGENT_MEMORY_HOME=str(home)),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            window, width, height = wait_for_window(display, app)
            time.sleep(2.0)  # let the first page list its memory before the picture
            shot = tmp_path / "window.png"
            grabbed = subprocess.run(
                [sys.executable, "-c", GRAB, window, str(shot)],
                env=x_env(display, QT_QPA_PLATFORM="xcb"),
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert grabbed.returncode == 0, grabbed.stderr
            shot_width, shot_height, colours = (int(n) for n in grabbed.stdout.split())

            subprocess.run(
                ["xdotool", "windowfocus", "--sync", window, "key", "--clearmodifiers", "ctrl+q"],
                env=x_env(display),
                check=True,
                timeout=30,
            )
            code = app.wait(timeout=QUIT_S)
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
    printed = log.read_text(errors="replace")
    assert (shot_width, shot_height) == (width, height)
    assert width <= SCREEN[0] and height <= SCREEN[1], "the window must fit the screen"
    assert colours >= 8, f"the window looks unpainted ({colours} colours, see {shot})"
    assert code == 0, printed
    assert "Traceback" not in printed and "internal_error" not in printed, printed

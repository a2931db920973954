"""Starting the desktop app: `liveagent-memory` with no arguments on a display, and the check
that Qt's X11 plugin can start (its libraries, the display) before Qt would abort instead.

The check takes the library loader as a parameter: a test says which libraries are missing.
The CLI runs as a real subprocess where it would open a window, so no window can stay open
in the test run (a QApplication made by earlier tests would skip Qt's start-up).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.domain.errors import DisplayUnavailable
from liveagent_memory.ui.xcb_check import (
    XCB_LIBRARIES,
    check_xcb_start,
    display_answers,
    missing_xcb_libraries,
    uses_xcb,
)

NO_SERVER = ":4242"  # an X display number nobody runs a server on
STARTUP_S = 60


def loader_without(*sonames: str) -> Callable[[str], Any]:
    """A library loader like ctypes.CDLL on a machine that lacks `sonames`."""

    def load(name: str) -> Any:
        if name in sonames:
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
        if name == "libxcb.so.1":  # the display check calls into it: the real one
            return ctypes.CDLL(name)
        return ctypes.CDLL(None)  # any loaded library stands for the others

    return load


def desktop_env(**extra: str) -> dict[str, str]:
    """This process's environment as a desktop session's: Qt picks its own platform."""
    drop = ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "DISPLAY")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}


# --- which platform Qt starts on -----------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb:nomitshm;wayland"}, "linux", True),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
        ({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({"XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"}, "linux", True),
        ({}, "darwin", False),
        ({"QT_QPA_PLATFORM": "xcb"}, "win32", False),
    ],
)
def test_the_check_applies_where_qt_starts_on_xcb(
    environ: dict[str, str], platform: str, expected: bool
) -> None:
    assert uses_xcb(environ, platform=platform) is expected


# --- missing libraries ------------------------------------------------------------------------


def test_every_missing_library_is_named_with_its_packages() -> None:
    """Issue 14: Qt's core dump named only one of the three missing libraries."""
    load = loader_without("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1")

    with pytest.raises(DisplayUnavailable) as info:
        check_xcb_start({"DISPLAY": ":0"}, load=load, platform="linux")

    error = info.value
    assert error.code == "display_unavailable"
    for soname in ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"):
        assert soname in error.message
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in error.message
    assert "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms" in error.message
    assert "libxcb-image" not in error.message  # only what is missing


def test_packages_shared_by_several_libraries_are_named_once() -> None:
    load = loader_without("libxcb-shm.so.0", "libxcb-sync.so.1", "libxcb-icccm.so.4")

    missing = missing_xcb_libraries(load)

    assert [lib.soname for lib in missing] == [
        "libxcb-icccm.so.4",
        "libxcb-shm.so.0",
        "libxcb-sync.so.1",
    ]
    with pytest.raises(DisplayUnavailable) as info:
        check_xcb_start({"DISPLAY": ":0"}, load=load, platform="linux")
    assert "sudo dnf install xcb-util-wm libxcb (Fedora)" in info.value.message.replace("`", "")


def test_no_check_where_qt_does_not_start_on_xcb() -> None:
    nothing_loads = loader_without(*(lib.soname for lib in XCB_LIBRARIES))

    check_xcb_start({"QT_QPA_PLATFORM": "offscreen"}, load=nothing_loads, platform="linux")
    check_xcb_start({}, load=nothing_loads, platform="darwin")


# --- the display ------------------------------------------------------------------------------


@pytest.fixture
def libxcb() -> None:
    try:
        ctypes.CDLL("libxcb.so.1")
    except OSError:
        pytest.skip("libxcb is not installed")


@pytest.mark.usefixtures("libxcb")
def test_no_display_variable_is_a_typed_error() -> None:
    with pytest.raises(DisplayUnavailable) as info:
        check_xcb_start({}, load=loader_without(), platform="linux")
    assert "DISPLAY is not set" in info.value.message


@pytest.mark.usefixtures("libxcb")
def test_a_display_nobody_answers_is_a_typed_error() -> None:
    assert display_answers(NO_SERVER) is False
    environ = {"DISPLAY": NO_SERVER}
    with pytest.raises(DisplayUnavailable) as info:
        check_xcb_start(environ, load=loader_without(), platform="linux")
    assert f"no X display answers at DISPLAY={NO_SERVER}" in info.value.message


# --- `liveagent-memory` with no arguments on a desktop ----------------------------------------


def run_module(home: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "liveagent_memory", "--home", str(home), "--create", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=STARTUP_S,
        check=False,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="X11 only")
def test_no_arguments_with_a_display_start_the_app(tmp_path: Path) -> None:
    """The app's start-up runs (and here stops with its typed error: no X server answers,
    or Qt's libraries are missing), not the status, not the chat's internal_error."""
    done = run_module(tmp_path / "memory", desktop_env(DISPLAY=NO_SERVER))

    assert done.returncode == 1, done.stdout + done.stderr
    assert "The desktop app cannot start" in done.stderr
    assert "Traceback" not in done.stderr and "internal_error" not in done.stderr
    assert "store at" not in done.stdout  # not the status
    missing = missing_xcb_libraries()
    if missing:  # this machine lacks some: all of them are named
        assert all(lib.soname in done.stderr for lib in missing)
    else:
        assert f"no X display answers at DISPLAY={NO_SERVER}" in done.stderr

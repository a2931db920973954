"""Whether Qt's X11 (xcb) platform plugin can start here: its libraries, and the display.

Qt aborts the whole process (a core dump) when its xcb plugin cannot load, naming only the
first missing library, or when no X display answers. `check_xcb_start` runs before the
QApplication exists and turns both into one `DisplayUnavailable` that names every missing
library with the Debian/Ubuntu and Fedora packages to install. No Qt import here: the check
must run before Qt loads anything, and a test hands it a loader that says what is missing.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from liveagent_memory.domain.errors import DisplayUnavailable

# Loads a shared library by its soname and raises OSError when it cannot (ctypes.CDLL does).
Loader = Callable[[str], Any]


@dataclass(frozen=True)
class XcbLibrary:
    """A library Qt's xcb plugin links against, and the packages that install it."""

    soname: str
    debian: str  # Debian and Ubuntu
    fedora: str


# What `ldd` lists for PySide6's Qt/plugins/platforms/libqxcb.so and Qt/lib/libQt6XcbQpa.so.6
# (PySide6 6.12) beyond Qt, libc, GL and fontconfig: the X11/xcb client libraries. Qt's own
# list of xcb requirements has the same ones. A minimal desktop lacks some: a fresh Debian 12
# has neither libxcb-icccm4 nor libxcb-keysyms1, and Qt 6.5+ also needs libxcb-cursor0.
XCB_LIBRARIES = (
    XcbLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    XcbLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    XcbLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    XcbLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    XcbLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    XcbLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    XcbLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    XcbLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    XcbLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    XcbLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    XcbLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    XcbLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    XcbLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    XcbLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    XcbLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    XcbLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
)


def uses_xcb(environ: Mapping[str, str], *, platform: str = sys.platform) -> bool:
    """Whether Qt will start on its xcb plugin: on Linux, QT_QPA_PLATFORM names xcb first, or
    is unset outside a Wayland session (Qt then picks xcb; in one, its wayland plugin)."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        first = chosen.split(";")[0].split(":")[0].strip().lower()
        return first == "xcb"
    return environ.get("XDG_SESSION_TYPE", "").strip().lower() != "wayland"


def missing_xcb_libraries(load: Loader = ctypes.CDLL) -> list[XcbLibrary]:
    """The libraries of XCB_LIBRARIES that `load` cannot load, in that order."""
    missing = []
    for library in XCB_LIBRARIES:
        try:
            load(library.soname)
        except OSError:
            missing.append(library)
    return missing


def display_answers(display: str, load: Loader = ctypes.CDLL) -> bool:
    """Whether an X server accepts a connection at `display` (libxcb's xcb_connect)."""
    xcb = load("libxcb.so.1")
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    try:
        return bool(connection) and xcb.xcb_connection_has_error(connection) == 0
    finally:
        if connection:
            xcb.xcb_disconnect(connection)


def missing_libraries_message(missing: list[XcbLibrary]) -> str:
    """One message naming every missing library and the packages that install them."""
    debian = " ".join(dict.fromkeys(lib.debian for lib in missing))
    fedora = " ".join(dict.fromkeys(lib.fedora for lib in missing))
    names = ", ".join(lib.soname for lib in missing)
    return (
        f"The desktop app cannot start: Qt's X11 (xcb) platform plugin needs {names}, "
        "which this system does not have. Install them with "
        f"`sudo apt install {debian}` (Debian, Ubuntu) or `sudo dnf install {fedora}` "
        "(Fedora), then start the app again. The command line works without them."
    )


def check_xcb_start(
    environ: Mapping[str, str] | None = None,
    *,
    load: Loader = ctypes.CDLL,
    platform: str = sys.platform,
) -> None:
    """Raise DisplayUnavailable when Qt would start on xcb and could not: libraries missing
    (all named) or no X display answering. Does nothing for other platforms."""
    env = os.environ if environ is None else environ
    if not uses_xcb(env, platform=platform):
        return
    missing = missing_xcb_libraries(load)
    if missing:
        raise DisplayUnavailable(missing_libraries_message(missing))
    display = env.get("DISPLAY", "").strip()
    if not display or not display_answers(display, load):
        where = f"at DISPLAY={display}" if display else "(DISPLAY is not set)"
        raise DisplayUnavailable(
            f"The desktop app cannot start: no X display answers {where}. Start it from a "
            "desktop session; without one, `liveagent-memory status` and the other "
            "commands work in the terminal."
        )

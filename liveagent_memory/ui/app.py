"""Composition root of the desktop app: QApplication, the qasync loop, the window."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.window import MainWindow


def application() -> QApplication:
    """The one QApplication (created on first use)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    return app


def run_app(home: Path) -> int:
    """Open the window on `home` and run until it is closed."""
    app = application()
    app.setApplicationName("LiveAgent Memory")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow(home, Bridge())
    window.show()
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)

    async def main() -> None:
        window.bridge.spawn(window.start())
        await closed.wait()
        await window.aclose()

    with loop:
        loop.run_until_complete(main())
    return 0


async def screenshots(home: Path, out: Path) -> list[Path]:
    """Render the window and its pages to PNG files (offscreen works)."""
    out.mkdir(parents=True, exist_ok=True)
    window = MainWindow(home, Bridge())
    window.resize(1200, 760)
    window.show()
    await window.start()
    await asyncio.sleep(0.2)
    saved: list[Path] = []
    for row, page in enumerate(window.pages):
        window.nav.setCurrentRow(row)
        await asyncio.sleep(0.1)
        path = out / f"{row + 1:02d}-{page.NAME}.png"
        window.grab().save(str(path))
        saved.append(path)
    await window.aclose()
    window.close()
    return saved


def run_screenshots(home: Path, out: Path) -> list[Path]:
    loop = qasync.QEventLoop(application())
    asyncio.set_event_loop(loop)
    with loop:
        saved: list[Path] = loop.run_until_complete(screenshots(home, out))
    return saved

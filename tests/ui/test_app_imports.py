"""What the app loads before a person sees it: `liveagent-memory` with no arguments imports the
CLI, then builds and shows the window; none of the heavy optional parts (aiohttp's server, the
MCP SDK, litellm, numpy) may be imported by then. A fresh process, as a person starts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("aiohttp", "mcp", "litellm", "numpy")

# The start `run_app` makes (cli/app.py -> ui/app.py), watched: the modules loaded at the
# window's first paint, and again once its pages have loaded (`window.start()`).
START = r"""
import asyncio, json, sys
from pathlib import Path
import liveagent_memory.cli.entry  # what the console script imports first
import qasync
from PySide6.QtCore import QEvent, QObject
from liveagent_memory.ui.app import app_context, application
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.window import MainWindow

HEAVY = sys.argv[2].split(",")
seen = {}

def loaded():
    return sorted(name for name in HEAVY if name in sys.modules)

class PaintWatch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "painted" not in seen:
            seen["painted"] = loaded()
        return False

app = application()
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)

async def main():
    window = MainWindow(app_context(Path(sys.argv[1])), Bridge())
    watch = PaintWatch()
    window.installEventFilter(watch)
    window.show()
    window.repaint()
    await window.start()
    seen["started"] = loaded()
    await window.aclose()
    window.dispose()

with loop:
    loop.run_until_complete(main())
print(json.dumps(seen))
"""


def test_the_app_paints_and_loads_its_pages_without_aiohttp_mcp_litellm_or_numpy(
    home: Path,
) -> None:
    home.mkdir(parents=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", START, str(home), ",".join(HEAVY)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"painted": [], "started": []}, seen

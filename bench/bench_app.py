"""App start-up benchmark: process start → painted window → memories listed, at 10k memories.

Each repetition is a fresh Python process (offscreen Qt), so imports are paid as a person
starting the app pays them. It records, from process start:
- `painted`: the main window has been shown and painted once (the first frame a person sees);
- `listed`: the store is open (reconciled on the worker) and the Memories page shows its rows;
- whether litellm was imported (it must not be: the app imports it only for a model call),
  and which of aiohttp, mcp, litellm and numpy were loaded at the first paint (none should be).

The child imports the CLI first, as the `liveagent-memory` console script does. `--before DIR`
also starts another version of the package (DIR holds its `liveagent_memory/`, e.g. from
`git archive <commit> liveagent_memory | tar -x -C DIR`), alternating with this checkout
repetition by repetition, so both see the same load of a shared machine.

    .venv/bin/python bench/bench_app.py --sizes 10000 --repeats 5 --out bench/out/app.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build_vocabulary, generate, open_store, seed_files
from benchenv import machine_info, package_state

SEED = 20261130

CHILD = r"""
import time
started = time.perf_counter()
import asyncio, json, sys
from pathlib import Path
import liveagent_memory.cli.entry
import qasync
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
from liveagent_memory.ui.app import app_context
from liveagent_memory.ui.bridge import Bridge
from liveagent_memory.ui.window import MainWindow

marks = {}

class PaintWatch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "painted" not in marks:
            marks["painted"] = time.perf_counter() - started
            heavy = ("aiohttp", "mcp", "litellm", "numpy")
            marks["heavy_at_paint"] = [name for name in heavy if name in sys.modules]
        return False

app = QApplication(sys.argv[:1])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)

async def main():
    window = MainWindow(app_context(Path(sys.argv[1])), Bridge())
    watch = PaintWatch()
    window.installEventFilter(watch)
    window.show()
    window.repaint()
    await window.start()
    while window.pages[0].model.rowCount() == 0:
        await asyncio.sleep(0.005)
    marks["listed"] = time.perf_counter() - started
    marks["rows"] = window.pages[0].model.rowCount()
    marks["litellm_imported"] = "litellm" in sys.modules
    await window.aclose()

with loop:
    loop.run_until_complete(main())
print(json.dumps(marks))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def start_once(root: Path, code: Path | None) -> dict[str, Any]:
    """One start of the app in a fresh process (`code`: another version's package folder)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=code or None,
    )
    run: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return run


def summary(n: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "n": n,
        "painted_s": [round(r["painted"], 3) for r in runs],
        "listed_s": [round(r["listed"], 3) for r in runs],
        "painted_median_s": round(statistics.median(r["painted"] for r in runs), 3),
        "listed_median_s": round(statistics.median(r["listed"] for r in runs), 3),
        "rows": runs[0]["rows"],
        "litellm_imported": any(r["litellm_imported"] for r in runs),
        "heavy_at_paint": sorted({name for r in runs for name in r.get("heavy_at_paint", [])}),
        "load_at_end": round(os.getloadavg()[0], 2),
    }


def run_size(n: int, base: Path, repeats: int, before: Path | None = None) -> dict[str, Any]:
    vocab = build_vocabulary(SEED, 40_000, 12_000)
    memories, _ = generate(vocab, n, SEED)
    root = base / f"app-{n}"
    seed_files(root, memories)
    open_store(root).close()  # index built once: start-ups below open a warm store
    runs: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    for _ in range(repeats):
        if before is not None:
            earlier.append(start_once(root, before))
        runs.append(start_once(root, None))
    result = summary(n, runs)
    if before is not None:
        result["before"] = summary(n, earlier)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--before", type=Path, help="another version's package folder")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": machine_info(), "package": package_state(), "sizes": []}
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        for n in args.sizes:
            log(f"[{n}] app start-up x{args.repeats}")
            results["sizes"].append(run_size(n, Path(tmp), args.repeats, args.before))
    print("| code | memories | painted (median) | listed (median) | rows | loaded at paint |")
    print("|---|---:|---:|---:|---:|---|")
    for size in results["sizes"]:
        for name, r in (("before", size.get("before")), ("this checkout", size)):
            if r is None:
                continue
            print(
                f"| {name} | {r['n']:,} | {r['painted_median_s']:.2f} s "
                f"| {r['listed_median_s']:.2f} s | {r['rows']} | {r['heavy_at_paint']} |"
            )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

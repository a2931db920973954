"""The installed Qt binding keeps Python's reference counts (a long session must not crash).

PySide6-Essentials 6.12.0 (an abi3 wheel) on CPython 3.11 returns None from every void method
and True from `Signal.emit` without taking a reference. Each call then drops one reference
to None or True, and after some tens of thousands of calls (a long session, or the end of a
test run) CPython aborts with "Fatal Python error: none_dealloc / bool_dealloc". On CPython
3.12+ None and True are immortal, so the same wheel is harmless there; 6.11.3 is fine on 3.11.
The probe runs in a child process so a broken binding cannot take this test run down with it.
"""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import os, sys
from PySide6 import __version__
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QComboBox, QPushButton

app = QApplication([])

class Emitter(QObject):
    happened = Signal()

emitter, button, combo = Emitter(), QPushButton(), QComboBox()
combo.addItem("All", None)
calls = {
    "void method": lambda: button.setEnabled(True),
    "signal emit": emitter.happened.emit,
    "None item data": combo.currentData,
}
for name, call in calls.items():
    before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(200):
        call()
    after = sys.getrefcount(None), sys.getrefcount(True)
    print(name, after[0] - before[0], after[1] - before[1], flush=True)
print("pyside", __version__, flush=True)
os._exit(0)  # skip finalization: with the bug it aborts there
"""


def test_qt_binding_does_not_drop_references_to_none_or_true() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )
    advice = (
        f"the Qt binding on Python {sys.version.split()[0]} drops a reference to None/True on "
        "every call, so the app aborts with 'Fatal Python error: none_dealloc/bool_dealloc'. "
        "Use PySide6-Essentials<6.12 (6.11.3 is fine) or Python 3.12+."
    )
    assert done.returncode == 0, f"the probe crashed: {advice}\n{done.stderr[-600:]}"
    *rows, version = done.stdout.splitlines()
    deltas = {
        name: (int(none), int(true)) for name, none, true in (row.rsplit(" ", 2) for row in rows)
    }
    assert set(deltas) == {"void method", "signal emit", "None item data"}
    leaking = {name: d for name, d in deltas.items() if min(d) < -50}  # 200 calls each
    assert not leaking, f"{version}: {leaking}: {advice}"

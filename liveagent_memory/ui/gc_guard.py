"""Garbage collection on the UI thread only.

Python's cyclic collector runs in whichever thread happens to allocate. A Qt object must be
destroyed in its own thread: one freed from the store worker or the organizer thread (a dead
window with a live timer) crashed Qt's event loop. So while the app runs, automatic collection
is off and a main-thread timer collects each generation once its threshold is passed — the same
thresholds as Python's own collector, on the right thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

COLLECT_INTERVAL_MS = 500  # often enough that garbage never piles up between two ticks


class MainThreadCollector(QObject):
    """While alive and started, cyclic garbage is collected on this (the UI) thread only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(COLLECT_INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._was_enabled = gc.isenabled()

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Collect what is pending and give collection back to Python as it was."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def check(self) -> None:
        """Collect the oldest generation whose allocation count passed its threshold."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        for generation in (2, 1, 0):
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return

"""The window's background vector builds: the local vector index kept in line, off the UI thread.

`VectorService` drives the context's `VectorBuilder` (retrieval/vector_builder.py, reached
through `AppContext.vector_builder`) on the app's loop (docs/ARCHITECTURE.md "Threads and
loops of the app"): a pass is a task owned by the bridge that reads the memories on the store
worker and embeds on the builder's own thread, so neither the UI thread nor the store worker
waits for the model. It starts once the window's pages have loaded (the window shows before the
model loads), again after each change the window makes (debounced: a burst of edits is one
pass) and on F5 (changes other programs made). Each report of the builder, sent from its
thread, reaches the UI thread as the `progressed` signal.
"""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QObject, QTimer, Signal

from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.vector_build import VectorBuild
from liveagent_memory.ui.bridge import Bridge

log = logging.getLogger(__name__)


class VectorService(QObject):
    """Starts and re-starts background vector passes; reports their progress.

    Signals:
        progressed(VectorBuild): a report of the builder, delivered on the UI thread.
    """

    progressed = Signal(object)

    def __init__(
        self, context: AppContext, bridge: Bridge, *, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        # Emitted from the builder's thread: Qt queues it to this object's (the UI) thread.
        self.builder = context.vector_builder(listener=self.progressed.emit)
        self._closed = False
        self._pass: asyncio.Future[VectorBuild] | None = None
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(config.VECTOR_BUILD_DEBOUNCE_MS)
        self.debounce.timeout.connect(self.start)

    def start(self) -> None:
        """Start a pass now; one under way runs once more at its end instead."""
        if self._closed:
            return
        if self._pass is not None and not self._pass.done():
            self.builder.changed()
            return
        self._pass = self.bridge.spawn(self._run(), name="vectors")

    def changed(self) -> None:
        """The window changed memories: a pass starts once the changes have settled."""
        if not self._closed:
            self.debounce.start()

    async def _run(self) -> VectorBuild:
        build = await self.builder.arun(offload=self.bridge.run_store)
        log.info("vector build: %s", build)
        return build

    def stop(self) -> None:
        """No pass starts any more; the one under way ends after its current batch."""
        self._closed = True
        self.debounce.stop()
        self.builder.stop()

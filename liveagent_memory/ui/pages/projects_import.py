"""The Projects page's Loki Mode import (issue 18): preview or import the Loki store chosen
among the stores the search found, through `loki_import`, and say what it did.

The import only reads the Loki store; what it writes into this store is unreviewed, so the
person reviews it on the Memories page like anything an agent wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.pages.base import PagePart

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage


class LokiImportBar(QWidget, PagePart):
    """Preview and Import for one Loki Mode store, and the line saying what happened.

    Signals:
        import_did_finish(object): an import (not a preview) ended; its `loki_import` result.
        error_did_occur(object): the import failed with a MemoryDomainError.
    """

    import_did_finish = Signal(object)
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage) -> None:
        super().__init__(page)
        self.page = page
        self.store_path: str | None = None  # the chosen Loki store (`.loki/memory`), if any
        self.busy = False
        self.last: dict[str, Any] | None = None  # the last result, preview or import
        self.last_path: str | None = None  # the store it was for
        self.preview_button = QPushButton()
        self.preview_button.setObjectName("lokiPreviewButton")
        self.import_button = QPushButton()
        self.import_button.setObjectName("lokiImportButton")
        self.summary = QLabel()
        self.summary.setObjectName("lokiImportSummary")
        self.summary.setWordWrap(True)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.preview_button)
        row.addWidget(self.import_button)
        row.addWidget(self.summary, 1)
        self.preview_button.clicked.connect(lambda: self.start(dry_run=True))
        self.import_button.clicked.connect(lambda: self.start(dry_run=False))
        self.retranslate()
        self._update()

    def retranslate(self) -> None:
        """Set every visible string (again on a language switch)."""
        self.preview_button.setText(self.tr("Preview import"))
        self.preview_button.setToolTip(
            self.tr("List what importing the chosen Loki Mode store would add, writing nothing")
        )
        self.import_button.setText(self.tr("Import"))
        self.import_button.setToolTip(
            self.tr(
                "Import the chosen Loki Mode store's episodes, patterns and skills; the "
                "memories it adds wait for your review"
            )
        )
        self.summary.setText(self._summary_text())

    def choose(self, store_path: str | None) -> None:
        """The Loki store chosen in the search results (None: a row that is no Loki store).

        The last result stays shown until another store is chosen: the page's refresh after an
        import redraws the results, which takes the choice away.
        """
        self.store_path = store_path
        if store_path is not None and store_path != self.last_path:
            self.last = None
        self._update()

    def start(self, *, dry_run: bool) -> None:
        """Preview or import the chosen store on the store worker."""
        if self.store_path is None or self.busy:
            return
        self.busy = True
        self._update()
        self.client.bridge.spawn(self._run(self.store_path, dry_run=dry_run))

    async def _run(self, path: str, *, dry_run: bool) -> None:
        try:
            result = await self.client.call("loki_import", {"path": path, "dry_run": dry_run})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        finally:
            self.busy = False
            self._update()
        self.last, self.last_path = result, path
        self._update()
        if not dry_run:
            self.import_did_finish.emit(result)

    def _update(self) -> None:
        chosen = self.store_path is not None and not self.busy
        self.preview_button.setEnabled(chosen)
        self.import_button.setEnabled(chosen)
        self.summary.setText(self._summary_text())
        # What was not imported, one line each: its code and where (the whole list on hover).
        problems = self.last["problems"] if self.last is not None else []
        self.summary.setToolTip("\n".join(f"{p['code']}  {p['path']}" for p in problems))

    def _summary_text(self) -> str:
        if self.busy:
            return self.tr("Importing…")
        if self.last is None:
            if self.store_path is None:
                return self.tr("Choose a Loki Mode store above to import it.")
            return self.tr("Import %1 into this store.").replace("%1", self.store_path)
        counts: dict[str, int] = {}
        for actions in self.last["counts"].values():
            for action, n in actions.items():
                counts[action] = counts.get(action, 0) + n
        new = counts.get("created", 0) + counts.get("updated", 0) + counts.get("replaced", 0)
        kept = counts.get("unchanged", 0) + counts.get("exists", 0)
        problems = len(self.last["problems"])  # a failed write is one of them
        if self.last["dry_run"]:
            head = self.tr("Would import %n new or changed entries", "", new)
        else:
            head = self.tr("Imported %n new or changed entries", "", new)
        parts = [
            head,
            self.tr("%n already here", "", kept),
            self.tr("%n problems", "", problems),
        ]
        return " · ".join(parts)

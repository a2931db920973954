"""The Memories page's Undo: what it takes back (the last accept, edit or delete, made in the
list or in the review mode) and taking it back through `memory_undo`.

One mechanism for every kind: each change is named by the `change` its command returned, and
the store puts the memory back exactly as it was before it, or refuses (`memory_changed`) when
the memory changed since (store/undo.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import Row
from liveagent_memory.ui.pages.base import PagePart
from liveagent_memory.ui.payloads import target

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage

ACCEPT, EDIT, DELETE = "accept", "edit", "delete"


@dataclass
class Undoable:
    """The last change Undo takes back: its kind, and per memory the change to undo."""

    kind: str  # ACCEPT, EDIT or DELETE
    changes: list[tuple[Row, str]]  # (the memory's list row, its mutation's `change`)


class MemoryUndo(QObject, PagePart):
    """Keeps the last accept, edit or delete of `page` and takes it back on request.

    Signals:
        offer_did_change: what Undo would take back changed (the page updates its button).
        error_did_occur(object): an undo failed with a MemoryDomainError.
    """

    offer_did_change = Signal()
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage) -> None:
        super().__init__(page)
        self.page = page
        self.last: Undoable | None = None

    @property
    def kind(self) -> str | None:
        """What Undo would take back (ACCEPT, EDIT, DELETE), or None."""
        return self.last.kind if self.last is not None else None

    def remember(self, kind: str, changes: list[tuple[Row, str]]) -> None:
        """Offer to undo `changes`; a change that did nothing (no `changes`) keeps the offer,
        so a failed action never replaces what Undo would take back."""
        if not changes:
            return
        self.last = Undoable(kind, [(dict(entry), change) for entry, change in changes])
        self.offer_did_change.emit()

    def remember_batch(self, kind: str, entries: list[Row], result: dict[str, Any]) -> list[Row]:
        """Offer to undo what a memory_apply_batch over `entries` applied; returns those."""
        applied = [
            (entries[item["index"]], str(item["result"]["change"]))
            for item in result["items"]
            if item["status"] == "applied" and (item.get("result") or {}).get("change")
        ]
        self.remember(kind, applied)
        return [entry for entry, _change in applied]

    async def undo(self) -> tuple[str, list[Row]] | None:
        """Take back the last change: (its kind, the memories put back), or None when there
        was nothing to undo. What failed stays on offer; the first failure is reported."""
        last = self.last
        if last is None:
            return None
        done: list[Row] = []
        failed: list[tuple[Row, str]] = []
        error: MemoryDomainError | None = None
        for entry, change in last.changes:
            try:
                await self.client.call("memory_undo", {**target(entry), "change": change})
            except MemoryDomainError as exc:
                failed.append((entry, change))
                error = error or exc
                continue
            done.append(entry)
        self.last = Undoable(last.kind, failed) if failed else None
        self.offer_did_change.emit()
        if error is not None:
            self.error_did_occur.emit(error)
        return last.kind, done

"""The one filter of list and search: where a memory is, its type, and how far to trust it.

This module is the home of the filter's shape (docs/ARCHITECTURE.md "Where each rule lives"):
scope and project (domain/visibility.py's rule), type and whether journal days count,
reviewed or not, evidence confidence, risk flag. `memory_list` and `memory_search` take the
same fields (domain/requests.py `FilterFields`); the store builds one MemoryFilter from them
and applies it in SQL and FTS5 before any limit (store/filters.py), so a filtered search
finds matches however far down they rank; hybrid search applies it to its vector side too
(retrieval/hybrid.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from liveagent_memory.domain.schema import Confidence, MemoryType
from liveagent_memory.domain.visibility import Visibility


@dataclass(frozen=True)
class MemoryFilter:
    """What a list or a search keeps. None means "any" for the last four."""

    visibility: Visibility
    type: MemoryType | None = None
    unreviewed: bool | None = None  # True: only unreviewed memories; False: only reviewed ones
    confidence: Confidence | None = None  # the evidence level ("unknown" for none)
    risk_flagged: bool | None = None  # True: only memories with a risk flag; False: none
    daily: bool = True  # journal days kept (the Memories page leaves them out)

    @property
    def reviews(self) -> bool:
        """Whether the filter asks about review state, evidence or risk (not only place)."""
        return (
            self.unreviewed is not None
            or self.confidence is not None
            or self.risk_flagged is not None
        )

    def admits_place(self, scope: str | None, workdir_hash: str | None, type: str | None) -> bool:
        """Whether a memory of this scope, project and type passes the place and type part."""
        if self.type is not None and type != self.type:
            return False
        if not self.daily and type == MemoryType.DAILY:
            return False
        return self.visibility.admits(scope, workdir_hash)

"""The order of a memory listing: the columns it can be sorted by, and what a project is called.

This module is the home of the rule (docs/ARCHITECTURE.md "Where each rule lives"): the fields
`memory_list` sorts by (`SortField`, asked for in `ListRequest.sort` with a `SortDirection`),
how the values of each rank (`TYPE_RANK`, `CONFIDENCE_RANK`, `RISK_RANK`) and a project's name
(`project_name`: its folder's name, which the app shows in its scope column). The store turns
an order into SQL with a stable tiebreak (store/sorting.py), so a sorted listing is sorted over
every memory the filter keeps, not over one loaded page.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import PurePath

from liveagent_memory.domain.risk import RISK_LEVELS
from liveagent_memory.domain.schema import Confidence, MemoryType


class SortField(StrEnum):
    """A column a listing can be sorted by."""

    TITLE = "title"  # the description, else the slug; case-insensitive
    TYPE = "type"  # in the order of MemoryType (user, feedback, project, reference, skill)
    SCOPE = "scope"  # global first, then the projects by name (`project_name`)
    REVIEWED = "reviewed"  # ascending: reviewed before unreviewed
    CONFIDENCE = "confidence"  # ascending: unknown, low, medium, high
    RISK = "risk"  # ascending: no flag, then the flag's level (low, medium, high)
    UPDATED = "updated"  # the last change; a listing's default order is newest first


class SortDirection(StrEnum):
    ASC = "asc"
    DESC = "desc"


# Ranks of the values, lowest first (ascending order).
TYPE_RANK: dict[str, int] = {t.value: n for n, t in enumerate(MemoryType)}
CONFIDENCE_RANK: dict[str, int] = {
    Confidence.UNKNOWN.value: 0,
    Confidence.LOW.value: 1,
    Confidence.MEDIUM.value: 2,
    Confidence.HIGH.value: 3,
}
RISK_RANK: dict[str, int] = {level.value: n + 1 for n, level in enumerate(RISK_LEVELS)}  # none: 0


def project_name(workdir: str | None, workdir_hash: str) -> str:
    """What a project is called: its folder's name; the folder itself when it has none (a
    root), the start of its hash when the folder is unknown."""
    if workdir:
        return PurePath(workdir).name or workdir
    return workdir_hash[:12]

"""Scope visibility: which memories a read sees, global plus the current project.

This module is the only home of the rule (docs/ARCHITECTURE.md "Where each rule lives"). A read
(list, search, read by slug, journal days, recent rejections, the Memory Index, the "load
everything" footprint, the vector side of hybrid search) sees the global scope and the current
project (REFERENCE A5). A scope filter narrows it: `global` sees only the global scope,
`project` only the current project, so it needs one (`workdir_required`). Asking for every
project widens the project side: with no scope filter a read then sees everything, with
`project` every project and no global memory.

The store turns a Visibility into SQL and into FTS5 tokens (store/filters.py); code holding a
memory's scope and project in hand asks `admits` (retrieval/hybrid.py's vector filter).
"""

from __future__ import annotations

from dataclasses import dataclass

from liveagent_memory.domain.errors import WorkdirRequired
from liveagent_memory.domain.schema import Scope


@dataclass(frozen=True)
class Visibility:
    """The scopes a read sees: the global one or not, and one project or every project."""

    global_scope: bool
    project: str | None = None  # the workdir_hash of the one project seen
    every_project: bool = False

    def admits(self, scope: str | None, workdir_hash: str | None) -> bool:
        """Whether a memory of this scope and project is visible."""
        if scope == Scope.GLOBAL:
            return self.global_scope
        if scope == Scope.PROJECT:
            return self.every_project or (self.project is not None and workdir_hash == self.project)
        return False

    @property
    def everything(self) -> bool:
        return self.global_scope and self.every_project


GLOBAL_ONLY = Visibility(global_scope=True)


def visibility(
    scope: Scope | None,
    project: str | None,
    *,
    all_projects: bool = False,
    purpose: str = "reading project memories",
) -> Visibility:
    """What a read with this scope filter sees from `project` (a workdir_hash, None for none).

    Raises WorkdirRequired ("{purpose} requires a workdir") for the project scope without a
    project, unless every project is asked for.
    """
    if scope is Scope.GLOBAL:
        return GLOBAL_ONLY
    if all_projects:
        return Visibility(global_scope=scope is None, every_project=True)
    if scope is Scope.PROJECT:
        if project is None:
            raise WorkdirRequired(f"{purpose} requires a workdir", field="workdir")
        return Visibility(global_scope=False, project=project)
    return Visibility(global_scope=True, project=project)

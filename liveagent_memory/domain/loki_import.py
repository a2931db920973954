"""The shapes of a Loki Mode import (issue 18): what each entry became, and what was skipped.

retrieval/loki_import.py reads a `.loki/memory` store and fills these; the `loki_import`
command returns them as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from liveagent_memory.domain.schema import Shape


class LokiKind(StrEnum):
    """What a Loki Mode entry is (REFERENCE B2), and so what it becomes here."""

    EPISODE = "episode"  # an EpisodeTrace: our episode, id kept
    PATTERN = "pattern"  # a SemanticPattern: a project (or reference) memory
    ANTI_PATTERN = "anti_pattern"  # a pattern of what not to do: a feedback memory
    SKILL = "skill"  # a ProceduralSkill: a skill memory


class ImportAction(StrEnum):
    """What an import did with one entry (a dry run says what it would do)."""

    CREATED = "created"  # a new memory or episode
    UPDATED = "updated"  # the Loki entry changed since the last import: its memory now says so
    REPLACED = "replaced"  # an episode already stored, overwritten (`replace`)
    UNCHANGED = "unchanged"  # imported before and not changed since: nothing written
    EXISTS = "exists"  # an episode id already stored, left as it is (no `replace`)
    FAILED = "failed"  # read, but the store refused it: see the problem with its code


@dataclass
class LokiImportItem(Shape):
    """One Loki entry and what became of it."""

    kind: str  # LokiKind
    source_id: str  # the Loki id (an episode's, a pattern's, a skill's)
    namespace: str  # REFERENCE B1 namespace; `default` is the base folder
    path: str  # the file it was read from
    action: str  # ImportAction
    target: str  # the episode id, or the memory slug
    type: str | None = None  # the memory type (None for an episode)
    scope: str | None = None  # the memory scope (None for an episode)


@dataclass
class LokiImportProblem(Shape):
    """A file or entry that was not imported: where, a typed error code, and why."""

    path: str  # the file; `…/patterns.json#patterns[2]` for one entry of a list
    code: str  # corrupt_json | unreadable | too_large | unexpected_shape | an error's code
    message: str
    field: str | None = None  # the offending field, when the code is a field's error


@dataclass
class LokiImportResult(Shape):
    """The whole import: where from, into which project, each entry, each problem."""

    source: str  # the `.loki/memory` folder read
    project_folder: str | None  # the folder holding `.loki/`, when there is one
    workdir: str | None  # the project the import went into; None: global and unscoped
    workdir_hash: str  # '' when none
    dry_run: bool
    namespaces: list[str]
    items: list[LokiImportItem] = field(default_factory=list)
    problems: list[LokiImportProblem] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # kind -> action -> n
    written: int = 0  # memories and episodes written (0 in a dry run)

"""A project's portable id: git remote URLs normalised, the id rule, the paths a project was
seen at (issue 19, "Portable projects").

This module is the only home of the rule that says when two remote URLs name one repository
(docs/ARCHITECTURE.md "Where each rule lives"): `git@github.com:a/b.git` and
`https://github.com/a/b` are the same project. Reading a workdir's git config and id file is
`project_identity.py`'s; choosing the project folder is `store/project_keys.py`'s.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from liveagent_memory.domain import config

GIT_PREFIX = "git:"  # an id made from a remote: git:<host>/<path>[#<subfolder>]
PINNED_PREFIX = "id:"  # an id `projects pin` made up when the project had none
# scp-like syntax `[user@]host:path` (git's own rule: no `://`, a colon before any slash).
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.*)$")
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class ProjectPath:
    """One place a project was opened from: its folder, the machine, when (RFC 3339)."""

    path: str
    machine: str | None = None
    seen_at: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"path": self.path, "machine": self.machine, "seen_at": self.seen_at}


@dataclass
class ProjectPinResult:
    """What `project_pin` did: the id the workdir's id file holds, and where."""

    workdir: str
    workdir_hash: str  # the project folder the workdir opens
    project_id: str
    id_file: str
    written: bool  # False: the file was already there with this id

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def normalize_remote(url: str) -> str | None:
    """The repository a remote URL names, as `host/path`; None when it names none.

    Scheme, user, password and port are dropped, the host lower-cased, a trailing `.git` and
    slashes removed: ssh, https and git URLs of one repository agree. A local path (a remote
    on this disk) is kept as its path. The path keeps its case: some hosts tell it apart.
    """
    text = url.strip()
    if not text or _CONTROL.search(text):
        return None
    host = ""
    if "://" in text:
        parts = urlsplit(text)
        host = (parts.hostname or "").lower()
        path = parts.path
        if parts.scheme.lower() == "file":
            host = ""
    elif _WINDOWS_DRIVE.match(text) or text.startswith(("/", ".", "~")):
        path = text.replace("\\", "/")
    else:
        match = _SCP.match(text)
        if match is None:
            return None
        host, path = match["host"].lower(), match["path"]
    path = path.rstrip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    path = path.rstrip("/")
    if host:
        path = path.lstrip("/")
        return f"{host}/{path}" if path else None
    return path or None


def remote_project_id(url: str, subfolder: str = "") -> str | None:
    """The portable id of a workdir from its remote URL and its folder inside the repository
    ('' for the repository's top): two workdirs of one monorepo stay two projects."""
    repository = normalize_remote(url)
    if repository is None:
        return None
    place = subfolder.strip("/")
    return f"{GIT_PREFIX}{repository}" + (f"#{place}" if place and place != "." else "")


def valid_project_id(text: str) -> str | None:
    """The id an id file holds (its first line, trimmed), or None when it holds none: empty,
    longer than PROJECT_ID_MAX_CHARS, or with control characters."""
    lines = text.splitlines()
    value = lines[0].strip() if lines else ""
    if not value or len(value) > config.PROJECT_ID_MAX_CHARS or _CONTROL.search(value):
        return None
    return value


@dataclass
class ProjectMergeMove:
    """One memory file of a merged folder: what became of it.

    `action`: "moved" (same slug in the target), "deduplicated" (the target had the same text:
    the copy was deleted, its history keeps it), "renamed" (the target's slug holds another
    text: kept as `slug`, unreviewed, beside it).
    """

    source: str  # its path, relative to the store
    from_slug: str
    slug: str  # its slug in the target
    action: str
    path: str | None = None  # where it is now (None when deduplicated)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class ProjectMergeResult:
    """What `project_merge` did (or, with `dry_run`, would do)."""

    workdir: str
    project_id: str
    target: str  # the folder every memory went to
    merged: list[str]  # the folders merged into it
    dry_run: bool
    moves: list[ProjectMergeMove] = dataclasses.field(default_factory=list)
    episodes: int = 0  # episodes filed under a merged folder, now under the target
    paths_added: list[str] = dataclasses.field(default_factory=list)  # the target marker gains
    removed: list[str] = dataclasses.field(default_factory=list)  # folders emptied and removed
    kept: dict[str, str] = dataclasses.field(default_factory=dict)  # folder -> why it stays
    problems: list[dict[str, str]] = dataclasses.field(default_factory=list)  # {path,code,message}

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["moves"] = [m.to_dict() for m in self.moves]
        return out

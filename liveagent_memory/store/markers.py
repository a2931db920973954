"""A project folder's `.workdir.json`: the reference's `{path, createdAt}` plus what makes a
project portable (issue 19): `projectId`, and `paths`, every folder the project was seen at.

The only reader and writer of the marker. `path` keeps the reference's meaning (the folder the
project was first written from; LiveAgent reads it), so new keys are added beside it and keys
this program does not know are kept on rewrite. A marker that is not a JSON object with a
`path` string is a ProjectMarkerInvalid, never rewritten: loses nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.errors import ProjectMarkerInvalid
from liveagent_memory.domain.projects import ProjectPath
from liveagent_memory.store.files import atomic_write, is_utf8_name


@dataclass
class ProjectMarker:
    """What a project folder's `.workdir.json` says."""

    path: str  # REFERENCE A1: the workdir the folder was made for
    created_at: str | None = None
    project_id: str | None = None  # the portable id (domain/projects.py), once known
    paths: list[ProjectPath] = field(default_factory=list)  # every folder it was seen at
    extra: dict[str, Any] = field(default_factory=dict)  # keys of others, kept on rewrite

    def seen_paths(self) -> list[ProjectPath]:
        """Every folder the project was seen at; an old marker's `path` alone."""
        if any(p.path == self.path for p in self.paths):
            return list(self.paths)
        return [ProjectPath(self.path, None, self.created_at), *self.paths]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.extra, "path": self.path}
        if self.created_at is not None:
            out["createdAt"] = self.created_at
        if self.project_id is not None:
            out["projectId"] = self.project_id
        if self.paths:
            out["paths"] = [_path_json(p) for p in self.paths]
        return out


def marker_file(project_dir: Path) -> Path:
    return project_dir / config.WORKDIR_MARKER_FILENAME


def load_marker(project_dir: Path) -> ProjectMarker | None:
    """The folder's marker; None when it has none. Raises ProjectMarkerInvalid when the file
    is unreadable or not a marker (not JSON, not an object, no usable `path`)."""
    path = marker_file(project_dir)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (FileNotFoundError, NotADirectoryError):  # no marker, or a stray file in projects/
        return None
    except (OSError, ValueError) as exc:
        raise ProjectMarkerInvalid(f"{path} is not readable JSON: {exc}") from exc
    return _from_json(data, str(path))


def _from_json(data: object, where: str) -> ProjectMarker:
    """A marker from its parsed JSON; ProjectMarkerInvalid (naming `where`) when it is none."""
    if not isinstance(data, dict):
        raise ProjectMarkerInvalid(f"{where} is not a JSON object")
    workdir = data.get("path")
    if not _usable(workdir):
        # A JSON escape can spell a lone surrogate or NUL: not a usable folder name.
        raise ProjectMarkerInvalid(f"{where} has no usable 'path'")
    created = data.get("createdAt")
    project_id = data.get("projectId")
    extra = {k: v for k, v in data.items() if k not in ("path", "createdAt", "projectId", "paths")}
    paths: list[ProjectPath] = []
    raw_paths = data.get("paths")
    if isinstance(raw_paths, list):
        paths = [p for p in map(_read_path, raw_paths) if p is not None]
    elif raw_paths is not None:
        extra["paths"] = raw_paths  # not ours to understand: kept as it was
    return ProjectMarker(
        path=workdir.strip(),
        created_at=created if isinstance(created, str) else None,
        project_id=project_id.strip() if _usable(project_id) else None,
        paths=paths,
        extra=extra,
    )


def read_workdir_marker(project_dir: Path) -> str | None:
    """Return the workdir recorded in a project's `.workdir.json`, if readable."""
    try:
        marker = load_marker(project_dir)
    except ProjectMarkerInvalid:
        return None
    return marker.path if marker else None


def write_workdir_marker(
    project_dir: Path,
    workdir: str,
    now_ms: int,
    *,
    project_id: str | None = None,
    machine: str | None = None,
) -> None:
    """Record which workdir a new project folder belongs to (once; REFERENCE A1), with its
    portable id and the first path it was seen at."""
    if marker_file(project_dir).exists():
        return
    stamp = format_rfc3339(now_ms)
    marker = ProjectMarker(
        path=workdir,
        created_at=stamp,
        project_id=project_id,
        paths=[ProjectPath(workdir, machine, stamp)],
    )
    _save(project_dir, marker)


def record_seen(
    project_dir: Path,
    workdir: str,
    now_ms: int,
    *,
    project_id: str | None,
    machine: str | None,
) -> bool:
    """Add `workdir` to the marker's paths and the portable id when it has none; True when
    the marker changed. A folder without a marker gets none here (the first write makes it);
    a bad marker raises ProjectMarkerInvalid and stays as it is."""
    marker = load_marker(project_dir)
    if marker is None:
        return False
    changed = False
    if project_id is not None and marker.project_id is None:
        marker.project_id, changed = project_id, True
    seen = marker.seen_paths()
    if not any(p.path == workdir for p in seen):
        seen.append(ProjectPath(workdir, machine, format_rfc3339(now_ms)))
        changed = True
    if changed:
        marker.paths = seen[-config.PROJECT_PATHS_MAX :]  # an old marker's `path` listed too
        _save(project_dir, marker)
    return changed


def merged_marker_text(ours: str, theirs: str) -> str | None:
    """One `.workdir.json` from two machines' versions (a git sync that met both): ours, with
    the portable id of theirs when ours has none and every path either has seen, each once.
    None when either is not a marker (the caller keeps both files as they are)."""
    mine, other = _parsed(ours), _parsed(theirs)
    if mine is None or other is None:
        return None
    if mine.project_id is None:
        mine.project_id = other.project_id
    seen = mine.seen_paths()
    known = {p.path for p in seen}
    seen += [p for p in other.seen_paths() if p.path not in known]
    mine.paths = seen[-config.PROJECT_PATHS_MAX :]
    return json.dumps(mine.to_json(), indent=2, ensure_ascii=False)


def absorb_marker(project_dir: Path, other_dir: Path, *, dry_run: bool = False) -> list[str]:
    """Give `project_dir`'s marker what `other_dir`'s adds (`merged_marker_text`, the rule a
    sync uses), when a person merges the two folders; returns the paths it gains. Raises
    ProjectMarkerInvalid when either is not a marker (neither is then rewritten)."""
    ours, theirs = marker_file(project_dir), marker_file(other_dir)
    try:
        mine, other = ours.read_text("utf-8"), theirs.read_text("utf-8")
    except (OSError, ValueError) as exc:
        raise ProjectMarkerInvalid(f"{exc}") from exc
    merged = merged_marker_text(mine, other)
    before, after = _parsed(mine), _parsed(merged) if merged is not None else None
    if merged is None or before is None or after is None:
        raise ProjectMarkerInvalid(f"{ours} or {theirs} is not a project marker")
    known = {p.path for p in before.seen_paths()}
    added = [p.path for p in after.seen_paths() if p.path not in known]
    if not dry_run and (added or after.project_id != before.project_id):
        atomic_write(ours, merged.encode("utf-8"))
    return added


def _parsed(text: str) -> ProjectMarker | None:
    """A marker's text read as `load_marker` reads its file; None when it is not one."""
    try:
        return _from_json(json.loads(text), ".workdir.json")
    except (ValueError, ProjectMarkerInvalid):
        return None


def this_machine() -> str:
    """This machine's name in `paths`: `$LIVEAGENT_MEMORY_MACHINE`, else the host name."""
    return os.environ.get(config.MACHINE_ENV_VAR, "").strip() or os.uname().nodename


def _save(project_dir: Path, marker: ProjectMarker) -> None:
    payload = json.dumps(marker.to_json(), indent=2, ensure_ascii=False)
    atomic_write(marker_file(project_dir), payload.encode("utf-8"))


def _usable(value: object) -> TypeGuard[str]:
    """A non-empty string that can name a folder or an id (no lone surrogate, no NUL)."""
    return (
        isinstance(value, str)
        and bool(value.strip())
        and is_utf8_name(value)
        and ("\x00" not in value)
    )


def _read_path(raw: object) -> ProjectPath | None:
    """One `paths` item, `{path, machine?, seenAt?}`; None for anything else."""
    if not isinstance(raw, dict) or not _usable(raw.get("path")):
        return None
    machine, seen_at = raw.get("machine"), raw.get("seenAt")
    return ProjectPath(
        path=str(raw["path"]).strip(),
        machine=machine if isinstance(machine, str) else None,
        seen_at=seen_at if isinstance(seen_at, str) else None,
    )


def _path_json(p: ProjectPath) -> dict[str, str]:
    out = {"path": p.path}
    if p.machine:
        out["machine"] = p.machine
    if p.seen_at:
        out["seenAt"] = p.seen_at
    return out

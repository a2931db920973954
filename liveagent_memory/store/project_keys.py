"""Which project folder a workdir opens: the one rule every entry point goes through.

Issue 19, "Portable projects" (docs/ARCHITECTURE.md "Where each rule lives"). Opening workdir
W on a machine:

1. the folder named by W's hash (REFERENCE A1) exists → that folder, as LiveAgent reads it;
2. else a folder whose `.workdir.json` carries W's portable id (`project_identity.py`: the id
   file, else the git remote) → that folder: the memories written on another machine, or
   before the project moved, are found (the oldest such folder when there are several);
3. else a folder whose marker names W among its paths (a path whose hash changed);
4. else W's hash: a new project, its folder made by the first write.

The folder found records W in its marker's `paths` and the portable id when it had none
(`store/markers.py`). Folders are never renamed, so LiveAgent keeps reading the store. The
answer is kept per workdir in the StoreContext until the next reconcile (which is when files
synced from another machine come in), so a read does not rescan the markers.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from liveagent_memory.domain.errors import (
    MemoryDomainError,
    PathNotFound,
    ProjectMarkerInvalid,
    WorkdirRequired,
)
from liveagent_memory.domain.projects import ProjectPath, ProjectPinResult
from liveagent_memory.domain.schema import ProjectSummary, Scope
from liveagent_memory.paths import canonical_workdir, workdir_hash
from liveagent_memory.project_identity import (
    id_file,
    is_folder,
    new_pinned_id,
    portable_id,
    read_id_file,
    write_id_file,
)
from liveagent_memory.store.files import list_folder
from liveagent_memory.store.markers import ProjectMarker, load_marker, record_seen, this_machine

if TYPE_CHECKING:  # store/context.py keeps the answers and asks this module for new ones
    from liveagent_memory.store.context import StoreContext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProjectPlace:
    """Where a workdir's memories live: the folder's key, the workdir, its portable id."""

    key: str  # the project folder's name under projects/ (a workdir_hash)
    workdir: str  # canonical
    project_id: str | None  # None: the project is known by its path only


def resolve(ctx: StoreContext, workdir: str) -> ProjectPlace:
    """The project folder `workdir` opens on this machine (see the module docstring)."""
    canon = canonical_workdir(workdir)
    cached = ctx.places.get(canon)
    if cached is not None:
        return cached
    identity = portable_id(canon)
    own = workdir_hash(workdir)
    key = own
    if not ctx.layout.project_dir(own).is_dir():
        key = _known_folder(ctx, canon, identity) or own
    place = ProjectPlace(key=key, workdir=canon, project_id=identity)
    _record(ctx, place)
    ctx.places[canon] = place
    return place


def markers(ctx: StoreContext) -> dict[str, ProjectMarker | ProjectMarkerInvalid]:
    """Every project folder's marker by key; a bad one as its typed problem."""
    out: dict[str, ProjectMarker | ProjectMarkerInvalid] = {}
    for folder in list_folder(ctx.layout.projects_dir):
        try:
            marker = load_marker(folder)
        except ProjectMarkerInvalid as exc:
            out[folder.name] = exc
            continue
        if marker is not None:
            out[folder.name] = marker
    return out


def _known_folder(ctx: StoreContext, canon: str, identity: str | None) -> str | None:
    """A folder whose marker carries this portable id, else names this path."""
    found = {k: m for k, m in markers(ctx).items() if isinstance(m, ProjectMarker)}
    if identity is not None:
        same = sorted((m.created_at or "", k) for k, m in found.items() if m.project_id == identity)
        if same:
            return same[0][1]
    for key, marker in sorted(found.items()):
        for seen in marker.seen_paths():
            if seen.path == canon or canonical_workdir(seen.path) == canon:
                return key
    return None


def _record(ctx: StoreContext, place: ProjectPlace) -> None:
    """Add the path and the id to the folder's marker when it lacks them.

    Why it never fails the call: this is bookkeeping on a read; a read-only store, a busy
    lock or a bad marker (reported by the projects listing) must not hide the memories.
    """
    folder = ctx.layout.project_dir(place.key)
    try:
        marker = load_marker(folder)
        if marker is None:
            return
        has_path = any(p.path == place.workdir for p in marker.seen_paths())
        if has_path and (place.project_id is None or marker.project_id is not None):
            return
        with ctx.lock:
            record_seen(
                folder,
                place.workdir,
                ctx.now_ms(),
                project_id=place.project_id,
                machine=this_machine(),
            )
    except (MemoryDomainError, OSError) as exc:
        log.warning("project folder %s: its marker was not updated: %s", place.key, exc)


def pin(ctx: StoreContext, workdir: str) -> ProjectPinResult:
    """Write the workdir's id file, so the project is found on every machine even without a
    remote (`projects pin`: a person asks; nothing writes into a repository otherwise).

    The id is the one the project already has (its id file, its folder's recorded id, its
    remote's), else a new one; the folder records it. A bad id file is refused
    (ProjectIdInvalid) and left for the person to fix; a missing folder is PathNotFound.
    """
    if not workdir.strip():
        raise WorkdirRequired("pinning a project requires a workdir", field="workdir")
    canon = canonical_workdir(workdir)
    if not is_folder(canon):
        raise PathNotFound(f"no folder {canon!r} to pin (give its full path)", field="workdir")
    place = resolve(ctx, canon)
    existing = read_id_file(canon)
    project_id = existing
    if project_id is None:
        marker = _marker_or_none(ctx, place.key)
        project_id = (marker.project_id if marker else None) or place.project_id
        project_id = project_id or new_pinned_id()
        write_id_file(canon, project_id)
    ctx.places.pop(canon, None)
    _record(ctx, ProjectPlace(key=place.key, workdir=canon, project_id=project_id))
    return ProjectPinResult(
        workdir=canon,
        workdir_hash=place.key,
        project_id=project_id,
        id_file=str(id_file(canon)),
        written=existing is None,
    )


def _marker_or_none(ctx: StoreContext, key: str) -> ProjectMarker | None:
    try:
        return load_marker(ctx.layout.project_dir(key))
    except ProjectMarkerInvalid:
        return None


def group(rows: list[ProjectSummary], *, created: dict[str, str | None]) -> list[ProjectSummary]:
    """One row per portable project: rows of folders that carry one portable id are joined.

    The joined row is the folder a new path would open (the oldest, `created`), so "show
    memories" opens where a new clone's memories go; it counts every folder's memories and
    lists every path. Quota is per folder: the row shows the tightest folder's figures.
    """
    by_id: dict[str, list[ProjectSummary]] = {}
    out: list[ProjectSummary] = []
    for row in rows:
        if row.scope == Scope.PROJECT and row.project_id:
            by_id.setdefault(row.project_id, []).append(row)
        else:
            out.append(row)
    for same in by_id.values():
        same.sort(key=lambda r: (created.get(r.workdir_hash) or "", r.workdir_hash))
        out.append(_joined(same) if len(same) > 1 else same[0])
    return out


def _joined(rows: list[ProjectSummary]) -> ProjectSummary:
    """Rows of one portable project as one (the first is the folder that opens)."""
    first = rows[0]
    tightest = min(rows, key=lambda r: r.headroom)
    paths: dict[str, ProjectPath] = {}
    for row in rows:
        for seen in row.paths:
            paths.setdefault(seen.path, seen)
    counts = {kind: sum(r.counts.get(kind, 0) for r in rows) for kind in first.counts}
    stamps = [r.updated_at for r in rows if r.updated_at is not None]
    return dataclasses.replace(
        first,
        counts=counts,
        unreviewed=sum(r.unreviewed for r in rows),
        used=tightest.used,
        limit=tightest.limit,
        headroom=tightest.headroom,
        ladder=tightest.ladder,
        updated_at=max(stamps) if stamps else None,
        paths=list(paths.values()),
        folders=[r.workdir_hash for r in rows],
    )

"""One project, two folders: merging them when a person asks (issue 19, "Portable projects").

A project used on two machines before their first sync has two folders, `projects/<hashA>/`
and `projects/<hashB>/`, whose markers carry one portable id; a workdir opens only its own
(store/project_keys.py), so the other machine's memories are not searched. `merge` moves every
other folder of the project into the one the workdir opens (or a given one). It moves files,
so it never runs by itself (docs/ARCHITECTURE.md "Where each rule lives").

Each memory of a merged folder goes through the normal write path, one mutation per file, so
audit and history record it: created in the target as its file is (frontmatter and evidence
kept), then deleted from its folder into the target's .trash/ (the merged folder is removed,
its history must not be). A slug both folders hold: the same text → the copy is only deleted
(the target's history keeps it); another text → kept beside it as `<slug>-<short folder id>`,
unreviewed, so a person or the organizer sees the pair. Project folders hold no journal days
(REFERENCE A1: they are global/daily/ only), so there are none to merge here; a sync's journal
conflicts are store/sync.py's `merge_journal_texts`.

Episodes filed under a merged folder are filed again under the target (the index filters
episodes by folder). The target's marker gains the merged one's paths (`absorb_marker`, the
rule a sync uses); the merged folder's .trash/ and organizer snapshots join the target's, and
the emptied folder and its marker are removed. A file that cannot be moved is reported and
stays, with its folder and marker, so nothing is lost and nothing else stops.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    InvalidArgument,
    InvalidWorkdirHash,
    MemoryDomainError,
    NothingToMerge,
    ProjectMarkerInvalid,
    ProjectNotPortable,
    WorkdirRequired,
)
from liveagent_memory.domain.projects import ProjectMergeMove, ProjectMergeResult
from liveagent_memory.domain.requests import DeleteRequest, ProjectMergeRequest
from liveagent_memory.domain.schema import Actor, AuditOp, MemoryType, Scope
from liveagent_memory.store import episode_index, episodes, project_keys, rules, writes
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.documents import LoadedFile, load_file
from liveagent_memory.store.evidence import DocumentError, render_document
from liveagent_memory.store.files import (
    SKILLS_DIRNAME,
    SNAPSHOT_DIRNAME,
    TRASH_DIRNAME,
    list_folder,
    move_file,
)
from liveagent_memory.store.markers import ProjectMarker, absorb_marker, marker_file
from liveagent_memory.store.mutation import mutation
from liveagent_memory.store.resolve import check_quota
from liveagent_memory.store.rows import FileState

log = logging.getLogger(__name__)

_HISTORY_DIRS = (TRASH_DIRNAME, SNAPSHOT_DIRNAME)  # kept: they go to the target's


def merge(ctx: StoreContext, req: ProjectMergeRequest) -> ProjectMergeResult:
    """Merge every other folder carrying `req.workdir`'s project id into the target folder
    (see the module docstring). The caller holds the write lock and has reconciled."""
    if not req.workdir.strip():
        raise WorkdirRequired("merging a project's folders requires a workdir", field="workdir")
    place = project_keys.resolve(ctx, req.workdir)
    target = place.key
    if req.target is not None:
        target = rules.normalize_workdir_hash(req.target) or ""
        if not ctx.layout.project_dir(target).is_dir():
            raise InvalidWorkdirHash(f"no project folder {req.target!r}", field="target")
    found = project_keys.markers(ctx)
    own = found.get(target)
    if isinstance(own, ProjectMarkerInvalid):
        raise own
    own_id = own.project_id if own else None
    project_id = own_id or place.project_id
    # A path of another machine has no id here: the target's marker then says which project.
    if req.target is not None and place.project_id is not None and own_id != place.project_id:
        raise InvalidArgument(
            f"project folder {target} is another project's, not {place.workdir}'s", field="target"
        )
    if project_id is None:
        raise ProjectNotPortable(
            f"{place.workdir} has no portable id (no git remote, no .liveagent/project-id): "
            "no other folder can be known to hold it; `projects pin` gives it one",
            field="workdir",
        )
    others = sorted(
        key
        for key, marker in found.items()
        if key != target and isinstance(marker, ProjectMarker) and marker.project_id == project_id
    )
    if not others:
        raise NothingToMerge(
            f"project {project_id} has no folder besides {target} to merge", field="workdir"
        )
    result = ProjectMergeResult(
        workdir=place.workdir,
        project_id=project_id,
        target=target,
        merged=others,
        dry_run=req.dry_run,
    )
    counted: dict[tuple[str, str], int] = {}  # the target's memories, each move added once
    for other in others:
        _merge_folder(ctx, result, other, counted)
    ctx.places.clear()  # every workdir of the merged folders now opens the target
    return result


def _merge_folder(
    ctx: StoreContext, result: ProjectMergeResult, other: str, counted: dict[tuple[str, str], int]
) -> None:
    """Move one folder's memories, episodes, history and paths into the target."""
    target, dry = result.target, result.dry_run
    prefix = f"{ctx.layout.relpath(ctx.layout.project_dir(other))}/"
    with ctx.index.read() as conn:
        states = [s for p, s in sorted(ctx.index.file_states(conn).items()) if p.startswith(prefix)]
    taken: set[str] = set()  # slugs this merge gave in the target (a dry run writes none)
    for state in states:
        if state.problem is not None or state.slug is None:
            result.problems.append(
                {"path": state.path, "code": "unreadable", "message": state.problem or ""}
            )
            continue
        try:
            move = _move(ctx, state, target, other, taken, counted, dry=dry)
        except (MemoryDomainError, DocumentError, OSError, UnicodeDecodeError) as exc:
            # One file that cannot move stays where it is; the others go on. "unreadable" is
            # the code the projects listing gives a file it cannot read (retrieval/projects.py).
            code = exc.code if isinstance(exc, MemoryDomainError) else "unreadable"
            result.problems.append({"path": state.path, "code": code, "message": str(exc)})
            continue
        taken.add(move.slug)
        result.moves.append(move)
    result.episodes += _refile_episodes(ctx, other, target, dry=dry)
    try:
        result.paths_added += absorb_marker(
            ctx.layout.project_dir(target), ctx.layout.project_dir(other), dry_run=dry
        )
    except ProjectMarkerInvalid as exc:
        result.kept[other] = exc.message
        return
    if not dry:
        _remove_folder(ctx, result, other)


def _move(
    ctx: StoreContext,
    state: FileState,
    target: str,
    other: str,
    taken: set[str],
    counted: dict[tuple[str, str], int],
    *,
    dry: bool,
) -> ProjectMergeMove:
    """Move one memory file into the target (or, `dry`, say where it would go).

    The target's quota holds as for any write (QuotaExceeded; `counted` keeps its count as a
    batch does, so it is counted once): a memory over it stays in its folder, reported, until
    the person or the organizer makes room and merges again."""
    source = ctx.layout.abspath(state.path)
    loaded = load_file(source)
    doc = loaded.doc
    slug = state.slug or ""
    in_skills = f"/{SKILLS_DIRNAME}/" in state.path
    memory_type = doc.meta.type or MemoryType.PROJECT.value
    if in_skills:
        memory_type = MemoryType.SKILL.value
    with ctx.index.read() as conn:
        there = ctx.index.path_for_key(conn, Scope.PROJECT.value, target, slug)
    action, new_slug = "moved", slug
    if there is not None or slug in taken:
        kept = load_file(ctx.layout.abspath(there)).doc if there is not None else None
        same = kept is not None and (kept.body.strip(), kept.meta.description) == (
            doc.body.strip(),
            doc.meta.description,
        )
        action = "deduplicated" if same else "renamed"
        if not same:
            new_slug = _free_slug(ctx, slug, target, other, taken)
    path = ctx.layout.path_for(Scope.PROJECT.value, target, memory_type, new_slug)
    move = ProjectMergeMove(
        source=state.path,
        from_slug=slug,
        slug=new_slug,
        action=action,
        path=None if action == "deduplicated" else ctx.layout.relpath(path),
    )
    if action != "deduplicated":
        with ctx.index.read() as conn:
            check_quota(ctx, conn, Scope.PROJECT.value, target, counted)
    if dry:
        _one_more(counted, target, action)
        return move
    _write(ctx, loaded, move, memory_type, target=target, other=other)
    _one_more(counted, target, action)  # only once the move is in: a failed one took no room
    return move


def _write(
    ctx: StoreContext,
    loaded: LoadedFile,
    move: ProjectMergeMove,
    memory_type: str,
    *,
    target: str,
    other: str,
) -> None:
    """One mutation: the memory written into the target as `move` says (its file as it is, or
    renamed and unreviewed), then deleted from its folder into the target's .trash/."""
    doc = loaded.doc
    with mutation(ctx) as changes, ctx.index.write() as conn:
        now = ctx.now_ms()
        reason = f"merged into project folder {target} (issue 19)"
        if move.action != "deduplicated":
            path = ctx.layout.abspath(move.path or "")
            writes.refuse_foreign_file(ctx, path)
            text = loaded.raw.decode("utf-8")
            if move.action == "renamed":
                # Beside the target's own: unreviewed, so a person or the organizer sees both.
                doc.meta.name = move.slug
                doc.meta.source = {**(doc.meta.source or {}), "unreviewed": True}
                text = render_document(doc)
            ctx.layout.check_inside(path)
            row, _ = writes.save_text(
                ctx,
                conn,
                changes,
                path,
                text,
                scope=Scope.PROJECT.value,
                project=target,
                name=move.slug,
            )
            detail = {
                "type": memory_type,
                "after_hash": row.sha256,
                "path": row.path,
                "merged_from": move.source,
                "reason": reason,
            }
            key = (Scope.PROJECT.value, target, move.slug)
            actor = Actor.USER.value
            writes.audit(ctx, conn, AuditOp.WRITE, key, actor=actor, ts=now, detail=detail)
        writes.delete(
            ctx,
            conn,
            changes,
            DeleteRequest(
                slug=move.from_slug,
                scope=Scope.PROJECT.value,
                workdir_hash=other,
                actor=Actor.USER.value,
                reason=reason,
            ),
            trash_to=ctx.layout.trash_dir(Scope.PROJECT.value, target),
        )


def _one_more(counted: dict[tuple[str, str], int], target: str, action: str) -> None:
    if action != "deduplicated":
        counted[(Scope.PROJECT.value, target)] += 1


def _free_slug(ctx: StoreContext, slug: str, target: str, other: str, taken: set[str]) -> str:
    """`<slug>-<short id of the other folder>`, numbered on when that is taken too."""
    suffix = other[: config.PROJECT_MERGE_SUFFIX_CHARS]
    base = f"{slug[: config.MAX_SLUG_CHARS - len(suffix) - 4].rstrip('-')}-{suffix}"
    with ctx.index.read() as conn:
        for n in range(1, 1000):
            name = base if n == 1 else f"{base}-{n}"
            if name not in taken and not ctx.index.path_for_key(
                conn, Scope.PROJECT.value, target, name
            ):
                return rules.normalize_slug(name)
    raise InvalidArgument(f"no free slug for {slug!r} in project folder {target}")


def _refile_episodes(ctx: StoreContext, other: str, target: str, *, dry: bool) -> int:
    """File the episodes of folder `other` under `target` (the index filters by folder)."""
    ids = episode_index.ids_of_project(ctx.index, other)
    if dry:
        return len(ids)
    moved = 0
    for episode_id in ids:
        try:
            episode, _ = episodes.read(ctx.layout, ctx.index, episode_id)
            refiled = dataclasses.replace(episode, workdir_hash=target)
            with ctx.lock:
                episodes.record(ctx.layout, ctx.index, refiled, replace=True)
            moved += 1
        except MemoryDomainError as exc:
            # An unreadable episode stays under its folder's hash; its listing reports it.
            log.warning("episode %s not filed under %s: %s", episode_id, target, exc)
    return moved


def _remove_folder(ctx: StoreContext, result: ProjectMergeResult, other: str) -> None:
    """Move the folder's history to the target's, then remove it when nothing else is left."""
    folder, into = ctx.layout.project_dir(other), ctx.layout.project_dir(result.target)
    for name in _HISTORY_DIRS:
        for path in list_folder(folder / name):
            if path.is_file() and not path.is_symlink():
                move_file(path, into / name, path.name)
        with contextlib.suppress(OSError):
            (folder / name).rmdir()
    with contextlib.suppress(OSError):
        (folder / SKILLS_DIRNAME).rmdir()
    with contextlib.suppress(FileNotFoundError):
        (folder / config.SCOPE_INDEX_FILENAME).unlink()  # generated, of no memory now
    left = sorted(p.name for p in list_folder(folder) if p != marker_file(folder))
    if left:
        result.kept[other] = f"it still holds {', '.join(left)}"
        return
    marker_file(folder).unlink(missing_ok=True)
    try:
        os.rmdir(folder)
    except OSError as exc:
        result.kept[other] = str(exc)
        return
    with ctx.lock, ctx.index.write() as conn:
        ctx.index.clear_dirty(conn, Scope.PROJECT.value, other)
    result.removed.append(other)

"""Keeping the store in order: reconcile, rebuilding a damaged index, deleting a project,
wiping everything, and dropping old snapshots and wipe backups (REFERENCE A1)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MS_PER_DAY
from liveagent_memory.domain.errors import WorkdirRequired
from liveagent_memory.domain.requests import DeleteProjectRequest
from liveagent_memory.domain.schema import Actor, AuditOp, Problem, ReconcileReport
from liveagent_memory.store import episode_reconcile, rules, scope_index, sync
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.damage import IndexDamaged
from liveagent_memory.store.files import (
    ensure_private_dir,
    list_folder,
    move_file,
    store_unavailable,
)
from liveagent_memory.store.index import Index, OpenReport
from liveagent_memory.store.reconcile import reconcile as reconcile_memories
from liveagent_memory.store.resolve import count_ordinary
from liveagent_memory.store.writes import audit, normalize_actor

log = logging.getLogger(__name__)


def reconcile(ctx: StoreContext, *, full: bool) -> ReconcileReport:
    """Bring the index in line with the memory and episode files (the caller holds the lock);
    the report is also kept as `ctx.last_reconcile`."""
    report = reconcile_memories(
        ctx.layout,
        ctx.index,
        full=full,
        today=ctx.today(),
        now_ms=ctx.now_ms(),
        refresh_scope=functools.partial(scope_index.refresh, ctx),
        retention_days=ctx.limits.retention_days,
    )
    # A journal day edited on two machines: its entries joined, the copy gone (store/sync.py).
    if sync.merge_journals(ctx):
        with ctx.index.read() as conn:
            current = ctx.index.problems(conn)
        report = dataclasses.replace(report, problems=[Problem(p, r) for p, r in current])
    # Episode files in the same pass and report (store/episode_reconcile.py).
    episodes = episode_reconcile.reconcile(ctx.layout, ctx.index, full=full)
    ctx.last_reconcile = episode_reconcile.merge_report(report, episodes)
    # Folders synced in from another machine may now hold a workdir's project (issue 19).
    ctx.places.clear()
    return ctx.last_reconcile


def rebuild_damaged(ctx: StoreContext, damage: IndexDamaged) -> None:
    """Quarantine an index found damaged while in use and rebuild it from the files.

    Its audit log and run history are copied over when still readable. If another
    process already replaced the file, this one just reconnects to it.
    """
    with ctx.lock:
        log.warning("the memory index is damaged (%s); rebuilding it from the files", damage)
        ctx.index, moved = ctx.index.replace_damaged(ctx.now_ms())
        if moved is not None:
            ctx.open_report = OpenReport(True, str(moved), None)
            reconcile(ctx, full=True)


def delete_project(ctx: StoreContext, req: DeleteProjectRequest) -> dict[str, Any]:
    """Move a whole project's memories to .quarantine/ (REFERENCE delete_project)."""
    actor = normalize_actor(req.actor, default=Actor.USER)
    rules.refuse_secret_fields(req.model_dump(), what="memory_delete_project")
    if not req.workdir.strip():
        raise WorkdirRequired("project memory deletion requires a workdir", field="workdir")
    project = ctx.place_of(req.workdir).key
    folder = ctx.layout.project_dir(project)
    now = ctx.now_ms()
    with ctx.lock, ctx.index.write() as conn:
        prefix = f"projects/{project}/"
        paths = [p for p in ctx.index.file_states(conn) if p.startswith(prefix)]
        count = count_ordinary(conn, "project", project)
        quarantine: Path | None = None
        if folder.exists():
            quarantine = move_file(
                folder, ctx.layout.quarantine_dir, f"deleted-project-{project}-{now}"
            )
        for path in paths:
            ctx.index.remove(conn, path)
        if paths or quarantine is not None:
            detail: dict[str, Any] = {"workdir": req.workdir, "deletedCount": count}
            if quarantine is not None:
                detail["quarantinePath"] = ctx.layout.relpath(quarantine)
            if req.reason:
                detail["reason"] = req.reason
            key = ("project", project, "*")
            audit(ctx, conn, AuditOp.DELETE, key, actor=actor.value, ts=now, detail=detail)
        ctx.places.clear()  # the folder is gone: the next open chooses again
    return {
        "workdir_hash": project,
        "deleted_count": count,
        "quarantine_path": str(quarantine) if quarantine else None,
    }


def wipe_all(ctx: StoreContext) -> Path:
    """Move every memory, the index, the vector index and the retrieval metrics to
    .quarantine/wiped-{ms}/ and start empty; returns that folder."""
    now = ctx.now_ms()
    with ctx.lock:
        target = ctx.layout.quarantine_dir / f"wiped-{now}"
        ensure_private_dir(target)
        ctx.index.close()
        for name in (
            "global",
            "projects",
            config.EPISODES_DIRNAME,
            config.INDEX_FILENAME,
            f"{config.INDEX_FILENAME}-wal",
            f"{config.INDEX_FILENAME}-shm",
            config.VECTORS_DIRNAME,
            *(f"{config.METRICS_FILENAME}{s}" for s in ("", "-wal", "-shm", "-journal")),
        ):
            source = ctx.root / name
            if source.exists():
                try:
                    os.replace(source, target / name)
                except OSError as exc:
                    raise store_unavailable(exc, source) from exc
        ctx.layout.ensure()
        ctx.index, ctx.open_report = Index.open(ctx.layout, now_ms=now)
        reconcile(ctx, full=True)
        with ctx.index.write() as conn:
            detail = {"backup": ctx.layout.relpath(target)}
            key = ("global", "", "*")
            audit(ctx, conn, AuditOp.WIPE, key, actor=Actor.USER.value, ts=now, detail=detail)
    return target


def collect_garbage(ctx: StoreContext) -> None:
    """Drop organizer snapshots after 30 days and wipe backups after 7 (REFERENCE A1)."""
    now = ctx.now_ms()
    snapshot_cutoff = now - config.SNAPSHOT_RETENTION_DAYS * MS_PER_DAY
    folders = [ctx.layout.snapshot_dir("global", "")]
    folders += [
        ctx.layout.snapshot_dir("project", p.name) for p in list_folder(ctx.layout.projects_dir)
    ]
    for folder in folders:
        for path in list_folder(folder):
            stamp = path.name.split(".", 1)[0]
            if stamp.isdigit() and int(stamp) < snapshot_cutoff:
                with contextlib.suppress(OSError):
                    path.unlink()
    wipe_cutoff = now - config.WIPE_BACKUP_RETENTION_DAYS * MS_PER_DAY
    for path in list_folder(ctx.layout.quarantine_dir):
        stamp = path.name.removeprefix("wiped-")
        if path.name.startswith("wiped-") and stamp.isdigit() and int(stamp) < wipe_cutoff:
            shutil.rmtree(path, ignore_errors=True)

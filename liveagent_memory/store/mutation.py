"""One mutation of the store: the write lock held, its files put back if it fails.

Every change (write, update, delete, accept, journal append, restore, a batch) runs inside
`mutation(ctx)`: read the current file, write the new one atomically, index it, append to the
audit log; then the touched scopes' MEMORY.md are regenerated (store/scope_index.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from liveagent_memory.domain.errors import MemoryDomainError, StoreUnavailable
from liveagent_memory.store import scope_index
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.files import FileChanges, fsync_dir
from liveagent_memory.store.index import FtsBuffer

log = logging.getLogger(__name__)


@dataclass
class Changes:
    """What a mutation touched: its files (to flush, or to put back if it fails) and the
    scopes whose MEMORY.md to refresh."""

    files: FileChanges
    scopes: set[tuple[str, str]] = field(default_factory=set)
    fts: FtsBuffer | None = None  # a batch chunk's full-text rows, written at its end
    # A batch's ordinary-memory counts per (scope, project), see resolve.check_quota.
    quota: dict[tuple[str, str], int] | None = None


@contextlib.contextmanager
def mutation(ctx: StoreContext, *, deferred: bool = False) -> Iterator[Changes]:
    """Hold the write lock for one mutation; if it fails, put its files back.

    `deferred` (a batch): file writes wait in temp files until the caller flushes them
    together before each index commit (FileChanges); any still pending at the end are
    flushed before the call returns, so every file is durable when it does.

    An error means nothing changed (or says what did: the files that could not be put
    back). MEMORY.md is refreshed after the commit; a refresh that fails is left to the
    next reconcile (the scope stays marked dirty) instead of turning a saved change into
    an error.
    """
    with ctx.lock:
        changes = Changes(FileChanges(ctx.layout, deferred=deferred))
        try:
            yield changes
            changes.files.flush()
        except BaseException as exc:
            stuck = changes.files.rollback()
            if stuck and isinstance(exc, MemoryDomainError):
                exc.message += (
                    f" (the change could not be taken back from {', '.join(stuck)}; "
                    "the next reconcile indexes what is there)"
                )
                exc.args = (exc.message,)
            raise
        finally:
            for folder in sorted(changes.files.dirs):
                fsync_dir(folder)
            for scope, project in sorted(changes.scopes):
                try:
                    scope_index.refresh(ctx, scope, project)
                except StoreUnavailable as exc:
                    log.warning("MEMORY.md of %s %s not refreshed: %s", scope, project, exc)

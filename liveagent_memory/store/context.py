"""What every concept module of the store shares: the layout, the index, the clock, the write
lock and the limits (store/store.py builds one per MemoryStore and passes it down)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from liveagent_memory.domain import clock as clockmod
from liveagent_memory.domain.clock import Clock
from liveagent_memory.domain.schema import ReconcileReport
from liveagent_memory.store import project_keys, rules
from liveagent_memory.store.episode_reads import EpisodeAccesses
from liveagent_memory.store.files import Layout
from liveagent_memory.store.index import Index, OpenReport
from liveagent_memory.store.locking import WriteLock
from liveagent_memory.store.markers import read_workdir_marker
from liveagent_memory.store.owners import RunOwner


@dataclass
class StoreLimits:
    """The store's tunable limits (defaults in domain/config.py)."""

    scope_limit: int  # ordinary memories per scope (SPEC 1.7 quota)
    rollover_hour: int  # before this local hour, the journal's today is still yesterday
    retention_days: int  # journals older than this move to the archive


@dataclass
class StoreContext:
    """One store's shared state. `index` is replaced when a damaged index is rebuilt or the
    store is wiped (store/maintenance.py, which also records what happened in `open_report`
    and `last_reconcile`), so modules read it from here at the time they need it."""

    layout: Layout
    index: Index
    open_report: OpenReport
    clock: Clock
    lock: WriteLock
    limits: StoreLimits
    # False for one-shot processes (the `call` command): they never run the organizer.
    executes_runs: bool = True
    last_reconcile: ReconcileReport | None = None
    # Episode reads not yet written to their files (store/episode_access.py).
    accesses: EpisodeAccesses = field(default_factory=EpisodeAccesses)
    # The project folder each workdir opened, until the next reconcile (store/project_keys.py).
    places: dict[str, project_keys.ProjectPlace] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.layout.root

    def now_ms(self) -> int:
        return self.clock()

    def today(self) -> date:
        """The journal's today (local date, before the rollover hour still yesterday)."""
        return clockmod.journal_date(self.clock(), self.limits.rollover_hour)

    def hash_of(self, workdir: str | None, explicit_hash: str | None) -> str | None:
        """The project a request names: its workdir_hash, else the folder its workdir opens
        (store/project_keys.py); None for none."""
        explicit = rules.normalize_workdir_hash(explicit_hash)
        if explicit:
            return explicit
        if workdir and workdir.strip():
            return self.place_of(workdir).key
        return None

    def place_of(self, workdir: str) -> project_keys.ProjectPlace:
        """The project folder a workdir opens on this machine, and the workdir's portable id."""
        return project_keys.resolve(self, workdir)

    def workdirs(self, hashes: set[str]) -> dict[str, str | None]:
        """The workdir each project folder records (its .workdir.json), by hash."""
        return {h: read_workdir_marker(self.layout.project_dir(h)) for h in hashes if h}

    def run_owner(self) -> RunOwner:
        """This process as the owner of the organizer runs it creates or claims."""
        return RunOwner.current() if self.executes_runs else RunOwner.one_shot()

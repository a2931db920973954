"""Organizer runs as a typed service: the rules a caller meets above the store's run table.

The store keeps the rows (store/runs.py: one active run, claims, leases, reaping). This module
holds what may be asked of them: a report is stored only as a valid v4 report (run_record.py is
the only parser of reports), a claimed due run is completed only with a final status, and a
listing is bounded. The named commands, the pipeline and the scheduler all come through here.
"""

from __future__ import annotations

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import RunCreateRequest, RunListRequest, RunUpdateRequest
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.organizer.run_record import parse_report
from liveagent_memory.store.runs import TERMINAL
from liveagent_memory.store.store import MemoryStore


def create_run(store: MemoryStore, req: RunCreateRequest) -> tuple[OrganizeRun, bool]:
    """Create a run and claim the organizer for it; (run, claimed). Not claimed: the row is
    recorded `skipped` because another run is active."""
    return store.organize_run_create(**req.model_dump())


def update_run(store: MemoryStore, req: RunUpdateRequest) -> OrganizeRun:
    """Record a run's progress (an update with only the run id renews its lease).

    A report is validated and stored normalized (InvalidArgument names its bad field; the row
    is left as it was).
    """
    fields = req.model_dump(exclude={"run_id"}, exclude_none=True)
    if "report" in fields:
        fields["report"] = parse_report(fields["report"]).to_dict()
    return store.organize_run_update(req.run_id, **fields)


def complete_due_run(store: MemoryStore, req: RunUpdateRequest) -> OrganizeRun:
    """Finish a claimed run: like `update_run`, but only with a final status."""
    if req.status not in TERMINAL:
        raise InvalidArgument(
            "A finished run needs a final status: succeeded, failed, skipped or cancelled",
            field="status",
        )
    return update_run(store, req)


def list_runs(store: MemoryStore, req: RunListRequest) -> list[OrganizeRun]:
    """Runs newest first, at most ORGANIZE_RUN_LIST_MAX (ORGANIZE_RUN_LIST_DEFAULT unless
    asked), with their reports left out."""
    limit = min(req.limit or config.ORGANIZE_RUN_LIST_DEFAULT, config.ORGANIZE_RUN_LIST_MAX)
    return store.organize_run_list(limit=limit, status=req.status)

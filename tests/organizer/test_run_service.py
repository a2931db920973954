"""organizer/runs.py: the rules above the store's run table, called as typed functions.

The pipeline and the scheduler call these directly (no command table in between), so each rule
that used to live in the `organize_*` commands is checked here at its new home: a report is
stored only valid and normalized, a due run completes only with a final status, a listing is
bounded, and a run's view carries its report as a typed view. Real stores, real SQLite.
"""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import RunCreateRequest, RunListRequest, RunUpdateRequest
from liveagent_memory.organizer.run_record import run_view
from liveagent_memory.organizer.runs import complete_due_run, create_run, list_runs, update_run
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

REPORT: dict[str, Any] = {
    "version": config.ORGANIZE_REPORT_VERSION,
    "clusterSummaries": [{"clusterId": "c1", "summary": "two notes about kiwis"}],
    "reviewItems": [
        {"phase": "planning", "kind": "error", "severity": "warning", "message": "m", "slug": None}
    ],
    "raw": [],
    "madeUpByAnotherWriter": True,
}


def running(store: MemoryStore) -> str:
    run, claimed = create_run(store, RunCreateRequest())
    assert claimed and run.status == "running"
    return run.run_id


def test_update_stores_a_report_normalized(store: MemoryStore) -> None:
    run_id = running(store)

    updated = update_run(store, RunUpdateRequest(run_id=run_id, phase="scan", report=REPORT))

    stored = store.organize_run_read(run_id)
    assert stored.report == updated.report
    assert stored.report is not None
    assert "madeUpByAnotherWriter" not in stored.report  # only the v4 fields are kept
    assert stored.report["reviewItems"] == [
        {"phase": "planning", "kind": "error", "severity": "warning", "message": "m"}
    ]
    assert (stored.phase, stored.status) == ("scan", "running")


@pytest.mark.parametrize(
    ("report", "field"),
    [
        ({"version": 3}, "report.version"),
        (
            {**REPORT, "reviewItems": [{**REPORT["reviewItems"][0], "phase": "later"}]},
            "report.reviewItems[0].phase",
        ),
        ({**REPORT, "rejectionBuckets": {"madeUp": 1}}, "report.rejectionBuckets"),
    ],
)
def test_update_refuses_a_bad_report_and_changes_nothing(
    store: MemoryStore, report: dict[str, Any], field: str
) -> None:
    run_id = running(store)
    before = store.organize_run_read(run_id)

    with pytest.raises(InvalidArgument) as caught:
        update_run(store, RunUpdateRequest(run_id=run_id, phase="plan", report=report))

    assert (caught.value.code, caught.value.field) == ("invalid_argument", field)
    assert store.organize_run_read(run_id) == before  # not even the phase was recorded


@pytest.mark.parametrize("status", [None, "running", "pending"])
def test_completing_a_due_run_needs_a_final_status(
    store: MemoryStore, clock: FakeClock, status: str | None
) -> None:
    create_run(store, RunCreateRequest(trigger="scheduled", due_at=clock.ms))
    claimed = store.organize_due_claim()
    assert claimed is not None

    with pytest.raises(InvalidArgument) as caught:
        complete_due_run(store, RunUpdateRequest(run_id=claimed.run_id, status=status))

    assert (caught.value.code, caught.value.field) == ("invalid_argument", "status")
    assert store.organize_run_read(claimed.run_id) == claimed


def test_completing_a_due_run_records_its_end(store: MemoryStore, clock: FakeClock) -> None:
    create_run(store, RunCreateRequest(trigger="scheduled", due_at=clock.ms))
    claimed = store.organize_due_claim()
    assert claimed is not None
    clock.advance(seconds=30)

    done = complete_due_run(
        store, RunUpdateRequest(run_id=claimed.run_id, status="succeeded", report=REPORT)
    )

    assert (done.status, done.finished_at) == ("succeeded", clock.ms)
    assert done.report is not None and "madeUpByAnotherWriter" not in done.report
    assert store.organize_run_read(claimed.run_id) == done


def test_listing_is_bounded_by_default_and_by_the_cap(store: MemoryStore, clock: FakeClock) -> None:
    with store.index.write() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
                "VALUES (:run_id, 'scheduled', 'succeeded', :created_at)"
            ),
            [
                {"run_id": f"run-{i:04d}", "created_at": clock.ms - i}
                for i in range(config.ORGANIZE_RUN_LIST_MAX + 1)
            ],
        )

    default = list_runs(store, RunListRequest())
    capped = list_runs(store, RunListRequest(limit=config.ORGANIZE_RUN_LIST_MAX + 1))
    some = list_runs(store, RunListRequest(limit=3, status="succeeded"))

    assert [len(default), len(capped)] == [
        config.ORGANIZE_RUN_LIST_DEFAULT,
        config.ORGANIZE_RUN_LIST_MAX,
    ]
    assert [run.run_id for run in some] == ["run-0000", "run-0001", "run-0002"]
    assert all(run.report is None for run in capped)  # listings leave reports out


def test_a_runs_view_carries_its_report_typed(store: MemoryStore) -> None:
    run_id = running(store)
    run = update_run(store, RunUpdateRequest(run_id=run_id, report=REPORT, final_summary="s"))

    view = run_view(run)

    assert view["report"]["legacy"] is False and view["report"]["summary"] == "s"
    assert view["report"]["report"] == run.report
    assert {k: v for k, v in view.items() if k != "report"} == {
        k: v for k, v in run.to_dict().items() if k != "report"
    }

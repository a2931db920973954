"""Organizer run records (REFERENCE A4 v4 columns, A10 semantics) through the store and commands.

One active run at a time; a create meanwhile leaves a `skipped` row (`already_running`); runs
still running after 6 h are failed (`stale_timeout`) whenever anyone looks; due claims start the
oldest due pending run. Real temp-dir stores, real SQLite, a hand-moved FakeClock.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.store import runs
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.runs import RunFinished, RunNotFound
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call_ok
from tests.helpers.diskstore import OLD_RUNS, create_reference_index, query
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import dead_owner

HOUR_MS = 3600 * 1000
STALE_MS = 6 * HOUR_MS
RUN_FIELDS = {
    "run_id",
    "trigger",
    "status",
    "created_at",
    "started_at",
    "finished_at",
    "due_at",
    "claimed_at",
    "scope",
    "mode",
    "input_count",
    "cluster_count",
    "safe_applied",
    "review_skipped",
    "created_count",
    "updated_count",
    "deleted_count",
    "merged_count",
    "parse_failures",
    "error",
    "final_summary",
    "phase",
    "final_count",
    "compression_ratio",
    "compression_target",
    "dry_run",
    "token_usage_total",
    "quota_headroom_at_start",
    "override_reviewed",
    "model",
    "owner_host",  # issue 12: who executes a running run, and until when its lease holds
    "owner_pid",
    "lease_until",
    "outcome",  # how it ended, as codes and figures (organizer/run_record.py run_outcome)
}
V4_REPORT = {
    "version": 4,
    "clusterSummaries": [{"clusterId": "c1", "summary": "two notes about kiwis"}],
    "reviewItems": [],
    "raw": [],
}


# --- helpers ----------------------------------------------------------------------------------


def create(store: MemoryStore, **payload: Any) -> tuple[dict[str, Any], bool]:
    out = dispatch(store, "organize_run_create", payload)
    return out["run"], out["claimed"]


def update(store: MemoryStore, run_id: str, **payload: Any) -> dict[str, Any]:
    run: dict[str, Any] = dispatch(store, "organize_run_update", {"run_id": run_id, **payload})[
        "run"
    ]
    return run


def read(store: MemoryStore, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]
    return run


def listed(store: MemoryStore, **payload: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = dispatch(store, "organize_run_list", payload)["runs"]
    return rows


def fail(store: MemoryStore, name: str, payload: dict[str, Any]) -> dict[str, Any]:
    ok, out = call(store, name, payload)
    assert not ok, out
    return out


def insert_run(
    store: MemoryStore,
    run_id: str,
    *,
    status: str,
    created_at: int,
    due_at: int | None = None,
    started_at: int | None = None,
    report_json: str = "{}",
    model_json: str | None = None,
) -> None:
    """Write a row the way another writer (LiveAgent, an older version) would."""
    with store.index.write() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at, "
                "started_at, due_at, model_json, trimmed_protocol_json) VALUES "
                "(:run_id, 'scheduled', :status, :created_at, :started_at, :due_at, :model, "
                ":report)"
            ),
            {
                "run_id": run_id,
                "status": status,
                "created_at": created_at,
                "started_at": started_at,
                "due_at": due_at,
                "model": model_json,
                "report": report_json,
            },
        )


# --- create -----------------------------------------------------------------------------------


def test_create_claims_a_running_run_with_defaults(store: MemoryStore, clock: FakeClock) -> None:
    run, claimed = create(store)

    assert claimed is True
    assert run["run_id"].startswith(f"run-{clock.ms}-")
    assert run["status"] == "running"
    assert run["created_at"] == run["started_at"] == clock.ms
    assert run["finished_at"] is None and run["claimed_at"] is None and run["due_at"] is None
    assert run["error"] is None and run["phase"] is None
    assert (run["trigger"], run["scope"], run["mode"]) == ("manual", "all", "conservative")
    assert run["dry_run"] is False and run["override_reviewed"] is False
    assert run["model"] is None
    assert run["report"] == {"legacy": False, "report": None, "summary": ""}
    assert read(store, run["run_id"]) == run


def test_create_records_the_requested_settings(store: MemoryStore) -> None:
    model = {"provider": "openai", "model": "gpt-4o-mini"}
    run, claimed = create(
        store,
        trigger="scheduled",
        scope="current-project",
        mode="aggressive",
        model=model,
        dry_run=True,
        override_reviewed=True,
    )

    assert claimed is True
    stored = read(store, run["run_id"])
    assert stored["trigger"] == "scheduled"
    assert (stored["scope"], stored["mode"]) == ("current-project", "aggressive")
    assert stored["model"] == model
    assert stored["dry_run"] is True and stored["override_reviewed"] is True


def test_create_with_due_at_is_pending_and_not_started(
    store: MemoryStore, clock: FakeClock
) -> None:
    due = clock.ms + HOUR_MS
    run, claimed = create(store, trigger="scheduled", due_at=due)

    assert claimed is True
    assert run["status"] == "pending"
    assert run["due_at"] == due
    assert run["started_at"] is None and run["finished_at"] is None


@pytest.mark.parametrize("first", ["running", "pending"])
def test_second_create_while_one_is_active_is_a_skipped_row(
    store: MemoryStore, clock: FakeClock, first: str
) -> None:
    first_payload = {"due_at": clock.ms + HOUR_MS} if first == "pending" else {}
    active, _ = create(store, **first_payload)
    clock.advance(seconds=30)

    skipped, claimed = create(store, trigger="scheduled")

    assert claimed is False
    assert skipped["status"] == "skipped"
    assert skipped["error"] == runs.ALREADY_RUNNING == "already_running"
    assert skipped["finished_at"] == clock.ms
    assert skipped["started_at"] is None
    assert skipped["trigger"] == "scheduled"
    history = listed(store)
    assert [r["run_id"] for r in history] == [skipped["run_id"], active["run_id"]]
    assert [r["status"] for r in history] == ["skipped", first]
    assert read(store, active["run_id"])["status"] == first


@pytest.mark.parametrize("final", ["succeeded", "failed", "cancelled"])
def test_after_the_active_run_finishes_a_new_create_claims(
    store: MemoryStore, clock: FakeClock, final: str
) -> None:
    first, _ = create(store)
    update(store, first["run_id"], status=final)
    clock.advance(seconds=1)

    second, claimed = create(store)

    assert claimed is True
    assert second["status"] == "running"
    assert second["run_id"] != first["run_id"]


def test_a_skipped_row_does_not_block_the_next_claim(store: MemoryStore) -> None:
    first, _ = create(store)
    _, claimed = create(store)
    assert claimed is False
    update(store, first["run_id"], status="succeeded")

    third, claimed = create(store)

    assert claimed is True
    assert third["status"] == "running"


# --- update -----------------------------------------------------------------------------------


def test_update_records_phase_counters_ratio_summary_and_report(
    store: MemoryStore,
) -> None:
    run, _ = create(store)
    counts = {name: index + 1 for index, name in enumerate(runs.UPDATABLE_INT)}

    updated = update(
        store,
        run["run_id"],
        phase="plan",
        counts=counts,
        compression_ratio=0.75,
        final_summary="merged 3 notes",
        report=V4_REPORT,
    )

    stored = read(store, run["run_id"])
    assert stored == updated
    assert stored["phase"] == "plan"
    assert {name: stored[name] for name in runs.UPDATABLE_INT} == counts
    assert stored["compression_ratio"] == pytest.approx(0.75)
    assert stored["final_summary"] == "merged 3 notes"
    assert stored["report"] == {
        "legacy": False,
        "report": V4_REPORT,
        "summary": "merged 3 notes",
    }
    # Progress is not an ending.
    assert stored["status"] == "running" and stored["finished_at"] is None


def test_partial_updates_keep_earlier_values(store: MemoryStore) -> None:
    run, _ = create(store)
    update(store, run["run_id"], phase="scan", counts={"input_count": 40})
    update(store, run["run_id"], phase="cluster", counts={"cluster_count": 5})
    update(store, run["run_id"], report=V4_REPORT)
    update(store, run["run_id"], final_summary="done")

    stored = read(store, run["run_id"])
    assert stored["phase"] == "cluster"
    assert (stored["input_count"], stored["cluster_count"]) == (40, 5)
    assert stored["report"]["report"] == V4_REPORT
    assert stored["final_summary"] == "done"


@pytest.mark.parametrize("phase", list(runs.PHASES))
def test_every_phase_is_accepted(store: MemoryStore, phase: str) -> None:
    run, _ = create(store)
    assert update(store, run["run_id"], phase=phase)["phase"] == phase


def test_finishing_sets_finished_at_once(store: MemoryStore, clock: FakeClock) -> None:
    run, _ = create(store)
    clock.advance(hours=1)
    finished_at = clock.ms

    done = update(store, run["run_id"], status="succeeded", phase="done")
    clock.advance(hours=1)
    again = update(store, run["run_id"], status="succeeded", final_summary="written later")

    assert done["finished_at"] == finished_at
    assert again["finished_at"] == finished_at
    assert again["status"] == "succeeded"
    assert again["final_summary"] == "written later"
    assert again["started_at"] == run["started_at"]


def test_a_pending_run_set_running_gets_started_at(store: MemoryStore, clock: FakeClock) -> None:
    run, _ = create(store, due_at=clock.ms)
    clock.advance(seconds=5)

    started = update(store, run["run_id"], status="running")

    assert started["status"] == "running"
    assert started["started_at"] == clock.ms
    assert started["finished_at"] is None


@pytest.mark.parametrize(
    ("final", "new"),
    [
        ("succeeded", "running"),
        ("succeeded", "failed"),
        ("failed", "succeeded"),
        ("cancelled", "pending"),
        ("skipped", "running"),
    ],
)
def test_a_finished_run_cannot_change_status(
    store: MemoryStore, clock: FakeClock, final: str, new: str
) -> None:
    if final == "skipped":
        create(store)
        run, claimed = create(store)
        assert claimed is False
    else:
        run, _ = create(store)
        run = update(store, run["run_id"], status=final)
    clock.advance(hours=1)

    with pytest.raises(RunFinished) as caught:
        store.organize_run_update(run["run_id"], status=new)
    error = fail(store, "organize_run_update", {"run_id": run["run_id"], "status": new})

    assert caught.value.code == error["error"] == "run_finished"
    stored = read(store, run["run_id"])
    assert stored["status"] == final
    assert stored["finished_at"] == run["finished_at"]


# --- invalid input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"trigger": "hourly"}, "trigger"),
        ({"trigger": "memory-organize"}, "trigger"),
        ({"scope": "project"}, "scope"),
        ({"scope": ""}, "scope"),
        ({"mode": "reckless"}, "mode"),
        ({"mode": "Standard"}, "mode"),
        ({"due_at": -1}, "due_at"),
        ({"dry_run": "maybe"}, "dry_run"),
        ({"model": "gpt-4o"}, "model"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_create_rejects_bad_input_and_stores_nothing(
    store: MemoryStore, payload: dict[str, Any], field: str
) -> None:
    error = fail(store, "organize_run_create", payload)

    assert error["error"] == "invalid_argument"
    assert error["field"] == field
    assert listed(store) == []


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"trigger": "hourly"}, "trigger"),
        ({"scope": "everything"}, "scope"),
        ({"mode": "wild"}, "mode"),
    ],
)
def test_store_create_rejects_bad_choices(
    store: MemoryStore, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        store.organize_run_create(**{"trigger": "manual", **fields})
    assert caught.value.field == field
    assert store.organize_run_list(limit=10) == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"status": "done"}, "status"),
        ({"status": "RUNNING"}, "status"),
        ({"phase": "review"}, "phase"),
        ({"counts": {"bogus_count": 1}}, "bogus_count"),
        ({"counts": {"run_id": 1}}, "run_id"),
        ({"counts": {"input_count": -1}}, "input_count"),
        ({"counts": {"input_count": "many"}}, "counts.input_count"),
        ({"counts": {"input_count": 1.5}}, "counts.input_count"),
        ({"counts": [1, 2]}, "counts"),
        ({"compression_ratio": -0.1}, "compression_ratio"),
        ({"compression_ratio": "half"}, "compression_ratio"),
        ({"report": "v4"}, "report"),
        ({"started_at": 5}, "started_at"),
    ],
)
def test_update_rejects_bad_input_and_changes_nothing(
    store: MemoryStore, payload: dict[str, Any], field: str
) -> None:
    run, _ = create(store)

    error = fail(store, "organize_run_update", {"run_id": run["run_id"], **payload})

    assert error["error"] == "invalid_argument"
    assert error["field"] == field
    assert read(store, run["run_id"]) == run


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"status": "finished"}, "status"),
        ({"phase": "apply-all"}, "phase"),
        ({"counts": {"unknown": 1}}, "unknown"),
        ({"counts": {"merged_count": -3}}, "merged_count"),
        ({"counts": {"merged_count": True}}, "merged_count"),
        ({"counts": {"merged_count": False}}, "merged_count"),
        ({"counts": {"merged_count": 2.0}}, "merged_count"),
        ({"counts": {"merged_count": "2"}}, "merged_count"),
        ({"compression_ratio": -1.0}, "compression_ratio"),
        ({"compression_ratio": True}, "compression_ratio"),
        ({"compression_ratio": float("nan")}, "compression_ratio"),
        ({"compression_ratio": "0.5"}, "compression_ratio"),
    ],
)
def test_store_update_rejects_bad_input_and_changes_nothing(
    store: MemoryStore, fields: dict[str, Any], field: str
) -> None:
    run, _ = store.organize_run_create(trigger="manual")

    with pytest.raises(InvalidArgument) as caught:
        store.organize_run_update(run.run_id, **fields)

    assert caught.value.code == "invalid_argument"
    assert caught.value.field == field
    assert store.organize_run_read(run.run_id) == run


def test_a_bad_counter_rolls_back_the_whole_update(store: MemoryStore) -> None:
    run, _ = store.organize_run_create(trigger="manual")

    with pytest.raises(InvalidArgument):
        store.organize_run_update(
            run.run_id,
            status="succeeded",
            phase="done",
            counts={"input_count": 4, "merged_count": -1},
        )

    stored = store.organize_run_read(run.run_id)
    assert (stored.status, stored.phase, stored.input_count) == ("running", None, 0)
    assert stored.finished_at is None


def test_command_update_rejects_a_bool_counter(store: MemoryStore) -> None:
    run, _ = create(store)
    error = fail(
        store, "organize_run_update", {"run_id": run["run_id"], "counts": {"input_count": True}}
    )
    assert error["field"] in ("input_count", "counts.input_count")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"status": "finished"}, "status"),
        ({"limit": 0}, "limit"),
        ({"limit": -5}, "limit"),
        ({"limit": "all"}, "limit"),
        ({"order": "asc"}, "order"),
    ],
)
def test_list_rejects_bad_input(store: MemoryStore, payload: dict[str, Any], field: str) -> None:
    create(store)
    error = fail(store, "organize_run_list", payload)
    assert error["error"] == "invalid_argument"
    assert error["field"] == field


@pytest.mark.parametrize(
    "name",
    ["organize_run_read", "organize_run_get", "organize_run_update", "organize_due_complete"],
)
def test_commands_that_need_a_run_id_require_one(store: MemoryStore, name: str) -> None:
    error = fail(store, name, {})
    assert error["error"] == "invalid_argument"
    assert error["field"] == "run_id"


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("organize_run_read", {}),
        ("organize_run_get", {}),
        ("organize_run_update", {"phase": "scan"}),
        ("organize_run_update", {"status": "succeeded"}),
        ("organize_due_complete", {"status": "succeeded"}),
    ],
)
def test_unknown_run_id_is_run_not_found_with_a_next_call(
    store: MemoryStore, name: str, extra: dict[str, Any]
) -> None:
    create(store)

    error = fail(store, name, {"run_id": "run-0-deadbeef", **extra})

    assert error["error"] == "run_not_found"
    assert "run-0-deadbeef" in error["message"]
    assert error["suggested_next_call"] == {"command": "organize_run_list"}
    with pytest.raises(RunNotFound):
        store.organize_run_read("run-0-deadbeef")


# --- stale runs -------------------------------------------------------------------------------


def _look_with(store: MemoryStore, how: str, run_id: str) -> None:
    if how == "list":
        listed(store)
    elif how == "read":
        read(store, run_id)
    elif how == "create":
        _, claimed = create(store)
        assert claimed is True  # the stale run no longer blocks
    elif how == "claim":
        assert dispatch(store, "organize_due_claim", {})["run"] is None
    else:  # pragma: no cover - a typo in the parametrization
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["list", "read", "create", "claim"])
def test_a_run_started_over_six_hours_ago_fails_as_stale(
    store: MemoryStore, clock: FakeClock, how: str
) -> None:
    run, _ = create(store)
    clock.advance(hours=6, ms=1)

    _look_with(store, how, run["run_id"])

    with store.index.read() as conn:  # what the look wrote, not what a read would redo
        stored = runs.read(conn, run["run_id"])
    assert stored.status == "failed"
    assert stored.error == runs.STALE_TIMEOUT == "stale_timeout"
    assert stored.finished_at == clock.ms


@pytest.mark.parametrize("how", ["list", "read", "create", "claim"])
@pytest.mark.parametrize("age_ms", [5 * HOUR_MS + 59 * 60_000, STALE_MS - 1])
def test_a_run_younger_than_six_hours_is_left_running(
    store: MemoryStore, clock: FakeClock, how: str, age_ms: int
) -> None:
    run, _ = create(store)
    clock.advance(ms=age_ms)

    if how == "create":
        _, claimed = create(store)
        assert claimed is False  # still the active run
    else:
        _look_with(store, how, run["run_id"])

    stored = read(store, run["run_id"])
    assert stored["status"] == "running"
    assert stored["error"] is None and stored["finished_at"] is None


def test_staleness_counts_from_the_start_not_the_creation(
    store: MemoryStore, clock: FakeClock
) -> None:
    run, _ = create(store, trigger="scheduled", due_at=clock.ms + 10 * HOUR_MS)
    clock.advance(hours=10)
    # A pending run is never stale: it is waiting for its time, not crashed.
    assert read(store, run["run_id"])["status"] == "pending"

    claimed = dispatch(store, "organize_due_claim", {})["run"]
    assert claimed["run_id"] == run["run_id"]
    clock.advance(hours=5)
    assert read(store, run["run_id"])["status"] == "running"

    clock.advance(hours=1, ms=1)
    stale = read(store, run["run_id"])
    assert (stale["status"], stale["error"]) == ("failed", "stale_timeout")


def test_a_stale_failed_run_refuses_a_late_success(store: MemoryStore, clock: FakeClock) -> None:
    run, _ = create(store)
    clock.advance(hours=7)
    listed(store)

    error = fail(store, "organize_run_update", {"run_id": run["run_id"], "status": "succeeded"})

    assert error["error"] == "run_finished"
    assert read(store, run["run_id"])["status"] == "failed"


def test_only_running_rows_go_stale(store: MemoryStore, clock: FakeClock) -> None:
    done, _ = create(store)
    update(store, done["run_id"], status="succeeded")
    finished_at = read(store, done["run_id"])["finished_at"]
    clock.advance(days=3)

    listed(store)

    stored = read(store, done["run_id"])
    assert (stored["status"], stored["error"], stored["finished_at"]) == (
        "succeeded",
        None,
        finished_at,
    )


# --- owners, leases and queued runs (issue 12) ------------------------------------------------

LEASE_MS = config.ORGANIZE_LEASE_MS


def create_owned(store: MemoryStore, owner: RunOwner) -> str:
    """A running run owned by `owner`, created the way that process's store would."""
    with store.index.write() as conn:
        run, claimed = runs.create(conn, store.now_ms(), owner=owner, trigger="manual")
    assert claimed and run.status == "running"
    return run.run_id


def stored(store: MemoryStore, run_id: str) -> OrganizeRun:
    """The row as it is on disk, without the look (and its reaping) that a read would do."""
    with store.index.read() as conn:
        return runs.read(conn, run_id)


def test_a_run_records_its_owner_process_and_a_lease(store: MemoryStore, clock: FakeClock) -> None:
    run, _ = create(store)

    assert run["owner_host"] == socket.gethostname()
    assert run["owner_pid"] == os.getpid()
    assert run["lease_until"] == clock.ms + LEASE_MS
    row = query(store.index.layout.index_path, "SELECT owner_started FROM memory_organize_runs")
    assert row == [(RunOwner.current().started,)]


@pytest.mark.parametrize("how", ["list", "read", "create", "claim"])
def test_a_run_whose_owner_process_died_is_abandoned_at_the_next_look(
    store: MemoryStore, clock: FakeClock, how: str
) -> None:
    run_id = create_owned(store, dead_owner())
    clock.advance(seconds=1)  # seconds, not hours: no lease or stale limit is involved

    _look_with(store, how, run_id)

    row = stored(store, run_id)
    assert (row.status, row.error, row.finished_at) == ("failed", "abandoned", clock.ms)
    assert runs.ABANDONED == "abandoned"
    assert [r["status"] for r in listed(store, status="running")] == (
        ["running"] if how == "create" else []
    )


def test_a_reused_pid_does_not_keep_a_dead_owners_run(store: MemoryStore) -> None:
    # Our own pid, alive, but started at another time: the owner died and its pid was reused.
    me = RunOwner.current()
    assert me.started is not None, "this test needs /proc"
    run_id = create_owned(store, RunOwner(me.host, me.pid, me.started - 1))

    _, claimed = create(store)

    assert claimed is True
    assert (stored(store, run_id).status, stored(store, run_id).error) == ("failed", "abandoned")


@pytest.mark.parametrize("how", ["list", "read", "create", "claim"])
def test_a_live_owners_run_is_never_taken_even_past_its_lease(
    store: MemoryStore, clock: FakeClock, how: str
) -> None:
    run, _ = create(store)  # owned by this test process, which is alive
    clock.advance(ms=LEASE_MS * 5)  # no renewal for 50 minutes: the pid still says alive

    if how == "create":
        assert create(store)[1] is False
    else:
        _look_with(store, how, run["run_id"])

    row = stored(store, run["run_id"])
    assert (row.status, row.error, row.finished_at) == ("running", None, None)


def test_a_run_owned_on_another_host_lives_while_its_lease_is_renewed(
    store: MemoryStore, clock: FakeClock
) -> None:
    # A synced folder: the owner's process table cannot be seen from here.
    run_id = create_owned(store, RunOwner("another-laptop", os.getpid(), 1))
    clock.advance(ms=LEASE_MS - 1)
    assert create(store)[1] is False  # still leased

    renewed = update(store, run_id)  # the owner's heartbeat: an update with only the id
    assert renewed["lease_until"] == clock.ms + LEASE_MS
    clock.advance(ms=LEASE_MS)
    assert read(store, run_id)["status"] == "running"  # the lease holds to its last ms

    clock.advance(ms=1)
    new, claimed = create(store)

    assert claimed is True and new["status"] == "running"
    row = stored(store, run_id)
    assert (row.status, row.error, row.finished_at) == ("failed", "abandoned", clock.ms)


def test_progress_updates_renew_the_lease_and_finished_runs_keep_theirs(
    store: MemoryStore, clock: FakeClock
) -> None:
    run, _ = create(store)
    clock.advance(seconds=180)

    assert update(store, run["run_id"], phase="plan")["lease_until"] == clock.ms + LEASE_MS
    lease = update(store, run["run_id"], status="succeeded")["lease_until"]
    clock.advance(seconds=60)

    assert update(store, run["run_id"])["lease_until"] == lease  # no lease for a finished run


def test_rows_of_other_writers_name_no_owner_and_only_go_stale(
    store: MemoryStore, clock: FakeClock
) -> None:
    insert_run(store, "run-legacy", status="running", created_at=clock.ms, started_at=clock.ms)
    clock.advance(ms=LEASE_MS * 30)  # five hours: far past any lease

    assert read(store, "run-legacy")["status"] == "running"
    clock.advance(hours=1, ms=1)
    legacy = read(store, "run-legacy")
    assert (legacy["status"], legacy["error"]) == ("failed", "stale_timeout")


def test_a_run_created_through_call_is_queued_for_the_app(
    store: MemoryStore, clock: FakeClock
) -> None:
    out = cli_call_ok(
        store.root, clock, "organize_run_create", {"trigger": "manual", "mode": "standard"}
    )

    queued = out["run"]
    assert out["claimed"] is True
    assert (queued["status"], queued["due_at"], queued["started_at"]) == ("pending", clock.ms, None)
    assert (queued["owner_pid"], queued["lease_until"]) == (None, None)
    clock.advance(seconds=2)
    claimed = dispatch(store, "organize_due_claim", {})["run"]  # what the app's poll does
    assert claimed["run_id"] == queued["run_id"]
    assert (claimed["status"], claimed["mode"]) == ("running", "standard")
    assert (claimed["owner_pid"], claimed["lease_until"]) == (os.getpid(), clock.ms + LEASE_MS)


def test_a_queued_run_nobody_claims_fails_as_unclaimed_after_six_hours(
    store: MemoryStore, clock: FakeClock
) -> None:
    queued = cli_call_ok(store.root, clock, "organize_run_create", {})["run"]
    clock.advance(ms=config.ORGANIZE_UNCLAIMED_AFTER_MS)
    assert create(store)[1] is False  # an app may still come: the queued run waits
    assert read(store, queued["run_id"])["status"] == "pending"

    clock.advance(ms=1)
    new, claimed = create(store)

    assert claimed is True and new["status"] == "running"
    row = stored(store, queued["run_id"])
    assert (row.status, row.error, row.finished_at) == ("failed", "unclaimed", clock.ms)


def test_a_run_claimed_through_call_is_held_only_by_its_lease(
    store: MemoryStore, clock: FakeClock
) -> None:
    # An outside program drives a run with one `call` per step: each process exits at once,
    # so no pid can vouch for it; its updates renew the lease instead.
    create(store, trigger="scheduled", due_at=clock.ms)
    run = cli_call_ok(store.root, clock, "organize_due_claim", {})["run"]
    assert (run["owner_host"], run["owner_pid"]) == (socket.gethostname(), None)
    clock.advance(ms=LEASE_MS)
    cli_call_ok(
        store.root, clock, "organize_run_update", {"run_id": run["run_id"], "phase": "scan"}
    )
    clock.advance(ms=LEASE_MS)
    assert read(store, run["run_id"])["status"] == "running"

    clock.advance(ms=1)

    gone = read(store, run["run_id"])
    assert (gone["status"], gone["error"]) == ("failed", "abandoned")


# --- due claims -------------------------------------------------------------------------------


def test_due_claim_starts_the_oldest_due_pending_run(store: MemoryStore, clock: FakeClock) -> None:
    now = clock.ms
    # Rows another writer left: two overdue, one for later. Inserted out of order.
    insert_run(store, "run-b", status="pending", created_at=now - 5 * HOUR_MS, due_at=now - HOUR_MS)
    insert_run(store, "run-a", status="pending", created_at=now - 1000, due_at=now - 2 * HOUR_MS)
    insert_run(store, "run-c", status="pending", created_at=now - 9 * HOUR_MS, due_at=now + HOUR_MS)

    claimed = dispatch(store, "organize_due_claim", {})["run"]

    assert claimed["run_id"] == "run-a"
    assert claimed["status"] == "running"
    assert claimed["claimed_at"] == claimed["started_at"] == now
    assert claimed["report"] == {"legacy": False, "report": None, "summary": ""}
    assert read(store, "run-b")["status"] == "pending"
    assert read(store, "run-c")["status"] == "pending"
    assert read(store, "run-b")["claimed_at"] is None


def test_due_claim_waits_for_the_running_run_and_for_due_times(
    store: MemoryStore, clock: FakeClock
) -> None:
    now = clock.ms
    insert_run(store, "run-a", status="pending", created_at=now - 3000, due_at=now - 2000)
    insert_run(store, "run-b", status="pending", created_at=now - 2000, due_at=now - 1000)
    insert_run(store, "run-c", status="pending", created_at=now - 1000, due_at=now + HOUR_MS)

    def claim() -> str | None:
        run = dispatch(store, "organize_due_claim", {})["run"]
        return None if run is None else str(run["run_id"])

    assert claim() == "run-a"
    assert claim() is None  # run-a is running
    dispatch(store, "organize_due_complete", {"run_id": "run-a", "status": "succeeded"})
    assert claim() == "run-b"
    assert claim() is None
    dispatch(store, "organize_due_complete", {"run_id": "run-b", "status": "failed"})
    assert claim() is None  # run-c is not due yet
    assert read(store, "run-c")["status"] == "pending"
    clock.advance(hours=1)
    assert claim() == "run-c"


def test_due_claim_with_nothing_pending_returns_null(store: MemoryStore) -> None:
    assert dispatch(store, "organize_due_claim", {}) == {"run": None}
    assert store.organize_due_claim() is None


def test_due_claim_returns_null_while_a_run_is_running(
    store: MemoryStore, clock: FakeClock
) -> None:
    running, _ = create(store)
    insert_run(store, "run-due", status="pending", created_at=clock.ms - 10, due_at=clock.ms - 5)

    assert dispatch(store, "organize_due_claim", {})["run"] is None
    assert read(store, "run-due")["status"] == "pending"
    assert read(store, running["run_id"])["status"] == "running"


def test_a_created_pending_run_is_claimed_when_due(store: MemoryStore, clock: FakeClock) -> None:
    due = clock.ms + 2 * HOUR_MS
    run, _ = create(store, trigger="scheduled", due_at=due)

    assert dispatch(store, "organize_due_claim", {})["run"] is None
    assert dispatch(store, "organize_due_claim", {"now": due - 1})["run"] is None
    claimed = dispatch(store, "organize_due_claim", {"now": due})["run"]

    assert claimed["run_id"] == run["run_id"]
    assert claimed["claimed_at"] == claimed["started_at"] == due


def test_due_claim_rejects_a_negative_now(store: MemoryStore) -> None:
    error = fail(store, "organize_due_claim", {"now": -1})
    assert (error["error"], error["field"]) == ("invalid_argument", "now")


@pytest.mark.parametrize("status", [None, "running", "pending", "done"])
def test_due_complete_requires_a_final_status(
    store: MemoryStore, clock: FakeClock, status: str | None
) -> None:
    create(store, trigger="scheduled", due_at=clock.ms)
    run = dispatch(store, "organize_due_claim", {})["run"]
    payload: dict[str, Any] = {"run_id": run["run_id"], "phase": "done"}
    if status is not None:
        payload["status"] = status

    error = fail(store, "organize_due_complete", payload)

    assert (error["error"], error["field"]) == ("invalid_argument", "status")
    assert read(store, run["run_id"]) == run


@pytest.mark.parametrize("final", ["succeeded", "failed", "skipped", "cancelled"])
def test_due_complete_finishes_the_run_with_its_results(
    store: MemoryStore, clock: FakeClock, final: str
) -> None:
    create(store, trigger="scheduled", due_at=clock.ms)
    run = dispatch(store, "organize_due_claim", {})["run"]
    clock.advance(seconds=90)

    done = dispatch(
        store,
        "organize_due_complete",
        {
            "run_id": run["run_id"],
            "status": final,
            "phase": "done",
            "counts": {"final_count": 7, "input_count": 10},
            "compression_ratio": 0.7,
            "final_summary": "10 → 7",
            "report": V4_REPORT,
        },
    )["run"]

    assert done["status"] == final
    assert done["finished_at"] == clock.ms
    assert (done["input_count"], done["final_count"]) == (10, 7)
    assert done["report"]["report"] == V4_REPORT
    assert read(store, run["run_id"]) == done


def test_due_complete_on_a_finished_run_cannot_change_its_status(store: MemoryStore) -> None:
    run, _ = create(store)
    dispatch(store, "organize_due_complete", {"run_id": run["run_id"], "status": "succeeded"})

    error = fail(store, "organize_due_complete", {"run_id": run["run_id"], "status": "failed"})

    assert error["error"] == "run_finished"
    assert read(store, run["run_id"])["status"] == "succeeded"


# --- history ----------------------------------------------------------------------------------


def test_clear_history_deletes_finished_runs_only(store: MemoryStore, clock: FakeClock) -> None:
    finished = []
    for final in ("succeeded", "failed", "cancelled"):
        run, _ = create(store)
        finished.append(run["run_id"])
        skipped, _ = create(store)  # while `run` is active
        finished.append(skipped["run_id"])
        update(store, run["run_id"], status=final)
        clock.advance(seconds=1)
    active, _ = create(store)
    insert_run(store, "run-later", status="pending", created_at=clock.ms, due_at=clock.ms + 1)
    assert len(listed(store)) == 8

    assert dispatch(store, "organize_run_clear_history", {}) == {"deleted": 6}

    remaining = {r["run_id"]: r["status"] for r in listed(store)}
    assert remaining == {active["run_id"]: "running", "run-later": "pending"}
    for run_id in finished:
        assert fail(store, "organize_run_read", {"run_id": run_id})["error"] == "run_not_found"
    assert dispatch(store, "organize_run_clear_history", {}) == {"deleted": 0}


def test_clear_history_takes_no_arguments(store: MemoryStore) -> None:
    error = fail(store, "organize_run_clear_history", {"status": "failed"})
    assert (error["error"], error["field"]) == ("invalid_argument", "status")


def test_list_is_newest_first_with_limit_and_status_filter(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = []
    for final in ("succeeded", "failed", "succeeded", "cancelled"):
        run, _ = create(store)
        update(store, run["run_id"], status=final, report=V4_REPORT)
        ids.append(run["run_id"])
        clock.advance(seconds=60)
    latest, _ = create(store)
    # Same millisecond as `latest`: the later insert still lists first.
    same_ms, claimed = create(store)
    assert claimed is False
    ids += [latest["run_id"], same_ms["run_id"]]

    assert [r["run_id"] for r in listed(store)] == ids[::-1]
    assert [r["run_id"] for r in listed(store, limit=2)] == ids[::-1][:2]
    assert [r["run_id"] for r in listed(store, status="succeeded")] == [ids[2], ids[0]]
    assert [r["run_id"] for r in listed(store, status="succeeded", limit=1)] == [ids[2]]
    assert [r["run_id"] for r in listed(store, status="running")] == [latest["run_id"]]
    assert listed(store, status="pending") == []


def test_list_rows_carry_the_outcome_front_ends_word_in_their_language(
    store: MemoryStore,
) -> None:
    done, _ = create(store)
    outcome = {"code": "offlineProposed", "memories": 12, "clusters": 2, "proposed": 2}
    update(store, done["run_id"], report={**V4_REPORT, "outcome": outcome}, final_summary="s")
    old, _ = create(store)
    update(store, old["run_id"], final_summary="written by another program")
    with store.index.write() as conn:  # its report is not JSON at all
        conn.exec_driver_sql(
            "UPDATE memory_organize_runs SET trimmed_protocol_json = '{not json' WHERE run_id = ?",
            (old["run_id"],),
        )

    rows = {row["run_id"]: row for row in listed(store)}

    assert rows[done["run_id"]]["outcome"] == outcome
    assert rows[old["run_id"]]["outcome"] is None  # shown as its stored English
    read = dispatch(store, "organize_run_read", {"run_id": done["run_id"]})["run"]
    assert read["outcome"] == outcome


def test_list_rows_carry_no_report(store: MemoryStore) -> None:
    run, _ = create(store, model={"model": "m"})
    update(store, run["run_id"], report=V4_REPORT, final_summary="s")

    (row,) = listed(store)

    assert set(row) == RUN_FIELDS
    assert "report" not in row
    assert row["model"] == {"model": "m"}
    assert row["final_summary"] == "s"
    (typed,) = store.organize_run_list(limit=5)
    assert typed.report is None
    assert store.organize_run_read(run["run_id"]).report == V4_REPORT


def test_list_default_limit_and_cap(store: MemoryStore, clock: FakeClock) -> None:
    with store.index.write() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at) "
                "VALUES (:run_id, 'scheduled', 'succeeded', :created_at)"
            ),
            [
                {"run_id": f"run-{i:04d}", "created_at": clock.ms - i}
                for i in range(config.ORGANIZE_RUN_LIST_MAX + 10)
            ],
        )

    default = listed(store)
    capped = listed(store, limit=10_000)

    assert len(default) == config.ORGANIZE_RUN_LIST_DEFAULT == 50
    assert default[0]["run_id"] == "run-0000"
    assert len(capped) == config.ORGANIZE_RUN_LIST_MAX == 500
    assert capped[-1]["run_id"] == "run-0499"


def test_rows_with_unreadable_json_from_another_writer_still_list(
    store: MemoryStore, clock: FakeClock
) -> None:
    insert_run(
        store,
        "run-odd",
        status="succeeded",
        created_at=clock.ms,
        model_json="gpt-4o (not json)",
        report_json="{broken",
    )

    (row,) = listed(store)
    stored = read(store, "run-odd")

    assert row["run_id"] == "run-odd" and row["model"] is None
    assert stored["model"] is None
    assert stored["report"]["report"] is None


# --- concurrency ------------------------------------------------------------------------------


def _race(workers: list[Any]) -> list[Any]:
    """Run the callables at once (released together by a barrier); re-raise any failure."""
    barrier = threading.Barrier(len(workers))
    results: list[Any] = [None] * len(workers)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = workers[index]()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    return results


def test_two_stores_racing_to_create_exactly_one_claims(home: Path, clock: FakeClock) -> None:
    with (
        MemoryStore.open(home, clock=clock) as first,
        MemoryStore.open(home, clock=clock) as second,
    ):
        for round_ in range(3):
            stores = [first, second] * 3
            results = _race(
                [lambda s=s: s.organize_run_create(trigger="scheduled") for s in stores]
            )

            claims = [run for run, claimed in results if claimed]
            assert len(claims) == 1, f"round {round_}: {len(claims)} claims"
            skipped = [run for run, claimed in results if not claimed]
            assert {(r.status, r.error) for r in skipped} == {("skipped", "already_running")}
            active = first.organize_run_list(limit=100, status="running")
            assert [r.run_id for r in active] == [claims[0].run_id]
            second.organize_run_update(claims[0].run_id, status="succeeded")
            clock.advance(seconds=1)

        assert len(first.organize_run_list(limit=100)) == 18


def test_the_claim_is_atomic_in_sqlite_without_the_file_lock(home: Path, clock: FakeClock) -> None:
    """BEGIN IMMEDIATE alone serializes check-and-insert (another program has no file lock)."""
    stores = [MemoryStore.open(home, clock=clock) for _ in range(4)]
    try:

        def claim(s: MemoryStore) -> bool:
            with s.index.write() as conn:
                return runs.create(conn, clock.ms, owner=RunOwner.current(), trigger="manual")[1]

        results = _race([lambda s=s: claim(s) for s in stores])
    finally:
        for s in stores:
            s.close()

    assert sorted(results) == [False, False, False, True]


def test_two_stores_racing_to_claim_a_due_run_exactly_one_gets_it(
    home: Path, clock: FakeClock
) -> None:
    with (
        MemoryStore.open(home, clock=clock) as first,
        MemoryStore.open(home, clock=clock) as second,
    ):
        pending, _ = first.organize_run_create(trigger="scheduled", due_at=clock.ms)
        results = _race([first.organize_due_claim, second.organize_due_claim] * 2)

    winners = [run for run in results if run is not None]
    assert [run.run_id for run in winners] == [pending.run_id]
    assert winners[0].status == "running"


# --- persistence and migration ----------------------------------------------------------------


def test_run_history_survives_reopening_the_store(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        done, _ = create(store, model={"model": "m"})
        update(
            store,
            done["run_id"],
            status="succeeded",
            counts={"final_count": 3},
            report=V4_REPORT,
            final_summary="ok",
        )
        clock.advance(seconds=1)
        active, _ = create(store)
        before = [read(store, done["run_id"]), read(store, active["run_id"])]

    with MemoryStore.open(home, clock=clock) as reopened:
        after = [read(reopened, done["run_id"]), read(reopened, active["run_id"])]
        _, claimed = create(reopened)

    assert after == before
    assert after[0]["report"]["report"] == V4_REPORT
    assert claimed is False  # the reopened store still sees the active run


def test_a_v3_index_migrated_to_v4_keeps_its_runs(home: Path, clock: FakeClock) -> None:
    create_reference_index(home / "memory-index.sqlite3", version=3)

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.migrated_from == 3
        history = listed(store)
        old = read(store, "run-2026-10-01")
        new, claimed = create(store)

    assert sorted(r["run_id"] for r in history) == sorted(run[0] for run in OLD_RUNS)
    assert [r["run_id"] for r in history] == ["run-2026-10-02", "run-2026-10-01"]
    assert (old["status"], old["input_count"], old["merged_count"]) == ("succeeded", 12, 3)
    assert (old["phase"], old["final_count"], old["dry_run"]) == (None, 0, False)
    assert old["report"] == {"legacy": False, "report": None, "summary": "merged three notes"}
    assert claimed is True and new["status"] == "running"
    rows = query(home / "memory-index.sqlite3", "SELECT COUNT(*) FROM memory_organize_runs")
    assert rows == [(3,)]

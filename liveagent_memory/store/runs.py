"""Organizer run rows in `memory_organize_runs` (REFERENCE A4 v4 columns, A10 semantics).

One active run at a time: a claim while another run is pending or running records a `skipped`
row (`already_running`) instead. Every function takes a connection inside the caller's
transaction, so a claim and its check are one BEGIN IMMEDIATE transaction — atomic across
processes.

Runs nobody will finish are failed the next time anyone looks (issue 12):
- `abandoned`: a running run whose owner process is provably gone (same host, pid dead or
  reused), or whose lease ran out when its owner cannot be seen (another host, a one-shot
  process); a run whose owner is seen alive is never taken for abandoned;
- `unclaimed`: a queued (pending) run nobody claimed within 6 hours of being due;
- `stale_timeout`: the last resort, 6 hours after a run started, whoever owns it (REFERENCE
  A10); the only rule for rows that name no owner (other writers, older versions).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.schema import OrganizeRun
from liveagent_memory.store.owners import RunOwner

TRIGGERS = ("manual", "scheduled")
STATUSES = ("pending", "running", "succeeded", "failed", "skipped", "cancelled")
ACTIVE = ("pending", "running")
TERMINAL = ("succeeded", "failed", "skipped", "cancelled")
SCOPES = ("all", "global", "projects", "current-project")
MODES = ("conservative", "standard", "aggressive")
# A consolidate run (issue 18, organizer/consolidate.py) is in phase "consolidate" from start to
# end: the phase names the kind of run, and the next one finds the last by it (list_runs).
PHASES = ("scan", "cluster", "plan", "gate", "apply", "done", "consolidate")
ALREADY_RUNNING = "already_running"
STALE_TIMEOUT = "stale_timeout"
ABANDONED = "abandoned"
UNCLAIMED = "unclaimed"

# Columns a caller may set through update (counters, phase, results); ids and times are ours.
UPDATABLE_INT = (
    "input_count",
    "cluster_count",
    "safe_applied",
    "review_skipped",
    "created_count",
    "updated_count",
    "deleted_count",
    "merged_count",
    "parse_failures",
    "final_count",
    "compression_target",
    "token_usage_total",
    "quota_headroom_at_start",
)
_COLUMNS = (
    "run_id, trigger, status, created_at, started_at, finished_at, due_at, claimed_at, "
    "model_json, scope, mode, input_count, cluster_count, safe_applied, review_skipped, "
    "created_count, updated_count, deleted_count, merged_count, parse_failures, error, "
    "final_summary, phase, final_count, compression_ratio, compression_target, dry_run, "
    "token_usage_total, quota_headroom_at_start, override_reviewed, owner_host, owner_pid, "
    "lease_until"
)


class RunNotFound(MemoryDomainError):
    code = "run_not_found"


class RunFinished(MemoryDomainError):
    """The run already ended; its record can no longer change status."""

    code = "run_finished"


def _choice(value: str | None, allowed: tuple[str, ...], field: str) -> str | None:
    if value is not None and value not in allowed:
        raise InvalidArgument(f"{field} must be one of {', '.join(allowed)}", field=field)
    return value


def _json_object(text: str | None) -> dict[str, Any] | None:
    """A stored JSON object, or None when the column is empty or unreadable (another writer)."""
    if not text:
        return None
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError:
        return None
    return loaded if isinstance(loaded, dict) else None


# A listing reads only the report's outcome (small), and a report that is not JSON (another
# program's, hand-edited) gives none instead of failing the whole listing.
_OUTCOME = (
    "CASE WHEN json_valid(trimmed_protocol_json) "
    "THEN json_extract(trimmed_protocol_json, '$.outcome') END AS outcome_json"
)


def _row(row: sa.Row[Any], *, with_report: bool) -> OrganizeRun:
    data = dict(row._mapping)
    model = _json_object(data.pop("model_json", None))
    report_text = data.pop("trimmed_protocol_json", None)
    report = _json_object(report_text) if with_report else None
    outcome = _json_object(data.pop("outcome_json", None))
    if report is not None:
        outcome = report.get("outcome") if isinstance(report.get("outcome"), dict) else None
    return OrganizeRun(
        **{k: data[k] for k in data if k not in ("dry_run", "override_reviewed")},
        dry_run=bool(data["dry_run"]),
        override_reviewed=bool(data["override_reviewed"]),
        model=model,
        report=report,
        outcome=outcome,
    )


def fail_stale(conn: sa.Connection, now_ms: int) -> int:
    """Fail runs that have been running longer than the stale limit (REFERENCE A10)."""
    cutoff = now_ms - config.ORGANIZE_STALE_AFTER_MS
    result = conn.execute(
        sa.text(
            "UPDATE memory_organize_runs SET status = 'failed', error = :error, "
            "finished_at = :now WHERE status = 'running' "
            "AND IFNULL(started_at, created_at) < :cutoff"
        ),
        {"error": STALE_TIMEOUT, "now": now_ms, "cutoff": cutoff},
    )
    return int(result.rowcount or 0)


def reap(conn: sa.Connection, now_ms: int) -> int:
    """Fail the runs nobody will finish: abandoned, unclaimed or stale; returns how many."""
    return _fail_abandoned(conn, now_ms) + _fail_unclaimed(conn, now_ms) + fail_stale(conn, now_ms)


def _fail_abandoned(conn: sa.Connection, now_ms: int) -> int:
    rows = conn.execute(
        sa.text(
            "SELECT run_id, owner_host, owner_pid, owner_started, lease_until "
            "FROM memory_organize_runs WHERE status = 'running' "
            "AND (owner_pid IS NOT NULL OR lease_until IS NOT NULL)"
        )
    ).all()
    if not rows:
        return 0
    here = RunOwner.current()
    ended = 0
    for row in rows:
        owner = RunOwner(host=row.owner_host or "", pid=row.owner_pid, started=row.owner_started)
        gone = owner.gone(here=here) if row.owner_host else None
        if gone is None:  # the process cannot be seen from here: only its lease tells
            gone = row.lease_until is not None and row.lease_until < now_ms
        if gone:
            ended += _fail_running(conn, str(row.run_id), now_ms, ABANDONED)
    return ended


def _fail_running(conn: sa.Connection, run_id: str, now_ms: int, error: str) -> int:
    result = conn.execute(
        sa.text(
            "UPDATE memory_organize_runs SET status = 'failed', error = :error, "
            "finished_at = :now WHERE run_id = :run_id AND status = 'running'"
        ),
        {"error": error, "now": now_ms, "run_id": run_id},
    )
    return int(result.rowcount or 0)


def _fail_unclaimed(conn: sa.Connection, now_ms: int) -> int:
    # A queue of pending runs is legitimate (each waits for the one before it); only a run
    # whose due moment is hours past shows that no app is there to claim it.
    result = conn.execute(
        sa.text(
            "UPDATE memory_organize_runs SET status = 'failed', error = :error, "
            "finished_at = :now WHERE status = 'pending' "
            "AND MAX(created_at, IFNULL(due_at, 0)) < :cutoff"
        ),
        {"error": UNCLAIMED, "now": now_ms, "cutoff": now_ms - config.ORGANIZE_UNCLAIMED_AFTER_MS},
    )
    return int(result.rowcount or 0)


_OWNER_KEYS = ("owner_host", "owner_pid", "owner_started", "lease_until")


def _owner_columns(owner: RunOwner, now_ms: int) -> dict[str, Any]:
    """The owner and a fresh lease, as the row's columns."""
    return {
        "owner_host": owner.host,
        "owner_pid": owner.pid,
        "owner_started": owner.started,
        "lease_until": now_ms + config.ORGANIZE_LEASE_MS,
    }


def any_active(conn: sa.Connection) -> bool:
    """Whether any run is pending or running (a cheap check before a claim)."""
    return _active(conn) is not None


def _active(conn: sa.Connection) -> str | None:
    found = conn.execute(
        sa.text(
            "SELECT run_id FROM memory_organize_runs WHERE status IN ('pending', 'running') "
            "ORDER BY created_at ASC LIMIT 1"
        )
    ).scalar()
    return str(found) if found is not None else None


def create(
    conn: sa.Connection,
    now_ms: int,
    *,
    owner: RunOwner,
    trigger: str,
    scope: str = "all",
    mode: str = "conservative",
    model: dict[str, Any] | None = None,
    dry_run: bool = False,
    due_at: int | None = None,
    override_reviewed: bool = False,
) -> tuple[OrganizeRun, bool]:
    """Claim the organizer: a running (or, with `due_at`, pending) run, or a skipped row.

    A running run is owned by `owner`, the process that will execute it. A one-shot `owner`
    (no pid, e.g. `liveagent-memory call`) never executes one: without `due_at` its run is
    queued as pending, due now, for the desktop app to claim (issue 12: a web "Run now").

    Returns (run, claimed). A skipped row is written even when the claim fails, so the run
    history shows that a scheduled run was due but another one was active.
    """
    _choice(trigger, TRIGGERS, "trigger")
    _choice(scope, SCOPES, "scope")
    _choice(mode, MODES, "mode")
    reap(conn, now_ms)
    active = _active(conn)
    due = now_ms if due_at is None and owner.pid is None else due_at
    status = "skipped" if active else ("pending" if due is not None else "running")
    run_id = f"run-{now_ms}-{uuid.uuid4().hex[:8]}"
    running = status == "running"
    conn.execute(
        sa.text(
            "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at, started_at, "
            "finished_at, due_at, model_json, scope, mode, error, dry_run, override_reviewed, "
            "trimmed_protocol_json, owner_host, owner_pid, owner_started, lease_until) VALUES "
            "(:run_id, :trigger, :status, :now, :started, :finished, :due_at, :model, :scope, "
            ":mode, :error, :dry_run, :override, '{}', :owner_host, :owner_pid, "
            ":owner_started, :lease_until)"
        ),
        {
            # Only a running run has an owner; a pending one gets its owner when claimed.
            **(_owner_columns(owner, now_ms) if running else dict.fromkeys(_OWNER_KEYS)),
            "run_id": run_id,
            "trigger": trigger,
            "status": status,
            "now": now_ms,
            "started": now_ms if running else None,
            "finished": now_ms if status == "skipped" else None,
            "due_at": due if status == "pending" else due_at,
            "model": json.dumps(model) if model else None,
            "scope": scope,
            "mode": mode,
            "error": ALREADY_RUNNING if active else None,
            "dry_run": int(dry_run),
            "override": int(override_reviewed),
        },
    )
    return read(conn, run_id), status != "skipped"


def read(conn: sa.Connection, run_id: str, *, with_report: bool = True) -> OrganizeRun:
    row = conn.execute(
        sa.text(
            f"SELECT {_COLUMNS}, trimmed_protocol_json FROM memory_organize_runs "
            "WHERE run_id = :run_id"
        ),
        {"run_id": run_id},
    ).first()
    if row is None:
        raise RunNotFound(
            f"organizer run {run_id!r} was not found",
            suggested_next_call={"command": "organize_run_list"},
        )
    return _row(row, with_report=with_report)


def list_runs(
    conn: sa.Connection, *, limit: int, status: str | None = None, phase: str | None = None
) -> list[OrganizeRun]:
    _choice(status, STATUSES, "status")
    _choice(phase, PHASES, "phase")
    clauses = [c for c, v in (("status = :status", status), ("phase = :phase", phase)) if v]
    where = " WHERE " + " AND ".join(clauses) if clauses else ""
    rows = conn.execute(
        sa.text(
            f"SELECT {_COLUMNS}, NULL AS trimmed_protocol_json, {_OUTCOME} "
            f"FROM memory_organize_runs{where} ORDER BY created_at DESC, rowid DESC LIMIT :limit"
        ),
        {"status": status, "phase": phase, "limit": limit},
    ).all()
    return [_row(row, with_report=False) for row in rows]


def update(
    conn: sa.Connection,
    now_ms: int,
    run_id: str,
    *,
    status: str | None = None,
    phase: str | None = None,
    counts: dict[str, int] | None = None,
    compression_ratio: float | None = None,
    error: str | None = None,
    final_summary: str | None = None,
    report: dict[str, Any] | None = None,
) -> OrganizeRun:
    """Record progress or the end of a run; a finished run keeps its status.

    Any update that leaves the run running renews its lease (issue 12): progress counts as a
    heartbeat, and an update with only the run id is nothing but one.
    """
    _choice(status, STATUSES, "status")
    _choice(phase, PHASES, "phase")
    if compression_ratio is not None and (
        isinstance(compression_ratio, bool)
        or not isinstance(compression_ratio, (int, float))
        or not compression_ratio >= 0
    ):
        raise InvalidArgument(
            "The compression ratio must be a non-negative number", field="compression_ratio"
        )
    current = read(conn, run_id, with_report=False)
    if current.status in TERMINAL and status is not None and status != current.status:
        raise RunFinished(
            f"organizer run {run_id} already ended ({current.status}); it cannot become {status}"
        )
    sets: dict[str, Any] = {}
    if status is not None:
        sets["status"] = status
        if status == "running" and current.started_at is None:
            sets["started_at"] = now_ms
        if status in TERMINAL and current.finished_at is None:
            sets["finished_at"] = now_ms
    if (status or current.status) == "running":
        sets["lease_until"] = now_ms + config.ORGANIZE_LEASE_MS
    for key, value in (counts or {}).items():
        if key not in UPDATABLE_INT:
            raise InvalidArgument(f"unknown run counter {key!r}", field=key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidArgument(f"{key} must be a non-negative integer", field=key)
        sets[key] = value
    optional = {
        "phase": phase,
        "compression_ratio": compression_ratio,
        "error": error,
        "final_summary": final_summary,
        "trimmed_protocol_json": json.dumps(report, ensure_ascii=False) if report else None,
    }
    sets.update({key: value for key, value in optional.items() if value is not None})
    if sets:
        assignments = ", ".join(f"{key} = :{key}" for key in sets)
        conn.execute(
            sa.text(f"UPDATE memory_organize_runs SET {assignments} WHERE run_id = :run_id"),
            {**sets, "run_id": run_id},
        )
    return read(conn, run_id)


def claim_due(conn: sa.Connection, now_ms: int, *, owner: RunOwner) -> OrganizeRun | None:
    """Start the oldest pending run that is due, owned by `owner` (REFERENCE A10
    `organize_due_claim`)."""
    reap(conn, now_ms)
    if conn.execute(
        sa.text("SELECT 1 FROM memory_organize_runs WHERE status = 'running' LIMIT 1")
    ).first():
        return None
    run_id = conn.execute(
        sa.text(
            "SELECT run_id FROM memory_organize_runs WHERE status = 'pending' "
            "AND IFNULL(due_at, 0) <= :now ORDER BY IFNULL(due_at, created_at), created_at "
            "LIMIT 1"
        ),
        {"now": now_ms},
    ).scalar()
    if run_id is None:
        return None
    conn.execute(
        sa.text(
            "UPDATE memory_organize_runs SET status = 'running', claimed_at = :now, "
            "started_at = :now, owner_host = :owner_host, owner_pid = :owner_pid, "
            "owner_started = :owner_started, lease_until = :lease_until WHERE run_id = :run_id"
        ),
        {**_owner_columns(owner, now_ms), "now": now_ms, "run_id": run_id},
    )
    return read(conn, str(run_id))


def clear_history(conn: sa.Connection) -> int:
    """Delete every finished run; active runs stay."""
    result = conn.execute(
        sa.text("DELETE FROM memory_organize_runs WHERE status NOT IN ('pending', 'running')")
    )
    return int(result.rowcount or 0)

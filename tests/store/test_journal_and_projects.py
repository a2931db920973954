"""memory_journal_days and memory_projects: journal days by date, every project with its quota."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import errors
from liveagent_memory.domain.requests import DailyAppendRequest, JournalDaysRequest
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from tests.helpers import memories
from tests.helpers.diskstore import write_file
from tests.helpers.fakes import FakeClock

TYPES = ("user", "feedback", "project", "reference", "skill", "daily")


def append(store: MemoryStore, day: str, *bodies: str) -> None:
    for body in bodies:
        store.append_daily(DailyAppendRequest(body=body, local_date=day))


def days(store: MemoryStore, **fields: Any) -> list[tuple[str, int, bool]]:
    result = store.journal_days(JournalDaysRequest.model_validate(fields))
    return [(d.date, d.entry_count, d.archived) for d in result.days]


def remember(store: MemoryStore, slug: str, **fields: Any) -> None:
    """A memory a person wrote (so reviewed), unless `fields` say otherwise."""
    memories.remember(store, slug, **({"actor": "user"} | fields))


@pytest.fixture
def statements(store: MemoryStore) -> Iterator[list[tuple[str, Any]]]:
    """Every SELECT (with its parameters) the index runs while the test body runs."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(store.index.engine, "before_cursor_execute", record)
    yield seen
    event.remove(store.index.engine, "before_cursor_execute", record)


# --- memory_journal_days ----------------------------------------------------------------------


def test_an_empty_store_has_no_journal_days(store: MemoryStore) -> None:
    result = dispatch(store, "memory_journal_days", {})
    assert result == {"days": [], "total": 0, "truncated": False, "today": "2026-11-30"}


def test_days_are_listed_newest_first_with_their_entry_counts(store: MemoryStore) -> None:
    append(store, "2026-11-28", "Morning: fixed the build", "Evening: wrote tests")
    append(store, "2026-10-15", "Planned the release")
    store.append_daily(DailyAppendRequest(body="Today's work", conversation_id="c1"))
    remember(store, "not-a-journal")  # ordinary memories are not journal days

    result = dispatch(store, "memory_journal_days", {})

    assert [(d["date"], d["entry_count"]) for d in result["days"]] == [
        ("2026-11-30", 1),
        ("2026-11-28", 2),
        ("2026-10-15", 1),
    ]
    first = result["days"][0]
    assert first["slug"] == "daily-2026-11-30"
    assert (first["scope"], first["workdir_hash"], first["workdir"]) == ("global", "", None)
    assert first["archived"] is False
    assert first["updated_at"] == FakeClock().ms
    assert first["size"] == (store.root / "global/daily/2026-11-30.md").stat().st_size
    assert result["total"] == 3 and result["truncated"] is False
    json.dumps(result)
    # The slug reads the day back.
    read = dispatch(store, "memory_read", {"slug": first["slug"]})
    assert read["content"] == "Today's work"


def test_a_month_or_a_date_range_narrows_the_days(store: MemoryStore) -> None:
    for day in ("2026-12-01", "2026-11-30", "2026-11-01", "2026-10-31", "2025-11-15"):
        append(store, day, f"entry of {day}")

    assert [d for d, _, _ in days(store, month="2026-11")] == ["2026-11-30", "2026-11-01"]
    assert [d for d, _, _ in days(store, month="2026-12")] == ["2026-12-01"]  # December's end
    assert days(store, month="2026-02") == []
    assert [d for d, _, _ in days(store, date_from="2026-10-31", date_to="2026-11-01")] == [
        "2026-11-01",
        "2026-10-31",
    ]
    assert [d for d, _, _ in days(store, date_from="2026-11-30")] == ["2026-12-01", "2026-11-30"]
    assert [d for d, _, _ in days(store, date_to="2025-12-31")] == ["2025-11-15"]


def test_the_limit_truncates_but_the_total_counts_every_day(store: MemoryStore) -> None:
    for number in range(1, 6):
        append(store, f"2026-11-0{number}", "entry")

    result = store.journal_days(JournalDaysRequest(limit=2))

    assert [d.date for d in result.days] == ["2026-11-05", "2026-11-04"]
    assert result.total == 5 and result.truncated


def test_an_archived_day_is_marked_read_only(store: MemoryStore) -> None:
    append(store, "2026-08-01", "an old day")  # 121 days before the clock's today
    append(store, "2026-11-29", "a recent day")
    assert store.reconcile().archived_dailies == 1  # past the 90-day retention

    assert days(store) == [("2026-11-29", 1, False), ("2026-08-01", 1, True)]
    with pytest.raises(errors.DailyArchived):
        append(store, "2026-08-01", "too late")
    assert days(store) == [("2026-11-29", 1, False), ("2026-08-01", 1, True)]


def test_a_hand_written_journal_without_an_append_count_has_one_entry(store: MemoryStore) -> None:
    write_file(store.root, "global/daily/2026-11-20.md", "---\ndate: 2026-11-20\n---\n\nnotes\n")
    store.reconcile()

    assert days(store) == [("2026-11-20", 1, False)]


def test_journals_are_global_so_a_project_scope_lists_none(
    store: MemoryStore, workdir: str
) -> None:
    append(store, "2026-11-29", "entry")

    assert [d for d, _, _ in days(store, scope="global")] == ["2026-11-29"]
    assert [d for d, _, _ in days(store, workdir=workdir)] == ["2026-11-29"]  # global + project
    assert days(store, scope="project", workdir=workdir) == []
    assert days(store, scope="project", include_all_projects=True) == []
    with pytest.raises(errors.WorkdirRequired):
        days(store, scope="project")
    with pytest.raises(errors.InvalidScope):
        days(store, scope="everywhere")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"month": "2026-13"}, "month"),
        ({"month": "2026-00"}, "month"),
        ({"month": "2026-1"}, "month"),
        ({"month": "November"}, "month"),
        ({"month": "２０２６-１１"}, "month"),  # full-width digits are not ASCII digits
        ({"month": "2026-11", "date_from": "2026-11-01"}, "month"),
        ({"date_from": "2026-02-30"}, "date_from"),
        ({"date_to": "30/11/2026"}, "date_to"),
        ({"date_from": "2026-11-30", "date_to": "2026-11-01"}, "date_from"),
        ({"limit": 0}, "limit"),
        ({"month": 202611}, "month"),
        ({"day": "2026-11-30"}, "day"),
    ],
)
def test_bad_windows_are_typed_errors(
    store: MemoryStore, payload: dict[str, Any], field: str
) -> None:
    append(store, "2026-11-29", "entry")
    with pytest.raises(errors.InvalidArgument) as caught:
        dispatch(store, "memory_journal_days", payload)
    assert caught.value.field == field
    assert caught.value.to_dict()["error"] == "invalid_argument"


def test_journal_days_read_only_daily_rows_through_the_daily_index(
    store: MemoryStore, statements: list[tuple[str, Any]]
) -> None:
    append(store, "2026-11-29", "entry")
    statements.clear()

    store.journal_days(JournalDaysRequest(month="2026-11"))

    assert len(statements) == 2  # the count and the page
    with store.index.read() as conn:
        for statement, parameters in statements:
            rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
            plan = " ".join(str(row[-1]) for row in rows)
            assert "idx_memory_meta_daily" in plan, plan


# --- memory_projects --------------------------------------------------------------------------


def test_an_empty_store_lists_only_the_global_scope(store: MemoryStore) -> None:
    result = dispatch(store, "memory_projects", {})

    assert result == {
        "projects": [
            {
                "scope": "global",
                "workdir_hash": "",
                "workdir": None,
                "folder_exists": None,
                "counts": dict.fromkeys(TYPES, 0),
                "unreviewed": 0,
                "used": 0,
                "limit": 500,
                "headroom": 500,
                "ladder": "normal",
                "updated_at": None,
                "project_id": None,
                "paths": [],
                "folders": [],
                "marker_problem": None,
            }
        ],
        "project_count": 0,
    }


def test_two_projects_and_global_with_counts_and_quota(
    store: MemoryStore,
    clock: FakeClock,
    tmp_path: Path,
    statements: list[tuple[str, Any]],
) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    remember(store, "tea", type="user", actor="extractor")  # unreviewed
    remember(store, "no-emoji", type="feedback")
    store.append_daily(DailyAppendRequest(body="journal"))
    clock.advance(seconds=60)
    for slug, memory_type in (("build", "project"), ("deploy", "project"), ("api", "reference")):
        remember(store, slug, scope="project", type=memory_type, workdir=str(alpha))
    remember(store, "guess", scope="project", type="project", workdir=str(alpha), actor="extractor")
    clock.advance(seconds=60)
    remember(store, "lint", scope="project", type="project", workdir=str(beta))  # newest
    shutil.rmtree(beta)  # the project's folder was deleted; its memories remain
    statements.clear()

    result = dispatch(store, "memory_projects", {})

    assert len(statements) == 1  # one GROUP BY, however many projects
    rows = result["projects"]
    assert [(r["scope"], r["workdir"]) for r in rows] == [
        ("global", None),
        ("project", str(beta.resolve())),  # most recently changed first
        ("project", str(alpha.resolve())),
    ]
    glob, b, a = rows
    assert glob["counts"] == {
        "user": 1,
        "feedback": 1,
        "project": 0,
        "reference": 0,
        "skill": 0,
        "daily": 1,
    }
    assert (glob["used"], glob["unreviewed"], glob["headroom"]) == (2, 1, 498)
    assert a["counts"] == {
        "user": 0,
        "feedback": 0,
        "project": 3,
        "reference": 1,
        "skill": 0,
        "daily": 0,
    }
    assert (a["used"], a["unreviewed"], a["limit"], a["headroom"]) == (4, 1, 500, 496)
    assert a["workdir_hash"] == workdir_hash(str(alpha))
    assert a["folder_exists"] is True
    assert b["folder_exists"] is False  # marked: the folder is gone
    assert b["counts"]["project"] == 1 and b["used"] == 1
    assert [r["ladder"] for r in rows] == ["normal"] * 3
    assert b["updated_at"] > a["updated_at"] > glob["updated_at"]
    assert result["project_count"] == 2
    json.dumps(result)
    # The same figures as the quota summary, scope by scope.
    quota = {
        (s["scope"], s["workdir_hash"]): s
        for s in dispatch(store, "memory_quota_summary")["scopes"]
    }
    for row in rows:
        scope = quota[(row["scope"], row["workdir_hash"])]
        assert (row["used"], row["headroom"], row["unreviewed"]) == (
            scope["used"],
            scope["headroom"],
            scope["unreviewed"],
        )


def test_a_project_without_its_marker_has_an_unknown_folder(
    store: MemoryStore, workdir: str
) -> None:
    remember(store, "build", scope="project", type="project", workdir=workdir)
    (store.root / "projects" / workdir_hash(workdir) / ".workdir.json").unlink()

    [_, project] = store.projects().projects

    assert (project.workdir, project.folder_exists) == (None, None)
    assert project.used == 1


def test_each_scope_gets_its_own_ladder_level(home: Path, clock: FakeClock, workdir: str) -> None:
    with MemoryStore.open(home, clock=clock, scope_limit=30) as small:
        for number in range(26):
            remember(small, f"note-{number:02d}", scope="project", type="project", workdir=workdir)
        remember(small, "global-note")

        glob, project = small.projects().projects

    assert (glob.used, glob.headroom, glob.ladder) == (1, 29, "degraded")  # <= 50
    assert (project.used, project.headroom, project.ladder) == (26, 4, "exhausted")  # <= 5


def test_deleted_memories_leave_the_counts(store: MemoryStore, workdir: str) -> None:
    remember(store, "build", scope="project", type="project", workdir=workdir)
    dispatch(store, "memory_delete", {"slug": "build", "workdir": workdir, "actor": "user"})

    assert [p.scope for p in store.projects().projects] == ["global"]

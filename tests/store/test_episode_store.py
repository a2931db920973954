"""Episodes in a real store: files, index, search, list, timeline, reconcile (store/episodes.py)."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    EpisodeExists,
    EpisodeNotFound,
    EpisodeUnreadable,
    InvalidArgument,
    RiskHardBlocked,
)
from liveagent_memory.domain.requests import (
    EpisodeListRequest,
    EpisodeReadRequest,
    TimelineRequest,
)
from liveagent_memory.paths import workdir_hash
from liveagent_memory.retrieval.episodes import normalize_episode
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock


def record(store: MemoryStore, replace: bool = False, **fields: Any) -> dict[str, Any]:
    episode = {"goal": "do something", **fields}
    return dispatch(store, "episode_record", {"episode": episode, "replace": replace})


def listed(store: MemoryStore, **filters: Any) -> list[str]:
    return [row["id"] for row in dispatch(store, "episode_list", filters)["episodes"]]


def found(store: MemoryStore, query: str, workdir: str | None = None) -> list[str]:
    return [hit.id for hit in store.episode_search(query, workdir=workdir).hits]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- recording ------------------------------------------------------------------------------------


def test_an_episode_is_a_private_json_file_under_its_utc_date(store: MemoryStore) -> None:
    result = record(
        store,
        goal="Fix the login crash",
        timestamp="2026-11-30T01:30:00+08:00",  # 2026-11-29 17:30 UTC
        outcome="failure",
        action_log=[{"action": "run_test", "target": "login", "result": "1 failed", "t": 2}],
    )
    episode_id = result["episode"]["id"]
    assert result["created"] and result["date"] == "2026-11-29"
    assert result["path"] == f"episodes/2026-11-29/{episode_id}.json"
    path = store.root / result["path"]
    data = json.loads(path.read_text("utf-8"))
    assert data == result["episode"]
    assert data["timestamp"] == "2026-11-29T17:30:00.000Z"
    assert data["action_log"][0] == {
        "tool": "run_test",
        "input": "login",
        "output": "1 failed",
        "timestamp": "2026-11-29T17:30:02.000Z",
    }
    assert data["importance"] == 0.4  # REFERENCE B4: failure
    assert mode(path) == config.FILE_MODE
    assert mode(path.parent) == config.DIR_MODE
    assert mode(store.layout.episodes_dir) == config.DIR_MODE
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp files


def test_record_through_the_store_method_with_a_default_workdir(
    store: MemoryStore, workdir: str
) -> None:
    episode = normalize_episode(
        {"goal": "refactor the parser"}, now_ms=store.now_ms(), default_workdir=workdir
    )
    result = store.record_episode(episode)
    assert result.episode.workdir_hash == workdir_hash(workdir)
    assert result.episode.task_type == "refactoring"
    assert result.date_local == "2026-11-30"  # the FakeClock's noon, UTC


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": "../../outside"}, "id"),  # a path in the id: the file would land elsewhere
        ({"id": "a.b"}, "id"),
        ({"timestamp": "2026-11-30T12:00:00+08:00"}, "timestamp"),  # not UTC
        ({"timestamp": "soon"}, "timestamp"),
        ({"task_type": "cooking"}, "task_type"),
        ({"task_type": ""}, "task_type"),
        ({"phase": "act"}, "phase"),
        ({"workdir": "/somewhere", "workdir_hash": ""}, "workdir_hash"),  # a folder, no key
        ({"goal": "  padded  "}, "goal"),
        ({"importance": 1.5}, "importance"),
    ],
)
def test_the_store_refuses_an_episode_that_is_not_normalized(
    store: MemoryStore, change: dict[str, Any], field: str
) -> None:
    good = normalize_episode({"goal": "g", "id": "ep-x"}, now_ms=store.now_ms())
    bad = dataclasses.replace(good, **change)
    with pytest.raises(InvalidArgument) as info:
        store.record_episode(bad)
    assert info.value.field == field
    assert not store.layout.episodes_dir.exists() and listed(store) == []
    assert store.record_episode(good).created  # the normalized one is stored


def test_a_duplicate_id_is_refused_and_replace_overwrites(store: MemoryStore) -> None:
    first = record(store, id="ep-fixed-1", goal="first try", timestamp="2026-11-30T08:00:00Z")
    with pytest.raises(EpisodeExists) as info:
        record(store, id="ep-fixed-1", goal="second try", timestamp="2026-11-30T09:00:00Z")
    assert info.value.field == "id"
    path = store.root / first["path"]
    assert json.loads(path.read_text("utf-8"))["goal"] == "first try"  # nothing lost

    replaced = record(
        store, replace=True, id="ep-fixed-1", goal="second try", timestamp="2026-11-30T09:00:00Z"
    )
    assert not replaced["created"] and replaced["path"] == first["path"]
    assert json.loads(path.read_text("utf-8"))["goal"] == "second try"
    assert listed(store) == ["ep-fixed-1"]


def test_replacing_with_another_day_moves_the_file(store: MemoryStore) -> None:
    first = record(store, id="ep-move", timestamp="2026-11-30T08:00:00Z")
    moved = record(store, replace=True, id="ep-move", timestamp="2026-11-28T08:00:00Z")
    assert moved["path"] == "episodes/2026-11-28/ep-move.json"
    assert not (store.root / first["path"]).exists()
    assert [row["path"] for row in dispatch(store, "episode_list", {})["episodes"]] == [
        moved["path"]
    ]
    assert store.reconcile().problems == []


def test_bad_episodes_are_typed_errors_and_write_nothing(store: MemoryStore) -> None:
    for episode, field in [
        ({"goal": "g", "phase": "PLAN"}, "phase"),
        ({"goal": "g", "outcome": "meh"}, "outcome"),
        ({"goal": "g", "timestamp": "last tuesday"}, "timestamp"),
        ({"summary": "no goal"}, "goal"),
    ]:
        ok, error = call(store, "episode_record", {"episode": episode})
        assert not ok and error["error"] == "invalid_argument" and error["field"] == field
    ok, error = call(store, "episode_record", {"episode": "not an object"})
    assert not ok and error["field"] == "episode"
    assert not store.layout.episodes_dir.exists()


def test_an_episode_holding_a_secret_is_refused(store: MemoryStore) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    with pytest.raises(RiskHardBlocked):
        record(store, action_log=[{"tool": "bash", "input": f"export AWS_KEY={key}"}])
    assert listed(store) == [] and not store.layout.episodes_dir.exists()


def test_an_episode_without_a_start_is_filed_under_its_first_action(store: MemoryStore) -> None:
    result = record(
        store,
        goal="replay yesterday's session",
        action_log=[
            {"tool": "edit_file", "timestamp": "2026-11-27T23:30:00-01:00"},  # 11-28 00:30 UTC
            {"tool": "run_test", "timestamp": "2026-11-28T01:00:00Z"},
        ],
    )
    episode = result["episode"]
    assert episode["timestamp"] == "2026-11-28T00:30:00.000Z"  # the clock says 11-30 12:00
    assert episode["duration_seconds"] == 1800
    assert result["path"].startswith("episodes/2026-11-28/ep-2026-11-28-")
    assert listed(store, date="2026-11-28") == [episode["id"]]


def test_a_hand_added_file_without_a_task_type_gets_the_detected_one(store: MemoryStore) -> None:
    # Reconcile detects with the same detector as `episode_record` (domain/task_types.py).
    folder = store.layout.episodes_dir / "2026-11-20"
    folder.mkdir(parents=True)
    trace = {"goal": "Fix the login crash", "timestamp": "2026-11-20T08:00:00Z"}
    (folder / "by-hand.json").write_text(json.dumps(trace), "utf-8")
    (folder / "typed.json").write_text(json.dumps({**trace, "task_type": "Review"}), "utf-8")
    (folder / "vague.json").write_text(json.dumps({**trace, "goal": "Tuesday"}), "utf-8")
    assert store.reconcile().problems == []
    rows = {r["id"]: r for r in dispatch(store, "episode_list", {})["episodes"]}
    assert rows["by-hand"]["task_type"] == "debugging"
    assert rows["typed"]["task_type"] == "review"
    assert rows["vague"]["task_type"] == "implementation"  # REFERENCE B3: no signal
    recorded = record(store, replace=True, id="by-hand", **trace)
    assert recorded["episode"]["task_type"] == "debugging"
    assert listed(store, task_type="debugging") == ["by-hand"]


# --- reading and listing --------------------------------------------------------------------------


def test_read_by_id_and_not_found(store: MemoryStore) -> None:
    result = record(store, goal="build the export", key_decisions=["CSV first"])
    read = store.episode_read(EpisodeReadRequest(id=result["episode"]["id"]))
    assert read.episode.key_decisions == ["CSV first"] and read.path == result["path"]
    with pytest.raises(EpisodeNotFound):
        store.episode_read(EpisodeReadRequest(id="ep-nope"))


def test_list_newest_first_with_filters(store: MemoryStore, workdir: str) -> None:
    record(store, id="a", goal="fix bug one", timestamp="2026-11-28T10:00:00Z", outcome="failure")
    record(store, id="b", goal="add the feature", timestamp="2026-11-29T10:00:00Z")
    record(store, id="c", goal="review the PR", timestamp="2026-11-30T10:00:00Z", workdir=workdir)
    record(store, id="d", goal="fix bug two", timestamp="2026-11-30T11:00:00Z", outcome="partial")

    assert listed(store) == ["d", "c", "b", "a"]
    assert listed(store, date="2026-11-30") == ["d", "c"]
    assert listed(store, outcome="failure") == ["a"]
    assert listed(store, task_type="debugging") == ["d", "a"]
    assert listed(store, task_type="debugging", outcome="partial") == ["d"]
    # A workdir keeps its project's episodes and the ones tied to no project.
    other = workdir + "-other"
    record(store, id="e", goal="elsewhere", timestamp="2026-11-30T12:00:00Z", workdir=other)
    assert listed(store, workdir=workdir) == ["d", "c", "b", "a"]
    assert listed(store, workdir_hash=workdir_hash(other)) == ["e", "d", "b", "a"]
    page = dispatch(store, "episode_list", {"limit": 2, "offset": 1})
    assert [row["id"] for row in page["episodes"]] == ["d", "c"]
    assert page["total"] == 5 and page["truncated"]
    row = page["episodes"][0]
    assert (row["action_count"], row["error_count"], row["date"]) == (0, 0, "2026-11-30")


def test_list_by_journal_day_uses_the_local_rollover(store: MemoryStore) -> None:
    # Tests run in UTC (conftest); the journal's day starts at 04:00.
    record(store, id="late-night", timestamp="2026-11-30T03:00:00Z")
    record(store, id="morning", timestamp="2026-11-30T05:00:00Z")
    assert listed(store, date="2026-11-30") == ["morning", "late-night"]
    assert listed(store, date_local="2026-11-30") == ["morning"]
    assert listed(store, date_local="2026-11-29") == ["late-night"]
    rows = dispatch(store, "episode_list", {})["episodes"]
    assert [(r["date"], r["date_local"]) for r in rows] == [
        ("2026-11-30", "2026-11-30"),
        ("2026-11-30", "2026-11-29"),
    ]


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"date": "2026-02-30"}, "date"),
        ({"date_local": "today"}, "date_local"),
        ({"outcome": "great"}, "outcome"),
        ({"task_type": "cooking"}, "task_type"),
        ({"limit": 0}, "limit"),
    ],
)
def test_bad_list_filters_are_typed_errors(
    store: MemoryStore, filters: dict[str, Any], field: str
) -> None:
    ok, error = call(store, "episode_list", filters)
    assert not ok and error["error"] == "invalid_argument" and error["field"] == field


# --- search ---------------------------------------------------------------------------------------


def test_search_in_english_with_stems_and_ranking(store: MemoryStore) -> None:
    record(store, id="crash", goal="Fix the crash when logging in on Safari")
    record(
        store,
        id="cache",
        goal="Speed up the cache",
        errors_encountered=[{"error_type": "Timeout", "message": "redis crashed twice"}],
    )
    record(store, id="docs", goal="Write the install guide", key_decisions=["use mkdocs"])
    assert found(store, "crashes") == ["crash", "cache"]  # Porter stems; the goal weighs more
    assert found(store, "mkdocs") == ["docs"]
    assert found(store, "redis timeout") == ["cache"]
    assert found(store, "kubernetes") == []
    assert sorted(found(store, "the")) == ["cache", "crash", "docs"]  # only stop words count
    hit = store.episode_search("safari").hits[0]
    assert "[Safari]" in hit.snippet and hit.score > 0


def test_search_in_chinese(store: MemoryStore) -> None:
    record(store, id="zh-login", goal="修复用户登录页面的崩溃问题", summary="原因是会话过期")
    record(store, id="zh-cache", goal="优化缓存", key_decisions=["改用本地缓存以减少请求"])
    assert found(store, "登录") == ["zh-login"]  # a two-character word inside a sentence
    assert found(store, "会话") == ["zh-login"]
    assert found(store, "缓存") == ["zh-cache"]
    assert found(store, "减少请求") == ["zh-cache"]
    assert "[登录]" in store.episode_search("登录").hits[0].snippet


def test_search_by_workdir_and_limit(store: MemoryStore, workdir: str) -> None:
    record(store, id="here", goal="deploy the service", workdir=workdir)
    record(store, id="there", goal="deploy the website", workdir=workdir + "-other")
    record(store, id="anywhere", goal="deploy notes")
    assert sorted(found(store, "deploy", workdir=workdir)) == ["anywhere", "here"]
    assert len(found(store, "deploy")) == 3
    assert len(store.episode_search("deploy", limit=1).hits) == 1


def search_command(store: MemoryStore, **payload: Any) -> list[str]:
    return [hit["id"] for hit in dispatch(store, "episode_search", payload)["hits"]]


def test_the_episode_search_command_in_english_and_chinese(
    store: MemoryStore, workdir: str
) -> None:
    record(store, id="en", goal="Fix the crash when logging in", workdir=workdir)
    record(store, id="zh", goal="修复用户登录页面的崩溃问题", summary="原因是会话过期")
    record(store, id="other", goal="Write the install guide", workdir=workdir + "-other")
    data = dispatch(store, "episode_search", {"query": "crashes"})
    assert [hit["id"] for hit in data["hits"]] == ["en"]  # Porter stems
    assert data["terms"] == ["crashes"] and data["hits"][0]["score"] > 0
    assert "[crash]" in dispatch(store, "episode_search", {"query": "crash"})["hits"][0]["snippet"]
    assert search_command(store, query="登录 会话") == ["zh"]
    assert search_command(store, query="登录") == ["zh"]
    assert search_command(store, query="install guide", workdir=workdir) == []  # not this project
    assert search_command(store, query="install guide") == ["other"]
    assert search_command(store, query="kubernetes") == []
    json.dumps(dispatch(store, "episode_search", {"query": "crash"}))  # JSON all the way


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   \n"}, "query"),
        ({}, "query"),
        ({"query": "crash", "limit": 0}, "limit"),
        ({"query": "crash", "limit": -3}, "limit"),
        ({"query": "crash", "limit": "many"}, "limit"),
        ({"query": "crash", "workdir_hash": "x"}, "workdir_hash"),  # unknown field
    ],
)
def test_bad_episode_searches_are_typed_errors(
    store: MemoryStore, payload: dict[str, Any], field: str
) -> None:
    ok, error = call(store, "episode_search", payload)
    assert not ok and error["error"] == "invalid_argument" and error["field"] == field


def test_episode_search_limit_bounds(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(4):
        record(store, id=f"deploy-{n}", goal=f"deploy service {n}")
    assert len(search_command(store, query="deploy")) == 4
    assert len(search_command(store, query="deploy", limit=1)) == 1
    monkeypatch.setattr(config, "EPISODE_SEARCH_MAX_LIMIT", 3)
    assert len(search_command(store, query="deploy", limit=1000)) == 3  # cut to the maximum
    assert len(search_command(store, query="deploy")) == 3  # the default is cut too


# --- timeline -------------------------------------------------------------------------------------


def test_timeline_from_the_store(store: MemoryStore, workdir: str) -> None:
    for n in range(3):
        record(
            store,
            id=f"ep-{n}",
            goal=f"task {n}",
            timestamp=f"2026-11-2{n}T10:00:00Z",
            action_log=[{"tool": f"tool-{n}-{i}", "t": i} for i in range(60)],
            key_decisions=[f"decision {n}"],
            outcome="partial" if n == 1 else "success",
            errors_encountered=[{"error_type": "E", "message": f"error {n}"}],
        )
    timeline = store.episode_timeline(TimelineRequest())
    assert len(timeline.recent_actions) == 100
    assert timeline.recent_actions[0].action == "tool-2-59"
    assert timeline.recent_actions[0].episode_id == "ep-2"
    assert [d.decision for d in timeline.key_decisions] == [
        "decision 2",
        "decision 1",
        "decision 0",
    ]
    assert timeline.active_context.current_focus == "task 1"  # the open one
    assert [b.message for b in timeline.active_context.blocked_by] == ["error 1"]
    limited = dispatch(store, "episode_timeline", {"actions_limit": 5, "decisions_limit": 1})
    assert len(limited["recent_actions"]) == 5 and len(limited["key_decisions"]) == 1
    assert dispatch(store, "episode_timeline", {"workdir": workdir})["episodes_scanned"] == 3
    record(store, id="mine", goal="project work", workdir=workdir + "-x", outcome="failure")
    assert store.episode_timeline(TimelineRequest()).active_context.focus_episode_id == "mine"
    scoped = store.episode_timeline(TimelineRequest(workdir=workdir))
    assert scoped.active_context.focus_episode_id == "ep-1"  # the other project is left out


# --- reconcile: files are the truth ---------------------------------------------------------------


def test_a_hand_deleted_file_disappears_after_reconcile(store: MemoryStore) -> None:
    kept = record(store, id="kept", goal="stay")
    gone = record(store, id="gone", goal="vanish")
    (store.root / gone["path"]).unlink()
    report = store.reconcile()
    assert report.removed == 1
    assert listed(store) == ["kept"]
    assert found(store, "vanish") == []
    assert (store.root / kept["path"]).exists()


def test_hand_added_and_edited_files_are_picked_up(store: MemoryStore, clock: FakeClock) -> None:
    folder = store.layout.episodes_dir / "2026-11-20"
    folder.mkdir(parents=True)
    loki: dict[str, Any] = {  # a Loki Mode file, named its way, without our fields
        "task_id": "t-1",
        "timestamp": "2026-11-20T08:00:00Z",
        "agent": "eng",
        "context": {"phase": "ACT", "goal": "Investigate the flaky test", "files_involved": []},
        "action_log": [{"t": 0, "action": "run_test", "target": "suite", "result": "flaky"}],
        "outcome": "partial",
        "errors_encountered": [],
    }
    (folder / "task-ep-2026-11-20-abc.json").write_text(json.dumps(loki), "utf-8")
    report = store.reconcile()
    assert report.added == 1 and report.problems == []
    assert listed(store) == ["ep-2026-11-20-abc"]  # the id came from the file name
    assert found(store, "flaky") == ["ep-2026-11-20-abc"]

    path = folder / "task-ep-2026-11-20-abc.json"
    loki["context"]["goal"] = "Investigate the slow build"
    path.write_text(json.dumps(loki), "utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    assert store.reconcile().updated == 1
    assert found(store, "slow build") == ["ep-2026-11-20-abc"]
    assert found(store, "flaky test") == ["ep-2026-11-20-abc"]  # the action still says flaky
    assert store.reconcile().unchanged >= 1  # nothing changed: nothing re-read


def test_a_same_size_edit_whose_old_mtime_a_sync_restored_is_noticed(
    store: MemoryStore,
) -> None:
    kept = record(store, id="synced", goal="Tune the walrus cache")
    path = store.root / kept["path"]
    assert store.reconcile().unchanged >= 1
    before = path.stat()
    data = path.read_bytes()
    edited = data.replace(b"walrus", b"badger")
    assert len(edited) == len(data) and edited != data
    path.write_bytes(edited)  # what a sync tool that keeps mtimes leaves behind
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (before.st_mtime_ns, before.st_size)

    assert store.reconcile().updated == 1
    assert found(store, "badger") == ["synced"]
    assert found(store, "walrus") == []
    assert store.reconcile().updated == 0


def test_a_corrupt_file_is_a_problem_and_stays_on_disk(store: MemoryStore) -> None:
    good = record(store, id="good", goal="fine")
    bad = store.layout.episodes_dir / "2026-11-30" / "broken.json"
    bad.write_text('{"goal": "half', "utf-8")
    invalid = store.layout.episodes_dir / "2026-11-30" / "invalid.json"
    invalid.write_text(json.dumps({"goal": "g", "timestamp": "2026-11-30T00:00:00Z", "phase": "X"}))
    no_time = store.layout.episodes_dir / "2026-11-30" / "no-time.json"
    no_time.write_text(json.dumps({"goal": "g"}))
    report = store.reconcile()
    reasons = {p.path: p.reason for p in report.problems}
    assert reasons["episodes/2026-11-30/broken.json"].startswith("not valid JSON")
    assert "phase must be one of" in reasons["episodes/2026-11-30/invalid.json"]
    assert "timestamp is required" in reasons["episodes/2026-11-30/no-time.json"]
    assert bad.read_text("utf-8") == '{"goal": "half'  # never deleted or rewritten
    problems = {p["path"] for p in dispatch(store, "memory_problems", {})["problems"]}
    assert "episodes/2026-11-30/broken.json" in problems
    assert listed(store) == ["good"]
    assert (store.root / good["path"]).exists()

    bad.write_text(json.dumps({"goal": "now whole", "timestamp": "2026-11-30T01:00:00Z"}))
    os.utime(bad, ns=(bad.stat().st_atime_ns, bad.stat().st_mtime_ns + 1_000_000_000))
    report = store.reconcile()
    assert "episodes/2026-11-30/broken.json" not in {p.path for p in report.problems}
    assert listed(store) == ["good", "broken"]


def test_duplicate_ids_and_misplaced_files_are_problems(store: MemoryStore) -> None:
    original = record(store, id="twin", goal="one", timestamp="2026-11-30T08:00:00Z")
    copy = store.layout.episodes_dir / "2026-11-30" / "twin-copy.json"
    copy.write_bytes((store.root / original["path"]).read_bytes())
    stray = store.layout.episodes_dir / "stray.json"
    stray.write_text("{}")
    (store.layout.episodes_dir / "misc").mkdir()
    (store.layout.episodes_dir / "misc" / "x.json").write_text("{}")
    reasons = {p.path: p.reason for p in store.reconcile().problems}
    assert reasons["episodes/2026-11-30/twin-copy.json"].startswith("duplicate:")
    assert "YYYY-MM-DD" in reasons["episodes/stray.json"]
    assert "YYYY-MM-DD" in reasons["episodes/misc/x.json"]
    assert listed(store) == ["twin"]
    # The original goes: the copy now holds the id (a duplicate is re-checked every pass).
    (store.root / original["path"]).unlink()
    report = store.reconcile()
    assert "episodes/2026-11-30/twin-copy.json" not in {p.path for p in report.problems}
    read = store.episode_read(EpisodeReadRequest(id="twin"))
    assert read.path == "episodes/2026-11-30/twin-copy.json"


def test_read_reports_a_file_edited_into_garbage(store: MemoryStore) -> None:
    result = record(store, id="fragile", goal="g")
    (store.root / result["path"]).write_text("garbage")
    with pytest.raises(EpisodeUnreadable):
        store.episode_read(EpisodeReadRequest(id="fragile"))
    (store.root / result["path"]).unlink()
    with pytest.raises(EpisodeNotFound):
        store.episode_read(EpisodeReadRequest(id="fragile"))


def test_the_index_is_rebuilt_from_the_files(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        record(store, id="one", goal="remember the 登录 fix")
        record(store, id="two", goal="second")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{home / config.INDEX_FILENAME}{suffix}").unlink(missing_ok=True)
    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.created
        assert listed(store) == ["two", "one"]
        assert found(store, "登录") == ["one"]


def test_disagreeing_episode_tables_are_rebuilt(store: MemoryStore) -> None:
    record(store, id="solid", goal="keep me searchable")
    db = sqlite3.connect(store.layout.index_path)
    db.execute("DELETE FROM episode_search")
    db.commit()
    db.close()
    report = store.reconcile()
    assert report.full_rebuild
    assert found(store, "searchable") == ["solid"]


def test_an_older_index_without_episode_tables_is_upgraded(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        record(store, id="kept", goal="survives the upgrade")
    db = sqlite3.connect(home / config.INDEX_FILENAME)
    for table in ("episode_search", "episode_meta", "episode_files"):
        db.execute(f"DROP TABLE {table}")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with MemoryStore.open(home, clock=clock) as store:
        assert listed(store) == ["kept"]


def test_wipe_all_moves_episodes_too(store: MemoryStore) -> None:
    record(store, id="old", goal="before the wipe")
    result = store.wipe_all(confirm=True)
    assert (Path(result["backup_path"]) / "episodes").is_dir()
    assert listed(store) == [] and not store.layout.episodes_dir.exists()


def test_episode_commands_are_in_the_table(store: MemoryStore) -> None:
    result = record(store, goal="g")
    for name, payload in [
        ("episode_list", {}),
        ("episode_read", {"id": result["episode"]["id"]}),
        ("episode_timeline", {}),
    ]:
        json.dumps(dispatch(store, name, payload))
    ok, error = call(store, "episode_read", {})
    assert not ok and error["field"] == "id"
    with pytest.raises(InvalidArgument):
        dispatch(store, "episode_record", {"goal": "flat fields are not the payload"})
    assert store.episode_list(EpisodeListRequest(limit=1)).total == 1

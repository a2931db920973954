"""Episode normalization, importance and the timeline (retrieval/episodes.py), no store."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import journal_date, journal_day_bounds, time_ms
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import (
    EpisodeReadRequest,
    EpisodeRecordRequest,
    EpisodeSearchRequest,
)
from liveagent_memory.domain.schema import Episode
from liveagent_memory.paths import workdir_hash
from liveagent_memory.retrieval.episodes import normalize_episode, record_episode, search_episodes
from liveagent_memory.store.episode_docs import (
    calculate_importance,
    episode_document,
    episode_from_document,
)
from liveagent_memory.store.episode_timeline import build_timeline, open_episodes
from liveagent_memory.store.store import MemoryStore
from tests.helpers.checks import present

NOW = int(datetime(2026, 11, 30, 12, 0, tzinfo=UTC).timestamp() * 1000)


def normalize(raw: dict[str, Any], **kwargs: Any) -> Episode:
    return normalize_episode(raw, now_ms=NOW, **kwargs)


def field_of(raw: Any, **kwargs: Any) -> str | None:
    with pytest.raises(InvalidArgument) as info:
        normalize_episode(raw, now_ms=NOW, **kwargs)
    return info.value.field


# --- both action forms, times -----------------------------------------------------------------


def test_both_action_forms_normalize_to_the_same_entries() -> None:
    start = "2026-11-30T10:00:00Z"
    ours = normalize(
        {
            "goal": "fix the login crash",
            "timestamp": start,
            "action_log": [
                {
                    "tool": "read_file",
                    "input": "src/login.ts",
                    "output": "200 lines",
                    "timestamp": 5,
                },
                {"tool": "run_test", "input": {"k": "login"}, "output": "1 failed"},
            ],
        }
    )
    reference = normalize(
        {
            "goal": "fix the login crash",
            "timestamp": start,
            "action_log": [
                {"t": 5, "action": "read_file", "target": "src/login.ts", "result": "200 lines"},
                {"action": "run_test", "target": {"k": "login"}, "result": "1 failed"},
            ],
        }
    )
    assert ours.action_log == reference.action_log
    first, second = ours.action_log
    assert (first.tool, first.input, first.output) == ("read_file", "src/login.ts", "200 lines")
    # REFERENCE B2: a small number is seconds since the start.
    assert first.timestamp == "2026-11-30T10:00:05.000Z"
    assert second.input == '{"k": "login"}'  # structured input kept as JSON text
    assert second.timestamp is None


def test_an_action_naming_one_field_twice_differently_is_refused() -> None:
    raw = {"goal": "g", "action_log": [{"tool": "a", "action": "b"}]}
    assert field_of(raw) == "action_log[0].tool"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-30T17:30:00+08:00", "2026-11-30T09:30:00.000Z"),
        ("2026-11-30T04:30:00-05:00", "2026-11-30T09:30:00.000Z"),
        ("2026-11-30T09:30:00Z", "2026-11-30T09:30:00.000Z"),
        ("2026-11-30T09:30:00", "2026-11-30T09:30:00.000Z"),  # naive means UTC
        ("2026-11-30 09:30:00.250", "2026-11-30T09:30:00.250Z"),
        (1_796_031_000, "2026-11-30T09:30:00.000Z"),  # epoch seconds
        (1_796_031_000.5, "2026-11-30T09:30:00.500Z"),
        (1_796_031_000_123, "2026-11-30T09:30:00.123Z"),  # epoch milliseconds
        ("1796031000", "2026-11-30T09:30:00.000Z"),  # digits as text
    ],
)
def test_start_times_become_utc_rfc3339(value: object, expected: str) -> None:
    assert normalize({"goal": "g", "timestamp": value}).timestamp == expected


def test_absolute_action_times_and_other_times_are_utc_too() -> None:
    episode = normalize(
        {
            "goal": "g",
            "timestamp": "2026-11-30T09:00:00Z",
            "last_accessed": "2026-12-01T08:00:00+08:00",
            "action_log": [
                {"tool": "a", "timestamp": "2026-11-30T18:00:00+09:00"},
                {"tool": "b", "timestamp": 1_796_032_800_000},
            ],
        }
    )
    assert [a.timestamp for a in episode.action_log] == [
        "2026-11-30T09:00:00.000Z",
        "2026-11-30T10:00:00.000Z",
    ]
    assert episode.last_accessed == "2026-12-01T00:00:00.000Z"
    assert episode.recorded_at == "2026-11-30T12:00:00.000Z"  # now


def test_a_missing_start_is_now() -> None:
    assert normalize({"goal": "g"}).timestamp == "2026-11-30T12:00:00.000Z"


def test_a_missing_start_is_the_earliest_absolute_action_time() -> None:
    episode = normalize(
        {
            "goal": "g",
            "action_log": [
                {"tool": "b", "timestamp": "2026-11-29T08:05:00+08:00"},  # 00:05 UTC
                {"tool": "a", "timestamp": "2026-11-28T23:58:00Z"},  # the earliest, out of order
                {"tool": "c", "t": 90},  # seconds after the start found above
                {"tool": "d"},  # no time at all
            ],
        }
    )
    assert episode.timestamp == "2026-11-28T23:58:00.000Z"  # not now
    assert re.fullmatch(r"ep-2026-11-28-[0-9a-f]{8}", episode.id)  # dated by that start
    assert [a.timestamp for a in episode.action_log] == [
        "2026-11-29T00:05:00.000Z",
        "2026-11-28T23:58:00.000Z",
        "2026-11-28T23:59:30.000Z",
        None,
    ]
    assert episode.duration_seconds == 7 * 60  # last - first action time
    assert episode.recorded_at == "2026-11-30T12:00:00.000Z"  # recording is still now


def test_relative_action_times_alone_start_now_and_give_the_duration() -> None:
    episode = normalize(
        {"goal": "g", "action_log": [{"tool": "a", "t": 2}, {"tool": "b", "t": 92.5}]}
    )
    assert episode.timestamp == "2026-11-30T12:00:00.000Z"
    assert episode.action_log[0].timestamp == "2026-11-30T12:00:02.000Z"
    assert episode.duration_seconds == 90.5


@pytest.mark.parametrize(("text", "number"), [("30", 30), (" 92.5 ", 92.5), ("0", 0)])
def test_an_action_time_in_digit_text_means_the_same_as_the_number(
    text: str, number: float
) -> None:
    def with_time(when: object) -> Episode:
        start = "2026-11-30T10:00:00Z"
        return normalize(
            {"goal": "g", "timestamp": start, "action_log": [{"tool": "a", "t": when}]}
        )

    as_text, as_number = with_time(text), with_time(number)
    assert as_text.action_log == as_number.action_log
    assert as_text.duration_seconds == as_number.duration_seconds
    assert present(as_text.action_log[0].timestamp).startswith("2026-11-30T10:0")  # not 1970


def test_a_given_start_and_duration_win_over_the_actions() -> None:
    actions = [
        {"tool": "a", "timestamp": "2026-11-30T10:00:00Z"},
        {"tool": "b", "timestamp": "2026-11-30T10:30:00Z"},
    ]
    given = normalize(
        {
            "goal": "g",
            "timestamp": "2026-11-30T09:00:00Z",
            "duration_seconds": 7,
            "action_log": actions,
        }
    )
    assert (given.timestamp, given.duration_seconds) == ("2026-11-30T09:00:00.000Z", 7)
    # A given start with no duration: the duration still spans the actions' times.
    start_only = normalize(
        {"goal": "g", "timestamp": "2026-11-30T09:00:00Z", "action_log": actions}
    )
    assert start_only.duration_seconds == 1800
    assert normalize({"goal": "g", "action_log": [{"tool": "a"}]}).duration_seconds == 0
    assert (
        normalize({"goal": "g", "duration_seconds": 0, "action_log": actions}).duration_seconds == 0
    )
    with pytest.raises(InvalidArgument) as info:
        normalize({"goal": "g", "duration_seconds": -1, "action_log": actions})
    assert info.value.field == "duration_seconds"


def test_a_stored_episode_still_needs_its_own_start() -> None:
    # reconcile: a file's actions do not stand in for its missing timestamp
    raw = {"goal": "g", "action_log": [{"tool": "a", "timestamp": "2026-11-28T23:58:00Z"}]}
    assert field_of(raw, require_timestamp=True) == "timestamp"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"goal": "g", "timestamp": "yesterday"}, "timestamp"),
        ({"goal": "g", "timestamp": "2026-13-45T00:00:00Z"}, "timestamp"),
        ({"goal": "g", "timestamp": True}, "timestamp"),
        ({"goal": "g", "timestamp": -5}, "timestamp"),
        ({"goal": "g", "timestamp": float("nan")}, "timestamp"),
        ({"goal": "g", "timestamp": 10**20}, "timestamp"),
        (
            {"goal": "g", "action_log": [{"tool": "a"}, {"tool": "b", "t": -1}]},
            "action_log[1].timestamp",
        ),
        (
            {"goal": "g", "action_log": [{"tool": "a", "timestamp": "soon"}]},
            "action_log[0].timestamp",
        ),
        ({"goal": "g", "last_accessed": "never"}, "last_accessed"),
    ],
)
def test_bad_times_name_their_field(raw: dict[str, Any], field: str) -> None:
    assert field_of(raw) == field


def test_time_ms_threshold_between_seconds_and_milliseconds() -> None:
    below = config.EPISODE_EPOCH_MS_THRESHOLD - 1
    assert time_ms(below, field="t") == below * 1000
    assert (
        time_ms(config.EPISODE_EPOCH_MS_THRESHOLD, field="t") == config.EPISODE_EPOCH_MS_THRESHOLD
    )


# --- ids, enums, required fields ----------------------------------------------------------------


def test_a_missing_id_is_generated_from_the_start_date() -> None:
    first = normalize({"goal": "g", "timestamp": "2026-11-29T23:30:00-02:00"})
    second = normalize({"goal": "g", "timestamp": "2026-11-29T23:30:00-02:00"})
    assert re.fullmatch(r"ep-2026-11-30-[0-9a-f]{8}", first.id)  # the UTC date of the start
    assert first.id != second.id


def test_a_given_id_is_kept_and_a_bad_one_refused() -> None:
    assert normalize({"id": "ep-2026-01-06-001", "goal": "g"}).id == "ep-2026-01-06-001"
    assert field_of({"id": "../../etc/passwd", "goal": "g"}) == "id"
    assert field_of({"id": "a.b", "goal": "g"}) == "id"
    assert field_of({"id": "x" * (config.EPISODE_ID_MAX_CHARS + 1), "goal": "g"}) == "id"
    assert field_of({"id": 7, "goal": "g"}) == "id"


def test_phase_and_outcome_are_normalized_and_checked() -> None:
    episode = normalize({"goal": "g", "phase": "verify", "outcome": "PARTIAL"})
    assert (episode.phase, episode.outcome) == ("VERIFY", "partial")
    defaults = normalize({"goal": "g"})
    assert (defaults.phase, defaults.outcome) == ("ACT", "success")  # REFERENCE B2 defaults
    assert field_of({"goal": "g", "phase": "THINK"}) == "phase"
    assert field_of({"goal": "g", "outcome": "done"}) == "outcome"
    assert field_of({"goal": "g", "outcome": 1}) == "outcome"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({}, "goal"),
        ({"goal": "   "}, "goal"),
        ({"goal": "g", "colour": "red"}, "colour"),
        ({"goal": "g", "action_log": {"tool": "a"}}, "action_log"),
        ({"goal": "g", "action_log": ["read"]}, "action_log[0]"),
        ({"goal": "g", "action_log": [{"input": "x"}]}, "action_log[0].tool"),
        ({"goal": "g", "action_log": [{"tool": "a", "extra": 1}]}, "action_log[0].extra"),
        (
            {"goal": "g", "errors_encountered": [{"error_type": "E"}]},
            "errors_encountered[0].message",
        ),
        ({"goal": "g", "duration_seconds": -1}, "duration_seconds"),
        ({"goal": "g", "tokens_used": 1.5}, "tokens_used"),
        ({"goal": "g", "tokens_used": "many"}, "tokens_used"),
        ({"goal": "g", "importance": 1.5}, "importance"),
        ({"goal": "g", "access_count": -2}, "access_count"),
        ({"goal": "g", "files_read": "a.py"}, "files_read"),
        ({"goal": "g", "files_modified": ["a.py", 3]}, "files_modified[1]"),
        ({"goal": "g", "workdir_hash": "xyz"}, "workdir_hash"),
        ({"goal": "g", "task_type": "cooking"}, "task_type"),
        ({"goal": "g", "context": {"goal": "g", "mood": "ok"}}, "context.mood"),
        ({"goal": ["g"]}, "goal"),
    ],
)
def test_bad_fields_are_named(raw: dict[str, Any], field: str) -> None:
    assert field_of(raw) == field


def test_an_episode_must_be_an_object() -> None:
    assert field_of(["goal"]) == "episode"


# --- limits: refused, never cut -----------------------------------------------------------------


def test_oversize_texts_and_lists_are_refused_with_their_field() -> None:
    assert field_of({"goal": "g" * (config.EPISODE_GOAL_MAX_CHARS + 1)}) == "goal"
    assert field_of({"goal": "g", "summary": "s" * (config.EPISODE_SUMMARY_MAX_CHARS + 1)}) == (
        "summary"
    )
    big = "x" * (config.EPISODE_TEXT_MAX_CHARS + 1)
    assert field_of({"goal": "g", "action_log": [{"tool": "a", "output": big}]}) == (
        "action_log[0].output"
    )
    actions = [{"tool": "a"}] * (config.EPISODE_MAX_ACTIONS + 1)
    assert field_of({"goal": "g", "action_log": actions}) == "action_log"
    decisions = ["d"] * (config.EPISODE_MAX_DECISIONS + 1)
    assert field_of({"goal": "g", "key_decisions": decisions}) == "key_decisions"
    at_limit = normalize({"goal": "g" * config.EPISODE_GOAL_MAX_CHARS})
    assert len(at_limit.goal) == config.EPISODE_GOAL_MAX_CHARS


# --- our fields: task type, workdir, decisions -----------------------------------------------


def test_task_type_is_detected_when_not_given() -> None:
    assert normalize({"goal": "fix the crash on login"}).task_type == "debugging"
    assert normalize({"goal": "重构认证模块"}).task_type == "refactoring"
    by_actions = normalize({"goal": "look around", "action_log": [{"tool": "read_file"}]})
    assert by_actions.task_type == "exploration"
    assert normalize({"goal": "anything", "task_type": "Review"}).task_type == "review"


def test_workdir_becomes_the_project_key(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    episode = normalize({"goal": "g", "workdir": str(folder)})
    assert episode.workdir_hash == workdir_hash(str(folder))
    assert episode.workdir == str(folder.resolve())
    assert normalize({"goal": "g"}, default_workdir=str(folder)).workdir_hash == workdir_hash(
        str(folder)
    )
    assert normalize({"goal": "g"}).workdir_hash == ""
    kept = normalize({"goal": "g", "workdir": "/gone/away", "workdir_hash": "ABCDEF0123456789"})
    assert kept.workdir_hash == "abcdef0123456789"  # a stored key wins over re-hashing


def test_decisions_errors_and_files_are_normalized() -> None:
    episode = normalize(
        {
            "goal": "g",
            "key_decisions": ["use pnpm", {"decision": "drop IE", "rationale": "no users"}, " "],
            "errors_encountered": ["timeout", {"type": "TypeError", "message": "x is undefined"}],
            "files_read": ["a.py", "a.py", " b.py ", ""],
        }
    )
    assert episode.key_decisions == ["use pnpm", "drop IE — no users"]
    assert [(e.error_type, e.message, e.resolution) for e in episode.errors_encountered] == [
        ("error", "timeout", ""),
        ("TypeError", "x is undefined", ""),
    ]
    assert episode.files_read == ["a.py", "b.py"]


def test_a_loki_mode_episode_file_reads_as_it_is() -> None:
    loki = {
        "id": "ep-2026-01-06-001",
        "task_id": "task-42",
        "timestamp": "2026-01-06T10:00:00Z",
        "duration_seconds": 120,
        "agent": "eng-backend",
        "context": {"phase": "ACT", "goal": "Add the users endpoint", "files_involved": ["api.py"]},
        "action_log": [{"t": 0, "action": "write_file", "target": "api.py", "result": "ok"}],
        "outcome": "success",
        "errors_encountered": [{"type": "Lint", "message": "E501", "resolution": "wrapped"}],
        "artifacts_produced": ["api.py"],
        "git_commit": "abc1234",
        "tokens_used": 900,
        "files_read": [],
        "files_modified": ["api.py"],
        "importance": 0.7,
        "access_count": 2,
        "_namespace": "default",
    }
    episode = normalize(loki)
    assert (episode.goal, episode.phase, episode.agent) == (
        "Add the users endpoint",
        "ACT",
        "eng-backend",
    )
    assert episode.task_type == "implementation"
    assert episode.errors_encountered[0].error_type == "Lint"
    assert episode.importance == 0.7 and episode.access_count == 2


def test_the_stored_document_reads_back_unchanged() -> None:
    episode = normalize(
        {
            "goal": "修复登录崩溃",
            "timestamp": 1_796_031_000,
            "action_log": [{"tool": "run_test", "output": "ok", "timestamp": 3}],
            "errors_encountered": [{"error_type": "E", "message": "m", "resolution": "r"}],
            "key_decisions": ["d"],
        }
    )
    document = episode_document(episode)
    assert document == episode.to_dict()
    again = normalize_episode(document, now_ms=NOW + 99_999, require_timestamp=True)
    assert again == episode
    assert episode_from_document(document) == episode


# --- importance (REFERENCE B4) --------------------------------------------------------------------


def test_importance_follows_the_reference_formula() -> None:
    assert calculate_importance("success", 0, 0) == 0.6
    assert calculate_importance("failure", 0, 0) == 0.4
    assert calculate_importance("partial", 0, 0) == 0.5
    assert calculate_importance("success", 2, 0) == 0.7  # errors overcome
    assert calculate_importance("success", 9, 0) == 0.75  # at most 3 count
    assert calculate_importance("failure", 2, 0) == 0.4  # failures get no error bonus
    assert calculate_importance("partial", 0, 10) == round(0.5 + 0.05 * 2.397895, 3)
    assert normalize({"goal": "g", "outcome": "failure"}).importance == 0.4
    assert normalize({"goal": "g", "importance": 0.9}).importance == 0.9
    assert normalize({"goal": "g", "importance": 0}).importance == 0.0


# --- the timeline (REFERENCE B6 layer 2) --------------------------------------------------------


def episode(n: int, **fields: Any) -> Episode:
    """Episode number n starts n hours after 2026-11-01 00:00 UTC."""
    base = {"id": f"ep-{n:03d}", "goal": f"goal {n}", "timestamp": 1_793_491_200 + n * 3600}
    return normalize({**base, **fields})


def newest_first(*episodes: Episode) -> list[Episode]:
    return sorted(episodes, key=lambda e: e.timestamp, reverse=True)


def test_recent_actions_are_newest_first_with_their_episode() -> None:
    older = episode(1, action_log=[{"tool": "a1", "t": 10}, {"tool": "a2", "t": 20}])
    newer = episode(
        2, action_log=[{"tool": "b1", "input": "x", "output": "y", "t": 5}, {"tool": "b2"}]
    )
    timeline = build_timeline(newest_first(older, newer))
    assert [(a.episode_id, a.action) for a in timeline.recent_actions] == [
        ("ep-002", "b1"),  # 5 s after the newer start
        ("ep-002", "b2"),  # no time: the episode's start
        ("ep-001", "a2"),
        ("ep-001", "a1"),
    ]
    first = timeline.recent_actions[0]
    assert (first.target, first.result, first.time) == ("x", "y", "2026-11-01T02:00:05.000Z")


def test_timeline_limits_hold() -> None:
    many = [
        episode(
            n,
            action_log=[{"tool": f"t{n}-{i}", "t": i} for i in range(30)],
            key_decisions=[f"d{n}-{i}" for i in range(20)],
        )
        for n in range(10)
    ]
    timeline = build_timeline(newest_first(*many))
    assert len(timeline.recent_actions) == config.TIMELINE_MAX_RECENT_ACTIONS == 100
    assert len(timeline.key_decisions) == config.TIMELINE_MAX_KEY_DECISIONS == 50
    assert timeline.recent_actions[0].action == "t9-29"
    assert timeline.key_decisions[0].decision == "d9-19"  # newest episode, last decision
    small = build_timeline(newest_first(*many), actions_limit=3, decisions_limit=2)
    assert len(small.recent_actions) == 3 and len(small.key_decisions) == 2
    capped = build_timeline(newest_first(*many), actions_limit=10_000, decisions_limit=10_000)
    assert len(capped.recent_actions) == 100 and len(capped.key_decisions) == 50


def test_timeline_texts_are_shortened_for_a_glance() -> None:
    long = "word " * 200
    timeline = build_timeline([episode(1, action_log=[{"tool": "run", "output": long}])])
    result = timeline.recent_actions[0].result
    assert len(result) == config.TIMELINE_TEXT_MAX_CHARS and result.endswith("…")


def test_active_context_focuses_on_the_newest_open_episode() -> None:
    done_before = episode(1, task_id="t-login", outcome="failure")
    fixed = episode(2, task_id="t-login", outcome="success", goal="fix login")
    stuck = episode(
        3,
        task_id="t-cache",
        outcome="failure",
        goal="speed up the cache",
        errors_encountered=[
            {"error_type": "Timeout", "message": "redis timed out"},
            {"error_type": "Lint", "message": "E501", "resolution": "wrapped"},
        ],
    )
    half = episode(4, task_id="t-docs", outcome="partial", goal="write the docs")
    latest = episode(5, task_id="t-misc", outcome="success", goal="tidy imports")
    timeline = build_timeline(newest_first(done_before, fixed, stuck, half, latest))
    context = timeline.active_context
    assert (context.current_focus, context.focus_episode_id) == ("write the docs", "ep-004")
    assert context.next_up == ["speed up the cache"]  # the login task was fixed since
    assert [(b.episode_id, b.error_type) for b in context.blocked_by] == [("ep-003", "Timeout")]
    assert [e.id for e in open_episodes(newest_first(done_before, fixed, stuck, half))] == [
        "ep-004",
        "ep-003",
    ]


def test_active_context_without_open_work_is_the_newest_episode() -> None:
    timeline = build_timeline(newest_first(episode(1), episode(2, goal="ship it")))
    assert timeline.active_context.current_focus == "ship it"
    assert timeline.active_context.blocked_by == [] and timeline.active_context.next_up == []
    empty = build_timeline([])
    assert empty.active_context.current_focus == "" and empty.recent_actions == []


def test_journal_day_bounds_invert_journal_date() -> None:
    start, end = journal_day_bounds(date(2026, 11, 30), 4)
    assert journal_date(start, 4) == date(2026, 11, 30)
    assert journal_date(end - 1, 4) == date(2026, 11, 30)
    assert journal_date(end, 4) == date(2026, 12, 1)
    assert journal_date(start - 1, 4) == date(2026, 11, 29)
    assert end - start == 24 * 3600 * 1000


# --- recording and searching through a store ----------------------------------------------------


def test_a_recorded_trace_is_normalized_with_the_requests_workdir(
    store: MemoryStore, workdir: str
) -> None:
    raw = {"goal": "fix the login crash", "action_log": [{"t": 1, "action": "run_test"}]}

    recorded = record_episode(store, EpisodeRecordRequest(episode=raw, workdir=workdir))

    # Uncounted: a counted read would show its own access (tests/store/test_episode_access.py).
    request = EpisodeReadRequest(id=recorded.episode.id)
    episode = store.episode_read(request, counted=False).episode
    assert episode == recorded.episode and recorded.created
    assert episode.workdir == workdir
    assert episode.task_type == "debugging"  # the detector named a type the trace left out
    hits = search_episodes(store, EpisodeSearchRequest(query="login")).hits
    assert [hit.id for hit in hits] == [episode.id]


@pytest.mark.parametrize("query", ["", "  \n "])
def test_an_episode_search_without_words_is_refused(store: MemoryStore, query: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        search_episodes(store, EpisodeSearchRequest(query=query))
    assert (caught.value.code, caught.value.field) == ("invalid_argument", "query")

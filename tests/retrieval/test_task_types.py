"""The one task-type detector and strategy table (REFERENCE B3), in English and Chinese."""

from __future__ import annotations

import pytest

from liveagent_memory.domain.task_types import (
    STRATEGIES,
    TaskType,
    detect_task_type,
    parse_task_type,
    task_scores,
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("fix the login crash", TaskType.DEBUGGING),
        ("why is this test failing with an exception", TaskType.DEBUGGING),
        ("修复登录页面的崩溃", TaskType.DEBUGGING),
        ("排查一下这个报错", TaskType.DEBUGGING),
        ("how does the auth architecture work", TaskType.EXPLORATION),
        ("帮我了解一下这个项目的架构", TaskType.EXPLORATION),
        ("add a CSV export", TaskType.IMPLEMENTATION),
        ("帮我实现导出功能", TaskType.IMPLEMENTATION),
        ("review this pull request for quality", TaskType.REVIEW),
        ("评审一下这个 PR 的代码规范", TaskType.REVIEW),
        ("refactor the parser and rename the module", TaskType.REFACTORING),
        ("重构用户模块", TaskType.REFACTORING),
        ("", TaskType.IMPLEMENTATION),
        ("hello there", TaskType.IMPLEMENTATION),  # no signal: the default
        ("fix the build", TaskType.DEBUGGING),  # a tie goes to the more specific intent
    ],
)
def test_detects_the_task_type(query: str, expected: TaskType) -> None:
    assert detect_task_type(query) is expected


def test_english_keywords_match_whole_words_only() -> None:
    assert task_scores("update the address book")[TaskType.IMPLEMENTATION] == 0  # not "add"
    assert task_scores("prefix handling")[TaskType.DEBUGGING] == 0  # not "fix"


def test_action_and_phase_outweigh_goal_words() -> None:
    # REFERENCE B3: goal keyword 2, action 3, phase 4.
    assert detect_task_type("write the new feature", phase="debugging") is TaskType.DEBUGGING
    assert detect_task_type("build it", action="run_test") is TaskType.DEBUGGING
    scores = task_scores("fix", action="run_test", phase="troubleshooting")
    assert scores[TaskType.DEBUGGING] == 2 + 3 + 4


def test_strategy_table_is_the_reference_one() -> None:
    for strategy in STRATEGIES.values():
        total = strategy.episodic + strategy.semantic + strategy.skills + strategy.anti_patterns
        assert total == pytest.approx(1.0)
    assert STRATEGIES[TaskType.DEBUGGING].weight("anti_patterns") == 0.4
    assert STRATEGIES[TaskType.IMPLEMENTATION].weight("skills") == 0.35


def test_parse_task_type() -> None:
    assert parse_task_type(None) is None
    assert parse_task_type(" Debugging ") is TaskType.DEBUGGING
    with pytest.raises(ValueError):
        parse_task_type("testing")

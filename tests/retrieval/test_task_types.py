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
from liveagent_memory.retrieval.task_meaning import EXAMPLES_FILE, read_examples


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


@pytest.mark.parametrize(
    "query",
    [
        # The examples: inflected words, an error's shape, all read as implementation
        # by the reference's exact-word lists.
        "login crashes with KeyError exp",
        "the login crashed",
        "debugging the parser",
        "the build fails on CI",
        "errors in login page",
        "Traceback (most recent call last):",
        "npm install exits with code 1",
        "the API returned 502",
        "the export button is not working",
        "测试跑不过",
        "修复 login 的 KeyError",
        "部署之后 production 挂了",
    ],
)
def test_reads_debugging_in_real_english_chinese_and_mixed(query: str) -> None:
    assert detect_task_type(query) is TaskType.DEBUGGING


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("refactored the router, continue with the views", TaskType.REFACTORING),
        ("reviewing the release notes", TaskType.REVIEW),
        ("implementing the search filters", TaskType.IMPLEMENTATION),
        ("simplified the nested ifs", TaskType.REFACTORING),
        # The verb a request opens with states its intent: "audit" and "check" are nouns here.
        ("add a health check endpoint", TaskType.IMPLEMENTATION),
        ("please add an audit log", TaskType.IMPLEMENTATION),
        # A yes/no question about a piece of work asks for a judgement.
        ("is this implementation correct and idiomatic?", TaskType.REVIEW),
        ("这样处理 token 刷新合理吗", TaskType.REVIEW),
        # A question about how or where something is.
        ("where is the rate limit configured", TaskType.EXPLORATION),
        ("退款的时候会发生什么", TaskType.EXPLORATION),
    ],
)
def test_inflections_leading_verbs_and_questions(query: str, expected: TaskType) -> None:
    assert detect_task_type(query) is expected


def test_error_shapes_keep_their_case() -> None:
    # A class name is an error only as written: "keyerror" in prose is not one.
    assert task_scores("KeyError in the handler")[TaskType.DEBUGGING] >= 4
    assert task_scores("the word keyerror")[TaskType.DEBUGGING] == 0
    assert task_scores("a 2000-line controller")[TaskType.DEBUGGING] == 0  # not a status


def test_the_labelled_development_set_stays_above_the_bar() -> None:
    """The package's labelled examples (bench/bench_task_types.py's development set): a change
    to the rules that breaks what they read fails here (the figures, and the sets they were
    never tuned on, are in bench/README.md). The third round of examples, symptoms told without
    a word for failure, is why the bar is 0.90 and not the first rounds' 0.95: what no word
    holds is left to meaning."""
    labelled = read_examples(EXAMPLES_FILE)
    right = sum(detect_task_type(query) is expected for expected, query in labelled)
    assert len(labelled) >= 450
    assert right / len(labelled) >= 0.90


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Chinese symptoms: a thing done again, a change that did not take, a verb that fails.
        ("通知短信发了三次", TaskType.DEBUGGING),
        ("改了端口以后连的还是老的地址", TaskType.DEBUGGING),
        ("手机上收不到验证码", TaskType.DEBUGGING),
        ("后台导出的报表打开是乱码", TaskType.DEBUGGING),
        # Chinese judgement asks: A-not-A questions, "is anything missing or risky".
        ("这个缓存失效的写法对不对", TaskType.REVIEW),
        ("迁移脚本有没有遗漏的表", TaskType.REVIEW),
        ("这样设计合不合理", TaskType.REVIEW),
        # Chinese and English refactoring words.
        ("把这些魔法数字提成常量", TaskType.REFACTORING),
        ("订单服务太臃肿了", TaskType.REFACTORING),
        ("flatten the nested loops in the exporter", TaskType.REFACTORING),
        ("the loader has unused arguments", TaskType.REFACTORING),
        # English review asks without "review".
        ("critique the retry policy", TaskType.REVIEW),
        ("does the caching change make sense to you", TaskType.REVIEW),
        # Exploration in Chinese: what is it for, who consumes it.
        ("这个定时任务是干嘛的", TaskType.EXPLORATION),
        ("这个队列谁在消费", TaskType.EXPLORATION),
    ],
)
def test_symptom_judgement_and_request_shapes(query: str, expected: TaskType) -> None:
    assert detect_task_type(query) is expected


def test_a_thing_done_once_is_no_symptom() -> None:
    # "了两次" is a symptom; a count on its own ("两次重试") is a request.
    assert task_scores("重试失败的请求两次")[TaskType.DEBUGGING] == 2  # 失败 only, no shape
    assert task_scores("邮件发了两次")[TaskType.DEBUGGING] == 4


def test_english_keywords_match_whole_words_only() -> None:
    assert task_scores("update the address book")[TaskType.IMPLEMENTATION] == 0  # not "add"
    assert task_scores("prefix handling")[TaskType.DEBUGGING] == 0  # not "fix"


def test_action_and_phase_outweigh_goal_words() -> None:
    # REFERENCE B3: goal keyword 2, action 3, phase 4.
    assert detect_task_type("write the new feature", phase="debugging") is TaskType.DEBUGGING
    assert detect_task_type("build it", action="run_test") is TaskType.DEBUGGING
    scores = task_scores("fix", action="run_test", phase="troubleshooting")
    assert scores[TaskType.DEBUGGING] == 2 + 3 + 4
    assert task_scores("fix it")[TaskType.DEBUGGING] == 2 + 2  # a query: its opening verb counts


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

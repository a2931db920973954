"""Task types: the one detector and the one strategy table (REFERENCE B3), English and Chinese.

A query (or an episode's goal, action and phase) is scored per task type: a keyword in the goal
counts 2, an action name 3, a phase name 4; the highest score wins, a tie goes to the more
specific intent (the tie order: debugging, refactoring, review, exploration, implementation) and
no signal at all means implementation. The strategy of a type weighs the kinds of memory a
context draws on.

It lives in the domain because both the store (episode files that name no task type, found by
reconcile) and retrieval (queries, recorded episodes) detect with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from liveagent_memory.domain.schema import DEFAULT_TASK_TYPE, TaskType
from liveagent_memory.domain.text import has_cjk

__all__ = [
    "DEFAULT_TASK_TYPE",
    "STRATEGIES",
    "Strategy",
    "TaskType",
    "detect_task_type",
    "parse_task_type",
    "strategy_for",
    "task_scores",
]


@dataclass(frozen=True)
class Strategy:
    """How much each kind of memory counts for a task type (the four weights sum to 1)."""

    episodic: float
    semantic: float
    skills: float
    anti_patterns: float

    def weight(self, kind: str) -> float:
        return float(getattr(self, kind))


# REFERENCE B3 TASK_STRATEGIES, unchanged.
STRATEGIES: dict[TaskType, Strategy] = {
    TaskType.EXPLORATION: Strategy(episodic=0.6, semantic=0.3, skills=0.1, anti_patterns=0.0),
    TaskType.IMPLEMENTATION: Strategy(episodic=0.15, semantic=0.5, skills=0.35, anti_patterns=0.0),
    TaskType.DEBUGGING: Strategy(episodic=0.4, semantic=0.2, skills=0.0, anti_patterns=0.4),
    TaskType.REVIEW: Strategy(episodic=0.3, semantic=0.5, skills=0.0, anti_patterns=0.2),
    TaskType.REFACTORING: Strategy(episodic=0.25, semantic=0.45, skills=0.3, anti_patterns=0.0),
}

GOAL_POINTS, ACTION_POINTS, PHASE_POINTS = 2, 3, 4  # REFERENCE B3 detection weights

# REFERENCE B3 keyword lists, plus Chinese ones of our own (the reference is English only).
KEYWORDS: dict[TaskType, tuple[str, ...]] = {
    TaskType.EXPLORATION: (
        "explore",
        "understand",
        "research",
        "investigate",
        "analyze",
        "discover",
        "find",
        "what is",
        "how does",
        "architecture",
        "structure",
        "overview",
        "探索",
        "了解",
        "理解",
        "研究",
        "调研",
        "分析",
        "查找",
        "是什么",
        "怎么工作",
        "如何工作",
        "架构",
        "结构",
        "概览",
    ),
    TaskType.IMPLEMENTATION: (
        "implement",
        "create",
        "build",
        "add",
        "write",
        "develop",
        "make",
        "construct",
        "new feature",
        "实现",
        "创建",
        "新建",
        "构建",
        "添加",
        "增加",
        "编写",
        "开发",
        "新功能",
    ),
    TaskType.DEBUGGING: (
        "fix",
        "debug",
        "error",
        "bug",
        "issue",
        "broken",
        "failing",
        "crash",
        "exception",
        "investigate error",
        "修复",
        "修正",
        "调试",
        "排查",
        "错误",
        "报错",
        "故障",
        "崩溃",
        "异常",
        "失败",
        "闪退",
    ),
    TaskType.REVIEW: (
        "review",
        "check",
        "validate",
        "verify",
        "audit",
        "inspect",
        "quality",
        "standards",
        "lint",
        "审查",
        "评审",
        "审核",
        "检查",
        "验证",
        "核对",
        "质量",
        "规范",
    ),
    TaskType.REFACTORING: (
        "refactor",
        "restructure",
        "reorganize",
        "clean up",
        "improve structure",
        "extract",
        "rename",
        "move",
        "重构",
        "重组",
        "整理",
        "清理",
        "提取",
        "重命名",
        "改名",
        "拆分",
        "移动",
    ),
}
ACTIONS: dict[TaskType, tuple[str, ...]] = {
    TaskType.EXPLORATION: ("read_file", "search", "list_files"),
    TaskType.IMPLEMENTATION: ("write_file", "create_file", "edit_file"),
    TaskType.DEBUGGING: ("run_test", "check_logs", "trace"),
    TaskType.REVIEW: ("diff", "review_pr", "check_style"),
    TaskType.REFACTORING: ("rename", "move_file", "extract_function"),
}
PHASES: dict[TaskType, tuple[str, ...]] = {
    TaskType.EXPLORATION: ("planning", "discovery", "research"),
    TaskType.IMPLEMENTATION: ("development", "implementation", "coding"),
    TaskType.DEBUGGING: ("debugging", "troubleshooting", "fixing"),
    TaskType.REVIEW: ("review", "qa", "validation"),
    TaskType.REFACTORING: ("refactoring", "cleanup", "optimization"),
}

# Ties: the generic verbs of implementation ("make", "add", "build") come with every intent.
_TIE_ORDER = (
    TaskType.DEBUGGING,
    TaskType.REFACTORING,
    TaskType.REVIEW,
    TaskType.EXPLORATION,
    TaskType.IMPLEMENTATION,
)


def _contains(text: str, keyword: str) -> bool:
    """Whole words for English ("add" is not in "address"), substrings for Chinese."""
    if has_cjk(keyword):
        return keyword in text
    return re.search(rf"(?<![a-z0-9_]){re.escape(keyword)}(?![a-z0-9_])", text) is not None


def _score(text: str, words: tuple[str, ...]) -> int:
    return sum(1 for word in words if _contains(text, word))


def task_scores(goal: str, *, action: str = "", phase: str = "") -> dict[TaskType, int]:
    """Points per task type for a goal (or query), an action name and a phase name."""
    goal, action, phase = goal.casefold(), action.casefold(), phase.casefold()
    scores: dict[TaskType, int] = {}
    for task in TaskType:
        points = GOAL_POINTS * _score(goal, KEYWORDS[task])
        if action:
            points += ACTION_POINTS * _score(action, ACTIONS[task])
        if phase:
            points += PHASE_POINTS * _score(phase, PHASES[task])
        scores[task] = points
    return scores


def detect_task_type(goal: str, *, action: str = "", phase: str = "") -> TaskType:
    """The task type a query is about; implementation when nothing points anywhere.

    A tie goes to the more specific intent (`_TIE_ORDER`): "fix the build" scores debugging
    (fix) and implementation (build) alike and is debugging.
    """
    scores = task_scores(goal, action=action, phase=phase)
    best = max(scores.values())
    if best == 0:
        return DEFAULT_TASK_TYPE
    return next(task for task in _TIE_ORDER if scores[task] == best)


def parse_task_type(raw: str | None) -> TaskType | None:
    """A task type named by a caller (None when not given); unknown names raise ValueError."""
    if raw is None or not raw.strip():
        return None
    return TaskType(raw.strip().lower())


def strategy_for(task: TaskType) -> Strategy:
    return STRATEGIES[task]

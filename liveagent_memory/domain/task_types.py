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

import functools
import re
from collections.abc import Mapping
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
    "pick_task_type",
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
SHAPE_POINTS = 4  # an error's own shape (KeyError, a traceback, exit code 1): debugging for sure
QUESTION_POINTS = 3  # a query that opens as a question about how or where something is
HINT_POINTS = 1  # a weak hint ("什么"): it only settles an otherwise empty query
LEAD_POINTS = 2  # the English verb a request opens with states its intent ("add a health check")
JUDGEMENT_POINTS = 3  # a yes/no question about a piece of work ("is this correct?"): review

# REFERENCE B3 keyword lists, then words of our own (the reference matched exact words only and
# read "the login crashed" as implementation): English words match in their inflected forms
# (crash: crashes, crashed, crashing; fail: failure; debug: debugging), Chinese as substrings.
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
        # ours
        "explain",
        "show me",
        "learn",
        "map out",
        "walk me through",
        "compare",
        "difference between",
        "entry point",
        "i'm new",
        "summarize",
        "summary",
        "tell me about",
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
        "解释",
        "介绍",
        "区别",
        "机制",
        "在哪",
        "哪里",
        "哪些",
        "怎么",
        "如何",
        "做什么",
        "发生什么",
        "干嘛",
        "干什么",
        "怎样的",
        "讲讲",
        "讲一下",
        "哪几",
        "谁在",
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
        # ours
        "support",
        "scaffold",
        "generate",
        "hook up",
        "set up",
        "let users",
        "integrate",
        "expose",
        "wire",
        "put",
        "let",
        "实现",
        "创建",
        "新建",
        "构建",
        "添加",
        "增加",
        "新增",
        "编写",
        "开发",
        "新功能",
        "加一个",
        "写一个",
        "做一个",
        "接入",
        "搭建",
        "支持",
        "写个",
        "帮我写",
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
        # ours
        "fail",
        "broke",
        "buggy",
        "not working",
        "doesn't work",
        "does not work",
        "won't",
        "hang",
        "freeze",
        "time out",
        "timeout",
        "leak",
        "flaky",
        "regression",
        "wrong",
        "stopped",
        "stuck",
        "segfault",
        "stack trace",
        "troubleshoot",
        "unexpected",
        "silently",
        "suddenly",
        "randomly",
        "intermittent",
        "blank",
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
        "出错",
        "挂了",
        "卡住",
        "卡死",
        "超时",
        "泄漏",
        "泄露",
        "不工作",
        "不生效",
        "没反应",
        "白屏",
        "不对",
        "对不上",
        "没有执行",
        "没执行",
        "没有反应",
        "断开",
        "老是",
        "一直",
        "突然",
        "twice",
        "ignore",
        "off by",
        "garbled",
        "instead of giving up",
        "乱码",
        "不一致",
        "没保存",
        "没有保存",
        "什么都不发生",
        "没有任何反应",
        "不显示",
        "不出来",
        "停了",
        "丢了",
        "不执行",
        "不渲染",
        "不行",
        "卡在",
        "差了",
        "延迟",
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
        # ours
        "pr",
        "pull request",
        "diff",
        "style guide",
        "look over",
        "go through",
        "feedback on",
        "sanity-check",
        "double-check",
        "correct",
        "idiomatic",
        "consistent",
        "coverage",
        "assess",
        "evaluate",
        "approve",
        "request changes",
        "look through",
        "proofread",
        "security",
        "look right",
        "make sense",
        "concern",
        "critique",
        "edge case",
        "risk",
        "take a look",
        "second opinion",
        "sign off",
        "flag",
        "合理",
        "安全问题",
        "审查",
        "评审",
        "审核",
        "审阅",
        "检查",
        "验证",
        "核对",
        "质量",
        "规范",
        "意见",
        "确认",
        "评估",
        "看看",
        "能不能合并",
        "有没有问题",
        "怎么样",
        "毛病",
        "复查",
        "过一遍",
        "风险",
        "不妥",
        "遗漏",
        "写错",
        "帮我看下",
        "帮我看一下",
        "符合",
        "看一下",
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
        # ours
        "cleanup",
        "tidy",
        "split",
        "break up",
        "duplicate",
        "duplication",
        "deduplicate",
        "dedupe",
        "simplify",
        "replace",
        "convert",
        "decouple",
        "inline",
        "consolidate",
        "get rid of",
        "without changing",
        "readable",
        "readability",
        "complexity",
        "modularize",
        "remove",
        "dead code",
        "turn",
        "pull out",
        "break it up",
        "nesting",
        "nested",
        "flatten",
        "unused",
        "identical",
        "copied",
        "copy-pasted",
        "one place",
        "swap",
        "collapse",
        "separate",
        "too big",
        "抽到",
        "抽成",
        "抽出",
        "提成",
        "改写",
        "替换",
        "分成",
        "分开",
        "合成",
        "收进",
        "收拢",
        "理一理",
        "太乱",
        "嵌套",
        "复制粘贴",
        "复制了",
        "变量名",
        "挪到",
        "挪出",
        "职责",
        "臃肿",
        "硬编码",
        "魔法数字",
        "magic number",
        "保持不变",
        "重构",
        "重组",
        "整理",
        "清理",
        "提取",
        "重命名",
        "改名",
        "拆分",
        "移动",
        "拆开",
        "拆成",
        "重复代码",
        "去掉",
        "简化",
        "改成",
        "合并",
        "解耦",
        "优化代码结构",
        "删掉",
        "死代码",
        "换成",
        "不改变行为",
    ),
}
# An error's own shape, matched on the text as written (class names keep their case).
ERROR_SHAPES = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b"  # KeyError, NullPointerException
    r"|\bTraceback\b|\bpanic:|\bcore dumped\b|\bsegmentation fault\b|\bOOM\b"
    r"|\bexit(?:s|ed)?\s+(?:with\s+)?(?:code|status)\s+[1-9]"  # exit code 1
    r"|(?:\b(?:returns?|returning|returned|got|status|HTTP|unexpected)|返回|报)\s*[45]\d\d\b"
    r"|[跑用打登连装启编进收点]不(?:了|动|通|上|开|过|起来|到|进来)"  # 跑不过, 用不了, 收不到
    r"|(?:了|出现了?)(?:两|三|几|好几|多)次"  # 发了两次: what should happen once happened again
    r"|还是(?:老的|旧的|原来的|之前的)"  # 改了以后还是老的值: a change that did not take
)
# A query that opens by asking how, where or what something is (not "why": a why-question is
# mostly about something going wrong).
QUESTION = re.compile(r"^\s*(?:how|where|what|which|who)\b", re.IGNORECASE)
HINTS: dict[TaskType, tuple[str, ...]] = {
    TaskType.EXPLORATION: ("什么",),
    TaskType.DEBUGGING: ("why", "为什么"),  # a why-question is mostly about something wrong
}
# Something not happening or not working: a negated verb, "keeps failing".
NOT_WORKING = re.compile(
    r"\b(?:not|never|no longer|didn't|doesn't|don't|isn't|aren't|won't|can't|cannot|"
    r"couldn't|wasn't|weren't)\b|\bkeeps?\s+\w+ing\b",
    re.IGNORECASE,
)
# A yes/no question about a piece of work: a judgement asked for.
JUDGEMENT = re.compile(
    r"^\s*(?:is|are|does|do|should|would|will)\s+(?:this|these|that|the|my|our|it)\b"
    r"|(?:合理|正确|对|好|合适|安全|可以|规范)吗"
    r"|(对|好|够|行)不\1|合不合|规不规|(?:有没有|会不会)(?:问题|遗漏|风险|漏洞|bug|坑|漏掉|写错)",
    re.IGNORECASE,
)
# Words a request opens with before its verb ("please add", "帮我实现").
FILLERS = re.compile(
    r"^\s*(?:(?:please|can you|could you|would you|help me|let's|i want to|i need to|"
    r"we need to|now|then|ok|okay)\s+)+|^\s*(?:请|帮我|帮忙|麻烦|你)+",
    re.IGNORECASE,
)
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


def _inflected(word: str) -> str:
    """A regex of an English word and its regular forms: crash → crashes, crashed, crashing;
    debug → debugging; fail → failure; investigate → investigation; simplify → simplified."""
    if word.endswith("e"):
        return re.escape(word[:-1]) + "(?:e|es|ed|ing|ions?|ations?|ers?)"
    if len(word) > 2 and word.endswith("y") and word[-2] not in "aeiou":
        return re.escape(word[:-1]) + "(?:y|ies|ied|ying|ications?)"
    doubled = re.escape(word[-1]) + "?"  # debug → debugged
    return re.escape(word) + f"(?:{doubled}(?:ed|ing|ers?)|s|es|ions?|ations?|ments?|ures?)?"


@functools.cache
def _pattern(keyword: str) -> re.Pattern[str]:
    """Whole words for English, the first word in its inflected forms ("add" is not in
    "address"; "clean up" is also "cleaned up"); Chinese keywords are found as substrings."""
    first, _, rest = keyword.partition(" ")
    phrase = _inflected(first) + (re.escape(" " + rest) if rest else "")
    return re.compile(rf"(?<![a-z0-9_]){phrase}(?![a-z0-9_])")


def _contains(text: str, keyword: str) -> bool:
    if has_cjk(keyword):
        return keyword in text
    return _pattern(keyword).search(text) is not None


def _score(text: str, words: tuple[str, ...]) -> int:
    return sum(1 for word in words if _contains(text, word))


def _lead(goal: str) -> str:
    """The start of a request after its polite words, cased down: where its verb is."""
    return FILLERS.sub("", goal, count=1).casefold()


def _opens_with(lead: str, keyword: str) -> bool:
    # English only: a Chinese request as often opens with its subject ("构建在 CI 上失败").
    return not has_cjk(keyword) and _pattern(keyword).match(lead) is not None


def task_scores(goal: str, *, action: str = "", phase: str = "") -> dict[TaskType, int]:
    """Points per task type for a goal (or query), an action name and a phase name."""
    # The opening verb speaks for a query; an episode's action and phase say what it did.
    lead = _lead(goal) if not (action or phase) else ""
    scores: dict[TaskType, int] = {}
    for task in TaskType:
        words = KEYWORDS[task]
        points = GOAL_POINTS * _score(goal.casefold(), words)
        points += HINT_POINTS * _score(goal.casefold(), HINTS.get(task, ()))
        points += LEAD_POINTS * any(lead and _opens_with(lead, word) for word in words)
        if action:
            points += ACTION_POINTS * _score(action.casefold(), ACTIONS[task])
        if phase:
            points += PHASE_POINTS * _score(phase.casefold(), PHASES[task])
        scores[task] = points
    scores[TaskType.DEBUGGING] += SHAPE_POINTS * len(ERROR_SHAPES.findall(goal))
    scores[TaskType.DEBUGGING] += GOAL_POINTS * (NOT_WORKING.search(goal) is not None)
    scores[TaskType.EXPLORATION] += QUESTION_POINTS * (QUESTION.match(goal) is not None)
    scores[TaskType.REVIEW] += JUDGEMENT_POINTS * (JUDGEMENT.search(goal) is not None)
    return scores


def detect_task_type(goal: str, *, action: str = "", phase: str = "") -> TaskType:
    """The task type a query is about; implementation when nothing points anywhere.

    A tie goes to the more specific intent (`_TIE_ORDER`): "fix the build" scores debugging
    (fix) and implementation (build) alike and is debugging.
    """
    return pick_task_type(task_scores(goal, action=action, phase=phase))


def pick_task_type(scores: Mapping[TaskType, float]) -> TaskType:
    """The task type with the most points; a tie goes to the more specific intent, no points at
    all to implementation. The one decision rule for rule points alone and for rule points
    with the probabilities of the classifier by meaning (retrieval/task_meaning.py)."""
    best = max(scores.values())
    if best <= 0:
        return DEFAULT_TASK_TYPE
    return next(task for task in _TIE_ORDER if scores[task] == best)


def parse_task_type(raw: str | None) -> TaskType | None:
    """A task type named by a caller (None when not given); unknown names raise ValueError."""
    if raw is None or not raw.strip():
        return None
    return TaskType(raw.strip().lower())


def strategy_for(task: TaskType) -> Strategy:
    return STRATEGIES[task]

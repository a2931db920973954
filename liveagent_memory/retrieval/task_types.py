"""Task types: the one detector and the one strategy table (REFERENCE B3), English and Chinese.

The implementation is domain/task_types.py (the store detects with it too); this is the name
retrieval code and DESIGN.md use for it.
"""

from __future__ import annotations

from liveagent_memory.domain.task_types import (
    ACTIONS,
    DEFAULT_TASK_TYPE,
    KEYWORDS,
    PHASES,
    STRATEGIES,
    Strategy,
    TaskType,
    detect_task_type,
    parse_task_type,
    strategy_for,
    task_scores,
)

__all__ = [
    "ACTIONS",
    "DEFAULT_TASK_TYPE",
    "KEYWORDS",
    "PHASES",
    "STRATEGIES",
    "Strategy",
    "TaskType",
    "detect_task_type",
    "parse_task_type",
    "strategy_for",
    "task_scores",
]

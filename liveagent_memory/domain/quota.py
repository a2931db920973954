"""The quota ladder (SPEC 1.7, REFERENCE A11) as a pure function of the tightest headroom."""

from __future__ import annotations

from liveagent_memory.domain import config
from liveagent_memory.domain.schema import QuotaLevel


def quota_ladder(tightest_headroom: int) -> QuotaLevel:
    """Map the smallest headroom of any scope to a ladder level.

    normal (> 100), notice (<= 100), degraded (<= 50), critical (<= 20), exhausted (<= 5).
    """
    if tightest_headroom <= config.QUOTA_EXHAUSTED_HEADROOM:
        return QuotaLevel.EXHAUSTED
    if tightest_headroom <= config.QUOTA_CRITICAL_HEADROOM:
        return QuotaLevel.CRITICAL
    if tightest_headroom <= config.QUOTA_DEGRADED_HEADROOM:
        return QuotaLevel.DEGRADED
    if tightest_headroom <= config.QUOTA_NOTICE_HEADROOM:
        return QuotaLevel.NOTICE
    return QuotaLevel.NORMAL

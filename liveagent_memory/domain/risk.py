"""The risk vocabulary: one scale of risk levels, and what a text's secret scan makes of it.

This module is the only home of the words for risk (docs/ARCHITECTURE.md "Where each rule
lives"):

- **Risk levels** (`RiskLevel`: low < medium < high, REFERENCE A10). An organizer decision has
  one: the proposer's, recomputed by the gate (organizer/decisions.py `derive_risk`, which only
  ever raises it, `higher_risk`); only a low one may be applied without a person.
- **A text's class** from the secret scan (`RiskClass`: none, soft, hard; store/rules.py
  `classify_risk`): hard is refused, soft is stored but waits for review.
- **The risk flag** a soft text leaves on the memory (`risk_flag_for`): the level `low` of the
  same scale, in its frontmatter's `source.risk_flag` (what list and search filter on).
"""

from __future__ import annotations

from enum import StrEnum


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


RISK_LEVELS = tuple(RiskLevel)  # lowest first


class RiskClass(StrEnum):
    NONE = "none"
    SOFT = "soft"  # stored, but unreviewed with risk_flag=low
    HARD = "hard"  # refused


def parse_risk_level(raw: object) -> RiskLevel | None:
    """The level a proposer or a stored report names; None for anything else."""
    return RiskLevel(raw) if isinstance(raw, str) and raw in RISK_LEVELS else None


def higher_risk(a: RiskLevel, b: RiskLevel) -> RiskLevel:
    """The higher of two levels."""
    return a if RISK_LEVELS.index(a) >= RISK_LEVELS.index(b) else b


def risk_flag_for(risk: RiskClass) -> RiskLevel | None:
    """The risk flag a memory gets for its text's class: `low` for a soft one, else none."""
    return RiskLevel.LOW if risk is RiskClass.SOFT else None

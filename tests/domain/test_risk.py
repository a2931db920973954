"""domain/risk.py: one risk vocabulary for the organizer's gate and the write's secret scan."""

from __future__ import annotations

import pytest

from liveagent_memory.domain.requests import ListRequest, WriteRequest
from liveagent_memory.domain.risk import (
    RISK_LEVELS,
    RiskClass,
    RiskLevel,
    higher_risk,
    parse_risk_level,
    risk_flag_for,
)
from liveagent_memory.organizer.decisions import OrganizerEntry, derive_risk
from liveagent_memory.organizer.protocol import plan_decisions, plan_tool_schema
from liveagent_memory.store.rules import classify_risk
from liveagent_memory.store.store import MemoryStore


def test_the_levels_run_low_to_high() -> None:
    assert [level.value for level in RISK_LEVELS] == ["low", "medium", "high"]
    assert higher_risk(RiskLevel.LOW, RiskLevel.MEDIUM) is RiskLevel.MEDIUM
    assert higher_risk(RiskLevel.HIGH, RiskLevel.MEDIUM) is RiskLevel.HIGH
    assert higher_risk(RiskLevel.LOW, RiskLevel.LOW) is RiskLevel.LOW


@pytest.mark.parametrize(
    ("raw", "level"),
    [("low", RiskLevel.LOW), ("high", RiskLevel.HIGH), ("critical", None), ("LOW", None)],
)
def test_parse_takes_only_the_three_words(raw: object, level: RiskLevel | None) -> None:
    assert parse_risk_level(raw) is level


def test_parse_refuses_what_is_not_text() -> None:
    assert parse_risk_level(None) is None and parse_risk_level(1) is None


def test_a_soft_text_leaves_the_lowest_level_as_its_flag() -> None:
    assert risk_flag_for(RiskClass.SOFT) is RiskLevel.LOW
    assert risk_flag_for(RiskClass.NONE) is None and risk_flag_for(RiskClass.HARD) is None


def test_a_written_soft_text_is_flagged_with_that_level(store: MemoryStore) -> None:
    body = "Run the deploy with sudo when the cache is stale."
    assert classify_risk(body) == (RiskClass.SOFT, None)
    result = store.write(
        WriteRequest(slug="deploy", scope="global", type="project", description="d", body=body)
    )
    assert result.risk_flag == RiskLevel.LOW
    (entry,) = store.list_entries(ListRequest()).entries
    assert entry.risk_flag == "low" and entry.unreviewed


def test_the_organizer_speaks_the_same_levels() -> None:
    decision = plan_tool_schema()["function"]["parameters"]["properties"]["decisions"]["items"]
    assert decision["properties"]["risk_level"]["enum"] == ["low", "medium", "high"]
    plan = {"decisions": [{"action": "delete", "slug": "a", "risk_level": "critical"}]}
    (parsed,), _ = plan_decisions(plan)
    assert parsed.risk_level is None  # an unknown word is no level
    target = OrganizerEntry("a", "global", "", "reference", "d", "h", "b", True, "low", 1)
    risk, _ = derive_risk(
        action="delete", llm_risk="critical", confidence=0.95, target=target, sources=()
    )
    assert risk is RiskLevel.MEDIUM  # what a proposer gives without a level

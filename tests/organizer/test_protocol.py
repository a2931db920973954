"""The organizer's model protocol (REFERENCE A10): tool schemas, clusters and plan validation.

Whatever the model sends is validated here: unknown or repeated slugs, undersized clusters and
malformed decisions are dropped, never trusted. Plain data, no store and no model.
"""

from __future__ import annotations

from typing import Any

import pytest

from liveagent_memory.organizer.decisions import ACTIONS, Cluster, PlanDecision
from liveagent_memory.organizer.protocol import (
    PlanArgumentsError,
    plan_decisions,
    plan_tool_schema,
    structural_clusters,
    topic_clusters,
    topic_tool_schema,
)
from tests.helpers.organizer import organizer_entry


def slugs(cluster: Cluster) -> list[str]:
    return [e.slug for e in cluster.entries]


HASH_A, HASH_B = "a" * 16, "b" * 16
ENTRIES = (
    [organizer_entry(f"ref-{i:02d}", updated_at=i) for i in range(10, 0, -1)]  # 10 references
    + [organizer_entry(f"who-{i}", type="user") for i in range(3)]
    + [
        organizer_entry(f"proj-{i}", scope="project", workdir_hash=HASH_A, type="project")
        for i in range(9)
    ]
    + [
        organizer_entry(f"other-{i}", scope="project", workdir_hash=HASH_B, type="project")
        for i in range(2)
    ]
)


# --- tool schemas -----------------------------------------------------------------------------


def test_tool_schemas() -> None:
    topic = topic_tool_schema()["function"]
    assert topic["name"] == "SubmitMemoryTopicClusters"
    cluster = topic["parameters"]["properties"]["topic_clusters"]["items"]
    assert cluster["properties"]["slugs"]["maxItems"] == 12
    assert cluster["properties"]["topic"]["maxLength"] == 120
    assert cluster["properties"]["target_action_hint"]["enum"] == [
        "merge",
        "rewrite",
        "delete",
        "review",
        "keep",
    ]
    assert topic["parameters"]["required"] == ["topic_clusters"]

    plan = plan_tool_schema()["function"]
    assert plan["name"] == "SubmitMemoryOrganizePlan"
    params = plan["parameters"]
    assert params["required"] == ["decisions"]
    assert params["properties"]["summary"]["maxLength"] == 600
    decision = params["properties"]["decisions"]["items"]
    assert decision["properties"]["action"]["enum"] == list(ACTIONS)
    assert set(ACTIONS) == {"keep", "merge_into", "delete", "mark_review", "rewrite_hint"}
    assert decision["properties"]["confidence"] == {"type": "number", "minimum": 0, "maximum": 1}
    assert decision["properties"]["source_slugs"]["maxItems"] == 12
    assert decision["properties"]["reason"]["maxLength"] == 1200
    assert decision["properties"]["preserved_evidence"]["maxItems"] == 24
    assert decision["properties"]["preserved_evidence"]["items"]["maxLength"] == 400
    assert decision["properties"]["description_hint"]["maxLength"] == 160
    assert decision["properties"]["rewrite_goal"]["maxLength"] == 800


# --- structural clusters ----------------------------------------------------------------------


def test_structural_clusters_group_by_scope_project_and_type_in_chunks_of_8() -> None:
    clusters = structural_clusters(ENTRIES)
    assert [(c.id, len(c.entries)) for c in clusters] == [
        ("global::reference:1", 8),
        ("global::reference:2", 2),
        ("global::user:1", 3),
        (f"project:{HASH_A}:project:1", 8),
        (f"project:{HASH_A}:project:2", 1),
        (f"project:{HASH_B}:project:1", 2),
    ]
    # sorted by slug inside a group, whatever order the entries came in
    assert slugs(clusters[0]) == [f"ref-{i:02d}" for i in range(1, 9)]
    assert slugs(clusters[1]) == ["ref-09", "ref-10"]
    # every entry lands in exactly one cluster, and a cluster never mixes groups
    placed = [e for c in clusters for e in c.entries]
    assert sorted(placed, key=lambda e: (e.scope, e.workdir_hash, e.slug)) == sorted(
        ENTRIES, key=lambda e: (e.scope, e.workdir_hash, e.slug)
    )
    for cluster in clusters:
        assert len({(e.scope, e.workdir_hash, e.type) for e in cluster.entries}) == 1
        assert len(cluster.entries) <= 8


def test_structural_clusters_of_nothing() -> None:
    assert structural_clusters([]) == []


def test_structural_clusters_never_put_the_same_slug_of_two_projects_together() -> None:
    twins = [
        organizer_entry("shared-note", scope="project", workdir_hash=HASH_A),
        organizer_entry("shared-note", scope="project", workdir_hash=HASH_B),
        organizer_entry("shared-note"),
    ]
    clusters = structural_clusters(twins)
    assert [len(c.entries) for c in clusters] == [1, 1, 1]


# --- topic clusters ---------------------------------------------------------------------------


def test_topic_clusters_valid_and_leftovers_structural() -> None:
    args = {
        "topic_clusters": [
            {
                "topic": "Python tooling!",
                "slugs": ["ref-01", "who-0", "proj-3"],
                "suspected_duplicate": True,
                "target_action_hint": "merge",
            },
            {"topic": "Other project", "slugs": ["other-0", "other-1"]},
        ],
        "target_total_after": 20,
    }
    clusters = topic_clusters(args, ENTRIES)
    assert clusters[0].id == "topic:Python-tooling"
    assert slugs(clusters[0]) == ["ref-01", "who-0", "proj-3"]  # the model's order
    assert clusters[1].id == "topic:Other-project"
    assert slugs(clusters[1]) == ["other-0", "other-1"]
    rest = clusters[2:]
    assert [c.id for c in rest] == [
        "global::reference:1",
        "global::reference:2",
        "global::user:1",
        f"project:{HASH_A}:project:1",
    ]
    assert slugs(rest[1]) == ["ref-10"]
    assert slugs(rest[2]) == ["who-1", "who-2"]
    placed = sorted(e.slug for c in clusters for e in c.entries)
    assert placed == sorted(e.slug for e in ENTRIES)
    assert len(placed) == len(set(placed)) == len(ENTRIES)


def test_topic_clusters_drop_unknown_and_duplicate_slugs() -> None:
    args = {
        "topic_clusters": [
            {"topic": "a", "slugs": ["ref-01", "nope", "ref-01", "ref-02", "  ", 7, None]},
            # ref-02 is taken; only ref-03 is left, fewer than 2 valid slugs: dropped
            {"topic": "b", "slugs": ["ref-02", "ref-03", "missing-slug"]},
            {"topic": "c", "slugs": ["ref-03", "ref-04"]},
        ]
    }
    clusters = topic_clusters(args, ENTRIES)
    assert [(c.id, slugs(c)) for c in clusters[:2]] == [
        ("topic:a", ["ref-01", "ref-02"]),
        ("topic:c", ["ref-03", "ref-04"]),
    ]
    assert not any(c.id == "topic:b" for c in clusters)
    assert "ref-03" not in [s for c in clusters[2:] for s in slugs(c)]


@pytest.mark.parametrize(
    "members",
    [
        pytest.param([], id="empty"),
        pytest.param(["ref-01"], id="one"),
        pytest.param(["ref-01", "ref-01"], id="one-twice"),
        pytest.param(["ref-01", "ghost-slug"], id="one-known"),
        pytest.param("ref-01,ref-02", id="not-a-list"),
    ],
)
def test_topic_clusters_with_fewer_than_two_valid_slugs_are_dropped(members: Any) -> None:
    clusters = topic_clusters({"topic_clusters": [{"topic": "x", "slugs": members}]}, ENTRIES)
    assert clusters == structural_clusters(ENTRIES)


def test_topic_clusters_are_cut_at_12() -> None:
    many = [f"ref-{i:02d}" for i in range(1, 11)] + ["who-0", "who-1", "who-2", "proj-0"]
    clusters = topic_clusters({"topic_clusters": [{"topic": "big", "slugs": many}]}, ENTRIES)
    assert slugs(clusters[0]) == many[:12]
    leftovers = [s for c in clusters[1:] for s in slugs(c)]
    assert "who-2" in leftovers and "proj-0" in leftovers
    assert not set(many[:12]) & set(leftovers)


def test_topic_cluster_ids() -> None:
    args = {
        "topic_clusters": [
            {"slugs": ["ref-01", "ref-02"]},  # no topic
            {"topic": "记忆 / 偏好", "slugs": ["ref-03", "ref-04"]},  # nothing ASCII
            {"topic": "x" * 200, "slugs": ["ref-05", "ref-06"]},
            {"topic": "  Tea_time & ok  ", "slugs": ["ref-07", "ref-08"]},
        ]
    }
    ids = [c.id for c in topic_clusters(args, ENTRIES)[:4]]
    assert ids == ["topic:topic-1", "topic:2", "topic:" + "x" * 48, "topic:Tea_time-ok"]


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(None, id="none"),
        pytest.param("clusters please", id="text"),
        pytest.param([], id="list"),
        pytest.param({}, id="empty-object"),
        pytest.param({"topic_clusters": "ref-01 ref-02"}, id="clusters-not-a-list"),
        pytest.param({"topic_clusters": [1, "a", None, ["ref-01", "ref-02"]]}, id="bad-items"),
        pytest.param({"clusters": [{"topic": "t", "slugs": ["ref-01", "ref-02"]}]}, id="bad-key"),
    ],
)
def test_garbage_topic_arguments_fall_back_to_structural(args: Any) -> None:
    assert topic_clusters(args, ENTRIES) == structural_clusters(ENTRIES)


# --- plan decisions ---------------------------------------------------------------------------


def test_plan_decisions_full_item() -> None:
    args = {
        "summary": "  two notes about tea  ",
        "compression": {"before": 3, "after": 2, "deletions": 1},
        "decisions": [
            {
                "action": "merge_into",
                "target_slug": " tea-main ",
                "source_slugs": ["tea-a", "tea-b", "tea-a", ""],
                "risk_level": "low",
                "confidence": 0.9,
                "reason": "same fact",
                "preserved_evidence": ["q1", "q1", "q2"],
                "description_hint": "Tea",
                "rewrite_goal": "",
            }
        ],
    }
    decisions, summary = plan_decisions(args)
    assert summary == "two notes about tea"
    assert decisions == (
        PlanDecision(
            action="merge_into",
            slug=None,
            target_slug="tea-main",
            source_slugs=("tea-a", "tea-b"),
            risk_level="low",
            confidence=0.9,
            reason="same fact",
            preserved_evidence=("q1", "q2"),
            description_hint="Tea",
            rewrite_goal=None,
        ),
    )


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [
        (0.75, 0.75),
        (0, 0.0),
        (1, 1.0),
        (None, None),
        (-0.1, None),
        (1.5, None),
        (True, None),
        ("0.9", 0.9),  # some models quote numbers
        ("1.5", None),
        ("nan", None),
        ("high", None),
        ([0.9], None),
    ],
)
def test_plan_confidence(confidence: Any, expected: float | None) -> None:
    (decision,), _ = plan_decisions(
        {"decisions": [{"action": "delete", "slug": "tea-a", "confidence": confidence}]}
    )
    assert decision.confidence == expected
    if expected is not None:
        assert isinstance(decision.confidence, float)


def test_plan_unknown_actions_and_bad_items_are_dropped() -> None:
    args = {
        "decisions": [
            {"action": "rewrite", "slug": "tea-a"},
            {"action": "DELETE", "slug": "tea-a"},
            {"slug": "tea-a"},
            "delete tea-a",
            None,
            ["delete"],
            {"action": "keep", "slug": "tea-a"},
            {"action": "mark_review", "slug": "tea-b", "risk_level": "extreme"},
        ]
    }
    decisions, summary = plan_decisions(args)
    assert [(d.action, d.slug) for d in decisions] == [("keep", "tea-a"), ("mark_review", "tea-b")]
    assert decisions[1].risk_level is None
    assert summary == ""


def test_plan_strings_are_clipped() -> None:
    args = {
        "summary": "s" * 700,
        "decisions": [
            {
                "action": "rewrite_hint",
                "slug": "tea-a",
                "reason": "r" * 1300,
                "description_hint": "d" * 200,
                "rewrite_goal": "g" * 900,
                "preserved_evidence": [f"{i:02d}" + "e" * 500 for i in range(30)],
                "source_slugs": [f"src-{i:02d}" for i in range(20)],
            }
        ],
    }
    (decision,), summary = plan_decisions(args)
    assert summary == "s" * 600
    assert decision.reason == "r" * 1200
    assert decision.description_hint == "d" * 160
    assert decision.rewrite_goal == "g" * 800
    assert len(decision.preserved_evidence) == 24
    assert all(len(item) == 400 for item in decision.preserved_evidence)
    assert decision.preserved_evidence[0].startswith("00") and decision.preserved_evidence[
        -1
    ].startswith("23")
    assert decision.source_slugs == tuple(f"src-{i:02d}" for i in range(12))


def test_plan_wrong_types_become_empty() -> None:
    (decision,), summary = plan_decisions(
        {
            "summary": 42,
            "decisions": [
                {
                    "action": "delete",
                    "slug": 123,
                    "target_slug": "   ",
                    "source_slugs": "tea-a",
                    "reason": ["why"],
                    "preserved_evidence": "quote",
                    "description_hint": {"x": 1},
                }
            ],
        }
    )
    assert summary == ""
    assert decision == PlanDecision(action="delete")


def test_plan_with_no_decisions_is_valid() -> None:
    assert plan_decisions({"decisions": []}) == ((), "")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(None, id="none"),
        pytest.param("keep everything", id="text"),
        pytest.param([{"action": "keep"}], id="list"),
        pytest.param({}, id="missing"),
        pytest.param({"decisions": None}, id="null"),
        pytest.param({"decisions": {"action": "keep"}}, id="object"),
        pytest.param({"decisions": "keep"}, id="string"),
    ],
)
def test_plan_without_a_decisions_list_is_an_error(args: Any) -> None:
    with pytest.raises(PlanArgumentsError, match="decisions must be a list"):
        plan_decisions(args)

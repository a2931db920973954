"""Candidate pairs by meaning (issue 15, organizer/candidates.py): found by how far a pair's
cosine stands out from both memories' neighbourhoods, then judged by what differs.

`TableMeanings` (tests/helpers/meanings.py) is a `Meanings` that reads cosines from a table, so
each test sets the geometry it needs; the real model is tested in
tests/retrieval/test_meanings.py.
"""

from __future__ import annotations

from typing import Any, Unpack

import pytest

from liveagent_memory.domain import config
from liveagent_memory.organizer.candidates import CJK, LATIN, Closeness, language
from liveagent_memory.organizer.decisions import OrganizerEntry
from liveagent_memory.organizer.offline import offline_proposals
from tests.helpers.meanings import TableMeanings
from tests.helpers.organizer import EntryFields, organizer_entry


def entry(
    slug: str, description: str, body: str, /, **fields: Unpack[EntryFields]
) -> OrganizerEntry:
    fields.setdefault("type", "user")
    fields["description"], fields["body"] = description, body
    return organizer_entry(slug, **fields)


# Five memories of one scope with little in common; tests add the pair they are about.
BACKGROUND = [
    entry("coffee", "Drinks black coffee", "Ming drinks his coffee black, no sugar."),
    entry("laptop", "Works on a MacBook Pro", "His laptop is a MacBook Pro with 36 GB."),
    entry("standup", "Standup at ten", "The backend team meets at 10:00 every weekday."),
    entry("editor", "Uses Vim keybindings", "He edits with Vim keybindings everywhere."),
    entry("shell", "Interactive shell is fish", "Give shell snippets in fish syntax."),
]
ANSWER_FIRST = entry(
    "answer-first",
    "Lead with the answer, then explain",
    "Put the direct answer or the exact command first, then a short explanation.",
)
CONCLUSION = entry(
    "conclusion-up-front",
    "Give the conclusion up front, details after",
    "Replies should open with the conclusion; background and reasoning come afterwards.",
)


def merges(memories: list[OrganizerEntry], meanings: Any = None) -> list[tuple[str, ...]]:
    plans = offline_proposals(memories, meanings).plans
    return [(p.decisions[0].target_slug or "", *p.decisions[0].source_slugs) for p in plans]


def test_a_paraphrase_is_merged_by_meaning_and_not_by_words() -> None:
    memories = [*BACKGROUND, ANSWER_FIRST, CONCLUSION]
    meanings = TableMeanings({("answer-first", "conclusion-up-front"): 0.95})

    assert merges(memories) == []  # they share almost no words
    (plan,) = offline_proposals(memories, meanings).plans
    (decision,) = plan.decisions
    assert {decision.target_slug, *decision.source_slugs} == {"answer-first", "conclusion-up-front"}
    # The reason says it was meaning, with the figures (ui/run_words.py words them).
    (pair,) = decision.reason_params["pairs"]
    assert pair["margin"] > config.MEANING_MIN_MARGIN and pair["cosine"] == 0.95
    assert "meaning margin" in decision.reason
    assert decision.confidence is not None
    assert config.OFFLINE_NEAR_CONFIDENCE_MIN <= decision.confidence
    assert decision.confidence <= config.OFFLINE_NEAR_CONFIDENCE_MAX


def test_a_pair_that_does_not_stand_out_from_its_neighbours_stays_apart() -> None:
    """0.845 against neighbours at 0.83: a margin of about 1.01, under the bar."""
    memories = [*BACKGROUND, ANSWER_FIRST, CONCLUSION]
    meanings = TableMeanings({("answer-first", "conclusion-up-front"): 0.845})
    (finding,) = [
        f
        for f in offline_proposals(memories, meanings).findings
        if {f.first.entry.slug, f.second.entry.slug} == {"answer-first", "conclusion-up-front"}
    ]
    assert finding.meaning is not None
    assert 1.0 < finding.meaning.margin < config.MEANING_MIN_MARGIN
    assert not finding.duplicate
    assert merges(memories, meanings) == []


@pytest.mark.parametrize(
    ("closeness", "close"),
    [
        (Closeness(cosine=0.9, margin=1.025, cross_lingual=False), True),
        (Closeness(cosine=0.9, margin=1.025, cross_lingual=True), False),  # a higher bar
        (
            Closeness(
                cosine=0.9, margin=config.MEANING_MIN_MARGIN_CROSS_LINGUAL, cross_lingual=True
            ),
            True,
        ),
        (Closeness(cosine=0.79, margin=1.5, cross_lingual=False), False),  # the cosine floor
    ],
    ids=["same-language", "across-languages-under", "across-languages-at", "under-the-floor"],
)
def test_the_bars_of_closeness(closeness: Closeness, close: bool) -> None:
    assert closeness.close is close


def test_close_in_meaning_about_another_subject_stays_apart() -> None:
    """The model puts a template about two subjects close; the difference rules do not."""
    refund = entry("refund-retry", "退款失败最多重试 5 次", "调用渠道退款接口失败时最多重试 5 次。")
    query = entry("query-retry", "查单失败最多重试 5 次", "主动查询订单状态失败时最多重试 5 次。")
    meanings = TableMeanings({("refund-retry", "query-retry"): 0.97})

    proposals = offline_proposals([*BACKGROUND, refund, query], meanings)

    assert proposals.plans == [] and proposals.contradictions == []
    (finding,) = [f for f in proposals.findings if f.meaning is not None and f.meaning.close]
    assert finding.judgement.verdict == "different"


def test_a_contradiction_found_by_meaning_is_shown_not_merged() -> None:
    """Two sentences with few shared words that give one limit two values."""
    ten = entry("rate-10", "Rate limit for checkout: 10 requests a second", "Set in the gateway.")
    five = entry(
        "rate-5",
        "Users get 5 requests per second on the checkout endpoint",
        "Clients that go over it get HTTP 429 and must back off.",
    )
    meanings = TableMeanings({("rate-10", "rate-5"): 0.96})

    assert offline_proposals([*BACKGROUND, ten, five]).contradictions == []  # words alone
    proposals = offline_proposals([*BACKGROUND, ten, five], meanings)

    assert proposals.plans == []
    (contradiction,) = proposals.contradictions
    assert {contradiction.first.slug, contradiction.second.slug} == {"rate-10", "rate-5"}
    assert contradiction.review_item()["code"] == "contradiction"


def test_a_third_rewording_joins_the_group_through_a_member() -> None:
    """c duplicates b (close), b duplicates a (close); c and a are only a little nearer each
    other than their neighbours: one group of three, not a pair and a leftover."""
    a = entry("shell-a", "Interactive shell is fish", "Ming's shell is fish.", updated_at=3_000)
    b = entry("shell-b", "Give shell snippets in fish syntax", "Ming uses the fish shell.")
    c = entry("shell-c", "Uses fish rather than bash", "In his terminal Ming runs fish.")
    background = [m for m in BACKGROUND if m.slug != "shell"]
    cosines = {
        ("shell-a", "shell-b"): 0.95,
        ("shell-b", "shell-c"): 0.95,
        ("shell-a", "shell-c"): 0.88,
    }

    (group,) = merges([*background, a, b, c], TableMeanings(cosines))

    assert group[0] == "shell-a" and set(group[1:]) == {"shell-b", "shell-c"}
    # Not when c is no nearer to a than to anything else: then only the pair.
    cosines[("shell-a", "shell-c")] = 0.80
    assert merges([*background, a, b, c], TableMeanings(cosines)) == [("shell-a", "shell-b")]


def test_without_meanings_words_alone_decide() -> None:
    memories = [*BACKGROUND, ANSWER_FIRST, CONCLUSION]
    failing = TableMeanings({("answer-first", "conclusion-up-front"): 0.95}, problem="no model")
    assert merges(memories, failing) == []


def test_pairs_by_meaning_stay_within_one_scope_and_project() -> None:
    here = entry("answer-first", ANSWER_FIRST.description, ANSWER_FIRST.body)
    there = entry(
        "conclusion-up-front",
        CONCLUSION.description,
        CONCLUSION.body,
        workdir_hash="b" * 16,
        scope="project",
    )
    meanings = TableMeanings({("answer-first", "conclusion-up-front"): 0.99})
    assert merges([*BACKGROUND, here, there], meanings) == []


@pytest.mark.parametrize(
    ("text", "pool"),
    [
        ("Lead with the answer, then explain", LATIN),
        ("强制推送之前必须先问我", CJK),
        ("前端项目用 pnpm 装依赖", CJK),  # Chinese with a name in it
        ("Use pnpm for shop-admin 前端", LATIN),  # English with a word of Chinese
    ],
)
def test_a_memory_s_language(text: str, pool: int) -> None:
    assert language(text) == pool

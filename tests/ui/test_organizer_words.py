"""The Organizer page says a run's summary, its decisions' reasons, what it held back and why it
ended in the person's language, from the report's codes (issue 14), and an older run's English
as it was stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.run_view import action_text
from liveagent_memory.ui.run_words import reason_text, review_item_text, summary_text
from liveagent_memory.ui.window import MainWindow
from tests.helpers.fake_llm import FakeLLMServer
from tests.helpers.organizer import merge, only_known, planner
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, seed
from tests.ui.test_organizer_page import (
    SEEDED,
    children,
    finished_run,
    memory,
    merge_queue,
    on_disk,
    open_page,
    queue_shown,
    settle,
    stored_run,
    use_fake_model,
)

TEA = "The user prefers green tea in the morning and never drinks coffee after lunch."
NEAR = [
    memory("tea-a", TEA, "Morning tea"),
    memory("tea-b", TEA + " Sometimes jasmine.", "Morning tea"),
    memory("coffee", "No coffee after 2pm.", "Coffee rule"),
]


def details(page: OrganizerPage) -> str:
    return page.details.toPlainText()


def reasons(page: OrganizerPage) -> list[str]:
    """The Reason column of the queue: each decision, then its parts."""
    out = []
    for item in page.queue_items():
        out.append(item.text(5))
        out += [child.text(5) for child in children(item)]
    return out


async def in_chinese(window: MainWindow, page: OrganizerPage, english: Translations) -> None:
    window.translations = english
    window.switch_language("zh_CN")
    await until(lambda: page.run_button.text() != "Run now", what="Chinese")


async def in_english(window: MainWindow, page: OrganizerPage) -> None:
    window.switch_language("en")
    await until(lambda: page.run_button.text() == "Run now", what="English")


@pytest.mark.asyncio
async def test_an_offline_run_reads_in_chinese_and_relabels_on_a_switch(
    open_window: OpenWindow, home: Path, english: Translations
) -> None:
    seed(home, NEAR)
    window, page = await open_page(open_window)
    page.run_button.click()
    run = await finished_run(page)
    (decision,) = page.queue_items()
    keeper, (source,) = decision.text(1), {"tea-a", "tea-b"} - {decision.text(1)}

    try:
        await in_chinese(window, page, english)
        summary = "记忆 3 条，聚类 1 个。提出 2 项合并与删除，等待审阅（离线重复检查）。"
        assert summary in details(page)
        assert page.progress_label.toolTip() == f"上次运行：成功 — {summary}"
        merged, written, deleted = reasons(page)
        assert merged.startswith(f"与 {keeper} 近似重复（没有实质差异）：{source}（相似度 ")
        assert "Jaccard" in merged and "包含度" in merged and merged.endswith("）。")
        assert written == merged
        assert deleted == f"已并入 {keeper}。"
        assert not any("near duplicates" in text or "merged into" in text for text in reasons(page))
    finally:
        await in_english(window, page)

    assert "Memories: 3, clusters: 1. 2 merges and deletions proposed for review" in details(page)
    said = f"Near duplicates of {keeper} (nothing material differs): {source}"
    assert reasons(page)[0].startswith(said)
    assert reasons(page)[2] == f"Merged into {keeper}."
    # What is on disk is as the core wrote it: the files untouched, the report's English kept.
    assert on_disk(home) == {"tea-a", "tea-b", "coffee"}
    stored = stored_run(home, run["run_id"])
    assert stored["final_summary"].startswith("3 memories in 1 cluster; 2 merges and deletions")
    safe = stored["report"]["report"]["safeDecisions"]
    assert safe[1]["reason"] == f"merged into {keeper}"
    await settle(window)


@pytest.mark.asyncio
async def test_held_back_buckets_notes_and_a_models_reason_in_chinese(
    open_window: OpenWindow, home: Path, llm_server: FakeLLMServer, english: Translations
) -> None:
    seed(home, SEEDED)
    use_fake_model(home, llm_server)
    review = {"action": "mark_review", "slug": "coffee-old", "reason": "contradicts api-docs"}
    plan = [merge("tea-green", "tea-green-copy", reason="both about tea"), review]
    llm_server.push(planner(only_known(plan)))
    window, page = await open_page(open_window)
    page.run_button.click()
    await finished_run(page)
    await queue_shown(page, 1)

    try:
        await in_chinese(window, page, english)
        text = details(page)
        assert "记忆 4 条，聚类 1 个。2 项决定通过风险检查，1 项被暂缓。" in text
        assert "暂缓：模型要求审阅 1" in text
        assert "：模型请求审阅 coffee-old。模型给出的理由：contradicts api-docs" in text
        # The model's own words are not translated: they are shown as its reason.
        assert reasons(page)[0] == "模型给出的理由：both about tea"
        assert reasons(page)[2] == "已并入 tea-green。"
    finally:
        await in_english(window, page)

    text = details(page)
    assert "Held back: the model asked for review 1" in text
    assert ": the model asks for a review of coffee-old. Model's reason: contradicts api-docs" in (
        text
    )
    assert reasons(page)[0] == "Model's reason: both about tea"
    assert on_disk(home) == {"tea-green", "tea-green-copy", "coffee-old", "api-docs"}
    await settle(window)


@pytest.mark.asyncio
async def test_an_older_run_keeps_its_english_in_chinese(
    open_window: OpenWindow, home: Path, english: Translations
) -> None:
    # A report written before the codes (or by LiveAgent): reasons and summary as stored.
    run_id = merge_queue(home)
    with MemoryStore.open(home) as store:
        dispatch(
            store,
            "organize_run_update",
            {"run_id": run_id, "final_summary": "4 memories in 1 cluster; 4 proposed"},
        )
    window, page = await open_page(open_window)
    await queue_shown(page)

    try:
        await in_chinese(window, page, english)
        assert "4 memories in 1 cluster; 4 proposed" in details(page)
        assert reasons(page) == ["all green tea"] * 4 + ["obsolete"]
    finally:
        await in_english(window, page)
    assert stored_run(home, run_id)["report"]["legacy"] is False
    await settle(window)


CONTRADICTION = {
    "phase": "planning",
    "kind": "review",
    "severity": "warning",
    "message": "contradiction: rate-10 and rate-5 disagree (...); which one is current?",
    "code": "contradiction",
    "slug": "rate-10",
    "params": {
        "first": "rate-10",
        "second": "rate-5",
        "differences": [
            {"kind": "number", "first": ["10 次", "限 10"], "second": ["5 次"]},
            {"kind": "negation", "first": [], "second": ["用 tabs"]},
        ],
    },
}


def test_a_contradiction_is_worded_from_its_code_in_both_languages(english: Translations) -> None:
    assert review_item_text(CONTRADICTION) == (
        "rate-10 and rate-5 disagree (number 10 次, 限 10 / 5 次, negation - / 用 tabs); "
        "which one is current?"
    )
    try:
        assert english.switch("zh_CN")
        assert review_item_text(CONTRADICTION) == (
            "rate-10 与 rate-5 说法矛盾（数字 10 次、限 10 / 5 次、否定 - / 用 tabs），"
            "哪一条是现在的？"
        )
    finally:
        english.switch("en")
    # Figures that are not of their kind: the stored English, never a crash.
    broken = {**CONTRADICTION, "params": {"first": "rate-10", "second": "rate-5"}}
    assert review_item_text(broken) == CONTRADICTION["message"]


KEPT_APART: dict[str, Any] = {
    "phase": "planning",
    "kind": "review",
    "severity": "warning",
    "message": "global::reference:1: merge_into pool-prod held back: ...",
    "code": "merge_kept_apart",
    "slug": "pool-prod",
    "params": {
        "cluster": "global::reference:1",
        "target": "pool-prod",
        "first": "pool-prod",
        "second": "pool-staging",
        "verdict": "different",
        "differences": [{"kind": "environment", "first": ["production"], "second": ["staging"]}],
    },
}


def test_a_merge_the_check_kept_apart_is_worded_from_its_code_in_both_languages(
    english: Translations,
) -> None:
    # issue 15: the gate held back a model's merge of two memories the duplicate check judged
    # different facts (or a contradiction); the note says which and what differs.
    disagree = {**KEPT_APART, "params": {**KEPT_APART["params"], "verdict": "contradiction"}}
    assert review_item_text(KEPT_APART) == (
        "global::reference:1: the merge into pool-prod is held back: pool-prod and "
        "pool-staging are different facts (environment production / staging)."
    )
    assert review_item_text(disagree) == (
        "global::reference:1: the merge into pool-prod is held back: pool-prod and "
        "pool-staging disagree (environment production / staging); which one is current?"
    )
    try:
        assert english.switch("zh_CN")
        assert review_item_text(KEPT_APART) == (
            "global::reference:1：并入 pool-prod 的合并被暂缓：pool-prod 与 pool-staging "
            "说的是不同的事实（环境 production / staging）。"
        )
        assert review_item_text(disagree) == (
            "global::reference:1：并入 pool-prod 的合并被暂缓：pool-prod 与 pool-staging "
            "说法矛盾（环境 production / staging），哪一条是现在的？"
        )
    finally:
        english.switch("en")
    # A swapped subject and an exception are worded too (organizer/differences.py).
    swapped = {
        **KEPT_APART,
        "params": {
            **KEPT_APART["params"],
            "differences": [
                {"kind": "subject", "first": ["退款"], "second": ["查单"]},
                {"kind": "exception", "first": [], "second": ["exception"]},
            ],
        },
    }
    assert "(subject 退款 / 查单, exception - / exception)" in review_item_text(swapped)
    # Figures that are not of their kind: the stored English, never a crash.
    broken = {**KEPT_APART, "params": {"cluster": "c", "target": "pool-prod"}}
    assert review_item_text(broken) == KEPT_APART["message"]


LEARNED: dict[str, Any] = {
    "op": "upsert",
    "slug": "avoid-keyerror-e14a48",
    "scope": "global",
    "reason": "Learned from 2 episodes (new anti-pattern): ep-2026-11-30-a1, ep-2026-11-30-b2",
    "reasonCode": "learned",
    "reasonParams": {
        "kind": "antiPattern",
        "episodes": ["ep-2026-11-30-a1", "ep-2026-11-30-b2"],
        "update": False,
    },
}


def test_what_consolidation_learned_is_worded_from_its_code_in_both_languages(
    english: Translations,
) -> None:
    # Issue 18: a learned proposal's action and reason, the run's summary and a skipped file.
    update = {
        **LEARNED,
        "reasonParams": {**LEARNED["reasonParams"], "kind": "skill", "update": True},
    }
    run = {
        "status": "succeeded",
        "final_summary": "3 new episodes; 1 proposals for review (...)",
        "outcome": {"code": "consolidated", "episodes": 3, "proposed": 1},  # as listed or read
    }
    nothing = {"status": "skipped", "final_summary": "no new episodes since the last consolidation"}
    skipped = {
        "phase": "planning",
        "kind": "error",
        "severity": "warning",
        "message": "episode ep-x skipped: ...",
        "code": "episode_skipped",
        "params": {"episode": "ep-x", "path": "episodes/2026-11-30/ep-x.json"},
    }
    assert [action_text(LEARNED), action_text(update)] == ["New anti-pattern", "Update skill"]
    assert reason_text(LEARNED) == (
        "Learned from 2 episodes (anti-pattern): ep-2026-11-30-a1, ep-2026-11-30-b2."
    )
    assert reason_text(update) == (
        "The skill already exists; 2 more episodes confirm it: ep-2026-11-30-a1, ep-2026-11-30-b2."
    )
    assert summary_text(run) == "3 new episodes; 1 lessons proposed for review."
    assert (
        summary_text(nothing) == "No new episodes since the last consolidation: nothing to learn."
    )
    assert review_item_text(skipped) == (
        "Episode ep-x could not be read and was skipped (episodes/2026-11-30/ep-x.json)."
    )
    too_long = {
        **skipped,
        "code": "learned_too_long",
        "params": {"slug": "avoid-x", "bytes": 9000, "limit": 8192},
    }
    assert review_item_text(too_long) == (
        "avoid-x: what was learned would be 9000 bytes, over the limit of 8192; shorten the "
        "memory to let it grow."
    )
    try:
        assert english.switch("zh_CN")
        assert [action_text(LEARNED), action_text(update)] == ["新反模式", "更新技能"]
        assert reason_text(LEARNED) == (
            "从 2 条经历中学到的反模式：ep-2026-11-30-a1、ep-2026-11-30-b2。"
        )
        assert reason_text(update) == (
            "该技能已存在；又有 2 条经历印证了它：ep-2026-11-30-a1、ep-2026-11-30-b2。"
        )
        assert summary_text(run) == "3 条新经历；1 条经验待审阅。"
        assert summary_text(nothing) == "上次整合以来没有新的经历：没有可学习的内容。"
        assert review_item_text(skipped) == (
            "经历 ep-x 无法读取，已跳过（episodes/2026-11-30/ep-x.json）。"
        )
        assert review_item_text(too_long) == (
            "avoid-x：学到的内容将有 9000 字节，超过 8192 的上限；"
            "请先缩短这条记忆，它才能继续增长。"
        )
    finally:
        english.switch("en")
    # Figures that are not of their kind: the stored English, never a crash.
    broken = {**LEARNED, "reasonParams": {"kind": "lesson"}}
    assert reason_text(broken) == LEARNED["reason"]

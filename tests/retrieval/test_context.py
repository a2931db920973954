"""get_relevant_context on a real store: task weights, the strict budget, progressive loading."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import ListRequest
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.retrieval.budget import Budget, check_budget
from liveagent_memory.retrieval.progressive import Piece, assemble, sufficiency
from liveagent_memory.retrieval.unified import ContextItem, MemoryContext, get_relevant_context
from liveagent_memory.store.store import MemoryStore
from tests.helpers.corpus import FILLER as BASE_FILLER
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory

Payload = dict[str, Any]


def write(
    store: MemoryStore, slug: str, type_: str, description: str, body: str, **fields: Any
) -> None:
    """A memory of high confidence quoting its own body, unless `fields` say otherwise."""
    evidence = {"confidence": "high", "source_quote": body[:40]}
    write_memory(store, slug, type=type_, description=description, body=body, **(evidence | fields))


def episode(store: MemoryStore, **fields: Any) -> str:
    data = dispatch(store, "episode_record", {"episode": fields})
    return str(data["episode"]["id"])


# A store has many memories about other things: so does the fixture (BM25 needs them).
FILLER = [
    *BASE_FILLER,
    ("release-train", "Releases ship every second Tuesday."),
    ("review-size", "Pull requests stay under four hundred lines."),
]


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    for slug, body in FILLER:
        write(store, slug, "reference", slug.replace("-", " "), body)
    write(
        store,
        "no-retry-on-401",
        "feedback",
        "Never retry a login request after a 401",
        "Retrying a login after a 401 locked the account; refresh the token instead.",
    )
    write(
        store,
        "auth-uses-jwt",
        "project",
        "The login service issues JWT tokens",
        "The login service issues JWT access tokens valid for 15 minutes.",
    )
    write(
        store,
        "crash-reports",
        "reference",
        "Crash reports go to the sentry project",
        "Crash reports of the login app go to the sentry project mobile-login.",
    )
    write(
        store,
        "tea",
        "user",
        "The user drinks oolong tea",
        "The user drinks oolong tea in the afternoon.",
    )
    episode(
        store,
        goal="fix the login crash when the token expires",
        outcome="success",
        summary="The refresh token was not renewed before expiry.",
        action_log=[
            {"tool": "run_test", "input": "tests/test_login.py", "output": "1 failed"},
            {"tool": "edit_file", "input": "auth/session.py", "output": "renew before expiry"},
        ],
        errors_encountered=[
            {"error_type": "KeyError", "message": "'exp' missing", "resolution": "default"}
        ],
        key_decisions=["renew tokens 60 s before they expire"],
    )
    episode(
        store,
        goal="investigate the login crash on android",
        outcome="failure",
        summary="Could not reproduce the crash on the emulator.",
        errors_encountered=[{"error_type": "Timeout", "message": "emulator hung"}],
    )
    return store


def context(store: MemoryStore, query: str, **kw: Any) -> MemoryContext:
    return get_relevant_context(store, query, **kw)


def keys(items: list[ContextItem]) -> list[str]:
    return [item.key for item in items]


# --- tokens and the budget ----------------------------------------------------------------------
def test_tokens_count_chinese_per_character_and_english_per_four() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("修复登录崩溃") == 6  # the reference's len//4 would say 1
    assert estimate_tokens("修复 login，崩溃") == 4 + 1 + 2  # 4 CJK + "，" + ceil(7/4)


def test_the_estimate_of_joined_texts_never_exceeds_the_sum_of_the_parts() -> None:
    rng = random.Random(7)
    alphabet = "ab c\n修复登录，。"
    for _ in range(500):
        parts = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
            for _ in range(rng.randint(1, 6))
        ]
        assert estimate_tokens("".join(parts)) <= sum(estimate_tokens(p) for p in parts)


def test_a_budget_refuses_what_does_not_fit() -> None:
    budget = Budget(10)
    assert budget.take(6) and budget.left == 4
    assert not budget.take(5) and budget.used == 6
    assert budget.swap(6, 10) and budget.left == 0
    assert not budget.swap(1, 3)
    assert budget.swap(10, 2) and budget.used == 2
    with pytest.raises(ValueError):
        Budget(-1)


@pytest.mark.parametrize("bad", [0, -5, 200_001, 2.5, True, "100"])
def test_a_bad_budget_is_a_typed_error(bad: Any) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_budget(bad, field="token_budget", maximum=200_000)
    assert caught.value.field == "token_budget"


def test_the_budget_is_never_exceeded(filled: MemoryStore) -> None:
    for query in ("fix the login crash", "修复登录崩溃 login", "explain all the details"):
        for budget in [1, 5, 20, 40, 60, 80, 100, 150, 200, 300, 500, 1000, 4000]:
            for force_full in (False, True):
                result = context(filled, query, token_budget=budget, force_full=force_full)
                assert result.tokens_used == estimate_tokens(result.text) <= budget
                assert result.tokens_left == budget - result.tokens_used
                assert sum(item.tokens for item in result.items()) <= result.tokens_used


def test_what_does_not_fit_is_reported_as_left_out_for_the_budget(filled: MemoryStore) -> None:
    roomy = context(filled, "fix the login crash", token_budget=4000)
    tight = context(filled, "fix the login crash", token_budget=60)
    assert len(tight.items()) < len(roomy.items())
    budget_left = {item.key for item in tight.left_out if item.reason == "budget"}
    assert budget_left == set(keys(roomy.items())) - set(keys(tight.items()))
    assert tight.retrieval_stats["left_out"]["budget"] == len(budget_left)
    assert all(item.tokens_needed > 0 for item in tight.left_out)


def test_a_budget_below_the_header_shows_nothing_and_reports_everything(
    filled: MemoryStore,
) -> None:
    result = context(filled, "fix the login crash", token_budget=3)
    assert result.text == "" and result.tokens_used == 0 and result.items() == []
    assert {item.reason for item in result.left_out} >= {"budget"}


# --- task types ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "task"),
    [
        ("fix the login crash", "debugging"),
        ("修复登录崩溃", "debugging"),
        ("review the login service", "review"),
        ("审查登录服务的代码", "review"),
        ("refactor the session module", "refactoring"),
        ("explore how the login service works", "exploration"),
        ("add a logout button", "implementation"),
        ("login tokens", "implementation"),
    ],
)
def test_the_task_type_is_detected_from_the_query(
    filled: MemoryStore, query: str, task: str
) -> None:
    result = context(filled, query)
    assert (result.task_type, result.task_type_source) == (task, "detected")


def test_a_given_task_type_wins_and_an_unknown_one_is_refused(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", task_type="review")
    assert (result.task_type, result.task_type_source) == ("review", "given")
    assert result.weights == {
        "episodic": 0.3,
        "semantic": 0.5,
        "skills": 0.0,
        "anti_patterns": 0.2,
    }
    with pytest.raises(InvalidArgument) as caught:
        context(filled, "fix the login crash", task_type="gardening")
    assert caught.value.field == "task_type"


def test_debugging_draws_on_episodes_and_anti_patterns(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", task_type="debugging")
    assert keys(result.anti_patterns) == ["memory:global::no-retry-on-401"]
    assert result.relevant_episodes and result.relevant_episodes[0].source == "episode"
    # The kinds are shown heaviest first: anti-patterns and episodes (0.4) before facts (0.2).
    text = result.text
    assert text.index("## What to avoid") < text.index("## What is known")


def test_a_kind_weighted_zero_is_not_searched(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", task_type="implementation")
    assert result.anti_patterns == []  # implementation weighs anti-patterns 0
    assert result.retrieval_stats["candidates"]["anti_patterns"] == 0
    assert "## What to avoid" not in result.text
    assert not any(item.kind == "anti_patterns" for item in result.left_out)


def test_weights_and_importance_order_equal_matches(store: MemoryStore) -> None:
    write(
        store, "deploy-high", "project", "Deploy with the blue green script", "Deploy blue green."
    )
    write(
        store,
        "deploy-low",
        "project",
        "Deploy with the blue green script",
        "Deploy blue green.",
        confidence="low",
        source_quote="",
    )
    result = context(store, "deploy blue green", task_type="implementation")
    ranked = keys(result.applicable_patterns)
    assert ranked.index("memory:global::deploy-high") < ranked.index("memory:global::deploy-low")
    high, low = result.applicable_patterns[0], result.applicable_patterns[1]
    assert high.importance > low.importance


def test_old_episodes_decay_and_recent_ones_get_a_boost(
    store: MemoryStore, clock: FakeClock
) -> None:
    old = episode(store, goal="fix the flaky upload test", outcome="success")
    clock.advance(days=60)
    new = episode(store, goal="fix the flaky upload test", outcome="success")
    result = context(store, "fix the flaky upload test", task_type="debugging")
    by_id = {item.ref["id"]: item for item in result.relevant_episodes}
    assert by_id[new].recency > 1.0 and by_id[old].recency == 1.0
    assert by_id[new].importance > by_id[old].importance
    assert keys(result.relevant_episodes)[0] == f"episode:{new}"


def test_an_episode_of_the_day_the_query_names_comes_first(
    store: MemoryStore, clock: FakeClock
) -> None:
    old = episode(store, goal="fix the flaky upload test", outcome="success")  # 30 Nov 2026
    clock.advance(days=60)
    new = episode(store, goal="fix the flaky upload test", outcome="success")
    query = "fix the flaky upload test"

    plain = context(store, query, task_type="debugging")
    dated = context(store, f"{query} from 30 November 2026", task_type="debugging")
    chinese = context(store, f"{query} 2026年11月", task_type="debugging")

    assert keys(plain.relevant_episodes)[0] == f"episode:{new}"  # newer wins without a date
    assert keys(dated.relevant_episodes)[0] == f"episode:{old}"
    assert keys(chinese.relevant_episodes)[0] == f"episode:{old}"
    by_id = {item.ref["id"]: item for item in dated.relevant_episodes}
    assert by_id[old].relevance == 1.0 and by_id[new].relevance < 1.0


def test_project_memories_and_episodes_need_their_workdir(
    store: MemoryStore, tmp_path: Path
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    write(
        store,
        "here-db",
        "project",
        "Here the database is postgres",
        "postgres database",
        scope="project",
        workdir=str(here),
    )
    write(
        store,
        "there-db",
        "project",
        "There the database is sqlite",
        "sqlite database",
        scope="project",
        workdir=str(there),
    )
    dispatch(
        store, "episode_record", {"episode": {"goal": "migrate the database"}, "workdir": str(here)}
    )
    without = context(store, "database", task_type="exploration")
    assert without.items() == []
    inside = context(store, "database", task_type="exploration", workdir=str(here))
    found = {item.ref.get("slug") or "episode" for item in inside.items()}
    assert found == {"here-db", "episode"}


def test_top_k_limits_each_kind_and_the_rest_is_left_out_by_rank(store: MemoryStore) -> None:
    for n in range(6):
        write(
            store, f"cache-note-{n}", "reference", f"Cache note {n}", f"The cache note number {n}."
        )
    result = context(store, "cache note", top_k=2, task_type="implementation")
    assert len(result.applicable_patterns) == 2
    # 2 x top_k candidates are fetched per kind (REFERENCE B3); those beyond top_k are reported.
    assert [item.reason for item in result.left_out].count("rank") == 2
    with pytest.raises(InvalidArgument):
        context(store, "cache note", top_k=0)
    with pytest.raises(InvalidArgument):
        context(store, "   ")


# --- progressive loading -----------------------------------------------------------------------
def test_three_summaries_are_sufficient_and_no_body_is_loaded(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", token_budget=4000)
    stats = result.retrieval_stats
    assert len(result.items()) >= 3
    assert stats["sufficiency"]["sufficient"] is True
    assert stats["layers"]["3"] == 0
    assert {item.layer for item in result.items()} == {2}


def test_asking_for_details_loads_the_most_relevant_bodies(filled: MemoryStore) -> None:
    result = context(filled, "all the details of the login crash fix", token_budget=4000)
    assert result.retrieval_stats["sufficiency"]["sufficient"] is False
    full = [item for item in result.items() if item.layer == 3]
    assert full and all(item.relevance >= 0.8 for item in full)
    episode_text = next(i.text for i in result.relevant_episodes if i.layer == 3)
    assert "edit_file auth/session.py → renew before expiry" in episode_text
    assert "decided: renew tokens 60 s before they expire" in episode_text


def test_force_full_loads_every_body_that_fits(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", token_budget=4000, force_full=True)
    assert result.retrieval_stats["sufficiency"]["reason"].startswith("force_full")
    assert {item.layer for item in result.items()} == {3}
    memory = next(i for i in result.anti_patterns)
    assert "refresh the token instead" in memory.text


def test_a_tight_budget_falls_back_to_index_lines(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", token_budget=70)
    layers = {item.layer for item in result.items()}
    assert 1 in layers
    for item in result.items():
        if item.layer == 1:
            assert item.text.count("\n") == 1  # one line: what it is and its id


def test_the_timeline_is_shown_whole_or_not_at_all(filled: MemoryStore) -> None:
    roomy = context(filled, "fix the login crash", token_budget=4000)
    assert roomy.timeline_included and "### Timeline" in roomy.text
    assert "open: investigate the login crash on android" in roomy.text
    assert "blocked by: Timeout: emulator hung" in roomy.text
    timeline = roomy.text[roomy.text.index("### Timeline") :].split("\n## ", 1)[0]
    # Just too small for the timeline on top of the rest: the rest stays, the timeline goes.
    budget = roomy.tokens_used - 1
    squeezed = context(filled, "fix the login crash", token_budget=budget)
    assert not squeezed.timeline_included and "### Timeline" not in squeezed.text
    assert squeezed.tokens_used <= budget
    assert estimate_tokens(timeline) > 10


def test_no_timeline_without_an_episode_in_the_context(filled: MemoryStore) -> None:
    result = context(filled, "oolong tea", task_type="exploration")
    assert result.items() and not result.relevant_episodes
    assert not result.timeline_included


@pytest.mark.parametrize(
    ("query", "shown", "force", "sufficient"),
    [
        ("fix the crash", 3, False, True),
        ("fix the crash", 5, True, False),
        ("fix the crash", 0, False, False),
        ("fix the crash", 2, False, False),
        ("show me everything about the crash", 5, False, False),
        ("the full story", 5, False, False),
        ("详细说明登录崩溃", 5, False, False),
        ("fully", 5, False, True),  # a word, not a part of one
    ],
)
def test_the_sufficiency_rule(query: str, shown: int, force: bool, sufficient: bool) -> None:
    assert sufficiency(query, shown, force_full=force).sufficient is sufficient


def returning(text: str) -> Callable[[], str]:
    return lambda: text


def timeline(episodes: list[str]) -> str:
    """The timeline of the episodes shown (assemble asks only when one is)."""
    assert episodes and all(key.startswith("episode:") for key in episodes)
    return "### Timeline\n  x\n"


def test_assemble_never_overspends_on_random_pieces() -> None:
    rng = random.Random(3)
    for _ in range(300):
        pieces = []
        for n in range(rng.randint(0, 8)):
            words = " ".join(
                "词" if rng.random() < 0.3 else "word" for _ in range(rng.randint(1, 80))
            )
            kind = rng.choice(["episodic", "semantic", "skills", "anti_patterns"])
            pieces.append(
                Piece(
                    # An episode's key, so that a shown one brings the timeline in.
                    key=f"episode:{n}" if kind == "episodic" else f"memory:{n}",
                    kind=kind,
                    score=rng.random(),
                    relevance=rng.random(),
                    index_text=f"- {n}\n",
                    summary_text=f"- {n} {words[:40]}\n",
                    load_full=returning(f"- {n} {words}\n"),
                )
            )
        budget = rng.randint(1, 400)
        result = assemble(
            pieces,
            budget=budget,
            header="# h\n",
            sections=[
                (k, f"## {k}\n") for k in ("episodic", "semantic", "skills", "anti_patterns")
            ],
            timeline=timeline if rng.random() < 0.5 else None,
            query=rng.choice(["a", "all of it"]),
            force_full=rng.random() < 0.3,
        )
        assert estimate_tokens(result.text) <= result.tokens_spent <= budget


# --- what the context says about itself ----------------------------------------------------------
def test_every_item_can_be_read_back_by_its_ref(filled: MemoryStore) -> None:
    result = context(filled, "fix the login crash", token_budget=4000)
    for item in result.items():
        if item.source == "episode":
            assert dispatch(filled, "episode_read", item.ref)["episode"]["id"] == item.ref["id"]
        else:
            assert dispatch(filled, "memory_read", item.ref)["entry"]["slug"] == item.ref["slug"]


def test_savings_compare_with_loading_everything(filled: MemoryStore) -> None:
    result = context(filled, "oolong", token_budget=4000)
    stats = result.retrieval_stats
    assert stats["full_load_items"] == len(FILLER) + 4 + 2  # memories, two episodes
    assert stats["full_load_tokens"] > result.tokens_used > 0
    expected = (stats["full_load_tokens"] - result.tokens_used) / stats["full_load_tokens"] * 100
    assert stats["savings_percent"] == round(expected, 1)
    assert stats["search"]["mode"] == "keyword"


def test_loading_everything_is_the_token_estimate_of_every_file(filled: MemoryStore) -> None:
    """One estimator: each file's text through domain/text.py's estimate_tokens, not its bytes
    // 4 (which counted a Chinese character, three bytes, as three quarters of a token)."""
    write(filled, "green-tea", "user", "用户喜欢绿茶", "用户每天下午喝一杯绿茶，不加糖。" * 8)
    result = context(filled, "oolong", token_budget=4000)
    listed = filled.list_entries(ListRequest(include_daily=True, limit=1000)).entries
    texts = [(filled.root / entry.path).read_text("utf-8") for entry in listed]
    texts += [path.read_text("utf-8") for path in filled.layout.episodes_dir.rglob("*.json")]
    assert len(texts) == result.retrieval_stats["full_load_items"] == len(FILLER) + 5 + 2
    expected = sum(estimate_tokens(text) for text in texts)
    assert result.retrieval_stats["full_load_tokens"] == expected
    assert expected > sum(len(text.encode("utf-8")) for text in texts) // 4


def test_a_memory_deleted_after_the_search_still_gives_a_context(filled: MemoryStore) -> None:
    result = context(filled, "all the details of the login crash fix", token_budget=4000)
    assert any(item.layer == 3 for item in result.items())
    # The full body is read lazily: removing the file between search and read is survivable.
    dispatch(filled, "memory_delete", {"slug": "no-retry-on-401", "scope": "global"})
    again = context(filled, "all the details of the login crash fix", token_budget=4000)
    assert "memory:global::no-retry-on-401" not in keys(again.items())


def test_the_context_command_is_json_and_validates(filled: MemoryStore) -> None:
    data: Payload = dispatch(
        filled,
        "context",
        {"query": "fix the login crash", "token_budget": 500, "providers": []},
    )
    assert data["tokens_used"] <= 500 and data["task_type"] == "debugging"
    assert set(data) >= {
        "relevant_episodes",
        "applicable_patterns",
        "suggested_skills",
        "anti_patterns",
        "left_out",
        "retrieval_stats",
        "text",
    }
    for payload in (
        {"query": "x", "token_budget": "many", "providers": []},
        {"query": "x", "token_budget": 0, "providers": []},
        {"query": "", "providers": []},
        {"query": "x", "top_k": 99, "providers": []},
        {"query": "x", "colour": "red"},
    ):
        with pytest.raises(InvalidArgument):
            dispatch(filled, "context", payload)


def test_implementation_suggests_skills_and_debugging_does_not(filled: MemoryStore) -> None:
    dispatch(
        filled,
        "memory_write",
        {
            "slug": "add-login-provider",
            "scope": "global",
            "type": "skill",
            "description": "Add a login provider",
            "skill": {
                "when_to_use": "When a new login provider is added",
                "steps": ["Register the provider in auth/providers.py", "Add its login button"],
                "common_errors": [{"error": "redirect mismatch", "fix": "add the callback URL"}],
            },
        },
    )
    build = context(filled, "add a login provider", token_budget=4000, force_full=True)
    assert build.task_type == "implementation"
    assert keys(build.suggested_skills) == ["memory:global::add-login-provider"]
    skill = build.suggested_skills[0]
    assert skill.layer == 3 and "Register the provider in auth/providers.py" in skill.text
    assert "## Procedures that apply (skills)" in build.text
    debug = context(filled, "fix the login provider crash", token_budget=4000)
    assert debug.task_type == "debugging" and debug.suggested_skills == []


def test_summaries_carry_no_search_marks_or_heading_marks(filled: MemoryStore) -> None:
    write(filled, "fabu-liucheng", "project", "发布流程", "发布新版本之前先运行全部测试。")
    dispatch(
        filled,
        "memory_write",
        {
            "slug": "release-steps",
            "scope": "global",
            "type": "skill",
            "description": "Release the app",
            "body": "## When to use\nBefore a release.\n\n## Steps\n1. make test\n2. make release",
        },
    )
    chinese = context(filled, "发布新版本", task_type="implementation")
    text = next(i.text for i in chinese.items() if i.ref.get("slug") == "fabu-liucheng")
    assert "\n  发布新版本之前先运行全部测试。\n" in text  # the excerpt, its match unmarked
    english = context(filled, "release the app", task_type="implementation")
    skill = english.suggested_skills[0]
    assert skill.layer == 2 and "##" not in skill.text and "Steps 1. make test" in skill.text


def test_an_episode_without_a_summary_shows_its_unmarked_excerpt(store: MemoryStore) -> None:
    episode(store, goal="profile the slow export", action_log=[{"tool": "run", "input": "py-spy"}])
    result = context(store, "slow export", task_type="debugging")
    (item,) = result.relevant_episodes
    assert "[" not in item.text.split(":", 1)[1] and "slow export" in item.text

"""The offline planner: exact and near duplicates proposed as merges (SPEC 4 offline mode)."""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Unpack

import pytest

from liveagent_memory.domain import config
from liveagent_memory.organizer import candidates, offline
from liveagent_memory.organizer.candidates import tokens
from liveagent_memory.organizer.decisions import ClusterPlan, OrganizerEntry, build_decisions
from liveagent_memory.organizer.offline import offline_plans
from liveagent_memory.organizer.words import stem
from tests.helpers.organizer import EntryFields, organizer_entry

NOW_MS = 1_780_000_000_000
PROJECT_A = "a" * 16
PROJECT_B = "b" * 16


def entry(
    slug: str, description: str, body: str | None = None, /, **fields: Unpack[EntryFields]
) -> OrganizerEntry:
    """An unreviewed user memory updated at 1,000 whose body, unless given, is its description
    (the planner compares both)."""
    fields.setdefault("type", "user")
    fields.setdefault("updated_at", 1_000)
    fields["description"] = description
    fields["body"] = description if body is None else body
    return organizer_entry(slug, **fields)


def only_plan(plans: list[ClusterPlan]) -> ClusterPlan:
    assert len(plans) == 1, [plan.cluster.id for plan in plans]
    return plans[0]


def grouped(plans: list[ClusterPlan]) -> list[tuple[str, tuple[str, ...]]]:
    """(target, sources) per plan."""
    out = []
    for plan in plans:
        (decision,) = plan.decisions
        assert decision.target_slug is not None
        out.append((decision.target_slug, decision.source_slugs))
    return out


# --- text helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("use", "uses", "used", "using"), "us"),
        (("prefer", "prefers", "preferred", "preference"), "prefer"),
        (("test", "tests", "tested", "testing"), "test"),
        (("run", "runs", "running"), "run"),
        (("dependency", "dependencies"), "depend"),
        (("configure", "configured", "configuration"), "config"),
        (("status", "statuses"), "status"),
        (("class", "classes"), "class"),
    ],
)
def test_stem_conflates_word_families(words: tuple[str, ...], expected: str) -> None:
    assert {stem(word) for word in words} == {expected}


def test_stem_keeps_numbers_names_and_short_words_whole() -> None:
    assert stem("python3") == "python3"
    assert stem("v18") == "v18"
    assert stem("café") == "café"
    assert stem("go") == "go"
    assert stem("thing") == "thing"  # "th" has no vowel: not an -ing form


def test_tokens_drop_stop_words_and_use_cjk_bigrams() -> None:
    assert tokens("The user prefers THE dark mode") == {"user", "prefer", "dark", "mod"}
    assert tokens("用 pnpm 安装依赖") == {"用", "pnpm", "安装", "装依", "依赖"}
    assert tokens("Ｐｎｐｍ，ＰＮＰＭ") == {"pnpm"}  # full width folds to ASCII


# --- exact duplicates -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            ("Use pnpm, not npm", "Always install dependencies with pnpm; npm breaks it."),
            ("use PNPM not NPM!", "always install dependencies with pnpm - npm breaks it"),
        ),
        (
            ("用 pnpm 安装依赖", "这个项目用 pnpm 安装依赖，不要用 npm。"),
            ("用pnpm安装依赖", "这个项目用 pnpm 安装依赖, 不要用 npm."),
        ),
        (
            ("用 pnpm 安装依赖", "这个项目用 pnpm 安装依赖，不要用 npm。"),
            ("用 ＰＮＰＭ 安装依赖", "这个项目用ｐｎｐｍ安装依赖！不要用ＮＰＭ"),  # full width
        ),
        (
            ("User prefers **dark mode**", "- The user prefers dark mode."),
            ("User prefers dark mode", "The user prefers dark mode"),  # Markdown marks
        ),
    ],
    ids=["english-case-punctuation", "chinese-punctuation", "full-width", "markdown"],
)
def test_exact_duplicates_are_one_low_risk_merge(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    plans = offline_plans([entry("first", *first), entry("second", *second, updated_at=2_000)])

    plan = only_plan(plans)
    (decision,) = plan.decisions
    assert decision.action == "merge_into"
    assert (decision.target_slug, decision.source_slugs) == ("second", ("first",))  # newer
    assert decision.risk_level == "low"
    assert decision.confidence == config.OFFLINE_EXACT_CONFIDENCE
    assert decision.reason.startswith("exact duplicates of second")
    assert "similarity 1.00" in decision.reason
    assert [e.slug for e in plan.cluster.entries] == ["second", "first"]


def test_memories_with_no_letters_or_digits_are_not_compared() -> None:
    assert offline_plans([entry("dash-one", "---", "..."), entry("dash-two", "--", "!")]) == []


# --- near duplicates ------------------------------------------------------------------------

ENGLISH_NEAR = (
    ("User prefers dark mode", "The user prefers dark mode in every editor and terminal."),
    ("Prefers dark mode", "User likes dark mode in all editors and terminals."),
)
NEAR_DUPLICATES = {
    "english": ENGLISH_NEAR,
    "english-reworded-command": (
        ("Run tests with pytest -q", "Run the test suite with `pytest -q` from the repo root."),
        ("Tests: pytest -q", "The test suite runs with pytest -q from the repository root."),
    ),
    "chinese": (
        ("用户喜欢深色模式", "用户在所有编辑器里都使用深色模式。"),
        ("用户喜欢用深色模式", "用户在所有编辑器和终端里都使用深色模式。"),
    ),
    "chinese-reordered": (
        ("用 pnpm 安装依赖", "这个项目用 pnpm 安装依赖，不要用 npm。"),
        ("安装依赖用 pnpm", "这个项目必须用 pnpm 安装依赖，不要用 npm。"),
    ),
    "mixed": (
        ("Use pnpm 安装依赖", "本项目 always use pnpm 安装依赖, never npm."),
        ("用 pnpm install dependencies", "本项目 always use pnpm 安装依赖，never npm。"),
    ),
    "english-short": (("Prefers tea", None), ("Prefers green tea", None)),
    "contained": (  # Jaccard 0.45 only, but every word of the first is in the second
        ("Deploy with make deploy", "Deploy the site with make deploy from the main branch."),
        (
            "Deploy with make deploy",
            "Deploy the site with make deploy from the main branch. It needs the prod profile "
            "and takes five minutes.",
        ),
    ),
}


@pytest.mark.parametrize("pair", NEAR_DUPLICATES.values(), ids=NEAR_DUPLICATES.keys())
def test_near_duplicates_are_one_medium_risk_merge(
    pair: tuple[tuple[str, str | None], tuple[str, str | None]],
) -> None:
    plans = offline_plans([entry("older", *pair[0]), entry("newer", *pair[1], updated_at=2_000)])

    (decision,) = only_plan(plans).decisions
    assert (decision.target_slug, decision.source_slugs) == ("newer", ("older",))
    assert decision.risk_level == "medium"
    assert decision.confidence is not None
    assert config.OFFLINE_NEAR_CONFIDENCE_MIN <= decision.confidence
    assert decision.confidence <= config.OFFLINE_NEAR_CONFIDENCE_MAX
    assert decision.reason.startswith("near duplicates of newer")
    found = re.search(
        r"older \(similarity (\d\.\d\d): jaccard (\d\.\d\d), containment (\d\.\d\d)\)",
        decision.reason,
    )
    assert found is not None, decision.reason
    similarity, jaccard, containment = (float(value) for value in found.groups())
    assert similarity == pytest.approx((jaccard + containment) / 2, abs=0.01)
    assert jaccard >= config.OFFLINE_CONTAINMENT_MIN_JACCARD


def test_containment_needs_a_real_overlap() -> None:
    """A short memory inside a long note is only a copy when the note is not much longer."""
    short = entry(
        "short", "Deploy with make deploy", "Deploy the site with make deploy from the main branch."
    )
    long = entry(
        "long",
        "Release checklist",
        "Deploy the site with make deploy from the main branch. Bump the version, tag the "
        "release, write the changelog, announce it in the channel, watch the error dashboards "
        "for an hour and roll back with make rollback when the error rate doubles.",
    )
    assert offline_plans([short, long]) == []


@pytest.mark.parametrize(
    ("subject", "contained"),
    [("Staging deploys need VPN", True), ("Staging needs VPN", False)],
    ids=["four-words", "three-words"],
)
def test_containment_needs_a_few_words(subject: str, contained: bool) -> None:
    short = entry("short", subject, f"{subject}.")
    longer = entry("longer", subject, f"{subject}; ask Dana for the credentials when onboarding.")
    pair = candidates.compare(candidates.make_item(short), candidates.make_item(longer))
    assert pair.qualifies == contained
    # Issue 15: judged by difference (Dana is a detail only one side adds), a pair sharing
    # 3 of its 7 words is a rewording either way, and is merged.
    assert not pair.qualifies or pair.judged_alike
    assert len(offline_plans([short, longer])) == 1


def test_sources_are_listed_closest_first() -> None:
    """The order decides who stays in a group that reaches the cap."""
    base = ("User prefers dark mode", "The user prefers dark mode in every editor and terminal.")
    close = ("User prefers dark mode", "The user prefers dark mode in every editor and terminals.")
    loose = ("Prefers dark mode", "User likes dark mode in all editors and terminals.")
    entries = [
        entry("keeper", *base, updated_at=9_000),
        entry("loose", *loose, updated_at=8_000),  # the better keeper of the two
        entry("close", *close, updated_at=1),
    ]
    assert grouped(offline_plans(entries)) == [("keeper", ("close", "loose"))]


def test_closer_copies_score_higher_confidence() -> None:
    base = ("User prefers dark mode", "The user prefers dark mode in every editor and terminal.")
    close = ("User prefers dark mode", "The user prefers dark mode in every editor and terminals.")
    loose = ("Prefers dark mode", "User likes dark mode in all editors and terminals.")
    (close_decision,) = only_plan(offline_plans([entry("a", *base), entry("b", *close)])).decisions
    (loose_decision,) = only_plan(offline_plans([entry("a", *base), entry("b", *loose)])).decisions
    assert close_decision.confidence is not None and loose_decision.confidence is not None
    assert close_decision.confidence > loose_decision.confidence


# --- different memories stay apart ----------------------------------------------------------

NOT_DUPLICATES = {
    "tea-vs-dark-mode": (
        ("User prefers tea", "The user prefers green tea in the afternoon."),
        ("User prefers dark mode", "The user prefers dark mode in every editor."),
    ),
    "tea-vs-dark-mode-short": (("Prefers tea", "Prefers tea."), ("Prefers dark mode", None)),
    "pnpm-vs-pytest": (
        ("用 pnpm 安装依赖", "这个项目用 pnpm 安装依赖，不要用 npm。"),
        ("用 pytest 跑测试", "这个项目用 pytest 跑测试。"),
    ),
    "pnpm-vs-pytest-short": (("用 pnpm 安装依赖", None), ("用 pytest 跑测试", None)),
    "likes-in-chinese": (("用户喜欢深色模式", None), ("用户喜欢喝茶", None)),
    "two-ports": (
        ("Dev server port", "The dev server runs on port 3000."),
        ("API server port", "The API server runs on port 8080."),
    ),
    "two-services": (
        ("Project uses Postgres 15", "The project database is Postgres 15 running in Docker."),
        ("Project uses Redis 7", "The project cache is Redis 7 running in Docker."),
    ),
    "two-tools": (
        ("Project uses pnpm", "This project uses pnpm for package management."),
        ("Project uses pytest", "This project uses pytest for testing."),
    ),
}


@pytest.mark.parametrize("pair", NOT_DUPLICATES.values(), ids=NOT_DUPLICATES.keys())
def test_memories_sharing_a_topic_are_kept_apart(
    pair: tuple[tuple[str, str | None], tuple[str, str | None]],
) -> None:
    assert offline_plans([entry("one", *pair[0]), entry("two", *pair[1])]) == []


def test_a_chain_of_similar_memories_does_not_merge_its_ends() -> None:
    """A~B and B~C, but A and C share little: C must not follow B into A's group."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike nov"
    vocabulary = words.split()
    a = entry("a", " ".join(vocabulary[0:10]), "", unreviewed=False)  # the best keeper
    b = entry("b", " ".join(vocabulary[2:12]), "")
    c = entry("c", " ".join(vocabulary[4:14]), "")

    assert grouped(offline_plans([c, b, a])) == [("a", ("b",))]
    # Without a (the leader), b and c are duplicates of each other.
    assert grouped(offline_plans([c, b])) == [("b", ("c",))]


# --- boundaries -----------------------------------------------------------------------------


def test_never_across_scopes_or_projects() -> None:
    text = ("Use pnpm, not npm", "Always install dependencies with pnpm.")
    entries = [
        entry("in-global", *text),
        entry("in-a", *text, scope="project", workdir_hash=PROJECT_A),
        entry("in-b", *text, scope="project", workdir_hash=PROJECT_B),
    ]
    assert offline_plans(entries) == []

    second_in_a = entry("in-a-2", *text, scope="project", workdir_hash=PROJECT_A)
    plan = only_plan(offline_plans([*entries, second_in_a]))
    assert plan.cluster.id == f"offline:project:{PROJECT_A}:1"
    assert {e.slug for e in plan.cluster.entries} == {"in-a", "in-a-2"}


def test_dailies_are_ignored() -> None:
    text = ("2026-05-01", "Worked on the deploy script; pnpm install fixed the lockfile.")
    memory = entry("deploy-note", *text)
    dailies = [entry(f"2026-05-0{day}", *text, type="daily") for day in (1, 2)]
    assert offline_plans(dailies) == []
    assert offline_plans([memory, *dailies]) == []


def test_empty_input() -> None:
    assert offline_plans([]) == []


# --- the keeper -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keeper", "other"),
    [
        (
            {"unreviewed": False, "confidence": "low", "updated_at": 1, "body": "Use pnpm."},
            {"unreviewed": True, "confidence": "high", "updated_at": 9, "body": "Use pnpm!!!"},
        ),
        (
            {"confidence": "high", "updated_at": 1, "body": "Use pnpm."},
            {"confidence": "medium", "updated_at": 9, "body": "Use pnpm!!!"},
        ),
        (
            {"confidence": "low", "updated_at": 1, "body": "Use pnpm."},
            {"confidence": "unknown", "updated_at": 9, "body": "Use pnpm!!!"},
        ),
        (
            {"updated_at": 9, "body": "Use pnpm."},
            {"updated_at": 1, "body": "Use pnpm!!!"},
        ),
        (
            {"body": "Use pnpm!!!"},
            {"body": "Use pnpm."},
        ),
    ],
    ids=["reviewed", "confidence", "known-confidence", "newer", "longer"],
)
def test_keeper_choice(keeper: EntryFields, other: EntryFields) -> None:
    first = dataclasses.replace(entry("keeper", "Use pnpm"), **keeper)
    second = dataclasses.replace(entry("other", "Use pnpm"), **other)
    for entries in ([first, second], [second, first]):
        assert grouped(offline_plans(entries)) == [("keeper", ("other",))]


def test_keeper_tie_is_broken_by_slug() -> None:
    copies = [entry(slug, "Use pnpm", "Use pnpm.") for slug in ("c-note", "a-note", "b-note")]
    assert grouped(offline_plans(copies)) == [("a-note", ("b-note", "c-note"))]


# --- plan shape -----------------------------------------------------------------------------


def test_evidence_reason_and_summary_stay_within_plan_limits() -> None:
    body = "The user prefers dark mode in every editor and terminal. " * 30
    copies = [
        entry(
            f"dark-mode-{'x' * 60}-{n:02d}",
            f"Dark mode everywhere {'!' * n} " + "very long description " * 30,
            body + "!" * n,
        )
        for n in range(12)
    ]
    (decision,) = only_plan(offline_plans(copies)).decisions

    assert len(decision.source_slugs) == 11
    assert 0 < len(decision.preserved_evidence) <= config.OFFLINE_EVIDENCE_MAX_ITEMS
    for item, source in zip(decision.preserved_evidence, decision.source_slugs, strict=True):
        assert item.startswith(f"{source}: Dark mode everywhere")
        assert len(item) <= config.OFFLINE_EVIDENCE_MAX_CHARS
    assert len(decision.reason) <= config.OFFLINE_REASON_MAX_CHARS
    assert isinstance(decision.confidence, float)
    assert 0.0 <= decision.confidence <= 1.0


def test_evidence_falls_back_to_the_headline_then_the_body() -> None:
    plans = offline_plans(
        [
            entry("keeper", "", "Use pnpm for installs.", updated_at=9_000),
            entry("titled", "", "Use pnpm for installs!", headline="Package manager"),
            entry("bare", "", "use pnpm for installs", updated_at=5_000),
        ]
    )
    (decision,) = only_plan(plans).decisions
    assert decision.preserved_evidence == ("bare: use pnpm for installs", "titled: Package manager")


def test_near_group_lists_each_source_with_its_similarity() -> None:
    english = ENGLISH_NEAR
    entries = [
        entry("keeper", *english[0], updated_at=9_000),
        entry("exact-copy", english[0][0].upper(), english[0][1].upper()),
        entry("reworded", *english[1]),
    ]
    plan = only_plan(offline_plans(entries))
    (decision,) = plan.decisions
    assert decision.source_slugs == ("exact-copy", "reworded")  # exact copies first
    assert decision.risk_level == "medium"  # one near source makes the merge near
    assert decision.confidence is not None
    assert decision.confidence < config.OFFLINE_EXACT_CONFIDENCE  # the weakest source counts
    assert "exact-copy (exact)" in decision.reason
    assert "reworded (similarity " in decision.reason
    assert plan.summary == "offline: 2 near duplicate(s) of keeper proposed for merging"


def test_types_that_differ_are_named_in_the_reason() -> None:
    plans = offline_plans(
        [
            entry("as-user", "Use pnpm", updated_at=9_000),
            entry("as-feedback", "use pnpm", type="feedback"),
        ]
    )
    (decision,) = only_plan(plans).decisions
    assert "types differ: as-user is user, as-feedback is feedback" in decision.reason
    gate = build_decisions(plans, trigger="manual", mode="standard")
    assert {d.risk_level for d in gate.decisions} == {"medium"}  # the gate's cross_type


def test_exact_copies_fill_a_capped_group_before_near_ones() -> None:
    text = ("User prefers dark mode", "The user prefers dark mode in every editor.")
    reordered = ("User prefers dark mode", "In every editor the user prefers dark mode.")
    keeper = entry("keeper", *text, updated_at=100)
    exact = [entry(f"exact-{n}", *text, updated_at=n) for n in range(7)]
    # Same words, other order: similarity 1.00 but not exact; newer than the exact copies.
    near = [entry(f"near-{n}", *reordered, updated_at=50 + n) for n in range(7)]

    plans = offline_plans([*near, *exact, keeper])

    assert grouped(plans) == [
        (
            "keeper",
            (*(f"exact-{n}" for n in range(6, -1, -1)), "near-6", "near-5", "near-4", "near-3"),
        ),
        ("near-2", ("near-1", "near-0")),
    ]
    assert [plan.decisions[0].risk_level for plan in plans] == ["medium", "low"]


def test_large_groups_are_split_at_the_cluster_cap() -> None:
    copies = [entry(f"copy-{n:02d}", "Use pnpm", "Use pnpm.", updated_at=n) for n in range(26)]
    plans = offline_plans(copies)

    sizes = [len(plan.cluster.entries) for plan in plans]
    assert sizes == [12, 12, 2]
    assert [plan.cluster.id for plan in plans] == [
        "offline:global:global:1",
        "offline:global:global:2",
        "offline:global:global:3",
    ]
    slugs = [e.slug for plan in plans for e in plan.cluster.entries]
    assert sorted(slugs) == sorted(e.slug for e in copies)  # each memory in one cluster
    assert grouped(plans)[0][0] == "copy-25"  # the newest leads the first group


def test_plans_are_ordered_by_scope_then_project() -> None:
    entries = [
        entry(f"{where}-{n}", "Use pnpm", scope=scope, workdir_hash=project)
        for where, scope, project in [
            ("b", "project", PROJECT_B),
            ("g", "global", ""),
            ("a", "project", PROJECT_A),
        ]
        for n in (1, 2)
    ]
    assert [plan.cluster.id for plan in offline_plans(entries)] == [
        "offline:global:global:1",
        f"offline:project:{PROJECT_A}:1",
        f"offline:project:{PROJECT_B}:1",
    ]


def test_output_is_deterministic_whatever_the_input_order() -> None:
    pairs = [*NEAR_DUPLICATES.values(), *NOT_DUPLICATES.values()]
    entries = [
        entry(f"m-{n}-{side}", *texts, updated_at=n % 3)
        for n, pair in enumerate(pairs)
        for side, texts in enumerate(pair)
    ]
    expected = offline_plans(entries)
    assert len(expected) > 3  # the pairs above also match across pairs: a real mix of groups
    rng = random.Random(7)
    for _ in range(5):
        shuffled = list(entries)
        rng.shuffle(shuffled)
        assert offline_plans(shuffled) == expected


def test_candidate_pairs_match_a_comparison_of_every_pair() -> None:
    """The prefix-filtered index finds exactly the pairs a full O(n^2) scan finds."""
    rng = random.Random(11)
    vocabulary = [f"w{n}" for n in range(400)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf: some words common
    sets: list[frozenset[str]] = []
    for _ in range(300):
        if sets and rng.random() < 0.3:  # a variant of an earlier set
            base = list(rng.choice(sets))
            rng.shuffle(base)
            keep = base[: max(1, int(len(base) * rng.uniform(0.5, 1.0)))]
            sets.append(frozenset(keep + rng.choices(vocabulary, weights, k=rng.randint(0, 4))))
        else:
            sets.append(frozenset(rng.choices(vocabulary, weights, k=rng.randint(1, 30))))
    sets.append(frozenset())

    expected = []
    for i, a in enumerate(sets):
        for j in range(i + 1, len(sets)):
            b = sets[j]
            shared = len(a & b)
            if a and b and shared / len(a | b) >= candidates.MIN_JACCARD - 1e-9:
                expected.append((i, j))
    assert len(expected) > 50  # the corpus really has pairs to find
    assert candidates.overlapping_pairs(sets) == expected


# --- through the gate -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["exact", "near"])
def test_manual_run_merges_into_the_target_and_deletes_the_sources(kind: str) -> None:
    older, newer = ENGLISH_NEAR
    if kind == "exact":
        newer = (older[0].upper(), older[1].upper())
    entries = [
        entry("dark-mode-old", *older, updated_at=1),
        entry("dark-mode-new", *newer, updated_at=2),
        entry("tea", "User prefers tea", "The user prefers green tea in the afternoon."),
    ]
    plans = offline_plans(entries)

    gate = build_decisions(plans, trigger="manual", mode="standard")

    assert [(d.op, d.slug) for d in gate.decisions] == [
        ("upsert", "dark-mode-new"),
        ("delete", "dark-mode-old"),
    ]
    upsert, delete = gate.decisions
    assert upsert.body is not None
    # Issue 14: the text reads as a memory (the provenance goes to evidence and history).
    assert upsert.body == (newer[1] if kind == "exact" else f"{newer[1]}\n\n{older[1]}")
    assert "Organizer merge" not in upsert.body and "dark-mode-old" not in upsert.body
    assert upsert.group_id is not None and upsert.group_id == delete.group_id
    assert upsert.group_id.startswith(f"merge:{plans[0].cluster.id}:dark-mode-new:")
    assert upsert.risk_level == ("low" if kind == "exact" else "medium")
    assert gate.merged_count == 1


def test_scheduled_trigger_queues_no_near_duplicate() -> None:
    older, newer = NEAR_DUPLICATES["chinese"]
    plans = offline_plans([entry("old", *older), entry("new", *newer, updated_at=2_000)])
    assert len(plans) == 1

    gate = build_decisions(plans, trigger="scheduled", mode="aggressive")

    assert gate.decisions == []
    assert gate.review_skipped == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Always use tabs for indentation in this repo",
            "Never use tabs for indentation in this repo",
        ),
        (
            "Deploy on Fridays after the release review",
            "Don't deploy on Fridays after the release review",
        ),
        ("以后都用 pnpm 安装前端依赖包", "以后不用 pnpm 安装前端依赖包"),
        ("提交前要跑完整的测试套件", "提交前别跑完整的测试套件"),
    ],
)
def test_a_negated_statement_is_not_a_near_duplicate(first: str, second: str) -> None:
    # Nearly every word is shared, but the two say opposite things: merging would hide that.
    assert offline_plans([entry("first-note", first), entry("second-note", second)]) == []
    # The same pair without the negation is proposed.
    assert len(offline_plans([entry("first-note", first), entry("second-note", first + "!")])) == 1


# --- rarity weighting -----------------------------------------------------------------------

SUBJECTS = ["tabs", "Vim keybindings", "dark mode", "ripgrep", "green tea", "metric units"]
PLACES = ["on the build server", "in design documents", "for release notes", "in code review"]


def test_shared_boilerplate_does_not_make_memories_duplicates() -> None:
    # A store full of "The user prefers X Y." sentences: two of them that differ in what they
    # prefer share most plain tokens, but those tokens are everywhere in the scope.
    entries = [
        entry(f"m-{i}-{j}", f"The user prefers {subject} {place}.")
        for i, subject in enumerate(SUBJECTS)
        for j, place in enumerate(PLACES)
    ]
    pair = candidates.compare(candidates.make_item(entries[0]), candidates.make_item(entries[4]))
    assert pair.qualifies  # alone, "tabs on the build server" / "Vim keybindings …" look alike

    assert offline_plans(entries) == []


def test_a_rewording_is_still_found_among_boilerplate() -> None:
    entries = [
        entry(f"m-{i}-{j}", f"The user prefers {subject} {place}.")
        for i, subject in enumerate(SUBJECTS)
        for j, place in enumerate(PLACES)
    ]
    entries.append(entry("reworded", "The user really prefers tabs when on the build server."))

    # Equal keepers otherwise: the longer body keeps the text.
    assert grouped(offline_plans(entries)) == [("reworded", ("m-0-0",))]


def test_rarity_weights_equal_plain_figures_in_a_small_store() -> None:
    a = candidates.make_item(entry("a", "Use pnpm to install dependencies in every project"))
    b = candidates.make_item(entry("b", "Use pnpm to install the dependencies in each project"))
    rarity = candidates.Rarity([a.tokens, b.tokens])

    pair = candidates.compare(a, b, rarity)

    assert pair.weighted_jaccard == pytest.approx(pair.jaccard)
    assert pair.weighted_containment == pytest.approx(pair.containment)
    assert pair.qualifies


# --- decisions by difference (issue 15) -----------------------------------------------------


def test_only_duplicates_are_merged_and_contradictions_are_reported() -> None:
    entries = [
        entry("brands-alias", "品牌索引通过别名 brands 访问"),
        entry("products-alias", "商品索引通过别名 products 访问"),
        entry("pool-prod", "DB pool size 40 in production", "cart-api uses a DB pool size of 40."),
        entry("pool-staging", "DB pool size 10 in staging", "cart-api uses a DB pool size of 10."),
        entry("rate-10", "结算接口每秒限 10 次", "结算接口每个用户每秒限 10 次请求"),
        entry("rate-5", "结算接口每秒限 5 次", "结算接口每个用户每秒限 5 次请求", updated_at=2_000),
        entry("tabs-no", "不要用 tabs 缩进代码", "写代码时不要用 tabs 缩进"),
        entry("tabs-bie", "别用 tabs 缩进代码", "写代码时别用 tabs 缩进", updated_at=2_000),
        entry("secrets-never", "Never commit secrets to the repo"),
        entry("secrets-dont", "Don't commit secrets to the repo", updated_at=2_000),
    ]

    proposals = offline.offline_proposals(entries)

    assert sorted(grouped(proposals.plans)) == [
        ("secrets-dont", ("secrets-never",)),
        ("tabs-bie", ("tabs-no",)),
    ]
    (contradiction,) = proposals.contradictions
    assert {contradiction.first.slug, contradiction.second.slug} == {"rate-10", "rate-5"}
    item = contradiction.review_item()
    assert item["code"] == "contradiction"
    assert {item["params"]["first"], item["params"]["second"]} == {"rate-10", "rate-5"}
    (difference,) = item["params"]["differences"]
    assert difference["kind"] == "number"
    assert item["message"].startswith(f"contradiction: {contradiction.first.slug} and ")
    assert offline_plans(entries) == proposals.plans


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Always use tabs for indentation in this repo",
            "Never use tabs for indentation in this repo",
        ),
        ("以后都用 pnpm 安装前端依赖包", "以后不用 pnpm 安装前端依赖包"),
    ],
)
def test_a_negated_statement_is_reported_as_a_contradiction(first: str, second: str) -> None:
    proposals = offline.offline_proposals(
        [entry("first-note", first), entry("second-note", second)]
    )
    assert proposals.plans == []
    (contradiction,) = proposals.contradictions
    assert [d.kind for d in contradiction.judgement.differences] == ["negation"]


def test_a_contradiction_is_never_merged_even_beside_a_duplicate() -> None:
    entries = [
        entry("rate-a", "每秒限 10 次请求", "结算接口每秒限 10 次请求", updated_at=3_000),
        entry("rate-b", "每秒限 10 次请求", "结算接口每秒限 10 次请求。"),
        entry("rate-c", "每秒限 5 次请求", "结算接口每秒限 5 次请求"),
    ]
    proposals = offline.offline_proposals(entries)
    assert grouped(proposals.plans) == [("rate-a", ("rate-b",))]
    assert {(c.first.slug, c.second.slug) for c in proposals.contradictions} == {
        ("rate-a", "rate-c")
    }


def test_a_contradiction_is_shown_below_the_merge_bar_but_never_merged() -> None:
    thirty = entry(
        "expiry-30",
        "Unpaid orders expire after 30 minutes",
        "An order that is not paid within 30 minutes is cancelled and its stock released.",
    )
    fifteen = entry(
        "expiry-15",
        "Orders are cancelled when unpaid for 15 minutes",
        "The payment window is 15 minutes; after that the order is closed.",
    )
    pair = candidates.compare(candidates.make_item(thirty), candidates.make_item(fifteen))
    assert not pair.qualifies  # too few shared words to be proposed as a merge
    assert pair.jaccard >= config.OFFLINE_CONTRADICTION_MIN_JACCARD

    proposals = offline.offline_proposals([thirty, fifteen])

    assert proposals.plans == []
    (contradiction,) = proposals.contradictions
    assert contradiction.judgement.describe() == "number 30 minutes / 15 minutes"

"""Body merge for mode="merge" (store/merge.py, REFERENCE A7): units, matching, evidence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liveagent_memory.store.evidence import read_evidence, split_evidence
from liveagent_memory.store.merge import (
    MIN_JACCARD,
    MIN_SHARED_TOKENS,
    merge_bodies,
    merge_content,
    split_units,
    union_content,
    unit_key,
    unit_tokens,
)


def units(text: str) -> list[str]:
    return text.split("\n\n") if text else []


def test_thresholds_are_the_references() -> None:
    assert (MIN_SHARED_TOKENS, MIN_JACCARD) == (4, 0.32)


# --- units and tokens -------------------------------------------------------------------------


def test_sentences_split_at_chinese_and_english_ends() -> None:
    assert split_units(
        "我住在上海。我喜欢猫！你呢？好；行\nFirst. Second! Third? Fourth; tail"
    ) == [
        "我住在上海。",
        "我喜欢猫！",
        "你呢？",
        "好；",
        "行",
        "First.",
        "Second!",
        "Third?",
        "Fourth;",
        "tail",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "# Heading. With a dot",
        "## Sub heading! yes",
        "- list item one. still the same item.",
        "* star item. x",
        "> a quote. with two sentences.",
        "| a. | b. |",
        "|---|---|",
        "```inline code``` followed. by text",
    ],
)
def test_markdown_lines_stay_whole(line: str) -> None:
    assert split_units(f"Intro.\n{line}\nOutro.") == ["Intro.", line, "Outro."]


def test_fenced_code_block_is_one_unit_even_with_blank_lines_inside() -> None:
    fence = "```python\ndef f():\n    return 1.5\n\n\ndef g():\n    return 2\n```"
    content = f"Before. Text.\n{fence}\nAfter."
    assert split_units(content) == ["Before.", "Text.", fence, "After."]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert split_units("Text.\n\n```\ncode. more\n\nstill code") == [
        "Text.",
        "```\ncode. more\n\nstill code",
    ]


def test_paragraphs_and_crlf_are_split_into_units() -> None:
    assert split_units("\r\n\r\nOne.\r\n\r\n\r\nTwo.\r\nThree\r\n") == ["One.", "Two.", "Three"]
    assert split_units("") == [] and split_units("\n \n\t\n") == []


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("  Hello,   World!  ", "hello world"),
        ("Use\ttabs.", "use tabs"),
        ("- list item", "list item"),
        ("用户 喜欢，绿茶。", "用户 喜欢绿茶"),
        ("Ünïcode ★ 😀", "ncode"),
        ("---", ""),
    ],
)
def test_unit_key_normalizes(text: str, key: str) -> None:
    assert unit_key(text) == key


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        (
            "The deploy-script runs on port 8080.",
            {"the", "deploy", "script", "runs", "on", "port", "8080"},
        ),
        ("用户喜欢绿茶", {"用", "户", "喜", "欢", "绿", "茶"}),
        ("Use pnpm 和 npm", {"use", "pnpm", "和", "npm"}),
        ("don't", {"don", "t"}),
        ("", set()),
        ("!!! ---", set()),
    ],
)
def test_unit_tokens_are_ascii_runs_and_single_cjk_characters(text: str, tokens: set[str]) -> None:
    assert unit_tokens(text) == tokens


# --- merging ------------------------------------------------------------------------------------


def test_similar_english_sentence_is_replaced_in_place() -> None:
    existing = (
        "Intro line here.\n\nThe deploy script runs on port 8080 with docker compose.\n\nEnd."
    )
    incoming = "The deploy script runs on port 9090 with docker compose."
    assert units(merge_content(existing, incoming)) == [
        "Intro line here.",
        "The deploy script runs on port 9090 with docker compose.",
        "End.",
    ]


def test_similar_chinese_sentence_is_replaced_in_place() -> None:
    existing = "用户住在上海。用户喜欢喝绿茶，不加糖。"
    incoming = "用户喜欢喝红茶，不加糖。"
    assert units(merge_content(existing, incoming)) == [
        "用户住在上海。",
        "用户喜欢喝红茶，不加糖。",
    ]


def test_new_chinese_and_english_units_are_appended() -> None:
    existing = "用户住在上海。\n\nThe user likes cats."
    incoming = "项目使用 Rust 编写。\n\nDeploys happen on Fridays."
    assert units(merge_content(existing, incoming)) == [
        "用户住在上海。",
        "The user likes cats.",
        "项目使用 Rust 编写。",
        "Deploys happen on Fridays.",
    ]


SHARED = "apple banana cherry grape"


@pytest.mark.parametrize(
    ("existing", "incoming", "replaced"),
    [
        # 4 shared tokens, union 12: Jaccard 0.333 >= 0.32 -> replaced
        (f"{SHARED} kiwi lemon mango melon.", f"{SHARED} olive peach plum quince.", True),
        # 4 shared tokens, union 13: Jaccard 0.308 < 0.32 -> appended
        (f"{SHARED} kiwi lemon mango melon.", f"{SHARED} olive peach plum quince ramp.", False),
        # 3 shared tokens, Jaccard 1.0 but fewer than 4 shared -> appended
        ("apple banana cherry.", "cherry banana apple.", False),
        # 4 shared tokens, Jaccard 1.0 -> replaced (same words, new order)
        ("apple banana cherry grape.", "grape cherry banana apple.", True),
        # Chinese: characters are tokens; 4 shared of 6 -> replaced
        ("我喜欢吃苹果。", "我喜欢吃香蕉。", True),
        # Chinese: only 3 characters shared -> appended
        ("我喜欢猫。", "我喜欢狗。", False),
    ],
)
def test_similarity_thresholds(existing: str, incoming: str, replaced: bool) -> None:
    expected = [incoming] if replaced else [existing, incoming]
    assert units(merge_content(existing, incoming)) == expected


@pytest.mark.parametrize(
    ("existing", "incoming", "expected"),
    [
        (
            "Prefers dark mode.",
            "Prefers dark mode in every editor.",
            ["Prefers dark mode in every editor."],
        ),
        # REFERENCE A7: containment either way counts as equivalent, and the incoming unit wins
        ("Prefers dark mode in every editor.", "prefers DARK mode", ["prefers DARK mode"]),
        ("Use  tabs.", "use tabs!", ["use tabs!"]),
        ("用户喜欢绿茶。", "用户喜欢绿茶和乌龙茶。", ["用户喜欢绿茶和乌龙茶。"]),
    ],
)
def test_equivalent_unit_is_replaced(existing: str, incoming: str, expected: list[str]) -> None:
    assert units(merge_content(f"Other fact.\n\n{existing}", incoming)) == [
        "Other fact.",
        *expected,
    ]


def test_duplicates_are_removed_from_both_sides() -> None:
    existing = "A cat sat.\n\nA cat sat.\n\nA  CAT sat!"
    incoming = "A dog ran.\n\nA dog ran."
    assert units(merge_content(existing, incoming)) == ["A cat sat.", "A dog ran."]


PORT_8080 = "The service listens on port 8080 over http."
PORT_9090 = "The service listens on port 9090 over http."


def test_new_incoming_units_are_compared_with_the_existing_body_not_each_other() -> None:
    merged = merge_content("Intro.", f"{PORT_8080}\n\n{PORT_9090}")
    assert units(merged) == ["Intro.", PORT_8080, PORT_9090]


def test_incoming_units_matching_the_same_existing_unit_keep_the_last() -> None:
    existing = "The service listens on port 7070 over http.\n\nOutro."
    merged = merge_content(existing, f"{PORT_8080}\n\n{PORT_9090}")
    assert units(merged) == [PORT_9090, "Outro."]


def test_fenced_code_blocks_merge_as_whole_units() -> None:
    code = "```sh\nmake build.\n\nmake test.\n```"
    merged = merge_content(f"Build steps.\n\n{code}", "Run them in order.")
    assert merged == f"Build steps.\n\n{code}\n\nRun them in order."
    # The same block coming in again is not doubled.
    assert merge_content(merged, code) == merged


def test_two_code_blocks_both_keep_their_closing_fences() -> None:
    first = "```\nalpha\n\nbeta\n```"
    second = "```\ngamma\n\ndelta\n```"
    merged = merge_content(first, second)
    assert merged == f"{first}\n\n{second}"
    assert merged.count("```") == 4


def test_markdown_lines_are_kept_whole_through_a_merge() -> None:
    existing = "# Setup. Notes\n\n- step one. then two.\n\n> quoted. text\n\n| a. | b. |\n|---|---|"
    merged = merge_content(existing, "New sentence.")
    for line in ("# Setup. Notes", "- step one. then two.", "> quoted. text", "| a. | b. |"):
        assert line in units(merged)
    assert "|---|---|" in units(merged)  # a unit without letters is not lost


@pytest.mark.parametrize("unit", ["---", "|---|---|", "👍", "***"])
def test_units_without_letters_or_digits_are_kept_and_deduped_by_text(unit: str) -> None:
    merged = merge_content(f"Text one.\n\n{unit}", f"{unit}\n\nText two.")
    assert units(merged) == ["Text one.", unit, "Text two."]
    assert units(merge_content("Text one.", "---\n\n👍")) == ["Text one.", "---", "👍"]


@pytest.mark.parametrize(
    ("existing", "incoming", "expected"),
    [
        ("", "", ""),
        ("", "  New body.  ", "New body."),
        ("  Old body.  ", "", "Old body."),
        ("\n\n", "x.", "x."),
        ("Old.", "\n \n", "Old."),
    ],
)
def test_empty_sides(existing: str, incoming: str, expected: str) -> None:
    assert merge_content(existing, incoming) == expected


# --- evidence blocks ---------------------------------------------------------------------------

OLD_BLOCK = '---\nconfidence: medium\nsource_quote: "old quote"\n---\n\n'
NEW_BLOCK = '---\nconfidence: high\nsource_quote: "a brand new quote"\n---\n\n'


def test_incoming_evidence_block_wins() -> None:
    merged = merge_bodies(OLD_BLOCK + "Old fact.", NEW_BLOCK + "New fact.")
    assert read_evidence(merged).source_quote == "a brand new quote"
    assert merged.count("confidence:") == 1
    assert split_evidence(merged)[1] == "Old fact.\n\nNew fact."


def test_existing_evidence_block_is_kept_when_incoming_has_none() -> None:
    merged = merge_bodies(OLD_BLOCK + "Old fact.", "New fact.")
    assert read_evidence(merged).source_quote == "old quote"
    assert split_evidence(merged)[1] == "Old fact.\n\nNew fact."


def test_empty_incoming_block_does_not_erase_the_existing_one() -> None:
    merged = merge_bodies(OLD_BLOCK + "Old fact.", "---\n---\n\nNew fact.")
    assert read_evidence(merged).confidence == "medium"
    assert split_evidence(merged)[1] == "Old fact.\n\nNew fact."


@pytest.mark.parametrize(
    ("existing", "incoming", "expected"),
    [
        ("", "", ""),
        ("Old.", "", "Old."),
        ("", "New.", "New."),
        (OLD_BLOCK + "Old.", "", OLD_BLOCK + "Old."),
        ("", NEW_BLOCK + "New.", NEW_BLOCK + "New."),
        (OLD_BLOCK.rstrip(), "New.", OLD_BLOCK + "New."),
        (OLD_BLOCK + "Old.", NEW_BLOCK.rstrip(), NEW_BLOCK + "Old."),
    ],
)
def test_merge_bodies_edge_cases(existing: str, incoming: str, expected: str) -> None:
    assert merge_bodies(existing, incoming) == expected


# --- properties --------------------------------------------------------------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "用", "户", "喜", "欢"]


def sentence(words: list[str]) -> str:
    return " ".join(words) + ("。" if words[-1] in "用户喜欢" else ".")


sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(sentence)
lines = st.one_of(sentences, sentences.map(lambda s: "- " + s), st.sampled_from(["---", "# Title"]))
bodies = st.lists(lines, min_size=1, max_size=6).map("\n\n".join)


def equivalent(left: str, right: str) -> bool:
    """REFERENCE A7 equivalence: normalized keys equal or containing (text when keyless)."""
    a, b = unit_key(left), unit_key(right)
    if not a or not b:
        return left.strip() == right.strip()
    return a in b or b in a


@settings(deadline=None)
@given(existing=bodies, incoming=bodies)
def test_merge_invents_nothing_leaves_no_duplicates_keeps_the_news(
    existing: str, incoming: str
) -> None:
    merged = merge_content(existing, incoming)
    out = split_units(merged)
    assert units(merged) == out  # units are joined by one blank line
    assert set(out) <= set(split_units(existing)) | set(split_units(incoming))
    keys = [unit_key(u) or u for u in out]
    assert len(keys) == len(set(keys))
    last = split_units(incoming)[-1]
    assert last in out or any(equivalent(u, last) for u in out)


@settings(deadline=None)
@given(
    existing=st.lists(
        st.sampled_from(["cats.", "dogs run.", "birds fly high.", "fish swim."]), min_size=1
    ).map("\n\n".join),
    incoming=st.lists(
        st.sampled_from(["用户。", "喜欢绿茶。", "住在上海。", "不加糖。"]), min_size=1
    ).map("\n\n".join),
)
def test_disjoint_bodies_concatenate_without_duplicates(existing: str, incoming: str) -> None:
    def dedupe(items: list[str]) -> list[str]:
        return list(dict.fromkeys(items))

    merged = merge_content(existing, incoming)
    assert split_units(merged) == dedupe(split_units(existing)) + dedupe(split_units(incoming))


# --- union_content (an organizer merge: the kept text first) ----------------------------------


def test_union_keeps_the_kept_text_and_adds_only_what_is_new() -> None:
    kept = "I drink green tea.\nNo sugar."
    assert union_content(kept, "No sugar.") == kept
    assert union_content(kept, "I drink green tea. Two cups a day.") == (
        "I drink green tea.\nNo sugar.\n\nTwo cups a day."
    )
    # A unit saying more than a kept one takes its place, where it stood.
    assert union_content(kept, "No sugar, ever.") == "I drink green tea.\nNo sugar, ever."
    # Nothing was said yet: the incoming text as written.
    assert union_content(kept, "Oolong at night.\n\n- hot") == (
        "I drink green tea.\nNo sugar.\n\nOolong at night.\n\n- hot"
    )
    assert union_content("", "Oolong.") == "Oolong." and union_content("Tea.", " ") == "Tea."


def test_union_joins_new_units_by_kind_and_script() -> None:
    assert union_content("用户喜欢绿茶。", "用户喜欢绿茶。每天两杯。不加糖。") == (
        "用户喜欢绿茶。\n\n每天两杯。不加糖。"
    )
    assert union_content("# Tea\n\n- green", "- green\n- hot\n\nAlso oolong. And pu-erh.") == (
        "# Tea\n\n- green\n\n- hot\n\nAlso oolong. And pu-erh."
    )

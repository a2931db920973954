"""Text processing for indexing and querying (store/text.py): CJK bigrams, words, snippets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liveagent_memory.domain.text import CJK_RUN, has_cjk
from liveagent_memory.store.lemmas import BASES
from liveagent_memory.store.text import (
    STOP_WORDS,
    WORD,
    cjk_tokens,
    fts_quote,
    index_text,
    latin_text,
    query_cjk_runs,
    query_words,
    run_bigrams,
    snippet,
)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("中文搜索", "中文 文搜 搜索 索"),
        ("中", "中"),
        ("绿茶", "绿茶 茶"),
        ("我爱 Python 和 Rust", "我爱 爱 和"),
        ("用户，喜欢。", "用户 户 喜欢 欢"),  # full-width punctuation ends a run
        ("メモリ", "メモ モリ リ"),
        ("한국어", "한국 국어 어"),
        ("no cjk here", ""),
        ("", ""),
    ],
)
def test_cjk_tokens_are_bigrams_plus_the_last_character(text: str, tokens: str) -> None:
    assert cjk_tokens(text) == tokens


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from("用户喜欢绿茶ab 。,"), max_size=40))
def test_cjk_tokens_cover_every_bigram_of_every_run(text: str) -> None:
    tokens = cjk_tokens(text).split()
    runs = CJK_RUN.findall(text)
    assert len(tokens) == sum(len(run) for run in runs)
    for run in runs:
        for i in range(len(run) - 1):
            assert run[i : i + 2] in tokens
        assert run[-1] in tokens
    assert all(has_cjk(token) and len(token) <= 2 for token in tokens)


@pytest.mark.parametrize(
    ("text", "latin"),
    [
        ("用户 likes 绿茶 tea", "  likes   tea"),
        ("plain", "plain"),
        ("中文", " "),
        ("a中b", "a b"),
    ],
)
def test_latin_text_blanks_out_cjk_runs(text: str, latin: str) -> None:
    assert latin_text(text) == latin


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("The Quick brown fox, the QUICK!", ["the", "quick", "brown", "fox"]),
        ("what is my name", ["what", "is", "my", "name"]),  # stop words are kept here
        ("用户偏好 Python3 python3", ["python3"]),
        ("snake_case", ["snake", "case"]),
        ("café naïve Größe", ["café", "naïve", "größe"]),
        ("don't", ["don", "t"]),
        ("v1.2", ["v1", "2"]),
        ("我爱Rust和Go", ["rust", "go"]),
        ("", []),
        ("!!! ...", []),
    ],
)
def test_query_words_lowercase_dedupe_in_order(query: str, words: list[str]) -> None:
    assert query_words(query) == words


def test_stop_words_are_for_the_caller_to_drop() -> None:
    assert {"the", "is", "my", "what"} <= STOP_WORDS
    assert "name" not in STOP_WORDS and "python" not in STOP_WORDS
    assert "the" in query_words("the tea")


@pytest.mark.parametrize(
    ("query", "runs"),
    [("我爱 Python 我爱 和", ["我爱", "和"]), ("no cjk", []), ("偏好。偏好", ["偏好"])],
)
def test_query_cjk_runs(query: str, runs: list[str]) -> None:
    assert query_cjk_runs(query) == runs


@pytest.mark.parametrize(
    ("run", "bigrams"),
    [("中", ["中"]), ("中文", ["中文"]), ("中文搜索", ["中文", "文搜", "搜索"])],
)
def test_run_bigrams(run: str, bigrams: list[str]) -> None:
    assert run_bigrams(run) == bigrams


@pytest.mark.parametrize(
    ("term", "quoted"),
    [("tea", '"tea"'), ('say "hi"', '"say ""hi"""'), ("", '""'), ("a OR b", '"a OR b"')],
)
def test_fts_quote(term: str, quoted: str) -> None:
    assert fts_quote(term) == quoted


# --- snippets -----------------------------------------------------------------------------------

TEXT = "The user prefers green tea over coffee."


@pytest.mark.parametrize(
    ("terms", "expected"),
    [
        (["green"], "...ers [green] tea..."),
        (["GREEN"], "...ers [green] tea..."),  # case-insensitive, original case kept
        (["coffee", "user"], "The [user] pre..."),  # the earliest match wins
        (["", "tea"], "...een [tea] ove..."),
        (["The"], "[The] use..."),
        (["coffee."], "...ver [coffee.]"),
    ],
)
def test_snippet_marks_the_first_match(terms: list[str], expected: str) -> None:
    assert snippet(TEXT, terms, before=4, after=4, limit=100) == expected


def test_snippet_without_a_match_is_the_start_of_the_text() -> None:
    assert snippet(TEXT, ["absent"], before=4, after=4, limit=8) == "The user"
    assert snippet(TEXT, [], before=4, after=4, limit=100) == TEXT


def test_snippet_is_one_line() -> None:
    text = "first line\n\n  second   line\twith tab"
    assert snippet(text, ["second"], before=100, after=100, limit=100) == (
        "first line [second] line with tab"
    )


def test_snippet_of_chinese_text() -> None:
    text = "用户每天早上喝绿茶，不加糖。"
    assert snippet(text, ["绿茶"], before=2, after=2, limit=50) == "...上喝[绿茶]，不..."


def test_snippet_positions_survive_case_mapping_that_changes_length() -> None:
    # "İ".lower() is two characters; the mark must still sit on the match.
    assert snippet("İİİİ hello world", ["hello"], before=2, after=2, limit=50) == (
        "...İ [hello] w..."
    )


def test_snippet_respects_the_limit() -> None:
    text = "x" * 500 + " needle " + "y" * 500
    out = snippet(text, ["needle"], before=80, after=160, limit=240)
    assert "[needle]" in out
    excerpt = out.removeprefix("...").removesuffix("...").replace("[", "").replace("]", "")
    assert len(excerpt) == 240
    assert excerpt.startswith("x" * 79 + " needle ")  # 80 characters before the match


def test_a_match_longer_than_the_limit_is_kept_whole() -> None:
    out = snippet("aa " + "b" * 30 + " cc", ["b" * 30], before=5, after=5, limit=10)
    assert "[" + "b" * 30 + "]" in out


@settings(deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("abcXYZ 用户\n\tİ"), max_size=120),
    start=st.integers(0, 119),
    length=st.integers(1, 6),
    before=st.integers(0, 30),
    after=st.integers(0, 30),
)
def test_snippet_marks_a_real_occurrence(
    text: str, start: int, length: int, before: int, after: int
) -> None:
    compact = " ".join(text.split())
    term = compact[start : start + length]
    if not term:
        return
    out = snippet(text, [term], before=before, after=after, limit=1000)
    marked = out[out.index("[") + 1 : out.index("]")]
    assert marked.lower() == term.lower() or marked.casefold() == term.casefold()
    plain = out.removeprefix("...").removesuffix("...").replace("[", "").replace("]", "")
    start = compact.find(plain)  # an earlier copy would hold an earlier match
    assert start >= 0
    assert out.startswith("...") is (start > 0)
    assert out.endswith("...") is (start + len(plain) < len(compact))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["Bought", "bought", "WAS", "were", "children", "buy", "was_", "é", "naïve", "3d"]
            + [" ", "\n", "-", "_", ".", "中文", "搜索的", "x", "Ⅻ", "١٢"]
        ),
        max_size=30,
    ).map("".join)
)
def test_index_text_writes_each_whole_word_as_its_lemma_base(text: str) -> None:
    """Every word unicode61 would see (WORD) is replaced by its base when it has one, case
    ignored; everything between words, and CJK runs (blanked), stay as latin_text has them."""
    expected = WORD.sub(lambda word: BASES.get(word[0].lower(), word[0]), latin_text(text))
    assert index_text(text) == expected

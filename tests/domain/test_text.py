"""domain/text.py: the one CJK character class and the one token estimate."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from liveagent_memory.domain.requests import SearchRequest, WriteRequest
from liveagent_memory.domain.text import CJK_RUN, estimate_tokens, has_cjk, is_cjk
from liveagent_memory.store.merge import merge_content, unit_key, unit_tokens
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import cjk_tokens, latin_text, query_cjk_runs

PACKAGE = Path(__file__).resolve().parents[2] / "liveagent_memory"

# Characters at least one of the four former classes missed: kana and Hangul (missing from
# store/rules.py, store/merge.py and domain/task_types.py), extension A and the compatibility
# block (missing from store/merge.py, which had only U+4E00..U+9FFF).
MISSED_BY_A_NARROWER_COPY = ["の", "カ", "한", "\u3400", "\uf900"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain English", False),
        ("", False),
        ("中", True),
        ("mixed 中文 text", True),
        ("カタカナ", True),
        ("ひらがな", True),
        ("한국어", True),
        ("\u3400", True),  # CJK extension A
        ("Ünïcödé ☃ 😀", False),
    ],
)
def test_has_cjk(text: str, expected: bool) -> None:
    assert has_cjk(text) is expected


def test_is_cjk_takes_one_character() -> None:
    assert is_cjk("中") and not is_cjk("a") and not is_cjk("。")  # punctuation is not a letter
    assert not is_cjk("中文") and not is_cjk("")


def test_the_class_is_defined_once() -> None:
    """No module but domain/text.py spells a CJK range (the four copies had four ranges)."""
    spelled = re.compile(r"\\u(3040|30ff|3400|4dbf|4e00|9fff|ac00|d7af|f900|faff)", re.I)
    found = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["domain/text.py"]


@pytest.mark.parametrize("char", MISSED_BY_A_NARROWER_COPY)
def test_a_character_a_narrower_copy_missed_is_cjk_everywhere(
    char: str, store: MemoryStore
) -> None:
    assert is_cjk(char) and has_cjk(f"x{char}x")
    # the token estimate: one token each, like any Han character
    assert estimate_tokens(char * 3) == estimate_tokens("中文字") == 3
    # search: bigram-indexed, and a two-character query finds it
    assert cjk_tokens(f"{char}{char}") == f"{char}{char} {char}"
    assert query_cjk_runs(f"about {char}{char}") == [f"{char}{char}"]
    assert latin_text(f"a{char}b") == "a b"
    body = f"Remember {char}{char} for the release."
    store.write(
        WriteRequest(slug="note", scope="global", type="reference", description="x", body=body)
    )
    found = store.search(SearchRequest(query=f"{char}{char}", include_all_projects=True))
    assert [hit.slug for hit in found.matches] == ["note"]
    # merge: compared character by character, so it is no longer dropped from the key
    assert unit_key(f"API {char}") == f"api {char}"
    assert unit_tokens(f"API {char}") == {"api", char}


@pytest.mark.parametrize("char", MISSED_BY_A_NARROWER_COPY)
def test_a_merge_keeps_a_sentence_that_differs_only_in_such_characters(char: str) -> None:
    """With U+4E00..U+9FFF only, 'API の。' had the key 'api', which 'API 遠。' ('api 遠')
    contains: the incoming sentence replaced the existing one, which was lost."""
    merged = merge_content(f"API {char}。", "API 遠。")
    assert merged == f"API {char}。\n\nAPI 遠。"


def test_cjk_runs_take_every_script_of_the_class() -> None:
    assert CJK_RUN.findall("中文 かな カナ 한글 \u3400\uf900 latin") == [
        "中文",
        "かな",
        "カナ",
        "한글",
        "\u3400\uf900",
    ]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("a", 1),
        ("abcd", 1),
        ("abcde", 2),
        ("修复登录崩溃", 6),  # the reference's len // 4 would say 1
        ("修复 login，崩溃", 4 + 1 + 2),  # 4 CJK + the full-width comma + ceil(7 / 4)
        ("「かな」と한글", 7),  # CJK brackets count as wide too
    ],
)
def test_the_token_estimate(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens

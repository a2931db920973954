"""Gates before an extraction run (REFERENCE A8): reasons, their order, the word lists."""

from __future__ import annotations

from typing import Any

import pytest

from liveagent_memory.agent.extraction import gating
from liveagent_memory.domain import config

NOW = 1_000_000
INTERVAL = config.EXTRACTION_MIN_INTERVAL_MS


class CandidateProbe:
    """Stands in for the store query "is there an unreviewed candidate?" and counts calls."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.answer


def run_gate(
    text: str,
    *,
    key: str = "new-key",
    last_key: str | None = "old-key",
    now_ms: int = NOW,
    last_run_at_ms: int | None = None,
    dequeued: bool = False,
    candidate: bool = True,
) -> tuple[str | None, CandidateProbe]:
    probe = CandidateProbe(candidate)
    reason = gating.gate(
        text,
        key=key,
        last_key=last_key,
        now_ms=now_ms,
        last_run_at_ms=last_run_at_ms,
        dequeued=dequeued,
        has_unreviewed_candidate=probe,
    )
    return reason, probe


# --- every skip reason -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        # empty
        ("", {}, gating.EMPTY),
        ("   \n\t  ", {}, gating.EMPTY),
        ("\u3000\u3000", {}, gating.EMPTY),  # ideographic spaces only
        # the same newest user message was already looked at
        ("以后都用 pnpm 安装依赖", {"key": "k", "last_key": "k"}, gating.NOT_NEW),
        ("From now on always use tabs", {"key": "k", "last_key": "k"}, gating.NOT_NEW),
        # under 6 graphemes
        ("ok", {}, gating.TOO_SHORT),
        ("好", {}, gating.TOO_SHORT),
        ("嗯嗯嗯", {}, gating.TOO_SHORT),
        ("cool!", {}, gating.TOO_SHORT),
        ("12345", {}, gating.TOO_SHORT),
        ("  收到了  ", {}, gating.TOO_SHORT),  # counted after stripping
        # punctuation, symbols and blanks only
        ("？？？？？？", {}, gating.PUNCTUATION_ONLY),
        ("......", {}, gating.PUNCTUATION_ONLY),
        ("!!! ??? !!!", {}, gating.PUNCTUATION_ONLY),
        ("👍👍👍👍👍👍", {}, gating.PUNCTUATION_ONLY),
        ("——……——", {}, gating.PUNCTUATION_ONLY),
        # greetings
        ("hello there", {}, gating.GREETING),
        ("Hello!!", {}, gating.GREETING),
        ("HEY THERE", {}, gating.GREETING),
        ("你好，请问在吗", {}, gating.GREETING),
        ("早上好呀朋友们", {}, gating.GREETING),
        ("晚安，明天见！", {}, gating.GREETING),
        # thanks
        ("谢谢你的帮助！", {}, gating.THANKS),
        ("多谢多谢老板！", {}, gating.THANKS),
        ("辛苦了辛苦了", {}, gating.THANKS),
        ("thanks a lot!", {}, gating.THANKS),
        ("Thank you!!", {}, gating.THANKS),
        ("thx buddy", {}, gating.THANKS),
        # acknowledgements
        ("好的，没问题", {}, gating.ACK),
        ("收到，马上处理", {}, gating.ACK),
        ("明白了，谢谢", {}, gating.ACK),
        ("okay then", {}, gating.ACK),
        ("sounds good!", {}, gating.ACK),
        ("Sure thing!", {}, gating.ACK),
        # throttled: less than 30 s since the last run
        ("以后都用 pnpm 安装依赖", {"last_run_at_ms": NOW - 10_000}, gating.THROTTLED),
        ("Always answer in English", {"last_run_at_ms": NOW - INTERVAL + 1}, gating.THROTTLED),
        # a confirmation with nothing to confirm
        ("是的！", {"candidate": False}, gating.CONFIRMATION_WITHOUT_CANDIDATE),
        ("Yes.", {"candidate": False}, gating.CONFIRMATION_WITHOUT_CANDIDATE),
        ("not really", {"candidate": False}, gating.CONFIRMATION_WITHOUT_CANDIDATE),
    ],
)
def test_each_skip_reason(text: str, kwargs: dict[str, Any], expected: str) -> None:
    reason, _ = run_gate(text, **kwargs)
    assert reason == expected


@pytest.mark.parametrize(
    "text",
    [
        "以后都用 pnpm 安装依赖",
        "我叫李雷，是后端工程师",
        "From now on always use tabs",
        "Please remember that I deploy on Fridays",
    ],
)
def test_a_real_instruction_runs(text: str) -> None:
    reason, probe = run_gate(text, last_run_at_ms=NOW - INTERVAL)
    assert reason is None
    assert probe.calls == 0  # the candidate query only runs for confirmations


# --- order: a message failing two gates reports the earlier one -------------------------------


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        ("", {"key": "k", "last_key": "k"}, gating.EMPTY),  # empty before not-new
        ("ok", {"key": "k", "last_key": "k"}, gating.NOT_NEW),  # not-new before too-short
        ("?!?", {}, gating.TOO_SHORT),  # too-short before punctuation-only
        ("hi", {}, gating.TOO_SHORT),  # too-short before greeting
        ("谢谢", {}, gating.TOO_SHORT),  # too-short before thanks
        ("hey, thx!", {}, gating.GREETING),  # greeting before thanks
        ("thx, ok!!", {}, gating.THANKS),  # thanks before acknowledgement
        ("你好，在吗？", {"last_run_at_ms": NOW - 1}, gating.GREETING),  # before throttled
        ("好的，没问题", {"last_run_at_ms": NOW - 1}, gating.ACK),
        ("是的", {"last_run_at_ms": NOW - 1, "candidate": False}, gating.THROTTLED),
        ("!!!!!!!!", {"last_run_at_ms": NOW - 1}, gating.PUNCTUATION_ONLY),
    ],
)
def test_gates_are_checked_in_reference_order(
    text: str, kwargs: dict[str, Any], expected: str
) -> None:
    reason, _ = run_gate(text, **kwargs)
    assert reason == expected


def test_throttled_confirmation_does_not_query_candidates() -> None:
    reason, probe = run_gate("是的", last_run_at_ms=NOW - 1)
    assert reason == gating.THROTTLED
    assert probe.calls == 0


# --- throttle --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed_ms", "dequeued", "expected"),
    [
        (0, False, gating.THROTTLED),
        (1_000, False, gating.THROTTLED),
        (INTERVAL - 1, False, gating.THROTTLED),
        (INTERVAL, False, None),
        (INTERVAL + 5_000, False, None),
        (0, True, None),  # a parked run goes right after the one in flight
        (1_000, True, None),
    ],
)
def test_min_interval(elapsed_ms: int, dequeued: bool, expected: str | None) -> None:
    reason, _ = run_gate(
        "以后提交信息都用英文写", last_run_at_ms=NOW - elapsed_ms, dequeued=dequeued
    )
    assert reason == expected


def test_first_run_is_never_throttled() -> None:
    assert run_gate("以后提交信息都用英文写", last_run_at_ms=None)[0] is None


# --- the deliberate deviation: a polite opener followed by a real instruction ---------------


@pytest.mark.parametrize(
    "text",
    [
        "好的，以后都用 pnpm 安装依赖",
        "thanks — from now on always use tabs",
        "ok, always use tabs",
        "谢谢！以后回答都用中文",
        "你好，我叫李雷，做后端",
        "hi, call me Wei please",
        "收到。默认用 uv 管理环境",
    ],
)
def test_polite_opener_with_instruction_is_not_skipped(text: str) -> None:
    assert gating.graphemes(text) >= config.EXTRACTION_SHORT_MESSAGE_GRAPHEMES
    reason, _ = run_gate(text)
    assert reason is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thank you so much", gating.THANKS),
        ("thanks, great work!", gating.THANKS),
        ("好的，谢谢你的帮助", gating.ACK),
        ("谢谢！太棒了", gating.THANKS),
        ("ok cool thanks", gating.ACK),
        ("hello again, thank you", gating.GREETING),
    ],
)
def test_pleasantries_strung_together_are_still_small_talk(text: str, expected: str) -> None:
    # Nothing but pleasantries follows the opener, so the turn is skipped like a lone "thanks".
    assert gating.graphemes(text) >= config.EXTRACTION_SHORT_MESSAGE_GRAPHEMES
    assert run_gate(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "hiking is my hobby",  # "hi" + "king": not a greeting
        "history of this repo matters",
        "type hints everywhere, please",  # "ty" is thanks only as a word
        "okaying merges is fine",
        "surely we want tests",
        "heyday of the monolith",
        "好看的界面很重要啊",  # 好 opens a longer phrase
        # short enough that only the word boundary keeps them from being small talk
        "hiking!",
        "history",
        "heyday!",
        "types!",
        "tyranny",
        "surely",
    ],
)
def test_small_talk_word_must_stand_alone(text: str) -> None:
    assert run_gate(text)[0] is None


@pytest.mark.parametrize(
    ("opener", "expected"),
    [("hello", gating.GREETING), ("谢谢", gating.THANKS), ("ok", gating.ACK)],
)
def test_small_talk_only_under_24_graphemes(opener: str, expected: str) -> None:
    limit = config.EXTRACTION_SMALL_TALK_GRAPHEMES
    short = opener + "!" * (limit - 1 - gating.graphemes(opener))
    at_limit = opener + "!" * (limit - gating.graphemes(opener))
    assert gating.graphemes(short) == limit - 1
    assert gating.graphemes(at_limit) == limit
    assert run_gate(short)[0] == expected
    assert run_gate(at_limit)[0] is None


# --- confirmations -------------------------------------------------------------------------


CONFIRMATIONS = [
    "是的！",
    "是",
    "对。",
    "没错",
    "是这样",
    "不是的",
    "不对！",
    "否",
    "Yes.",
    "yes",
    "Yep!",
    "y",
    "N",
    "No!",
    "Nope...",
    "not really",
    "Not really.",
    "Correct!",
    "wrong",
]


@pytest.mark.parametrize("text", CONFIRMATIONS)
def test_confirmation_runs_only_with_an_unreviewed_candidate(text: str) -> None:
    assert gating.is_confirmation(text)
    with_candidate, probe = run_gate(text, candidate=True)
    assert with_candidate is None  # short, but not too short: it may confirm a memory
    assert probe.calls == 1
    without, _ = run_gate(text, candidate=False)
    assert without == gating.CONFIRMATION_WITHOUT_CANDIDATE


@pytest.mark.parametrize(
    "text",
    ["yes please do", "是的，以后都用 pnpm", "no way", "notreallysure", "对啊", "yess"],
)
def test_not_a_confirmation(text: str) -> None:
    assert not gating.is_confirmation(text)


def test_long_message_starting_with_yes_runs_without_candidate_query() -> None:
    reason, probe = run_gate("是的，以后都用 pnpm 安装依赖", candidate=False)
    assert reason is None
    assert probe.calls == 0


@pytest.mark.parametrize(
    ("text", "stripped"),
    [("是的！", "是的"), ("not really", "notreally"), ("Yes.", "Yes"), ("「好的」", "好的")],
)
def test_strip_punctuation(text: str, stripped: str) -> None:
    assert gating.strip_punctuation(text) == stripped


# --- graphemes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("abc", 3),
        ("你好世界", 4),
        ("e\u0301", 1),  # e + combining acute
        ("cafe\u0301", 4),
        ("\u1100\u0301\u0302", 1),  # stacked combining marks
        ("👍🏽", 1),  # emoji + skin tone
        ("👨\u200d👩\u200d👧\u200d👦", 1),  # ZWJ family
        ("👩🏽\u200d💻", 1),  # skin tone and ZWJ
        ("🏳️\u200d🌈", 1),  # variation selector and ZWJ
        ("❤️", 1),
        ("1️⃣", 1),  # keycap
        ("🇨🇳", 1),  # a flag is two regional indicators
        ("🇨🇳🇺🇸", 2),
        ("我爱👨\u200d👩\u200d👧\u200d👦", 3),
        ("a\u200db", 2),  # a joiner between letters glues nothing
    ],
)
def test_grapheme_count(text: str, count: int) -> None:
    assert gating.graphemes(text) == count


@pytest.mark.parametrize(
    "text",
    [
        "e\u0301" * 5,  # 10 code points, 5 letters
        "👍🏽👍🏽👍🏽",  # 6 code points
        "我爱👨\u200d👩\u200d👧\u200d👦",  # 9 code points
        "🇨🇳🇨🇳🇨🇳",  # 6 code points, 3 flags
    ],
)
def test_too_short_counts_graphemes_not_code_points(text: str) -> None:
    assert len(text) >= config.EXTRACTION_SHORT_MESSAGE_GRAPHEMES
    assert run_gate(text)[0] == gating.TOO_SHORT


def test_combining_marks_do_not_lengthen_small_talk() -> None:
    # 23 user-perceived characters but 45 code points: still checked for small talk.
    text = "hello" + "!\u0301" * 18
    assert gating.graphemes(text) == 23
    assert run_gate(text)[0] == gating.GREETING


# --- message key -----------------------------------------------------------------------------


def test_message_key_format() -> None:
    assert gating.message_key(5, "你好 world") == "5:8:你好 world"
    long = "以" * 200
    assert gating.message_key(3, long) == "3:200:" + "以" * 80


def test_message_key_identifies_the_newest_user_message() -> None:
    text = "以后都用 pnpm 安装依赖"
    key = gating.message_key(4, text)
    assert run_gate(text, key=gating.message_key(4, text), last_key=key)[0] == gating.NOT_NEW
    # The same words in a later turn (more messages) are a new message.
    assert run_gate(text, key=gating.message_key(6, text), last_key=key)[0] is None
    # Same count and length, different words: new.
    other = "以后都用 yarn 安装依赖"
    assert run_gate(other, key=gating.message_key(4, other), last_key=key)[0] is None


def test_message_key_only_sees_the_first_80_characters() -> None:
    # REFERENCE A8: two messages equal in count, length and first 80 characters are the same.
    first = "x" * 80 + "always use tabs"
    second = "x" * 80 + "never use tabs!"
    assert len(first) == len(second)
    assert gating.message_key(2, first) == gating.message_key(2, second)

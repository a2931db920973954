"""Cheap, synchronous gates that decide whether a turn is worth an extraction run (REFERENCE A8).

Checked in the reference's order; each skip has a stable reason code. One deliberate change: a
short message that *starts* with a greeting or thanks ("好的，以后都用 pnpm") is only skipped
when nothing but more pleasantries ("thanks so much, great work") or a few characters follow,
because the reference's pure prefix test drops real instructions that open politely.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from liveagent_memory.domain import config

EMPTY = "empty-user-message"
NOT_NEW = "no-new-user-message"
TOO_SHORT = "user-message-too-short"
PUNCTUATION_ONLY = "punctuation-only-user-message"
GREETING = "greeting"
THANKS = "acknowledgement-thanks"
ACK = "acknowledgement-ok"
CONFIRMATION_WITHOUT_CANDIDATE = "confirmation-without-unreviewed-candidate"
THROTTLED = "throttled-min-interval"
DISABLED = "extraction-disabled"

# REFERENCE A8 word lists.
GREETING_WORDS = ("你好", "您好", "哈喽", "早安", "晚安", "早上好", "晚上好", "hi", "hello", "hey")
THANKS_WORDS = ("谢谢", "多谢", "感谢", "辛苦了", "thanks", "thank you", "ty", "thx")
ACK_WORDS = (
    "好的",
    "好",
    "收到",
    "明白了",
    "明白",
    "ok",
    "okay",
    "got it",
    "sounds good",
    "sure",
)
CONFIRMATION_WORDS = frozenset(
    (
        "是",
        "是的",
        "对",
        "对的",
        "没错",
        "正确",
        "确认",
        "是这样",
        "不是",
        "不是的",
        "不对",
        "否",
        "没有",
        "yes",
        "y",
        "yep",
        "yeah",
        "correct",
        "right",
        "no",
        "n",
        "nope",
        "wrong",
        "notreally",
    )
)

_INVISIBLE = {"Mn", "Me", "Cf"}


def graphemes(text: str) -> int:
    """Approximate user-perceived characters: combining marks, joiners, selectors don't count."""
    count = 0
    after_joiner = False  # a zero-width joiner glues the next emoji to the one before it
    flag_half = False  # two regional-indicator letters make one flag
    for ch in text:
        code = ord(ch)
        if ch == "\u200d":
            after_joiner = True
            continue
        if unicodedata.category(ch) in _INVISIBLE or 0xFE00 <= code <= 0xFE0F:
            continue
        if 0x1F3FB <= code <= 0x1F3FF:  # skin-tone modifiers join the emoji before them
            continue
        joined = after_joiner and unicodedata.category(ch) == "So"
        after_joiner = False
        if joined:  # "👨‍👩‍👧" is one family, not three people
            continue
        if 0x1F1E6 <= code <= 0x1F1FF:
            flag_half = not flag_half
            if not flag_half:
                continue
        else:
            flag_half = False
        count += 1
    return count


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PSZ" or ch.isspace()


def strip_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not _is_punct(ch))


def is_confirmation(text: str) -> bool:
    return strip_punctuation(text).lower() in CONFIRMATION_WORDS


# Words that often follow a pleasantry without adding content ("thanks so much, great work").
PLEASANTRY_FILLERS = (
    "so much",
    "very much",
    "a lot",
    "again",
    "for your help",
    "for the help",
    "for that",
    "great work",
    "good job",
    "nice work",
    "well done",
    "great",
    "awesome",
    "perfect",
    "cool",
    "you",
    "你的帮助",
    "你",
    "您",
    "啦",
    "了",
    "呀",
    "哦",
    "哈",
    "很多",
    "太棒了",
    "很好",
    "不错",
)
_PLEASANTRIES = tuple(
    sorted({*GREETING_WORDS, *THANKS_WORDS, *ACK_WORDS, *PLEASANTRY_FILLERS}, key=len, reverse=True)
)


def _strip_word(text: str, words: tuple[str, ...]) -> str | None:
    """`text` without a leading word from `words` (ASCII words at a word boundary), or None."""
    for word in words:
        if text.startswith(word):
            rest = text[len(word) :]
            if word.isascii() and rest[:1].isalnum():
                continue  # "hiking" is not "hi"
            return rest
    return None


def _small_talk(text: str, words: tuple[str, ...]) -> bool:
    """Starts with one of `words` and what follows is only more pleasantries or very short."""
    rest = _strip_word(text.strip().lower(), tuple(sorted(words, key=len, reverse=True)))
    if rest is None:
        return False
    while True:  # drop "so much", "great work", "谢谢你" … one after another
        while rest[:1] and _is_punct(rest[0]):  # punctuation and spaces between words
            rest = rest[1:]
        shorter = _strip_word(rest, _PLEASANTRIES)
        if shorter is None:
            break
        rest = shorter
    return graphemes(strip_punctuation(rest)) < config.EXTRACTION_SHORT_MESSAGE_GRAPHEMES


def message_key(message_count: int, text: str) -> str:
    """Identity of the newest user message (REFERENCE A8): count, length and first 80 chars."""
    return f"{message_count}:{len(text)}:{text[:80]}"


def gate(
    text: str,
    *,
    key: str,
    last_key: str | None,
    now_ms: int,
    last_run_at_ms: int | None,
    dequeued: bool = False,
    has_unreviewed_candidate: Callable[[], bool],
) -> str | None:
    """Return the reason to skip this turn, or None to run. Never awaits."""
    stripped = text.strip()
    if not stripped:
        return EMPTY
    if key == last_key:
        return NOT_NEW
    length = graphemes(stripped)
    confirmation = is_confirmation(stripped)
    if length < config.EXTRACTION_SHORT_MESSAGE_GRAPHEMES and not confirmation:
        return TOO_SHORT
    if not strip_punctuation(stripped):
        return PUNCTUATION_ONLY
    if length < config.EXTRACTION_SMALL_TALK_GRAPHEMES and not confirmation:
        if _small_talk(stripped, GREETING_WORDS):
            return GREETING
        if _small_talk(stripped, THANKS_WORDS):
            return THANKS
        if _small_talk(stripped, ACK_WORDS):
            return ACK
    if (
        not dequeued
        and last_run_at_ms is not None
        and now_ms - last_run_at_ms < config.EXTRACTION_MIN_INTERVAL_MS
    ):
        return THROTTLED
    if confirmation and not has_unreviewed_candidate():
        return CONFIRMATION_WITHOUT_CANDIDATE
    return None

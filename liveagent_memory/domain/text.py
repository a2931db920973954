"""Two text rules every layer shares: the CJK character class and the token estimate.

This module is the only home of both (docs/ARCHITECTURE.md "Where each rule lives"):

- **The CJK character class** (`CJK_CHARS`): the scripts a word tokenizer cannot split, Han
  (the unified ideographs, extension A and the compatibility block), Japanese kana and Korean
  Hangul syllables. Search indexes their runs as character bigrams (store/text.py), slugs spell
  Han in pinyin (store/rules.py), a merge compares them character by character (store/merge.py),
  task detection matches them as substrings (domain/task_types.py), and the token estimate
  counts each as a whole token. Before this module there were four classes, three of them
  narrower than the index's (no kana or Hangul; one had only the unified ideographs), so a
  merge dropped a Japanese or Korean sentence as a "duplicate" of another one with the same
  Latin words.
- **The token estimate** (`estimate_tokens`). The reference estimates `max(1, len(text) // 4)`.
  That holds for English (about four characters a token) but counts a Chinese sentence at a
  quarter of its real cost, so a "strict" budget would be overspent fourfold in Chinese. Here a
  CJK character (or CJK / full-width punctuation) counts as one token and the rest as a quarter,
  rounded up: never an underestimate for either language. Rounding up also makes the estimate
  subadditive: the tokens of joined texts are never more than the sum of their parts, so a
  context built from pieces that fit is known to fit. What loading every file would cost (a
  context's "tokens saved") is the same estimate of each file's text, kept in the index.
"""

from __future__ import annotations

import math
import re

# Hiragana and katakana, Han extension A, Han unified ideographs, Hangul syllables, Han
# compatibility ideographs: scripts written without spaces between words (Korean has spaces
# between phrases, not words, and is bigram-indexed like the others).
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_CJK = re.compile(f"[{CJK_CHARS}]")
# One token each: the CJK class plus CJK punctuation (、。「」) and full-width forms (，！Ａ).
# Matched in runs: counting run lengths is about twice as fast as one match per character.
_WIDE_RUN = re.compile(f"[{CJK_CHARS}\u3000-\u303f\uff00-\uffef]+")


def is_cjk(char: str) -> bool:
    """Whether one character belongs to the CJK class."""
    return len(char) == 1 and _CJK.match(char) is not None


def has_cjk(text: str) -> bool:
    """Whether `text` holds any character of the CJK class."""
    return _CJK.search(text) is not None


def estimate_tokens(text: str) -> int:
    """Tokens `text` costs in a prompt: 1 per CJK character, 1 per 4 other characters (rounded
    up); 0 only for the empty string."""
    if not text:
        return 0
    wide = 0 if text.isascii() else sum(len(run) for run in _WIDE_RUN.findall(text))
    return max(1, wide + math.ceil((len(text) - wide) / 4))

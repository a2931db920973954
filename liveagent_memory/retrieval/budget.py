"""Token estimates and the strict token budget of a context (SPEC 6, REFERENCE B5).

The reference estimates `max(1, len(text) // 4)`. That holds for English (about four characters a
token) but counts a Chinese sentence at a quarter of its real cost, so a "strict" budget would be
overspent fourfold in Chinese. Here a CJK character (or full-width punctuation) counts as one
token and the rest as a quarter, rounded up: never an underestimate for either language.

Rounding up also makes the estimate subadditive: the tokens of joined texts are never more than
the sum of their parts, so a context built from pieces that fit is known to fit.
"""

from __future__ import annotations

import math
import re

from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.store.text import CJK_CHARS

# CJK ideographs and kana/hangul (store/text.py), plus CJK and full-width punctuation.
_WIDE = re.compile(f"[{CJK_CHARS}\u3000-\u303f\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """Tokens `text` costs in a prompt: 1 per CJK character, 1 per 4 other characters (rounded
    up); 0 only for the empty string."""
    if not text:
        return 0
    wide = len(_WIDE.findall(text))
    return max(1, wide + math.ceil((len(text) - wide) / 4))


class Budget:
    """A token allowance that can never be overspent: `take` refuses what does not fit."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError("a token budget cannot be negative")
        self.limit = limit
        self.used = 0

    @property
    def left(self) -> int:
        return self.limit - self.used

    def fits(self, tokens: int) -> bool:
        return 0 <= tokens <= self.left

    def take(self, tokens: int) -> bool:
        """Spend `tokens` if they fit; report whether they did."""
        if not self.fits(tokens):
            return False
        self.used += tokens
        return True

    def swap(self, old: int, new: int) -> bool:
        """Replace something already spent (`old` tokens) by a larger or smaller `new` one."""
        if new - old > self.left or new < 0 or old > self.used:
            return False
        self.used += new - old
        return True


def check_budget(value: int, *, field: str, maximum: int) -> int:
    """A caller's token budget, or InvalidArgument naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{field} must be a whole number of tokens", field=field)
    if value < 1:
        raise InvalidArgument(f"{field} must be at least 1 token, not {value}", field=field)
    if value > maximum:
        raise InvalidArgument(
            f"{field} {value} is larger than any context window (at most {maximum})", field=field
        )
    return value

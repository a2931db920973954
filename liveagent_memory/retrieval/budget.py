"""The strict token budget of a context (SPEC 6, REFERENCE B5).

Costs are domain/text.py's `estimate_tokens` (the one token estimate); because it is
subadditive, a context built from pieces that fit is known to fit.
"""

from __future__ import annotations

from liveagent_memory.domain.errors import InvalidArgument


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
    """A caller's token budget, or InvalidArgument (its `field` names the request field)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument("The token budget must be a whole number of tokens", field=field)
    if value < 1:
        raise InvalidArgument(
            f"The token budget must be at least 1 token, not {value}", field=field
        )
    if value > maximum:
        raise InvalidArgument(
            f"A token budget of {value} is larger than any context window (at most {maximum})",
            field=field,
        )
    return value

"""Near matches of a mistyped name: the one rule behind every "did you mean …?".

Used for slugs (`slug_not_found` candidates, store/resolve.py) and command names
(`unknown_command`, commands.py), so the agent's tool, the CLI and the app suggest alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from liveagent_memory.domain import config


def close_matches(word: str, choices: Iterable[str], *, limit: int) -> list[str]:
    """Up to `limit` of `choices` most like `word`, best first; none below the cut-off."""
    return difflib.get_close_matches(
        word, list(dict.fromkeys(choices)), n=limit, cutoff=config.NEAR_MATCH_CUTOFF
    )


def text_similarity(first: str, second: str) -> float:
    """How alike two short texts read, 0..1: difflib's ratio of their casefolded,
    space-collapsed forms (CJK text compares character by character, as it reads).

    Consolidation's one measure (organizer/consolidate.py): clusters of similar episodes and
    whether a proposal updates an existing memory (REFERENCE B9's .7, .8 and .6)."""
    a = " ".join(first.casefold().split())
    b = " ".join(second.casefold().split())
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()

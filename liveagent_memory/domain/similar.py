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

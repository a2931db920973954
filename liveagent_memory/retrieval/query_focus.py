"""The vector side's query without the store's most common words (issue 17).

A small embedding model reads a short question mostly through its rarest-looking word, and a
person's name is that word: e5 places "What did Caroline research?" nearest to whatever says
"Caroline", and in a store where she starts half the memories ("Caroline: ...") the research is
lost among them (LoCoMo-dev: the vector side alone found an evidence turn in its top 10 for
0.657 of the questions, 0.747 with the conversation's names left out; bench/README.md, issue 17
fifth round). Which words those are is measured on the store itself (`MemoryStore.common_words`:
a word, not a stop word, in more than `config.HYBRID_COMMON_WORD_SHARE` of the memories), never
a list of names. The query is then embedded twice, as it is and without those words
(`focused_query`), and the vector side searches with a blend of the two (`blended`): mostly the
focused one, with `config.HYBRID_FOCUS_FULL_WEIGHT` of the whole question kept, so a question
naming two people (who both did something) still leans towards them.
"""

from __future__ import annotations

import re

from liveagent_memory.domain import config
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import STOP_WORDS, query_words

_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([?.,!;:])")


def focused_query(store: MemoryStore, query: str) -> str | None:
    """`query` without the words the store finds in more than
    `config.HYBRID_COMMON_WORD_SHARE` of its memories (with a possessive "'s"); None when it
    has none, when no other word but stop words would be left (then the whole query is the
    only one worth embedding), or when it holds more than `config.HYBRID_FOCUS_MAX_WORDS`
    content words (a text, not a question)."""
    content = [word for word in query_words(query) if word not in STOP_WORDS]
    if not 2 <= len(content) <= config.HYBRID_FOCUS_MAX_WORDS:
        return None
    common = store.common_words(
        content, config.HYBRID_COMMON_WORD_SHARE, config.HYBRID_COMMON_WORD_MIN_MEMORIES
    )
    if not common or len(common) == len(content):
        return None
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(word) for word in common) + r")(?:['\u2019]s)?\b",
        re.IGNORECASE,
    )
    focused = _SPACE_BEFORE_MARK.sub(r"\1", _SPACES.sub(" ", pattern.sub(" ", query))).strip()
    return focused if focused and focused != query.strip() else None


def blended(whole: list[float], focused: list[float]) -> list[float]:
    """`config.HYBRID_FOCUS_FULL_WEIGHT` x the whole query's unit vector + the rest x the
    focused query's (each scaled to length 1 first, so the weight is what it says)."""
    weight = config.HYBRID_FOCUS_FULL_WEIGHT
    whole_norm = sum(v * v for v in whole) ** 0.5 or 1.0
    focused_norm = sum(v * v for v in focused) ** 0.5 or 1.0
    return [
        weight * a / whole_norm + (1.0 - weight) * b / focused_norm
        for a, b in zip(whole, focused, strict=True)
    ]

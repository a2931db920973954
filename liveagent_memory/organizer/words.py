"""Word forms the organizer compares: folded text and light English stems.

Shared by the offline duplicate finder (organizer/offline.py) and the difference rules
(organizer/differences.py), so both read a word the same way. Plain Python, no I/O.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from liveagent_memory.domain import config


def fold(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII) and casefold."""
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light English stem: plural, -ing/-ed and a final e dropped, cut to a short prefix.

    `use, uses, used, using -> us`, `prefers, preferred, preference -> prefer`. Words with
    digits or non-ASCII letters are kept whole: version numbers and names must not conflate.
    """
    if len(word) <= 2 or not (word.isascii() and word.isalpha()):
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and not word.endswith("eed"):
            base = word[: -len(suffix)]
            if len(base) >= 2 and any(char in "aeiouy" for char in base):
                if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "aeioulsz":
                    base = base[:-1]  # running -> run, preferred -> prefer
                word = base
            break
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    return word[: config.OFFLINE_STEM_PREFIX_CHARS]

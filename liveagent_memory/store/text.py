"""Text processing shared by indexing and querying: CJK bigrams, query terms, snippets.

SQLite's unicode61 tokenizer reads a run of Chinese characters as one token and its trigram
tokenizer cannot match terms under three characters, so neither finds a typical two-character
Chinese word inside a sentence (TOOLCHAIN 5, 10). We therefore index Chinese (and Japanese
kana / Korean) text as overlapping character bigrams, plus the last character of every run
alone, in columns of our own FTS table: a two-character word is one bigram, a longer word is a
phrase of consecutive bigrams (an exact substring match), a single character is a prefix query.
Latin-script words go to separate columns through unicode61 with the Porter stemmer. Which
characters count as CJK is domain/text.py's rule (`CJK_CHARS`).
"""

from __future__ import annotations

import operator
import re

from liveagent_memory.domain.text import CJK_CHARS, CJK_RUN
from liveagent_memory.store.lemmas import BASES

# A Latin-script word as unicode61 sees it: letters and digits (and marks) of any script
# except the CJK ones above.
WORD = re.compile(rf"[^\W_{CJK_CHARS}]+", re.UNICODE)

# Words too common to help ranking; dropped from queries (never from the index), unless the
# query has nothing else.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves did does doing done get got gets getting let lets also ever still yet s t d ll
    m re ve y
    """.split()
)


def cjk_tokens(text: str) -> str:
    """Index form of the CJK part of `text`: bigrams of every run plus its last character."""
    out: list[str] = []
    for run in CJK_RUN.findall(text):
        out += map(operator.add, run, run[1:])  # each character with the next: the bigrams
        out.append(run[-1])
    return " ".join(out)


def latin_text(text: str) -> str:
    """Index form of the non-CJK part of `text` (CJK runs become spaces)."""
    return CJK_RUN.sub(" ", text)


# The text split into [between, word, between, word, ..., between] (WORD captured).
_WORDS_APART = re.compile(f"({WORD.pattern})")


def index_text(text: str) -> str:
    """Index form of the non-CJK part of `text`: `latin_text` with every irregular English form
    written as its base ("bought" -> "buy", store/lemmas.py), as queries write them."""
    # Split and join rather than WORD.sub with a function per word: a third less time on
    # every memory indexed (issue 17).
    parts = _WORDS_APART.split(latin_text(text))
    base = BASES.get
    parts[1::2] = [base(word.lower(), word) for word in parts[1::2]]
    return "".join(parts)


def query_words(text: str) -> list[str]:
    """Latin-script words of a query, lowercased, in order, without duplicates."""
    seen: dict[str, None] = {}
    for word in WORD.findall(latin_text(text).lower()):
        seen.setdefault(word, None)
    return list(seen)


def query_cjk_runs(text: str) -> list[str]:
    """CJK runs of a query, in order, without duplicates."""
    seen: dict[str, None] = {}
    for run in CJK_RUN.findall(text):
        seen.setdefault(run, None)
    return list(seen)


def run_bigrams(run: str) -> list[str]:
    """Bigrams of one CJK run (a single character stays itself)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def fts_quote(term: str) -> str:
    """Quote a term as an FTS5 string (a phrase of its tokens)."""
    return '"' + term.replace('"', '""') + '"'


def snippet(text: str, terms: list[str], *, before: int, after: int, limit: int) -> str:
    """A one-line excerpt around the first matching term, the term marked with [ ].

    The excerpt holds at most `limit` characters of text (the match itself always whole);
    matching ignores case without changing positions (`"İ".lower()` is two characters).
    """
    compact = " ".join(text.split())
    best: tuple[int, int] | None = None
    for term in terms:
        if not term:
            continue
        found = re.search(re.escape(term), compact, re.IGNORECASE)
        if found and (best is None or found.start() < best[0]):
            best = (found.start(), found.end() - found.start())
    if best is None:
        return compact[:limit]
    position, length = best
    start = max(0, position - before)
    end = min(len(compact), position + length + after, max(start + limit, position + length))
    marked = (
        compact[start:position]
        + "["
        + compact[position : position + length]
        + "]"
        + compact[position + length : end]
    )
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(compact) else ""
    return prefix + marked + suffix

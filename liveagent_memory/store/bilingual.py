"""Chinese-English word list: the one table cross-language search reads (issue 17).

A memory written in Chinese shares no token with an English question about it, and the reverse,
so keyword search alone cannot find it. `translate` turns a query's words into the other
language's, which store/search.py `search` runs as a second, weaker query (its hits are scaled
below the best hit of the query's own words: config.SEARCH_CROSSLANG_WEIGHT):

- an English word gives the Chinese words whose dictionary sense is that word alone ("deploy"
  -> 部署), the commonest `config.SEARCH_CROSSLANG_ZH_PER_WORD`, searched as bigrams like any
  Chinese query (store/text.py);
- a run of Chinese is split into the list's words by forward maximum matching (the longest word
  of the list starting at each place; characters the list does not hold are passed over), and
  each gives the English words of its short senses ("推送" -> push, server).

The list (`data/zh_en.tsv`) is derived from CC-CEDICT by scripts/zh_en_words.py and keeps that
dictionary's licence (CC BY-SA 4.0; the file's header says so). It is read once per process, on
the first search; a missing or unreadable list turns cross-language search off with a warning,
and a malformed line is skipped: search itself never fails on it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.store.lemmas import lemma

log = logging.getLogger(__name__)

WORD_LIST = Path(__file__).resolve().parent / "data" / "zh_en.tsv"
# Regular English endings tried off a query word when the list has no entry for it as written
# (the list holds dictionary forms; FTS5's stemmer is not reachable from Python).
_ENDINGS: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("es", ""),
    ("s", ""),
    ("ing", ""),
    ("ing", "e"),
    ("ed", ""),
    ("ed", "e"),
    ("ment", ""),
    ("ion", "e"),
    ("ion", ""),
)


@dataclass(frozen=True)
class WordList:
    """The list read into memory: both directions, and the longest Chinese word's length."""

    english: dict[str, tuple[str, ...]]  # Chinese word -> English words (translations first)
    chinese: dict[str, tuple[str, ...]]  # English word -> Chinese words (commonest first)
    longest: int

    @classmethod
    def parse(cls, text: str) -> WordList:
        english: dict[str, tuple[str, ...]] = {}
        chinese: dict[str, list[str]] = {}
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not parts[0]:
                continue  # a malformed line costs only itself
            zh, exact, other = parts[0], parts[1].split(), parts[2].split()
            if not exact and not other:
                continue
            english[zh] = (*exact, *other)
            for word in exact:  # lines run commonest first, so each list stays in that order
                chinese.setdefault(word, []).append(zh)
        return cls(
            english,
            {word: tuple(found) for word, found in chinese.items()},
            max((len(zh) for zh in english), default=0),
        )


@cache
def word_list(path: Path = WORD_LIST) -> WordList:
    """The list at `path`, read once; an empty list (and a warning) when it cannot be read."""
    try:
        return WordList.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cross-language search is off: cannot read %s (%s)", path, exc)
        return WordList({}, {}, 0)


def _keys(word: str) -> list[str]:
    """The forms an English query word is looked up by: itself, its base ("went" -> go), and
    the word without a regular ending ("pushes" -> push; "deployment" -> deploy)."""
    keys = [word, lemma(word)]
    for ending, replacement in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            keys.append(word[: -len(ending)] + replacement)
    return list(dict.fromkeys(keys))


def chinese_words(word: str, words: WordList) -> list[str]:
    """The Chinese words for one English word, commonest first (the first form found)."""
    for key in _keys(word):
        found = words.chinese.get(key)
        if found:
            return list(found[: config.SEARCH_CROSSLANG_ZH_PER_WORD])
    return []


def segment(run: str, words: WordList) -> list[str]:
    """The list's words in a run of Chinese, by forward maximum matching."""
    found: list[str] = []
    i = 0
    while i < len(run):
        for size in range(min(words.longest, len(run) - i), 1, -1):
            if run[i : i + size] in words.english:
                found.append(run[i : i + size])
                i += size
                break
        else:
            i += 1  # a character that starts no word of the list
    return found


@dataclass(frozen=True)
class Translation:
    """A query's words in the other language, grouped by the word they translate."""

    groups: list[tuple[str, tuple[str, ...]]]  # (an English word or a Chinese word, its words)
    english: list[str]  # from its Chinese runs
    chinese: list[str]  # from its English words

    @property
    def empty(self) -> bool:
        return not self.english and not self.chinese


def translate(english: list[str], cjk_runs: list[str], path: Path = WORD_LIST) -> Translation:
    """The other language's words for a query's English words and Chinese runs, without the
    words the query already has."""
    words = word_list(path)
    known = {*english, *cjk_runs}
    groups: list[tuple[str, tuple[str, ...]]] = []
    for run in cjk_runs:
        for zh in segment(run, words):
            groups.append((zh, tuple(w for w in words.english[zh] if w not in known)))
    for word in english:
        groups.append((word, tuple(zh for zh in chinese_words(word, words) if zh not in known)))
    groups = [(source, found) for source, found in groups if found]
    latin = [w for source, found in groups if not source.isascii() for w in found]
    cjk = [w for source, found in groups if source.isascii() for w in found]
    return Translation(groups, list(dict.fromkeys(latin)), list(dict.fromkeys(cjk)))

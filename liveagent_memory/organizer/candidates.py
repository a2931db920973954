"""Candidate pairs for the organizer: found by words and by meaning, judged by what differs.

Issue 15; docs/ARCHITECTURE.md "Where each rule lives". Within one (scope, project), never
across, two memories become a candidate pair in either of two ways:

- **by words**: their token sets (stemmed English words, CJK character bigrams, stop words
  dropped, negations said one way) overlap enough by Jaccard or containment, counted plainly
  and with tokens weighted by rarity in the scope (`compare`). Pairs are found without comparing
  every pair: a prefix-filtered inverted index (PPJoin, `overlapping_pairs`).
- **by meaning**: a `Meanings` source (retrieval/meanings.py: the local multilingual model)
  gives each memory's nearest others, in its own language and in the other. A pair is close in
  meaning when its cosine stands out from both memories' usual neighbours: margin = cos(a, b)
  / mean(a's k nearest, b's k nearest), the ratio margin of bitext mining (Artetxe & Schwenk,
  2019). Raw cosines of one model crowd together (organizer-dev.json: paraphrases 0.88-0.96,
  unrelated memories of one project up to 0.96); how much a pair stands out from its
  neighbourhood does not. Across languages the bar is higher.

Every pair found is judged by what differs (organizer/differences.py): a `Finding`. Only
duplicates may be merged, contradictions are shown to the person, different facts are left
alone. The offline planner (organizer/offline.py) groups the duplicates; the model organizer's
plan calls list the findings and its gate holds back merges of pairs kept apart
(organizer/plan_context.py). Plain Python, no I/O: the meanings
source is handed in.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from liveagent_memory.domain import config
from liveagent_memory.domain.text import CJK_CHARS, CJK_RUN
from liveagent_memory.organizer.decisions import OrganizerEntry
from liveagent_memory.organizer.differences import (
    Features,
    Judgement,
    Verdict,
    features,
    judge_features,
    same_negations,
)
from liveagent_memory.organizer.words import fold, stem
from liveagent_memory.store.text import STOP_WORDS, WORD, latin_text, run_bigrams

# Everything that is not a letter or digit of some script (whitespace, punctuation, symbols,
# underscores). Symbols go too, so Markdown emphasis or a full-width "＋" never hides a copy.
_NOT_WORD = re.compile(r"[\W_]+")
# The lowest similarity score (see `Overlap.score`) that can qualify: both rules start here.
_SCORE_FLOOR = min(
    config.OFFLINE_NEAR_MIN_JACCARD,
    (config.OFFLINE_CONTAINMENT_MIN_JACCARD + config.OFFLINE_CONTAINMENT_MIN) / 2,
)
# No pair under this Jaccard can qualify by either rule: the bound the prefix filter keeps exact.
MIN_JACCARD = min(config.OFFLINE_NEAR_MIN_JACCARD, config.OFFLINE_CONTAINMENT_MIN_JACCARD)
# Pairs looked at for a contradiction: a lower bar, since they are only shown, never merged.
_CANDIDATE_JACCARD = min(
    MIN_JACCARD, config.OFFLINE_CONTRADICTION_MIN_JACCARD, config.OFFLINE_JUDGED_MIN_JACCARD
)
_EPSILON = 1e-9  # float slack so that a bound met exactly is met
# Pairs under both these bars are neither merged by words nor shown as contradicting.
_JUDGED_JACCARD = (
    min(config.OFFLINE_CONTRADICTION_MIN_JACCARD, config.OFFLINE_JUDGED_MIN_JACCARD) - _EPSILON
)


def normalize(text: str) -> str:
    """Comparison form for exact duplicates: folded, only letters and digits kept."""
    return _NOT_WORD.sub("", fold(text))


def tokens(text: str) -> frozenset[str]:
    """Token set for near-duplicate comparison: stemmed words (no stop words), CJK bigrams."""
    return _folded_tokens(fold(text))


def _folded_tokens(folded: str) -> frozenset[str]:
    folded = same_negations(folded)  # 不要/别, never/don't: one meaning, one token
    out = {stem(word) for word in WORD.findall(latin_text(folded)) if word not in STOP_WORDS}
    for run in CJK_RUN.findall(folded):
        out.update(run_bigrams(run))
    return frozenset(out)


def _similar(jaccard: float, containment: float, shared: int) -> bool:
    contained = (
        containment >= config.OFFLINE_CONTAINMENT_MIN
        and jaccard >= config.OFFLINE_CONTAINMENT_MIN_JACCARD
        and shared >= config.OFFLINE_CONTAINMENT_MIN_SHARED
    )
    return jaccard >= config.OFFLINE_NEAR_MIN_JACCARD or contained


@dataclass(frozen=True)
class Overlap:
    """How one memory compares with another."""

    exact: bool
    jaccard: float
    containment: float
    shared: int
    # The same two figures with tokens weighted by rarity in the scope (see the module doc).
    weighted_jaccard: float = 1.0
    weighted_containment: float = 1.0

    @property
    def qualifies(self) -> bool:
        if self.exact:
            return True
        plain = _similar(self.jaccard, self.containment, self.shared)
        return plain and _similar(self.weighted_jaccard, self.weighted_containment, self.shared)

    @property
    def judged_alike(self) -> bool:
        """Alike enough to merge once the difference rules found nothing material: a lower
        bar than `qualifies`, which alone would take "the same sentence about two things"."""
        bar = config.OFFLINE_JUDGED_MIN_JACCARD - _EPSILON
        return self.jaccard >= bar and self.weighted_jaccard >= bar

    @property
    def score(self) -> float:
        """One similarity in 0..1 for ranking and confidence: mean of Jaccard and containment."""
        return 1.0 if self.exact else (self.jaccard + self.containment) / 2

    @property
    def confidence(self) -> float:
        if self.exact:
            return config.OFFLINE_EXACT_CONFIDENCE
        low, high = config.OFFLINE_NEAR_CONFIDENCE_MIN, config.OFFLINE_NEAR_CONFIDENCE_MAX
        share = (self.score - _SCORE_FLOOR) / (1.0 - _SCORE_FLOOR)
        return round(low + (high - low) * min(1.0, max(0.0, share)), 3)

    def describe(self) -> str:
        if self.exact:
            return "exact"
        return (
            f"similarity {self.score:.2f}: jaccard {self.jaccard:.2f}, "
            f"containment {self.containment:.2f}"
        )


@dataclass(frozen=True)
class Item:
    entry: OrganizerEntry
    key: str  # normalized text
    tokens: frozenset[str]

    @cached_property
    def features(self) -> Features:
        """What the difference rules read from it (only for the pairs that look alike)."""
        return features(f"{self.entry.description}\n{self.entry.body}")


def make_item(entry: OrganizerEntry) -> Item:
    folded = fold(f"{entry.description}\n{entry.body}")
    return Item(entry, _NOT_WORD.sub("", folded), _folded_tokens(folded))


class Rarity:
    """Token weights of one scope: log((N + 1) / (df + 1)), df counted without the pair itself.

    Leaving the compared pair out of the document frequency makes every weight equal when no
    other memory shares a token (a small store): the weighted figures then equal the plain ones.
    """

    def __init__(self, token_sets: Sequence[frozenset[str]]) -> None:
        self.count = len(token_sets)
        self.df: Counter[str] = Counter(token for tokens in token_sets for token in tokens)

    def weight(self, token: str, in_pair: int) -> float:
        others = max(0, self.df[token] - in_pair)
        return math.log((self.count + 1) / (others + 1))


def compare(a: Item, b: Item, rarity: Rarity | None = None) -> Overlap:
    """How alike two memories' words are (what differs in meaning is `differences`' part)."""
    common = a.tokens & b.tokens
    shared = len(common)
    union = len(a.tokens) + len(b.tokens) - shared
    smaller = min(len(a.tokens), len(b.tokens))
    jaccard = shared / union if union else 0.0
    containment = shared / smaller if smaller else 0.0
    weighted_jaccard, weighted_containment = jaccard, containment
    if rarity is not None and a.key != b.key:
        w_common = sum(rarity.weight(token, 2) for token in common)
        w_a = w_common + sum(rarity.weight(token, 1) for token in a.tokens - common)
        w_b = w_common + sum(rarity.weight(token, 1) for token in b.tokens - common)
        w_union = w_a + w_b - w_common
        weighted_jaccard = w_common / w_union if w_union else 0.0
        w_smaller = min(w_a, w_b)
        weighted_containment = w_common / w_smaller if w_smaller else 0.0
    return Overlap(
        exact=a.key == b.key,
        jaccard=jaccard,
        containment=containment,
        shared=shared,
        weighted_jaccard=weighted_jaccard,
        weighted_containment=weighted_containment,
    )


def overlapping_pairs(
    token_sets: Sequence[frozenset[str]], bound: float = MIN_JACCARD
) -> list[tuple[int, int]]:
    """Pairs with Jaccard >= `bound`, found without comparing every pair.

    PPJoin (Xiao et al., "Efficient similarity joins for near duplicate detection", 2008):
    sets are visited smallest first and their tokens ordered rarest first. Two sets with
    Jaccard >= t share a token among the first `n - ceil(t n) + 1` tokens of the later one
    (probed) and the first `n - ceil(2t/(1+t) n) + 1` of the earlier one (indexed), so common
    words are rarely looked up. The first shared token also bounds the overlap (what follows
    it in either set), which discards most pairs before their sets are intersected.
    """
    frequency = Counter(token for token_set in token_sets for token in token_set)
    # Tokens of one memory only can match nothing: they lead the order and are never looked
    # up. Ties in frequency may fall in any order: the pairs found do not depend on it.
    shared = sorted((t for t, count in frequency.items() if count > 1), key=frequency.__getitem__)
    rank = {token: r for r, token in enumerate(shared, start=1)}  # from 1: 0 would read as none
    sizes = [len(token_set) for token_set in token_sets]
    order = sorted(range(len(token_sets)), key=lambda i: (sizes[i], i))
    ratio = bound / (1 + bound)  # J >= t  <=>  shared >= t/(1+t) (|a| + |b|)
    index: list[list[tuple[int, int]]] = [[] for _ in range(len(rank) + 1)]  # (set, position)
    skip = [0] * (len(rank) + 1)  # per token: postings too small for every later probe
    pairs: list[tuple[int, int]] = []
    for i in order:
        mine, size = token_sets[i], sizes[i]
        ranked = sorted(filter(None, map(rank.get, mine)))
        single = size - len(ranked)  # positions taken by this memory's own tokens
        probe = size - math.ceil(bound * size - _EPSILON) + 1 - single
        indexed = size - math.ceil(2 * ratio * size - _EPSILON) + 1 - single
        shortest = bound * size - _EPSILON  # length filter: |other| >= t |mine|
        seen: set[int] = set()
        for position, token in enumerate(ranked[: max(0, probe)], start=single):
            postings = index[token]
            if not postings:
                if position - single < indexed:
                    postings.append((i, position))
                continue
            first = skip[token]
            while first < len(postings) and sizes[postings[first][0]] < shortest:
                first += 1  # postings grow in size order, and so does `shortest`
            skip[token] = first
            after = size - position - 1
            for j, their_position in postings[first:] if first else postings:
                if j in seen:
                    continue
                seen.add(j)
                theirs = sizes[j]
                need = ratio * (size + theirs) - _EPSILON
                left = theirs - their_position - 1
                if 1 + (after if after < left else left) < need:
                    continue  # positional filter: too little left after the first match
                if len(mine & token_sets[j]) >= need:
                    pairs.append((j, i) if j < i else (i, j))
            if position - single < indexed:
                postings.append((i, position))
    return sorted(pairs)


# --- by meaning ----------------------------------------------------------------------------------

LATIN, CJK = 0, 1  # the pools of `Meanings.nearest`: a memory's language
# [memory][pool] -> (position of another memory, cosine), most similar first.
Neighbours = Sequence[Sequence[Sequence[tuple[int, float]]]]


class Meanings(Protocol):
    """Nearest memories by meaning; retrieval/meanings.py implements it with the local model."""

    def prepare(
        self, memories: Sequence[OrganizerEntry], progress: Callable[[str], None]
    ) -> str | None:
        """Make the vectors of `memories` ready (blocking; what is new or changed is
        embedded, `progress` told); returns why there are no meanings, or None when ready."""
        ...

    def nearest(
        self, memories: Sequence[OrganizerEntry], pools: Sequence[int], k: int
    ) -> Neighbours | None:
        """For each of `memories` and each pool (0 .. max(pools)), its `k` most similar other
        memories of that pool, nearest first; None when there are no meanings."""
        ...


_CJK_CHAR = re.compile(f"[{CJK_CHARS}]")
_LATIN_LETTER = re.compile(r"[A-Za-z]")


def language(text: str) -> int:
    """`CJK` when the text is mostly Chinese (a CJK character says about what a Latin word
    does, so a third of the Latin letters is enough), else `LATIN`."""
    cjk = len(_CJK_CHAR.findall(text))
    return (
        CJK
        if cjk * config.MEANING_LETTERS_PER_CJK_CHAR >= len(_LATIN_LETTER.findall(text))
        else LATIN
    )


@dataclass(frozen=True)
class Closeness:
    """How close in meaning two memories are (see the module doc)."""

    cosine: float
    margin: float
    cross_lingual: bool

    @property
    def close(self) -> bool:
        bar = (
            config.MEANING_MIN_MARGIN_CROSS_LINGUAL
            if self.cross_lingual
            else config.MEANING_MIN_MARGIN
        )
        return bool(self.cosine >= config.MEANING_MIN_COSINE and self.margin >= bar - _EPSILON)

    @property
    def confidence(self) -> float:
        """A merge's confidence from the margin, in the near-duplicate band."""
        low, high = config.OFFLINE_NEAR_CONFIDENCE_MIN, config.OFFLINE_NEAR_CONFIDENCE_MAX
        bar = config.MEANING_MIN_MARGIN
        share = (self.margin - bar) / (config.MEANING_CONFIDENT_MARGIN - bar)
        return float(round(low + (high - low) * min(1.0, max(0.0, share)), 3))

    def describe(self) -> str:
        across = ", across languages" if self.cross_lingual else ""
        return f"meaning margin {self.margin:.3f}, cosine {self.cosine:.2f}{across}"


def _closeness(items: Sequence[Item], meanings: Meanings) -> dict[tuple[int, int], Closeness]:
    """The pairs each memory's nearest neighbours by meaning make, with their closeness."""
    pools = [language(f"{item.entry.description}\n{item.entry.body}") for item in items]
    found = meanings.nearest([item.entry for item in items], pools, config.MEANING_NEIGHBOURS)
    if found is None:
        return {}

    def usual(cosines: list[float]) -> float:
        nearest = sorted(cosines, reverse=True)[: config.MEANING_MARGIN_K]
        return sum(nearest) / len(nearest) if nearest else 1.0

    # A memory's usual neighbourhood in its scope (any language), and in each language: a pair
    # of one language is measured against the first (a language with a few memories in a
    # scope has no neighbourhood of its own), a pair across languages against the second.
    overall = [usual([c for near in per_pool for _j, c in near]) for per_pool in found]
    by_pool = [[usual([c for _j, c in near]) for near in per_pool] for per_pool in found]
    out: dict[tuple[int, int], Closeness] = {}
    for i, per_pool in enumerate(found):
        for near in per_pool:
            for j, cosine in near:
                key = (i, j) if i < j else (j, i)
                if key in out or i == j:
                    continue
                across = pools[i] != pools[j]
                if across:
                    neighbourhood = (by_pool[i][pools[j]] + by_pool[j][pools[i]]) / 2
                else:
                    neighbourhood = (overall[i] + overall[j]) / 2
                margin = cosine / neighbourhood if neighbourhood > 0 else 0.0
                out[key] = Closeness(cosine, margin, across)
    return out


# --- findings ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    """A candidate pair and what it is: the verdict by difference, and how alike it is."""

    first: Item
    second: Item
    judgement: Judgement
    overlap: Overlap
    meaning: Closeness | None = None  # None: not among each other's nearest by meaning

    @property
    def close_in_meaning(self) -> bool:
        return self.meaning is not None and self.meaning.close

    @property
    def duplicate(self) -> bool:
        """May be merged: nothing material differs, and the two are alike in words or
        close in meaning."""
        alike = self.overlap.qualifies or self.overlap.judged_alike or self.close_in_meaning
        return alike and self.judgement.verdict == Verdict.DUPLICATE

    @property
    def joins(self) -> bool:
        """May join a group through one of its members (organizer/offline.py): nothing
        material differs, and the two are nearer each other than their usual neighbours."""
        if self.judgement.verdict != Verdict.DUPLICATE:
            return False
        near = self.meaning is not None and self.meaning.margin >= config.MEANING_JOIN_MARGIN
        return self.duplicate or near

    @property
    def contradiction(self) -> bool:
        """To show the person: one subject, another number or a negated rule."""
        if self.judgement.verdict != Verdict.CONTRADICTION:
            return False
        bar = config.OFFLINE_CONTRADICTION_MIN_JACCARD - _EPSILON
        return self.overlap.jaccard >= bar or self.close_in_meaning

    @property
    def by_meaning(self) -> bool:
        """Alike by meaning rather than by words: what its reason and confidence say."""
        return self.close_in_meaning and not self.overlap.qualifies

    @property
    def score(self) -> float:
        """For ranking a group's members: exact copies, then by words, then by meaning."""
        if self.overlap.qualifies:
            return 1.0 + self.overlap.score
        return self.meaning.margin - 1.0 if self.meaning is not None else self.overlap.score - 1

    @property
    def confidence(self) -> float:
        return (
            self.meaning.confidence if self.by_meaning and self.meaning else self.overlap.confidence
        )

    def describe(self) -> str:
        """How alike the two are, in words for a reason."""
        return (
            self.meaning.describe() if self.by_meaning and self.meaning else self.overlap.describe()
        )


def findings(
    items: Sequence[Item], rarity: Rarity | None = None, meanings: Meanings | None = None
) -> list[Finding]:
    """Every candidate pair of `items` (one scope and project, no two with the same text),
    judged; in order of the pair's positions."""
    overlaps: dict[tuple[int, int], Overlap] = {}
    for a, b in overlapping_pairs([item.tokens for item in items], _CANDIDATE_JACCARD):
        overlap = compare(items[a], items[b], rarity)
        if overlap.qualifies or overlap.jaccard >= _JUDGED_JACCARD:
            overlaps[(a, b)] = overlap
    closeness = _closeness(items, meanings) if meanings is not None else {}
    out = []
    judged = {k for k, c in closeness.items() if c.close or c.margin >= config.MEANING_JOIN_MARGIN}
    for a, b in sorted(overlaps.keys() | judged):
        first, second = items[a], items[b]
        overlap = overlaps.get((a, b)) or compare(first, second, rarity)
        judgement = judge_features(first.features, second.features)
        out.append(Finding(first, second, judgement, overlap, closeness.get((a, b))))
    return out

"""Offline planner: exact and near-duplicate memories proposed as merges, with no model.

SPEC 4 offline mode. Within one (scope, project) - never across - memories are compared on
description + body:

- exact duplicates: equal after NFKC, casefold, and dropping whitespace, punctuation and symbols;
- near duplicates: their token sets (stemmed English words, CJK character bigrams, stop words
  dropped) share enough by Jaccard, or one is contained in the other (domain/config.py) -
  counted both plainly and with each token weighted by how rare it is among the other memories
  of the scope, and both must pass. So memories that share boilerplate but differ in what
  matters ("prefers tabs on the build server" / "prefers Vim keybindings on the build server")
  stay apart in a store full of such sentences, while in a small store (nothing is common yet)
  the weighted figures equal the plain ones.

Candidate pairs come from a prefix-filtered inverted index (PPJoin, see `_candidates`): tokens
are ordered rarest first and only the first ones of each memory are indexed, so common words
are rarely looked up, and yet no pair above the lowest Jaccard bound is missed.
Groups are stars around the best keeper: every member is itself a duplicate of the target, so
a chain of pairwise-similar memories (A~B, B~C) never merges two that are unrelated (A, C).

A pair whose words look alike is then judged by what differs (organizer/differences.py, issue
15): only duplicates are grouped; a contradiction (the same subject with another number, or a
rule and its negation) is never merged but returned beside the plans (`offline_proposals`) for
the run report; different facts (another name or environment) are left alone. Negations are
said one way in the token sets (不要/别 -> 不, never/don't -> not), so two texts forbidding the
same thing in other words still look alike.

Each group becomes one `merge_into` decision; the gate (`build_decisions`) judges it like any
model proposal. Plain Python, no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.risk import RiskLevel
from liveagent_memory.domain.text import CJK_RUN
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    OrganizerEntry,
    PlanDecision,
)
from liveagent_memory.organizer.differences import (
    Features,
    Judgement,
    Verdict,
    features,
    judge_features,
    same_negations,
)
from liveagent_memory.organizer.run_record import NoteCode, ReasonCode
from liveagent_memory.organizer.words import fold, stem
from liveagent_memory.store.text import STOP_WORDS, WORD, latin_text, run_bigrams

# Everything that is not a letter or digit of some script (whitespace, punctuation, symbols,
# underscores). Symbols go too, so Markdown emphasis or a full-width "＋" never hides a copy.
_NOT_WORD = re.compile(r"[\W_]+")
_CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}  # anything else ("unknown") ranks 0
# The lowest similarity score (see `_Pair.score`) that can qualify: both rules start here.
_SCORE_FLOOR = min(
    config.OFFLINE_NEAR_MIN_JACCARD,
    (config.OFFLINE_CONTAINMENT_MIN_JACCARD + config.OFFLINE_CONTAINMENT_MIN) / 2,
)
# No pair under this Jaccard can qualify by either rule: the bound the prefix filter keeps exact.
_MIN_JACCARD = min(config.OFFLINE_NEAR_MIN_JACCARD, config.OFFLINE_CONTAINMENT_MIN_JACCARD)
# Pairs looked at for a contradiction: a lower bar, since they are only shown, never merged.
_CANDIDATE_JACCARD = min(_MIN_JACCARD, config.OFFLINE_CONTRADICTION_MIN_JACCARD)
_EPSILON = 1e-9  # float slack so that a bound met exactly is met


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
class _Pair:
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
class _Item:
    entry: OrganizerEntry
    key: str  # normalized text
    tokens: frozenset[str]

    @cached_property
    def features(self) -> Features:
        """What the difference rules read from it (only for the pairs that look alike)."""
        return features(f"{self.entry.description}\n{self.entry.body}")


def _item(entry: OrganizerEntry) -> _Item:
    folded = fold(f"{entry.description}\n{entry.body}")
    return _Item(entry, _NOT_WORD.sub("", folded), _folded_tokens(folded))


@dataclass(frozen=True)
class Contradiction:
    """Two memories of one scope that say different things on one subject: shown, not merged."""

    first: OrganizerEntry
    second: OrganizerEntry
    judgement: Judgement

    def review_item(self) -> dict[str, Any]:
        """The run report's review item (run_record.py `NoteCode.CONTRADICTION`)."""
        first, second = self.first.slug, self.second.slug
        return {
            "phase": "planning",
            "kind": "review",
            "severity": "warning",
            "message": _clip(
                f"contradiction: {first} and {second} disagree ({self.judgement.describe()}); "
                "which one is current?",
                config.OFFLINE_REASON_MAX_CHARS,
            ),
            "code": NoteCode.CONTRADICTION,
            "slug": first,
            "params": {
                "first": first,
                "second": second,
                "differences": [d.to_dict() for d in self.judgement.differences],
            },
        }


@dataclass(frozen=True)
class OfflineProposals:
    """What the offline planner proposes: merges of duplicates, and contradictions to show."""

    plans: list[ClusterPlan]
    contradictions: list[Contradiction]


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


def compare(a: _Item, b: _Item, rarity: Rarity | None = None) -> _Pair:
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
    return _Pair(
        exact=a.key == b.key,
        jaccard=jaccard,
        containment=containment,
        shared=shared,
        weighted_jaccard=weighted_jaccard,
        weighted_containment=weighted_containment,
    )


def keeper_rank(entry: OrganizerEntry) -> tuple[int, int, int, int, str]:
    """Sort key, best keeper first: reviewed, surer, newer, longer; then by slug."""
    return (
        0 if entry.reviewed else 1,
        -_CONFIDENCE_RANK.get(entry.confidence, 0),
        -entry.updated_at,
        -len(entry.body),
        entry.slug,
    )


def offline_plans(entries: Sequence[OrganizerEntry]) -> list[ClusterPlan]:
    """Propose one merge per group of duplicate memories, per (scope, project)."""
    return offline_proposals(entries).plans


def offline_proposals(entries: Sequence[OrganizerEntry]) -> OfflineProposals:
    """One merge per group of duplicate memories, and the contradicting pairs, per (scope,
    project).

    Dailies are journals, not memories, and are never compared. The result is deterministic:
    the same entries in any order give the same plans in the same order.
    """
    partitions: dict[tuple[str, str], dict[str, OrganizerEntry]] = defaultdict(dict)
    for entry in sorted(entries, key=keeper_rank):
        if entry.type == "daily":
            continue
        # A slug appearing twice in one scope is not a state the store produces; keep the best.
        partitions[(entry.scope, entry.workdir_hash)].setdefault(entry.slug, entry)
    plans: list[ClusterPlan] = []
    contradictions: list[Contradiction] = []
    for (scope, workdir_hash), by_slug in sorted(partitions.items()):
        prefix = f"offline:{scope}:{workdir_hash or 'global'}"
        groups = _groups(list(by_slug.values()), contradictions)
        for number, (target, members) in enumerate(groups, start=1):
            plans.append(_plan(f"{prefix}:{number}", target, members))
    return OfflineProposals(plans, contradictions)


def _groups(
    entries: list[OrganizerEntry], contradictions: list[Contradiction]
) -> list[tuple[_Item, list[tuple[_Item, _Pair]]]]:
    """Stars of duplicates around the best keeper, best keepers first (`entries` is ranked).

    Pairs whose words look alike are judged by what differs (organizer/differences.py): only
    duplicates are grouped; a contradiction is added to `contradictions`, different facts are
    left alone.
    """
    # A memory with no letter or digit has nothing to compare.
    items = [item for item in map(_item, entries) if item.key]
    # Exact copies form one unit (in rank order); only a unit's first item is compared with
    # other units, so a thousand identical memories cost one comparison, not a million.
    units: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        units.setdefault(item.key, []).append(index)
    heads = [members[0] for members in units.values()]
    rarity = Rarity([items[head].tokens for head in heads])  # exact copies count once
    near: dict[str, set[str]] = defaultdict(set)
    for a, b in _candidates([items[head].tokens for head in heads], _CANDIDATE_JACCARD):
        first, second = items[heads[a]], items[heads[b]]
        pair = compare(first, second, rarity)
        alike = pair.qualifies
        if not alike and pair.jaccard < config.OFFLINE_CONTRADICTION_MIN_JACCARD - _EPSILON:
            continue  # only the prefix filter's bound: not alike enough to disagree
        judgement = judge_features(first.features, second.features)
        if alike and judgement.verdict == Verdict.DUPLICATE:
            near[first.key].add(second.key)
            near[second.key].add(first.key)
        elif judgement.verdict == Verdict.CONTRADICTION:
            contradictions.append(Contradiction(first.entry, second.entry, judgement))

    cap = config.OFFLINE_MAX_CLUSTER_ENTRIES - 1  # sources per group, beside the target
    taken: set[int] = set()
    groups: list[tuple[_Item, list[tuple[_Item, _Pair]]]] = []
    for index, item in enumerate(items):  # ranked order: the first free keeper leads
        if index in taken:
            continue
        free: list[tuple[_Pair, int]] = []
        for key in (item.key, *sorted(near[item.key])):
            # Within a unit the copies score alike, so the first `cap` free ones (best
            # keepers) are all a star could take from it.
            found = 0
            for other in units[key]:
                if found == cap:
                    break
                if other != index and other not in taken:
                    pair = compare(item, items[other], rarity)
                    if pair.qualifies:
                        free.append((pair, other))
                        found += 1
        if not free:
            continue
        # Exact copies first, then the closest, then the better keepers.
        free.sort(key=lambda match: (not match[0].exact, -match[0].score, match[1]))
        chosen = free[:cap]
        taken.add(index)
        taken.update(other for _pair, other in chosen)
        groups.append((item, [(items[other], pair) for pair, other in chosen]))
    return groups


def _candidates(
    token_sets: Sequence[frozenset[str]], bound: float = _MIN_JACCARD
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


def _plan(cluster_id: str, target: _Item, members: list[tuple[_Item, _Pair]]) -> ClusterPlan:
    sources = [item.entry for item, _pair in members]
    exact = all(pair.exact for _item, pair in members)
    kind = "exact" if exact else "near"
    slug = target.entry.slug
    if exact:
        reason = (
            f"exact duplicates of {slug} (similarity 1.00: equal after normalizing case, "
            f"width, whitespace and punctuation): {', '.join(entry.slug for entry in sources)}"
        )
    else:
        details = "; ".join(f"{item.entry.slug} ({pair.describe()})" for item, pair in members)
        reason = f"near duplicates of {slug} (token overlap): {details}"
    crossed = [entry for entry in sources if entry.type != target.entry.type]
    if crossed:  # the gate raises the risk (cross_type); the reviewer should see why
        kinds = ", ".join(f"{entry.slug} is {entry.type}" for entry in crossed)
        reason += f"; types differ: {slug} is {target.entry.type}, {kinds}"
    evidence = tuple(
        _clip(f"{entry.slug}: {_gist(entry)}", config.OFFLINE_EVIDENCE_MAX_CHARS)
        for entry in sources[: config.OFFLINE_EVIDENCE_MAX_ITEMS]
    )
    decision = PlanDecision(
        action="merge_into",
        target_slug=slug,
        source_slugs=tuple(entry.slug for entry in sources),
        risk_level=RiskLevel.LOW if exact else RiskLevel.MEDIUM,
        confidence=min(pair.confidence for _item, pair in members),
        reason=_clip(reason, config.OFFLINE_REASON_MAX_CHARS),
        preserved_evidence=evidence,
        reason_code=ReasonCode.EXACT_DUPLICATES if exact else ReasonCode.NEAR_DUPLICATES,
        reason_params=_reason_params(target.entry, members, crossed),
    )
    summary = f"offline: {len(sources)} {kind} duplicate(s) of {slug} proposed for merging"
    return ClusterPlan(
        cluster=Cluster(id=cluster_id, entries=(target.entry, *sources)),
        decisions=(decision,),
        summary=_clip(summary, config.OFFLINE_SUMMARY_MAX_CHARS),
    )


def _reason_params(
    target: OrganizerEntry, members: list[tuple[_Item, _Pair]], crossed: list[OrganizerEntry]
) -> dict[str, Any]:
    """The figures of a duplicates reason (run_record.py `ReasonCode`), for other languages."""
    params: dict[str, Any] = {"target": target.slug}
    if all(pair.exact for _item, pair in members):
        params["slugs"] = [item.entry.slug for item, _pair in members]
    else:
        params["pairs"] = [
            {
                "slug": item.entry.slug,
                "exact": pair.exact,
                "similarity": round(pair.score, 2),
                "jaccard": round(pair.jaccard, 2),
                "containment": round(pair.containment, 2),
            }
            for item, pair in members
        ]
    if crossed:
        params["targetType"] = target.type
        params["types"] = {entry.slug: entry.type for entry in crossed}
    return params


def _gist(entry: OrganizerEntry) -> str:
    """What a source says, in one line: its description, else headline, else body start."""
    for text in (entry.description, entry.headline, entry.body):
        line = " ".join(text.split())
        if line:
            return line
    return "(empty)"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."

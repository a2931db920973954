"""Progressive loading: index lines, then summaries and the timeline, then full bodies
(SPEC 6, REFERENCE B6), inside a strict token budget.

Layer 1 gives every candidate, best first, a one-line index entry while the budget allows: the
agent learns what exists and can fetch it by id. Layer 2 upgrades entries, best first, to their
summaries, then adds the episode timeline only if all of it fits (the reference overspent its
budget here, B10). Then the sufficiency rule decides whether full bodies are needed at all; if
so, layer 3 upgrades the most relevant entries to their full text where the budget allows.

Every piece of text carries its own line end and the token estimate is subadditive
(budget.py), so the sum of what the ledger spent bounds the tokens of the assembled text: the
budget is never exceeded, whatever the language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from liveagent_memory.domain import config
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.retrieval.budget import Budget

LAYER_NONE, LAYER_INDEX, LAYER_SUMMARY, LAYER_FULL = 0, 1, 2, 3


@dataclass
class Piece:
    """One candidate as the context can show it, at each layer (texts end with a newline)."""

    key: str
    kind: str
    score: float
    relevance: float
    index_text: str
    summary_text: str
    load_full: Callable[[], str]  # layer 3, read only when the piece may be shown in full
    layer: int = LAYER_NONE
    _full: str | None = field(default=None, repr=False)

    def full_text(self) -> str:
        if self._full is None:
            self._full = self.load_full()
        return self._full

    def text(self, layer: int | None = None) -> str:
        layer = self.layer if layer is None else layer
        if layer == LAYER_INDEX:
            return self.index_text
        if layer == LAYER_SUMMARY:
            return self.summary_text
        if layer == LAYER_FULL:
            return self.full_text()
        return ""

    def tokens(self, layer: int | None = None) -> int:
        return estimate_tokens(self.text(layer))


@dataclass(frozen=True)
class Sufficiency:
    """Whether summaries answer the query, and the rule that decided it."""

    sufficient: bool
    reason: str


_DETAIL_WORDS = tuple(word.casefold() for word in config.CONTEXT_DETAIL_WORDS)


def _asks_for_detail(query: str) -> str | None:
    text = query.casefold()
    for word in _DETAIL_WORDS:
        if re.match(r"[a-z]", word):
            if re.search(rf"(?<![a-z0-9_]){re.escape(word)}(?![a-z0-9_])", text):
                return word
        elif word in text:
            return word
    return None


def sufficiency(query: str, shown: int, *, force_full: bool) -> Sufficiency:
    """The sufficiency rule (REFERENCE B6, made explicit and with two changes):

    1. `force_full` → not sufficient: the caller wants full bodies.
    2. nothing shown → not sufficient (and there is nothing to expand).
    3. the query asks for detail (exactly, details, full, all, 详细, 完整 …) → not sufficient.
       The reference checks this after rule 4, so "all the details" was ignored whenever three
       entries were found; here the words always win.
    4. at least CONTEXT_SUFFICIENT_ENTRIES entries shown → sufficient.
    5. fewer → not sufficient: with one or two hits, their bodies are cheap and the summaries are
       all there is (the reference called this sufficient too).
    """
    if force_full:
        return Sufficiency(False, "force_full: full bodies were asked for")
    if shown == 0:
        return Sufficiency(False, "nothing relevant was found")
    word = _asks_for_detail(query)
    if word is not None:
        return Sufficiency(False, f"the query asks for detail ({word!r})")
    if shown >= config.CONTEXT_SUFFICIENT_ENTRIES:
        return Sufficiency(True, f"{shown} entries (at least {config.CONTEXT_SUFFICIENT_ENTRIES})")
    return Sufficiency(False, f"only {shown} found: their full bodies are loaded")


@dataclass
class Assembly:
    """What progressive loading chose: pieces with their layer set, the text, the tokens."""

    pieces: list[Piece]  # every candidate, best first; layer NONE = left out
    text: str
    tokens_spent: int  # the ledger's sum over the parts (>= the estimate of `text`)
    timeline_shown: bool
    sufficiency: Sufficiency
    layer_loads: dict[int, int]  # pieces shown at each layer


def assemble(
    pieces: Sequence[Piece],
    *,
    budget: int,
    header: str,
    sections: Sequence[tuple[str, str]],
    timeline: Callable[[list[str]], str | None] | None,
    query: str,
    force_full: bool,
) -> Assembly:
    """Fill the budget layer by layer.

    Args:
        pieces: candidates, best first.
        header: the context's first line(s); nothing is shown when not even it fits.
        sections: (kind, heading) in the order the kinds are shown; a heading costs tokens only
            once its kind shows a piece.
        timeline: makes the layer-2 timeline of the episodes shown (their keys); called only
            when an episode is shown, and its text is shown only whole.
    """
    ordered = list(pieces)
    for piece in ordered:
        piece.layer = LAYER_NONE
    ledger = Budget(budget)
    headings = dict(sections)
    opened: set[str] = set()
    timeline_shown = False
    timeline_text: str | None = None

    def show(piece: Piece, layer: int) -> bool:
        new = piece.tokens(layer)
        old = piece.tokens() if piece.layer != LAYER_NONE else 0
        opening = piece.layer == LAYER_NONE and piece.kind not in opened
        if opening:
            new += estimate_tokens(headings.get(piece.kind, ""))
        if not ledger.swap(old, new):
            return False
        piece.layer = layer
        opened.add(piece.kind)
        return True

    if ledger.take(estimate_tokens(header)):
        for piece in ordered:  # layer 1: the index
            show(piece, LAYER_INDEX)
        for piece in ordered:  # layer 2: summaries
            if piece.layer == LAYER_INDEX:
                show(piece, LAYER_SUMMARY)
        episodes = [
            p.key
            for p in ordered
            if p.layer != LAYER_NONE and p.kind == "episodic" and p.key.startswith("episode:")
        ]
        timeline_text = timeline(episodes) if timeline is not None and episodes else None
        if timeline_text:
            timeline_shown = ledger.take(estimate_tokens(timeline_text))
    shown = [p for p in ordered if p.layer != LAYER_NONE]
    verdict = sufficiency(query, len(shown), force_full=force_full)
    if not verdict.sufficient:
        for piece in shown:  # layer 3: full bodies of the most relevant
            if force_full or piece.relevance >= config.CONTEXT_HIGH_RELEVANCE:
                show(piece, LAYER_FULL)
    text = _render(header, sections, ordered, timeline_text if timeline_shown else None)
    loads = {layer: 0 for layer in (LAYER_INDEX, LAYER_SUMMARY, LAYER_FULL)}
    for piece in shown:
        loads[piece.layer] += 1
    return Assembly(ordered, text, ledger.used, timeline_shown, verdict, loads)


def _render(
    header: str, sections: Sequence[tuple[str, str]], pieces: Sequence[Piece], timeline: str | None
) -> str:
    if not any(p.layer != LAYER_NONE for p in pieces):
        return ""
    parts = [header]
    for kind, heading in sections:
        texts = [p.text() for p in pieces if p.kind == kind and p.layer != LAYER_NONE]
        if texts:
            parts.append(heading)
            parts.extend(texts)
            if kind == "episodic" and timeline:
                parts.append(timeline)
    return "".join(parts)

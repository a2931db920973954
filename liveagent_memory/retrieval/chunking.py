"""Long texts cut into the pieces that are embedded (REFERENCE B8 TextChunker, semantic).

A text up to `EMBEDDING_CHUNK_CHARS` is one piece, itself, so a short memory keeps its one
vector. A longer one is split into blocks, each ``` fence whole (to its closing fence, or to
the end when it has none) and the text between fences at its blank lines, and the blocks are
packed in order into pieces of at most `EMBEDDING_CHUNK_CHARS` characters. Each piece after the
first starts `EMBEDDING_CHUNK_OVERLAP` characters before the previous one ended, so a sentence
across a boundary is whole in one of them. Where a block does not fit beside that overlap but
fits alone, the overlap is shortened to what fits (a fence is never split for it); a block
longer than the limit alone, fence or not, is cut by B8's `chunk_fixed` (pieces of the limit,
each overlapping the last by the overlap).

Pieces are spans of the text, in order and covering all of it: the hit of any piece maps back
to its document (retrieval/vectors.py keeps a document's pieces together).
"""

from __future__ import annotations

import re

from liveagent_memory.domain import config

_FENCE = re.compile(r"^[ \t]*```", re.MULTILINE)
_BLANK_RUN = re.compile(r"\n[ \t]*\n\s*")  # one or more blank lines: a block ends after them

Span = tuple[int, int]


def chunk_text(
    text: str,
    *,
    size: int = config.EMBEDDING_CHUNK_CHARS,
    overlap: int = config.EMBEDDING_CHUNK_OVERLAP,
) -> list[str]:
    """The pieces of `text` to embed (see the module docstring); `[text]` when it is short."""
    return [text[start:end] for start, end in chunk_spans(text, size=size, overlap=overlap)]


def chunk_spans(
    text: str,
    *,
    size: int = config.EMBEDDING_CHUNK_CHARS,
    overlap: int = config.EMBEDDING_CHUNK_OVERLAP,
) -> list[Span]:
    """The (start, end) of each piece of `text`, in order."""
    if not 0 <= overlap < size:
        raise ValueError(f"the overlap must be at least 0 and below the size ({overlap}, {size})")
    if len(text) <= size:
        return [(0, len(text))]
    pieces: list[Span] = []
    start = end = 0
    fresh = False  # whether the open piece holds a block of its own, beyond its overlap
    for block_start, block_end in blocks(text):
        if block_end - start <= size:
            end, fresh = block_end, True
            continue
        if fresh:
            pieces.append((start, end))
            start, fresh = end - overlap, False
            if block_end - start <= size:
                end, fresh = block_end, True
                continue
        if block_end - block_start <= size:
            start = block_end - size  # a shorter overlap: the block stays whole
        else:
            while block_end - start > size:  # B8 chunk_fixed over a block too long alone
                pieces.append((start, start + size))
                start += size - overlap
        end, fresh = block_end, True
    if fresh:
        pieces.append((start, end))
    return pieces


def blocks(text: str) -> list[Span]:
    """`text` cut into consecutive spans: each fence whole, other text at its blank lines."""
    fences = _fences(text)
    cuts = {0, len(text)}
    for fence_start, fence_end in fences:
        cuts.update((fence_start, fence_end))
    for match in _BLANK_RUN.finditer(text):
        cut = match.end()
        if not any(fence_start < cut < fence_end for fence_start, fence_end in fences):
            cuts.add(cut)
    ordered = sorted(cuts)
    return [(a, b) for a, b in zip(ordered, ordered[1:], strict=False) if b > a]


def _fences(text: str) -> list[Span]:
    """Each ``` fence from its opening line to the end of its closing line (or of the text)."""
    marks = [match.start() for match in _FENCE.finditer(text)]
    spans: list[Span] = []
    for opening in range(0, len(marks), 2):
        if opening + 1 < len(marks):
            line_end = text.find("\n", marks[opening + 1])
            close = len(text) if line_end < 0 else line_end + 1
        else:
            close = len(text)  # never closed: the fence runs to the end
        spans.append((marks[opening], close))
    return spans

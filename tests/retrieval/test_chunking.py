"""Where long texts are cut for embedding (retrieval/chunking.py, REFERENCE B8 semantic)."""

from __future__ import annotations

import pytest

from liveagent_memory.domain import config
from liveagent_memory.retrieval.chunking import blocks, chunk_spans, chunk_text


def paragraph(letter: str, length: int) -> str:
    return (letter * (length - 1)) + "."


def test_a_short_text_is_one_piece_itself() -> None:
    text = "x" * config.EMBEDDING_CHUNK_CHARS
    assert chunk_text(text) == [text]
    assert chunk_text("") == [""]


def test_paragraphs_are_packed_and_each_piece_starts_with_the_overlap_exactly() -> None:
    text = "\n\n".join(paragraph(letter, 200) for letter in "abcdefgh")
    spans = chunk_spans(text, size=512, overlap=50)
    pieces = [text[a:b] for a, b in spans]
    assert all(len(piece) <= 512 for piece in pieces)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)  # all of it, in order
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert end - start == 50  # the overlap, exactly
    for before, after in zip(pieces, pieces[1:], strict=False):
        assert after[:50] == before[-50:]
    # Blocks end at blank lines: a piece ends at a paragraph's end, never inside one.
    assert all(text[a:b].endswith(".\n\n") or b == len(text) for a, b in spans)
    assert len(spans) == 4


def test_a_fence_is_kept_whole_even_if_the_overlap_must_shrink() -> None:
    fence = "```python\n" + "\n".join(f"print({i})" for i in range(45)) + "\n```\n"
    assert 400 < len(fence) < 512
    text = paragraph("a", 300) + "\n\n" + fence + "\n" + paragraph("b", 300)
    pieces = chunk_text(text, size=512, overlap=50)
    opening = [piece for piece in pieces if "```python" in piece]
    assert len(opening) == 1 and fence in opening[0]  # one piece holds the whole fence
    # (the next piece repeats only the overlap, the fence's last characters)
    assert all(len(piece) <= 512 for piece in pieces)
    assert pieces[0].startswith("aaa") and pieces[-1].endswith("b.")


def test_a_blank_line_inside_a_fence_does_not_cut_it() -> None:
    fence = "```\nfirst\n\nsecond\n```\n"
    text = "intro\n\n" + fence + "\noutro"
    assert text[slice(*blocks(text)[1])] == fence


def test_a_block_over_the_limit_alone_is_cut_into_fixed_overlapping_pieces() -> None:
    fence = "```\n" + "y" * 1200 + "\n```\n"
    text = paragraph("a", 100) + "\n\n" + fence
    spans = chunk_spans(text, size=512, overlap=50)
    assert all(b - a <= 512 for a, b in spans)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert end - start == 50
    assert spans[-1][1] == len(text)
    assert "".join(text[a + (50 if i else 0) : b] for i, (a, b) in enumerate(spans)) == text


def test_an_unclosed_fence_runs_to_the_end() -> None:
    text = "intro\n\n```\ncode\n\nmore code"
    assert [text[a:b] for a, b in blocks(text)] == ["intro\n\n", "```\ncode\n\nmore code"]


def test_an_overlap_as_large_as_the_size_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_spans("x" * 100, size=10, overlap=10)

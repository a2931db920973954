"""Signatures of experience: when two episodes met the same error or did the same thing.

This module holds the rule (docs/ARCHITECTURE.md "Where each rule lives") by which
consolidation (organizer/consolidate.py) recognises repeated experience (issue 18):

- an **error signature** is the error's type and its message with what changes from one run to
  the next masked: quoted values, paths and URLs, hex, ids and uuids, then numbers. So
  `KeyError: 'exp' in /src/a.py:12` and `KeyError: "iat" in /srv/b.py:40` are one error;
- an **action signature** is the sequence of an episode's steps, each its tool (casefolded) and
  its target masked the same way: `read_file src/a.py` and `read_file lib/b.py` are one step;
- an episode's **language** is Chinese when its goal or summary holds CJK text (the same test
  search and task detection use, domain/text.py), else English: a proposal is written in the
  language of its episodes, never translated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from liveagent_memory.domain.text import has_cjk

# Masks, applied in this order (a quoted path is one quoted value; a path's digits stay in it).
_MASKS = (
    (re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」"), "<q>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE), "<url>"),
    (
        re.compile(r"(?:[A-Za-z]:)?[\w.@+~-]*(?:[\\/][\w.@+~-]+)+[\\/]?|\b[\w.-]+\.[a-z]{1,4}\b"),
        "<path>",
    ),
    (
        re.compile(
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE
        ),
        "<id>",
    ),
    (
        re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b", re.I),
        "<hex>",
    ),
    (re.compile(r"\b[a-z]+(?:[-_][a-z]+)*[-_#]\d[\w-]*\b", re.IGNORECASE), "<id>"),
    (re.compile(r"\d+(?:[.,]\d+)*"), "<n>"),
)
_SPACES = re.compile(r"\s+")


def mask(text: str) -> str:
    """`text` with its changing parts masked, casefolded, its spaces collapsed."""
    out = text
    for pattern, placeholder in _MASKS:
        out = pattern.sub(placeholder, out)
    return _SPACES.sub(" ", out).strip().casefold()


def error_signature(error_type: str, message: str) -> str:
    """One error as every episode that met it says it: `type: masked message`."""
    kind = _SPACES.sub(" ", error_type).strip().casefold()
    text = mask(message)
    return f"{kind}: {text}" if kind and text else kind or text


def action_step(tool: str, target: str) -> str:
    """One step of an action signature: its tool and its masked target."""
    name = _SPACES.sub(" ", tool).strip().casefold()
    masked = mask(target)
    return f"{name} {masked}" if masked else name


def action_signature(steps: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The sequence of (tool, target) steps as one comparable key."""
    return tuple(action_step(tool, target) for tool, target in steps)


def is_chinese(texts: Sequence[str]) -> bool:
    """Whether texts about one lesson are Chinese: most of the non-empty ones hold CJK text."""
    said = [text for text in texts if text.strip()]
    return bool(said) and sum(has_cjk(text) for text in said) * 2 >= len(said)

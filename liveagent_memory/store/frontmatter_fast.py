"""The fast path of reading frontmatter: our own writer's layout, without the YAML parser.

`store/evidence.py` (the only reader of memory files) asks `fast_mapping` first. It reads the
frontmatter our renderer writes, line by line: one `key: value` per line for the known
top-level keys, a `source:` block of two-space indented `key: value` lines, `links:` as a flow
list. A value is a plain scalar or a JSON-style double-quoted one, typed exactly as our YAML
dialect types it (true/false, null, decimal integers; everything else is text). Anything else
(a comment, a line of spaces, a hand-added key, a daily's `sources:` list, a repeated key, a block
or multi-line value, an escape YAML reads differently from JSON, odd spacing) returns None,
and the full YAML parser reads the file. Whenever it returns a mapping, that mapping is what
the YAML parser would return (tests/store/test_frontmatter_fast.py compares both on every
shape we write and on files other tools wrote).
"""

from __future__ import annotations

import json
import re
from typing import Any

# Keys of the outer block, in the order LiveAgent writes them (store/evidence.py renders and
# parses them; they live here so this module needs nothing of it).
KNOWN_KEYS = (
    "name",
    "description",
    "type",
    "scope",
    "headline",
    "date",
    "createdAt",
    "updatedAt",
    "appendCount",
    "source",
    "sources",
    "links",
)
# The keys the fast path reads: all but the daily `sources:` list, whose nested items are left
# to YAML.
FAST_KEYS = frozenset(KNOWN_KEYS) - {"sources"}

_TOP_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_]*):(?: (.*))?\Z", re.DOTALL)
_SOURCE_LINE = re.compile(r"  ([A-Za-z][A-Za-z0-9_]*): (.*)\Z", re.DOTALL)
# A JSON-style double-quoted scalar whose escapes mean the same in YAML and JSON (`\/` and
# `\uD800`-`\uDFFF` are left to YAML: it reads the first as `/` too, but refuses surrogates)
# and whose raw characters YAML takes as they are (no C0, DEL, C1, line or paragraph
# separator, BOM, U+FFFE/F).
_QUOTED = re.compile(
    '"(?:[^"\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]'
    '|\\\\["\\\\bfnrt]|\\\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*"\\Z'
)
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = frozenset(("~", "null", "Null", "NULL"))
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?\Z", re.ASCII
)
# What a plain scalar may not hold for the fast path: YAML indicators at its start, `:` and
# `#` (YAML's mapping and comment marks), tabs and every character YAML treats as a break or
# refuses raw (C0, DEL, C1, U+2028/9, BOM, U+FFFE/F); inside a flow list, brackets and commas.
_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")
_PLAIN_BAD = re.compile("[:#\t\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_FLOW_BAD = re.compile("[\\[\\]{},]")
_FLOW_ITEM_SPLIT = ", "
_NO_VALUE = object()


def fast_mapping(fm_text: str) -> dict[str, Any] | None:
    """The frontmatter mapping when it has our writer's layout, else None (use YAML)."""
    data: dict[str, Any] = {}
    source: dict[str, Any] | None = None  # the open `source:` block
    for line in fm_text.split("\n"):
        if not line:
            continue  # an empty line (the split leaves one at each end) means nothing to YAML
        if source is not None and line.startswith("  "):
            match = _SOURCE_LINE.match(line)
            if match is None or match.group(1) in source or _typed_word(match.group(1)):
                return None  # (YAML would make `true:` a bool key, `null:` a None one)
            value = _scalar(match.group(2))
            if value is _NO_VALUE:
                return None
            source[match.group(1)] = value
            continue
        source = None
        match = _TOP_LINE.match(line)
        if match is None:
            return None
        key, raw = match.group(1), match.group(2)
        if key not in FAST_KEYS or key in data:
            return None
        if raw is None:
            if key != "source":
                return None
            source = data[key] = {}
            continue
        value = _flow_list(raw) if key == "links" else _scalar(raw)
        if value is _NO_VALUE:
            return None
        data[key] = value
    if isinstance(data.get("source"), dict) and not data["source"]:
        return None  # `source:` with nothing under it is null in YAML: leave it to YAML
    return data


def _typed_word(word: str) -> bool:
    return word in _BOOL or word in _NULL


def _scalar(raw: str) -> Any:
    """A one-line scalar as our YAML dialect reads it, or _NO_VALUE when unsure."""
    if not raw:
        return _NO_VALUE
    if raw[0] == '"':
        if _QUOTED.match(raw) is None:
            return _NO_VALUE
        return json.loads(raw)
    if raw in _BOOL:
        return _BOOL[raw]
    if raw in _NULL:
        return None
    if _INT.match(raw):
        return int(raw)
    if _TIMESTAMP.match(raw):
        return raw
    if raw[0] in _PLAIN_START or raw[-1] == " " or _PLAIN_BAD.search(raw):
        return _NO_VALUE
    return raw


def _flow_list(raw: str) -> Any:
    """`[]` or `[a, "b"]` with items our renderer writes; _NO_VALUE for anything else."""
    if raw == "[]":
        return []
    if len(raw) < 3 or raw[0] != "[" or raw[-1] != "]":
        return _NO_VALUE
    inner = raw[1:-1]
    if '"' in inner or ":" in inner:
        return _NO_VALUE  # a quoted item may hold ", ", a flow item ":": leave them to YAML
    if _FLOW_BAD.search(inner.replace(_FLOW_ITEM_SPLIT, "")):
        return _NO_VALUE
    items = [_scalar(item) for item in inner.split(_FLOW_ITEM_SPLIT)]
    if any(item is _NO_VALUE for item in items):
        return _NO_VALUE
    return items

"""Memory file format (store/evidence.py): round trip, LiveAgent compatibility, preservation,
errors, lenient reading and the confidence contract (SPEC 1.3-1.4, REFERENCE A2, A7)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liveagent_memory.domain import config
from liveagent_memory.domain.schema import Confidence, Evidence
from liveagent_memory.store.evidence import (
    BOM,
    SOURCE_KNOWN_KEYS,
    DocumentError,
    FrontMatter,
    MemoryDocument,
    apply_confidence_contract,
    apply_evidence,
    body_content,
    confidence_of,
    evidence_from_block,
    is_evidence_only,
    join_evidence,
    normalize_confidence,
    parse_document,
    read_evidence,
    render_document,
    render_evidence_block,
    split_evidence,
    yaml_scalar,
)
from liveagent_memory.store.frontmatter_fast import KNOWN_KEYS

# --------------------------------------------------------------------------------------------
# A tiny re-implementation of LiveAgent's line-oriented frontmatter reader (REFERENCE A2): one
# `key: value` per line, `source:` keys indented two spaces, daily `sources:` items as
# `  - key: value` / `    key: value`, double-quoted values unescaped (Rust Debug / JSON).

_RUST_ESCAPE = re.compile(r'\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|["\\/bfnrt0])')
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "0": "\0",
}


def line_value(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':

        def one(match: re.Match[str]) -> str:
            code = match.group(1)
            if code.startswith("u{"):
                return chr(int(code[2:-1], 16))
            if code.startswith("u"):
                return chr(int(code[1:], 16))
            return _SIMPLE_ESCAPES[code]

        return _RUST_ESCAPE.sub(one, raw[1:-1])
    return raw


def liveagent_read(text: str) -> dict[str, Any]:
    """Read the outer block line by line; fail on any line LiveAgent could not read."""
    lines = text.removeprefix(BOM).replace("\r\n", "\n").split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    data: dict[str, Any] = {}
    section: str | None = None
    item: dict[str, str] | None = None
    for line in lines[1:end]:
        top = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*): ?(.*)", line)
        if top:
            key, raw = top.groups()
            section = key if key in ("source", "sources") and raw == "" else None
            if section == "source":
                data["source"] = {}
            elif section == "sources":
                data["sources"] = []
            else:
                data[key] = line_value(raw)
            continue
        if section == "source":
            nested = re.fullmatch(r"  ([A-Za-z_][A-Za-z0-9_]*): (.*)", line)
            assert nested, f"LiveAgent cannot read source line {line!r}"
            data["source"][nested.group(1)] = line_value(nested.group(2))
            continue
        if section == "sources":
            first = re.fullmatch(r"  - ([A-Za-z_][A-Za-z0-9_]*): (.*)", line)
            more = re.fullmatch(r"    ([A-Za-z_][A-Za-z0-9_]*): (.*)", line)
            if first:
                item = {first.group(1): line_value(first.group(2))}
                data["sources"].append(item)
                continue
            assert more and item is not None, f"LiveAgent cannot read sources line {line!r}"
            item[more.group(1)] = line_value(more.group(2))
            continue
        raise AssertionError(f"LiveAgent cannot read line {line!r}")
    return data


def outer_keys(text: str) -> list[str]:
    """Top-level keys of the outer block, in file order."""
    lines = text.removeprefix(BOM).replace("\r\n", "\n").split("\n")
    end = lines.index("---", 1)
    return [m.group(1) for line in lines[1:end] if (m := re.match(r"([A-Za-z_]\w*):", line))]


# --------------------------------------------------------------------------------------------
# 1. Round trip (hypothesis)

TRICKY = [
    "",
    " ",
    "yes",
    "no",
    "on",
    "null",
    "Null",
    "~",
    "true",
    "False",
    "123",
    "-7",
    "+5",
    "0123",
    "0x1F",
    "1.5",
    "1e3",
    ".inf",
    "- x",
    "-",
    "[a]",
    "[a, b]",
    "{a: b}",
    "a: b",
    "key:value",
    "ends with colon:",
    "# not a comment",
    "a #b",
    "C#",
    "'single'",
    '"double"',
    'say "hi"',
    "it's",
    " lead",
    "trail ",
    "\ttab",
    "tab\tinside",
    "line\nbreak",
    "cr\rret",
    "crlf\r\nend",
    "sep\u2028line",
    "para\u2029sep",
    "nel\x85",
    "bell\x07",
    "nul\x00",
    "esc\x1b[0m",
    "del\x7f",
    "bom\ufeffmid",
    "\ufffe",
    "nbsp\u00a0",
    "\u3000全角空格",
    "用户偏好：简体中文",
    "中文 # 注释",
    "emoji 😀🎉",
    "👍",
    "cafe\u0301",
    "नमस्ते: hi",
    "---",
    "...",
    "|",
    "> folded",
    "&anchor",
    "*alias",
    "!tag",
    "!!int x",
    "%percent",
    "@at",
    "`tick`",
    "?q",
    ",comma",
    "a,b",
    "a]b",
    "{",
    "<<",
    "=",
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "2024-01-01\n",
    "back\\slash\\",
    "\\u0041",
    "\\u{41}",
]

tricky_text = st.one_of(
    st.sampled_from(TRICKY),
    st.text(max_size=24),
    st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=6)), max_size=4).map("".join),
)
stripped_text = tricky_text.map(str.strip)
nonempty_stripped = stripped_text.filter(bool)
timestamps = st.one_of(
    st.sampled_from(["2025-03-01T08:15:30.123Z", "2026-11-30T12:00:00Z", "2025-03-01"]),
    nonempty_stripped,
)
identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
scalars: st.SearchStrategy[Any] = st.one_of(
    tricky_text, st.integers(-(10**20), 10**20), st.booleans(), st.none()
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(tricky_text, inner, max_size=3)
    ),
    max_leaves=6,
)


def lf_only(text: str) -> str:
    """LF line ends (a lone CR may stay: it is text, not a line end)."""
    while "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text


def bodies() -> st.SearchStrategy[str]:
    content = st.one_of(
        tricky_text, st.text(max_size=200), st.sampled_from(["", "# Title\n\n- a\n- b"])
    ).map(lambda text: lf_only(text).strip())
    evidence = st.builds(
        Evidence,
        confidence=st.sampled_from([None, "high", "medium", "low", "bogus"]),
        source_quote=st.none() | tricky_text,
        reasoning=st.none() | tricky_text,
        aliases=st.lists(tricky_text, max_size=3).map(tuple),
    )

    def with_block(pair: tuple[str, Evidence | None]) -> str:
        text, ev = pair
        if ev is None:
            return text
        return apply_evidence(text, ev)[0]

    return st.tuples(content, st.none() | evidence).map(with_block)


@st.composite
def documents(draw: st.DrawFn) -> MemoryDocument:
    daily = draw(st.booleans())
    meta = FrontMatter(
        name=draw(stripped_text),
        description=draw(tricky_text),
        scope=draw(st.sampled_from(["global", "project"]) | stripped_text),
        headline=draw(tricky_text),
        date=draw(st.none() | timestamps),
        created_at=draw(st.none() | timestamps),
        updated_at=draw(st.none() | timestamps),
    )
    if daily:
        meta.type = "daily"
        meta.append_count = draw(st.integers(0, 10**6))
        items = []
        for _ in range(draw(st.integers(0, 3))):
            item = {"conversationId": draw(tricky_text)}
            for key in ("appendedAt", "trigger", "model"):
                if draw(st.booleans()):
                    item[key] = draw(tricky_text)
            for key in draw(st.lists(identifiers, max_size=2)):
                if key not in item:
                    item[key] = draw(tricky_text)
            items.append(item)
        meta.sources = items
    else:
        kinds = st.sampled_from(["user", "feedback", "project", "reference"])
        meta.type = draw(kinds | stripped_text.filter(lambda t: t != "daily"))
        source: dict[str, Any] = {"trigger": draw(nonempty_stripped | kinds)}
        for key in ("conversationId", "model", "risk_flag"):
            if draw(st.booleans()):
                source[key] = draw(tricky_text.filter(bool))
        source["unreviewed"] = draw(st.booleans())
        extra_keys = draw(st.lists(tricky_text, max_size=3))
        for key in extra_keys:
            if key not in SOURCE_KNOWN_KEYS:
                source[key] = draw(values)
        meta.source = source
    meta.links = draw(st.lists(st.one_of(tricky_text, st.integers()), max_size=3))
    for key in draw(st.lists(identifiers, max_size=3, unique=True)):
        if key in KNOWN_KEYS:
            continue
        value = draw(tricky_text)
        meta.extra[key] = value
        meta.extra_blocks.append(f"{key}: {yaml_scalar(value)}")
    return MemoryDocument(
        meta=meta, body=draw(bodies()), bom=draw(st.booleans()), crlf=draw(st.booleans())
    )


@settings(deadline=None)
@given(documents())
def test_every_field_round_trips_and_renders_identically(doc: MemoryDocument) -> None:
    # The contract of the format layer: whatever the store hands in comes back unchanged
    # (descriptions are folded to one line by rules.normalize_description, not here). The
    # renderer's only normalizations are the ones the generator respects: name/type/scope/date/
    # createdAt/updatedAt are read stripped, an empty description/headline or an empty
    # conversationId/model/risk_flag is left out, a body is stored trimmed with LF line ends.
    text = render_document(doc)
    back = parse_document(text)
    assert back.meta == doc.meta
    assert back.body == doc.body
    assert (back.bom, back.crlf, back.lenient, back.has_frontmatter) == (
        doc.bom,
        doc.crlf,
        False,
        True,
    )
    assert render_document(back) == text


@settings(deadline=None)
@given(documents())
def test_liveagent_line_reader_understands_every_rendered_file(doc: MemoryDocument) -> None:
    # Keys a person added by hand (outer block or source) are theirs to shape.
    doc.meta.extra, doc.meta.extra_blocks = {}, []
    doc.meta.source = {k: v for k, v in doc.meta.source.items() if k in SOURCE_KNOWN_KEYS}
    text = render_document(doc)
    if doc.crlf:
        assert "\n" not in text.replace("\r\n", "")
    assert text.startswith(BOM) is doc.bom
    seen = liveagent_read(text)  # fails on any line that is not `key: value` shaped
    meta = doc.meta
    assert seen["name"] == meta.name
    assert seen.get("description", "") == meta.description
    assert (seen["type"], seen["scope"]) == (meta.type, meta.scope)
    assert seen.get("headline", "") == meta.headline
    assert seen.get("date") == meta.date
    assert (seen.get("createdAt"), seen.get("updatedAt")) == (meta.created_at, meta.updated_at)
    if meta.type == "daily":
        assert seen["appendCount"] == str(meta.append_count)
        assert [item["conversationId"] for item in seen["sources"]] == [
            item["conversationId"] for item in meta.sources
        ]
        for got, want in zip(seen["sources"], meta.sources, strict=True):
            for key in ("appendedAt", "trigger", "model"):
                if key in want:
                    assert got[key] == want[key]
    else:
        for key in ("trigger", "conversationId", "model", "risk_flag"):
            if key in meta.source:
                assert seen["source"][key] == meta.source[key]
        assert seen["source"]["unreviewed"] == ("true" if meta.source["unreviewed"] else "false")
    order = [k for k in KNOWN_KEYS if k in seen]
    assert outer_keys(text) == order  # REFERENCE A2 field order


@settings(deadline=None)
@given(st.text(max_size=300))
def test_parse_never_fails_with_anything_but_document_error(text: str) -> None:
    # SPEC 1.1: a file that cannot be parsed is reported (DocumentError), never crashes reconcile.
    for candidate in (text, "---\n" + text + "\n---\nbody", "---\nname: x\n" + text + "\n---\n"):
        try:
            doc = parse_document(candidate)
        except DocumentError as exc:
            assert exc.reason
            continue
        render_document(doc)  # whatever was read can be written back


@pytest.mark.parametrize(
    "yaml_text",
    [
        "name: !!int abc",
        "name: !!float abc",
        "name: !!timestamp nope",
        "name: !!bool maybe",
        "links: &a [*a]",
        "a: &x [1, 2]\nb: *x",
        "name: " + "[" * 2000 + "]" * 2000,
    ],
)
def test_unreadable_yaml_values_are_read_line_by_line_not_crashing(yaml_text: str) -> None:
    doc = parse_document(f"---\n{yaml_text}\n---\nbody")
    assert doc.lenient is True
    assert doc.body == "body"
    render_document(doc)


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        ("plain words", "plain words"),
        ("用户偏好", "用户偏好"),
        ("2025-03-01", "2025-03-01"),
        ("2025-03-01T08:15:30.123Z", "2025-03-01T08:15:30.123Z"),
        ("a: b", '"a: b"'),
        ("C# tips", '"C# tips"'),
        (" padded ", '" padded "'),
        ("yes", "yes"),  # not typed in our dialect, and LiveAgent writes it plain too
        ("null", '"null"'),
        ("123", '"123"'),
        ("true", '"true"'),
        ("[a]", '"[a]"'),
        ("- x", '"- x"'),
        ("", '""'),
        ("line\nbreak", '"line\\nbreak"'),
        ("sep\u2028", '"sep\\u2028"'),
        ("2025-03-01\n", '"2025-03-01\\n"'),
        ('say "hi"', 'say "hi"'),
    ],
)
def test_yaml_scalar_quotes_only_when_needed(value: str, rendered: str) -> None:
    assert yaml_scalar(value) == rendered


# --------------------------------------------------------------------------------------------
# 2. LiveAgent compatibility: files exactly as LiveAgent's Rust renderer writes them

LIVEAGENT_FEEDBACK = """---
name: prefers-pnpm
description: "Package manager: pnpm, never npm"
type: feedback
scope: global
createdAt: 2025-03-01T08:15:30.123Z
updatedAt: 2025-03-02T09:00:00Z
source:
  trigger: extractor
  conversationId: conv-42
  model: claude-sonnet-4
  risk_flag: low
  unreviewed: true
links: []
---

---
confidence: medium
auto_downgraded: true
source_quote: "use pnpm"
reasoning: "User said \\"use pnpm\\" twice: once per repo"
aliases: ["pnpm", "package manager"]
conflicts_with: []
supersedes: "old-npm-note"
override_reject: ""
---

Always use pnpm for installs.

- pnpm install
- pnpm add -D
"""

LIVEAGENT_PROJECT = """---
name: build-steps
description: How the project is built
type: project
scope: project
headline: Build
createdAt: 2025-01-10T10:00:00Z
updatedAt: 2025-01-10T10:00:00Z
source:
  trigger: user
  unreviewed: false
links: []
---

Run `make build`.
"""

LIVEAGENT_DAILY = """---
name: daily-2025-03-01
type: daily
scope: global
headline: 2025-03-01
date: 2025-03-01
createdAt: 2025-03-01T08:00:00Z
updatedAt: 2025-03-01T18:30:00Z
appendCount: 2
sources:
  - conversationId: conv-1
    appendedAt: 2025-03-01T08:00:00Z
    trigger: end
    model: ""
  - conversationId: conv-2
    appendedAt: 2025-03-01T18:30:00Z
    trigger: end
    model: claude-sonnet-4
links: []
---

## 08:00

Started the migration.

## 18:30

Finished it.
"""


def test_liveagent_feedback_file_parses_to_the_right_values() -> None:
    doc = parse_document(LIVEAGENT_FEEDBACK)
    meta = doc.meta
    assert (meta.name, meta.type, meta.scope) == ("prefers-pnpm", "feedback", "global")
    assert meta.description == "Package manager: pnpm, never npm"
    assert meta.created_at == "2025-03-01T08:15:30.123Z"
    assert meta.updated_at == "2025-03-02T09:00:00Z"
    assert meta.source == {
        "trigger": "extractor",
        "conversationId": "conv-42",
        "model": "claude-sonnet-4",
        "risk_flag": "low",
        "unreviewed": True,
    }
    assert meta.unreviewed is True and meta.risk_flag == "low"
    assert meta.links == [] and meta.extra == {} and not doc.lenient
    evidence = read_evidence(doc.body)
    assert evidence.confidence == "medium" and evidence.auto_downgraded is True
    assert evidence.source_quote == "use pnpm"
    assert evidence.reasoning == 'User said "use pnpm" twice: once per repo'
    assert evidence.aliases == ["pnpm", "package manager"]
    assert evidence.conflicts_with == []
    assert evidence.supersedes == "old-npm-note" and evidence.override_reject == ""
    assert (
        body_content(doc.body) == "Always use pnpm for installs.\n\n- pnpm install\n- pnpm add -D"
    )
    assert confidence_of(doc.body) is Confidence.MEDIUM


def test_liveagent_daily_file_parses_to_the_right_values() -> None:
    meta = parse_document(LIVEAGENT_DAILY).meta
    assert (meta.name, meta.type, meta.headline, meta.date) == (
        "daily-2025-03-01",
        "daily",
        "2025-03-01",
        "2025-03-01",
    )
    assert meta.append_count == 2
    assert meta.sources == [
        {
            "conversationId": "conv-1",
            "appendedAt": "2025-03-01T08:00:00Z",
            "trigger": "end",
            "model": "",
        },
        {
            "conversationId": "conv-2",
            "appendedAt": "2025-03-01T18:30:00Z",
            "trigger": "end",
            "model": "claude-sonnet-4",
        },
    ]
    assert meta.source == {} and meta.unreviewed is False


@pytest.mark.parametrize("text", [LIVEAGENT_FEEDBACK, LIVEAGENT_PROJECT, LIVEAGENT_DAILY])
def test_liveagent_files_re_render_byte_for_byte(text: str) -> None:
    doc = parse_document(text)
    assert render_document(doc) == text
    crlf = BOM + text.replace("\n", "\r\n")
    assert render_document(parse_document(crlf)) == crlf


@pytest.mark.parametrize("text", [LIVEAGENT_FEEDBACK, LIVEAGENT_PROJECT, LIVEAGENT_DAILY])
def test_liveagent_reader_reads_our_rewrite_of_its_files(text: str) -> None:
    rewritten = render_document(parse_document(text))
    assert liveagent_read(rewritten) == liveagent_read(text)
    assert outer_keys(rewritten) == outer_keys(text)


@pytest.mark.parametrize(
    ("raw_line", "description"),
    [
        # LiveAgent quotes only for ':', '#' and edge spaces; everything else is written plain,
        # so YAML-looking words must still come back as the text LiveAgent meant.
        ("description: yes", "yes"),
        ("description: null", "null"),
        ("description: ~", "~"),
        ("description: TRUE", "TRUE"),
        ("description: 123", "123"),
        ("description: +5", "+5"),
        ("description: 0123", "0123"),
        ("description: 1.5", "1.5"),
        ("description: [draft]", "[draft]"),
        ("description: [WIP] new parser", "[WIP] new parser"),
        ("description: {x}", "{x}"),
        ("description: - x", "- x"),
        ("description: 'quoted'", "quoted"),
        ('description: "a: b"', "a: b"),
        ('description: "C# and F#"', "C# and F#"),
        ('description: " edge "', " edge "),
        ('description: "tab\\there"', "tab\there"),
        ('description: "nul\\0end: x"', "nul\0end: x"),
        ('description: "cafe\\u{301}: menu"', "cafe\u0301: menu"),
        ('description: "नमस्\\u{94d}ते: hi"', "नमस्\u094dते: hi"),
        ('description: "smile \\u{1f600}: yes"', "smile \U0001f600: yes"),
        ("description: 用户偏好：简体中文", "用户偏好：简体中文"),
    ],
)
def test_liveagent_plain_and_debug_quoted_descriptions(raw_line: str, description: str) -> None:
    text = f"---\nname: x\n{raw_line}\ntype: user\nscope: global\nlinks: []\n---\n\nbody\n"
    doc = parse_document(text)
    assert doc.meta.description == description
    assert doc.meta.type == "user" and doc.body == "body"
    again = parse_document(render_document(doc))
    assert again.meta.description == description and not again.lenient


def test_liveagent_debug_escapes_in_a_lenient_evidence_block_are_read() -> None:
    body = (
        '---\nconfidence: high\nauto_downgraded: true\nsource_quote: "caf\\u{e9}: ok"\n'
        'reasoning: "r\\u{301}: x"\naliases: ["a, b", "c"]\nconflicts_with: ["d"]\n---\n\ntext'
    )
    view = read_evidence(body)
    assert view.confidence == "high" and view.auto_downgraded is True
    assert view.source_quote == "café: ok"
    assert view.reasoning == "r\u0301: x"
    assert view.aliases == ["a, b", "c"]
    assert view.conflicts_with == ["d"]


# --------------------------------------------------------------------------------------------
# 3. Preservation, errors and lenient reading

HAND_EDITED = """---
name: hand-edited
description: Written by LiveAgent, then edited by hand
type: user
scope: global
source:
  trigger: user
  unreviewed: false
  reviewer: alice
  reviewed_on: 2025-04-01
links: []
# my own tags
tags:
  - alpha
  - beta  # inline comment
owner: bob  # who owns this
priority: 3
nested:
  deep:
    value: 1
  # inner comment
  other: [1, 2]
flag: yes
"quoted: key": kept
-dash-key: kept too
url:with:colons: kept as well
# trailing note about flag
---

---
confidence: high
source_quote: "I am a hand edit"
reasoning: ""
aliases: []
conflicts_with: []
supersedes: ""
override_reject: ""
my_note: keep me  # please
review:
  by: alice
---

Body text.
"""

HAND_BLOCKS = [
    "# my own tags\ntags:\n  - alpha\n  - beta  # inline comment",
    "owner: bob  # who owns this",
    "priority: 3",
    "nested:\n  deep:\n    value: 1\n  # inner comment\n  other: [1, 2]",
    "flag: yes",
    '"quoted: key": kept',
    "-dash-key: kept too",
    "url:with:colons: kept as well\n# trailing note about flag",
]


def test_hand_added_keys_survive_a_rewrite_verbatim() -> None:
    doc = parse_document(HAND_EDITED)
    assert doc.meta.extra == {
        "tags": ["alpha", "beta"],
        "owner": "bob",
        "priority": 3,
        "nested": {"deep": {"value": 1}, "other": [1, 2]},
        "flag": "yes",
        "quoted: key": "kept",
        "-dash-key": "kept too",
        "url:with:colons": "kept as well",
    }
    assert doc.meta.extra_blocks == HAND_BLOCKS
    text = render_document(doc)
    for block in HAND_BLOCKS:
        assert block in text
    again = parse_document(text)
    assert again.meta == doc.meta and again.body == doc.body
    assert render_document(again) == text


def test_hand_added_source_keys_survive_with_their_values() -> None:
    doc = parse_document(HAND_EDITED)
    assert doc.meta.source["reviewer"] == "alice"
    assert doc.meta.source["reviewed_on"] == "2025-04-01"
    text = render_document(doc)
    assert "\n  reviewer: alice\n" in text and "\n  reviewed_on: 2025-04-01\n" in text
    assert parse_document(text).meta.source == doc.meta.source


def test_hand_added_source_values_of_every_shape_keep_their_value() -> None:
    text = (
        "---\nname: x\ntype: user\nscope: global\nsource:\n  trigger: user\n  unreviewed: true\n"
        "  tags: [a, 'b, c', '[d]']\n  meta:\n    k: v, w\n    n: 2\n  note: 'x: y'\n"
        "links: []\n---\n\nbody\n"
    )
    doc = parse_document(text)
    expected = {
        "trigger": "user",
        "unreviewed": True,
        "tags": ["a", "b, c", "[d]"],
        "meta": {"k": "v, w", "n": 2},
        "note": "x: y",
    }
    assert doc.meta.source == expected
    assert parse_document(render_document(doc)).meta.source == expected


def test_hand_added_evidence_keys_survive_apply_evidence() -> None:
    old_body = parse_document(HAND_EDITED).body
    new_body, confidence, downgraded = apply_evidence(
        "New content.",
        Evidence(confidence="high", source_quote="a long enough quote"),
        previous_body=old_body,
    )
    assert (confidence, downgraded) == (Confidence.HIGH, False)
    block, content = split_evidence(new_body)
    assert block is not None and content == "New content."
    assert "my_note: keep me  # please" in block
    assert "review:\n  by: alice" in block
    assert block.count("confidence:") == 1
    assert read_evidence(new_body).source_quote == "a long enough quote"


def test_bom_and_crlf_survive_a_rewrite() -> None:
    text = BOM + LIVEAGENT_PROJECT.replace("\n", "\r\n")
    doc = parse_document(text)
    assert doc.bom and doc.crlf
    assert "\r" not in doc.body and doc.meta.name == "build-steps"
    doc.body = "Changed.\nTwo lines."
    out = render_document(doc)
    assert out.startswith(BOM + "---\r\n")
    assert "\n" not in out.replace("\r\n", "")
    assert out.endswith("Changed.\r\nTwo lines.\r\n")


def test_plain_lf_file_without_bom_stays_so() -> None:
    doc = parse_document(LIVEAGENT_PROJECT)
    assert not doc.bom and not doc.crlf
    out = render_document(doc)
    assert "\r" not in out and not out.startswith(BOM)


@pytest.mark.parametrize(
    "text", ["Just a body.\n", "\n\n# Title\n\nText\n", "", BOM + "Body\r\nline 2\r\n"]
)
def test_file_without_frontmatter_is_body_only(text: str) -> None:
    doc = parse_document(text)
    assert doc.has_frontmatter is False
    assert doc.meta == FrontMatter()
    assert doc.body == text.removeprefix(BOM).replace("\r\n", "\n").strip()


@pytest.mark.parametrize(
    ("text", "reason_part"),
    [
        ("---\nname: x\ntype: user\n\nbody without a closing line\n", "not closed"),
        ("---\n- a\n- b\n---\nbody\n", "mapping"),
        ("---\njust text\n---\nbody\n", "mapping"),
        ("---\nname: x\ndescription:\n  - a\n  - b\n---\nbody\n", "'description'"),
        ("---\nname: x\ndescription:\n  a: b\n---\nbody\n", "'description'"),
        ("---\nname:\n  - x\n---\nbody\n", "'name'"),
        ("---\nname: x\nsource: tool\n---\nbody\n", "'source'"),
        ("---\nname: x\nsources: conv-1\n---\nbody\n", "'sources'"),
        ("---\nname: x\nappendCount: many\n---\nbody\n", "'appendCount'"),
        ("---\nname: x\nappendCount: 1.5\n---\nbody\n", "'appendCount'"),
    ],
)
def test_unusable_frontmatter_raises_document_error_with_a_reason(
    text: str, reason_part: str
) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(text)
    assert reason_part in caught.value.reason
    assert str(caught.value) == caught.value.reason


def test_invalid_yaml_liveagent_accepts_is_read_leniently() -> None:
    text = (
        "---\nname: lenient-one\ndescription: a: b # c\ntype: project\nscope: project\n"
        "source:\n  trigger: tool\n  conversationId: c: 1\n  unreviewed: true\nlinks: []\n"
        "---\n\nbody\n"
    )
    doc = parse_document(text)
    assert doc.lenient is True
    assert doc.meta.description == "a: b # c"
    assert (doc.meta.name, doc.meta.type, doc.meta.scope) == ("lenient-one", "project", "project")
    assert doc.meta.source == {"trigger": "tool", "conversationId": "c: 1", "unreviewed": True}
    again = parse_document(render_document(doc))
    assert not again.lenient and again.meta == doc.meta


def test_tab_indented_lines_are_read_leniently() -> None:
    text = (
        "---\nname: tabbed\ntype: user\nscope: global\nsource:\n\ttrigger: user\n"
        "\tunreviewed: true\nlinks: []\n---\n\nbody\n"
    )
    doc = parse_document(text)
    assert doc.lenient is True
    assert doc.meta.source == {"trigger": "user", "unreviewed": True}
    assert doc.meta.unreviewed is True


def test_lenient_daily_sources_are_read() -> None:
    text = LIVEAGENT_DAILY.replace("headline: 2025-03-01", "headline: day: one")
    doc = parse_document(text)
    assert doc.lenient is True
    assert doc.meta.headline == "day: one"
    assert [s["conversationId"] for s in doc.meta.sources] == ["conv-1", "conv-2"]
    assert doc.meta.sources[0]["model"] == ""
    assert doc.meta.append_count == 2


def test_frontmatter_properties() -> None:
    meta = FrontMatter(source={"unreviewed": "true", "risk_flag": ""})
    assert meta.unreviewed is False  # only a real boolean counts
    assert meta.risk_flag is None
    meta = FrontMatter(source={"unreviewed": True, "risk_flag": "low"})
    assert meta.unreviewed is True and meta.risk_flag == "low"


def test_render_fills_liveagent_defaults() -> None:
    doc = MemoryDocument(FrontMatter(name="n-1", type="user", scope="global"), body="  b  ")
    text = render_document(doc)
    assert text == (
        "---\nname: n-1\ntype: user\nscope: global\nsource:\n  trigger: tool\n"
        "  unreviewed: false\nlinks: []\n---\n\nb\n"
    )
    daily = MemoryDocument(
        FrontMatter(name="daily-2025-01-01", type="daily", scope="global", sources=[{}]), body=""
    )
    assert render_document(daily) == (
        '---\nname: daily-2025-01-01\ntype: daily\nscope: global\nheadline: ""\n'
        'appendCount: 0\nsources:\n  - conversationId: ""\nlinks: []\n---\n\n\n'
    )


@pytest.mark.parametrize(
    ("meta", "body", "expected_meta", "expected_body"),
    [
        # name/type/scope/date/createdAt/updatedAt are identifiers or times: read stripped
        (
            FrontMatter(name=" n ", type=" user ", scope=" global ", date=" 2025-01-01 "),
            "b",
            FrontMatter(name="n", type="user", scope="global", date="2025-01-01"),
            "b",
        ),
        # empty optional source fields are left out; a missing trigger is `tool`; unreviewed
        # is a real boolean
        (
            FrontMatter(
                name="n", type="user", source={"conversationId": "", "model": None, "unreviewed": 1}
            ),
            "b",
            FrontMatter(name="n", type="user", source={"trigger": "tool", "unreviewed": False}),
            "b",
        ),
        # appendCount and sources belong to daily files only
        (
            FrontMatter(name="n", type="user", append_count=3, sources=[{"conversationId": "c"}]),
            "b",
            FrontMatter(name="n", type="user", source={"trigger": "tool", "unreviewed": False}),
            "b",
        ),
        # a daily source without a conversationId gets an empty one (LiveAgent's shape)
        (
            FrontMatter(name="daily-x", type="daily", sources=[{"trigger": "end"}]),
            "b",
            FrontMatter(
                name="daily-x", type="daily", sources=[{"conversationId": "", "trigger": "end"}]
            ),
            "b",
        ),
        # the body is stored trimmed
        (FrontMatter(name="n", type="user"), "\n\n  body  \n\n", None, "body"),
    ],
)
def test_renderer_normalizations(
    meta: FrontMatter, body: str, expected_meta: FrontMatter | None, expected_body: str
) -> None:
    back = parse_document(render_document(MemoryDocument(meta, body)))
    if expected_meta is not None:
        if expected_meta.type != "daily" and not expected_meta.source:
            expected_meta.source = {"trigger": "tool", "unreviewed": False}
        assert back.meta == expected_meta
    assert back.body == expected_body


# --------------------------------------------------------------------------------------------
# 4. Confidence contract (SPEC 1.4, REFERENCE A7)


@pytest.mark.parametrize(
    ("raw", "quote", "applied", "downgraded"),
    [
        ("high", "hello", Confidence.HIGH, False),
        ("high", "I prefer tabs over spaces", Confidence.HIGH, False),
        ("HIGH", "hello", Confidence.HIGH, False),
        (" high ", "hello", Confidence.HIGH, False),
        ("high", "abcd", Confidence.MEDIUM, True),
        ("high", "a", Confidence.MEDIUM, True),
        ("high", "  abcd  ", Confidence.MEDIUM, True),
        ("high", "", Confidence.LOW, True),
        ("high", "   \t\n ", Confidence.LOW, True),
        ("medium", "x", Confidence.MEDIUM, False),
        ("medium", "", Confidence.LOW, True),
        ("medium", "   ", Confidence.LOW, True),
        ("low", "", Confidence.LOW, False),
        ("low", "a very long quote indeed", Confidence.LOW, False),
        ("unknown", "a very long quote indeed", Confidence.LOW, False),
        ("certain", "a very long quote indeed", Confidence.LOW, False),
        ("", "hello", Confidence.LOW, False),
        (None, "hello", Confidence.LOW, False),
        ("high", "用户偏好中", Confidence.HIGH, False),  # 5 characters, 15 bytes
        ("high", "用户偏好", Confidence.MEDIUM, True),  # 4 characters, 12 bytes
        ("high", "😀😀😀😀😀", Confidence.HIGH, False),
        ("medium", "好", Confidence.MEDIUM, False),
    ],
)
def test_confidence_contract(
    raw: str | None, quote: str, applied: Confidence, downgraded: bool
) -> None:
    assert apply_confidence_contract(raw, quote) == (applied, downgraded)
    body, got, flag = apply_evidence("content", Evidence(confidence=raw, source_quote=quote))
    assert (got, flag) == (applied, downgraded)
    view = read_evidence(body)
    assert view.confidence == applied.value
    assert view.auto_downgraded is downgraded
    assert ("auto_downgraded: true" in body) is downgraded
    assert confidence_of(body) is applied


def test_contract_thresholds_come_from_config() -> None:
    assert (config.HIGH_MIN_QUOTE_CHARS, config.MEDIUM_MIN_QUOTE_CHARS) == (5, 1)


def test_render_evidence_block_exact_text() -> None:
    block, confidence, downgraded = render_evidence_block(
        Evidence(
            confidence="high",
            source_quote='  say "hi"  ',
            reasoning="two\nlines",
            aliases=("a", "", "b: c"),
            conflicts_with=("x",),
            supersedes="old-slug",
        )
    )
    assert (confidence, downgraded) == (Confidence.HIGH, False)
    assert block == (
        "confidence: high\n"
        'source_quote: "say \\"hi\\""\n'
        'reasoning: "two lines"\n'
        'aliases: ["a", "b: c"]\n'
        'conflicts_with: ["x"]\n'
        'supersedes: "old-slug"\n'
        'override_reject: ""'
    )


def test_apply_evidence_replaces_an_existing_block_never_doubles_it() -> None:
    first, _, _ = apply_evidence("content", Evidence(confidence="high", source_quote="12345"))
    second, confidence, _ = apply_evidence(first, Evidence(confidence="medium", source_quote="q"))
    assert confidence is Confidence.MEDIUM
    assert second.count("confidence:") == 1 and second.count("---") == 2
    assert body_content(second) == "content"
    assert read_evidence(second).source_quote == "q"
    third, _, _ = apply_evidence(second, Evidence(confidence="medium", source_quote="q"))
    assert third == second


def test_apply_evidence_clips_and_flattens() -> None:
    long_quote = "字" * 100
    evidence = Evidence(
        confidence="high",
        source_quote=long_quote,
        reasoning="r\r\n" * 200,
        aliases=tuple(f"alias-{i}\nline" for i in range(12)),
        conflicts_with=("c" * 300,),
        supersedes="s" * 300,
        override_reject="o\ro" + "o" * 300,
    )
    body, confidence, downgraded = apply_evidence("content", evidence)
    assert (confidence, downgraded) == (Confidence.HIGH, False)
    view = read_evidence(body)
    assert view.source_quote == "字" * config.MAX_QUOTE_CHARS == "字" * 80
    assert len(view.reasoning) == config.MAX_REASONING_CHARS == 240
    assert "\n" not in view.reasoning and "\r" not in view.reasoning
    assert view.reasoning.startswith("r r r")
    assert view.aliases == [f"alias-{i} line" for i in range(8)]
    assert view.conflicts_with == ["c" * 240]
    assert view.supersedes == "s" * 240
    assert view.override_reject.startswith("o o") and len(view.override_reject) == 240
    block = split_evidence(body)[0]
    assert block is not None and len(block.strip().split("\n")) == 7  # one line per key


def test_apply_evidence_drops_blank_list_items_and_keeps_content() -> None:
    body, _, _ = apply_evidence(
        "\n\n# Title\n\ntext\n\n", Evidence(confidence="low", aliases=("  ", "", "x"))
    )
    assert body_content(body) == "# Title\n\ntext"
    assert read_evidence(body).aliases == ["x"]


def test_apply_evidence_without_content_is_an_evidence_only_body() -> None:
    body, _, _ = apply_evidence("", Evidence(confidence="medium", source_quote="quote"))
    assert body.startswith("---\nconfidence: medium\n") and body.endswith("\n---")
    assert is_evidence_only(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('---\nconfidence: high\nsource_quote: "hello"\n---', True),
        ("---\nconfidence: high\n---\n\n", True),
        ("---\nconfidence: high\n---\n\ncontent", False),
        ("---\n---", False),
        ("plain content", False),
        ("", False),
        ("---\nunclosed block", False),
    ],
)
def test_is_evidence_only(body: str, expected: bool) -> None:
    assert is_evidence_only(body) is expected


def test_read_evidence_without_a_block_is_unknown() -> None:
    view = read_evidence("Just content.")
    assert view.confidence == "unknown" and view.source_quote == "" and view.aliases == []
    assert confidence_of("Just content.") is Confidence.UNKNOWN
    assert confidence_of("") is Confidence.UNKNOWN


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("high", Confidence.HIGH),
        ("Medium", Confidence.MEDIUM),
        ("'low'", Confidence.LOW),
        ('"high"', Confidence.HIGH),
        ("garbage", Confidence.UNKNOWN),
        (None, Confidence.UNKNOWN),
        (3, Confidence.UNKNOWN),
        ("unknown", Confidence.UNKNOWN),
    ],
)
def test_normalize_confidence_reads_stored_values(value: object, expected: Confidence) -> None:
    assert normalize_confidence(value) is expected
    if isinstance(value, str):
        assert confidence_of(f"---\nconfidence: {value}\n---\n\nx") is expected


def test_read_evidence_of_scalar_lists_and_odd_values() -> None:
    body = "---\nconfidence: HIGH\naliases: single\nauto_downgraded: yes\nsource_quote: 12345\n---"
    view = read_evidence(body)
    assert view.confidence == "high"
    assert view.aliases == ["single"]
    assert view.auto_downgraded is False  # only a real `true` counts
    assert view.source_quote == "12345"


def test_evidence_from_block_round_trips_through_render() -> None:
    evidence = Evidence(
        confidence="medium",
        source_quote="the user said so",
        reasoning="because: reasons # really",
        aliases=("one", "two, three"),
        conflicts_with=("other-slug",),
        supersedes="older",
        override_reject="not a duplicate",
    )
    block, _, _ = render_evidence_block(evidence)
    assert evidence_from_block(block) == evidence
    empty = evidence_from_block("confidence: ''\n")
    assert empty == Evidence()


def test_join_and_split_evidence() -> None:
    assert join_evidence(None, "  text  ") == "text"
    assert join_evidence("  ", "text") == "text"
    assert join_evidence("confidence: low", "") == "---\nconfidence: low\n---"
    joined = join_evidence("confidence: low\n", "\ntext\n")
    assert joined == "---\nconfidence: low\n---\n\ntext"
    block, content = split_evidence(joined)
    assert block is not None and block.strip() == "confidence: low" and content == "text"
    assert split_evidence("no block") == (None, "no block")
    assert split_evidence("---\nunclosed") == (None, "---\nunclosed")


@settings(deadline=None)
@given(
    content=st.text(max_size=80).map(str.strip),
    confidence=st.sampled_from([None, "high", "medium", "low", "x"]),
    quote=st.text(max_size=100),
    aliases=st.lists(st.text(max_size=30), max_size=10),
)
def test_apply_evidence_property(
    content: str, confidence: str | None, quote: str, aliases: list[str]
) -> None:
    if content.startswith("---"):
        content = "x" + content  # a leading `---` line would be read as a block of its own
    evidence = Evidence(confidence=confidence, source_quote=quote, aliases=tuple(aliases))
    body, applied, downgraded = apply_evidence(content, evidence)
    assert (applied, downgraded) == apply_confidence_contract(confidence, quote)
    assert body_content(body) == content
    view = read_evidence(body)
    assert view.confidence == applied.value
    flat = quote.strip().replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    assert view.source_quote == flat[: config.MAX_QUOTE_CHARS]
    assert len(view.aliases) <= config.MAX_EVIDENCE_LIST_ITEMS
    again, _, _ = apply_evidence(body, evidence)
    assert again == body  # applying twice changes nothing: the block is replaced, not doubled
    assert json.dumps(view.to_dict(), ensure_ascii=False)

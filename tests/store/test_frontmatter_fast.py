"""The fast frontmatter reader gives exactly what the full YAML parser gives (issue 17).

`parse_document(text)` reads our writer's layout with store/frontmatter_fast.py and falls back
to YAML for anything else; `parse_document(text, fast=False)` always uses YAML. Both must give
the same document (compared by repr, so True and 1 or "1" and 1 differ) on every shape our
renderer writes and on files other tools wrote; and the fast path must really take our shapes.
"""

from __future__ import annotations

import random

import pytest

from liveagent_memory.store.evidence import (
    DocumentError,
    FrontMatter,
    MemoryDocument,
    _load_yaml,
    _split,
    parse_document,
    render_document,
)
from liveagent_memory.store.frontmatter_fast import fast_mapping

TRICKY_TEXTS = (
    "plain words",
    "中文的描述，带标点。",
    "mixed 中文 and English",
    "emoji 🙂 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "עברית ومرحبا",
    "colon: inside",
    "ends with colon:",
    "a#hash",
    "a #comment-like",
    "- leading dash",
    "-dash",
    "'single quoted'",
    '"double quoted"',
    'say "hi"',
    "it's",
    "  edge spaces  ",
    "trailing space ",
    "tab\tinside",
    "line one\nline two",
    "crlf\r\nline",
    "back\\slash",
    "slash/ok",
    "ctrl\x01char",
    "del\x7fchar",
    "nel\x85char",
    "sep\u2028char",
    "bom\ufeffchar",
    "nonchar\ufffe",
    "true",
    "False",
    "NULL",
    "~",
    "12",
    "-0",
    "+5",
    "0x1F",
    "1_000",
    "1.5",
    ".inf",
    "yes",
    "on",
    "2026-11-30",
    "2026-11-30T12:00:00.000Z",
    "2026-11-30 12:00:00",
    "12:30",
    "[draft]",
    "{x}",
    "a, b",
    "&anchor",
    "*alias",
    "!tag",
    "%percent",
    "@at",
    "`tick`",
    "|pipe",
    ">fold",
    "?question",
    "= equals",
    "<<",
    "",
)

LINK_LISTS: tuple[list[object], ...] = (
    [],
    ["a", "b"],
    ["with, comma", "x"],
    [1, True, None],
    ["true", "12"],
    ["中文", "emoji 🙂"],
    ["a: b"],
    [["nested"]],
    [{"k": "v"}],
)

SOURCE_EXTRAS: tuple[dict[str, object], ...] = (
    {},
    {"conversationId": "conv-1", "model": "gpt-4o"},
    {"risk_flag": "low"},
    {"lifecycle": "organize", "confidence": "high"},
    {"custom": 12, "flag": True, "nothing": None},
    {"list": ["a", "b"], "map": {"k": 1}},
    {"weird": "colon: value", "quote": 'say "x"', "cjk": "中文"},
    {"true": "as key"},
)


def same(text: str) -> MemoryDocument | None:
    """Parse both ways; assert they agree (document or DocumentError reason)."""
    try:
        full = parse_document(text, fast=False)
    except DocumentError as exc:
        with pytest.raises(DocumentError) as fast_error:
            parse_document(text)
        assert fast_error.value.reason == exc.reason
        return None
    quick = parse_document(text)
    assert repr(quick) == repr(full), text
    assert quick == full
    return quick


def rendered(**fields: object) -> str:
    meta = FrontMatter(
        name=str(fields.pop("name", "some-memory")),
        description=str(fields.pop("description", "A description")),
        type=str(fields.pop("type", "reference")),
        scope=str(fields.pop("scope", "global")),
        created_at="2026-11-30T12:00:00.000Z",
        updated_at="2026-11-30T12:30:00.000Z",
        source={"trigger": "tool", "unreviewed": True},
    )
    for key, value in fields.items():
        setattr(meta, key, value)
    return render_document(MemoryDocument(meta, "The body.\n\nSecond paragraph: with colon."))


def fast_taken(text: str) -> bool:
    fm, _ = _split(text.lstrip("\ufeff").replace("\r\n", "\n"))
    assert fm is not None
    mapping = fast_mapping(fm)
    if mapping is not None:
        assert repr(mapping) == repr({str(k): v for k, v in _load_yaml(fm).items()})
    return mapping is not None


@pytest.mark.parametrize("value", TRICKY_TEXTS)
def test_every_description_and_headline_we_write_reads_the_same_both_ways(value: str) -> None:
    for text in (rendered(description=value), rendered(headline=value, type="project")):
        same(text)


def test_the_shapes_we_write_take_the_fast_path() -> None:
    plain = [v for v in TRICKY_TEXTS if v and "\x85" not in v and "\u2028" not in v]
    taken = [v for v in plain if fast_taken(rendered(description=v))]
    # Everything our renderer writes plainly or JSON-quoted is read fast; only text with
    # characters YAML reads differently from JSON (none of these) would go to YAML.
    assert taken == plain
    for links in LINK_LISTS[:2]:
        assert fast_taken(rendered(links=links))
    for extra in SOURCE_EXTRAS[:4]:
        meta_source = {"trigger": "tool", "unreviewed": False, **extra}
        assert fast_taken(rendered(source=meta_source))
    assert fast_taken(rendered(description="x", headline="head", date="2026-11-30"))
    doc = parse_document(rendered(description='中文 🙂: "q" #1\nsecond line'))
    assert doc.meta.description == '中文 🙂: "q" #1\nsecond line' and not doc.lenient


@pytest.mark.parametrize("links", LINK_LISTS)
def test_links_we_write_read_the_same_both_ways(links: list[object]) -> None:
    same(rendered(links=links))


@pytest.mark.parametrize("extra", SOURCE_EXTRAS)
def test_source_blocks_we_write_read_the_same_both_ways(extra: dict[str, object]) -> None:
    same(rendered(source={"trigger": "user", "unreviewed": False, **extra}))


def test_a_journal_and_hand_added_keys_go_to_yaml_and_read_the_same() -> None:
    daily = FrontMatter(
        name="daily-2026-11-30",
        type="daily",
        scope="global",
        date="2026-11-30",
        append_count=2,
        sources=[{"conversationId": "c1", "appendedAt": "2026-11-30T12:00:00.000Z"}],
    )
    text = render_document(MemoryDocument(daily, "- one\n- two"))
    assert not fast_taken(text)
    same(text)
    extra = rendered(extra_blocks=["owner: someone", "# a comment\ntags:\n  - a\n  - b"])
    assert not fast_taken(extra)
    doc = same(extra)
    assert doc is not None and doc.meta.extra == {"owner": "someone", "tags": ["a", "b"]}


OTHER_TOOLS = (
    "---\nname: x\ndescription: 'single quoted: yes'\ntype: user\n---\nbody\n",
    "---\nname: x\n# a comment\ndescription: d\n---\nbody\n",
    "---\nname: x\n\ndescription: blank line above\n---\nbody\n",
    "---\nname: x\ndescription: d # trailing comment\n---\nbody\n",
    "---\nname: x\ndescription:  two spaces\n---\nbody\n",
    "---\nname: x\ndescription: trailing spaces   \n---\nbody\n",
    "---\nname: x\ndescription: >\n  folded\n  text\n---\nbody\n",
    "---\nname: x\ndescription: |\n  literal\n---\nbody\n",
    "---\nname: x\ndescription: continued\n  on the next line\n---\nbody\n",
    "---\nname: x\nname: y\n---\nbody\n",
    "---\nname: x\nsource:\n    trigger: user\n    unreviewed: true\n---\nbody\n",
    "---\nname: x\nsource:\n  trigger: user\n   odd: indent\n---\nbody\n",
    "---\nname: x\nsource:\n---\nbody\n",
    "---\nname: x\nsource: {trigger: user, unreviewed: true}\n---\nbody\n",
    "---\nname: x\nsource:\n  trigger: user\n  trigger: tool\n---\nbody\n",
    "---\nname: x\nlinks:\n  - a\n  - b\n---\nbody\n",
    "---\nname: x\nlinks: [a,b]\n---\nbody\n",
    "---\nname: x\nlinks: [ a , b ]\n---\nbody\n",
    "---\nname: x\nlinks: a\n---\nbody\n",
    "---\nname: x\nlinks: [2026-11-30T12:00:00Z]\n---\nbody\n",
    "---\nname: &a x\ndescription: *a\n---\nbody\n",
    "---\nname: !!str 12\nappendCount: !!int x\n---\nbody\n",
    "---\nname: x\nappendCount: 0x10\n---\nbody\n",
    "---\nname: x\nappendCount: 99999999999999999999\n---\nbody\n",
    '---\nname: x\ndescription: "\\ud83d\\ude00"\n---\nbody\n',
    '---\nname: x\ndescription: "a\\/b \\x41 \\e"\n---\nbody\n',
    '---\nname: x\ndescription: "unclosed\n---\nbody\n',
    "---\nname: x\ndescription: tab\there\n---\nbody\n",
    "---\nname: x\ndescription: null\nheadline: TRUE\n---\nbody\n",
    "---\nname: x\nscope: project\ntype: feedback\nunknown: 1\n---\nbody\n",
    "---\n- a list\n- not a mapping\n---\nbody\n",
    "---\n---\nempty frontmatter\n",
    "---\nname: x\n",
    "no frontmatter at all\n",
    "\ufeff---\r\nname: x\r\ndescription: bom and crlf\r\n---\r\nbody\r\n",
    "---\nname: x\ndescription: ...\n---\nbody\n",
    "---\nname: x\ntrue: yes\n---\nbody\n",
    "---\nname: x\n  indented: first\n---\nbody\n",
    "---\r\nname: x\rdescription: lone cr\n---\nbody\n",
)


@pytest.mark.parametrize("text", OTHER_TOOLS)
def test_files_other_tools_wrote_read_the_same_both_ways(text: str) -> None:
    same(text)


POOL = "ab Z09:#,-'\"[]{}&*!|>?%@`~\\/\t\n\x01\x7f\x85\u2028\ufeff中文🙂 é"


def test_random_values_in_every_field_read_the_same_both_ways() -> None:
    rng = random.Random(1717)
    keys = ("name", "description", "type", "scope", "headline", "date", "createdAt", "links")
    for _ in range(1500):
        value = "".join(rng.choice(POOL) for _ in range(rng.randint(0, 12)))
        key = rng.choice(keys)
        # As our renderer writes it, and as a raw line another tool might write.
        same(rendered(description=value, headline=value[::-1]))
        raw_line = value.replace("\n", " ")
        same(f"---\nname: some-memory\n{key}: {raw_line}\nsource:\n  k: {raw_line}\n---\nb\n")

"""Memory file format: the only reader and writer of frontmatter and the evidence block.

A memory file is YAML frontmatter (the reference's fields and order, REFERENCE A2) followed by
a body whose optional leading `---` block is the evidence (confidence, quote, reasoning, ...).
The confidence contract (SPEC 1.4, REFERENCE A7) is enforced here and nowhere else.

Compatibility rules kept by the renderer:
- one `key: value` per line, `source:` keys indented two spaces, daily `sources:` as a list,
  so LiveAgent's line-oriented reader understands every file we write;
- values are valid YAML either way (plain when safe, JSON-style double quotes otherwise);
- keys a person added by hand are re-emitted verbatim, a BOM and CRLF line ends are kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from liveagent_memory.domain import config
from liveagent_memory.domain.schema import Confidence, Evidence, EvidenceView, MemoryType
from liveagent_memory.store.frontmatter_fast import KNOWN_KEYS, fast_mapping

BOM = "\ufeff"

SOURCE_KNOWN_KEYS = ("trigger", "conversationId", "model", "risk_flag", "unreviewed")
DAILY_SOURCE_KEYS = ("conversationId", "appendedAt", "trigger", "model")
EVIDENCE_KEYS = (
    "confidence",
    "auto_downgraded",
    "source_quote",
    "reasoning",
    "aliases",
    "conflicts_with",
    "supersedes",
    "override_reject",
)


class DocumentError(ValueError):
    """A memory file cannot be understood; `reason` says why (shown to the person)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------------------------
# YAML dialect: only true/false, null and decimal integers are typed; everything else is text.
# (PyYAML's default YAML 1.1 rules would turn `yes` into True, `0123` into 83 and ISO dates
# into datetime objects, so a rewrite would change what a person wrote.)


# LibYAML's C parser when PyYAML has it (7x faster per file); the resolvers below are ours.
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[valid-type, misc]
    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # LiveAgent never writes anchors. An alias (`*name`) in a hand-edited file builds a
        # recursive or exponentially shared value that breaks rendering, so it is refused and
        # the file is read line by line instead, as LiveAgent reads it.
        if node in self.constructed_objects:
            raise yaml.constructor.ConstructorError(
                None, None, "aliases are not supported", node.start_mark
            )
        return super().construct_object(node, deep)


_Loader.yaml_implicit_resolvers = {}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)

_HANDLER = YAMLHandler()


# What SafeConstructor raises on explicit tags it cannot honour (`!!int x`, `!!int ''`, ...).
_CONSTRUCTOR_FAILURES = (
    ValueError,
    TypeError,
    AttributeError,
    LookupError,
    ArithmeticError,
    RecursionError,
)


def _load_yaml(text: str) -> Any:
    """Load YAML in our dialect; anything unreadable (a bad `!!int x` tag too) is a YAMLError."""
    try:
        return yaml.load(text, Loader=_Loader)  # _Loader derives from SafeLoader
    except yaml.YAMLError:
        raise
    except _CONSTRUCTOR_FAILURES as exc:
        raise yaml.YAMLError(f"unreadable value: {exc}") from exc


# Characters YAML cannot carry raw inside a double-quoted scalar: non-printables, and the
# Unicode line breaks that YAML 1.1 would fold.
_YAML_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
)


def _quoted(value: str) -> str:
    """Return `value` as a JSON-style double-quoted scalar (valid YAML, escapes all unsafe)."""
    text = json.dumps(value, ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_TIMESTAMP = re.compile(
    r"^\d{4}-\d{2}-\d{2}"
    r"(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?\Z",
    re.ASCII,
)


_PLAIN_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_TYPED_PLAIN = re.compile(
    r"^(?:true|True|TRUE|false|False|FALSE|~|null|Null|NULL|[-+]?(?:0|[1-9][0-9]*))$"
)


def yaml_scalar(value: str) -> str:
    """Render text as a YAML scalar: plain when that is unambiguous, else double-quoted.

    Plain means: no leading indicator, no `:` or `#` (LiveAgent's own quoting rule), no edge
    spaces or control characters, and not a word our YAML dialect would type (true, null, 12).
    """
    if _TIMESTAMP.match(value):
        return value  # dates and times stay plain, as LiveAgent writes them
    if (
        value == ""
        or value[0] in _PLAIN_INDICATORS
        or value != value.strip()
        or ":" in value
        or "#" in value
        or any(c in value for c in "\n\r\t\x85")
        or _YAML_UNSAFE.search(value)
        or _TYPED_PLAIN.match(value)
    ):
        return _quoted(value)
    return value


def _yaml_value(value: Any, *, flow: bool = False) -> str:
    """Render any value on one line (flow style) for `key: value`.

    Inside `[...]` / `{...}` (flow) a plain scalar cannot hold `,[]{}`, so such text is quoted.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(item, flow=True) for item in value) + "]"
    if isinstance(value, dict):
        parts = [f"{_quoted(str(k))}: {_yaml_value(v, flow=True)}" for k, v in value.items()]
        return "{" + ", ".join(parts) + "}"
    text = repr(value) if isinstance(value, float) else str(value)
    if flow and any(c in text for c in ",[]{}"):
        return _quoted(text)
    return yaml_scalar(text)


# --------------------------------------------------------------------------------------------
# Documents


@dataclass
class FrontMatter:
    """The outer frontmatter of a memory file."""

    name: str = ""
    description: str = ""
    type: str = ""
    scope: str = ""
    headline: str = ""
    date: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    append_count: int = 0
    source: dict[str, Any] = field(default_factory=dict)  # non-daily
    sources: list[dict[str, Any]] = field(default_factory=list)  # daily
    links: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # hand-added keys (parsed values)
    extra_blocks: list[str] = field(default_factory=list)  # ...and their verbatim text

    @property
    def unreviewed(self) -> bool:
        return self.source.get("unreviewed") is True

    @property
    def risk_flag(self) -> str | None:
        value = self.source.get("risk_flag")
        return str(value) if value not in (None, "") else None


@dataclass
class MemoryDocument:
    meta: FrontMatter
    body: str  # LF line ends, evidence block included, trimmed
    bom: bool = False
    crlf: bool = False
    lenient: bool = False  # the frontmatter was not valid YAML and was read line by line
    has_frontmatter: bool = True


def _split(text: str) -> tuple[str | None, str]:
    """Split `---` frontmatter off `text`; (None, text) when there is none."""
    first_line = text.split("\n", 1)[0]
    if first_line.rstrip() != "---":
        return None, text
    try:
        fm, content = _HANDLER.split(text)
    except ValueError as exc:
        raise DocumentError("frontmatter is not closed: no second '---' line") from exc
    return fm, content


def _top_level_blocks(fm_text: str) -> list[tuple[str | None, str]]:
    """Cut frontmatter text into (key, raw text) blocks, one per top-level key.

    Comment lines (and blank lines after them) travel with the key that follows them;
    continuation lines (indented, or `- item` lines of a block list) stay with the key above,
    so a block's text is the same however often it is read and written back.
    """
    blocks: list[tuple[str | None, list[str]]] = []
    pending: list[str] = []
    key_line = re.compile(r"^(?P<key>\"[^\"]*\"|'[^']*'|(?!-(?:\s|$))[^\s#].*?)\s*:(?:\s|$)")
    for line in fm_text.split("\n"):
        match = key_line.match(line)
        if match:
            key = match.group("key").strip().strip("\"'")
            blocks.append((key, [*pending, line]))
            pending = []
        elif line.strip().startswith("#") and not line.startswith((" ", "\t")):
            pending.append(line)
        elif pending and not line.strip():
            pending.append(line)
        elif blocks:
            blocks[-1][1].extend([*pending, line])  # a comment inside the block stays there
            pending = []
        elif line.strip():
            pending.append(line)
    if pending and blocks:
        blocks[-1][1].extend(pending)
    elif pending:
        blocks.append((None, pending))
    return [(key, "\n".join(lines).rstrip()) for key, lines in blocks]


# Rust's Debug quoting (LiveAgent's) writes `\u{301}` and `\0`, which JSON does not know.
_RUST_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|0)|\\.", re.DOTALL)


def _json_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code is None:
        return match.group()
    point = 0 if code == "0" else int(code[2:-1], 16)
    if point > 0x10FFFF:
        return "\ufffd"
    return f"\\u{point:04x}" if point <= 0xFFFF else chr(point)


def _unquote(raw: str) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            loaded = json.loads(_RUST_ESCAPE.sub(_json_escape, value), strict=False)
            if isinstance(loaded, str):
                return loaded
        except ValueError:
            pass
    return value.strip('"').strip("'")


_FLOW_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"|[^,\s][^,]*')
_LIST_KEYS = frozenset({"links", "aliases", "conflicts_with"})


def _lenient_list(raw: str) -> list[str]:
    """Read a one-line flow list (`["a", "b"]`) the way a line reader would."""
    return [_unquote(item.group()) for item in _FLOW_ITEM.finditer(raw.strip()[1:-1])]


def _lenient_mapping(fm_text: str) -> dict[str, Any]:
    """Read frontmatter the way LiveAgent does (line by line) when it is not valid YAML."""
    data: dict[str, Any] = {}
    section: str | None = None
    current_item: dict[str, Any] | None = None
    for line in fm_text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indented = line.startswith((" ", "\t"))
        if not indented:
            section = None
        if section == "sources" and stripped.startswith("- "):
            current_item = {}
            data["sources"].append(current_item)
            stripped = stripped[2:]
        key, sep, raw_value = stripped.partition(":")
        if not sep:
            continue
        key = key.strip()
        if section == "source" and indented:
            value = _unquote(raw_value)
            data["source"][key] = (value == "true") if key == "unreviewed" else value
            continue
        if section == "sources" and indented and current_item is not None:
            current_item[key] = _unquote(raw_value)
            continue
        if key == "source" and not raw_value.strip():
            section, data["source"] = "source", {}
        elif key == "sources" and not raw_value.strip():
            section, data["sources"] = "sources", []
        elif key in _LIST_KEYS:
            value = raw_value.strip()
            bracketed = value.startswith("[") and value.endswith("]")
            data[key] = _lenient_list(value) if bracketed else ([] if key == "links" else value)
        else:
            data[key] = _unquote(raw_value)
    return data


def _unstorable(value: Any, where: str = "") -> str | None:
    """Why a parsed frontmatter value cannot be kept, or None.

    A YAML escape can spell what UTF-8 text cannot hold: a lone surrogate ("\\udc80") can be
    neither indexed nor written back.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(value[exc.start])
            return f"frontmatter field '{where}' holds an invalid character (U+{code:04X})"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{where}.{key}" if where else str(key)
            problem = _unstorable(str(key), name) or _unstorable(item, name)
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for position, item in enumerate(value):
            problem = _unstorable(item, f"{where}[{position}]")
            if problem is not None:
                return problem
    return None


def _text_field(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        raise DocumentError(f"frontmatter field '{key}' must be text, not a list or mapping")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _free_text_field(data: dict[str, Any], key: str, fm_text: str) -> str:
    """A free-text field (description, headline), read as LiveAgent reads it.

    LiveAgent writes text plain unless it has ':', '#' or edge spaces, so a value on the key's
    own line that YAML types (`null`, `TRUE`, `+5`, `[draft]`, `{x}`) is that text.
    """
    value = data.get(key)
    if key in data and not isinstance(value, str):
        line_value = _lenient_mapping(fm_text).get(key)
        if isinstance(line_value, str) and line_value:
            return line_value
    return _text_field(data, key)


def parse_document(text: str, *, fast: bool = True) -> MemoryDocument:
    """Parse a memory file's text. Raises DocumentError when it cannot be understood.

    Frontmatter in our writer's layout is read by `store/frontmatter_fast.py` (same result,
    several times faster); `fast=False`, or any other layout, uses the full YAML parser.
    """
    bom = text.startswith(BOM)
    if bom:
        text = text[len(BOM) :]
    crlf = "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")
    fm_text, content = _split(text)
    body = content.lstrip("\n").rstrip()
    if fm_text is None:
        return MemoryDocument(FrontMatter(), text.strip(), bom, crlf, False, False)
    lenient = False
    quick = fast_mapping(fm_text) if fast else None
    if quick is not None:
        data = quick  # only known keys, every value storable text, bool, int or null
    else:
        data, lenient = _full_mapping(fm_text)

    meta = FrontMatter(
        name=_text_field(data, "name").strip(),
        description=_free_text_field(data, "description", fm_text),
        type=_text_field(data, "type").strip(),
        scope=_text_field(data, "scope").strip(),
        headline=_free_text_field(data, "headline", fm_text),
        date=_text_field(data, "date").strip() or None,
        created_at=_text_field(data, "createdAt").strip() or None,
        updated_at=_text_field(data, "updatedAt").strip() or None,
    )
    append_count = data.get("appendCount", 0)
    try:
        meta.append_count = max(0, int(append_count or 0))
    except (TypeError, ValueError) as exc:
        raise DocumentError("frontmatter field 'appendCount' must be a whole number") from exc
    if meta.append_count > config.SQLITE_MAX_INTEGER:
        raise DocumentError(f"frontmatter field 'appendCount' is out of range ({append_count})")
    source = data.get("source")
    if isinstance(source, dict):
        meta.source = {str(k): v for k, v in source.items()}
    elif source not in (None, ""):
        raise DocumentError("frontmatter field 'source' must be a mapping")
    sources = data.get("sources")
    if isinstance(sources, list):
        meta.sources = [
            {str(k): v for k, v in item.items()} for item in sources if isinstance(item, dict)
        ]
    elif sources not in (None, ""):
        raise DocumentError("frontmatter field 'sources' must be a list")
    links = data.get("links")
    meta.links = list(links) if isinstance(links, list) else ([] if links is None else [links])

    if quick is None:
        for key, raw in _top_level_blocks(fm_text):
            if key is None or key in KNOWN_KEYS:
                continue
            meta.extra_blocks.append(raw)
            meta.extra[key] = data.get(key)
    return MemoryDocument(meta, body, bom, crlf, lenient, True)


def _full_mapping(fm_text: str) -> tuple[dict[str, Any], bool]:
    """The frontmatter mapping by the YAML parser, or line by line when it is not valid YAML
    (then the flag is True)."""
    lenient = False
    try:
        loaded = _load_yaml(fm_text)
    except yaml.YAMLError:
        loaded = _lenient_mapping(fm_text)
        lenient = True
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise DocumentError("frontmatter is not a 'key: value' mapping")
    data: dict[str, Any] = {str(k): v for k, v in loaded.items()}
    try:  # the usual case, in C: everything encodes; else find the field that does not
        json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:
        raise DocumentError(_unstorable(data) or "a value holds an invalid character") from None
    return data, lenient


def render_document(doc: MemoryDocument) -> str:
    """Render a memory file (REFERENCE A2 order), keeping its BOM and line-end style."""
    meta = doc.meta
    is_daily = meta.type == MemoryType.DAILY
    lines = ["---", f"name: {yaml_scalar(meta.name)}"]
    if meta.description:
        lines.append(f"description: {yaml_scalar(meta.description)}")
    lines.append(f"type: {yaml_scalar(meta.type)}")
    lines.append(f"scope: {yaml_scalar(meta.scope)}")
    if meta.headline or is_daily:
        lines.append(f"headline: {yaml_scalar(meta.headline)}")
    if meta.date:
        lines.append(f"date: {yaml_scalar(meta.date)}")
    if meta.created_at:
        lines.append(f"createdAt: {yaml_scalar(meta.created_at)}")
    if meta.updated_at:
        lines.append(f"updatedAt: {yaml_scalar(meta.updated_at)}")
    if is_daily:
        lines.append(f"appendCount: {meta.append_count}")
        lines.append("sources:")
        for item in meta.sources:
            keys = [k for k in DAILY_SOURCE_KEYS if k in item]
            keys += [k for k in item if k not in DAILY_SOURCE_KEYS]
            if "conversationId" not in item:
                keys.insert(0, "conversationId")
            for position, key in enumerate(keys):
                prefix = "  - " if position == 0 else "    "
                lines.append(f"{prefix}{key}: {_yaml_value(item.get(key, ''))}")
    else:
        source = meta.source
        lines.append("source:")
        lines.append(f"  trigger: {_yaml_value(source.get('trigger') or 'tool')}")
        for key in ("conversationId", "model", "risk_flag"):
            if source.get(key) not in (None, ""):
                lines.append(f"  {key}: {_yaml_value(source[key])}")
        lines.append(f"  unreviewed: {'true' if source.get('unreviewed') is True else 'false'}")
        for key, value in source.items():
            if key not in SOURCE_KNOWN_KEYS:
                lines.append(f"  {yaml_scalar(key)}: {_yaml_value(value)}")
    lines.append(f"links: {_yaml_value(meta.links)}")
    lines.extend(meta.extra_blocks)
    lines.append("---")
    lines.append("")
    lines.append(doc.body.strip())
    lines.append("")
    text = "\n".join(lines)
    if doc.crlf:
        text = text.replace("\n", "\r\n")
    return (BOM if doc.bom else "") + text


# --------------------------------------------------------------------------------------------
# Evidence block and the confidence contract


def split_evidence(body: str) -> tuple[str | None, str]:
    """Split the evidence block off a body: (block text or None, content)."""
    try:
        block, content = _split(body)
    except DocumentError:
        return None, body
    if block is None:
        return None, body
    return block, content.lstrip("\n").rstrip()


def body_content(body: str) -> str:
    """Return a body without its evidence block."""
    return split_evidence(body)[1]


def is_evidence_only(body: str) -> bool:
    """True when a body is only an evidence block (an evidence-only update, REFERENCE A2)."""
    block, content = split_evidence(body)
    return block is not None and bool(block.strip()) and not content.strip()


def _evidence_mapping(block: str) -> dict[str, Any]:
    try:
        loaded = _load_yaml(block)
    except yaml.YAMLError:
        loaded = _lenient_mapping(block)
    return {str(k): v for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def normalize_confidence(value: Any) -> Confidence:
    """Read a stored confidence: high, medium, low, anything else unknown."""
    text = str(value).strip().strip("\"'").lower() if value is not None else ""
    try:
        confidence = Confidence(text)
    except ValueError:
        return Confidence.UNKNOWN
    return confidence


def _as_text(value: Any) -> str:
    return "" if value is None else str(value)


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return [str(value)]


def _is_true(value: Any) -> bool:
    return value is True or value == "true"  # "true" when the block was read line by line


def read_evidence(body: str) -> EvidenceView:
    """Read the evidence block at the start of a body (empty view when there is none)."""
    block, _ = split_evidence(body)
    if block is None:
        return EvidenceView()
    data = _evidence_mapping(block)
    return EvidenceView(
        confidence=normalize_confidence(data.get("confidence")).value,
        auto_downgraded=_is_true(data.get("auto_downgraded")),
        source_quote=_as_text(data.get("source_quote")),
        reasoning=_as_text(data.get("reasoning")),
        aliases=_as_list(data.get("aliases")),
        conflicts_with=_as_list(data.get("conflicts_with")),
        supersedes=_as_text(data.get("supersedes")),
        override_reject=_as_text(data.get("override_reject")),
    )


def confidence_of(body: str) -> Confidence:
    """The confidence the index records for a body (REFERENCE A2: none means unknown)."""
    return normalize_confidence(read_evidence(body).confidence)


def apply_confidence_contract(raw: str | None, source_quote: str) -> tuple[Confidence, bool]:
    """Apply SPEC 1.4: high needs a quote of >= 5 chars, medium a non-empty one.

    Returns (applied confidence, auto_downgraded). Unknown input counts as low.
    """
    text = (raw or "").strip().lower()
    confidence = Confidence(text) if text in ("high", "medium") else Confidence.LOW
    quote_chars = len(source_quote.strip())
    downgraded = False
    if confidence is Confidence.HIGH and quote_chars < config.HIGH_MIN_QUOTE_CHARS:
        confidence, downgraded = Confidence.MEDIUM, True
    if confidence is Confidence.MEDIUM and quote_chars < config.MEDIUM_MIN_QUOTE_CHARS:
        confidence, downgraded = Confidence.LOW, True
    return confidence, downgraded


def _clip(value: str | None, limit: int) -> str:
    text = (value or "").strip().replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    return text[:limit]


def _clip_list(values: tuple[str, ...]) -> list[str]:
    items = [_clip(v, config.MAX_EVIDENCE_ITEM_CHARS) for v in values]
    return [item for item in items if item][: config.MAX_EVIDENCE_LIST_ITEMS]


def render_evidence_block(
    evidence: Evidence, *, extra_blocks: list[str] | None = None
) -> tuple[str, Confidence, bool]:
    """Render the evidence block text (without `---` lines) under the contract.

    Returns (block, applied confidence, auto_downgraded).
    """
    quote = (evidence.source_quote or "").strip()
    confidence, downgraded = apply_confidence_contract(evidence.confidence, quote)
    lines = [f"confidence: {confidence.value}"]
    if downgraded:
        lines.append("auto_downgraded: true")
    lines.append(f"source_quote: {_quoted(_clip(quote, config.MAX_QUOTE_CHARS))}")
    lines.append(f"reasoning: {_quoted(_clip(evidence.reasoning, config.MAX_REASONING_CHARS))}")
    aliases = ", ".join(_quoted(a) for a in _clip_list(evidence.aliases))
    lines.append(f"aliases: [{aliases}]")
    conflicts = ", ".join(_quoted(c) for c in _clip_list(evidence.conflicts_with))
    lines.append(f"conflicts_with: [{conflicts}]")
    supersedes = _clip(evidence.supersedes, config.MAX_EVIDENCE_ITEM_CHARS)
    lines.append(f"supersedes: {_quoted(supersedes)}")
    override = _clip(evidence.override_reject, config.MAX_EVIDENCE_ITEM_CHARS)
    lines.append(f"override_reject: {_quoted(override)}")
    lines.extend(extra_blocks or [])
    return "\n".join(lines), confidence, downgraded


def join_evidence(block: str | None, content: str) -> str:
    """Put an evidence block back in front of content (REFERENCE render_evidence_body)."""
    content = content.strip()
    if block is None or not block.strip():
        return content
    if not content:
        return f"---\n{block.strip()}\n---"
    return f"---\n{block.strip()}\n---\n\n{content}"


def evidence_from_block(block: str) -> Evidence:
    """Turn an evidence block a caller put in front of a body into structured evidence."""
    data = _evidence_mapping(block)
    return Evidence(
        confidence=_as_text(data.get("confidence")) or None,
        source_quote=_as_text(data.get("source_quote")) or None,
        reasoning=_as_text(data.get("reasoning")) or None,
        aliases=tuple(_as_list(data.get("aliases"))),
        conflicts_with=tuple(_as_list(data.get("conflicts_with"))),
        supersedes=_as_text(data.get("supersedes")) or None,
        override_reject=_as_text(data.get("override_reject")) or None,
    )


def _evidence_extra_blocks(block: str | None) -> list[str]:
    if block is None:
        return []
    return [raw for key, raw in _top_level_blocks(block) if key and key not in EVIDENCE_KEYS]


def apply_evidence(
    body: str, evidence: Evidence, *, previous_body: str | None = None
) -> tuple[str, Confidence, bool]:
    """Render `evidence` as the block of `body`, replacing any block it had (never doubled).

    Keys a person added to the previous block are carried over.
    Returns (new body, applied confidence, auto_downgraded).
    """
    old_block = split_evidence(previous_body)[0] if previous_body is not None else None
    _, content = split_evidence(body)
    block, confidence, downgraded = render_evidence_block(
        evidence, extra_blocks=_evidence_extra_blocks(old_block)
    )
    return join_evidence(block, content), confidence, downgraded

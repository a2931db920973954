"""Skill memories (SPEC 1.2, procedural): the one parser and the one renderer of their sections.

A skill is an ordinary Markdown memory whose text (after the evidence block) is organized in
canonical sections, in this order:

    ## When to use        free text (the description serves when it is missing)
    ## Prerequisites      bullets
    ## Steps              numbered `1.` (at least one)
    ## Common errors      bullets `- <error> → <fix>` (`->`, `=>`, `：` and `: ` parse too)
    ## Exit criteria      bullets
    ## Example            free text, optional

Parsing is tolerant: any heading level, case and spacing, a trailing colon, English or Chinese
headings (适用场景 / 前提条件 / 步骤 / 常见错误 / 完成标准 / 示例) and a few synonyms. Nothing a
person wrote is lost: text before the first section, sections we do not know and text inside a
list section that is not an item are kept verbatim and written back where they stood. Rendering
always uses the English headings above (domain/skills.py names the sections and their
headings), so files stay uniform whatever language made them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from liveagent_memory.domain.requests import SkillInput
from liveagent_memory.domain.schema import CommonError, SkillView
from liveagent_memory.domain.skills import (
    COMMON_ERRORS,
    EXAMPLE,
    EXIT_CRITERIA,
    HEADINGS,
    LIST_SECTIONS,
    PREREQUISITES,
    SECTION_ORDER,
    STEPS,
    WHEN_TO_USE,
)
from liveagent_memory.store.merge import merge_content, unit_key

# Heading titles (normalized by _title_key) that open each section.
_TITLES = {
    WHEN_TO_USE: (
        "when to use",
        "when to use it",
        "use when",
        "when",
        "适用场景",
        "使用场景",
        "何时使用",
        "适用情况",
    ),
    PREREQUISITES: ("prerequisites", "prerequisite", "requirements", "前提条件", "前置条件"),
    STEPS: ("steps", "procedure", "步骤", "操作步骤"),
    COMMON_ERRORS: (
        "common errors",
        "common mistakes",
        "pitfalls",
        "errors",
        "常见错误",
        "常见问题",
    ),
    EXIT_CRITERIA: (
        "exit criteria",
        "done when",
        "completion criteria",
        "完成标准",
        "退出条件",
        "完成条件",
    ),
    EXAMPLE: ("example", "examples", "example usage", "示例", "例子", "范例"),
}
_TITLE_TO_KEY = {title: key for key, titles in _TITLES.items() for title in titles}

# A heading outside code: up to three spaces, 1-6 `#`, text, optional closing `#`s.
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")  # opens a code block; see _closes
# A list item (indentation removed): a bullet and a space, or a number with `.` `)` and a
# space, or `、` (Chinese numbering); a bare marker is an empty item.
_ITEM = re.compile(r"^(?:[-*+•](?:[ \t]+|$)|\d{1,3}[.)](?:[ \t]+|$)|\d{1,3}、[ \t]*)(.*)$")
# Separators between an error and its fix, strongest first; a colon counts only before a space
# (so `http://` or `a:b` stays whole).
_ERROR_SEPARATORS = (
    re.compile(r"\s*(?:→|⟶|->|=>)\s*"),
    re.compile(r"\s*：\s*"),
    re.compile(r":\s+"),
)
# An arrow that ends the item: the whole text before it is the error and there is no fix (how
# render_skill writes a fix-less error whose text holds a separator, e.g. `TypeError: x →`).
_TRAILING_ARROW = re.compile(r"\s*(?:→|⟶|->|=>)\s*$")
CONTINUATION_INDENT = "    "  # four spaces: inside `- ` and `1.`..`99.` items, never code


@dataclass(frozen=True)
class OtherSection:
    """A section with a heading we do not know, kept verbatim."""

    after: str | None  # the known section it followed (None: before every known one)
    heading: str  # the heading line as written
    text: str  # its text as written


@dataclass
class Skill:
    """A skill's sections plus everything else its text held (see module docstring)."""

    when_to_use: str = ""
    prerequisites: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    common_errors: list[CommonError] = field(default_factory=list)
    exit_criteria: list[str] = field(default_factory=list)
    example: str = ""
    preamble: str = ""  # text before the first section
    notes: dict[str, str] = field(default_factory=dict)  # list section -> text between items
    others: list[OtherSection] = field(default_factory=list)

    def missing(self, description: str = "") -> list[str]:
        """Required parts that are absent: a step, and "when to use" (or a description)."""
        out = []
        if not self.when_to_use.strip() and not description.strip():
            out.append(WHEN_TO_USE)
        if not self.steps:
            out.append(STEPS)
        return out

    def view(self, description: str = "") -> SkillView:
        """The parsed structure as memory_read returns it."""
        return SkillView(
            when_to_use=self.when_to_use,
            prerequisites=list(self.prerequisites),
            steps=list(self.steps),
            common_errors=list(self.common_errors),
            exit_criteria=list(self.exit_criteria),
            example=self.example,
            other_sections=[_heading_title(o.heading) for o in self.others],
            missing=self.missing(description),
        )


def _closes(line: str, fence: str) -> bool:
    """Whether `line` ends the code block `fence` opened: the same character, at least as many
    times, nothing else (CommonMark), so a shorter fence inside stays code."""
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


def _title_key(title: str) -> str:
    """A heading's text for lookup: no emphasis or trailing colon, case and spaces folded."""
    text = title.strip().strip("*_").strip().rstrip(":：").strip()
    return " ".join(text.replace("-", " ").replace("_", " ").casefold().split())


def _heading_title(line: str) -> str:
    match = _HEADING.match(line)
    return match.group(2).strip() if match else line.strip()


def section_key(heading_line: str) -> str | None:
    """The canonical section a heading line opens, or None when it is not one of ours."""
    match = _HEADING.match(heading_line)
    if match is None:
        return None
    return _TITLE_TO_KEY.get(_title_key(match.group(2)))


# --------------------------------------------------------------------------------------------
# Parsing


def parse_skill(content: str) -> Skill:
    """Parse a skill's text (the body without its evidence block). Never raises."""
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    preamble: list[str] = []
    chunks: list[tuple[str, list[str]]] = []  # (key or "other:<heading>", lines)
    others: list[OtherSection] = []
    current: list[str] = preamble
    last_known: str | None = None
    other_heading: str | None = None
    fence: str | None = None

    def close_other() -> None:
        if other_heading is not None:
            others.append(OtherSection(last_known, other_heading, _trim_block(current)))

    for line in lines:
        if fence is not None:
            current.append(line)
            if _closes(line, fence):
                fence = None
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
            current.append(line)
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            key = _TITLE_TO_KEY.get(_title_key(heading.group(2)))
            if key is not None:
                close_other()
                other_heading = None
                current = []
                chunks.append((key, current))
                last_known = key
                continue
            if len(heading.group(1)) <= 2:
                close_other()
                other_heading = line.rstrip()
                current = []
                continue
        current.append(line)
    close_other()

    skill = Skill(preamble=_trim_block(preamble), others=others)
    for key, chunk in chunks:
        if key in LIST_SECTIONS:
            items, notes = _items(chunk)
            if key == COMMON_ERRORS:
                skill.common_errors.extend(split_common_error(item) for item in items)
            else:
                getattr(skill, key).extend(items)
            if notes:
                previous = skill.notes.get(key)
                skill.notes[key] = f"{previous}\n\n{notes}" if previous else notes
        else:
            text = _trim_block(chunk)
            previous = getattr(skill, key)
            setattr(skill, key, f"{previous}\n\n{text}" if previous and text else previous or text)
    return skill


def _trim_block(lines: list[str]) -> str:
    """Lines joined, blank lines at both ends and trailing spaces dropped."""
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _items(lines: list[str]) -> tuple[list[str], str]:
    """Split a list section into item texts and the other text it holds (kept verbatim).

    An item continues on lines indented deeper than its marker (blank lines between allowed,
    nested lists included), on unindented lines that follow it directly (Markdown's lazy
    continuation) and in a code fence opened right after it. Empty items (`- ` of the
    template) are dropped.
    """
    items: list[list[str]] = []
    notes: list[str] = []
    in_item = False  # the last non-blank line belonged to an item
    item_indent = 0
    blank_after_item = False
    fence: str | None = None
    fence_in_item = False
    for line in lines:
        if fence is not None:
            (items[-1] if fence_in_item else notes).append(line)
            if _closes(line, fence):
                fence = None
            continue
        if not line.strip():
            (items[-1] if in_item else notes).append("")
            blank_after_item = in_item
            continue
        expanded = line.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip(" "))
        opened = _FENCE.match(line)
        item = None if opened else _ITEM.match(expanded.lstrip(" "))
        if in_item and (indent > item_indent or opened or (item is None and not blank_after_item)):
            items[-1].append(expanded)
            blank_after_item = False
            if opened:
                fence, fence_in_item = opened.group(1), True
            continue
        if item is not None:
            items.append([item.group(1).strip()])
            in_item, item_indent, blank_after_item = True, indent, False
            continue
        in_item = False
        notes.append(line)
        if opened:
            fence, fence_in_item = opened.group(1), False
    texts = [_item_text(item) for item in items]
    return [text for text in texts if text], _trim_block(notes)


def _item_text(lines: list[str]) -> str:
    """An item's first line plus its continuation lines, dedented to their common indent."""
    first, rest = lines[0], lines[1:]
    while rest and not rest[-1].strip():
        rest.pop()
    indents = [len(line) - len(line.lstrip()) for line in rest if line.strip()]
    cut = min(indents) if indents else 0
    tail = [line[cut:].rstrip() if line.strip() else "" for line in rest]
    return "\n".join([first, *tail]).strip()


def split_common_error(text: str) -> CommonError:
    """`error → fix` (or `->`, `=>`, `：`, `: `) into its parts; no separator, or an arrow
    at the very end (`error →`): no fix."""
    trailing = _TRAILING_ARROW.search(text)
    if trailing and text[: trailing.start()].strip():
        return CommonError(error=text[: trailing.start()].strip(), fix="")
    for separator in _ERROR_SEPARATORS:
        parts = separator.split(text, maxsplit=1)
        if len(parts) == 2 and parts[0].strip():
            return CommonError(error=parts[0].strip(), fix=parts[1].strip())
    return CommonError(error=text.strip(), fix="")


# --------------------------------------------------------------------------------------------
# Rendering


def skill_from_input(data: SkillInput) -> Skill:
    """A structured `skill` payload as a Skill (texts trimmed, empty items dropped)."""
    return Skill(
        when_to_use=data.when_to_use.strip(),
        prerequisites=_clean(data.prerequisites),
        steps=_clean(data.steps),
        common_errors=[
            CommonError(error=e.error.strip(), fix=e.fix.strip())
            for e in data.common_errors
            if e.error.strip()
        ],
        exit_criteria=_clean(data.exit_criteria),
        example=data.example.strip(),
    )


def _clean(values: list[str]) -> list[str]:
    return [value.strip() for value in values if value.strip()]


def render_skill(skill: Skill) -> str:
    """The skill's text with canonical English headings (see module docstring)."""
    parts: list[str] = []
    if skill.preamble.strip():
        parts.append(skill.preamble)
    parts.extend(_other_text(o) for o in skill.others if o.after is None)
    for key in SECTION_ORDER:
        text = _section_text(skill, key)
        if text:
            parts.append(f"## {HEADINGS[key]}\n\n{text}")
        parts.extend(_other_text(o) for o in skill.others if o.after == key)
    return "\n\n".join(parts)


def _other_text(section: OtherSection) -> str:
    return f"{section.heading}\n\n{section.text}" if section.text else section.heading


def _section_text(skill: Skill, key: str) -> str:
    if key == WHEN_TO_USE:
        return skill.when_to_use.strip()
    if key == EXAMPLE:
        return skill.example.strip()
    if key == STEPS:
        lines = [_item_lines(f"{n}. ", step) for n, step in enumerate(skill.steps, start=1)]
    elif key == COMMON_ERRORS:
        lines = [_item_lines("- ", _error_text(e)) for e in skill.common_errors]
    else:
        lines = [_item_lines("- ", item) for item in getattr(skill, key)]
    text = "\n".join(lines)
    notes = skill.notes.get(key, "").strip("\n")
    return f"{text}\n\n{notes}".strip("\n") if notes else text


def _error_text(error: CommonError) -> str:
    """The item text split_common_error reads back as this error: `error → fix`; with no fix
    the bare error, or `error →` when the bare text would split (`TypeError: x is undefined`)."""
    if error.fix:
        return f"{error.error} → {error.fix}"
    if split_common_error(error.error) != CommonError(error=error.error, fix=""):
        return f"{error.error} →"
    return error.error


def _item_lines(marker: str, text: str) -> str:
    first, *rest = text.strip().split("\n")
    tail = [CONTINUATION_INDENT + line if line.strip() else "" for line in rest]
    return "\n".join([marker + first.strip(), *tail])


# --------------------------------------------------------------------------------------------
# Merging (memory_update mode=merge of a skill)


def merge_skills(current: Skill, incoming: Skill) -> Skill:
    """Merge section by section: steps are replaced (a procedure's order cannot be guessed),
    bullets are united (an equivalent item is replaced in place), prose merges by sentence
    (store/merge.py), the example and unknown sections of the same heading are replaced."""
    merged = Skill(
        when_to_use=merge_content(current.when_to_use, incoming.when_to_use),
        prerequisites=_unite(current.prerequisites, incoming.prerequisites),
        steps=list(incoming.steps or current.steps),
        common_errors=_unite_errors(current.common_errors, incoming.common_errors),
        exit_criteria=_unite(current.exit_criteria, incoming.exit_criteria),
        example=incoming.example or current.example,
        preamble=merge_content(current.preamble, incoming.preamble),
        notes={
            key: merge_content(current.notes.get(key, ""), incoming.notes.get(key, ""))
            for key in {*current.notes, *incoming.notes}
        },
    )
    replaced = {_title_key(_heading_title(o.heading)): o for o in incoming.others}
    for section in current.others:
        merged.others.append(replaced.pop(_title_key(_heading_title(section.heading)), section))
    merged.others.extend(replaced.values())
    return merged


def _unite(current: list[str], incoming: list[str]) -> list[str]:
    out = list(current)
    keys = [unit_key(item) for item in out]
    for item in incoming:
        key = unit_key(item)
        if key in keys:
            out[keys.index(key)] = item
        else:
            out.append(item)
            keys.append(key)
    return out


def _unite_errors(current: list[CommonError], incoming: list[CommonError]) -> list[CommonError]:
    out = list(current)
    keys = [unit_key(e.error) for e in out]
    for error in incoming:
        key = unit_key(error.error)
        if key in keys:
            position = keys.index(key)
            out[position] = error if error.fix else out[position]
        else:
            out.append(error)
            keys.append(key)
    return out

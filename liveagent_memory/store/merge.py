"""Body merge for `mode="merge"` updates: sentence/paragraph units, Chinese and English.

REFERENCE A7: paragraphs are units; fenced code blocks and lines starting with `# - * > |`
stay whole, other lines split into sentences at 。！？；.!?; . An incoming unit replaces an
existing one that is equivalent (normalized keys equal or one contains the other) or similar
(>= 4 shared tokens and Jaccard >= 0.32); otherwise it is appended. Tokens are ASCII
alphanumeric runs plus single CJK characters (domain/text.py's class: Han, kana, Hangul), so
Chinese, Japanese and Korean compare character by character.
Duplicates are dropped by normalized key; a unit with no letters or digits (a `---` rule, a
table separator, an emoji) is compared by its text instead, so it is never lost.

`union_content` is the organizer's merge of duplicate memories into the one kept: the kept text
stays as written and only what the others add follows it (see its docstring).
"""

from __future__ import annotations

from liveagent_memory.domain.text import is_cjk
from liveagent_memory.store.evidence import join_evidence, split_evidence

SENTENCE_ENDS = frozenset("。！？；.!?;")
WHOLE_LINE_PREFIXES = ("#", "- ", "* ", "> ", "|", "```")
MIN_SHARED_TOKENS = 4
MIN_JACCARD = 0.32


def unit_key(text: str) -> str:
    """Normalize a unit for comparison: lowercase ASCII alnum and CJK, whitespace folded."""
    out = []
    for char in text.strip().lower():
        if (char.isascii() and char.isalnum()) or is_cjk(char):
            out.append(char)
        elif char.isspace():
            out.append(" ")
    return " ".join("".join(out).split())


def unit_tokens(text: str) -> set[str]:
    """ASCII alphanumeric runs (split at any other character) plus single CJK characters."""
    tokens: set[str] = set()
    word = []
    for char in text.lower():
        if char.isascii() and char.isalnum():
            word.append(char)
            continue
        if word:
            tokens.add("".join(word))
            word = []
        if is_cjk(char):
            tokens.add(char)
    if word:
        tokens.add("".join(word))
    return tokens


def _sentences(line: str) -> list[str]:
    units, current = [], []
    for char in line:
        current.append(char)
        if char in SENTENCE_ENDS:
            sentence = "".join(current).strip()
            if sentence:
                units.append(sentence)
            current = []
    tail = "".join(current).strip()
    if tail:
        units.append(tail)
    return units


def split_units(content: str) -> list[str]:
    """Cut content into units: a fenced code block (blank lines and all) is one unit."""
    units: list[str] = []
    fence: list[str] | None = None
    for raw_line in content.replace("\r\n", "\n").split("\n"):
        line = raw_line.strip()
        if fence is not None:
            fence.append(raw_line.rstrip())
            if line.startswith("```"):
                units.append("\n".join(fence).strip())
                fence = None
        elif line.startswith("```") and "`" not in line.lstrip("`"):  # CommonMark opening
            fence = [raw_line.rstrip()]
        elif line.startswith(WHOLE_LINE_PREFIXES):
            units.append(line)
        elif line:
            units.extend(_sentences(line) or [line])
    if fence is not None:  # an unclosed fence runs to the end, as in Markdown
        units.append("\n".join(fence).strip())
    return units


def _dedupe_key(unit: str) -> str:
    """Key for dropping duplicates: the normalized key, or the text itself when a unit has
    no letters or digits (a rule `---`, a table separator, an emoji), so it is never lost."""
    return unit_key(unit) or unit.strip()


def _equivalent(left: str, right: str) -> bool:
    a, b = unit_key(left), unit_key(right)
    if not a or not b:
        return left.strip() == right.strip()
    return a == b or a in b or b in a


def _best_match(existing: list[str], incoming: str) -> int | None:
    incoming_tokens = unit_tokens(incoming)
    if not incoming_tokens:
        return None
    best: tuple[int, float, int] | None = None
    for index, unit in enumerate(existing):
        if _equivalent(unit, incoming):
            return index
        tokens = unit_tokens(unit)
        shared = len(tokens & incoming_tokens)
        if not tokens or shared < MIN_SHARED_TOKENS:
            continue
        similarity = shared / len(tokens | incoming_tokens)
        if similarity < MIN_JACCARD:
            continue
        if best is None or (similarity, shared) > (best[1], best[2]):
            best = (index, similarity, shared)
    return best[0] if best else None


def merge_content(existing: str, incoming: str) -> str:
    """Merge two bodies without evidence blocks (see module docstring)."""
    existing, incoming = existing.strip(), incoming.strip()
    if not existing:
        return incoming
    if not incoming:
        return existing
    merged = split_units(existing)
    incoming_units = split_units(incoming)
    if not merged:
        return incoming
    if not incoming_units:
        return existing
    appended: list[str] = []
    for unit in incoming_units:
        index = _best_match(merged, unit)
        if index is not None:
            merged[index] = unit
        elif not any(_equivalent(other, unit) for other in (*merged, *appended)):
            appended.append(unit)
    seen: set[str] = set()
    out = []
    for unit in merged + appended:
        key = _dedupe_key(unit)
        if key not in seen:
            seen.add(key)
            out.append(unit)
    return "\n\n".join(out)


def merge_bodies(existing: str, incoming: str) -> str:
    """Merge bodies: contents by units; the incoming evidence block wins if it has one."""
    old_block, old_content = split_evidence(existing)
    new_block, new_content = split_evidence(incoming)
    block = new_block if new_block is not None and new_block.strip() else old_block
    return join_evidence(block, merge_content(old_content, new_content))


def _covers(wide: tuple[str, str], narrow: tuple[str, str]) -> bool:
    """Whether unit `wide` says everything unit `narrow` says (its key holds narrow's key).

    Units come as (text, key): keys are computed once per unit, not once per comparison.
    """
    (wide_text, a), (narrow_text, b) = wide, narrow
    if not a or not b:
        return wide_text.strip() == narrow_text.strip()
    return b in a


def union_content(kept: str, *incoming: str) -> str:
    """`kept` as written, then what each text of `incoming` says that the text so far does not.

    An incoming unit already said (its key inside a unit said so far) is left out; one that
    says more than a unit of the text (holds its key) takes that unit's place; the others follow
    in a paragraph of their own: the incoming text as written when none of it was left out or
    took a place, else its new units (a sentence after a sentence, a whole line on a line of its
    own). Nothing said only in `incoming` is lost. Each unit's key is computed once.
    """
    text = kept.strip()
    said = _keyed(text)
    for other in (item.strip() for item in incoming):
        if not text or not other:
            text, said = (text, said) if text else (other, _keyed(other))
            continue
        units = _keyed(other)
        added: list[tuple[str, str]] = []
        for unit in units:
            if any(_covers(old, unit) for old in (*said, *added)):
                continue
            place = next(
                (i for i, old in enumerate(said) if _covers(unit, old) and old[0] in text), None
            )
            if place is None:
                added.append(unit)
            else:
                text = text.replace(said[place][0], unit[0], 1)
                said[place] = unit
        if added:
            addition = other if added == units else _joined([unit for unit, _key in added])
            text = f"{text}\n\n{addition}"
            said.extend(added)
    return text


def _keyed(text: str) -> list[tuple[str, str]]:
    return [(unit, unit_key(unit)) for unit in split_units(text)] if text else []


def _joined(units: list[str]) -> str:
    """Units back into text: sentences run on in one paragraph, whole lines (list items,
    headings) stay one a line, and a block of either kind is a paragraph of its own."""
    blocks: list[tuple[bool, str]] = []  # (whole lines?, text)
    for unit in units:
        whole = unit.startswith(WHOLE_LINE_PREFIXES) or "\n" in unit
        if not blocks or blocks[-1][0] != whole:
            blocks.append((whole, unit))
            continue
        last = blocks[-1][1]
        space = "\n" if whole else ("" if is_cjk(last[-1]) or is_cjk(unit[0]) else " ")
        blocks[-1] = (whole, last + space + unit)
    return "\n\n".join(text for _whole, text in blocks)

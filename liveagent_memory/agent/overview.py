"""The Memory Index block for a chat system prompt (REFERENCE A6, SPEC 3).

The store picks the buckets; this module renders them: fixed section order (so a provider's
prompt cache keeps the prefix), 30 lines per bucket with a "N more hidden" note, freshness and
review marks, and a 16,000-character cap. Memory text is escaped so that a description can never
close the block, start a heading or forge another entry's `[slug|…]` tag.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MS_PER_DAY
from liveagent_memory.domain.schema import TYPE_MARKS, OverviewBuckets, OverviewEntry
from liveagent_memory.prompts import injection
from liveagent_memory.prompts.shared import (
    CJK_CLOSING_ANGLES,
    CJK_OPENING_ANGLES,
    LOOKALIKE_CLOSING_ANGLES,
    LOOKALIKE_OPENING_ANGLES,
)

_TYPE_LETTER = {memory_type.value: mark for memory_type, mark in TYPE_MARKS.items()}
_CONFIDENCE_MARK = {"high": "*:h", "medium": "*:m", "low": "*:l"}
_WHITESPACE = re.compile(r"\s+")
# The CJK angle brackets are Chinese title marks too (《三体》): escaped only where they touch
# ASCII (`《/memory-index》`, `〈system〉`), kept around Chinese.
_TAGLIKE_CJK_OPENING = re.compile(f"[{CJK_OPENING_ANGLES}](?=[\\x00-\\x7f])")
_TAGLIKE_CJK_CLOSING = re.compile(f"(?<=[\\x00-\\x7f])[{CJK_CLOSING_ANGLES}]")
# `<` `>` `&` (and their look-alikes) as entities: no tag such as </memory-index> can appear.
# Square brackets (and fullwidth ［］) escaped so a description cannot imitate the
# `[slug|kind|age]` tag of a real entry, and the backslash too, or `\[` in the text would
# become `\\[`: an escaped backslash followed by a bracket that is not escaped.
_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "[": "\\[",
        "]": "\\]",
        "\uff3b": "\\[",
        "\uff3d": "\\]",
        **dict.fromkeys(LOOKALIKE_OPENING_ANGLES, "&lt;"),
        **dict.fromkeys(LOOKALIKE_CLOSING_ANGLES, "&gt;"),
    }
)


def escape_inline(text: str) -> str:
    """Make untrusted text safe for one line of the block."""
    if not text.isprintable():  # rare: only then pay for a per-character check
        text = "".join(
            " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text
        )
    text = _WHITESPACE.sub(" ", text).strip().translate(_ESCAPES)
    if any(mark in text for mark in CJK_OPENING_ANGLES + CJK_CLOSING_ANGLES):
        text = _TAGLIKE_CJK_CLOSING.sub("&gt;", _TAGLIKE_CJK_OPENING.sub("&lt;", text))
    return text


def freshness(updated_at_ms: int, now_ms: int) -> str:
    """d0 (today or in the future), w (< 7 days), m (< 30 days), old."""
    days = (now_ms - updated_at_ms) // MS_PER_DAY
    if days <= 0:
        return "d0"
    if days < config.FRESH_WEEK_DAYS:
        return "w"
    if days < config.FRESH_MONTH_DAYS:
        return "m"
    return "old"


def entry_line(entry: OverviewEntry, now_ms: int) -> str:
    """`- {description} [{slug}|{kind}{*:c if unreviewed}|{age}]`."""
    kind = _TYPE_LETTER.get(entry.type, "?")
    if entry.unreviewed:
        kind += _CONFIDENCE_MARK.get(entry.confidence, "*:?")
    text = escape_inline(entry.description or entry.headline or entry.slug)
    return f"- {text} [{escape_inline(entry.slug)}|{kind}|{freshness(entry.updated_at, now_ms)}]"


def daily_line(entry: OverviewEntry, today: str) -> str:
    age = "older"
    try:
        days = (date.fromisoformat(today) - date.fromisoformat(entry.date_local or "")).days
    except ValueError:
        days = None
    if days is not None and days <= 0:
        age = "today"
    elif days is not None and days < config.FRESH_WEEK_DAYS:
        age = "recent"
    return injection.DAILY_LINE.format(age=age, slug=escape_inline(entry.slug))


def _section(title: str, lines: list[str], total: int) -> list[str]:
    shown = lines[: config.OVERVIEW_RENDER_PER_BUCKET]
    out = [title, *shown]
    hidden = max(total, len(lines)) - len(shown)
    if hidden > 0:
        out.append(injection.HIDDEN.format(count=hidden))
    return out


def render_overview(buckets: OverviewBuckets, *, max_chars: int = config.OVERVIEW_MAX_CHARS) -> str:
    """Render the Memory Index block, at most `max_chars` characters including its tags."""
    now = buckets.now_ms
    totals = buckets.totals
    sections: list[list[str]] = []
    plain = (
        ("user", injection.SECTION_USER, buckets.user),
        ("unreviewed_user", injection.SECTION_UNREVIEWED_USER, buckets.unreviewed_user),
    )
    for key, title, entries in plain:
        if entries:
            lines = [entry_line(e, now) for e in entries]
            sections.append(_section(title, lines, totals.get(key, len(entries))))
    if buckets.project:
        where = escape_inline(buckets.workdir or buckets.workdir_hash or "")
        lines = [entry_line(e, now) for e in buckets.project]
        title = injection.SECTION_PROJECT.format(workdir=where)
        sections.append(_section(title, lines, totals.get("project", len(lines))))
    if buckets.global_:
        lines = [entry_line(e, now) for e in buckets.global_]
        sections.append(_section(injection.SECTION_GLOBAL, lines, totals.get("global", len(lines))))
    if buckets.recent_days:
        lines = [daily_line(e, buckets.today) for e in buckets.recent_days]
        sections.append([injection.SECTION_DAILY, *lines])

    body_lines = [injection.INTRO, ""]
    if not sections:
        body_lines.append(injection.EMPTY)
    for index, section in enumerate(sections):
        if index:
            body_lines.append("")
        body_lines.extend(section)
    return _wrap_capped(body_lines, max_chars)


def _wrap_capped(lines: list[str], max_chars: int) -> str:
    """Join lines inside the block tags; cut whole lines and add a note when over the cap."""
    head, tail = injection.OPEN_TAG + "\n", "\n" + injection.CLOSE_TAG
    text = "\n".join(lines)
    if len(head) + len(text) + len(tail) <= max_chars:
        return head + text + tail
    budget = max_chars - len(head) - len(tail) - len(injection.TRUNCATED) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = len(line) + (1 if kept else 0)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return head + "\n".join([*kept, injection.TRUNCATED]) + tail

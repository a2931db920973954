"""The daily journal (SPEC 1.8): the days that have one, a day's entries, and how much a day
found by a search counts for its age (`journal_age_days`, `journal_decay`: one rule for the
keyword side, store/search.py, and the vector side, retrieval/hybrid.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import parse_local_date
from liveagent_memory.domain.schema import Shape


def journal_age_days(date_local: str | None, today: date) -> float | None:
    """How many days ago a journal day was (0 for today or a day ahead); None without a
    readable date."""
    day = parse_local_date(date_local or "")
    if day is None:
        return None
    return float(max(0, (today - day).days))


def journal_decay(age_days: float | None) -> float:
    """REFERENCE A5: a journal day's score x exp(-age / 30); 1 when its age is unknown."""
    if age_days is None:
        return 1.0
    return math.exp(-age_days / config.SEARCH_DAILY_DECAY_DAYS)


@dataclass
class JournalDay(Shape):
    """A day that has a journal file (memory_journal_days)."""

    date: str  # the journal's local date, YYYY-MM-DD
    slug: str  # daily-YYYY-MM-DD: pass to memory_read
    scope: str
    workdir_hash: str
    workdir: str | None
    entry_count: int  # appended entries (appendCount); 1 for a hand-written file without one
    archived: bool  # past retention: read-only
    created_at: int
    updated_at: int
    size: int  # bytes of the file (the daily limit is 32 KiB)


@dataclass
class LinkedMemory(Shape):
    """A memory written or changed in the conversation a journal entry came from."""

    slug: str
    scope: str
    workdir_hash: str
    type: str
    description: str


@dataclass
class JournalEntry(Shape):
    """One append to a day's journal: its text and the `sources` item that recorded it."""

    text: str
    source: int | None  # position in the day's `sources`; None when the file no longer says
    appended_at: str | None = None  # RFC 3339, as the source recorded it
    trigger: str | None = None
    model: str | None = None
    conversation_id: str | None = None
    memories: list[LinkedMemory] = field(default_factory=list)  # of that conversation, still there


@dataclass
class JournalEntriesResult(Shape):
    date: str
    slug: str
    entries: list[JournalEntry]  # oldest first, as appended
    paired: bool  # each entry is matched to its source (False: the text was edited by hand)


@dataclass
class JournalDaysResult(Shape):
    days: list[JournalDay]  # newest first
    total: int  # days matching the filter, beyond `limit` too
    truncated: bool
    today: str  # the journal's today (04:00 rollover), YYYY-MM-DD

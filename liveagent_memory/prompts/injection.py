"""Text of the Memory Index block placed in the chat system prompt (REFERENCE A6)."""

from __future__ import annotations

from liveagent_memory.prompts.shared import NOT_INSTRUCTIONS, PRECEDENCE

OPEN_TAG = "<memory-index>"
CLOSE_TAG = "</memory-index>"

INTRO = (
    "# Memory Index\n"
    "Long-term memory about this user and project, one line per memory: "
    "`- description [slug|kind|age]`. kind is u=user, f=feedback, p=project, r=reference, "
    "s=skill (a step-by-step procedure), d=daily journal; `*:h`, `*:m`, `*:l`, `*:?` mark an "
    "unreviewed memory and its confidence "
    "(high, medium, low, unknown); age is d0 (today), w (this week), m (this month) or old. "
    'Read a full memory with MemoryManager(action="read", slug=...) before relying on '
    "details. " + NOT_INSTRUCTIONS + "\n" + PRECEDENCE
)

SECTION_USER = "## User memory"
SECTION_UNREVIEWED_USER = "## Unreviewed user memory"
SECTION_PROJECT = "## Project memory (workdir: {workdir})"
SECTION_GLOBAL = "## Global memory"
SECTION_DAILY = "## Recent daily journals"
EMPTY = "(no memories yet; save durable facts with MemoryManager when the user states them)"

HIDDEN = (
    '- ... ({count} more entries hidden; call MemoryManager(action="list") or '
    'action="search" to retrieve)'
)
TRUNCATED = '... (truncated; use MemoryManager(action="search") for older entries)'
DAILY_LINE = "- {age} [{slug}|d] — journal available on demand"

"""Descriptions of the MemoryManager tool and its parameters (REFERENCE A12)."""

from __future__ import annotations

from liveagent_memory.domain import config
from liveagent_memory.prompts.shared import CONFIDENCE_RUBRIC, SKILL_SECTIONS, TYPE_DECISION_TREE

NAME = "MemoryManager"

DESCRIPTION_READ_ONLY = (
    "Look things up in long-term memory. action=list shows memories (newest first), "
    "action=search finds them by keywords (English or Chinese), action=read returns one memory "
    "in full (include_history=true adds its earlier versions; a skill's steps come parsed). "
    "Skills (type skill) are step-by-step procedures: search them before a recurring task."
)

# Offered to agents at work (MemoryAgent), not to the extractor: it already has its candidates.
DESCRIPTION_CONTEXT = (
    " action=context returns in one block what memory holds for a task: relevant past episodes, "
    "facts, skills and mistakes to avoid, weighted for the kind of task and kept within "
    "token_budget. Call it at the start of a task (query = the task in a sentence) before "
    "searching piecemeal; action=read with a slug it names gives that memory in full."
)

_WRITE_ACTIONS = (
    " action=write saves a new memory, update changes one (mode merge adds to it, replace "
    "rewrites it), delete moves it to the trash. Only a person can mark a memory reviewed. "
    "Save only durable facts the user would want remembered next time; never secrets.\n"
)
DESCRIPTION_WRITE = _WRITE_ACTIONS + TYPE_DECISION_TREE + "\n" + CONFIDENCE_RUBRIC

# The digest of the two guides above, for a tool surface that must stay small (the MCP server's
# schemas stay under MCP_SCHEMA_TOKEN_LIMIT; its "remember this" prompt has the full guides).
DESCRIPTION_WRITE_SHORT = (
    _WRITE_ACTIONS
    + "Type: skill (a reusable step-by-step procedure), project (this project's code and "
    "decisions; scope project), feedback (how the user wants you to work), user (who the user "
    "is), reference (a pointer outside); else do not save. Confidence: high only for a "
    "standing rule in the user's own words, quoted as source_quote (5+ characters); medium "
    "for habits and tastes; low for hedged or temporary things. The store lowers a "
    "confidence its quote does not support."
)

DESCRIPTION_READ_WRITE = DESCRIPTION_READ_ONLY + DESCRIPTION_WRITE

PARAMS = {
    "action": "What to do.",
    "slug": "The memory's id: lowercase words joined by hyphens, e.g. prefers-dark-mode.",
    "scope": "auto (global + this project), global or project.",
    "type": "user, feedback, project, reference or skill (for write/update).",
    "filter_type": "list/search: only this type (daily for journal entries, skill for procedures).",
    "include_daily": "list: include daily journal entries.",
    "query": "search: keywords.",
    "query_with_context": "search: keywords. context: the task in a sentence, e.g. fix the "
    "login crash on Safari.",
    "task_type": "context: exploration, implementation, debugging, review or refactoring "
    "(default: detected from the query).",
    "token_budget": f"context: the most tokens the answer may use (default "
    f"{config.TOOL_CONTEXT_DEFAULT_BUDGET}, at most {config.TOOL_CONTEXT_MAX_BUDGET}).",
    "limit": "list/search: how many results.",
    "offset": "read: first line to return (0-based).",
    "length": "read: number of lines to return.",
    "description": "One line (at most 120 characters) shown in the Memory Index.",
    "body": "The memory itself, in Markdown, at most 8 KiB. A skill's body has the sections "
    + SKILL_SECTIONS
    + "; or give `skill` instead.",
    "skill": "type skill: the procedure as fields instead of a body (the store writes the "
    "sections). Needs at least one step.",
    "when_to_use": "When the procedure applies.",
    "prerequisites": "What must be true or installed first.",
    "steps": "The steps, in order.",
    "common_errors": "What tends to go wrong, each with its fix.",
    "exit_criteria": "How to tell the task is done.",
    "example": "An example of using the procedure (optional).",
    "mode": "update: merge (add to the body) or replace.",
    "confidence": "high, medium or low (see the rubric).",
    "source_quote": "The user's exact words that support this memory (at most 80 characters).",
    "reasoning": "Why this is worth remembering.",
    "aliases": "Other names for the same thing (at most 8).",
    "supersedes": "Slug of a memory this one replaces.",
    "conflicts_with": "Slugs of memories this one contradicts.",
    "override_reject": "Why writing a slug a person deleted recently is right anyway.",
    "reason": "delete: why.",
    "include_history": "read: also list earlier versions.",
}

READ_ONLY_HINT = (
    "This MemoryManager is read-only here: use list, read or search. Memories are saved "
    "after the turn by the memory extractor."
)
DOWNGRADE_HINT = (
    "Confidence was lowered to {applied} because {why}. Add the user's exact words as "
    "source_quote to keep a higher confidence."
)
# action=context: the line after the context text, and the answers when it shows nothing.
CONTEXT_ACCOUNT = (
    "[context: {used} of {budget} tokens; task {task} ({source}); {left} left out{why}]"
)
CONTEXT_LEFT_FOR_BUDGET = ", {count} for the budget: a larger token_budget shows them"
CONTEXT_EMPTY = (
    "No memory matches this task yet (no episode, fact, skill or mistake to avoid). Go ahead "
    "without; action=search with other words if you expected something."
)
CONTEXT_NOTHING_FITS = (
    "Nothing fits in token_budget {budget}: ask again with a larger token_budget."
)

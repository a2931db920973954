"""Texts of the MCP server (mcp_server/): its instructions, resources and two prompts."""

from __future__ import annotations

from liveagent_memory.prompts.shared import CONFIDENCE_RUBRIC, TYPE_DECISION_TREE

INSTRUCTIONS = (
    "Long-term memory a person reviews. Read the memory://index resource (or call "
    "MemoryManager action=context with the task) before a task; every answer names the scope "
    "and project it used. Writes are saved unreviewed for the person to review."
)
INDEX_NAME = "Memory Index"
INDEX_DESCRIPTION = "What an agent should know up front in this workdir (global + project)."

REMEMBER_NAME = "remember_this"
REMEMBER_DESCRIPTION = "Save something to long-term memory (unreviewed until a person reviews it)."
REMEMBER_ARGUMENT = "What to remember, ideally in the user's own words."
REMEMBER_TEXT = (
    "Remember this for the next conversations:\n\n{what}\n\n"
    "First search MemoryManager for a memory on the same subject: update it if one exists, "
    "else write a new one. Quote the user's exact words as source_quote. Never save "
    "secrets. A person reviews what you save.\n\n" + TYPE_DECISION_TREE + "\n\n" + CONFIDENCE_RUBRIC
)

RECALL_NAME = "what_do_you_know"
RECALL_DESCRIPTION = "What long-term memory holds about a subject."
RECALL_ARGUMENT = "The subject, e.g. the deploy process or 部署流程."
RECALL_TEXT = (
    "What do you know about {about}? Call MemoryManager action=context with query "
    '"{about}", read the memories it names that matter, and answer from them only: say '
    "which memories you used (their slugs) and which are still unreviewed. If memory holds "
    "nothing about it, say so."
)

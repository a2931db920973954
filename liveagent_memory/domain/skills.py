"""The sections of a skill memory (SPEC 1.2): their keys, order, English headings, and the
text a new skill starts from.

The vocabulary only: store/skills.py is the one parser and renderer of the sections; the memory
editor starts a new skill from `TEMPLATE` (the canonical headings with empty items, which parse
back to an empty skill).
"""

from __future__ import annotations

WHEN_TO_USE = "when_to_use"
PREREQUISITES = "prerequisites"
STEPS = "steps"
COMMON_ERRORS = "common_errors"
EXIT_CRITERIA = "exit_criteria"
EXAMPLE = "example"
SECTION_ORDER = (WHEN_TO_USE, PREREQUISITES, STEPS, COMMON_ERRORS, EXIT_CRITERIA, EXAMPLE)
LIST_SECTIONS = frozenset({PREREQUISITES, STEPS, COMMON_ERRORS, EXIT_CRITERIA})
HEADINGS = {
    WHEN_TO_USE: "When to use",
    PREREQUISITES: "Prerequisites",
    STEPS: "Steps",
    COMMON_ERRORS: "Common errors",
    EXIT_CRITERIA: "Exit criteria",
    EXAMPLE: "Example",
}

# What the memory editor puts in a new skill's text: the canonical headings, empty items.
TEMPLATE = (
    "## When to use\n\n\n\n"
    "## Prerequisites\n\n- \n\n"
    "## Steps\n\n1. \n\n"
    "## Common errors\n\n- \n\n"
    "## Exit criteria\n\n- \n\n"
    "## Example\n\n"
)

"""Unrelated memories that give small test stores a realistic term distribution.

With a handful of documents every term is in most of them and BM25's idf says nothing; a real
store has many memories about other things, and so do the stores built with these.
"""

from __future__ import annotations

FILLER = [
    ("lint-rules", "Run ruff before every commit."),
    ("db-migrations", "Migrations live in the alembic folder."),
    ("coffee-order", "Flat white, no sugar."),
    ("editor", "The user edits in neovim with a dark theme."),
    ("ci-cache", "CI caches pip downloads between runs."),
    ("timezone", "Meetings are scheduled in UTC."),
    ("api-style", "Endpoints return JSON with snake_case keys."),
    ("backups", "Backups run nightly at two."),
    ("fonts", "Screenshots need a CJK font for Chinese labels."),
    ("tests-fast", "Keep unit tests under twenty seconds."),
]

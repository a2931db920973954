"""The order of a memory listing in SQL: one rendering of domain/sorting.py.

`order_sql` renders a sort field and direction as an ORDER BY on memory_meta `m` that ends in
the primary key, so every order is total: a page fetched at any offset follows the page before
it, and rows that tie on the column keep one order between calls.
"""

from __future__ import annotations

from typing import Any

from liveagent_memory.domain.sorting import (
    CONFIDENCE_RANK,
    RISK_RANK,
    TYPE_RANK,
    SortDirection,
    SortField,
)
from liveagent_memory.store.filters import REVIEWED_SQL

# The primary key last: no two rows tie, so the order is total (stable across pages).
TIEBREAK = "m.slug ASC, m.scope ASC, m.workdir_hash ASC"
NEWEST_FIRST = f"m.updated_at DESC, {TIEBREAK}"  # a listing's default order
RANK_PARAM = "project_rank_"  # bound parameters naming the projects in name order
# What the app shows as a memory's title: its description, else its slug.
TITLE_SQL = "(CASE WHEN m.description != '' THEN m.description ELSE m.slug END) COLLATE NOCASE"


def _ranked(value_sql: str, ranks: dict[str, int], *, otherwise: int) -> str:
    # The values are the domain's own codes (enum values), never input: safe to inline.
    cases = " ".join(f"WHEN '{value}' THEN {rank}" for value, rank in ranks.items())
    return f"CASE {value_sql} {cases} ELSE {otherwise} END"


def _scope_sql(project_order: list[str]) -> tuple[str, dict[str, Any]]:
    """Global first, then the projects in `project_order` (their hashes, by name)."""
    params = {f"{RANK_PARAM}{n}": h for n, h in enumerate(project_order)}
    cases = " ".join(f"WHEN :{name} THEN {n}" for n, name in enumerate(params))
    projects = f"CASE m.workdir_hash {cases} ELSE {len(params)} END" if cases else "0"
    return f"CASE m.scope WHEN 'global' THEN -1 ELSE {projects} END", params


def _column_sql(field: SortField, project_order: list[str]) -> tuple[str, dict[str, Any]]:
    if field is SortField.TITLE:
        return TITLE_SQL, {}
    if field is SortField.TYPE:
        return _ranked("m.type", TYPE_RANK, otherwise=len(TYPE_RANK)), {}
    if field is SortField.SCOPE:
        return _scope_sql(project_order)
    if field is SortField.REVIEWED:
        return f"(CASE WHEN {REVIEWED_SQL} THEN 0 ELSE 1 END)", {}
    if field is SortField.CONFIDENCE:
        value = "IFNULL(json_extract(m.source_json, '$.confidence'), 'unknown')"
        return _ranked(value, CONFIDENCE_RANK, otherwise=0), {}
    if field is SortField.RISK:
        # A flag of a level the domain does not name still counts as flagged (the filter's
        # rule: any non-empty flag), ranked as the lowest level.
        value = "IFNULL(json_extract(m.source_json, '$.risk_flag'), '')"
        return _ranked(value, {"": 0, **RISK_RANK}, otherwise=1), {}
    return "m.updated_at", {}


def order_sql(
    field: SortField | None,
    direction: SortDirection | None,
    *,
    project_order: list[str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """An ORDER BY list (without the keywords) on memory_meta `m`, and its parameters.

    None sorts newest first. `project_order` is the project hashes in name order, needed
    only by the scope column (`projects_by_name`). Rows that tie on the column are newest
    first, then in the primary key's order.
    """
    if field is None:
        return NEWEST_FIRST, {}
    column, params = _column_sql(field, project_order or [])
    way = "DESC" if direction is SortDirection.DESC else "ASC"
    then = TIEBREAK if field is SortField.UPDATED else NEWEST_FIRST
    return f"{column} {way}, {then}", params

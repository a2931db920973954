"""The read filter in SQL and FTS5: one rendering of domain/visibility.py and domain/filters.py.

`memory_filter` builds the MemoryFilter of a list or search request (its scope, project and
type checked by store/rules.py); `scope_sql` renders a Visibility as a condition on any table
with `scope` and `workdir_hash` columns (memory_meta, memory_files, the audit log), the
review part (`review_sql`) as conditions on memory_meta's source_json, the type and journal
part (`type_sql`) as conditions on memory_meta's type, and `filter_match` the place and type
as tokens of memory_search's `keys` column (store/rows.py `search_keys`), so
FTS5 itself keeps only the scopes and type asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.requests import FilterFields
from liveagent_memory.domain.schema import MemoryType
from liveagent_memory.domain.visibility import Visibility, visibility
from liveagent_memory.store import rules

if TYPE_CHECKING:  # store/context.py imports the index, which renders scopes with this module
    from liveagent_memory.store.context import StoreContext

PROJECT_PARAM = "visible_project"  # the bound parameter of the current project's hash
# A reviewed memory: its source_json `unreviewed` is absent, false or anything but 1.
REVIEWED_SQL = "IFNULL(json_extract(m.source_json, '$.unreviewed'), 0) != 1"


def memory_filter(
    ctx: StoreContext, req: FilterFields, *, purpose: str, daily_by_default: bool
) -> MemoryFilter:
    """The filter a list or search request asks for; typed errors for a bad scope or type, and
    for the project scope without a project ("{purpose} requires a workdir").

    Journal days stay when the request says so, or says nothing and `daily_by_default` (a
    search: the agent's search ranks them), or asks for type daily.
    """
    scope = rules.normalize_scope_filter(req.scope)
    project = ctx.hash_of(req.workdir, req.workdir_hash)
    memory_type = rules.normalize_type(req.type, allow_daily=True) if req.type else None
    daily = daily_by_default if req.include_daily is None else req.include_daily
    return MemoryFilter(
        visibility=visibility(
            scope, project, all_projects=req.include_all_projects, purpose=purpose
        ),
        type=memory_type,
        unreviewed=req.unreviewed,
        confidence=req.confidence,
        risk_flagged=req.risk_flagged,
        daily=daily or memory_type is MemoryType.DAILY,
    )


def scope_sql(seen: Visibility, alias: str = "") -> tuple[str | None, dict[str, Any]]:
    """The visible scopes as SQL on `{alias}scope` / `{alias}workdir_hash`; None for all.

    A global row's workdir_hash is '': saying so lets SQLite use the (scope, workdir_hash, slug)
    keys instead of scanning every global row.
    """
    if seen.everything:
        return None, {}
    parts: list[str] = []
    params: dict[str, Any] = {}
    if seen.global_scope:
        parts.append(f"({alias}scope = 'global' AND {alias}workdir_hash = '')")
    if seen.every_project:
        parts.append(f"{alias}scope = 'project'")
    elif seen.project is not None:
        parts.append(f"({alias}scope = 'project' AND {alias}workdir_hash = :{PROJECT_PARAM})")
        params[PROJECT_PARAM] = seen.project
    if not parts:
        return "0", {}  # nothing is visible
    return (parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"), params


def review_sql(flt: MemoryFilter) -> tuple[list[str], dict[str, Any]]:
    """The review part (reviewed, confidence, risk flag) as conditions on memory_meta `m`."""
    where: list[str] = []
    params: dict[str, Any] = {}
    if flt.unreviewed is True:
        where.append(f"NOT ({REVIEWED_SQL})")
    elif flt.unreviewed is False:
        where.append(REVIEWED_SQL)
    if flt.confidence is not None:
        where.append("IFNULL(json_extract(m.source_json, '$.confidence'), 'unknown') = :conf")
        params["conf"] = flt.confidence.value
    if flt.risk_flagged is True:
        where.append("IFNULL(json_extract(m.source_json, '$.risk_flag'), '') != ''")
    elif flt.risk_flagged is False:
        where.append("IFNULL(json_extract(m.source_json, '$.risk_flag'), '') = ''")
    return where, params


def type_sql(flt: MemoryFilter) -> tuple[list[str], dict[str, Any]]:
    """The type part (a type asked for, journal days left out) as conditions on memory_meta
    `m`."""
    if flt.type is not None:
        return ["m.type = :type"], {"type": flt.type.value}
    return ([] if flt.daily else ["m.type != 'daily'"]), {}


def filter_sql(flt: MemoryFilter) -> tuple[list[str], dict[str, Any]]:
    """The whole filter as conditions on memory_meta `m`."""
    where: list[str] = []
    clause, params = scope_sql(flt.visibility, "m.")
    if clause is not None:
        where.append(clause)
    types, type_params = type_sql(flt)
    reviews, review_params = review_sql(flt)
    return [*where, *types, *reviews], {**params, **type_params, **review_params}


def filter_match(flt: MemoryFilter) -> str | None:
    """Place and type as an FTS5 expression on memory_search's `keys` (see
    IndexRow.search_keys); None when they restrict nothing.

    FTS5's NOT binds tighter than AND and needs a positive side: a result starting with
    "NOT " goes after the match ("(match) NOT …"), any other joins it with AND.
    """
    seen = flt.visibility
    tokens: list[str] = []
    if seen.global_scope:
        tokens.append("sglobal")
    if seen.project is not None and not seen.every_project:
        tokens.append(f"p{seen.project}")
    clauses: list[str] = []
    if not seen.every_project:
        if not tokens:
            tokens.append("pnone")  # no token names "no scope": a name no row has
        clauses.append(
            f"keys : {tokens[0]}" if len(tokens) == 1 else f"keys : ({' OR '.join(tokens)})"
        )
    if flt.type is not None:
        clauses.append(f"keys : t{flt.type.value}")
    positive = " AND ".join(clauses)
    negative: list[str] = []
    if seen.every_project and not seen.global_scope:
        # Every project: no token names "any project", so the global scope is left out instead.
        negative.append("NOT keys : sglobal")
    if flt.type is None and not flt.daily:
        negative.append("NOT keys : tdaily")
    return " ".join([positive, *negative]).strip() or None

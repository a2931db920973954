"""The dates a search query names, against the dates a memory holds (SPEC 1.6, issue 17).

A memory's dates are the ones a real memory carries: when it was created and last updated
(local days of `created_at` / `updated_at`), a journal's day (`date_local`), and dates written
in its text with their year ("on 8 May 2023", "2023年5月8日"). The query's ranges come from
domain/dates.py. store/search.py asks three things: memories dated in the ranges as extra
keyword candidates (`date_clause`, joined to the MATCH), whether a candidate is dated in them
(`in_ranges`, for the boost), and for a query that is only a date, the memories of those days
(`dated_ids`, newest first). retrieval/hybrid.py asks which memories are dated in them
(`dated_keys`), to lift them on its vector side too.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain.clock import local_datetime, parse_local_date
from liveagent_memory.domain.dates import DateSpan, date_spans
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.store.filters import filter_sql


def _local_midnight_ms(day: date) -> int:
    return int(datetime.combine(day, time.min).astimezone().timestamp() * 1000)


def date_clause(spans: list[DateSpan], alias: str = "m.") -> tuple[str, dict[str, Any]]:
    """SQL on memory_meta `m`: created, updated or the journal's day inside one of `spans`."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    for n, span in enumerate(spans):
        low, high = _local_midnight_ms(span.start), _local_midnight_ms(span.end + timedelta(1))
        params.update(
            {
                f"dlo{n}": low,
                f"dhi{n}": high,
                f"dday0{n}": span.start.isoformat(),
                f"dday1{n}": span.end.isoformat(),
            }
        )
        parts.append(
            f"({alias}created_at >= :dlo{n} AND {alias}created_at < :dhi{n}) "
            f"OR ({alias}updated_at >= :dlo{n} AND {alias}updated_at < :dhi{n}) "
            f"OR ({alias}date_local BETWEEN :dday0{n} AND :dday1{n})"
        )
    return "(" + " OR ".join(f"({part})" for part in parts) + ")", params


def memory_days(created_ms: int, updated_ms: int, date_local: str | None) -> list[date]:
    """The days a memory's index row holds: created, updated and a journal's day."""
    days = [local_datetime(created_ms).date(), local_datetime(updated_ms).date()]
    journal = parse_local_date(date_local or "")
    if journal is not None:
        days.append(journal)
    return days


def in_ranges(spans: list[DateSpan], days: list[date], text: str, today: date) -> bool:
    """True when one of `days`, or a date with its year written in `text`, is in a span."""
    if any(span.covers(day) for span in spans for day in days):
        return True
    written = date_spans(text, today, relative=False)
    return any(
        span.start <= other.end and other.start <= span.end for span in spans for other in written
    )


def dated_ids(
    conn: sa.Connection, flt: MemoryFilter, spans: list[DateSpan], limit: int
) -> list[int]:
    """Ids (memory_files) of the memories the filter keeps dated in `spans`, newest first."""
    where, params = filter_sql(flt)
    clause, date_params = date_clause(spans)
    conditions = " AND ".join([*where, clause])
    rows = conn.execute(
        sa.text(
            "SELECT f.id FROM memory_meta m JOIN memory_files f ON m.scope = f.scope "
            "AND m.workdir_hash = f.workdir_hash AND m.slug = f.slug "
            f"WHERE {conditions} ORDER BY m.updated_at DESC, f.id DESC LIMIT :n"
        ),
        {**params, **date_params, "n": limit},
    ).all()
    return [int(row[0]) for row in rows]


def dated_keys(
    conn: sa.Connection, flt: MemoryFilter, spans: list[DateSpan], limit: int
) -> list[tuple[str, str, str]]:
    """(scope, workdir_hash, slug) of at most `limit` memories the filter keeps dated in `spans`
    (created, updated or a journal's day: `date_clause`), in no particular order: what hybrid
    search lifts on its vector side as `store/search.py` lifts them on the keyword side."""
    where, params = filter_sql(flt)
    clause, date_params = date_clause(spans)
    # memory_meta alone, unsorted: the join and the sort of `dated_ids` cost 8-16 ms at 10k
    # memories (bench/README.md, hybrid fusion fourth round), this 1-2 ms.
    rows = conn.execute(
        sa.text(
            "SELECT m.scope, m.workdir_hash, m.slug FROM memory_meta m "
            f"WHERE {' AND '.join([*where, clause])} LIMIT :n"
        ),
        {**params, **date_params, "n": limit},
    ).all()
    return [(str(row[0]), str(row[1]), str(row[2])) for row in rows]

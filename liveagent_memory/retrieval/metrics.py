"""Retrieval metrics: hit rate, tokens saved, layers loaded and fallbacks (SPEC 6 "Metrics").

Every `get_relevant_context` call adds to counters kept in `<store>/retrieval-metrics.sqlite3`
(store/metrics_db.py, a derived file of the store like the embedding cache: telemetry, not
memory — a lost or corrupt file starts again at zero). Counters only go up, in one transaction
per context, so processes that share the store add up instead of overwriting each other. Here
is what is counted and what the counts mean; a failure to count or to read the counts is
logged and never fails the context or the report.

What the numbers mean:
- hit rate: contexts that showed at least one memory or episode, over all contexts.
- tokens saved: per context, the estimated tokens of loading every memory and episode in its
  scope minus the tokens it used; summed.
- fallbacks: contexts whose searches ran on keywords alone although an embedding provider was
  configured (all providers failed, or no vectors yet), and contexts with no provider at all;
  plus the embedding chain's own counters (provider fallbacks, cache hits) from the cache.
- per day: the same counters for the journal's day of each context (`daily`), so a front end
  draws them over time; days without a context count zero.
- used: the patterns, skills and anti-patterns (memories of those kinds) contexts showed, how
  often and when last: what the agent actually learned from.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.retrieval.unified import Kind, MemoryContext
from liveagent_memory.store import metrics_db
from liveagent_memory.store.metrics_db import Use

log = logging.getLogger(__name__)


# The kinds of memory a context draws on that hold what was learned.
USED_KINDS = frozenset({Kind.SEMANTIC.value, Kind.SKILLS.value, Kind.ANTI_PATTERNS.value})


def metrics_path(store_root: Path) -> Path:
    return store_root / config.METRICS_FILENAME


def context_counts(context: MemoryContext) -> dict[str, int]:
    """What one context adds to the counters."""
    stats = context.retrieval_stats
    search = stats.get("search", {})
    shown = len(context.items())
    full_load = int(stats.get("full_load_tokens", 0))
    counts = {
        "contexts": 1,
        "hits": 1 if shown else 0,
        "items_shown": shown,
        "left_out_budget": int(stats.get("left_out", {}).get("budget", 0)),
        "tokens_budget": context.token_budget,
        "tokens_used": context.tokens_used,
        "tokens_full_load": full_load,
        "tokens_saved": max(full_load - context.tokens_used, 0),
        "sufficient": 1 if stats.get("sufficiency", {}).get("sufficient") else 0,
        "force_full": 1 if stats.get("force_full") else 0,
        "timeline": 1 if context.timeline_included else 0,
        f"task_type:{context.task_type}": 1,
        f"task_type_{context.task_type_source}": 1,
    }
    for layer, count in stats.get("layers", {}).items():
        counts[f"layer{layer}"] = int(count)
    mode = search.get("mode")
    if mode == "hybrid":
        counts["search_hybrid"] = 1
    elif search.get("failures") or (mode == "mixed"):
        counts["search_fallback"] = 1  # a provider was configured and failed
    elif search.get("provider") is None and search.get("reason"):
        # keyword-only by configuration or because nothing is embedded yet
        counts["search_keyword_only"] = 1
    return counts


def context_uses(context: MemoryContext) -> list[Use]:
    """The memories of learned kinds (patterns, skills, anti-patterns) the context showed."""
    return [
        Use(item.key, item.kind, item.title, json.dumps(item.ref, sort_keys=True))
        for item in context.items()
        if item.source == "memory" and item.kind in USED_KINDS
    ]


def record(store_root: Path, context: MemoryContext, *, now_ms: int, day: date) -> None:
    """Add one context to the store's counters, to `day`'s (the journal's day) and to the uses
    of what it showed (a failure to count never fails the context)."""
    counts = {name: value for name, value in context_counts(context).items() if value}
    path = metrics_path(store_root)
    try:
        metrics_db.add_counters(
            path, counts, now_ms=now_ms, day=day.isoformat(), uses=context_uses(context)
        )
    except StoreUnavailable as exc:
        # Trigger: a read-only or full store. Outcome: the agent still gets its context.
        log.warning("could not record retrieval metrics in %s: %s", path, exc)


def read_counters(store_root: Path) -> tuple[dict[str, int], str | None]:
    """The counters and since when they count; nothing written when there are none yet."""
    path = metrics_path(store_root)
    try:
        return metrics_db.read_counters(path)
    except StoreUnavailable as exc:
        # Trigger: a damaged or unreadable file. Outcome: the report starts from zero; the
        # next context recorded starts the file again.
        log.warning("retrieval metrics %s unreadable: %s", path, exc)
        return {}, None


def read_days(store_root: Path, today: date, days: int) -> list[dict[str, Any]]:
    """The last `days` days up to `today`, oldest first, each with its contexts, hit rate,
    tokens saved, fallbacks and task types (zeros for a day without a context)."""
    first = today - timedelta(days=days - 1)
    path = metrics_path(store_root)
    try:
        counted = metrics_db.read_daily(path, first.isoformat())
    except StoreUnavailable as exc:
        log.warning("retrieval metrics %s unreadable: %s", path, exc)  # as read_counters
        counted = {}
    out = []
    for offset in range(days):
        day = (first + timedelta(days=offset)).isoformat()
        out.append({"day": day, **day_summary(counted.get(day, {}))})
    return out


def day_summary(counters: Mapping[str, int]) -> dict[str, Any]:
    """One day's figures from its counters."""
    contexts = counters.get("contexts", 0)
    return {
        "contexts": contexts,
        "hits": counters.get("hits", 0),
        "hit_rate": round(counters.get("hits", 0) / contexts, 4) if contexts else None,
        "tokens_saved": counters.get("tokens_saved", 0),
        "fallbacks": counters.get("search_fallback", 0) + counters.get("search_keyword_only", 0),
        "task_types": {
            name.split(":", 1)[1]: value
            for name, value in sorted(counters.items())
            if name.startswith("task_type:")
        },
    }


def read_used(store_root: Path, limit: int) -> list[dict[str, Any]]:
    """The patterns, skills and anti-patterns contexts showed, most recently used first."""
    path = metrics_path(store_root)
    try:
        rows = metrics_db.read_uses(path, limit)
    except StoreUnavailable as exc:
        log.warning("retrieval metrics %s unreadable: %s", path, exc)
        return []
    return [{**row, "ref": json.loads(row["ref"])} for row in rows]


def reset(store_root: Path) -> bool:
    """Start counting again; report whether there was anything to forget."""
    return metrics_db.remove(metrics_path(store_root))


def summarize(counters: Mapping[str, int], embedding: Mapping[str, int]) -> dict[str, Any]:
    """The metrics report: rates and sums from the raw counters."""
    contexts = counters.get("contexts", 0)

    def rate(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    full = counters.get("tokens_full_load", 0)
    used = counters.get("tokens_used", 0)
    task_types = {
        name.split(":", 1)[1]: value
        for name, value in sorted(counters.items())
        if name.startswith("task_type:")
    }
    embedded_cache = embedding.get("cache_hits", 0) + embedding.get("cache_misses", 0)
    return {
        "contexts": contexts,
        "hit_rate": rate(counters.get("hits", 0), contexts),
        "items_shown": counters.get("items_shown", 0),
        "left_out_for_budget": counters.get("left_out_budget", 0),
        "tokens": {
            "used": used,
            "budget": counters.get("tokens_budget", 0),
            "full_load": full,
            "saved": counters.get("tokens_saved", 0),
            "saved_percent": round((full - used) / full * 100, 1) if full else None,
            "average_used": round(used / contexts, 1) if contexts else None,
        },
        "layers": {str(n): counters.get(f"layer{n}", 0) for n in (1, 2, 3)},
        "sufficient_at_summaries": counters.get("sufficient", 0),
        "force_full": counters.get("force_full", 0),
        "timeline_included": counters.get("timeline", 0),
        "task_types": task_types,
        "task_type_detected": counters.get("task_type_detected", 0),
        "fallbacks": {
            "hybrid": counters.get("search_hybrid", 0),
            "keyword_after_failure": counters.get("search_fallback", 0),
            "keyword_only": counters.get("search_keyword_only", 0),
            "embedding_provider_fallbacks": embedding.get("fallbacks", 0),
            "embedding_keyword_only": embedding.get("keyword_only", 0),
            "embedding_failures": {
                name.split(":", 1)[1]: value
                for name, value in sorted(embedding.items())
                if name.startswith("failures:")
            },
        },
        "embedding_cache_hit_rate": rate(embedding.get("cache_hits", 0), embedded_cache),
    }

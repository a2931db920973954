"""`liveagent-memory context "…"` and `liveagent-memory metrics`: task-aware context, its numbers.

`context` prints the context an agent would get (Markdown, on stdout, ready to paste or pipe)
and a short account of it on stderr: task type, tokens used of the budget, what was left out
and why, how the search ran. `--json` prints the whole MemoryContext instead.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.schema import TaskType

Payload = dict[str, Any]


def add_parsers(add: AddParser) -> None:
    """Register `context` and `metrics` on the main parser."""
    p = add("context", "the memory an agent should see for a task, within a token budget")
    p.add_argument("query", help='what the task is about, e.g. "fix the login crash"')
    p.add_argument(
        "--budget",
        type=int,
        default=config.CONTEXT_DEFAULT_BUDGET,
        metavar="TOKENS",
        help=f"never use more tokens than this (default {config.CONTEXT_DEFAULT_BUDGET})",
    )
    p.add_argument(
        "--task-type",
        choices=[t.value for t in TaskType],
        help="weigh the kinds of memory for this task (default: detected from the query)",
    )
    p.add_argument(
        "--top-k",
        type=int,
        default=config.CONTEXT_DEFAULT_TOP_K,
        metavar="N",
        help=f"candidates per kind of memory (default {config.CONTEXT_DEFAULT_TOP_K})",
    )
    p.add_argument(
        "--full", action="store_true", help="load full bodies, not only summaries, where they fit"
    )
    p.add_argument(
        "--no-metrics", action="store_true", help="leave this call out of the retrieval metrics"
    )

    p = add("metrics", "retrieval metrics: hit rate, tokens saved, layers loaded, fallbacks")
    p.add_argument("--reset", action="store_true", help="start counting again (after showing)")


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run `context` or `metrics`; typed errors propagate to the CLI's error handling."""
    out = streams.out
    as_json = bool(getattr(args, "json", False))
    if args.command == "metrics":
        data = dispatch(context, "memory_metrics", {"reset": args.reset})
        if as_json:
            emit_json(data, out)
        else:
            _show_metrics(data, out)
        return 0
    data = dispatch(
        context,
        "memory_context",
        {
            "query": args.query,
            "token_budget": args.budget,
            "task_type": args.task_type,
            "workdir": getattr(args, "workdir", None),
            "top_k": args.top_k,
            "force_full": args.full,
            "record_metrics": not args.no_metrics,
        },
    )
    if as_json:
        emit_json(data, out)
        return 0
    if data["text"]:
        out.write(data["text"])
    else:
        out.write(f"No memory matched {data['query']!r}.\n")
    _show_account(data, streams.err)
    return 0


def _show_account(data: Payload, out: TextIO) -> None:
    stats = data["retrieval_stats"]
    layers = stats["layers"]
    shown = sum(stats["shown"].values())
    out.write(
        f"-- {data['tokens_used']:,} of {data['token_budget']:,} tokens · task "
        f"{data['task_type']} ({data['task_type_source']}) · {shown} shown "
        f"({counted(layers['1'], 'index line')}, {counted(layers['2'], 'summary')}, "
        f"{layers['3']} in full)\n"
    )
    sufficiency = stats["sufficiency"]
    verdict = "summaries were enough" if sufficiency["sufficient"] else "bodies were wanted"
    out.write(f"-- {verdict}: {sufficiency['reason']}\n")
    left = stats["left_out"]
    if left:
        reasons = {
            "budget": "did not fit the budget",
            "rank": "ranked below the top of their kind",
            "weak_match": "matched too weakly",
        }
        parts = [f"{count} {reasons.get(reason, reason)}" for reason, count in left.items()]
        out.write(f"-- left out: {'; '.join(parts)}\n")
    if stats["full_load_tokens"]:
        out.write(
            f"-- loading everything would take about {stats['full_load_tokens']:,} tokens "
            f"({counted(stats['full_load_items'], 'item')}, memories and episodes): "
            f"{stats['savings_percent']}% saved\n"
        )
    search = stats["search"]
    how = search["mode"] if search["mode"] != "keyword" else "keyword search"
    if search.get("provider"):
        how += f" with {search['provider']}"
    if search.get("reason"):
        how += f" ({search['reason']})"
    out.write(f"-- {how}; {stats['elapsed_ms']} ms\n")


def _show_metrics(data: Payload, out: TextIO) -> None:
    contexts = data["contexts"]
    if not contexts:
        out.write('No contexts yet: `liveagent-memory context "…"` counts here.\n')
    else:
        tokens = data["tokens"]
        hit_rate = f"{data['hit_rate'] * 100:.1f}%" if data["hit_rate"] is not None else "-"
        out.write(f"contexts          {contexts:,} since {data['since']}\n")
        out.write(f"hit rate          {hit_rate} (contexts that showed at least one memory)\n")
        out.write(
            f"tokens used       {tokens['used']:,} (average {tokens['average_used']:,} "
            f"of budgets totalling {tokens['budget']:,})\n"
        )
        saved = tokens["saved_percent"]
        out.write(
            f"tokens saved      {tokens['saved']:,} vs loading everything"
            + (f" ({saved}%)" if saved is not None else "")
            + "\n"
        )
        layers = data["layers"]
        out.write(
            f"layers loaded     {counted(layers['1'], 'index line')}, "
            f"{counted(layers['2'], 'summary')}, {counted(layers['3'], 'full body')}\n"
        )
        out.write(f"left out (budget) {data['left_out_for_budget']:,}\n")
        if data["task_types"]:
            kinds = ", ".join(f"{name} {count}" for name, count in data["task_types"].items())
            out.write(f"task types        {kinds} ({data['task_type_detected']} detected)\n")
    fallbacks = data["fallbacks"]
    out.write(
        f"search            {fallbacks['hybrid']:,} hybrid, "
        f"{fallbacks['keyword_after_failure']:,} keyword after an embedding failure, "
        f"{fallbacks['keyword_only']:,} keyword only\n"
    )
    provider = counted(fallbacks["embedding_provider_fallbacks"], "provider fallback")
    out.write(f"embeddings        {provider}")
    rate = data["embedding_cache_hit_rate"]
    out.write(f", cache hit rate {rate * 100:.1f}%\n" if rate is not None else "\n")
    _show_days_and_uses(data, out)
    if data.get("reset"):
        out.write("Metrics reset: counting starts again.\n")


USED_KIND_WORDS = {"semantic": "pattern", "skills": "skill", "anti_patterns": "anti-pattern"}


def _show_days_and_uses(data: Payload, out: TextIO) -> None:
    """The last week's contexts per day, and the patterns and skills contexts used lately."""
    week = [day for day in data.get("days", [])[-7:] if day["contexts"]]
    if week:
        days = ", ".join(f"{day['day'][5:]} {day['contexts']}" for day in week)
        out.write(f"last 7 days       {days}\n")
    for position, used in enumerate(data.get("used", [])[:5]):
        label = "used lately" if position == 0 else ""
        times = counted(used["count"], "time")
        kind = USED_KIND_WORDS.get(used["kind"], used["kind"])
        out.write(f"{label:<17} {used['title']} ({kind}, {times})\n")


GROUP = Group(commands=("context", "metrics"), add_parsers=add_parsers, run=run)

"""`liveagent-memory episode …`: record a trace from JSON, list, search, show, the timeline."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import load_json
from liveagent_memory.domain.schema import EpisodeOutcome, TaskType

ACTIONS = ("record", "list", "search", "show", "timeline")
Payload = dict[str, Any]


def add_parsers(add: AddParser) -> None:
    """Register `episode ACTION [FILE|QUERY|ID]` on the main parser."""
    p = add(
        "episode",
        "episodes (what an agent did): record FILE.json|-, list, search QUERY, show ID, timeline",
    )
    p.add_argument("action", choices=ACTIONS)
    p.add_argument(
        "target",
        nargs="?",
        metavar="FILE|QUERY|ID",
        help="record: JSON file ('-': stdin); search: the words to look for; show: the id",
    )
    p.add_argument("--replace", action="store_true", help="record: overwrite an existing id")
    p.add_argument(
        "--date", help="list: the journal day YYYY-MM-DD (local time, rolling over at 04:00)"
    )
    p.add_argument("--utc-date", metavar="DATE", help="list: the UTC day (the episodes/ folder)")
    p.add_argument("--outcome", choices=[o.value for o in EpisodeOutcome])
    p.add_argument("--task-type", choices=[t.value for t in TaskType])
    p.add_argument("--limit", type=int, help="list, search: at most this many")
    p.add_argument("--offset", type=int, default=0)


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run one episode action; typed errors propagate to the CLI's error handling."""
    as_json = bool(getattr(args, "json", False))
    workdir = getattr(args, "workdir", None)
    if args.action == "record":
        payload = {"episode": _read_episode(args.target, streams.stdin), "replace": args.replace}
        if workdir:
            payload["workdir"] = workdir
        data = dispatch(context, "episode_record", payload)
        show: Callable[[Payload, TextIO], None] = _show_recorded
    elif args.action == "show":
        if not args.target:
            raise InvalidArgument("episode show needs an episode ID (see episode list)", field="id")
        data = dispatch(context, "episode_read", {"id": args.target})
        show = _show_episode
    elif args.action == "search":
        query: Payload = {"query": args.target or "", "workdir": workdir}
        if args.limit is not None:
            query["limit"] = args.limit
        data = dispatch(context, "episode_search", query)
        show = _show_hits
    elif args.action == "timeline":
        data = dispatch(context, "episode_timeline", {"workdir": workdir} if workdir else {})
        show = _show_timeline
    else:
        data = dispatch(
            context,
            "episode_list",
            {
                "date_local": args.date,
                "date": args.utc_date,
                "outcome": args.outcome,
                "task_type": args.task_type,
                "workdir": workdir,
                "limit": args.limit,
                "offset": args.offset,
            },
        )
        show = _show_list
    if as_json:
        emit_json(data, streams.out)
    else:
        show(data, streams.out)
    return 0


def _read_episode(target: str | None, stdin: TextIO) -> Any:
    if not target:
        raise InvalidArgument("episode record needs a JSON file, or - for stdin", field="episode")
    where = "stdin" if target == "-" else target
    try:
        text = stdin.read() if target == "-" else Path(target).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"cannot read {where}: {exc}", field="episode") from exc
    try:
        return load_json(text)
    except ValueError as exc:
        raise InvalidArgument(f"{where} is not valid JSON: {exc}", field="episode") from None


def _local(timestamp: str) -> str:
    moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _show_recorded(data: Payload, out: TextIO) -> None:
    episode = data["episode"]
    verb = "recorded" if data["created"] else "replaced"
    out.write(
        f"{verb} {episode['id']} ({episode['outcome']}, {episode['task_type']}, "
        f"importance {episode['importance']}) -> {data['path']}\n"
    )


def _show_list(data: Payload, out: TextIO) -> None:
    episodes = data["episodes"]
    if not episodes:
        out.write("No episodes.\n")
        return
    for row in episodes:
        out.write(
            f"{_local(row['timestamp'])}  {row['id']}  {row['outcome']:<7}  {row['task_type']}\n"
            f"    {row['goal']}\n"
        )
    more = " (more with --offset)" if data["truncated"] else ""
    out.write(f"{len(episodes)} of {counted(data['total'], 'episode')}{more}\n")


def _show_hits(data: Payload, out: TextIO) -> None:
    hits = data["hits"]
    if not hits:
        out.write("No episodes found.\n")
        return
    for hit in hits:
        out.write(
            f"{_local(hit['timestamp'])}  {hit['id']}  {hit['outcome']:<7}  {hit['task_type']}\n"
            f"    {hit['goal']}\n"
        )
        if hit["snippet"]:
            out.write(f"    {' '.join(hit['snippet'].split())}\n")
    out.write(f"{counted(len(hits), 'episode')} found\n")


def _show_episode(data: Payload, out: TextIO) -> None:
    episode = data["episode"]
    out.write(
        f"{episode['id']}  {episode['outcome']}  ({episode['task_type']}, {episode['phase']})\n"
    )
    out.write(f"goal: {episode['goal']}\n")
    if episode["summary"]:
        out.write(f"summary: {episode['summary']}\n")
    who = f" by {episode['agent']}" if episode["agent"] else ""
    out.write(f"started {_local(episode['timestamp'])}{who}; file {data['path']}\n")
    if episode["action_log"]:
        out.write("actions:\n")
        for action in episode["action_log"]:
            out.write(f"  {action['tool']} {action['input']} -> {action['output']}\n")
    if episode["errors_encountered"]:
        out.write("errors:\n")
        for error in episode["errors_encountered"]:
            fixed = f" (fixed: {error['resolution']})" if error["resolution"] else " (unresolved)"
            out.write(f"  {error['error_type']}: {error['message']}{fixed}\n")
    for decision in episode["key_decisions"]:
        out.write(f"decision: {decision}\n")


def _show_timeline(data: Payload, out: TextIO) -> None:
    context = data["active_context"]
    out.write(f"Current focus: {context['current_focus'] or '(no episodes)'}\n")
    for blocker in context["blocked_by"]:
        out.write(f"  blocked by {blocker['error_type']}: {blocker['message']}\n")
    for goal in context["next_up"]:
        out.write(f"  next: {goal}\n")
    if data["recent_actions"]:
        out.write("Recent actions:\n")
        for action in data["recent_actions"]:
            out.write(
                f"  {_local(action['time'])}  {action['action']} {action['target']} "
                f"-> {action['result']}\n"
            )
    if data["key_decisions"]:
        out.write("Key decisions:\n")
        for decision in data["key_decisions"]:
            out.write(f"  {decision['decision']}\n")


GROUP = Group(commands=("episode",), add_parsers=add_parsers, run=run)

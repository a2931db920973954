"""The memory commands: `call COMMAND [JSON]`, `commands`, `status` and the friendly ones.

Each friendly subcommand (`list`, `read`, `search`, `write`, `update`, `delete`, `accept`, `undo`,
`quota`, `reconcile`, `history`, `restore`, `daily`, `apply-batch`, `problems`) stands for one
named command: its arguments become that command's payload, and its answer is printed for a
person (or as JSON with `--json`). These commands never run the organizer pipeline.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from liveagent_memory.cli.app import display_available
from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, local_time
from liveagent_memory.cli.parser import UsageError
from liveagent_memory.commands import COMMANDS, dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain.clock import parse_local_date
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import load_json
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType

Payload = dict[str, Any]
# user, feedback, project, reference, skill (SPEC 1.2), in MemoryType's order
WRITE_TYPES = tuple(t.value for t in MemoryType if t in WRITABLE_TYPES)
SKILL_HELP = (
    "a skill's text has the sections ## When to use, ## Prerequisites, ## Steps (1. 2. ...), "
    "## Common errors (- error → fix), ## Exit criteria, ## Example"
)
SCOPES = ("global", "project")
TYPES_HELP = f"only this type: {', '.join(t.value for t in MemoryType)}"


# --- Parsers ------------------------------------------------------------------------------------


def add_parsers(add: AddParser) -> None:
    """Register `call`, `commands`, `status` and the friendly memory subcommands."""
    p = add("call", "run any named command with a JSON payload and print its JSON response")
    p.add_argument("name", metavar="COMMAND", help="e.g. memory_search (see 'commands')")
    p.add_argument("payload", nargs="?", metavar="JSON", help="JSON object ('-': stdin)")

    add("commands", "list the named commands")
    add("status", "where the store is, how many memories per scope, how full it is")
    _add_reads(add)
    _add_writes(add)
    _add_upkeep(add)


def _add_reads(add: AddParser) -> None:
    p = add("list", "list memories, newest first")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--type", help=TYPES_HELP)
    review = p.add_mutually_exclusive_group()
    review.add_argument("--unreviewed", dest="unreviewed", action="store_const", const=True)
    review.add_argument("--reviewed", dest="unreviewed", action="store_const", const=False)
    p.add_argument("--all-projects", action="store_true")
    p.add_argument("--include-daily", action="store_true")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int, default=0)

    p = add("read", "show one memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=SCOPES)

    p = add("search", "search memories")
    p.add_argument("query")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--type", help=TYPES_HELP)
    p.add_argument("--limit", type=int)
    p.add_argument("--all-projects", action="store_true")
    p.add_argument("--explain", action="store_true", help="show how each score was made")


def _add_writes(add: AddParser) -> None:
    p = add("write", "create a memory")
    p.add_argument("slug")
    p.add_argument("--type", required=True, choices=WRITE_TYPES, help=SKILL_HELP)
    p.add_argument("--description", required=True)
    p.add_argument("--scope", choices=SCOPES, help="default: project with --workdir, else global")
    _body_options(p)
    _evidence_options(p)

    p = add("update", "change a memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--type", choices=WRITE_TYPES, help=SKILL_HELP)
    p.add_argument("--description")
    p.add_argument("--mode", choices=("replace", "merge"))
    _body_options(p)
    _evidence_options(p)

    p = add("delete", "move a memory to the trash")
    p.add_argument("slug")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--reason")

    p = add("accept", "mark a memory reviewed")
    p.add_argument("slug")
    p.add_argument("--scope", choices=SCOPES)

    p = add("undo", "take back one change of a memory: an accept, edit, restore or delete")
    p.add_argument("slug")
    p.add_argument("change", metavar="VERSION", help="the change, as `history` lists it")
    p.add_argument("--scope", choices=SCOPES)


def _add_upkeep(add: AddParser) -> None:
    add("quota", "how full each scope is, and the memory space left")

    p = add("reconcile", "bring the index in line with the files")
    p.add_argument("--full", action="store_true", help="rebuild the index from every file")

    p = add("history", "earlier versions of a memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--limit", type=int)

    p = add("restore", "make an earlier version current (without VERSION: list them)")
    p.add_argument("slug")
    p.add_argument(
        "version", nargs="?", help="a version from 'history', e.g. audit:12 or trash:FILE"
    )
    p.add_argument("--scope", choices=SCOPES)

    p = add("daily", "show today's journal, or append TEXT to it")
    p.add_argument("text", nargs="?")
    p.add_argument("--date", help="YYYY-MM-DD (default: today, rolling over at 04:00)")

    p = add("apply-batch", "apply a JSON batch file (see memory_apply_batch)")
    p.add_argument("file", help="JSON file ('-': stdin)")

    add("problems", "files that could not be indexed, with the reason")


def _evidence_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--confidence", choices=("high", "medium", "low"))
    parser.add_argument(
        "--quote", dest="source_quote", metavar="TEXT", help="verbatim words the memory rests on"
    )
    parser.add_argument("--reasoning", metavar="TEXT")
    parser.add_argument("--alias", dest="aliases", action="append", metavar="TEXT")
    parser.add_argument("--conflicts-with", dest="conflicts_with", action="append", metavar="SLUG")
    parser.add_argument("--supersedes", metavar="SLUG")


def _body_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--body", metavar="TEXT", help="memory text")
    group.add_argument("--body-file", metavar="FILE", help="read the text from FILE ('-': stdin)")


# --- Running ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run `call`, `status` or a friendly subcommand (UsageError for bad input)."""
    as_json = bool(getattr(args, "json", False))
    if args.command == "call":
        name, payload = args.name, _call_payload(args, streams.stdin)
        as_json = True
    elif args.command != "status":
        name, payload = PAYLOADS[args.command](args, streams.stdin)
    # Usage errors come first; then the store opens before the command is looked up, so a
    # store that cannot open is the next error, as for every subcommand.
    context.open_store()
    if args.command == "status":
        data = _status(context, getattr(args, "workdir", None))
        (emit_json if as_json else _show_status)(data, streams.out)
        return 0
    if args.command == "restore" and args.version is None:
        raise UsageError(_versions_to_restore(context, payload))
    data = dispatch(context, name, payload)
    if as_json:
        emit_json(data, streams.out)
    elif args.command == "daily":
        (_show_daily if args.text is None else _show_mutation)(data, streams.out)
    elif args.command == "restore":
        _show_restored(data, _undo_version(context, payload), streams.out)
    else:
        SHOW[args.command](data, streams.out)
    # A batch whose items failed did not do what was asked, though the others were applied.
    return 1 if args.command == "apply-batch" and data["failed"] else 0


def _status(context: AppContext, workdir: str | None) -> Payload:
    info = dispatch(context, "memory_paths_info")
    quota = dispatch(context, "memory_quota_summary", {"workdir": workdir} if workdir else {})
    return {"paths": info, "quota": quota, "problems": context.store.problems()}


def show_commands(out: TextIO) -> None:
    """`liveagent-memory commands`: every named command with its summary."""
    for name, command in COMMANDS.items():
        out.write(f"{name:<28} {command.summary}\n")


def _call_payload(args: argparse.Namespace, stdin: TextIO) -> Payload:
    raw = args.payload
    if raw is None:
        payload: Any = {}
    else:
        text = stdin.read() if raw == "-" else raw
        try:
            payload = load_json(text) if text.strip() else {}
        except ValueError as exc:
            raise UsageError(f"the payload is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise UsageError("the payload must be a JSON object")
    workdir = getattr(args, "workdir", None)
    if workdir and "workdir" not in payload and "workdir" in _fields(args.name):
        payload["workdir"] = workdir
    return payload


def _fields(name: str) -> set[str]:
    command = COMMANDS.get(name) or COMMANDS.get(f"memory_{name}")
    return set(command.request.model_fields) if command else set()


# --- Turning arguments into command payloads ----------------------------------------------------


def _read_text(path: str, stdin: TextIO) -> str:
    if path == "-":
        return stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def _body(args: argparse.Namespace, stdin: TextIO) -> str | None:
    if args.body is not None:
        return str(args.body)
    if args.body_file is not None:
        return _read_text(args.body_file, stdin)
    return None


def _evidence(args: argparse.Namespace) -> Payload:
    fields = ("confidence", "source_quote", "reasoning", "aliases", "conflicts_with", "supersedes")
    return {f: getattr(args, f) for f in fields if getattr(args, f) is not None}


def _compact(payload: Payload) -> Payload:
    return {k: v for k, v in payload.items() if v is not None}


def _workdir(args: argparse.Namespace) -> str | None:
    return getattr(args, "workdir", None)


def _list(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_list", _compact(
        {
            "scope": args.scope,
            "workdir": _workdir(args),
            "type": args.type,
            "unreviewed": args.unreviewed,
            "include_all_projects": args.all_projects,
            "include_daily": args.include_daily,
            "limit": args.limit,
            "offset": args.offset,
        }
    )


def _read(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_read", _compact(
        {"slug": args.slug, "scope": args.scope, "workdir": _workdir(args)}
    )


def _search(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_search", _compact(
        {
            "query": args.query,
            "scope": args.scope,
            "workdir": _workdir(args),
            "type": args.type,
            "limit": args.limit,
            "include_all_projects": args.all_projects,
            "explain": args.explain,
        }
    )


def _write(args: argparse.Namespace, stdin: TextIO) -> tuple[str, Payload]:
    body = _body(args, stdin)
    if body is None:
        if stdin.isatty():
            raise UsageError("write needs --body, --body-file or text on standard input")
        body = stdin.read()
    workdir = _workdir(args)
    scope = args.scope or ("project" if workdir else "global")
    return "memory_write", _compact(
        {
            "slug": args.slug,
            "scope": scope,
            "workdir": workdir,
            "type": args.type,
            "description": args.description,
            "body": body,
            "actor": "user",
            **_evidence(args),
        }
    )


def _update(args: argparse.Namespace, stdin: TextIO) -> tuple[str, Payload]:
    return "memory_update", _compact(
        {
            "slug": args.slug,
            "scope": args.scope,
            "workdir": _workdir(args),
            "type": args.type,
            "description": args.description,
            "body": _body(args, stdin),
            "mode": args.mode,
            "actor": "user",
            **_evidence(args),
        }
    )


def _delete(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_delete", _compact(
        {
            "slug": args.slug,
            "scope": args.scope,
            "workdir": _workdir(args),
            "reason": args.reason,
            "actor": "user",
        }
    )


def _accept(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_accept", _compact(
        {"slug": args.slug, "scope": args.scope, "workdir": _workdir(args)}
    )


def _undo(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_undo", _compact(
        {"slug": args.slug, "change": args.change, "scope": args.scope, "workdir": _workdir(args)}
    )


def _quota(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_quota_summary", _compact({"workdir": _workdir(args)})


def _reconcile(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_reconcile", {"full": args.full}


def _history(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_history", _compact(
        {"slug": args.slug, "scope": args.scope, "workdir": _workdir(args), "limit": args.limit}
    )


def _restore(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_restore", _compact(
        {
            "slug": args.slug,
            "version": args.version,
            "scope": args.scope,
            "workdir": _workdir(args),
        }
    )


def _daily(args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    if args.date is not None and parse_local_date(args.date) is None:
        raise InvalidArgument(
            f"--date {args.date!r} is not a valid date: use YYYY-MM-DD, e.g. 2026-01-31",
            field="date",
        )
    if args.text is None:
        if args.date:
            return "memory_read", {"slug": f"daily-{args.date}", "scope": "global"}
        return "memory_today_daily", {}
    return "memory_daily_append", _compact(
        {"body": args.text, "local_date": args.date, "actor": "user"}
    )


def _apply_batch(args: argparse.Namespace, stdin: TextIO) -> tuple[str, Payload]:
    try:
        payload = load_json(_read_text(args.file, stdin))
    except ValueError as exc:
        raise UsageError(f"{args.file} is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise UsageError(f"{args.file} must hold a JSON object with 'items'")
    payload.setdefault("actor", "user")
    workdir = _workdir(args)
    if workdir and "workdir" not in payload:
        payload["workdir"] = workdir
    return "memory_apply_batch", payload


def _problems(_args: argparse.Namespace, _stdin: TextIO) -> tuple[str, Payload]:
    return "memory_problems", {}


def _history_of(context: AppContext, restore: Payload) -> Payload:
    """The history of the memory a `restore` payload names."""
    fields = {k: v for k, v in restore.items() if k in ("slug", "scope", "workdir")}
    return dispatch(context, "memory_history", fields)


def _versions_to_restore(context: AppContext, restore: Payload) -> str:
    """What `restore SLUG` without a VERSION says: the versions it could restore."""
    history = _history_of(context, restore)
    versions = [e for e in history["entries"] if e["restorable"]]
    slug = history["slug"]
    if not versions:
        return f"restore needs a VERSION, and {slug} has no earlier version to restore"
    lines = [f"restore needs a VERSION; {slug} has {counted(len(versions), 'earlier version')}:"]
    lines += [f"  {_version_line(entry)}" for entry in versions]
    lines.append(f"try: liveagent-memory restore {slug} {versions[0]['version']}")
    return "\n".join(lines)


def _undo_version(context: AppContext, restore: Payload) -> str | None:
    """The version a restore just kept of the text it replaced (restoring it undoes it)."""
    newest = _history_of(context, restore)["entries"][:1]
    return newest[0]["version"] if newest and newest[0]["op"] == "restore" else None


# The command and payload each friendly subcommand stands for.
PAYLOADS: dict[str, Callable[[argparse.Namespace, TextIO], tuple[str, Payload]]] = {
    "list": _list,
    "read": _read,
    "search": _search,
    "write": _write,
    "update": _update,
    "delete": _delete,
    "accept": _accept,
    "undo": _undo,
    "quota": _quota,
    "reconcile": _reconcile,
    "history": _history,
    "restore": _restore,
    "daily": _daily,
    "apply-batch": _apply_batch,
    "problems": _problems,
}


# --- Human output -------------------------------------------------------------------------------


def _entry_line(entry: Payload) -> str:
    flags = []
    if entry.get("unreviewed"):
        flags.append(f"unreviewed:{entry.get('confidence', '?')}")
    if entry.get("risk_flag"):
        flags.append(f"risk:{entry['risk_flag']}")
    where = "global" if entry["scope"] == "global" else f"project {entry['workdir_hash'][:8]}"
    mark = f" [{', '.join(flags)}]" if flags else ""
    return f"{entry['slug']}  ({entry['type']}, {where}){mark}\n    {entry['description']}"


def _show_list(data: Payload, out: TextIO) -> None:
    entries = data["entries"]
    if not entries:
        out.write("No memories.\n")
        return
    for entry in entries:
        out.write(_entry_line(entry) + "\n")
    more = " (more with --offset)" if data.get("truncated") else ""
    out.write(f"{len(entries)} of {counted(data['total'], 'memory')}{more}\n")


def _show_read(data: Payload, out: TextIO) -> None:
    entry = data["entry"]
    out.write(_entry_line(entry) + "\n")
    out.write(f"    updated {local_time(entry['updated_at'])}, file {entry['path']}\n")
    evidence = data["evidence"]
    if evidence.get("confidence") != "unknown":
        out.write(f"    confidence {evidence['confidence']}")
        if evidence.get("source_quote"):
            out.write(f", quote: {evidence['source_quote']!r}")
        out.write("\n")
    out.write("\n" + data["content"].rstrip() + "\n")


def _show_search(data: Payload, out: TextIO) -> None:
    matches = data["matches"]
    if not matches:
        out.write("No matches.\n")
        return
    for hit in matches:
        where = "global" if hit["scope"] == "global" else "project"
        out.write(f"{hit['score']:8.3f}  {hit['slug']}  ({hit['type']}, {where})\n")
        out.write(f"          {hit['snippet']}\n")
        if hit.get("explain"):
            for line in _explained(hit["explain"]):
                out.write(f"          {line}\n")


def _explained(ex: Payload) -> list[str]:
    """A search hit's explanation as lines: the keyword score's parts (when keywords found
    it), then how a hybrid search fused it (when it was one: retrieval/hybrid.py)."""
    lines = []
    if "raw" in ex:
        decay = f" x decay {ex['daily_decay']}" if ex.get("daily_decay") is not None else ""
        lines.append(
            f"= raw {ex['raw']} ({ex['via']}) x {ex['weight']} "
            f"({ex['weight_reason']}){decay} x reviewed {ex['reviewed_boost']}; "
            f"matched {', '.join(ex.get('matched', [])) or '-'}"
        )
    if "fused" in ex:
        keywords = (
            "not found by keywords"
            if ex.get("keyword_rank") is None
            else f"keywords #{ex['keyword_rank']} ({ex['keyword_part']})"
        )
        meaning = (
            "not found by meaning"
            if ex.get("vector_rank") is None
            else f"meaning #{ex['vector_rank']} ({ex['vector_part']}, cosine {ex['cosine']})"
        )
        if ex.get("vector_date_boost") is not None:
            meaning += f" x date {ex['vector_date_boost']}"
        lines.append(f"fused {ex['fused']}: {keywords}; {meaning}")
        if ex.get("vector_focus"):
            lines.append(f"meaning searched mostly as: {ex['vector_focus']}")
    return lines


def _show_mutation(data: Payload, out: TextIO) -> None:
    verb = "created" if data.get("created") else "deleted" if data.get("deleted") else "updated"
    out.write(f"{verb} {data['slug']} ({data['type']}, {data['scope']})")
    if data.get("path"):
        out.write(f" -> {data['path']}")
    out.write("\n")
    if data.get("applied_confidence"):
        note = " (downgraded: the quote is too short)" if data.get("auto_downgraded") else ""
        out.write(f"confidence {data['applied_confidence']}{note}\n")
    if data.get("unreviewed"):
        out.write("stored as unreviewed" + (" (risk flag)" if data.get("risk_flag") else "") + "\n")
    if data.get("warning"):
        out.write(f"warning: {data['warning']}\n")


# The quota ladder's levels (domain/quota.py) as a person reads them; the app's words are
# ui/strings.py `quota_level_text`, the same in English.
QUOTA_LEVEL_WORDS = {
    "normal": "plenty of room",
    "notice": "filling up",
    "degraded": "getting full",
    "critical": "nearly full",
    "exhausted": "full: new memories are refused",
}


def _show_quota(data: Payload, out: TextIO) -> None:
    room = data["tightest_headroom"]
    out.write(
        f"Memory space: {QUOTA_LEVEL_WORDS.get(data['ladder'], data['ladder'])} "
        f"({room} {'memory' if room == 1 else 'memories'} left in the fullest scope)\n"
    )
    for scope in data["scopes"]:
        name = (
            "global"
            if scope["scope"] == "global"
            else (f"project {scope['workdir'] or scope['workdir_hash']}")
        )
        out.write(
            f"  {name}: {scope['used']}/{scope['limit']} used, {scope['unreviewed']} unreviewed\n"
        )
    if data.get("compression_target") is not None:
        out.write(f"Organizer target: {data['compression_target']} per scope\n")


def _show_reconcile(data: Payload, out: TextIO) -> None:
    kind = "full rebuild" if data["full_rebuild"] else "incremental"
    out.write(
        f"Reconciled ({kind}) in {data['duration_ms']:.0f} ms: {counted(data['scanned'], 'file')}, "
        f"{data['added']} added, {data['updated']} updated, {data['removed']} removed, "
        f"{data['unchanged']} unchanged, {counted(data['archived_dailies'], 'journal')} "
        "archived\n"
    )
    _show_problems({"problems": data["problems"]}, out)


def _show_problems(data: Payload, out: TextIO) -> None:
    problems = data["problems"]
    if not problems:
        return
    verb = "was" if len(problems) == 1 else "were"
    out.write(f"{counted(len(problems), 'file')} {verb} not indexed (left untouched):\n")
    for problem in problems:
        out.write(f"  {problem['path']}: {problem['reason']}\n")


def _show_problem_list(data: Payload, out: TextIO) -> None:
    if not data["problems"]:
        out.write("No problems: every file is indexed.\n")
    _show_problems(data, out)


def _show_history(data: Payload, out: TextIO) -> None:
    state = "" if data["exists"] else " (deleted)"
    out.write(f"History of {data['slug']} ({data['scope']}){state}\n")
    for entry in data["entries"]:
        out.write(f"  {_version_line(entry)}\n")
    if data["entries"]:
        out.write(f"Undo one change with: liveagent-memory undo {data['slug']} VERSION\n")
    if any(entry["restorable"] for entry in data["entries"]):
        out.write(f"Restore a version with: liveagent-memory restore {data['slug']} VERSION\n")


def _version_line(entry: Payload) -> str:
    restore = "  restorable" if entry["restorable"] else ""
    extra = f" — {entry['reason']}" if entry.get("reason") else ""
    return (
        f"{local_time(entry['ts'])}  {entry['op']:<9} by {entry['who']:<10} "
        f"{entry['version']}{restore}{extra}"
    )


def _show_undone(data: Payload, out: TextIO) -> None:
    state = "deleted again" if data.get("deleted") else "back as it was"
    out.write(f"undone: {data['slug']} ({data['type']}, {data['scope']}) is {state}\n")
    if data.get("change"):
        out.write(
            f"this undo is version {data['change']}: take it back with "
            f"liveagent-memory undo {data['slug']} {data['change']}\n"
        )


def _show_restored(data: Payload, undo: str | None, out: TextIO) -> None:
    out.write(f"restored {data['slug']} ({data['type']}, {data['scope']})")
    out.write(f" -> {data['path']}\n" if data.get("path") else "\n")
    if undo:
        out.write(
            f"the text it replaced is version {undo}: undo with "
            f"liveagent-memory restore {data['slug']} {undo}\n"
        )


def _show_daily(data: Payload, out: TextIO) -> None:
    daily = data.get("daily", data)
    if daily is None:
        out.write("Nothing in today's journal yet.\n")
        return
    out.write(f"Journal {daily['entry']['date_local']}\n\n{daily['content'].rstrip()}\n")


def _show_batch(data: Payload, out: TextIO) -> None:
    total = data["applied"] + data["failed"] + data["skipped"]
    out.write(
        f"{counted(total, 'item')}: {data['applied']} applied, {data['failed']} failed, "
        f"{data['skipped']} skipped\n"
    )
    for item in data["items"]:
        if item["error"]:
            what = " ".join(str(part) for part in (item["op"], item["slug"]) if part)
            out.write(
                f"  item {item['index']} ({what}): {item['error']['message']} "
                f"[{item['error']['error']}]\n"
            )


def _show_status(data: Payload, out: TextIO) -> None:
    info = data["paths"]
    out.write(f"LiveAgent Memory store at {info['root']}\n")
    out.write(
        f"  {counted(info['memory_count'], 'memory')}, "
        f"{counted(info['daily_count'], 'journal day')}, "
        f"{counted(info['project_count'], 'project')}\n"
    )
    _show_quota(data["quota"], out)
    _show_problems({"problems": data["problems"]}, out)
    if display_available():
        out.write("Open the desktop app with: liveagent-memory app\n")
    else:
        out.write(
            "No display here: open the desktop app with `liveagent-memory app` on a machine "
            "with a display.\n"
        )
    out.write("Commands: liveagent-memory --help\n")


SHOW: dict[str, Callable[[Payload, TextIO], None]] = {
    "list": _show_list,
    "read": _show_read,
    "search": _show_search,
    "write": _show_mutation,
    "update": _show_mutation,
    "delete": _show_mutation,
    "accept": _show_mutation,
    "undo": _show_undone,
    "quota": _show_quota,
    "reconcile": _show_reconcile,
    "history": _show_history,
    "apply-batch": _show_batch,
    "problems": _show_problem_list,
}

GROUP = Group(
    commands=("call", "commands", "status", *PAYLOADS),
    add_parsers=add_parsers,
    run=run,
    opens_store=False,  # run opens it once the arguments are known to be usable
    # One command and exit: an organizer run this process creates is queued for the desktop
    # app (issue 12).
    executes_runs=False,
)

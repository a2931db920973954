"""Command-line interface: `liveagent-memory call COMMAND [JSON]` plus friendly subcommands.

Exit codes: 0 success, 1 a command error (the JSON error is printed), 2 a usage error.
`--home DIR` (or LIVEAGENT_MEMORY_HOME) picks the store, `--workdir DIR` the project; both
work before or after the subcommand. Every friendly subcommand takes `--json`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from liveagent_memory import __version__, cli_agent
from liveagent_memory.commands import COMMANDS, dispatch
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.inputs import clean_text, load_json
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType
from liveagent_memory.paths import default_home
from liveagent_memory.store.store import MemoryStore

EXIT_OK, EXIT_COMMAND_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left
Payload = dict[str, Any]
# user, feedback, project, reference, skill (SPEC 1.2), in MemoryType's order
WRITE_TYPES = tuple(t.value for t in MemoryType if t in WRITABLE_TYPES)
SKILL_HELP = (
    "a skill's text has the sections ## When to use, ## Prerequisites, ## Steps (1. 2. ...), "
    "## Common errors (- error → fix), ## Exit criteria, ## Example"
)


class UsageError(Exception):
    """Bad command-line input (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's hook; raise instead of exiting
        raise UsageError(f"{self.prog}: {message}")


def _common() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="store folder (default: $LIVEAGENT_MEMORY_HOME or ~/.liveagent/memory)",
    )
    common.add_argument(
        "--workdir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="project folder: adds its project memories",
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print the JSON response"
    )
    return common


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


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog="liveagent-memory",
        description="Long-term memory for AI agents that you can see, review and correct.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_text, description=help_text)

    p = add("call", "run any named command with a JSON payload and print its JSON response")
    p.add_argument("name", metavar="COMMAND", help="e.g. memory_search (see 'commands')")
    p.add_argument("payload", nargs="?", metavar="JSON", help="JSON object ('-': stdin)")

    add("commands", "list the named commands")
    add("status", "where the store is, how many memories per scope, the quota ladder")

    p = add("list", "list memories, newest first")
    p.add_argument("--scope", choices=("global", "project"))
    p.add_argument("--type", help=f"only this type: {', '.join(t.value for t in MemoryType)}")
    review = p.add_mutually_exclusive_group()
    review.add_argument("--unreviewed", dest="unreviewed", action="store_const", const=True)
    review.add_argument("--reviewed", dest="unreviewed", action="store_const", const=False)
    p.add_argument("--all-projects", action="store_true")
    p.add_argument("--include-daily", action="store_true")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int, default=0)

    p = add("read", "show one memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=("global", "project"))

    p = add("search", "search memories")
    p.add_argument("query")
    p.add_argument("--scope", choices=("global", "project"))
    p.add_argument("--type", help=f"only this type: {', '.join(t.value for t in MemoryType)}")
    p.add_argument("--limit", type=int)
    p.add_argument("--all-projects", action="store_true")
    p.add_argument("--explain", action="store_true", help="show how each score was made")

    p = add("write", "create a memory")
    p.add_argument("slug")
    p.add_argument("--type", required=True, choices=WRITE_TYPES, help=SKILL_HELP)
    p.add_argument("--description", required=True)
    p.add_argument(
        "--scope",
        choices=("global", "project"),
        help="default: project with --workdir, else global",
    )
    _body_options(p)
    _evidence_options(p)

    p = add("update", "change a memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=("global", "project"))
    p.add_argument("--type", choices=WRITE_TYPES, help=SKILL_HELP)
    p.add_argument("--description")
    p.add_argument("--mode", choices=("replace", "merge"))
    _body_options(p)
    _evidence_options(p)

    p = add("delete", "move a memory to the trash")
    p.add_argument("slug")
    p.add_argument("--scope", choices=("global", "project"))
    p.add_argument("--reason")

    p = add("accept", "mark a memory reviewed")
    p.add_argument("slug")
    p.add_argument("--scope", choices=("global", "project"))

    add("quota", "quota per scope and the ladder")

    p = add("reconcile", "bring the index in line with the files")
    p.add_argument("--full", action="store_true", help="rebuild the index from every file")

    p = add("history", "earlier versions of a memory")
    p.add_argument("slug")
    p.add_argument("--scope", choices=("global", "project"))
    p.add_argument("--limit", type=int)

    p = add("restore", "make an earlier version current (see history)")
    p.add_argument("slug")
    p.add_argument("version", help="a version from 'history', e.g. audit:12 or trash:FILE")
    p.add_argument("--scope", choices=("global", "project"))

    p = add("daily", "show today's journal, or append TEXT to it")
    p.add_argument("text", nargs="?")
    p.add_argument("--date", help="YYYY-MM-DD (default: today, rolling over at 04:00)")

    p = add("apply-batch", "apply a JSON batch file (see memory_apply_batch)")
    p.add_argument("file", help="JSON file ('-': stdin)")

    add("problems", "files that could not be indexed, with the reason")
    cli_agent.add_parsers(add)
    return parser


# --------------------------------------------------------------------------------------------
# Turning arguments into command payloads


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


def _payload(args: argparse.Namespace, stdin: TextIO) -> tuple[str, Payload]:
    """The command and payload a friendly subcommand stands for."""
    workdir = getattr(args, "workdir", None)
    command = args.command
    if command == "list":
        return "memory_list", _compact(
            {
                "scope": args.scope,
                "workdir": workdir,
                "type": args.type,
                "unreviewed": args.unreviewed,
                "include_all_projects": args.all_projects,
                "include_daily": args.include_daily,
                "limit": args.limit,
                "offset": args.offset,
            }
        )
    if command == "read":
        return "memory_read", _compact({"slug": args.slug, "scope": args.scope, "workdir": workdir})
    if command == "search":
        return "memory_search", _compact(
            {
                "query": args.query,
                "scope": args.scope,
                "workdir": workdir,
                "type": args.type,
                "limit": args.limit,
                "include_all_projects": args.all_projects,
                "explain": args.explain,
            }
        )
    if command == "write":
        body = _body(args, stdin)
        if body is None:
            if stdin.isatty():
                raise UsageError("write needs --body, --body-file or text on standard input")
            body = stdin.read()
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
    if command == "update":
        return "memory_update", _compact(
            {
                "slug": args.slug,
                "scope": args.scope,
                "workdir": workdir,
                "type": args.type,
                "description": args.description,
                "body": _body(args, stdin),
                "mode": args.mode,
                "actor": "user",
                **_evidence(args),
            }
        )
    if command == "delete":
        return "memory_delete", _compact(
            {
                "slug": args.slug,
                "scope": args.scope,
                "workdir": workdir,
                "reason": args.reason,
                "actor": "user",
            }
        )
    if command == "accept":
        return "memory_accept", _compact(
            {"slug": args.slug, "scope": args.scope, "workdir": workdir}
        )
    if command == "quota":
        return "memory_quota_summary", _compact({"workdir": workdir})
    if command == "reconcile":
        return "memory_reconcile", {"full": args.full}
    if command == "history":
        return "memory_history", _compact(
            {"slug": args.slug, "scope": args.scope, "workdir": workdir, "limit": args.limit}
        )
    if command == "restore":
        return "memory_restore", _compact(
            {"slug": args.slug, "version": args.version, "scope": args.scope, "workdir": workdir}
        )
    if command == "daily":
        if args.text is None:
            if args.date:
                return "memory_read", {"slug": f"daily-{args.date}", "scope": "global"}
            return "memory_today_daily", {}
        return "memory_daily_append", _compact(
            {"body": args.text, "local_date": args.date, "actor": "user"}
        )
    if command == "apply-batch":
        try:
            payload = load_json(_read_text(args.file, stdin))
        except ValueError as exc:
            raise UsageError(f"{args.file} is not valid JSON: {exc}") from exc
        if not isinstance(payload, dict):
            raise UsageError(f"{args.file} must hold a JSON object with 'items'")
        payload.setdefault("actor", "user")
        if workdir and "workdir" not in payload:
            payload["workdir"] = workdir
        return "memory_apply_batch", payload
    if command == "problems":
        return "memory_problems", {}
    raise UsageError(f"unknown command {command!r}")


def _check_locations(args: argparse.Namespace) -> None:
    """Hold `--home` and `--workdir` to the text rule of every request (domain/inputs.py).

    Every subcommand uses them, some before any request model sees them; a NUL in a path
    made the operating system calls raise a bare ValueError.
    """
    for name in ("home", "workdir"):
        value = getattr(args, name, None)
        if value is not None:
            setattr(args, name, clean_text(value, field=name))


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


# --------------------------------------------------------------------------------------------
# Human output


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")


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
    out.write(f"{len(entries)} of {data['total']} memories{more}\n")


def _show_read(data: Payload, out: TextIO) -> None:
    entry = data["entry"]
    out.write(_entry_line(entry) + "\n")
    out.write(f"    updated {_when(entry['updated_at'])}, file {entry['path']}\n")
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
            ex = hit["explain"]
            decay = f" x decay {ex['daily_decay']}" if ex.get("daily_decay") is not None else ""
            out.write(
                f"          = raw {ex['raw']} ({ex['via']}) x {ex['weight']} "
                f"({ex['weight_reason']}){decay} x reviewed {ex['reviewed_boost']}; "
                f"matched {', '.join(ex.get('matched', [])) or '-'}\n"
            )


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


def _show_quota(data: Payload, out: TextIO) -> None:
    out.write(f"Quota ladder: {data['ladder']} (tightest headroom {data['tightest_headroom']})\n")
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
        f"Reconciled ({kind}) in {data['duration_ms']:.0f} ms: {data['scanned']} files, "
        f"{data['added']} added, {data['updated']} updated, {data['removed']} removed, "
        f"{data['unchanged']} unchanged, {data['archived_dailies']} journals archived\n"
    )
    _show_problems({"problems": data["problems"]}, out)


def _show_problems(data: Payload, out: TextIO) -> None:
    problems = data["problems"]
    if not problems:
        return
    out.write(f"{len(problems)} file(s) could not be indexed (left untouched):\n")
    for problem in problems:
        out.write(f"  {problem['path']}: {problem['reason']}\n")


def _show_history(data: Payload, out: TextIO) -> None:
    state = "" if data["exists"] else " (deleted)"
    out.write(f"History of {data['slug']} ({data['scope']}){state}\n")
    for entry in data["entries"]:
        restore = "  restorable" if entry["restorable"] else ""
        extra = f" — {entry['reason']}" if entry.get("reason") else ""
        out.write(
            f"  {_when(entry['ts'])}  {entry['op']:<9} by {entry['who']:<10} "
            f"{entry['version']}{restore}{extra}\n"
        )


def _show_daily(data: Payload, out: TextIO) -> None:
    daily = data.get("daily", data)
    if daily is None:
        out.write("Nothing in today's journal yet.\n")
        return
    out.write(f"Journal {daily['entry']['date_local']}\n\n{daily['content'].rstrip()}\n")


def _show_batch(data: Payload, out: TextIO) -> None:
    out.write(f"{data['applied']} applied, {data['failed']} failed, {data['skipped']} skipped\n")
    for item in data["items"]:
        if item["error"]:
            out.write(
                f"  #{item['index']} {item['op']} {item['slug']}: "
                f"{item['error']['error']}: {item['error']['message']}\n"
            )


def _show_commands(out: TextIO) -> None:
    for name, command in COMMANDS.items():
        out.write(f"{name:<28} {command.summary}\n")


SHOW: dict[str, Callable[[Payload, TextIO], None]] = {
    "list": _show_list,
    "read": _show_read,
    "search": _show_search,
    "write": _show_mutation,
    "update": _show_mutation,
    "delete": _show_mutation,
    "accept": _show_mutation,
    "restore": _show_mutation,
    "quota": _show_quota,
    "reconcile": _show_reconcile,
    "history": _show_history,
    "apply-batch": _show_batch,
    "problems": _show_problems,
}


def _status(store: MemoryStore, workdir: str | None) -> Payload:
    info = dispatch(store, "memory_paths_info")
    quota = dispatch(store, "memory_quota_summary", {"workdir": workdir} if workdir else {})
    return {"paths": info, "quota": quota, "problems": store.problems()}


def _show_status(data: Payload, out: TextIO) -> None:
    info = data["paths"]
    out.write(f"LiveAgent Memory store at {info['root']}\n")
    out.write(
        f"  {info['memory_count']} memories, {info['daily_count']} journal days, "
        f"{info['project_count']} projects\n"
    )
    _show_quota(data["quota"], out)
    _show_problems({"problems": data["problems"]}, out)
    out.write("Run 'liveagent-memory --help' for commands.\n")


# --------------------------------------------------------------------------------------------


def _emit_json(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _run_agent_command(
    args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO, *, clock: Clock
) -> int:
    try:
        return cli_agent.run(args, stdin=stdin, out=out, err=err, clock=clock)
    except MemoryDomainError as exc:
        _emit_json(exc.to_dict(), out)
        return EXIT_COMMAND_ERROR
    except BrokenPipeError:
        raise  # the reader left; main() ends quietly
    except Exception as exc:  # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=err)
        _emit_json({"error": "internal_error", "message": f"{type(exc).__name__}: {exc}"}, out)
        return EXIT_COMMAND_ERROR


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    clock: Clock = system_clock,
) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 command error, 2 usage error).

    `clock` is the one time source of everything this run opens: the CLI is a composition
    root, so a test that made its data with a fake clock runs the CLI on that clock too.
    """
    try:
        return _main(argv, stdin=stdin, stdout=stdout, stderr=stderr, clock=clock)
    except BrokenPipeError:
        # Trigger: the output was piped into a reader that stopped early (`| head`).
        # Outcome: end quietly like other command-line tools, with no traceback; the
        # interpreter's final flush of stdout must not fail again.
        if stdout is None or stdout is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(
    argv: Sequence[str] | None,
    *,
    stdin: TextIO | None,
    stdout: TextIO | None,
    stderr: TextIO | None,
    clock: Clock,
) -> int:
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    as_json = getattr(args, "json", False)
    command = args.command or ("app" if cli_agent.display_available() else "status")
    if command == "commands":
        _show_commands(out)
        return EXIT_OK
    try:
        _check_locations(args)
    except InvalidArgument as exc:
        _emit_json(exc.to_dict(), out)
        return EXIT_COMMAND_ERROR
    if command in cli_agent.COMMANDS:
        return _run_agent_command(args, stdin, out, err, clock=clock)
    home = getattr(args, "home", None)
    workdir = getattr(args, "workdir", None)
    try:
        if command == "call":
            name, payload = args.name, _call_payload(args, stdin)
            as_json = True
        elif command != "status":
            name, payload = _payload(args, stdin)
    except UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    try:
        # This process answers one command and exits: it never executes an organizer run, so
        # one it creates is queued for the desktop app instead (issue 12).
        with MemoryStore.open(
            Path(home) if home else default_home(), clock=clock, executes_runs=False
        ) as store:
            if command == "status":
                data = _status(store, workdir)
                (_emit_json if as_json else _show_status)(data, out)
                return EXIT_OK
            data = dispatch(store, name, payload)
    except MemoryDomainError as exc:
        _emit_json(exc.to_dict(), out)
        return EXIT_COMMAND_ERROR
    except BrokenPipeError:
        raise  # the reader left; main() ends quietly
    except Exception as exc:  # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=err)
        _emit_json({"error": "internal_error", "message": f"{type(exc).__name__}: {exc}"}, out)
        return EXIT_COMMAND_ERROR
    if as_json:
        _emit_json(data, out)
    elif command == "daily":
        (_show_daily if args.text is None else _show_mutation)(data, out)
    else:
        show: Callable[[Payload, TextIO], None] = SHOW.get(command, _emit_json)
        show(data, out)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())

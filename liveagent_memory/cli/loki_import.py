"""`liveagent-memory import-loki PATH`: import a Loki Mode store (issue 18)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, write_table
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext

# How each kind of entry is named in the summary line.
NOUNS = {"anti_pattern": "anti-pattern"}  # the others are named as they are


def add_parsers(add: AddParser) -> None:
    """Register `import-loki`."""
    p = add(
        "import-loki",
        "import a Loki Mode store's episodes, patterns and skills (they wait for review)",
    )
    p.add_argument("path", metavar="PATH", help="a project folder or its .loki/memory folder")
    p.add_argument(
        "--dry-run", action="store_true", help="list what would be imported; write nothing"
    )
    p.add_argument(
        "--replace", action="store_true", help="overwrite episodes whose id is already stored"
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Import PATH (into --workdir's project when given); print what each entry became."""
    payload: dict[str, Any] = {
        "path": args.path,
        "dry_run": args.dry_run,
        "replace": args.replace,
    }
    workdir = getattr(args, "workdir", None)
    if workdir:
        payload["workdir"] = workdir
    data = dispatch(context, "loki_import", payload)
    if getattr(args, "json", False):
        emit_json(data, streams.out)
    else:
        _show(data, streams.out)
    return 0


def _show(data: dict[str, Any], out: TextIO) -> None:
    where = f"project {data['workdir']}" if data["workdir"] else "global memories"
    verb = "Would import" if data["dry_run"] else "Imported"
    out.write(f"{verb} {data['source']} into {where}\n")
    if data["items"]:
        rows = [["kind", "namespace", "id", "action", "as"]]
        for item in data["items"]:
            target = item["target"]
            if item["type"] is not None:
                target = f"{target} ({item['type']})"
            kind, namespace, source = item["kind"], item["namespace"], item["source_id"]
            rows.append([kind, namespace, source, item["action"], target])
        write_table(rows, out)
    for kind, actions in data["counts"].items():
        done = ", ".join(f"{action} {n}" for action, n in actions.items())
        out.write(f"{counted(sum(actions.values()), NOUNS.get(kind, kind))}: {done}\n")
    if data["dry_run"]:
        out.write("Dry run: nothing was written.\n")
    elif data["written"]:
        out.write(
            f"{counted(data['written'], 'entry')} written; the memories wait for review "
            "(list --unreviewed, then accept SLUG; or the app's Memories page).\n"
        )
    else:
        out.write("Nothing new: every entry is already in this store as it is.\n")
    if data["problems"]:
        out.write(f"Problems ({len(data['problems'])}), not imported:\n")
        for problem in data["problems"]:
            field = f" [{problem['field']}]" if problem.get("field") else ""
            out.write(f"  {problem['code']}{field}  {problem['path']}: {problem['message']}\n")


GROUP = Group(commands=("import-loki",), add_parsers=add_parsers, run=run)

"""`liveagent-memory projects`: this store's projects, and memory stores found under folders."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, write_table
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config


def add_parsers(add: AddParser) -> None:
    """Register `projects`."""
    p = add("projects", "every project with memories here, and memory stores found under folders")
    p.add_argument(
        "action",
        nargs="?",
        choices=("list", "pin", "merge"),
        default="list",
        help="list (default); pin: write --workdir's .liveagent/project-id, which you can "
        "commit, so every machine finds this project's memories; merge: move the memories of "
        "the project's other folders (one project used on two machines before they synced) "
        "into the folder --workdir opens",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="merge: say what would move, and change nothing",
    )
    p.add_argument(
        "--target",
        metavar="HASH",
        help="merge: the project folder to merge into (default: the one --workdir opens)",
    )
    p.add_argument(
        "--root",
        dest="roots",
        action="append",
        default=[],
        metavar="DIR",
        help="look for LiveAgent and Loki Mode stores under DIR, at any depth (repeatable)",
    )
    p.add_argument(
        "--max-depth",
        type=int,
        metavar="N",
        help=f"folders below a root to search (default {config.PROJECTS_DEFAULT_MAX_DEPTH})",
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """This store's projects, then the stores found under each --root, with their problems."""
    out = streams.out
    if args.action == "pin":
        return _pin(args, context, streams)
    if args.action == "merge":
        return _merge(args, context, streams)
    payload: dict[str, Any] = {"roots": args.roots}
    if args.max_depth is not None:
        payload["max_depth"] = args.max_depth
    data = dispatch(context, "projects_index", payload)
    if getattr(args, "json", False):
        emit_json(data, out)
        return 0
    projects = data["this_store"]["projects"]
    with_memories = counted(len(projects) - 1, "project")
    out.write(f"This store: {context.store.root} ({with_memories} with memories)\n")
    kinds = list(projects[0]["counts"]) if projects else []
    rows = [["scope", "memories", *kinds, "project folder"]]
    for project in projects:
        counts = project["counts"]
        where = "-"
        if project["scope"] == "project":
            folder = project["workdir"] or "(folder unknown)"
            where = f"{folder} ({project['workdir_hash']})"
        rows.append([project["scope"], sum(counts.values()), *counts.values(), where])
    write_table(rows, out)
    _write_portable(projects, out)
    if not data["roots"]:
        out.write("No folders searched for other stores (add --root DIR).\n")
        return 0
    totals = data["totals"]
    out.write(
        f"\nOther stores under {', '.join(data['roots'])} (max depth {data['max_depth']}): "
        f"{counted(totals['stores'], 'store')} found, "
        f"{counted(totals['dirs_scanned'], 'folder')} scanned "
        f"in {data['duration_ms']:.0f} ms\n"
    )
    if data["discovered"]:
        rows = [["kind", "name", "depth", "total", "projects", "counts", "path"]]
        for found in data["discovered"]:
            counts = dict(found["counts"])
            if found["kind"] == "liveagent" and found["episodes"]:
                counts["episodes"] = found["episodes"]
            detail = ", ".join(f"{k} {n}" for k, n in counts.items() if n) or "empty"
            path = found["path"] + ("  (this store)" if found["is_this_store"] else "")
            rows.append(
                [
                    found["kind"],
                    found["name"],
                    found["depth"],
                    found["total"],
                    found["project_count"],
                    detail,
                    path,
                ]
            )
        write_table(rows, out)
        out.write(
            f"Totals: {counted(totals['projects'], 'project')}, "
            f"{counted(totals['memories'], 'LiveAgent memory')}, "
            f"{counted(totals['episodes'], 'episode')}, {counted(totals['patterns'], 'pattern')}, "
            f"{counted(totals['skills'], 'skill')} (this store not included)\n"
        )
    problems = [p for f in data["discovered"] for p in f["problems"]]
    if problems:
        out.write(f"Problems ({len(problems)}):\n")
        for problem in problems:
            out.write(f"  {problem['code']}  {problem['path']}: {problem['message']}\n")
    if data["skipped_total"]:
        shown = len(data["skipped"])
        out.write(f"Skipped folders ({shown} of {data['skipped_total']}):\n")
        for skip in data["skipped"]:
            out.write(f"  {skip['reason']}  {skip['path']}: {skip['message']}\n")
    if totals["depth_limited"]:
        out.write(
            f"{counted(totals['depth_limited'], 'folder')} below --max-depth {data['max_depth']} "
            "not searched.\n"
        )
    return 0


def _write_portable(projects: list[dict[str, Any]], out: TextIO) -> None:
    """Each project seen at more than one path or kept in several folders, with its id."""
    for project in projects:
        paths, folders = project["paths"], project["folders"]
        if len(paths) < 2 and len(folders) < 2 and not project["marker_problem"]:
            continue
        out.write(f"\nProject {project['workdir_hash']}")
        out.write(f" ({project['project_id']}):\n" if project["project_id"] else ":\n")
        for seen in paths:
            machine = f" on {seen['machine']}" if seen["machine"] else ""
            out.write(f"  seen at {seen['path']}{machine}\n")
        if len(folders) > 1:
            out.write(f"  kept in folders {', '.join(folders)} (searches read the first)\n")
        if project["marker_problem"]:
            out.write(f"  {project['marker_problem']}: its .workdir.json cannot be read\n")


def _pin(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Write the project's id file into --workdir (a person asked for it)."""
    workdir = getattr(args, "workdir", None)
    if not workdir:
        streams.err.write("projects pin needs --workdir DIR: the project folder to pin\n")
        return 2
    data = dispatch(context, "project_pin", {"workdir": workdir})
    if getattr(args, "json", False):
        emit_json(data, streams.out)
        return 0
    did = "Wrote" if data["written"] else "Already there:"
    streams.out.write(
        f"{did} {data['id_file']} ({data['project_id']}); commit it so every machine finds "
        f"the memories of project {data['workdir_hash']}.\n"
    )
    return 0


def _merge(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Merge the project's other folders into the one --workdir opens (a person asked)."""
    workdir = getattr(args, "workdir", None)
    if not workdir:
        streams.err.write("projects merge needs --workdir DIR: a folder of the project\n")
        return 2
    payload: dict[str, Any] = {"workdir": workdir, "dry_run": args.dry_run}
    if args.target:
        payload["target"] = args.target
    data = dispatch(context, "project_merge", payload)
    if getattr(args, "json", False):
        emit_json(data, streams.out)
        return 0 if not data["problems"] else 1
    out = streams.out
    would = "Would merge" if data["dry_run"] else "Merged"
    out.write(
        f"{would} {', '.join(data['merged'])} into project folder {data['target']} "
        f"({data['project_id']}):\n"
    )
    rows = [["memory", "becomes", "how"]]
    rows += [[m["source"], m["path"] or "-", m["action"]] for m in data["moves"]]
    if data["moves"]:
        write_table(rows, out)
    out.write(
        f"{counted(len(data['moves']), 'memory')}, "
        f"{counted(data['episodes'], 'episode')}, "
        f"{counted(len(data['paths_added']), 'path')} added to the marker\n"
    )
    for key in data["removed"]:
        out.write(f"Removed the emptied folder {key}\n")
    for key, why in data["kept"].items():
        out.write(f"Kept folder {key}: {why}\n")
    if data["problems"]:
        out.write(f"Not moved ({len(data['problems'])}), fix and run it again:\n")
        for problem in data["problems"]:
            out.write(f"  {problem['code']}  {problem['path']}: {problem['message']}\n")
        return 1
    return 0


GROUP = Group(commands=("projects",), add_parsers=add_parsers, run=run)

"""`liveagent-memory sync status`: a store kept in a synced folder, its sync conflicts (issue 19;
store/conflicts.py). Resolving one is the `sync_resolve` command, or the app."""

from __future__ import annotations

import argparse

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, write_table
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext


def add_parsers(add: AddParser) -> None:
    """Register `sync`."""
    p = add("sync", "a synced store: its conflict copies and files holding git conflict markers")
    p.add_argument("action", choices=("status",))


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """List the sync conflicts; exit 0 whether or not there are any."""
    out = streams.out
    data = dispatch(context, "sync_status", {})
    if getattr(args, "json", False):
        emit_json(data, out)
        return 0
    if not data["conflicts"]:
        out.write(f"No sync conflicts in {context.store.root}.\n")
        return 0
    out.write(f"{counted(data['count'], 'sync conflict')} in {context.store.root}:\n")
    rows = [["tool", "kind", "memory", "version of", "file"]]
    for item in data["conflicts"]:
        memory = "journal" if item["journal"] else (item["slug"] or "-")
        rows.append([item["tool"], item["kind"], memory, item["original"], item["path"]])
    write_table(rows, out)
    out.write(
        "Keep one version in the app, or with: liveagent-memory call sync_resolve "
        '\'{"path": "FILE", "keep": "original"}\' (or "copy", or "merged" with "text"); '
        "the other version is kept in the history.\n"
    )
    return 0


GROUP = Group(commands=("sync",), add_parsers=add_parsers, run=run)

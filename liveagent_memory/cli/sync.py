"""`liveagent-memory sync`: a store kept in sync by git, or by a file-sync tool (issue 19).

`sync init REMOTE` makes the store folder a git repository syncing with REMOTE
(store/git_sync.py); `sync` commits, merges the remote's changes and pushes; `sync status` shows
the git state and the sync conflicts (store/conflicts.py). Resolving a conflict is the
`sync_resolve` command, or the app."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, write_table
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain.errors import InvalidArgument


def add_parsers(add: AddParser) -> None:
    """Register `sync`."""
    p = add(
        "sync",
        "sync the store with git (init REMOTE, then sync), or list its sync conflicts (status)",
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=("status", "init"),
        help="none: commit, pull (merge) and push now; init REMOTE: start syncing with a git "
        "remote; status: the git state and the conflicts to resolve",
    )
    p.add_argument("remote", nargs="?", metavar="REMOTE", help="with init: a git URL or path")


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run the sync, start one, or list its state; exit 0 whether or not there are conflicts."""
    if args.action == "init":
        if not args.remote:
            raise InvalidArgument(
                "sync init needs the REMOTE: liveagent-memory sync init URL", field="remote"
            )
        return _init(args, context, streams.out)
    if args.remote:  # only `sync status X` can get here: `sync X` is an invalid choice
        raise InvalidArgument(f"sync status takes no {args.remote!r}", field="remote")
    if args.action == "status":
        return _status(args, context, streams.out)
    return _sync(args, context, streams.out)


def _init(args: argparse.Namespace, context: AppContext, out: TextIO) -> int:
    data = dispatch(context, "sync_init", {"remote": _remote(args.remote)})
    if getattr(args, "json", False):
        emit_json(data, out)
        return 0
    if data["took_remote"]:
        out.write(
            f"{context.store.root} now syncs with {data['remote']} ({data['branch']}): took "
            f"its memories ({counted(data['indexed'], 'file')} indexed).\n"
        )
    else:
        out.write(
            f"{context.store.root} now syncs with {data['remote']} ({data['branch']}): its "
            "memories are pushed. On another machine: liveagent-memory sync init "
            f"{data['remote']} (in an empty store folder).\n"
        )
    return 0


def _remote(text: str) -> str:
    """A folder named relative to where the command runs, made absolute: git reads a relative
    remote from the store folder, not from here."""
    local = Path(text).expanduser()
    if "://" not in text and local.exists():
        return str(local.resolve())
    return text


def _sync(args: argparse.Namespace, context: AppContext, out: TextIO) -> int:
    data = dispatch(context, "sync_run", {})
    if getattr(args, "json", False):
        emit_json(data, out)
        return 0
    pushed = "pushed" if data["pushed"] else "nothing to push"
    out.write(
        f"Synced with {data['remote']}: {counted(data['pulled'], 'file')} pulled, {pushed}.\n"
    )
    merged = data["journals_merged"] + data["markers_merged"]
    if merged:
        out.write(f"{counted(merged, 'file')} edited on both sides merged (journals, projects).\n")
    if data["conflicts"]:
        out.write(
            f"{counted(data['conflicts'], 'memory')} edited on both sides: the other "
            "version is kept beside it; see liveagent-memory sync status.\n"
        )
    return 0


def _status(args: argparse.Namespace, context: AppContext, out: TextIO) -> int:
    data = dispatch(context, "sync_status", {})
    if getattr(args, "json", False):
        emit_json(data, out)
        return 0
    _write_git(data["git"], out)
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


def _write_git(git: dict[str, Any], out: TextIO) -> None:
    if not git.get("initialised"):
        out.write("Git sync: off (liveagent-memory sync init REMOTE starts it).\n")
        return
    if "error" in git:
        out.write(f"Git sync: {git['message']}\n")
        return
    out.write(
        f"Git sync: {git['remote']} ({git['branch']}): {git['ahead']} commits to push, "
        f"{git['behind']} to pull (as last fetched), "
        f"{counted(git['uncommitted'], 'file')} changed since the last sync.\n"
    )
    last = git.get("last_sync")
    if git.get("interrupted"):
        out.write("The last sync was interrupted; the next sync or open undoes it.\n")
    if last:
        result = "ok" if last["ok"] else "failed"
        out.write(f"Last sync: {last['at']}, {result}: {last['message']}\n")


GROUP = Group(commands=("sync",), add_parsers=add_parsers, run=run)

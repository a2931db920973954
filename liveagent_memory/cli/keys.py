"""`liveagent-memory key set|clear|status`: API keys in the system keyring, nowhere else."""

from __future__ import annotations

import argparse
import getpass

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.context import AppContext
from liveagent_memory.settings import PURPOSES


def add_parsers(add: AddParser) -> None:
    """Register `key`."""
    p = add("key", "store, clear or check an API key in the system keyring")
    p.add_argument("action", choices=("set", "clear", "status"))
    p.add_argument("--purpose", choices=PURPOSES, default="default")


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Store (from the terminal or one line of stdin), clear or check the key of a purpose."""
    secrets, out = context.secrets, streams.out
    if args.action == "status":
        status = secrets.status()
        out.write(status.message + "\n")
        if status.available:
            stored = "stored" if secrets.has(args.purpose) else "not stored"
            out.write(f"{args.purpose}: {stored}\n")
        return 0 if status.available else 1
    if args.action == "clear":
        existed = secrets.clear(args.purpose)
        out.write(f"{args.purpose}: {'cleared' if existed else 'no key was stored'}\n")
        return 0
    if streams.stdin.isatty():
        secret = getpass.getpass(f"API key for {args.purpose}: ")
    else:
        secret = streams.stdin.readline()
    secrets.set(args.purpose, secret)
    out.write(f"{args.purpose}: key stored in the system keyring\n")
    return 0


GROUP = Group(commands=("key",), add_parsers=add_parsers, run=run, opens_store=False)

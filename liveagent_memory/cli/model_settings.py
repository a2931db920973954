"""`liveagent-memory settings`: show or change the model settings (keys go to `key`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import emit_json
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.settings import PURPOSES, Settings

# (purpose, flag prefix, Settings field) of each model a person can choose
MODEL_FLAGS = (
    ("default", "", "default"),
    ("extraction", "extraction-", "extraction"),
    ("organizer", "organizer-", "organizer_model"),
)


def add_parsers(add: AddParser) -> None:
    """Register `settings`."""
    p = add("settings", "show or change model settings (keys go to the keyring: see 'key')")
    for purpose, flag, _field in MODEL_FLAGS:
        p.add_argument(f"--{flag}model", dest=f"{purpose}_model", metavar="MODEL")
        p.add_argument(f"--{flag}api-base", dest=f"{purpose}_api_base", metavar="URL")
    p.add_argument("--reviewer-mode", choices=config.REVIEWER_MODES)
    p.add_argument("--extraction", choices=("on", "off"), help="post-turn extraction on or off")


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Apply the options given, then show the settings and which keys are stored."""
    settings = context.settings.current()
    patch = _patch(args, settings)
    if patch:
        settings = context.settings.save(settings.merged(patch))
    status = context.secrets.status()
    data = {
        "settings": settings.to_dict(),
        "keyring": {"available": status.available, "backend": status.backend},
        "keys": {purpose: context.secrets.has(purpose) for purpose in PURPOSES},
    }
    if getattr(args, "json", False):
        emit_json(data, streams.out)
        return 0
    _show(settings, data["keys"], streams.out)
    if not status.available:
        streams.out.write(status.message + "\n")
    return 0


def _patch(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    for purpose, _flag, field in MODEL_FLAGS:
        model = getattr(args, f"{purpose}_model")
        base = getattr(args, f"{purpose}_api_base")
        if model is not None or base is not None:
            current = getattr(settings, field)
            patch[field] = {
                "model": current.model if model is None else model,
                "api_base": current.api_base if base is None else base,
            }
    if args.reviewer_mode:
        patch["reviewer_mode"] = args.reviewer_mode
    if args.extraction:
        patch["extraction_enabled"] = args.extraction == "on"
    return patch


def _show(settings: Settings, keys: dict[str, bool], out: TextIO) -> None:
    for purpose in PURPOSES:
        choice = settings.model_for(purpose)
        own = purpose == "default" or choice is not settings.default
        base = f" at {choice.api_base}" if choice.api_base else ""
        model = choice.model or "(none)"
        note = "" if own else " (same as default)"
        key = "key in keyring" if keys[purpose] else "no stored key"
        out.write(f"{purpose:<11} {model}{base}{note}; {key}\n")
    out.write(f"reviewer mode: {settings.reviewer_mode}\n")
    out.write(f"extraction: {'on' if settings.extraction_enabled else 'off'}\n")


# Settings live beside the store but are not in it: the store is not opened.
GROUP = Group(commands=("settings",), add_parsers=add_parsers, run=run, opens_store=False)

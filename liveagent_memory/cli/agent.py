"""`liveagent-memory overview` and `chat`: the agent integration seen from the terminal.

`overview` prints the Memory Index block an agent gets in its system prompt; `chat` wires a
chat model, the extraction model and a MemoryAgent from the run's AppContext and hands them
to the terminal chat loop (cli/chat.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.cli.chat import TerminalChat
from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted
from liveagent_memory.context import AppContext
from liveagent_memory.llm.client import UsageLedger


def add_parsers(add: AddParser) -> None:
    """Register `overview` and `chat`."""
    add("overview", "print the Memory Index block an agent gets in its system prompt")

    p = add("chat", "chat in the terminal with a model that has this memory")
    p.add_argument("--model", help="litellm model, e.g. openai/gpt-4o-mini (default: settings)")
    p.add_argument("--api-base", metavar="URL", help="OpenAI-compatible server URL")
    p.add_argument(
        "--wait", action="store_true", help="wait for each extraction and show its result"
    )
    p.add_argument("--read-only", action="store_true", help="the chat model may only read memories")


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Print the overview, or chat until the input ends."""
    workdir = getattr(args, "workdir", None)
    if args.command == "overview":
        agent = MemoryAgent(context.store, workdir=workdir, embeddings=context.embeddings)
        if getattr(args, "json", False):
            streams.out.write(json.dumps({"overview": agent.system_prompt_block()}) + "\n")
        else:
            streams.out.write(agent.system_prompt_block() + "\n")
        return 0
    return _chat(args, context, workdir, streams)


def _chat(
    args: argparse.Namespace, context: AppContext, workdir: str | None, streams: Streams
) -> int:
    settings = context.settings.current()
    ledger = UsageLedger()
    chat_llm = context.llm("default", model=args.model, api_base=args.api_base, ledger=ledger)
    chat_llm.config.require()
    # Extraction uses its own model when one is set, else the chat's (same key and server).
    extraction_llm = (
        context.llm("extraction", ledger=ledger) if settings.extraction.model else chat_llm
    )
    holder: list[TerminalChat] = []
    agent = MemoryAgent(
        context.store,
        workdir=workdir,
        llm=extraction_llm,
        reviewer_mode=settings.reviewer_mode,
        writable_tool=not args.read_only,
        extraction_enabled=settings.extraction_enabled,
        on_extraction=lambda result: holder[0].on_extraction(result) if holder else None,
        embeddings=context.embeddings,
    )
    out = streams.out
    chat = TerminalChat(agent, chat_llm, out=out, wait=args.wait, vectors=context.vector_builder())
    holder.append(chat)
    interactive = streams.stdin.isatty()
    if interactive:
        out.write(
            f"Chatting with {chat_llm.config.model}; memory at {context.store.root}. "
            "End with Ctrl-D or /quit.\n"
        )
    code = asyncio.run(chat.run(streams.stdin.readline, interactive=interactive))
    total = ledger.total()
    out.write(
        f"[tokens: {total.total_tokens} ({total.prompt_tokens} in, "
        f"{total.completion_tokens} out) over {counted(len(ledger.records), 'call')}]\n"
    )
    return code


GROUP = Group(commands=("overview", "chat"), add_parsers=add_parsers, run=run)

"""`MemoryAgent`: the small API a chat application uses to give its model a memory.

    agent = MemoryAgent(store, workdir="/src/shop", llm=LLMClient(ModelConfig("openai/gpt-4o")))
    system = base_prompt + "\\n\\n" + agent.system_prompt_block()
    tools = agent.tool_schemas()                       # MemoryManager (read-write, context)
    reply = agent.execute_tool("MemoryManager", call.arguments)   # for each tool call
    agent.note_turn_boundary(session)                  # when the user sends a new message
    result = await agent.request_extraction(session, messages, wait=True)
    await agent.aclose()

The store is passed in (composition root: the host decides which store and model to use), and
so may be the embedding chain source of search and context (default: the store's settings.json
and the keyring).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from liveagent_memory.agent.extraction.controller import ExtractionService, ResultHook
from liveagent_memory.agent.extraction.engine import ExtractionEngine
from liveagent_memory.agent.extraction.types import (
    ConversationState,
    ExtractionResult,
    ExtractionStatus,
    Message,
    ToolEvent,
    TurnInput,
)
from liveagent_memory.agent.manager_tool import ManagerToolExecutor, ToolOutcome
from liveagent_memory.agent.overview import render_overview
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import ListRequest, parse_request
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.prompts.manager_tool import NAME as MANAGER_TOOL
from liveagent_memory.retrieval.chain import ChainSource, unconfigured_source
from liveagent_memory.store.store import MemoryStore


class MemoryAgent:
    """Memory for one chat host: index block, tool, and post-turn extraction.

    `embeddings` is the provider chain source of the tool's search and context: the host's
    AppContext `embeddings` for the configured providers and keys; by default none configured
    (the local provider when installed, keys from the environment).
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        workdir: str | None = None,
        llm: LLMClient | None = None,
        reviewer_mode: str = config.DEFAULT_REVIEWER_MODE,
        writable_tool: bool = True,
        extraction_enabled: bool = True,
        on_extraction: ResultHook | None = None,
        embeddings: ChainSource | None = None,
    ) -> None:
        self.store = store
        self.workdir = workdir
        self.llm = llm
        self.writable_tool = writable_tool
        self.extraction_enabled = extraction_enabled and llm is not None
        self.embeddings = embeddings or unconfigured_source()
        self._engine = (
            ExtractionEngine(store, llm, reviewer_mode=reviewer_mode, embeddings=self.embeddings)
            if llm is not None
            else None
        )
        self._service = ExtractionService(
            self._run,
            clock=store.now_ms,
            has_unreviewed_candidate=self._has_unreviewed_candidate,
            on_result=on_extraction,
        )

    # --- system prompt and tool --------------------------------------------------------------
    def system_prompt_block(self) -> str:
        """The Memory Index block for the system prompt (REFERENCE A6)."""
        buckets = self.store.overview(self.workdir)
        return render_overview(buckets)

    def tool_schemas(self) -> list[dict[str, Any]]:
        executor = ManagerToolExecutor(
            self.store, writable=self.writable_tool, with_context=True, embeddings=self.embeddings
        )
        return [executor.schema()]

    def execute_tool(
        self,
        name: str,
        arguments: dict[str, Any] | str | None,
        *,
        conversation_id: str | None = None,
    ) -> ToolOutcome:
        """Run a MemoryManager call; other names get an `unknown_tool` error for the model."""
        if name != MANAGER_TOOL:
            error = InvalidArgument(
                f"there is no tool {name!r}; the memory tool is {MANAGER_TOOL}",
                code="unknown_tool",
            )
            return ToolOutcome(
                False, json.dumps(error.to_dict(), ensure_ascii=False), error.to_dict()
            )
        executor = ManagerToolExecutor(
            self.store,
            workdir=self.workdir,
            writable=self.writable_tool,
            with_context=True,  # agents at work ask for task context (SPEC 6)
            conversation_id=conversation_id,
            model=self.llm.config.model if self.llm else None,
            embeddings=self.embeddings,
        )
        return executor.execute(arguments)

    # --- extraction ---------------------------------------------------------------------------
    async def request_extraction(
        self,
        conversation_id: str,
        messages: Sequence[Message],
        *,
        tool_events: Sequence[ToolEvent] = (),
        summary: str | None = None,
        wait: bool = False,
    ) -> ExtractionResult:
        """Ask for extraction at the end of a turn.

        By default the run continues in the background and this returns at once with status
        `started`, `coalesced` or `skipped`; `wait=True` returns the finished run's result.
        """
        if not self.extraction_enabled:
            reason = "extraction-disabled" if self.llm is not None else "no-model-configured"
            return ExtractionResult(conversation_id, ExtractionStatus.SKIPPED, reason=reason)
        turn = TurnInput(
            conversation_id=conversation_id,
            messages=list(messages),
            workdir=self.workdir,
            tool_events=tuple(tool_events),
            summary=summary,
        )
        handle = self._service.request(turn)
        if wait:
            return await handle.wait()
        return handle.immediate

    def note_turn_boundary(self, conversation_id: str) -> None:
        self._service.note_turn_boundary(conversation_id)

    def cancel_extraction(self, conversation_id: str) -> None:
        """The user stopped the turn: cancel its extraction run."""
        self._service.cancel(conversation_id)

    async def dispose(self, conversation_id: str) -> None:
        """The conversation was deleted: cancel its run and forget its state."""
        await self._service.dispose(conversation_id)

    async def idle(self) -> None:
        """Wait for background extraction runs to finish (e.g. before exiting)."""
        await self._service.idle()

    async def aclose(self) -> None:
        await self._service.aclose()

    # --- internals ----------------------------------------------------------------------------
    async def _run(self, turn: TurnInput, state: ConversationState) -> ExtractionResult:
        assert self._engine is not None
        return await self._engine.run(turn, state)

    def _has_unreviewed_candidate(self, workdir: str | None) -> bool:
        where = {"workdir": workdir, "unreviewed": True, "limit": 1}
        listing = self.store.list_entries(parse_request(ListRequest, where, label="memory_list"))
        return bool(listing.entries)

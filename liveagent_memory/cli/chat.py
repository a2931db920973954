"""An example chat host in the terminal: the loop behind `liveagent-memory chat --model M`.

It shows the whole integration end to end: the Memory Index in the system prompt, the model
calling MemoryManager, and post-turn extraction after every answer (in the background, or with
`--wait` shown before the next prompt). When standard input is not a terminal it reads one user
turn per line, so a conversation can be scripted. Given the run's vector builder, it keeps the
local vector index built in the background while it runs (`embeddings status` shows a pass).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, TextIO

from liveagent_memory.agent.extraction.types import ExtractionResult
from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import LLMError, LLMNotConfigured
from liveagent_memory.domain.vector_build import VectorBuild
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.retrieval.vector_builder import VectorBuilder

SYSTEM_PROMPT = (
    "You are a helpful assistant with a long-term memory that the user can review. Use the "
    "Memory Index below; at the start of a task call MemoryManager `context` with the task in "
    "one sentence for what was done, learned and decided before; read a memory before relying "
    "on its details, and save something only when the user asks you to remember it. Answer "
    "concisely."
)


class TerminalChat:
    """A chat loop over text streams; the model and the memory agent are passed in."""

    def __init__(
        self,
        agent: MemoryAgent,
        llm: LLMClient,
        *,
        out: TextIO,
        wait: bool = False,
        conversation_id: str | None = None,
        vectors: VectorBuilder | None = None,
    ) -> None:
        """`vectors`, when given, keeps the local vector index built in the background while
        the chat runs (a pass at the start and at each turn, for what the last one saved)."""
        self.agent = agent
        self.vectors = vectors
        self._vector_pass: asyncio.Task[VectorBuild] | None = None
        self.llm = llm
        self.out = out
        self.wait = wait
        self.conversation_id = conversation_id or f"cli-{uuid.uuid4().hex[:12]}"
        self.messages: list[dict[str, Any]] = []

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def on_extraction(self, result: ExtractionResult) -> None:
        """Background results are printed as they arrive (hook for MemoryAgent)."""
        if not self.wait:
            self._say(f"[{result.summary_line()}]")

    async def turn(self, text: str) -> str:
        """One user turn: answer (with MemoryManager calls), then request extraction."""
        self._build_vectors()  # what the last turn's extraction saved
        self.agent.note_turn_boundary(self.conversation_id)
        system = SYSTEM_PROMPT + "\n\n" + self.agent.system_prompt_block()
        self.messages.append({"role": "user", "content": text})
        answer = await self._answer(system)
        self._say(f"assistant> {answer}")
        result = await self.agent.request_extraction(
            self.conversation_id, self.messages, wait=self.wait
        )
        if self.wait or result.status.value == "skipped":
            self._say(f"[{result.summary_line()}]")
        return answer

    async def _answer(self, system: str) -> str:
        tools = self.agent.tool_schemas()
        for _ in range(config.CHAT_MAX_TOOL_ROUNDS):
            completion = await self.llm.complete(
                [{"role": "system", "content": system}, *self.messages],
                tools=tools,
                purpose="chat",
            )
            self.messages.append(completion.assistant_message())
            if not completion.tool_calls:
                return completion.content
            for call in completion.tool_calls:
                outcome = self.agent.execute_tool(
                    call.name,
                    call.arguments if call.arguments is not None else call.raw_arguments,
                    conversation_id=self.conversation_id,
                )
                self._say(f"  (tool {call.name}: {'ok' if outcome.ok else 'error'})")
                self.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": outcome.content}
                )
        return "(stopped: too many tool calls in one turn)"

    async def run(self, read_line: Callable[[], str], *, interactive: bool) -> int:
        """Read turns until end of input; returns an exit code."""
        self._build_vectors()
        try:
            while True:
                if interactive:
                    self.out.write("you> ")
                    self.out.flush()
                line = await asyncio.to_thread(read_line)
                if not line:
                    break  # end of input
                text = line.strip()
                if not text:
                    continue
                if interactive and text in ("/quit", "/exit"):
                    break
                start = len(self.messages)
                try:
                    await self.turn(text)
                except LLMNotConfigured as exc:
                    self._say(f"error: {exc.message}")
                    return 1
                except LLMError as exc:
                    # The turn failed: drop all of it (user message, tool calls and results), so
                    # no dangling message or unanswered tool call is sent with the next turn.
                    del self.messages[start:]
                    self._say(f"error ({exc.code}): {exc.message}")
            await self.agent.idle()  # let background extraction finish before leaving
            return 0
        finally:
            await self._stop_vectors()
            await self.agent.aclose()

    def _build_vectors(self) -> None:
        """Start a background pass of the vector index, or ask the running one for another.

        It reads the memories on this loop's thread while the chat waits for input, and embeds
        on the builder's own thread; its progress goes to the build file (`embeddings status`),
        not into the conversation."""
        if self.vectors is None:
            return
        if self._vector_pass is not None and not self._vector_pass.done():
            self.vectors.changed()
        else:
            self._vector_pass = asyncio.create_task(self.vectors.arun())

    async def _stop_vectors(self) -> None:
        """End the pass under way after its current batch (what it embedded is kept)."""
        if self.vectors is None:
            return
        self.vectors.stop()
        if self._vector_pass is not None:
            await asyncio.wait({self._vector_pass})

"""Per-conversation extraction control: gates, atomic claim, coalescing, cancellation.

REFERENCE A8 / A13: the gates and the claim happen synchronously in `request()` — no await can
interleave, so two requests can never both start a run. Each run is an asyncio task owned here,
not by the chat request, so a new user turn does not cancel it; requests arriving during a run
are coalesced into one follow-up run with the newest turn. `dispose()` cancels and forgets.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from liveagent_memory.domain import config

from . import gating
from .context import last_user_message
from .types import ConversationState, ExtractionResult, ExtractionStatus, TurnInput

log = logging.getLogger(__name__)

RunFn = Callable[[TurnInput, ConversationState], Awaitable[ExtractionResult]]
ResultHook = Callable[[ExtractionResult], None]


@dataclass
class ExtractionHandle:
    """What `request()` returns at once: the immediate status and a way to await the outcome."""

    conversation_id: str
    status: ExtractionStatus
    reason: str | None = None
    _future: asyncio.Future[ExtractionResult] | None = field(default=None, repr=False)

    @property
    def immediate(self) -> ExtractionResult:
        return ExtractionResult(self.conversation_id, self.status, reason=self.reason)

    async def wait(self) -> ExtractionResult:
        """The run's result ("wait and show"); awaiting never cancels the run itself."""
        if self._future is None:
            return self.immediate
        return await asyncio.shield(self._future)


class ConversationController:
    """One conversation's state, its running task and at most one parked follow-up."""

    def __init__(
        self,
        conversation_id: str,
        run: RunFn,
        *,
        clock: Callable[[], int],
        has_unreviewed_candidate: Callable[[str | None], bool],
        on_result: ResultHook | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.state = ConversationState()
        self._run = run
        self._clock = clock
        self._has_unreviewed = has_unreviewed_candidate
        self._on_result = on_result
        self._task: asyncio.Task[None] | None = None
        self._current: asyncio.Future[ExtractionResult] | None = None
        self._parked: TurnInput | None = None
        self._parked_future: asyncio.Future[ExtractionResult] | None = None
        self.disposed = False

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def request(self, turn: TurnInput) -> ExtractionHandle:
        """Gate and claim synchronously; start, coalesce or skip."""
        cid = self.conversation_id
        if self.disposed:
            return self._skip("conversation-disposed")
        _, text = last_user_message(turn.messages)
        key = gating.message_key(len(turn.messages), text)
        reason = gating.gate(
            text,
            key=key,
            last_key=self.state.last_key,
            now_ms=self._clock(),
            last_run_at_ms=self.state.last_run_at_ms,
            dequeued=self.busy,  # a parked request runs right after the current one
            has_unreviewed_candidate=lambda: self._has_unreviewed(turn.workdir),
        )
        if reason is not None:
            return self._skip(reason)
        self.state.last_key = key
        loop = asyncio.get_running_loop()
        if self.busy:
            if self._parked_future is None or self._parked_future.done():
                self._parked_future = loop.create_future()
            self._parked = turn  # the newest turn wins; earlier parked waiters share its result
            log.info("extraction %s: coalesced into the follow-up run", cid)
            return ExtractionHandle(cid, ExtractionStatus.COALESCED, None, self._parked_future)
        future: asyncio.Future[ExtractionResult] = loop.create_future()
        self._start(turn, future)
        return ExtractionHandle(cid, ExtractionStatus.STARTED, None, future)

    def _skip(self, reason: str) -> ExtractionHandle:
        log.info("extraction %s skipped: %s", self.conversation_id, reason)
        return ExtractionHandle(self.conversation_id, ExtractionStatus.SKIPPED, reason)

    def _start(self, turn: TurnInput, future: asyncio.Future[ExtractionResult]) -> None:
        self.state.last_run_at_ms = self._clock()
        self._current = future
        self._task = asyncio.get_running_loop().create_task(
            self._drive(turn, future), name=f"memory-extraction:{self.conversation_id}"
        )
        # A task cancelled before its first step never enters `_drive`; settle its waiters here.
        self._task.add_done_callback(lambda _task: self._settle_cancelled(future))

    async def _drive(self, turn: TurnInput, future: asyncio.Future[ExtractionResult]) -> None:
        try:
            result = await self._run(turn, self.state)
        except asyncio.CancelledError:
            result = ExtractionResult(
                self.conversation_id, ExtractionStatus.CANCELLED, reason="cancelled"
            )
            self._settle(future, result)
            if self._task is asyncio.current_task():  # cancelled from outside, not by cancel()
                self._drop_parked()
            raise
        except Exception as exc:  # a bug: keep the conversation usable and report it
            log.exception("extraction %s crashed", self.conversation_id)
            result = ExtractionResult(
                self.conversation_id,
                ExtractionStatus.FAILED,
                reason="internal-error",
                note=f"{type(exc).__name__}: {exc}",
            )
        self._settle(future, result)
        if self._parked is not None and not self.disposed and self._task is asyncio.current_task():
            parked, parked_future = self._parked, self._parked_future
            self._parked, self._parked_future = None, None
            assert parked_future is not None
            self._start(parked, parked_future)

    def _settle(self, future: asyncio.Future[ExtractionResult], result: ExtractionResult) -> None:
        if not future.done():
            future.set_result(result)
        if self._on_result is not None:
            self._on_result(result)

    def _settle_cancelled(self, future: asyncio.Future[ExtractionResult]) -> None:
        if not future.done():
            result = ExtractionResult(
                self.conversation_id, ExtractionStatus.CANCELLED, reason="cancelled"
            )
            self._settle(future, result)

    def _drop_parked(self) -> None:
        if self._parked_future is not None and not self._parked_future.done():
            self._parked_future.set_result(
                ExtractionResult(
                    self.conversation_id, ExtractionStatus.CANCELLED, reason="cancelled"
                )
            )
        self._parked, self._parked_future = None, None

    def note_turn_boundary(self) -> None:
        """A new turn begins: forget this turn's written slugs and the throttle clock."""
        self.state.note_turn_boundary()

    def cancel(self) -> None:
        """The user pressed stop: cancel the running extraction and its follow-up.

        The controller is free at once: a request made right after this starts a new run
        instead of joining the one that is still unwinding.
        """
        self._drop_parked()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()

    async def dispose(self) -> None:
        """Cancel everything and wait until the task has unwound."""
        self.disposed = True
        task = self._task
        self.cancel()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until the running run and any follow-up have finished."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(asyncio.shield(self._task), return_exceptions=True)


class ExtractionService:
    """Controllers for many conversations (LRU of 128; busy ones are never evicted)."""

    def __init__(
        self,
        run: RunFn,
        *,
        clock: Callable[[], int],
        has_unreviewed_candidate: Callable[[str | None], bool],
        on_result: ResultHook | None = None,
    ) -> None:
        self._run = run
        self._clock = clock
        self._has_unreviewed = has_unreviewed_candidate
        self._on_result = on_result
        self._controllers: OrderedDict[str, ConversationController] = OrderedDict()

    def controller(self, conversation_id: str) -> ConversationController:
        found = self._controllers.get(conversation_id)
        if found is not None:
            self._controllers.move_to_end(conversation_id)
            return found
        made = ConversationController(
            conversation_id,
            self._run,
            clock=self._clock,
            has_unreviewed_candidate=self._has_unreviewed,
            on_result=self._on_result,
        )
        self._controllers[conversation_id] = made
        self._evict()
        return made

    def _evict(self) -> None:
        excess = len(self._controllers) - config.EXTRACTION_CONVERSATIONS_LRU
        for cid in list(self._controllers)[:-1]:  # never the one just asked for
            if excess <= 0:
                break
            if not self._controllers[cid].busy:
                del self._controllers[cid]
                excess -= 1

    def __contains__(self, conversation_id: str) -> bool:
        return conversation_id in self._controllers

    def __len__(self) -> int:
        return len(self._controllers)

    def request(self, turn: TurnInput) -> ExtractionHandle:
        return self.controller(turn.conversation_id).request(turn)

    def note_turn_boundary(self, conversation_id: str) -> None:
        if conversation_id in self._controllers:
            self._controllers[conversation_id].note_turn_boundary()

    def cancel(self, conversation_id: str) -> None:
        if conversation_id in self._controllers:
            self._controllers[conversation_id].cancel()

    async def dispose(self, conversation_id: str) -> None:
        controller = self._controllers.pop(conversation_id, None)
        if controller is not None:
            await controller.dispose()

    async def idle(self) -> None:
        for controller in list(self._controllers.values()):
            await controller.idle()

    async def aclose(self) -> None:
        for cid in list(self._controllers):
            await self.dispose(cid)

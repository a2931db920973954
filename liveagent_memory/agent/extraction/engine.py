"""One extraction run: context → model (lookups, SubmitMemoryPlan, one retry) → one batch.

REFERENCE A8–A9. The model sees the read-only MemoryManager and SubmitMemoryPlan. Without a
valid plan it is asked once more with only SubmitMemoryPlan attached; still nothing → noop with
a reason. Valid items are applied in one batch (MemoryStore.apply_batch); the store call is
synchronous, so a cancelled run never half-applies a plan.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from liveagent_memory.agent.manager_tool import ManagerToolExecutor, tool_schema
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import LLMError, MemoryDomainError
from liveagent_memory.domain.requests import (
    BatchRequest,
    ListRequest,
    RecentRejectionsRequest,
    parse_request,
)
from liveagent_memory.llm.client import LLMClient, ToolCall
from liveagent_memory.prompts import extraction as prompt
from liveagent_memory.prompts.manager_tool import NAME as MANAGER_TOOL
from liveagent_memory.retrieval.chain import ChainSource
from liveagent_memory.store.store import MemoryStore

from . import context as ctx
from .plan import PlanShapeError, ValidatedPlan, batch_payload, plan_tool_schema, validate_plan
from .types import ConversationState, ExtractionResult, ExtractionStatus, ItemIssue, TurnInput

log = logging.getLogger(__name__)

NO_PLAN = "no-plan-submitted"
INVALID_PLAN = "invalid-plan-arguments"
MODEL_NOOP = "model-noop"


@dataclass
class _Tally:
    """Model calls and tokens of one run (the client's ledger is shared across runs)."""

    calls: int = 0
    tokens: int = 0


class ExtractionEngine:
    """Runs extraction for one store with one model client.

    `embeddings` is the chain source of the model's lookups (the read-only MemoryManager's
    search); None: the tool's default (nothing configured).
    """

    def __init__(
        self,
        store: MemoryStore,
        llm: LLMClient,
        *,
        reviewer_mode: str = config.DEFAULT_REVIEWER_MODE,
        clock: Callable[[], int] | None = None,
        embeddings: ChainSource | None = None,
    ) -> None:
        self.store = store
        self.llm = llm
        self.reviewer_mode = reviewer_mode
        self._clock = clock or store.now_ms
        self.embeddings = embeddings

    # --- context ----------------------------------------------------------------------------
    def build_context(self, turn: TurnInput, state: ConversationState) -> ctx.ExtractionContext:
        now = self._clock()
        # The workdir is the host's text: checked as the list command would check it.
        listing = self.store.list_entries(
            parse_request(
                ListRequest,
                {"workdir": turn.workdir, "limit": config.EXTRACTION_CANDIDATES_SCAN},
                label="memory_list",
            )
        )
        rejections = self.store.recent_rejections(
            parse_request(
                RecentRejectionsRequest,
                {
                    "workdir": turn.workdir,
                    "since_days": config.EXTRACTION_REJECTION_DAYS,
                    "limit": config.EXTRACTION_REJECTION_LIMIT,
                },
                label="memory_recent_rejections",
            )
        )
        events = list(turn.tool_events) or ctx.tool_events_from_messages(turn.messages)
        return ctx.ExtractionContext(
            summary=ctx.earlier_summary(turn.messages, turn.summary),
            rejections=ctx.rejection_lines(rejections, now),
            candidates=ctx.candidate_lines(listing.entries, now),
            written=list(state.written),
            mutations=ctx.mutation_digest(events, turn.workdir),
            window=ctx.conversation_window(turn.messages),
            workdir=turn.workdir,
            rejected_slugs=frozenset(entry.slug for entry in rejections),
        )

    def messages(self, context: ctx.ExtractionContext) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": prompt.instructions(self.reviewer_mode)},
            {"role": "user", "content": context.render()},
        ]

    # --- run --------------------------------------------------------------------------------
    async def run(self, turn: TurnInput, state: ConversationState) -> ExtractionResult:
        started = time.monotonic()
        tally = _Tally()
        result = await self._run(turn, state, tally)
        result.model = self.llm.config.model
        result.model_calls = tally.calls
        result.total_tokens = tally.tokens
        result.duration_ms = int((time.monotonic() - started) * 1000)
        log.info("extraction %s: %s", turn.conversation_id, result.summary_line())
        return result

    async def _run(
        self, turn: TurnInput, state: ConversationState, tally: _Tally
    ) -> ExtractionResult:
        cid = turn.conversation_id
        context = self.build_context(turn, state)
        messages = self.messages(context)
        lookup = ManagerToolExecutor(
            self.store, workdir=turn.workdir, writable=False, embeddings=self.embeddings
        )

        def check(arguments: dict[str, Any] | None) -> tuple[ValidatedPlan | None, str | None]:
            if arguments is None:
                return None, None
            try:
                plan = validate_plan(
                    arguments,
                    workdir=turn.workdir,
                    written=set(state.written),
                    rejected=context.rejected_slugs,
                )
            except PlanShapeError as exc:  # a plan call, but not a plan: retry like bad JSON
                return None, str(exc)
            return plan, None

        try:
            arguments, problem = await self._ask(messages, lookup, tally)
            plan, shape_problem = check(arguments)
            problem = problem or shape_problem
            if plan is None:
                messages.append({"role": "user", "content": self._nudge(problem)})
                arguments, problem = await self._ask(messages, None, tally)
                plan, shape_problem = check(arguments)
                problem = problem or shape_problem
        except LLMError as exc:
            return ExtractionResult(cid, ExtractionStatus.FAILED, reason=exc.code, note=exc.message)
        if plan is None:
            reason = INVALID_PLAN if problem else NO_PLAN
            return ExtractionResult(cid, ExtractionStatus.NOOP, reason=reason, note=problem or "")
        return self._apply(turn, state, plan)

    def _nudge(self, problem: str | None) -> str:
        return prompt.RETRY_NUDGE + (f" Your last call was unusable: {problem}" if problem else "")

    async def _ask(
        self, messages: list[dict[str, Any]], lookup: ManagerToolExecutor | None, tally: _Tally
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Talk to the model until it submits a plan, stops, or runs out of lookups.

        Returns (plan arguments, None), or (None, why the submitted plan was unusable), or
        (None, None) when no plan was submitted. `messages` is extended with the exchange so a
        retry continues the same conversation.
        """
        tools = [plan_tool_schema()]
        if lookup is not None:
            tools.insert(0, tool_schema(writable=False))
        lookups = 0
        while True:
            tally.calls += 1
            completion = await self.llm.complete(messages, tools=tools, purpose="extraction")
            tally.tokens += completion.usage.total_tokens
            plan_call = next((c for c in completion.tool_calls if c.name == prompt.PLAN_TOOL), None)
            if plan_call is not None and plan_call.arguments is not None:
                return plan_call.arguments, None
            if not completion.tool_calls:
                if completion.content.strip():
                    messages.append(completion.assistant_message())
                return None, None
            messages.append(completion.assistant_message())
            for call in completion.tool_calls:
                messages.append(self._tool_reply(call, lookup))
            if plan_call is not None:
                return None, plan_call.argument_error
            lookups += 1
            if lookup is None or lookups >= config.EXTRACTION_MAX_LOOKUPS:
                return None, None

    @staticmethod
    def _tool_reply(call: ToolCall, lookup: ManagerToolExecutor | None) -> dict[str, Any]:
        if call.name == prompt.PLAN_TOOL:
            content = _error("invalid_arguments", str(call.argument_error))
        elif call.name == MANAGER_TOOL and lookup is not None:
            if call.arguments is None:
                content = _error("invalid_arguments", "arguments are not a JSON object")
            else:
                content = lookup.execute(call.arguments).content
        else:
            available = ", ".join(([MANAGER_TOOL] if lookup else []) + [prompt.PLAN_TOOL])
            content = _error(
                "unknown_tool", f"there is no tool {call.name!r} here; available: {available}"
            )
        return {"role": "tool", "tool_call_id": call.id, "content": content}

    # --- apply ------------------------------------------------------------------------------
    def _apply(
        self, turn: TurnInput, state: ConversationState, plan: ValidatedPlan
    ) -> ExtractionResult:
        cid = turn.conversation_id
        issues = [
            ItemIssue(r.index, r.code, "validation", r.slug, r.message) for r in plan.rejections
        ]
        result = ExtractionResult(
            cid,
            ExtractionStatus.NOOP,
            issues=issues,
            rejected=len(issues),
            receipt=plan.receipt(),
            note=plan.note,
        )
        if not plan.items and not plan.daily:
            result.reason = MODEL_NOOP if not plan.rejections else "all-items-rejected"
            result.status = ExtractionStatus.PARTIAL if plan.rejections else ExtractionStatus.NOOP
            return result
        payload = batch_payload(
            plan, workdir=turn.workdir, conversation_id=cid, model=self.llm.config.model
        )
        try:
            request = parse_request(BatchRequest, payload, label="memory_apply_batch")
            batch = self.store.apply_batch(request)
        except MemoryDomainError as exc:  # the whole batch was refused (e.g. store unavailable)
            result.status = ExtractionStatus.FAILED
            result.reason = exc.code
            result.note = exc.message
            return result
        positions = [index for index, _ in plan.items]
        for item in batch.items:
            if item.op == "daily_append":  # the batch's own journal item (not in `items`)
                plan_index = plan.daily_indexes[0] if plan.daily_indexes else -1
            else:
                plan_index = positions[item.index]
            if item.status == "applied":
                result.applied += 1
                if item.op in ("upsert", "update") and item.slug:
                    result.written.append(item.slug)
                    state.written.append(item.slug)
                if item.op == "daily_append":
                    result.daily_appended = True
                    result.applied += len(plan.daily) - 1  # one batch item carries every line
            else:
                error = item.error or {}
                result.failed += 1
                result.issues.append(
                    ItemIssue(
                        plan_index,
                        str(error.get("error") or item.status),
                        "apply",
                        item.slug,
                        str(error.get("message") or ""),
                    )
                )
        problems = result.rejected + result.failed
        if result.applied and not problems:
            result.status = ExtractionStatus.DONE
        elif result.applied or problems:
            result.status = ExtractionStatus.PARTIAL
        return result


def _error(code: str, message: str) -> str:
    """A tool result the model can read; json.dumps keeps quotes and backslashes valid."""
    return json.dumps({"error": code, "message": message}, ensure_ascii=False)

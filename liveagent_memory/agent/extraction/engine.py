"""One extraction run: context → model (lookups, SubmitMemoryPlan, one retry) → one batch.

REFERENCE A8–A9. The model sees the read-only MemoryManager and SubmitMemoryPlan. Without a
valid plan it is asked once more with only SubmitMemoryPlan attached; still nothing → noop with
a reason. Valid items are applied in one `memory_apply_batch`; the store call is synchronous,
so a cancelled run never half-applies a plan.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from liveagent_memory.agent.manager_tool import ManagerToolExecutor, tool_schema
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import LLMError, MemoryDomainError
from liveagent_memory.llm.client import LLMClient, ToolCall
from liveagent_memory.prompts import extraction as prompt
from liveagent_memory.prompts.manager_tool import NAME as MANAGER_TOOL
from liveagent_memory.store.store import MemoryStore

from . import context as ctx
from .plan import PlanShapeError, ValidatedPlan, batch_payload, plan_tool_schema, validate_plan
from .types import ConversationState, ExtractionResult, ExtractionStatus, ItemIssue, TurnInput

log = logging.getLogger(__name__)

NO_PLAN = "no-plan-submitted"
INVALID_PLAN = "invalid-plan-arguments"
MODEL_NOOP = "model-noop"


class ExtractionEngine:
    """Runs extraction for one store with one model client."""

    def __init__(
        self,
        store: MemoryStore,
        llm: LLMClient,
        *,
        reviewer_mode: str = config.DEFAULT_REVIEWER_MODE,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self.llm = llm
        self.reviewer_mode = reviewer_mode
        self._clock = clock or store.now_ms

    # --- context ----------------------------------------------------------------------------
    def build_context(self, turn: TurnInput, state: ConversationState) -> ctx.ExtractionContext:
        now = self._clock()
        listing = dispatch(
            self.store,
            "memory_list",
            {"workdir": turn.workdir, "limit": config.EXTRACTION_CANDIDATES_SCAN},
        )
        rejections = dispatch(
            self.store,
            "memory_recent_rejections",
            {
                "workdir": turn.workdir,
                "since_days": config.EXTRACTION_REJECTION_DAYS,
                "limit": config.EXTRACTION_REJECTION_LIMIT,
            },
        )["entries"]
        events = list(turn.tool_events) or ctx.tool_events_from_messages(turn.messages)
        return ctx.ExtractionContext(
            summary=ctx.earlier_summary(turn.messages, turn.summary),
            rejections=ctx.rejection_lines(rejections, now),
            candidates=ctx.candidate_lines(listing["entries"], now),
            written=list(state.written),
            mutations=ctx.mutation_digest(events, turn.workdir),
            window=ctx.conversation_window(turn.messages),
            workdir=turn.workdir,
            rejected_slugs=frozenset(str(entry["slug"]) for entry in rejections),
        )

    def messages(self, context: ctx.ExtractionContext) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": prompt.instructions(self.reviewer_mode)},
            {"role": "user", "content": context.render()},
        ]

    # --- run --------------------------------------------------------------------------------
    async def run(self, turn: TurnInput, state: ConversationState) -> ExtractionResult:
        started = time.monotonic()
        calls_before = len(self.llm.ledger.records)
        result = await self._run(turn, state)
        records = self.llm.ledger.records[calls_before:]
        result.model = self.llm.config.model
        result.model_calls = len(records)
        result.total_tokens = sum(r.usage.total_tokens for r in records)
        result.duration_ms = int((time.monotonic() - started) * 1000)
        log.info("extraction %s: %s", turn.conversation_id, result.summary_line())
        return result

    async def _run(self, turn: TurnInput, state: ConversationState) -> ExtractionResult:
        cid = turn.conversation_id
        context = self.build_context(turn, state)
        messages = self.messages(context)
        lookup = ManagerToolExecutor(self.store, workdir=turn.workdir, writable=False)
        try:
            arguments, problem = await self._ask(messages, lookup)
            if arguments is None:
                messages.append({"role": "user", "content": self._nudge(problem)})
                arguments, problem = await self._ask(messages, None)
        except LLMError as exc:
            return ExtractionResult(cid, ExtractionStatus.FAILED, reason=exc.code, note=exc.message)
        if arguments is None:
            reason = INVALID_PLAN if problem else NO_PLAN
            return ExtractionResult(cid, ExtractionStatus.NOOP, reason=reason, note=problem or "")
        try:
            plan = validate_plan(
                arguments,
                workdir=turn.workdir,
                written=set(state.written),
                rejected=context.rejected_slugs,
            )
        except PlanShapeError as exc:
            return ExtractionResult(cid, ExtractionStatus.NOOP, reason=INVALID_PLAN, note=str(exc))
        return self._apply(turn, state, plan)

    def _nudge(self, problem: str | None) -> str:
        return prompt.RETRY_NUDGE + (f" Your last call was unusable: {problem}" if problem else "")

    async def _ask(
        self, messages: list[dict[str, Any]], lookup: ManagerToolExecutor | None
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
            completion = await self.llm.complete(messages, tools=tools, purpose="extraction")
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
            content = f'{{"error":"invalid_arguments","message":"{call.argument_error}"}}'
        elif call.name == MANAGER_TOOL and lookup is not None:
            if call.arguments is None:
                content = (
                    '{"error":"invalid_arguments","message":"arguments are not a JSON object"}'
                )
            else:
                content = lookup.execute(call.arguments).content
        else:
            available = ", ".join(([MANAGER_TOOL] if lookup else []) + [prompt.PLAN_TOOL])
            content = (
                f'{{"error":"unknown_tool","message":"there is no tool {call.name!r} here; '
                f'available: {available}"}}'
            )
        return {"role": "tool", "tool_call_id": call.id, "content": content}

    # --- apply ------------------------------------------------------------------------------
    def _apply(
        self, turn: TurnInput, state: ConversationState, plan: ValidatedPlan
    ) -> ExtractionResult:
        cid = turn.conversation_id
        issues = [ItemIssue(r.index, r.code, "validation", r.slug) for r in plan.rejections]
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
            batch = dispatch(self.store, "memory_apply_batch", payload)
        except MemoryDomainError as exc:  # the whole batch was refused (e.g. store unavailable)
            result.status = ExtractionStatus.FAILED
            result.reason = exc.code
            result.note = exc.message
            return result
        positions = [index for index, _ in plan.items] + plan.daily_indexes[:1]
        for item in batch["items"]:
            plan_index = positions[item["index"]] if item["index"] < len(positions) else -1
            if item["status"] == "applied":
                result.applied += 1
                if item["op"] in ("upsert", "update") and item.get("slug"):
                    result.written.append(item["slug"])
                    state.written.append(item["slug"])
                if item["op"] == "daily_append":
                    result.daily_appended = True
                    result.applied += len(plan.daily) - 1  # one batch item carries every line
            else:
                error = item.get("error") or {}
                result.failed += 1
                result.issues.append(
                    ItemIssue(
                        plan_index,
                        str(error.get("error") or item["status"]),
                        "apply",
                        item.get("slug"),
                        str(error.get("message") or ""),
                    )
                )
        problems = result.rejected + result.failed
        if result.applied and not problems:
            result.status = ExtractionStatus.DONE
        elif result.applied or problems:
            result.status = ExtractionStatus.PARTIAL
        return result

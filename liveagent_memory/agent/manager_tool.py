"""The MemoryManager tool: OpenAI-style schema (read-only / read-write) and its executor.

The executor maps a tool call onto the store's and retrieval's typed methods, validating the
model's arguments into the same request models (and errors) as the named commands, and answers
in a compact, model-friendly JSON text built from the typed results: short entry lines instead
of full rows, the confidence-downgrade hint after a write, and the store's `suggested_next_call`
on errors, so the model can recover by itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import ActionNotAllowed, InvalidArgument, MemoryDomainError
from liveagent_memory.domain.inputs import clean_payload, load_json
from liveagent_memory.domain.requests import (
    AcceptRequest,
    ContextRequest,
    DeleteRequest,
    HistoryRequest,
    ListRequest,
    ReadRequest,
    Request,
    SearchRequest,
    UpdateRequest,
    WriteRequest,
    parse_request,
)
from liveagent_memory.domain.schema import (
    WRITABLE_TYPES,
    MemoryEntry,
    MemoryType,
    MutationResult,
    SearchHit,
    TaskType,
)
from liveagent_memory.prompts import manager_tool as text
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.chain import ChainSource, unconfigured_source
from liveagent_memory.retrieval.unified import MemoryContext
from liveagent_memory.store.store import MemoryStore

R = TypeVar("R", bound=Request)

READ_ACTIONS = ("list", "read", "search")
# A read action too (allowed read-only), offered only `with_context`: agents at work get it, the
# extractor's lookups (list/read/search) do not — its candidates come in its prompt already.
CONTEXT_ACTIONS = ("context",)
WRITE_ACTIONS = ("write", "update", "delete")
# Not offered to a model: accepting (marking reviewed) is a person's act. A call that names it
# anyway (REFERENCE A12 listed it) still goes to the store, whose rule answers action_not_allowed.
PERSON_ACTIONS = ("accept",)
_SCOPES = ("auto", "global", "project")
_TYPES = tuple(t.value for t in MemoryType if t in WRITABLE_TYPES)  # SPEC 1.2, skill included
_EVIDENCE = (
    "confidence",
    "source_quote",
    "reasoning",
    "aliases",
    "supersedes",
    "conflicts_with",
    "override_reject",
)


def _prop(kind: str, key: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": text.PARAMS[key], **extra}


def _skill_properties() -> dict[str, Any]:
    """The `skill` object's fields (domain/requests.py SkillInput)."""
    return {
        "when_to_use": _prop("string", "when_to_use"),
        "prerequisites": _prop("array", "prerequisites", items={"type": "string"}),
        "steps": _prop("array", "steps", items={"type": "string"}, minItems=1),
        "common_errors": _prop(
            "array",
            "common_errors",
            items={
                "type": "object",
                "properties": {"error": {"type": "string"}, "fix": {"type": "string"}},
                "required": ["error"],
            },
        ),
        "exit_criteria": _prop("array", "exit_criteria", items={"type": "string"}),
        "example": _prop("string", "example"),
    }


def allowed_actions(*, writable: bool, with_context: bool = False) -> tuple[str, ...]:
    """The actions a MemoryManager with these permissions runs, in schema order."""
    return (
        READ_ACTIONS
        + (CONTEXT_ACTIONS if with_context else ())
        + (WRITE_ACTIONS if writable else ())
    )


def tool_schema(
    *, writable: bool, with_context: bool = False, guides: bool = True
) -> dict[str, Any]:
    """The MemoryManager function tool (REFERENCE A12), read-only or read-write.

    `with_context` adds action=context (task-aware context within a token budget, SPEC 6).
    `guides=False` replaces the write guides (the type decision tree and the confidence rubric)
    with their one-paragraph digest: the MCP server's small tool surface (mcp_server/), whose
    "remember this" prompt carries the full guides.
    """
    actions = list(allowed_actions(writable=writable, with_context=with_context))
    props: dict[str, Any] = {
        "action": _prop("string", "action", enum=actions),
        "slug": _prop("string", "slug"),
        "scope": _prop("string", "scope", enum=list(_SCOPES)),
        "filter_type": _prop("string", "filter_type", enum=[*_TYPES, "daily"]),
        "include_daily": _prop("boolean", "include_daily"),
        "query": _prop("string", "query_with_context" if with_context else "query"),
        "limit": _prop("integer", "limit", minimum=1),
        "offset": _prop("integer", "offset", minimum=0),
        "length": _prop("integer", "length", minimum=1),
        "include_history": _prop("boolean", "include_history"),
    }
    if with_context:
        props["task_type"] = _prop("string", "task_type", enum=[t.value for t in TaskType])
        props["token_budget"] = _prop(
            "integer", "token_budget", minimum=1, maximum=config.TOOL_CONTEXT_MAX_BUDGET
        )
    if writable:
        props.update(
            {
                "type": _prop("string", "type", enum=list(_TYPES)),
                "description": _prop("string", "description", maxLength=120),
                "body": _prop("string", "body"),
                "skill": _prop("object", "skill", properties=_skill_properties()),
                "mode": _prop("string", "mode", enum=["merge", "replace"]),
                "confidence": _prop("string", "confidence", enum=["high", "medium", "low"]),
                "source_quote": _prop("string", "source_quote", maxLength=80),
                "reasoning": _prop("string", "reasoning"),
                "aliases": _prop("array", "aliases", items={"type": "string"}, maxItems=8),
                "supersedes": _prop("string", "supersedes"),
                "conflicts_with": _prop("array", "conflicts_with", items={"type": "string"}),
                "override_reject": _prop("string", "override_reject"),
                "reason": _prop("string", "reason"),
            }
        )
    description = (
        text.DESCRIPTION_READ_ONLY
        + (text.DESCRIPTION_CONTEXT if with_context else "")
        + ((text.DESCRIPTION_WRITE if guides else text.DESCRIPTION_WRITE_SHORT) if writable else "")
    )
    return {
        "type": "function",
        "function": {
            "name": text.NAME,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": ["action"]},
        },
    }


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced: `content` goes back to the model; `payload` is for hosts."""

    ok: bool
    content: str
    payload: dict[str, Any]
    mutated: bool = False


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _entry_line(entry: MemoryEntry | SearchHit) -> str:
    state = "unreviewed" if entry.unreviewed else "reviewed"
    conf = entry.confidence or "unknown"
    return (
        f"{entry.slug} ({entry.scope}/{entry.type}, {state}, {conf}) — "
        f"{entry.description or entry.headline or ''}"
    )


def _context_content(context: MemoryContext) -> str:
    """The context's Markdown and one account line; a plain sentence when nothing is shown."""
    shown = bool(context.text)  # the context's text is empty exactly when nothing is shown
    for_budget = sum(1 for item in context.left_out if item.reason == "budget")
    why = text.CONTEXT_LEFT_FOR_BUDGET.format(count=for_budget) if for_budget else ""
    account = text.CONTEXT_ACCOUNT.format(
        used=context.tokens_used,
        budget=context.token_budget,
        task=context.task_type,
        source=context.task_type_source,
        left=len(context.left_out),
        why=why,
    )
    if shown:
        body = context.text.rstrip("\n")
    elif for_budget:
        body = text.CONTEXT_NOTHING_FITS.format(budget=context.token_budget)
    else:
        body = text.CONTEXT_EMPTY
    return f"{body}\n{account}"


class ManagerToolExecutor:
    """Runs MemoryManager calls for one agent: a store, a workdir and a permission level.

    `with_context` offers action=context (MemoryAgent turns it on for the agent it serves).
    `embeddings` is where search and context get their provider chain, from the composition
    root (an AppContext's `embeddings`, as the named commands use); by default nothing is
    configured: the local provider when installed, keys from the environment.
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        workdir: str | None = None,
        writable: bool = True,
        with_context: bool = False,
        conversation_id: str | None = None,
        model: str | None = None,
        embeddings: ChainSource | None = None,
    ) -> None:
        self.store = store
        self.workdir = workdir
        self.writable = writable
        self.with_context = with_context
        self.conversation_id = conversation_id
        self.model = model
        self.embeddings = embeddings or unconfigured_source()

    def schema(self) -> dict[str, Any]:
        return tool_schema(writable=self.writable, with_context=self.with_context)

    def execute(self, arguments: dict[str, Any] | str | None) -> ToolOutcome:
        """Run one call; never raises for bad input — the error goes back to the model."""
        try:
            # The tool's own parameters (action, filter_type, ...) never reach a request model,
            # and its error messages echo them back: the one text rule applies here first.
            args = clean_payload(self._arguments(arguments))
            return self._run(args)
        except MemoryDomainError as exc:
            return ToolOutcome(False, _dumps(exc.to_dict()), exc.to_dict())

    @staticmethod
    def _arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        if isinstance(arguments, str):
            try:
                arguments = load_json(arguments or "{}")
            except ValueError as exc:
                raise InvalidArgument(
                    f"MemoryManager arguments are not valid JSON ({exc})"
                ) from None
        if not isinstance(arguments, dict):
            raise InvalidArgument("MemoryManager arguments must be a JSON object")
        return arguments

    def _run(self, args: dict[str, Any]) -> ToolOutcome:
        action = args.get("action")
        if action in WRITE_ACTIONS + PERSON_ACTIONS and not self.writable:
            raise ActionNotAllowed(
                text.READ_ONLY_HINT,
                # Same shape as the store's suggestions (MemoryManager arguments), and a call
                # that works as is: a search without a query would only fail again.
                suggested_next_call={"action": "list"},
                field="action",
            )
        allowed = allowed_actions(writable=self.writable, with_context=self.with_context)
        if action not in allowed and not (self.writable and action in PERSON_ACTIONS):
            raise InvalidArgument(f"action must be one of {', '.join(allowed)}", field="action")
        known = set(self.schema()["function"]["parameters"]["properties"])
        unknown = sorted(set(args) - known)
        if unknown:
            raise InvalidArgument(
                f"unknown MemoryManager parameter(s): {', '.join(unknown)}", field=unknown[0]
            )
        handler = getattr(self, f"_do_{action}")
        outcome: ToolOutcome = handler(args)
        return outcome

    # --- helpers ----------------------------------------------------------------------------
    def _scope(self, args: dict[str, Any]) -> str | None:
        scope = args.get("scope")
        return None if scope in (None, "", "auto") else str(scope)

    def _provenance(self) -> dict[str, Any]:
        out: dict[str, Any] = {"actor": "tool"}
        if self.conversation_id:
            out["conversation_id"] = self.conversation_id
        if self.model:
            out["model"] = self.model
        return out

    def _evidence(self, args: dict[str, Any]) -> dict[str, Any]:
        return {key: args[key] for key in _EVIDENCE if args.get(key) not in (None, "", [])}

    @staticmethod
    def _request(model: type[R], label: str, payload: dict[str, Any]) -> R:
        """The request of a call: unset arguments left out, checked as the command `label`
        checks its payload (same typed errors, same messages)."""
        clean = {key: value for key, value in payload.items() if value is not None}
        return parse_request(model, clean, label=label)

    # --- actions ----------------------------------------------------------------------------
    def _do_list(self, args: dict[str, Any]) -> ToolOutcome:
        filter_type = args.get("filter_type")
        request = self._request(
            ListRequest,
            "memory_list",
            {
                "scope": self._scope(args),
                "workdir": self.workdir,
                "type": filter_type,
                "include_daily": bool(args.get("include_daily")) or filter_type == "daily",
                "limit": 50 if args.get("limit") is None else args["limit"],
            },
        )
        listing = self.store.list_entries(request)
        lines = [_entry_line(entry) for entry in listing.entries]
        content = {"total": listing.total, "shown": len(lines), "memories": lines}
        return ToolOutcome(True, _dumps(content), listing.to_dict())

    def _do_search(self, args: dict[str, Any]) -> ToolOutcome:
        if not str(args.get("query") or "").strip():
            raise InvalidArgument("search needs a query", field="query")
        request = self._request(
            SearchRequest,
            "memory_search",
            {
                "query": args["query"],
                "scope": self._scope(args),
                "workdir": self.workdir,
                "type": args.get("filter_type"),
                "limit": args.get("limit"),
            },
        )
        result = retrieval.search(self.store, request, self.embeddings)
        hits = [{"memory": _entry_line(hit), "snippet": hit.snippet} for hit in result.matches]
        hint = None if hits else "no match; try other words or action=list"
        content: dict[str, Any] = {"hits": hits}
        if hint:
            content["hint"] = hint
        return ToolOutcome(True, _dumps(content), result.to_dict())

    def _do_context(self, args: dict[str, Any]) -> ToolOutcome:
        if not str(args.get("query") or "").strip():
            raise InvalidArgument("context needs a query: the task in a sentence", field="query")
        budget = args.get("token_budget")
        if budget is None:
            budget = config.TOOL_CONTEXT_DEFAULT_BUDGET
        elif type(budget) is int and budget > config.TOOL_CONTEXT_MAX_BUDGET:
            # One tool message this large would push the conversation out of the window.
            raise InvalidArgument(
                f"A token budget of {budget} is too large for a tool answer (at most "
                f"{config.TOOL_CONTEXT_MAX_BUDGET}); read single memories for more",
                field="token_budget",
            )
        # Through the same service as the command, so an agent's call counts in the retrieval
        # metrics like the CLI's (the real use) and embedding providers come from the same
        # source. The request and the service check the rest: task_type (one parser) and a
        # budget that is not a count.
        request = self._request(
            ContextRequest,
            "memory_context",
            {
                "query": args["query"],
                "task_type": args.get("task_type"),
                "token_budget": budget,
                "workdir": self.workdir,
            },
        )
        context = retrieval.relevant_context(self.store, request, self.embeddings)
        return ToolOutcome(True, _context_content(context), context.to_dict())

    def _do_read(self, args: dict[str, Any]) -> ToolOutcome:
        request = self._request(
            ReadRequest,
            "memory_read",
            {
                "slug": args.get("slug") or "",
                "scope": self._scope(args),
                "workdir": self.workdir,
                "offset": args.get("offset"),
                "length": args.get("length"),
            },
        )
        result = self.store.read(request)
        entry = result.entry
        windowed = args.get("offset") is not None or args.get("length") is not None
        evidence = {k: v for k, v in result.evidence.to_dict().items() if v not in ("", [], False)}
        content: dict[str, Any] = {
            "memory": _entry_line(entry),
            # Whole reads get the text without its evidence block (evidence comes separately);
            # a line window is returned as stored so offsets stay meaningful.
            "body": result.body if windowed else result.content,
            "lines": result.total_lines,
            "evidence": evidence,
        }
        if result.skill is not None and not windowed:
            skill = {k: v for k, v in result.skill.to_dict().items() if v not in ("", [])}
            content["skill"] = skill  # the sections parsed; `missing` names absent parts
        if args.get("include_history"):
            where = {"slug": entry.slug, "scope": entry.scope, "workdir": self.workdir}
            history = self.store.history(self._request(HistoryRequest, "memory_history", where))
            content["history"] = [f"{h.version} {h.op} by {h.who}" for h in history.entries[:10]]
        return ToolOutcome(True, _dumps(content), result.to_dict())

    def _mutation(self, result: MutationResult, verb: str) -> ToolOutcome:
        content: dict[str, Any] = {
            "ok": True,
            "result": f"{verb} {result.slug} ({result.scope}/{result.type})",
        }
        if result.unreviewed and not result.deleted:
            content["review"] = "unreviewed: a person will review it"
        if result.risk_flag:
            content["risk_flag"] = result.risk_flag
        if result.auto_downgraded:
            applied = result.applied_confidence or "low"
            why = (
                "the quote is shorter than 5 characters"
                if applied == "medium"
                else "there is no source_quote"
            )
            content["hint"] = text.DOWNGRADE_HINT.format(applied=applied, why=why)
        if result.warning:
            content["warning"] = result.warning
        return ToolOutcome(True, _dumps(content), result.to_dict(), mutated=True)

    def _do_write(self, args: dict[str, Any]) -> ToolOutcome:
        payload = {
            "slug": args.get("slug") or "",
            "scope": args.get("scope") if args.get("scope") not in (None, "auto") else "global",
            "workdir": self.workdir,
            "type": args.get("type") or "",
            "description": args.get("description") or "",
            "body": args.get("body") or "",
            "skill": args.get("skill"),
            **self._evidence(args),
            **self._provenance(),
        }
        request = self._request(WriteRequest, "memory_write", payload)
        return self._mutation(self.store.write(request), "saved")

    def _do_update(self, args: dict[str, Any]) -> ToolOutcome:
        payload = {
            "slug": args.get("slug") or "",
            "scope": self._scope(args),
            "workdir": self.workdir,
            "type": args.get("type"),
            "description": args.get("description"),
            "body": args.get("body"),
            "mode": args.get("mode"),
            "skill": args.get("skill"),
            **self._evidence(args),
            **self._provenance(),
        }
        request = self._request(UpdateRequest, "memory_update", payload)
        return self._mutation(self.store.update(request), "updated")

    def _do_delete(self, args: dict[str, Any]) -> ToolOutcome:
        payload = {
            "slug": args.get("slug") or "",
            "scope": self._scope(args),
            "workdir": self.workdir,
            "reason": args.get("reason"),
            **self._provenance(),
        }
        request = self._request(DeleteRequest, "memory_delete", payload)
        return self._mutation(self.store.delete(request), "deleted (in trash)")

    def _do_accept(self, args: dict[str, Any]) -> ToolOutcome:
        # The tool's true actor; the store refuses it (only a person accepts), so the model
        # learns why instead of being told the action does not exist.
        payload = {
            "slug": args.get("slug") or "",
            "scope": self._scope(args),
            "workdir": self.workdir,
            "actor": "tool",
        }
        request = self._request(AcceptRequest, "memory_accept", payload)
        return self._mutation(self.store.accept(request), "accepted")

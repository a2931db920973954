"""What the MCP server offers, apart from the protocol: tools, resources and prompts as plain data.

One implementation (docs/ARCHITECTURE.md "Where each rule lives"): the tool is the agent's
MemoryManager (`agent/manager_tool.py`: its schema with the short write guide, its executor with
the same request models, typed errors, confidence contract and review gate: the caller is a
model, so its writes land unreviewed and `accept` is not offered); the memories as resources
come from the `memory_list` command and are read by the tool's own read action; the Memory
Index is the one the agent host renders. What this module adds is the place every answer
resolved to (`resolved`: scope, project key, workdir), so a model never mixes projects silently,
and the resource URIs (`memory://index`, `memory://global/<slug>`,
`memory://project/<key>/<slug>`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.agent.manager_tool import ManagerToolExecutor, ToolOutcome, tool_schema
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, MemoryDomainError
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.paths import canonical_workdir
from liveagent_memory.prompts import mcp as text
from liveagent_memory.prompts.manager_tool import NAME as TOOL_NAME

INDEX_URI = "memory://index"
_GLOBAL_PREFIX = "memory://global/"
_PROJECT_PREFIX = "memory://project/"


@dataclass(frozen=True)
class ToolReply:
    """One tool call's answer: the text the model reads and its JSON twin for programs."""

    ok: bool
    text: str
    structured: dict[str, Any]


@dataclass(frozen=True)
class MemoryResource:
    """One memory offered as a resource."""

    uri: str
    name: str
    description: str


@dataclass(frozen=True)
class PromptSpec:
    """One prompt: its name, what it is for, and its one required argument."""

    name: str
    description: str
    argument: str
    argument_description: str
    template: str


PROMPTS = (
    PromptSpec(
        text.REMEMBER_NAME, text.REMEMBER_DESCRIPTION, "what", text.REMEMBER_ARGUMENT,
        text.REMEMBER_TEXT,
    ),
    PromptSpec(
        text.RECALL_NAME, text.RECALL_DESCRIPTION, "about", text.RECALL_ARGUMENT,
        text.RECALL_TEXT,
    ),
)  # fmt: skip


def memory_uri(scope: str, project: str, slug: str) -> str:
    """The resource URI of a memory: global ones by slug, project ones by project key too."""
    if scope == "global":
        return f"{_GLOBAL_PREFIX}{slug}"
    return f"{_PROJECT_PREFIX}{project}/{slug}"


class McpMemory:
    """The memory one MCP server serves: one context, one workdir, read-only or read-write."""

    def __init__(
        self, context: AppContext, *, workdir: str | None = None, writable: bool = False
    ) -> None:
        self.context = context
        self.workdir = canonical_workdir(workdir) if workdir else None
        self.writable = writable

    @functools.cached_property
    def project(self) -> str | None:
        """The project folder this workdir opens (the store's one rule, issue 19: a clone at
        another path finds its memories); asked on first use, on the store's thread."""
        return self.context.store.project_key(self.workdir) if self.workdir else None

    # --- the tool -----------------------------------------------------------------------------
    def tool(self) -> dict[str, Any]:
        """The one tool, MemoryManager: {name, description, input_schema}."""
        function = tool_schema(writable=self.writable, with_context=True, guides=False)["function"]
        return {
            "name": function["name"],
            "description": function["description"],
            "input_schema": function["parameters"],
        }

    def schema_tokens(self) -> int:
        """What the tool list costs in a model's prompt: its JSON as a client forwards it,
        estimated like every token budget (domain/text.py `estimate_tokens`); held under
        MCP_SCHEMA_TOKEN_LIMIT."""
        return estimate_tokens(json.dumps([self.tool()], ensure_ascii=False))

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolReply:
        """Run a tool call; bad input is a typed error in the reply, never an exception."""
        args = arguments or {}
        if name != TOOL_NAME:
            error = InvalidArgument(
                f"there is no tool {name!r}; the memory tool is {TOOL_NAME}", code="unknown_tool"
            )
            return self._reply(ToolOutcome(False, "", error.to_dict()), args)
        executor = ManagerToolExecutor(
            self.context.store,
            workdir=self.workdir,
            writable=self.writable,
            with_context=True,
            model="mcp",
            embeddings=self.context.embeddings,
        )
        return self._reply(executor.execute(args), args)

    def _reply(self, outcome: ToolOutcome, args: dict[str, Any]) -> ToolReply:
        resolved = self.resolved(self._scope_of(outcome.payload, args))
        if not outcome.ok:
            error = {**outcome.payload, "resolved": resolved}
            return ToolReply(False, _dumps(error), error)
        where = f"[resolved: {_dumps(resolved)}]"  # first, so no answer is read without it
        return ToolReply(True, f"{where}\n{outcome.content}", {"resolved": resolved})

    def _scope_of(self, payload: dict[str, Any], args: dict[str, Any]) -> str:
        """The scope an answer used: the memory's own for a read or a change, else the one
        asked for, where `auto` is global plus this workdir's project."""
        entry = payload.get("entry")
        scope = payload.get("scope") or (entry.get("scope") if isinstance(entry, dict) else None)
        if isinstance(scope, str) and scope:
            return scope
        asked = args.get("scope") if isinstance(args, dict) else None
        if asked in ("global", "project"):
            return str(asked)
        return "global+project" if self.project else "global"

    def resolved(self, scope: str) -> dict[str, Any]:
        """Where an answer looked: the scope, the project key and its workdir (None: none)."""
        return {"scope": scope, "project": self.project, "workdir": self.workdir}

    # --- resources ----------------------------------------------------------------------------
    def index_block(self) -> str:
        """The Memory Index block for this workdir (what the agent host puts in its prompt)."""
        agent = MemoryAgent(
            self.context.store, workdir=self.workdir, embeddings=self.context.embeddings
        )
        return agent.system_prompt_block()

    def resources(self) -> list[MemoryResource]:
        """The memories this workdir sees (global plus its project), newest first."""
        payload: dict[str, Any] = {"limit": config.MCP_RESOURCE_LIST_LIMIT}
        if self.workdir:
            payload["workdir"] = self.workdir
        listing = dispatch(self.context, "memory_list", payload)
        return [
            MemoryResource(
                memory_uri(entry["scope"], entry["workdir_hash"], entry["slug"]),
                entry["slug"],
                f"{entry['scope']}/{entry['type']}: {entry['description'] or entry['headline']}",
            )
            for entry in listing["entries"]
        ]

    def read(self, uri: str) -> str:
        """A resource's text: the Memory Index, or one memory read by the tool's read action.

        Raises the typed errors of the read (`slug_not_found` with its candidates), and
        `invalid_argument` for a URI that names no memory of this workdir.
        """
        if uri == INDEX_URI:
            where = _dumps(self.resolved("global+project" if self.project else "global"))
            return f"[resolved: {where}]\n{self.index_block()}"
        scope, slug = self._parse_uri(uri)
        reply = self.call(TOOL_NAME, {"action": "read", "slug": slug, "scope": scope})
        if not reply.ok:
            raise _error_of(reply.structured)
        return reply.text

    def _parse_uri(self, uri: str) -> tuple[str, str]:
        if uri.startswith(_GLOBAL_PREFIX):
            return "global", uri.removeprefix(_GLOBAL_PREFIX)
        if uri.startswith(_PROJECT_PREFIX):
            project, _, slug = uri.removeprefix(_PROJECT_PREFIX).partition("/")
            if project != self.project:
                raise InvalidArgument(
                    f"{uri} is a memory of project {project}; this server serves "
                    f"{self.project or 'no project'} (start it with --workdir of that project)",
                    field="uri",
                )
            return "project", slug
        raise InvalidArgument(
            f"unknown resource {uri!r}: use {INDEX_URI}, {_GLOBAL_PREFIX}<slug> or "
            f"{_PROJECT_PREFIX}<project>/<slug>",
            field="uri",
        )

    # --- prompts ------------------------------------------------------------------------------
    def prompt(self, name: str, arguments: dict[str, str] | None) -> str:
        """A prompt's text with its argument filled in; typed errors for a bad name or a
        missing argument."""
        spec = next((p for p in PROMPTS if p.name == name), None)
        if spec is None:
            names = ", ".join(p.name for p in PROMPTS)
            raise InvalidArgument(f"unknown prompt {name!r} (choose from {names})", field="name")
        value = (arguments or {}).get(spec.argument, "").strip()
        if not value:
            raise InvalidArgument(
                f"prompt {name} needs the argument {spec.argument!r}", field=spec.argument
            )
        return spec.template.format(**{spec.argument: value})


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _error_of(shape: dict[str, Any]) -> MemoryDomainError:
    """A typed error again from its JSON shape (the tool's answer), code and hints kept."""
    return MemoryDomainError(
        str(shape.get("message", "")),
        code=str(shape.get("error", MemoryDomainError.code)),
        suggested_next_call=shape.get("suggested_next_call"),
        candidates=shape.get("candidates"),
        field=shape.get("field"),
    )

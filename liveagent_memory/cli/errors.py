"""How the CLI shows a typed error to a person: its sentence, near matches, a command to try.

The store suggests the next call in the agent tool's words (`{"action": "search", "query":
…}`, REFERENCE A3); here it becomes the `liveagent-memory` command that does it. With `--json`
(and always for `call`, the machine face) the error's JSON shape is printed instead.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any, TextIO

from liveagent_memory.domain.errors import MemoryDomainError

PROGRAM = "liveagent-memory"
Call = dict[str, Any]


def write_error(exc: MemoryDomainError, out: TextIO) -> None:
    """`error: SENTENCE`, then near matches and the command to try, when there are any."""
    out.write(f"error: {exc.message}\n")
    hint = candidates_hint(exc)
    if hint:
        out.write(f"{hint}\n")
    command = suggested_command(exc.suggested_next_call)
    if command:
        out.write(f"try: {command}\n")


def candidates_hint(exc: MemoryDomainError) -> str | None:
    """The error's candidates as a question or a choice, None when it has none."""
    found = exc.candidates or []
    if exc.code == "scope_ambiguous":
        scopes = " or ".join(f"--scope {c['scope']}" for c in found if c.get("scope"))
        return f"add {scopes}" if scopes else None
    if exc.code == "unknown_command":
        return None  # its message asks already
    names = [name for name in (_label(c, found) for c in found) if name]
    if not names:
        return None
    if all("key" in c for c in found):
        return f"open decisions: {', '.join(names)}"
    return f"did you mean {_either(names)}?"


def _label(candidate: dict[str, Any], every: list[dict[str, Any]]) -> str | None:
    if "slug" in candidate:
        slug = str(candidate["slug"])
        twice = sum(1 for c in every if c.get("slug") == slug) > 1
        return f"{slug} ({candidate.get('scope')})" if twice else slug
    if "key" in candidate:
        return str(candidate["key"]).split(":", 1)[0]  # the number `organize show` lists
    value = candidate.get("command")
    return str(value) if value is not None else None


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def suggested_command(call: Call | None) -> str | None:
    """The `liveagent-memory` command for a suggested call, None when there is none."""
    if not call:
        return None
    if "command" in call:
        name = str(call["command"])
        return f"{PROGRAM} organize history" if name == "organize_run_list" else _cli("call", name)
    build = _ACTIONS.get(str(call.get("action", "")))
    return build(call) if build else None


def _cli(*words: str) -> str:
    return " ".join([PROGRAM, *(w if w in ("…", "TEXT") else shlex.quote(w) for w in words)])


def _scope(call: Call) -> list[str]:
    return ["--scope", str(call["scope"])] if call.get("scope") else []


def _search(call: Call) -> str:
    return _cli("search", str(call.get("query", "")))


def _list(call: Call) -> str:
    return _cli("list", *_scope(call))


def _read(call: Call) -> str:
    return _cli("read", str(call.get("slug", "")), *_scope(call))


def _update(call: Call) -> str:
    slug = str(call.get("slug", ""))
    if call.get("mode") == "append" or slug.startswith("daily-"):
        return _daily({"local_date": slug.removeprefix("daily-")})
    mode = ["--mode", str(call["mode"])] if call.get("mode") else []
    return _cli("update", slug, *_scope(call), *mode, "--body", "TEXT")


def _daily(call: Call) -> str:
    date = ["--date", str(call["local_date"])] if call.get("local_date") else []
    return _cli("daily", "TEXT", *date)


def _same_options(action: str) -> Callable[[Call], str]:
    """A retry of `action` on the suggested slug, with the options the person gave."""
    return lambda call: _cli(action, str(call.get("slug", "")), "…")


_ACTIONS: dict[str, Callable[[Call], str]] = {
    "search": _search,
    "list": _list,
    "read": _read,
    "update": _update,
    "append_daily": _daily,
    "write": _same_options("write"),
    "delete": _same_options("delete"),
    "accept": _same_options("accept"),
    "history": _same_options("history"),
    "restore": _same_options("restore"),
}

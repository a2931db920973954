"""The hidden extraction round's context: self-contained, stable blocks first (REFERENCE A8).

Builds the conversation window (last 4 user turns and what followed), a deterministic summary of
earlier turns, the workspace-mutation digest of this turn, and the candidate / rejection /
already-written blocks. Text is neutralized so it cannot open or close one of our blocks.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MS_PER_DAY
from liveagent_memory.domain.inputs import load_json
from liveagent_memory.domain.schema import MemoryEntry, RejectionEntry
from liveagent_memory.prompts import extraction as prompt
from liveagent_memory.prompts.shared import (
    CJK_CLOSING_ANGLES,
    CJK_OPENING_ANGLES,
    LOOKALIKE_CLOSING_ANGLES,
    LOOKALIKE_OPENING_ANGLES,
)

from .types import Message, ToolEvent

# Our block tags, also with blanks or attributes ("</conversation-window >") or look-alike
# brackets ("＜/conversation-window＞") that a model would still read as a tag.
_OPENING = "<" + LOOKALIKE_OPENING_ANGLES + CJK_OPENING_ANGLES
_CLOSING = ">" + LOOKALIKE_CLOSING_ANGLES + CJK_CLOSING_ANGLES
_BLOCK_TAG = re.compile(
    f"[{_OPENING}]" + r"\s*/?\s*(?:" + "|".join(map(re.escape, prompt.BLOCKS)) + r")\b"
    f"[^{_OPENING}{_CLOSING}]*[{_CLOSING}]",
    re.I,
)


def neutralize(text: str) -> str:
    """Defuse our own block tags inside untrusted text."""
    return _BLOCK_TAG.sub(lambda m: f"&lt;{m.group(0)[1:-1]}&gt;", text)


def block(name: str, body: str) -> str:
    return f"<{name}>\n{body.strip() or prompt.NOTHING}\n</{name}>"


def message_text(message: Message) -> str:
    """Plain text of a chat message (string content or a list of text parts)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                parts.append(str(part.get("text") or ""))
        return "\n".join(parts)
    return ""


def last_user_message(messages: Sequence[Message]) -> tuple[int, str]:
    """Index and text of the newest user message; (-1, "") when there is none."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index, message_text(messages[index])
    return -1, ""


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _arguments(raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    if isinstance(raw, str):
        try:
            value = load_json(raw)
        except ValueError:
            return {}
        return value if isinstance(value, Mapping) else {}
    return {}


_TARGET_KEYS = ("file_path", "path", "filePath", "notebook_path", "slug", "command", "url", "query")


def tool_target(arguments: Mapping[str, Any]) -> str:
    for key in _TARGET_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return _clip(value.replace("\n", " "), 120)
    return ""


def _tool_ok(content: str) -> bool:
    try:
        value = load_json(content)
    except (ValueError, TypeError):
        return not content.lower().startswith(("error", "failed"))
    return not (isinstance(value, Mapping) and (value.get("error") or value.get("ok") is False))


def tool_events_from_messages(messages: Sequence[Message]) -> list[ToolEvent]:
    """This turn's tool calls (after the last user message) with their success."""
    start, _ = last_user_message(messages)
    calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
    outcome: dict[str, bool] = {}
    order: list[str] = []
    for message in messages[start + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                call_id = str(call.get("id") or len(order))
                calls[call_id] = (
                    str(function.get("name") or ""),
                    _arguments(function.get("arguments")),
                )
                order.append(call_id)
        elif message.get("role") == "tool":
            outcome[str(message.get("tool_call_id") or "")] = _tool_ok(message_text(message))
    return [
        ToolEvent(name=calls[i][0], arguments=calls[i][1], ok=outcome.get(i, True)) for i in order
    ]


def conversation_window(messages: Sequence[Message]) -> str:
    """The last 4 user turns and what followed them, clipped per message and in total."""
    user_positions = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not user_positions:
        return ""
    start = user_positions[-config.EXTRACTION_WINDOW_USER_TURNS :][0]
    names: dict[str, str] = {}
    lines: list[str] = []
    newest_user = 0  # line of the newest user message
    per_message = config.EXTRACTION_MESSAGE_MAX_CHARS
    for message in messages[start:]:
        role = message.get("role")
        if role == "user":
            newest_user = len(lines)
            lines.append("[user] " + _clip(message_text(message), per_message))
        elif role == "assistant":
            text = message_text(message)
            if text.strip():
                lines.append("[assistant] " + _clip(text, per_message))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                name = str(function.get("name") or "?")
                names[str(call.get("id") or "")] = name
                target = tool_target(_arguments(function.get("arguments")))
                lines.append(f"[tool-call] {name} {target}".rstrip())
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id") or ""), message.get("name") or "?")
            state = "ok" if _tool_ok(message_text(message)) else "error"
            lines.append(f"[tool-result] {name} → {state}")
    # Trim from the front (oldest first) to the window budget; the newest user message always
    # stays, even when the replies that followed it are longer than the budget.
    lines = [neutralize(line) for line in lines]
    total = sum(len(line) + 1 for line in lines)
    while newest_user > 0 and total > config.EXTRACTION_WINDOW_MAX_CHARS:
        total -= len(lines.pop(0)) + 1
        newest_user -= 1
    while len(lines) > 1 and total > config.EXTRACTION_WINDOW_MAX_CHARS:
        total -= len(lines.pop(1)) + 1
    return "\n".join(lines)


def earlier_summary(messages: Sequence[Message], host_summary: str | None) -> str:
    """The host's summary, or a deterministic one: earlier user requests, newest kept."""
    if host_summary and host_summary.strip():
        return _clip(neutralize(host_summary), config.EXTRACTION_SUMMARY_MAX_CHARS)
    user_positions = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    earlier = user_positions[: -config.EXTRACTION_WINDOW_USER_TURNS]
    if not earlier:
        return ""
    header = f"Earlier user messages ({len(earlier)}, newest last):"
    pieces: list[str] = []
    used = len(header)
    for index in reversed(earlier):
        text = neutralize(message_text(messages[index]).replace("\n", " "))
        piece = "- " + _clip(text, 160)
        if used + len(piece) + 1 > config.EXTRACTION_SUMMARY_MAX_CHARS:
            break
        pieces.insert(0, piece)
        used += len(piece) + 1
    return "\n".join([header, *pieces])


# --- workspace mutations ------------------------------------------------------------------------
_FILE_WRITERS = {"write", "edit", "multiedit", "delete", "notebookedit", "applypatch", "create"}
_SHELLS = {"bash", "shell", "terminal", "run_command", "exec"}
_READ_ONLY = {
    "read",
    "image",
    "list",
    "ls",
    "glob",
    "grep",
    "memorymanager",
    "webfetch",
    "websearch",
    "submitmemoryplan",
}
_MUTATING_SHELL = re.compile(
    r"(^|[;&|]\s*|\s)(mv|cp|rm|mkdir|touch|patch|tee)\s"
    r"|\bsed\s+(-[a-z]*i|--in-place)"
    r"|(^|[^<>2&])>{1,2}\s*(?!/dev/null\b)[^&\s>]"
    r"|\bgit\s+(add|commit|checkout|switch|merge|rebase|reset|restore|rm|mv|stash|cherry-pick|"
    r"revert|pull|apply|tag|branch\s+-[dDmM])\b"
    r"|\b(npm|pnpm|yarn|bun)\s+(install|i|add|remove|uninstall|update|upgrade|link|ci)\b"
    r"|\bcargo\s+(add|remove|update|install|new|init|fix)\b"
    r"|\bpip3?\s+(install|uninstall)\b"
    r"|\buv\s+(add|remove|pip\s+install)\b"
)


def _inside(path: str, workdir: str | None) -> bool:
    if not path:
        return False
    if workdir is None:
        return True
    candidate = PurePosixPath(posixpath.normpath(path))  # "/w/../elsewhere" is not inside
    if not candidate.is_absolute():
        return ".." not in candidate.parts
    root = PurePosixPath(workdir)
    return candidate == root or root in candidate.parents


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _mentions_workspace(arguments: Mapping[str, Any], workdir: str | None) -> str:
    if workdir is None:
        return ""
    for text in _strings(arguments):
        for word in text.split():
            if word.startswith(workdir) and _inside(word, workdir):
                return word
    return ""


def _display(path: str, workdir: str | None) -> str:
    if workdir and path.startswith(workdir.rstrip("/") + "/"):
        return path[len(workdir.rstrip("/")) + 1 :]
    return path


def mutation_digest(events: Sequence[ToolEvent], workdir: str | None) -> list[str]:
    """Deterministic lines describing how this turn changed the workspace (REFERENCE A8)."""
    lines: list[str] = []
    for event in events:
        if not event.ok:
            continue  # failed calls changed nothing we can rely on
        key = event.name.replace("_", "").replace("-", "").lower()
        if key in _READ_ONLY:
            continue
        if key in _FILE_WRITERS:
            path = tool_target({k: v for k, v in event.arguments.items() if "path" in k.lower()})
            if _inside(path, workdir):
                lines.append(f"- {event.name} {_display(path, workdir)}")
        elif key in _SHELLS or event.name.lower() in _SHELLS:
            command = str(event.arguments.get("command") or event.arguments.get("cmd") or "")
            if _MUTATING_SHELL.search(command):
                lines.append(f"- {event.name}: {_clip(' '.join(_split(command)), 160)}")
        else:
            path = _mentions_workspace(event.arguments, workdir)
            if path:
                lines.append(f"- {event.name} {_display(path, workdir)}")
    limit = config.EXTRACTION_MUTATION_DIGEST_MAX_LINES
    if len(lines) > limit:
        lines = [*lines[:limit], f"- … ({len(lines) - limit} more changes)"]
    return lines


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command.replace("\n", " "))
    except ValueError:
        return command.split()


# --- candidate, rejection and written blocks ----------------------------------------------------
def _age(updated_at: int, now_ms: int) -> str:
    days = max(0, (now_ms - updated_at) // MS_PER_DAY)
    return "today" if days == 0 else f"{days}d ago"


def candidate_lines(entries: Sequence[MemoryEntry], now_ms: int) -> list[str]:
    lines = []
    for entry in entries[: config.EXTRACTION_CANDIDATES]:
        state = "unreviewed" if entry.unreviewed else "reviewed"
        lines.append(
            f"- {entry.slug} (type={entry.type}; scope={entry.scope}; {state}; "
            f"confidence={entry.confidence or 'unknown'}; "
            f"updated={_age(int(entry.updated_at), now_ms)}) — "
            + _clip(str(entry.description or entry.headline or ""), 160)
        )
    return lines


def rejection_lines(entries: Sequence[RejectionEntry], now_ms: int) -> list[str]:
    lines = []
    for entry in entries:
        reason = f"; {_clip(str(entry.reason), 120)}" if entry.reason else ""
        age = _age(int(entry.rejected_at), now_ms)
        lines.append(f"- {entry.slug} ({entry.scope}; deleted {age}{reason})")
    return lines


@dataclass(frozen=True)
class ExtractionContext:
    """Everything the hidden round shows the model, already rendered per block."""

    summary: str
    rejections: list[str]
    candidates: list[str]
    written: list[str]
    mutations: list[str]
    window: str
    workdir: str | None
    rejected_slugs: frozenset[str] = frozenset()

    def render(self) -> str:
        workdir = self.workdir or prompt.NO_WORKDIR
        parts = [
            prompt.CONTEXT_INTRO,
            f"Workdir: {neutralize(workdir)}",
            block(prompt.BLOCK_SUMMARY, self.summary),
            block(prompt.BLOCK_REJECTIONS, neutralize("\n".join(self.rejections))),
            block(prompt.BLOCK_CANDIDATES, neutralize("\n".join(self.candidates))),
            block(prompt.BLOCK_WRITTEN, neutralize("\n".join(f"- {s}" for s in self.written))),
            block(prompt.BLOCK_MUTATIONS, neutralize("\n".join(self.mutations))),
            block(prompt.BLOCK_WINDOW, self.window),
        ]
        return "\n\n".join(parts)

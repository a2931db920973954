"""Shapes shared by the extraction modules: a turn to extract from and a run's result."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from liveagent_memory.domain import config

Message = Mapping[str, Any]


@dataclass(frozen=True)
class ToolEvent:
    """One tool call the chat agent made during the turn (for the mutation digest)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    ok: bool = True


@dataclass(frozen=True)
class TurnInput:
    """What the host hands over at the end of a turn.

    `messages` is the whole conversation in OpenAI chat shape (`role`, `content`, optional
    `tool_calls`; role `tool` for results). `tool_events` describes this turn's tool calls; when
    empty they are read from the messages after the last user message.
    """

    conversation_id: str
    messages: Sequence[Message]
    workdir: str | None = None
    tool_events: Sequence[ToolEvent] = ()
    summary: str | None = None  # the host's own summary of earlier conversation, if it has one


class ExtractionStatus(StrEnum):
    DONE = "done"  # every proposed item was applied
    NOOP = "noop"  # nothing to remember (or no plan after the retry)
    PARTIAL = "partial"  # some items applied, some rejected or failed
    SKIPPED = "skipped"  # a gate said no before any model call
    STARTED = "started"  # accepted; running in the background
    COALESCED = "coalesced"  # a run is in flight; this turn joins one follow-up run
    FAILED = "failed"  # the model call failed (error code in `reason`)
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class ItemIssue:
    """An item that was not applied: rejected by validation or failed in the store."""

    index: int
    code: str
    stage: str  # "validation" | "apply"
    slug: str | None = None
    message: str = ""


@dataclass
class ExtractionResult:
    conversation_id: str
    status: ExtractionStatus
    reason: str | None = None
    applied: int = 0
    rejected: int = 0
    failed: int = 0
    issues: list[ItemIssue] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    daily_appended: bool = False
    receipt: str = ""
    note: str = ""
    model: str | None = None
    model_calls: int = 0
    total_tokens: int = 0
    duration_ms: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["status"] = self.status.value
        return out

    def summary_line(self) -> str:
        """One line for logs and the terminal chat."""
        if self.status in (ExtractionStatus.SKIPPED, ExtractionStatus.FAILED):
            return f"memory: {self.status.value} ({self.reason})"
        if self.status in (ExtractionStatus.STARTED, ExtractionStatus.COALESCED):
            return f"memory: {self.status.value}"
        parts = [f"memory: {self.status.value}"]
        if self.applied or self.rejected or self.failed:
            parts.append(f"{self.applied} applied, {self.rejected} rejected, {self.failed} failed")
        if self.written:
            parts.append("wrote " + ", ".join(self.written))
        if self.reason:
            parts.append(self.reason)
        return " — ".join(parts)


@dataclass
class ConversationState:
    """Per-conversation memory of the controller (REFERENCE A8)."""

    last_key: str | None = None
    last_run_at_ms: int | None = None
    written: deque[str] = field(
        default_factory=lambda: deque(maxlen=config.EXTRACTION_WRITTEN_SLUG_RING)
    )

    def note_turn_boundary(self) -> None:
        self.written.clear()
        self.last_run_at_ms = None

"""Model calls through litellm: one async `complete()`, typed errors, token usage per call.

litellm is imported on first use (its import costs ~3 s) with the bundled price map, so the app
starts fast and never reaches for the network at import; an async call imports it on a thread
(`aload_litellm`), so the event loop awaiting it is never held for those seconds. Every provider
exception is mapped onto `domain/errors.py` LLM errors whose messages never contain the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    LLMAuthFailed,
    LLMBadRequest,
    LLMError,
    LLMNotConfigured,
    LLMRateLimited,
    LLMTimeout,
    LLMUnavailable,
    MalformedToolArguments,
)
from liveagent_memory.domain.inputs import load_json

log = logging.getLogger(__name__)

Message = dict[str, Any]
ToolSchema = dict[str, Any]

_litellm: ModuleType | None = None
_litellm_lock = threading.Lock()  # one import, whichever thread asks first


def load_litellm() -> ModuleType:
    """Import litellm once, offline (bundled price map), without its console chatter."""
    global _litellm
    with _litellm_lock:
        if _litellm is None:
            # Why: without this, the import tries to download a price map (5 s timeout offline).
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            _litellm = litellm
        return _litellm


async def aload_litellm() -> ModuleType:
    """`load_litellm` for a coroutine: the first import runs on a thread, off the running loop
    (a desktop app's window stays responsive for its seconds); later calls return at once."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(load_litellm)


@dataclass(frozen=True)
class ModelConfig:
    """Where and how to call one model. The key is kept out of repr and logs."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = config.LLM_TIMEOUT_SECONDS
    temperature: float | None = None

    def require(self) -> ModelConfig:
        if not self.model.strip():
            raise LLMNotConfigured(
                "no model is configured; choose one in settings (e.g. `liveagent-memory "
                "settings --model openai/gpt-4o-mini`) or pass --model"
            )
        return self


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the model sent it; `arguments` is None when they were not a JSON object."""

    id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None
    argument_error: str | None = None

    def require_arguments(self) -> dict[str, Any]:
        if self.arguments is None:
            raise MalformedToolArguments(
                f"{self.name}: {self.argument_error or 'arguments are not a JSON object'}"
            )
        return self.arguments

    def as_message(self) -> dict[str, Any]:
        """The call as it appears in an assistant message sent back to the model."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.raw_arguments},
        }


@dataclass(frozen=True)
class Completion:
    content: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    model: str
    finish_reason: str | None

    def assistant_message(self) -> Message:
        """The reply as a message to append to the conversation."""
        message: Message = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [call.as_message() for call in self.tool_calls]
        return message


@dataclass(frozen=True)
class UsageRecord:
    purpose: str
    model: str
    usage: Usage
    duration_ms: int
    error: str | None = None  # the error code when the call failed


class UsageLedger:
    """Token usage of every call, in order; totals per purpose."""

    def __init__(self) -> None:
        self.records: list[UsageRecord] = []

    def add(self, record: UsageRecord) -> None:
        self.records.append(record)

    def total(self, purpose: str | None = None) -> Usage:
        out = Usage()
        for record in self.records:
            if purpose is None or record.purpose == purpose:
                out = out + record.usage
        return out


def parse_arguments(name: str, raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Decode tool-call arguments; return (object, None) or (None, why it is unusable)."""
    text = (raw or "").strip()
    if not text:
        return {}, None
    try:
        value = load_json(text)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"
    except ValueError as exc:  # a 5,000-digit number, nesting too deep
        return None, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def _usage_of(response: Any) -> Usage:
    """The token counts a provider reported for one response (zeros when it sent none)."""
    raw_usage = getattr(response, "usage", None)
    return Usage(
        prompt_tokens=int(getattr(raw_usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(raw_usage, "completion_tokens", 0) or 0),
        total_tokens=int(getattr(raw_usage, "total_tokens", 0) or 0),
    )


class LLMClient:
    """Calls one configured model; records usage in a ledger shared by its owner."""

    def __init__(self, model: ModelConfig, *, ledger: UsageLedger | None = None) -> None:
        self.config = model
        self.ledger = ledger if ledger is not None else UsageLedger()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] | None = None,
        purpose: str,
    ) -> Completion:
        """Send one chat completion; raise a typed LLMError on any failure."""
        cfg = self.config.require()
        litellm = await aload_litellm()
        kwargs: dict[str, Any] = {
            "model": cfg.model,
            "messages": list(messages),
            "timeout": cfg.timeout,
            "num_retries": config.LLM_MAX_RETRIES,
            "max_retries": config.LLM_MAX_RETRIES,
        }
        if cfg.api_base:
            kwargs["api_base"] = cfg.api_base
        if cfg.api_key:
            kwargs["api_key"] = cfg.api_key
        if cfg.temperature is not None:
            kwargs["temperature"] = cfg.temperature
        if tools:
            kwargs["tools"] = list(tools)
        started = time.monotonic()
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:  # every provider failure becomes a typed LLMError
            error = self._map_error(exc)
            self._record(purpose, Usage(), started, error.code)
            log.warning("%s call to %s failed: %s", purpose, cfg.model, error.code)
            raise error from None
        try:
            completion = self._parse(response, cfg.model)
        except LLMError as error:  # an unusable reply still cost tokens: record the failure
            self._record(purpose, _usage_of(response), started, error.code)
            log.warning("%s call to %s failed: %s", purpose, cfg.model, error.code)
            raise
        self._record(purpose, completion.usage, started, None)
        return completion

    def _record(self, purpose: str, usage: Usage, started: float, error: str | None) -> None:
        self.ledger.add(
            UsageRecord(
                purpose=purpose,
                model=self.config.model,
                usage=usage,
                duration_ms=int((time.monotonic() - started) * 1000),
                error=error,
            )
        )

    @staticmethod
    def _parse(response: Any, model: str) -> Completion:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMUnavailable(f"{model} returned no choices")
        choice = choices[0]
        message = choice.message
        calls = []
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = call.function
            name = str(getattr(function, "name", "") or "")
            raw = getattr(function, "arguments", "")
            raw_text = raw if isinstance(raw, str) else json.dumps(raw)
            arguments, problem = parse_arguments(name, raw_text)
            calls.append(
                ToolCall(
                    id=str(getattr(call, "id", "") or f"call_{index}"),
                    name=name,
                    raw_arguments=raw_text,
                    arguments=arguments,
                    argument_error=problem,
                )
            )
        return Completion(
            content=str(getattr(message, "content", "") or ""),
            tool_calls=tuple(calls),
            usage=_usage_of(response),
            model=str(getattr(response, "model", "") or model),
            finish_reason=getattr(choice, "finish_reason", None),
        )

    def _map_error(self, exc: Exception) -> LLMError:
        litellm = load_litellm()
        message = self._redact(str(exc) or type(exc).__name__)
        model = self.config.model
        # Why: litellm raises a plain APIError for some statuses of OpenAI-compatible servers
        # (a 403 among them), so the HTTP status decides when the exception class does not.
        status = getattr(exc, "status_code", None)
        if isinstance(exc, litellm.Timeout):
            return LLMTimeout(f"{model} did not answer within {self.config.timeout:g} s")
        if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or (
            status in (401, 403)
        ):
            return LLMAuthFailed(
                f"{model} refused the API key; store a valid key "
                f"(`liveagent-memory key set`) or set the provider's environment variable. "
                f"Provider said: {message}"
            )
        if isinstance(exc, litellm.RateLimitError) or status == 429:
            return LLMRateLimited(f"{model} is rate limited; try again later. {message}")
        if isinstance(exc, litellm.BadRequestError | litellm.NotFoundError) or status in (400, 404):
            return LLMBadRequest(f"{model} refused the request: {message}")
        if isinstance(exc, litellm.APIConnectionError | litellm.APIError):
            return LLMUnavailable(f"{model} is unavailable: {message}")
        return LLMUnavailable(f"{model} call failed ({type(exc).__name__}): {message}")

    def _redact(self, text: str) -> str:
        return redact(text, self.config.api_key)


def redact(text: str, api_key: str | None) -> str:
    """Keep keys out of messages even when a provider echoes them back (cut to 500 chars)."""
    keys = [api_key or ""]
    # A key litellm took from the provider's environment variable is a secret too.
    keys += [value for name, value in os.environ.items() if name.endswith("_API_KEY")]
    for key in keys:
        if len(key) >= 4:
            text = text.replace(key, "[redacted]")
    return text[:500]

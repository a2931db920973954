"""A connection check for one model: one tiny real call, its latency and its reply (no Qt).

`prepare_probe` does the blocking part (reading the key from the caller's key source, importing
litellm) and belongs on a worker thread; `check_connection` is the network await and belongs on the
event loop, so a front end never freezes while a provider thinks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from liveagent_memory.llm.client import LLMClient, ModelConfig, Usage, UsageLedger, load_litellm
from liveagent_memory.llm.keys import KeySource, resolve_api_key

PROBE_PURPOSE = "probe"  # ledger purpose of a check, so it is never counted as real work
PROBE_PROMPT = "Reply with the single word OK."  # the smallest request every chat model answers
PROBE_TIMEOUT_SECONDS = 20.0  # a check that takes longer already told the person enough
REPLY_PREVIEW_CHARS = 80  # the reply is shown on one line; a chatty model is cut short


@dataclass(frozen=True)
class ProbeResult:
    """A model answered: who (as the provider names it), what, how fast, at what cost."""

    model: str
    reply: str
    latency_ms: int
    usage: Usage


def prepare_probe(
    keys: KeySource,
    purpose: str,
    *,
    model: str,
    api_base: str = "",
    timeout: float = PROBE_TIMEOUT_SECONDS,
) -> ModelConfig:
    """Compose the call settings of a check (blocking: keyring read, litellm import).

    The key comes from `keys` for `purpose` (a `SecretStore` falls back to the default key);
    with no keyring it is None, so litellm reads the provider's environment variable.
    """
    config = ModelConfig(
        model=model.strip(),
        api_base=api_base.strip() or None,
        api_key=resolve_api_key(keys, purpose),
        timeout=timeout,
    )
    if config.model:
        # Why: litellm's first import takes seconds; done here, the await that follows is
        # pure network and never blocks the thread running the event loop.
        load_litellm()
    return config


async def check_connection(model: ModelConfig, *, ledger: UsageLedger | None = None) -> ProbeResult:
    """Send one tiny chat request; raise the client's typed LLMError when it fails."""
    client = LLMClient(model, ledger=ledger)
    started = time.monotonic()
    completion = await client.complete(
        [{"role": "user", "content": PROBE_PROMPT}], purpose=PROBE_PURPOSE
    )
    reply = " ".join(completion.content.split())
    if len(reply) > REPLY_PREVIEW_CHARS:
        reply = reply[: REPLY_PREVIEW_CHARS - 1] + "…"
    return ProbeResult(
        model=completion.model or model.model,
        reply=reply,
        latency_ms=int((time.monotonic() - started) * 1000),
        usage=completion.usage,
    )

"""Where a model call's API key comes from: a key source given by the caller, else the environment.

Holds the rule of docs/ARCHITECTURE.md "Composition roots" for keys: nothing in `llm/` opens
the keyring; the composition root hands a `KeySource` in (the settings' `SecretStore` is one),
and with no usable keyring the key is None, so litellm reads the provider's environment
variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) instead.
"""

from __future__ import annotations

from typing import Protocol

from liveagent_memory.domain.errors import KeyringUnavailable


class KeySource(Protocol):
    """API keys by purpose; `get` raises KeyringUnavailable when no keyring can be used."""

    def get(self, purpose: str) -> str | None: ...


def resolve_api_key(keys: KeySource, purpose: str) -> str | None:
    """The key for a purpose; None lets litellm read the provider's environment variable.

    With no keyring at all this returns None instead of failing, so environment-variable keys
    keep working on headless machines.
    """
    try:
        return keys.get(purpose)
    except KeyringUnavailable:
        return None

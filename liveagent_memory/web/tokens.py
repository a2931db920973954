"""The bridge's bearer token: the one the keyring keeps, else a new one (web/headless.py's
`serve` and the app's bridge, ui/web_service.py). No aiohttp here: the app reads its token to
show the Web page without loading the HTTP server, which it imports only when the bridge
starts."""

from __future__ import annotations

from dataclasses import dataclass

from liveagent_memory.domain import web_config
from liveagent_memory.domain.errors import KeyringUnavailable
from liveagent_memory.settings import SecretStore
from liveagent_memory.web.guard import new_token


@dataclass(frozen=True)
class Token:
    """The bridge's bearer token and whether the keyring keeps it for the next start."""

    value: str
    kept: bool
    note: str


def bridge_token(secrets: SecretStore) -> Token:
    """The token kept in the keyring, else a new one kept there; with no keyring a new one for
    this run only (said so, never written to a file)."""
    try:
        kept = secrets.front_end_token(web_config.BRIDGE_TOKEN_KEY)
        if kept is not None:
            return Token(kept, True, "the token is kept in the system keyring")
        token = new_token()
        secrets.keep_front_end_token(web_config.BRIDGE_TOKEN_KEY, token)
        return Token(token, True, "a new token, kept in the system keyring")
    except KeyringUnavailable:
        return Token(
            new_token(),
            False,
            "no secure keyring: this token lasts for this run only (it is not saved anywhere)",
        )

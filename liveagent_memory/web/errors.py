"""The bridge's own typed errors and the HTTP status of every error code.

The bridge answers each failure with the command layer's JSON error shape (`{error, message,
…}`, a stable `code`) and an HTTP status a browser or an HTTP client understands.
"""

from __future__ import annotations

from liveagent_memory.domain.errors import MemoryDomainError


class Unauthorized(MemoryDomainError):
    """No bearer token, or not the bridge's."""

    code = "unauthorized"


class ForbiddenRequest(MemoryDomainError):
    """A page of another site (Origin) or a name that is not the bridge's (Host)."""

    code = "forbidden_request"


class RequestTooLarge(MemoryDomainError):
    code = "request_too_large"


class RateLimited(MemoryDomainError):
    code = "rate_limited"


class RemoteBindRefused(MemoryDomainError):
    """A bind address other than loopback without `--allow-remote`."""

    code = "remote_bind_refused"


class BindFailed(MemoryDomainError):
    """The address is taken (another bridge?) or cannot be bound here."""

    code = "bind_failed"


class RouteNotFound(MemoryDomainError):
    """No route answers this method and path (a typo, or an old client)."""

    code = "route_not_found"


_STATUS = {
    "unauthorized": 401,
    "forbidden_request": 403,
    "action_not_allowed": 403,
    "slug_not_found": 404,
    "route_not_found": 404,
    "unknown_command": 404,
    "version_not_found": 404,
    "conflict_not_found": 404,
    "request_too_large": 413,
    "body_too_large": 413,
    "slug_exists": 409,
    "memory_changed": 409,
    "quota_exceeded": 409,
    "scope_ambiguous": 409,
    "daily_archived": 409,
    "risk_hard_blocked": 422,
    "rate_limited": 429,
    "store_unavailable": 503,
    "index_unavailable": 503,
    "keyring_unavailable": 503,
}


def http_status(exc: MemoryDomainError) -> int:
    """The HTTP status of a typed error: 5xx for the machine's trouble (a busy store, a model
    provider), 4xx for the request's."""
    if exc.code.startswith("llm_") or exc.code.startswith("embedding_"):
        return 502
    return _STATUS.get(exc.code, 400)

"""What a bridge request asks: its JSON body, and a command's payload as the bridge runs it.

One rule for both callers of the command table over HTTP: the agents' `memory.manage`
(`manage_payload`: as BRIDGE_ACTOR, person-only commands refused) and the person's web panel
(web/panel.py `panel_payload`: PANEL_COMMANDS only, as PANEL_ACTOR). Either way the request's
workdir goes into the payload of a command that takes one, the actor is the bridge's choice,
never the payload's, and a new organizer run is queued for the app or `serve` to claim.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from liveagent_memory.commands import Command, find_command
from liveagent_memory.domain import web_config
from liveagent_memory.domain.errors import ActionNotAllowed, InvalidArgument
from liveagent_memory.web.errors import RequestTooLarge

Payload = dict[str, Any]


def manage_payload(command: str, payload: Any, workdir: Any, *, now_ms: int) -> tuple[str, Payload]:
    """The command's name and its payload as the bridge runs it for an agent: as
    `command_payload` does, as BRIDGE_ACTOR. Person-only commands are refused."""
    found = find_command(command)
    if found.name in web_config.BRIDGE_PERSON_ONLY_COMMANDS:
        raise ActionNotAllowed(
            f"{found.name} is for a person in the app or the command line, not the web bridge"
        )
    return found.name, command_payload(
        found, payload, workdir, actor=web_config.BRIDGE_ACTOR, now_ms=now_ms
    )


def command_payload(
    found: Command, payload: Any, workdir: Any, *, actor: str, now_ms: int
) -> Payload:
    """A command's payload as a bridge caller's request runs it (the agents' `memory.manage`
    and the person's panel alike): the workdir added where the command takes one, the actor
    set to `actor` whatever the payload said, a new organizer run queued (due at `now_ms`
    unless the caller said when)."""
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        raise InvalidArgument("payload must be a JSON object", field="payload")
    if workdir is not None and not isinstance(workdir, str):
        raise InvalidArgument("workdir must be a folder path", field="workdir")
    refuse_providers(payload)
    fields = found.request.model_fields
    out = dict(payload)
    if workdir is not None and "workdir" in fields:
        if out.get("workdir", workdir) != workdir:
            raise InvalidArgument(
                "the request's workdir and the payload's differ; send one", field="workdir"
            )
        out["workdir"] = workdir
    if "actor" in fields:
        out["actor"] = actor
    if found.name == "organize_run_create":
        # The bridge never runs the pipeline: a run it created as running would have nobody
        # to run it. Pending, the app or `serve` claims it within ORGANIZE_PENDING_POLL_MS.
        out.setdefault("due_at", now_ms)
    return out


def refuse_providers(payload: Payload) -> None:
    """A caller may not choose the embedding providers: a provider names where to send a text
    and which key goes with it (the keyring's, or the provider's environment variable), so a
    caller's `api_base` would receive the person's key. The bridge uses the settings' chain."""
    if payload.get("providers") is not None:
        raise ActionNotAllowed(
            "the bridge embeds with the providers of the app's settings; a caller cannot "
            "choose them (a provider's address would receive your API key): leave out "
            "`providers`",
            field="providers",
        )


async def read_object(request: web.Request) -> Payload:
    """The request's JSON object body (RequestTooLarge past the limit, else InvalidArgument)."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise too_large() from None
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise InvalidArgument("the request body is not JSON", field="body") from None
    if not isinstance(body, dict):
        raise InvalidArgument("the request body must be a JSON object", field="body")
    return body


def too_large() -> RequestTooLarge:
    return RequestTooLarge(
        f"the request is larger than {web_config.BRIDGE_MAX_REQUEST_BYTES} bytes", field="body"
    )

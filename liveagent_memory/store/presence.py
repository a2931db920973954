"""MCP servers running now: each `liveagent-memory mcp` process's record in the store folder.

A stdio MCP server talks to its client alone (Claude Desktop, Cursor… start it as a child
process), so the app cannot see it the way it sees the callers of its own web bridge. Each
server therefore keeps one small JSON record, `PRESENCE_DIRNAME/<host>-<pid>.json`, while it
runs: written when it starts, again when its client says who it is, then at most every
PRESENCE_WRITE_EVERY_MS as calls come in; removed when it stops. A reader lists the records of
live processes on this machine; one whose process is gone (killed, crashed) is deleted as it is
found. A record that is not ours (unreadable, too big, the wrong shape) is skipped, never fatal.

The folder is per machine, like the index (another machine's processes cannot be asked).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liveagent_memory.domain import web_config
from liveagent_memory.domain.clock import Clock
from liveagent_memory.domain.schema import Shape
from liveagent_memory.store.files import atomic_write
from liveagent_memory.store.owners import RunOwner

log = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class AgentSession(Shape):
    """One MCP server process running now on this machine, and the client it serves."""

    client: str  # the name the client gave when it connected ("" before it did)
    client_version: str
    transport: str  # stdio | http
    workdir: str | None  # the project it serves, if started in one
    pid: int
    started_at: int  # ms
    last_call_at: int | None  # ms; None until the client's first call
    calls: int  # tool calls, resource reads and prompts asked for


def presence_folder(root: Path) -> Path:
    return root / web_config.PRESENCE_DIRNAME


@dataclass
class PresenceRecord:
    """This process's record: what it serves, and the client's name and calls once known."""

    folder: Path
    clock: Clock
    transport: str
    workdir: str | None
    owner: RunOwner = field(default_factory=RunOwner.current)
    client: str = ""
    client_version: str = ""
    calls: int = 0
    started_at: int = 0
    last_call_at: int | None = None
    _written_at: int | None = None

    @property
    def path(self) -> Path:
        host = _UNSAFE.sub("-", self.owner.host) or "host"
        return self.folder / f"{host}-{self.owner.pid}.json"

    def start(self) -> None:
        """Write the record as the server starts (no client yet)."""
        self.started_at = self.clock()
        self._write()

    def saw(self, client: str, version: str, *, call: bool) -> None:
        """The client (as it named itself) sent a request; `call`: one that uses memory.
        Written when the client or its first call is new to the record, else at most every
        PRESENCE_WRITE_EVERY_MS."""
        now = self.clock()
        changed = (client, version) != (self.client, self.client_version)
        self.client, self.client_version = client, version
        if call:
            self.calls += 1
            self.last_call_at = now
            changed = changed or self.calls == 1
        stale = (
            self._written_at is None or now - self._written_at >= web_config.PRESENCE_WRITE_EVERY_MS
        )
        if changed or stale:
            self._write()

    def stop(self) -> None:
        """Remove the record (the server is stopping); one that cannot be removed is left
        for a reader to drop (its process will be gone)."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not remove the MCP presence record %s: %s", self.path, exc)

    def _write(self) -> None:
        record = {
            "client": self.client,
            "clientVersion": self.client_version,
            "transport": self.transport,
            "workdir": self.workdir,
            "host": self.owner.host,
            "pid": self.owner.pid,
            "processStarted": self.owner.started,
            "startedAt": self.started_at,
            "lastCallAt": self.last_call_at,
            "calls": self.calls,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            data = json.dumps(record, ensure_ascii=False).encode("utf-8")
            atomic_write(self.path, data, sync_dir=False)
        except OSError as exc:
            # Why: the record only informs the app; an agent's memory calls must not fail
            # because the store folder is read-only or full. Outcome: unlisted, logged.
            log.warning("could not write the MCP presence record %s: %s", self.path, exc)
            return
        self._written_at = self.clock()


def running_sessions(root: Path) -> list[AgentSession]:
    """The MCP servers running now on this machine, the most recently used first; the
    records of processes that are gone are deleted."""
    folder = presence_folder(root)
    try:
        paths = sorted(folder.glob("*.json"))[: web_config.PRESENCE_MAX_RECORDS]
    except OSError:
        return []
    here = RunOwner.current()
    found = []
    for path in paths:
        record = _read(path)
        if record is None:
            continue
        owner = RunOwner(host=record["host"], pid=record["pid"], started=record["started"])
        if owner.host != here.host:
            continue  # another machine's process (a synced folder): cannot be asked
        if owner.gone(here=here):
            with contextlib.suppress(OSError):
                path.unlink()  # killed or crashed: it could not remove its record
            continue
        found.append(record["session"])
    found.sort(key=lambda s: s.last_call_at or s.started_at, reverse=True)
    return found


def _read(path: Path) -> dict[str, Any] | None:
    """A record as its owner and session; None for one that is not a valid record."""
    try:
        if path.stat().st_size > web_config.PRESENCE_MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        pid, host = data["pid"], data["host"]
        if not isinstance(pid, int) or not isinstance(host, str):
            return None
        started = data.get("processStarted")
        last = data.get("lastCallAt")
        workdir = data.get("workdir")
        session = AgentSession(
            client=str(data.get("client") or ""),
            client_version=str(data.get("clientVersion") or ""),
            transport=str(data.get("transport") or ""),
            workdir=workdir if isinstance(workdir, str) else None,
            pid=pid,
            started_at=int(data["startedAt"]),
            last_call_at=int(last) if isinstance(last, int) else None,
            calls=int(data.get("calls") or 0),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.info("skipped MCP presence record %s: %s", path, exc)
        return None
    return {
        "host": host,
        "pid": pid,
        "started": started if isinstance(started, int) else None,
        "session": session,
    }

"""Who runs an organizer run: this process's identity, and whether another owner is gone.

A run row records the host, pid and process start time of the process that executes it. On
the same host a dead pid (or a pid reused by a newer process) proves the owner is gone; on
another host, or where the process table cannot be asked, only the run's lease can tell
(store/runs.py).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

# /proc/PID/stat fields after the command name "(…)": state is the first, starttime the 20th.
_STATE_FIELD = 0
_STARTTIME_FIELD = 19
_GONE_STATES = ("Z", "X")  # a zombie or dead process: it ended, its parent did not reap it yet


@dataclass(frozen=True)
class RunOwner:
    """A process that executes organizer runs (pid None: a one-shot process, lease only)."""

    host: str
    pid: int | None = None
    started: int | None = None  # start time in clock ticks since boot (Linux), else None

    @classmethod
    def current(cls) -> RunOwner:
        """This process."""
        pid = os.getpid()
        return cls(host=socket.gethostname(), pid=pid, started=_stat(pid)[1])

    @classmethod
    def one_shot(cls) -> RunOwner:
        """This process as a one-shot owner (it exits at once; only a lease can hold a run)."""
        return cls(host=socket.gethostname())

    def gone(self, *, here: RunOwner) -> bool | None:
        """Whether this owner's process provably ended, seen from the process `here`.

        True or False on the same host; None when it cannot be told (another host, no pid,
        or no POSIX process table), so the caller falls back to the lease.
        """
        if self.pid is None or self.host != here.host or os.name != "posix":
            return None
        try:
            os.kill(self.pid, 0)  # signal 0 only asks whether the process exists
        except ProcessLookupError:
            return True
        except PermissionError:
            pass  # it exists, owned by another user
        except OSError:
            return None
        state, started = _stat(self.pid)
        if state in _GONE_STATES:
            return True
        # Trigger: the pid is alive but started at another time. Why: the owner died and the
        # system gave its pid to a newer process. Outcome: gone, unless the time is unknown.
        return self.started is not None and started is not None and started != self.started


def _stat(pid: int) -> tuple[str | None, int | None]:
    """(state, start time) of process `pid` from /proc; (None, None) where there is no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None, None
    # The command name may hold spaces and ")": the fixed fields follow its last ")".
    fields = text[text.rfind(")") + 1 :].split()
    try:
        return fields[_STATE_FIELD], int(fields[_STARTTIME_FIELD])
    except (IndexError, ValueError):
        return None, None

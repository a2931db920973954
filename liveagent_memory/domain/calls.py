"""Where a service's blocking step runs: the `SyncCall` seam, and its default (right here).

A service that awaits (the organizer pipeline and scheduler, an app's query embedding) reaches
the store, files and CPU-heavy steps through a `SyncCall` it is given. A command-line run passes
nothing and each call runs in place; the desktop app passes its bridge's `run_store`, so every
such call runs on the one store worker and the qasync loop stays free (docs/ARCHITECTURE.md
"Threads and loops of the app").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class SyncCall(Protocol):
    """Runs `fn(*args, **kwargs)`, a blocking call, and awaits its result."""

    def __call__(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Awaitable[T]: ...


async def call_here(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """The default SyncCall: the call runs here, on the awaiting thread."""
    return fn(*args, **kwargs)

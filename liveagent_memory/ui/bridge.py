"""The one async bridge between widgets and the core (STYLE 3).

`run_store(fn, *args)` runs a synchronous store call on a single worker thread (writes stay
serialized, the UI thread never touches disk); `run_compute(fn, *args)` runs CPU-heavy work that
touches no store (the organizer's offline duplicate finder) on a second one, so neither the loop
nor the store waits for it; `run_network(fn, *args)` waits on a remote for a command that touches
no store file or index (the git sync's fetch) on a third, so a slow remote holds neither;
`spawn(coro)` keeps a strong reference to a task and routes its
exception to one error handler; `preempt(name, coro)` cancels the previous task of that name
(search-as-you-type). `close()` cancels everything the bridge owns. The two `run_*` have the
shape of `domain/calls.py` `SyncCall`, the seam the services take.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext

log = logging.getLogger(__name__)
T = TypeVar("T")
# The commands that may run on the network worker, beside the store worker: each only waits on
# a remote and changes nothing of the store but `.git/` (store/git_sync.py `fetch`).
NETWORK_COMMANDS = frozenset({"sync_fetch"})
ErrorHandler = Callable[[BaseException], None]


class Bridge:
    """Owns the worker thread and every background task of the app."""

    def __init__(self, *, on_error: ErrorHandler | None = None) -> None:
        # One worker: store calls run in order, like Anki's max_workers=1.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._compute = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compute")
        self._network = ThreadPoolExecutor(max_workers=1, thread_name_prefix="network")
        self._tasks: set[asyncio.Task[Any]] = set()
        self._named: dict[str, asyncio.Task[Any]] = {}
        self._closing = False
        self.on_error = on_error or (
            lambda exc: log.error("background task failed: %r", exc, exc_info=exc)
        )

    async def run_store(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a synchronous core call on the store worker and await its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    async def run_compute(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run CPU-heavy work that touches no store on the compute worker and await it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._compute, lambda: fn(*args, **kwargs))

    async def run_network(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a call that waits on a remote and touches no store on the network worker."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._network, lambda: fn(*args, **kwargs))

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Start a task the bridge owns; its failure goes to `on_error`, never silently.

        Once `close()` has begun, the coroutine is not run and a cancelled future is returned:
        a refresh reacting to the last change of a closing window never runs.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coro.close()  # never started: no "coroutine was never awaited" warning
            raise
        if self._closing:
            # The coroutine is closed unstarted, and the caller gets a cancelled future: a
            # task would only start (and be cancelled) on a loop turn that may never come.
            coro.close()
            cancelled: asyncio.Future[T] = loop.create_future()
            cancelled.cancel()
            return cast("asyncio.Task[T]", cancelled)
        task = loop.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def preempt(self, name: str, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Start `coro` under `name`, cancelling the previous task of that name."""
        previous = self._named.get(name)
        if previous is not None and not previous.done():
            previous.cancel()
        task = self.spawn(coro, name=name)
        self._named[name] = task
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.on_error(exc)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def close(self) -> None:
        """Cancel every task and stop the workers (after their current call)."""
        self._closing = True
        while self._tasks:  # a task unwinding may still have spawned one before it ended
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            # Failures already went to on_error in _done; here we only wait for the unwinding.
            await asyncio.gather(*tasks, return_exceptions=True)
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._compute.shutdown(wait=True, cancel_futures=True)
        self._network.shutdown(wait=True, cancel_futures=True)


class StoreClient:
    """Named commands on the app's AppContext, run on the bridge's store worker (the UI's
    way into the core)."""

    def __init__(self, bridge: Bridge, context: AppContext) -> None:
        self.bridge = bridge
        self.context = context

    async def call(self, name: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a command; raises the core's typed MemoryDomainError on failure."""
        return await self.bridge.run_store(dispatch, self.context, name, payload or {})

    async def call_network(
        self, name: str, payload: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run one of NETWORK_COMMANDS on the network worker, so the store worker stays free
        for every other call while it waits on a remote."""
        if name not in NETWORK_COMMANDS:
            raise ValueError(f"{name} touches the store: run it with call()")
        return await self.bridge.run_network(dispatch, self.context, name, payload or {})

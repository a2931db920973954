"""`liveagent-memory serve`: the bridge and the organizer scheduler without a window.

Two contexts of one home: the bridge's runs commands as a one-shot process would
(`executes_runs=False`), so a run created through `memory.manage` is queued as pending; the
runner's claims it within ORGANIZE_PENDING_POLL_MS like the desktop app does
(organizer/service.py `OrganizerScheduler` with a poll timer) and runs the pipeline. Both reach
the store only on one store worker thread (each store call is one short transaction), CPU-heavy
organizer steps on a compute worker; the loop serves HTTP meanwhile. SIGINT and SIGTERM stop
the bridge, cancel a run in progress (its row records `cancelled`) and close the store.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from liveagent_memory.context import AppContext
from liveagent_memory.domain import config, web_config
from liveagent_memory.domain.errors import SettingsInvalid
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.organizer.service import OrganizerScheduler
from liveagent_memory.settings import OrganizerSettings
from liveagent_memory.web.guard import Guard, check_bind
from liveagent_memory.web.server import BridgeServer
from liveagent_memory.web.tokens import Token, bridge_token

log = logging.getLogger(__name__)
T = TypeVar("T")


class LoopTimer:
    """The scheduler's one-shot timer (organizer.service.Timer) on the running asyncio loop."""

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None

    def start(self, delay_ms: int, callback: Callable[[], None]) -> None:
        self.cancel()
        loop = asyncio.get_running_loop()
        self._handle = loop.call_later(max(0, delay_ms) / 1000, callback)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class Worker:
    """One thread for blocking calls (the store's, or the organizer's CPU work), awaited."""

    def __init__(self, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def __call__(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        self._pool.shutdown(wait=True)


@dataclass(frozen=True)
class ServeOptions:
    host: str = web_config.BRIDGE_DEFAULT_HOST
    port: int = web_config.BRIDGE_DEFAULT_PORT
    allow_remote: bool = False


class Headless:
    """The running service: the bridge on `bridge`, runs claimed and executed on `runner`."""

    def __init__(self, bridge: AppContext, runner: AppContext, token: Token, options: ServeOptions):
        check_bind(options.host, allow_remote=options.allow_remote)
        self._runner = runner
        self.store_call = Worker("store")
        self.compute = Worker("compute")
        guard = Guard(token.value, options.host, options.port, options.allow_remote)
        self.server = BridgeServer(bridge, guard, store_call=self.store_call)
        self._contexts = (bridge, runner)
        self._settings = OrganizerSettings()
        self.scheduler: OrganizerScheduler | None = None

    async def start(self) -> str:
        """Open both stores (on the store worker), bind the bridge, start the scheduler;
        return the bridge's address."""
        for context in self._contexts:
            await self.store_call(context.open_store)
        address = await self.server.start()
        self.scheduler = OrganizerScheduler(
            self._runner.store,
            timer=LoopTimer(),
            clock=self._runner.clock,
            settings=self._organizer_settings,
            runner=self._run,
            poll=LoopTimer(),
            store_call=self.store_call,
        )
        await self.scheduler.start()
        return address

    async def aclose(self) -> None:
        """Stop taking requests, cancel a run in progress (its end recorded), close stores."""
        await self.server.aclose()
        if self.scheduler is not None:
            try:
                await asyncio.wait_for(self.scheduler.aclose(), web_config.BRIDGE_SHUTDOWN_SECONDS)
            except TimeoutError:
                # The stale rule fails the row later; stopping must not hang on it.
                log.warning("a run in progress did not record its end in time")
        for context in self._contexts:
            await self.store_call(context.close)
        self.store_call.close()
        self.compute.close()

    def _organizer_settings(self) -> OrganizerSettings:
        try:
            self._settings = self._runner.settings.current().organizer
        except SettingsInvalid as exc:
            # A broken settings file must not stop the service; the schedule stays as it was.
            log.warning("organizer settings unreadable, keeping the last ones: %s", exc.message)
        return self._settings

    async def _run(self, run: dict[str, Any]) -> None:
        """The scheduler's runner: one pipeline run (SPEC 4: no model -> the offline planner)."""
        model = await self.store_call(self._runner.llm, "organizer")
        offline = not model.config.model
        pipeline = OrganizerPipeline(
            self._runner.store,
            None if offline else model,
            store_call=self.store_call,
            compute=self.compute,
            meanings=self._runner.meanings(embed_limit=config.MEANING_APP_EMBED_LIMIT),
        )
        run_id = str(run["run_id"])
        await pipeline.run(run, offline=offline, progress=lambda m: log.info("%s: %s", run_id, m))


def banner(address: str, token: Token, home: str, panel_url: str) -> str:
    """What `serve` prints on start, the way Jupyter does: where, the token, how to call it,
    and the web panel's link (its key is new at each start)."""
    return (
        f"LiveAgent Memory bridge for the store at {home}\n"
        f"    Address: {address}\n"
        f"    Token:   {token.value}\n"
        f"    ({token.note})\n"
        f"    Try:     curl -H 'Authorization: Bearer {token.value}' {address}api/metrics\n"
        f"    Web panel: {panel_url}\n"
        "Organizer runs queued from the web or `call` are claimed here. Ctrl+C stops.\n"
    )


def _on_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> list[int]:
    """Stop on SIGINT and SIGTERM; the signals handled (none on Windows, where Ctrl+C
    interrupts `asyncio.run` and the `finally` of `serve` still closes everything)."""
    handled: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop)
        except NotImplementedError:
            continue
        handled.append(sig)
    return handled


async def serve(bridge: AppContext, runner: AppContext, options: ServeOptions, out: TextIO) -> None:
    """Run until SIGINT or SIGTERM, then stop cleanly."""
    token = await asyncio.to_thread(bridge_token, bridge.secrets)
    service = Headless(bridge, runner, token, options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = _on_signals(loop, stop.set)
    try:
        address = await service.start()
        out.write(banner(address, token, str(bridge.home), service.server.panel_url))
        out.flush()
        await stop.wait()
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        await service.aclose()
    out.write("Stopped.\n")
    out.flush()

"""The async bridge: one store worker, owned tasks, error routing, preemption, shutdown."""

from __future__ import annotations

import asyncio
import gc
import inspect
import threading
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import qasync

from liveagent_memory.context import context_for
from liveagent_memory.domain.errors import MemoryDomainError, SlugNotFound, UnknownCommand
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.bridge import Bridge, StoreClient
from tests.helpers.waiting import until
from tests.ui.conftest import ended

pytestmark = pytest.mark.asyncio


class Boom(Exception):
    """A failure a background task raises on purpose."""


@pytest.fixture
def errors() -> list[BaseException]:
    return []


@pytest_asyncio.fixture
async def bridge(errors: list[BaseException]) -> AsyncIterator[Bridge]:
    opened = Bridge(on_error=errors.append)
    yield opened
    await opened.close()


async def test_tests_run_on_a_qasync_loop() -> None:
    assert isinstance(asyncio.get_running_loop(), qasync.QEventLoop)


async def test_run_store_runs_off_the_loop_thread_on_one_worker(bridge: Bridge) -> None:
    loop_thread = threading.get_ident()
    seen: list[tuple[int, int, str]] = []

    def work(number: int) -> int:
        # The first call is the slowest: a pool of more than one thread would finish it last.
        time.sleep(0.02 if number == 0 else 0)
        seen.append((number, threading.get_ident(), threading.current_thread().name))
        return number * 10

    results = await asyncio.gather(*(bridge.run_store(work, n) for n in range(6)))

    assert results == [0, 10, 20, 30, 40, 50]
    assert [number for number, _, _ in seen] == [0, 1, 2, 3, 4, 5]  # submission order
    threads = {ident for _, ident, _ in seen}
    assert len(threads) == 1  # a single worker
    assert loop_thread not in threads
    assert all(name.startswith("store") for _, _, name in seen)


async def test_run_store_passes_keyword_arguments_and_raises_what_the_call_raises(
    bridge: Bridge,
) -> None:
    assert await bridge.run_store(lambda a, *, b: a - b, 10, b=3) == 7

    def fail() -> None:
        raise SlugNotFound("memory 'x' not found")

    with pytest.raises(SlugNotFound) as caught:
        await bridge.run_store(fail)
    assert caught.value.code == "slug_not_found"


async def test_store_client_returns_results_and_raises_typed_core_errors(
    bridge: Bridge, home: Path
) -> None:
    store = await bridge.run_store(MemoryStore.open, home)
    try:
        client = StoreClient(bridge, context_for(store))
        written = await client.call(
            "memory_write",
            {
                "slug": "tea",
                "scope": "global",
                "type": "user",
                "description": "Likes tea",
                "body": "Green tea.",
            },
        )
        assert written["created"] is True
        listed = await client.call("memory_list")  # no payload: the command's defaults
        assert [entry["slug"] for entry in listed["entries"]] == ["tea"]

        with pytest.raises(SlugNotFound) as missing:
            await client.call("memory_read", {"slug": "coffee", "scope": "global"})
        assert missing.value.code == "slug_not_found"
        with pytest.raises(UnknownCommand) as unknown:
            await client.call("memory_frobnicate", {})
        assert isinstance(unknown.value, MemoryDomainError)
    finally:
        await bridge.run_store(store.close)


async def test_spawn_routes_a_failure_to_on_error_exactly_once(
    bridge: Bridge, errors: list[BaseException]
) -> None:
    failure = Boom("disk on fire")

    async def fail() -> None:
        await asyncio.sleep(0)
        raise failure

    task = bridge.spawn(fail())
    assert bridge.pending == 1
    await ended(task)
    await asyncio.sleep(0.02)  # a few more loop turns: a second report would show up here

    assert errors == [failure]
    assert bridge.pending == 0


async def test_spawn_keeps_no_reference_after_completion(
    bridge: Bridge, errors: list[BaseException]
) -> None:
    finished: list[str] = []

    async def work() -> None:
        await asyncio.sleep(0)
        finished.append("done")

    task = bridge.spawn(work(), name="short-lived")
    assert bridge.pending == 1
    ref = weakref.ref(task)
    del task
    await until(lambda: bridge.pending == 0, what="the task to finish")
    assert finished == ["done"]

    def released() -> bool:
        gc.collect()
        return ref() is None

    # asyncio itself holds a finished task for a loop turn or two; the bridge must not keep it.
    await until(released, timeout=2, what="the finished task to be released")
    assert errors == []


async def test_spawned_task_is_kept_alive_without_a_caller_reference(bridge: Bridge) -> None:
    finished = asyncio.Event()

    async def work() -> None:
        await asyncio.sleep(0.01)
        finished.set()

    bridge.spawn(work())  # no reference kept here; the bridge owns it
    gc.collect()
    await asyncio.wait_for(finished.wait(), timeout=2)


async def test_a_cancelled_task_is_not_an_error(
    bridge: Bridge, errors: list[BaseException]
) -> None:
    task = bridge.spawn(asyncio.Event().wait())
    await asyncio.sleep(0)
    task.cancel()
    await ended(task)
    await asyncio.sleep(0.02)

    assert task.cancelled()
    assert errors == []
    assert bridge.pending == 0


async def test_preempt_cancels_the_previous_task_of_the_same_name_only(
    bridge: Bridge, errors: list[BaseException]
) -> None:
    async def value(result: str) -> str:
        await asyncio.sleep(0.01)
        return result

    first = bridge.preempt("search", asyncio.Event().wait())
    other = bridge.preempt("detail", value("detail"))
    second = bridge.preempt("search", value("second"))

    assert await second == "second"
    assert await other == "detail"
    assert first.cancelled()
    assert errors == []
    assert bridge.pending == 0


async def test_preempt_after_the_previous_task_finished_just_starts(bridge: Bridge) -> None:
    async def value(result: str) -> str:
        return result

    first = bridge.preempt("search", value("first"))
    assert await first == "first"
    second = bridge.preempt("search", value("second"))
    assert await second == "second"
    assert not first.cancelled()


async def test_close_cancels_pending_tasks_and_stops_the_worker(
    errors: list[BaseException],
) -> None:
    bridge = Bridge(on_error=errors.append)
    started = threading.Event()
    ran: list[str] = []

    def running() -> None:
        started.set()
        time.sleep(0.05)
        ran.append("running")

    def queued() -> None:
        ran.append("queued")

    in_flight = bridge.spawn(bridge.run_store(running))
    behind = bridge.spawn(bridge.run_store(queued))
    idle = bridge.spawn(asyncio.Event().wait())
    await until(started.is_set, what="the worker to start the first call")

    await bridge.close()

    assert in_flight.cancelled() and behind.cancelled() and idle.cancelled()
    assert ran == ["running"]  # the call in progress finished; the queued one never ran
    assert bridge.pending == 0
    assert errors == []
    with pytest.raises(RuntimeError):  # the worker is shut down
        await bridge.run_store(ran.append, "after close")
    assert ran == ["running"]


async def test_a_task_spawned_while_closing_never_runs(errors: list[BaseException]) -> None:
    bridge = Bridge(on_error=errors.append)
    ran: list[str] = []
    late: list[asyncio.Task[None]] = []

    async def late_refresh() -> None:
        ran.append("late")

    async def reacts_on_cancel() -> None:
        try:
            await asyncio.Event().wait()
        finally:  # like a page refreshing after the last change of a closing window
            late.append(bridge.spawn(late_refresh()))

    bridge.spawn(reacts_on_cancel())
    await asyncio.sleep(0)

    await bridge.close()

    assert len(late) == 1 and late[0].cancelled()
    assert ran == [] and bridge.pending == 0 and errors == []


async def test_default_on_error_logs_the_failure(caplog: pytest.LogCaptureFixture) -> None:
    bridge = Bridge()

    async def fail() -> None:
        raise Boom("logged")

    task = bridge.spawn(fail())
    await ended(task)
    await asyncio.sleep(0)
    await bridge.close()

    assert any("background task failed" in r.getMessage() for r in caplog.records)


async def test_spawn_without_a_running_loop_raises_and_leaves_no_coroutine_behind() -> None:
    # A Qt timer or signal firing after the app's loop ended: no loop runs in that thread.
    bridge = Bridge()
    started: list[str] = []

    async def work() -> None:
        started.append("ran")

    coro = work()

    def from_a_thread_without_a_loop() -> BaseException | None:
        try:
            bridge.spawn(coro)
        except RuntimeError as exc:
            return exc
        return None

    assert isinstance(await asyncio.to_thread(from_a_thread_without_a_loop), RuntimeError)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED  # no "never awaited" warning
    assert started == [] and bridge.pending == 0
    await bridge.close()

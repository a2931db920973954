"""Waiting, inside a coroutine test, for a state other tasks on the loop reach.

`until` lets the running loop (asyncio tasks, and under qasync also Qt events, timers and the
bridge's worker results) run until a predicate holds, with a ceiling so a slow machine makes a
test slower, never flaky, and a stuck one fails with what it waited for.

Why not qtbot.waitUntil/waitSignal here: they spin a nested Qt event loop; inside a coroutine
that qasync is running, that nested loop steps other asyncio tasks re-entrantly (a test doing
so hung until killed). Waits on Qt alone, outside a coroutine, use qtbot's; a wait on a task
awaits the task.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

WAIT_S = 5.0  # generous ceiling for a poll; a passing test returns as soon as the state holds
# The first model call of a process imports litellm: seconds on a busy 2-core box.
MODEL_CALL_WAIT_S = 40.0
POLL_S = 0.01  # how often the predicate is checked; short, so a passing test barely waits


async def until(
    predicate: Callable[[], object], timeout: float = WAIT_S, *, what: str = "condition"
) -> None:
    """Let the loop run until `predicate()` is true; fail naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(POLL_S)

"""Per-conversation extraction control: gates, atomic claim, coalescing, cancel, LRU.

Most tests drive the controller with a small async run function (the controller's injection
seam); the ones about HTTP and the store use the real engine against the fake model server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from liveagent_memory.agent.extraction.controller import (
    ConversationController,
    ExtractionHandle,
    ExtractionService,
    RunFn,
)
from liveagent_memory.agent.extraction.engine import ExtractionEngine
from liveagent_memory.agent.extraction.types import (
    ConversationState,
    ExtractionResult,
    ExtractionStatus,
    TurnInput,
)
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.waiting import MODEL_CALL_WAIT_S, until

PLAN = "SubmitMemoryPlan"
LONG = "Please remember that I always use pnpm."


# --- helpers ----------------------------------------------------------------------------------
class Conversation:
    """Grows a chat transcript turn by turn, like a host would."""

    def __init__(self, cid: str = "conv-1", workdir: str | None = None) -> None:
        self.cid = cid
        self.workdir = workdir
        self.messages: list[dict[str, Any]] = []

    def turn(self, text: str) -> TurnInput:
        self.messages.append({"role": "user", "content": text})
        self.messages.append({"role": "assistant", "content": "Understood."})
        return TurnInput(self.cid, list(self.messages), workdir=self.workdir)


class Runs:
    """A scripted run function: records each turn; each run waits for its own release."""

    def __init__(self, *, auto: bool = False, fail_first: bool = False) -> None:
        self.turns: list[TurnInput] = []
        self.active = 0
        self.max_active = 0
        self.auto = auto
        self.fail_first = fail_first
        self._gates: list[asyncio.Event] = []

    async def __call__(self, turn: TurnInput, state: ConversationState) -> ExtractionResult:
        self.turns.append(turn)
        gate = asyncio.Event()
        self._gates.append(gate)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if self.fail_first and len(self.turns) == 1:
                raise RuntimeError("boom in the run")
            if not self.auto:
                await gate.wait()
            text = str(turn.messages[-2]["content"])
            return ExtractionResult(turn.conversation_id, ExtractionStatus.DONE, note=text)
        finally:
            self.active -= 1

    def release(self) -> None:
        for gate in self._gates:
            gate.set()

    async def started(self, count: int) -> None:
        """Wait until `count` runs have begun (bounded, so a bug fails instead of hanging)."""
        for _ in range(200):
            if len(self.turns) >= count:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"only {len(self.turns)} runs started, expected {count}")


def controller(
    run: RunFn,
    clock: FakeClock,
    *,
    unreviewed: bool = False,
    results: list[ExtractionResult] | None = None,
) -> ConversationController:
    return ConversationController(
        "conv-1",
        run,
        clock=clock,
        has_unreviewed_candidate=lambda _workdir: unreviewed,
        on_result=results.append if results is not None else None,
    )


async def settled(handle: ExtractionHandle) -> ExtractionResult:
    return await asyncio.wait_for(handle.wait(), timeout=5)


def write_plan(slug: str) -> dict[str, Any]:
    item = {
        "action": "write",
        "slug": slug,
        "scope": "global",
        "type": "feedback",
        "description": f"About {slug}",
        "body": f"Body of {slug}.",
    }
    return {"status": "updated", "items": [item]}


def slugs(store: MemoryStore) -> set[str]:
    return {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]}


@pytest.fixture
def engine(store: MemoryStore, llm_server: FakeLLMServer) -> Iterator[ExtractionEngine]:
    yield ExtractionEngine(store, llm_client(llm_server))


# --- gates ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        ([], "empty-user-message"),
        ([{"role": "user", "content": "   "}], "empty-user-message"),
        (
            [{"role": "assistant", "content": "Hello, how can I help you today?"}],
            "empty-user-message",
        ),
        ([{"role": "user", "content": "hmm"}], "user-message-too-short"),
        ([{"role": "user", "content": "?!?!?!?!?!"}], "punctuation-only-user-message"),
        ([{"role": "user", "content": "hello there!"}], "greeting"),
        ([{"role": "user", "content": "thanks a lot!!"}], "acknowledgement-thanks"),
        ([{"role": "user", "content": "okay then."}], "acknowledgement-ok"),
        ([{"role": "user", "content": "yes"}], "confirmation-without-unreviewed-candidate"),
    ],
)
@pytest.mark.asyncio
async def test_each_gate_skips_with_its_reason_and_no_model_call(
    engine: ExtractionEngine,
    llm_server: FakeLLMServer,
    clock: FakeClock,
    messages: list[dict[str, Any]],
    reason: str,
) -> None:
    results: list[ExtractionResult] = []
    ctl = controller(engine.run, clock, results=results)

    handle = ctl.request(TurnInput("conv-1", messages))

    assert handle.status is ExtractionStatus.SKIPPED
    assert handle.reason == reason
    assert not ctl.busy
    outcome = await settled(handle)
    assert (outcome.status, outcome.reason) == (ExtractionStatus.SKIPPED, reason)
    await asyncio.sleep(0.05)
    assert llm_server.requests == []
    assert results == []  # skips are immediate answers, not run results


@pytest.mark.asyncio
async def test_same_user_message_is_not_extracted_twice(clock: FakeClock) -> None:
    runs = Runs(auto=True)
    ctl = controller(runs, clock)
    turn = Conversation().turn(LONG)

    first = ctl.request(turn)
    await settled(first)
    ctl.note_turn_boundary()  # even without the throttle, the same message is not new
    second = ctl.request(turn)

    assert first.status is ExtractionStatus.STARTED
    assert (second.status, second.reason) == (ExtractionStatus.SKIPPED, "no-new-user-message")
    assert len(runs.turns) == 1


@pytest.mark.asyncio
async def test_a_short_confirmation_runs_when_an_unreviewed_candidate_exists(
    clock: FakeClock,
) -> None:
    runs = Runs(auto=True)
    ctl = controller(runs, clock, unreviewed=True)
    handle = ctl.request(Conversation().turn("yes"))
    assert handle.status is ExtractionStatus.STARTED
    assert (await settled(handle)).status is ExtractionStatus.DONE


# --- claim and coalescing ---------------------------------------------------------------------
@pytest.mark.asyncio
async def test_claim_is_atomic_back_to_back_requests_start_one_run(clock: FakeClock) -> None:
    runs = Runs()
    ctl = controller(runs, clock)
    chat = Conversation()

    first = ctl.request(chat.turn(LONG))
    second = ctl.request(chat.turn("And remember that tests run with pytest."))

    assert first.status is ExtractionStatus.STARTED
    assert second.status is ExtractionStatus.COALESCED
    await runs.started(1)
    runs.release()
    await runs.started(2)
    runs.release()
    one, two = await settled(first), await settled(second)
    assert one.note == LONG
    assert two.note == "And remember that tests run with pytest."
    assert runs.max_active == 1  # never two runs of one conversation at once
    assert len(runs.turns) == 2


@pytest.mark.asyncio
async def test_requests_during_a_run_coalesce_into_one_follow_up_with_the_newest_turn(
    engine: ExtractionEngine, llm_server: FakeLLMServer, store: MemoryStore, clock: FakeClock
) -> None:
    llm_server.reply_tool(PLAN, write_plan("first-run"), delay=0.5)
    llm_server.reply_tool(PLAN, write_plan("follow-up-run"))
    results: list[ExtractionResult] = []
    ctl = controller(engine.run, clock, results=results)
    chat = Conversation()

    running = ctl.request(chat.turn(LONG))
    await until(
        lambda: len(llm_server.requests) == 1,
        MODEL_CALL_WAIT_S,
        what="the first request to be in flight",
    )
    parked = [
        ctl.request(chat.turn(text))
        for text in (
            "Second: remember I prefer tabs over spaces.",
            "Third: remember my name is Ada Lovelace.",
            "Fourth: remember we deploy on Fridays only.",
        )
    ]

    assert running.status is ExtractionStatus.STARTED
    assert [h.status for h in parked] == [ExtractionStatus.COALESCED] * 3
    first = await settled(running)
    outcomes = [await settled(h) for h in parked]

    assert first.written == ["first-run"]
    assert all(o is outcomes[0] for o in outcomes)  # one follow-up, one shared result
    assert outcomes[0].status is ExtractionStatus.DONE
    assert outcomes[0].written == ["follow-up-run"]
    assert len(llm_server.requests) == 2
    window = llm_server.requests[1]["messages"][1]["content"]
    last_user = [line for line in window.splitlines() if line.startswith("[user] ")][-1]
    assert last_user == "[user] Fourth: remember we deploy on Fridays only."
    assert [r.written for r in results] == [["first-run"], ["follow-up-run"]]
    assert slugs(store) == {"first-run", "follow-up-run"}


@pytest.mark.asyncio
async def test_a_new_turn_does_not_cancel_the_running_extraction(
    engine: ExtractionEngine, llm_server: FakeLLMServer, store: MemoryStore, clock: FakeClock
) -> None:
    llm_server.reply_tool(PLAN, write_plan("from-turn-one"), delay=0.4)
    llm_server.reply_tool(PLAN, write_plan("from-turn-two"))
    ctl = controller(engine.run, clock)
    chat = Conversation()

    first = ctl.request(chat.turn(LONG))
    await until(
        lambda: len(llm_server.requests) == 1,
        MODEL_CALL_WAIT_S,
        what="the first request to be in flight",
    )
    ctl.note_turn_boundary()  # the user sends the next message while extraction runs
    second = ctl.request(chat.turn("Next turn: please remember I use Fish shell."))

    assert second.status is ExtractionStatus.COALESCED
    assert (await settled(first)).status is ExtractionStatus.DONE
    assert (await settled(second)).written == ["from-turn-two"]
    assert slugs(store) == {"from-turn-one", "from-turn-two"}


@pytest.mark.asyncio
async def test_idle_waits_for_the_follow_up_run(clock: FakeClock) -> None:
    runs = Runs(auto=True)
    results: list[ExtractionResult] = []
    ctl = controller(runs, clock, results=results)
    chat = Conversation()
    ctl.request(chat.turn(LONG))
    follow_up = ctl.request(chat.turn("Also remember I work in Berlin time."))

    await asyncio.wait_for(ctl.idle(), timeout=5)

    assert follow_up.status is ExtractionStatus.COALESCED
    assert not ctl.busy
    assert len(runs.turns) == 2
    assert [r.note for r in results] == [LONG, "Also remember I work in Berlin time."]


# --- cancel and dispose -----------------------------------------------------------------------
@pytest.mark.asyncio
async def test_cancel_stops_the_running_extraction_and_nothing_is_applied(
    engine: ExtractionEngine, llm_server: FakeLLMServer, store: MemoryStore, clock: FakeClock
) -> None:
    llm_server.reply_tool(PLAN, write_plan("must-not-exist"), delay=0.5)
    results: list[ExtractionResult] = []
    ctl = controller(engine.run, clock, results=results)

    handle = ctl.request(Conversation().turn(LONG))
    await until(
        lambda: len(llm_server.requests) == 1, MODEL_CALL_WAIT_S, what="the request to be in flight"
    )
    ctl.cancel()
    outcome = await settled(handle)

    assert (outcome.status, outcome.reason) == (ExtractionStatus.CANCELLED, "cancelled")
    assert [r.status for r in results] == [ExtractionStatus.CANCELLED]
    assert not ctl.busy
    await asyncio.sleep(0.5)  # past the moment the server answers
    assert slugs(store) == set()


@pytest.mark.asyncio
async def test_cancel_right_after_the_claim_still_settles_the_handle(clock: FakeClock) -> None:
    runs = Runs(auto=True)
    results: list[ExtractionResult] = []
    ctl = controller(runs, clock, results=results)

    handle = ctl.request(Conversation().turn(LONG))
    ctl.cancel()  # before the task ever ran

    outcome = await settled(handle)
    assert outcome.status is ExtractionStatus.CANCELLED
    assert runs.turns == []
    assert [r.status for r in results] == [ExtractionStatus.CANCELLED]


@pytest.mark.asyncio
async def test_cancel_also_drops_the_parked_follow_up(clock: FakeClock) -> None:
    runs = Runs()
    ctl = controller(runs, clock)
    chat = Conversation()
    running = ctl.request(chat.turn(LONG))
    parked = ctl.request(chat.turn("Remember the staging server is stage-2."))
    await runs.started(1)

    ctl.cancel()

    assert (await settled(running)).status is ExtractionStatus.CANCELLED
    assert (await settled(parked)).status is ExtractionStatus.CANCELLED
    await asyncio.sleep(0.05)
    assert len(runs.turns) == 1  # no follow-up was started


@pytest.mark.asyncio
async def test_the_controller_works_again_after_a_cancel(clock: FakeClock) -> None:
    runs = Runs(auto=True)
    ctl = controller(runs, clock)
    chat = Conversation()
    ctl.request(chat.turn(LONG))
    ctl.cancel()
    ctl.note_turn_boundary()

    again = ctl.request(chat.turn("Remember: code reviews happen on Tuesdays."))

    assert again.status is ExtractionStatus.STARTED
    assert (await settled(again)).status is ExtractionStatus.DONE


@pytest.mark.asyncio
async def test_a_request_right_after_cancel_is_not_lost_while_the_old_run_unwinds(
    clock: FakeClock,
) -> None:
    runs = Runs()
    ctl = controller(runs, clock)
    chat = Conversation()
    old = ctl.request(chat.turn(LONG))
    await runs.started(1)

    ctl.cancel()
    ctl.note_turn_boundary()
    new = ctl.request(chat.turn("Remember: the on-call rota changes on Mondays."))

    assert new.status is ExtractionStatus.STARTED
    assert (await settled(old)).status is ExtractionStatus.CANCELLED
    await runs.started(2)
    runs.release()
    outcome = await settled(new)
    assert outcome.status is ExtractionStatus.DONE
    assert outcome.note == "Remember: the on-call rota changes on Mondays."


@pytest.mark.asyncio
async def test_dispose_cancels_and_forgets_the_conversation(clock: FakeClock) -> None:
    runs = Runs()
    service = ExtractionService(runs, clock=clock, has_unreviewed_candidate=lambda _w: False)
    turn = Conversation().turn(LONG)
    handle = service.request(turn)
    await runs.started(1)
    old = service.controller("conv-1")

    await asyncio.wait_for(service.dispose("conv-1"), timeout=5)

    assert (await settled(handle)).status is ExtractionStatus.CANCELLED
    assert "conv-1" not in service
    assert old.disposed and not old.busy
    late = old.request(Conversation().turn("A late request to a disposed controller."))
    assert (late.status, late.reason) == (ExtractionStatus.SKIPPED, "conversation-disposed")
    # A fresh controller has no memory of the old one: the same message runs again.
    fresh = service.request(turn)
    assert fresh.status is ExtractionStatus.STARTED
    await runs.started(2)
    runs.release()
    await settled(fresh)
    await service.aclose()
    assert len(service) == 0


# --- throttle ---------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_second_request_in_the_same_turn_within_30_s_is_throttled(
    clock: FakeClock,
) -> None:
    runs = Runs(auto=True)
    ctl = controller(runs, clock)
    chat = Conversation()
    await settled(ctl.request(chat.turn(LONG)))

    clock.advance(seconds=29)
    throttled = ctl.request(chat.turn("Remember also that I like dark mode."))
    clock.advance(seconds=2)  # 31 s after the run started
    allowed = ctl.request(chat.turn("Remember also that I like dark mode a lot."))

    assert (throttled.status, throttled.reason) == (
        ExtractionStatus.SKIPPED,
        "throttled-min-interval",
    )
    assert allowed.status is ExtractionStatus.STARTED
    await settled(allowed)
    assert len(runs.turns) == 2


@pytest.mark.asyncio
async def test_a_turn_boundary_lifts_the_throttle(clock: FakeClock) -> None:
    runs = Runs(auto=True)
    ctl = controller(runs, clock)
    chat = Conversation()
    await settled(ctl.request(chat.turn(LONG)))

    ctl.note_turn_boundary()
    handle = ctl.request(chat.turn("Next turn: remember that I use Vim keybindings."))

    assert handle.status is ExtractionStatus.STARTED
    await settled(handle)


# --- many conversations -----------------------------------------------------------------------
@pytest.mark.asyncio
async def test_lru_evicts_the_least_recently_used_idle_conversation(clock: FakeClock) -> None:
    service = ExtractionService(
        Runs(auto=True), clock=clock, has_unreviewed_candidate=lambda _w: False
    )
    limit = config.EXTRACTION_CONVERSATIONS_LRU
    for n in range(limit):
        service.controller(f"c{n}")
    service.controller("c0")  # touched: now the most recent

    service.controller("one-more")

    assert len(service) == limit
    assert "c0" in service
    assert "c1" not in service
    assert "one-more" in service


@pytest.mark.asyncio
async def test_lru_never_evicts_a_busy_conversation(clock: FakeClock) -> None:
    runs = Runs()
    service = ExtractionService(runs, clock=clock, has_unreviewed_candidate=lambda _w: False)
    limit = config.EXTRACTION_CONVERSATIONS_LRU
    busy = service.request(Conversation("busy").turn(LONG))
    await runs.started(1)
    for n in range(limit):
        service.controller(f"idle-{n}")

    assert "busy" in service
    assert "idle-0" not in service
    assert len(service) == limit
    runs.release()
    await settled(busy)


@pytest.mark.asyncio
async def test_lru_keeps_the_new_conversation_when_all_others_are_busy(clock: FakeClock) -> None:
    runs = Runs()
    service = ExtractionService(runs, clock=clock, has_unreviewed_candidate=lambda _w: False)
    limit = config.EXTRACTION_CONVERSATIONS_LRU
    handles = [service.request(Conversation(f"c{n}").turn(LONG)) for n in range(limit)]
    await runs.started(limit)

    newest = service.request(Conversation("newest").turn(LONG))
    again = service.request(Conversation("newest").turn(LONG + " Also pnpm 9."))

    assert "newest" in service
    assert len(service) == limit + 1  # over the limit rather than evicting busy state
    assert newest.status is ExtractionStatus.STARTED
    assert again.status is ExtractionStatus.COALESCED  # the same controller, still tracked
    await runs.started(limit + 1)
    runs.release()
    for handle in [*handles, newest]:
        await settled(handle)
    await runs.started(limit + 2)
    runs.release()
    await asyncio.wait_for(service.idle(), timeout=5)
    service.controller("after")
    assert len(service) == limit  # idle again: back under the limit


# --- crashes ----------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_a_crash_in_the_run_fails_with_internal_error_and_the_controller_stays_usable(
    clock: FakeClock,
) -> None:
    runs = Runs(auto=True, fail_first=True)
    results: list[ExtractionResult] = []
    ctl = controller(runs, clock, results=results)
    chat = Conversation()

    crashed = await settled(ctl.request(chat.turn(LONG)))

    assert crashed.status is ExtractionStatus.FAILED
    assert crashed.reason == "internal-error"
    assert "RuntimeError" in crashed.note and "boom" in crashed.note
    assert not ctl.busy
    ctl.note_turn_boundary()
    ok = await settled(ctl.request(chat.turn("Remember that the staging DB is read-only.")))
    assert ok.status is ExtractionStatus.DONE
    assert [r.status for r in results] == [ExtractionStatus.FAILED, ExtractionStatus.DONE]


@pytest.mark.asyncio
async def test_a_crash_still_starts_the_parked_follow_up(clock: FakeClock) -> None:
    runs = Runs(auto=True, fail_first=True)
    ctl = controller(runs, clock)
    chat = Conversation()
    first = ctl.request(chat.turn(LONG))
    parked = ctl.request(chat.turn("Remember the release branch is called main."))

    assert (await settled(first)).reason == "internal-error"
    assert (await settled(parked)).status is ExtractionStatus.DONE

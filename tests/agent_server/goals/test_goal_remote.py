"""A goal run interpreted elsewhere (a Temporal workflow): its steps performed here, by id.

The remote controller is played by the test: it begins the goal, the driver hands it over to a
stand-in backend, and each step goes through `GoalDriver.perform_remote` as POST /goal/steps
would send it; a step that outlasts its call's `wait` is pushed to the backend when it ends.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from openhands.agent_server.errors import ConflictError
from openhands.agent_server.goals.driver import GoalDriver, GoalPhase
from openhands.sdk.conversation.goal import (
    CheckpointTaken,
    Finish,
    GoalController,
    GoalRequest,
    GoalSnapshot,
    RecordStatus,
    RunAgent,
    RunEnded,
    StatusRecorded,
    Stopped,
    TakeCheckpoint,
)

from .stand_in import Host, judge


class Backend:
    """A remote backend that remembers what it was asked to start, told and cancelled."""

    stop_wait = 5.0

    def __init__(self) -> None:
        self.started: list[tuple[uuid.UUID, GoalSnapshot, str]] = []
        self.cancelled: list[uuid.UUID] = []
        self.pushed: list[tuple[uuid.UUID, str]] = []
        self.push_arrived = asyncio.Event()

    async def start(self, conversation_id: uuid.UUID, snapshot: GoalSnapshot, run: str) -> None:
        self.started.append((conversation_id, snapshot, run))

    async def step_ended(self, conversation_id: uuid.UUID, step_id: str) -> None:
        self.pushed.append((conversation_id, step_id))
        self.push_arrived.set()

    async def cancel(self, conversation_id: uuid.UUID) -> None:
        self.cancelled.append(conversation_id)


@pytest.fixture
def backend() -> Backend:
    """The server's backend for this test's driver."""
    return Backend()


async def _handed_over(backend: Backend, host: Host) -> tuple[GoalDriver, GoalController, str]:
    driver = GoalDriver(host, backend)
    await driver.start(GoalRequest(objective="make it"), judge_llm=judge('{"complete": true}'))
    [(_, snapshot, run)] = backend.started
    controller = GoalController.restore(snapshot)
    # The remote run's first step: the workspace as the goal found it (the stand-in keeps
    # no snapshots, which is answered, not failed).
    start = controller.next()
    assert start == TakeCheckpoint(label="goal start", goal_round=0)
    taken = await driver.perform_remote(run, "start", start, wait=10)
    assert isinstance(taken, CheckpointTaken) and taken.checkpoint_id is None
    assert host.checkpoints == [("goal start", 0)]
    controller.advance(taken)
    return driver, controller, run


async def test_the_server_records_the_first_status_then_hands_over_a_snapshot(
    backend: Backend,
) -> None:
    host = Host()
    driver, controller, _ = await _handed_over(backend, host)
    assert [s["phase"] for s in host.goal_statuses()] == ["agent"]
    assert driver.phase == GoalPhase.RUNNING and driver.task is None
    assert controller.next() == RunAgent(message="make it")


async def test_a_remote_run_completes_the_goal_with_the_servers_steps(backend: Backend) -> None:
    host = Host()
    driver, controller, run = await _handed_over(backend, host)
    count = 0
    while not isinstance(step := controller.next(), Finish):
        count += 1
        result = await driver.perform_remote(run, str(count), step, wait=10)
        assert result is not None
        controller.advance(result)
    assert step.outcome.status == "complete"
    assert [s["status"] for s in host.goal_statuses()] == ["running", "running", "complete"]
    assert driver.phase == GoalPhase.IDLE  # the final status ended the remote run
    with pytest.raises(ConflictError):
        await driver.perform_remote(run, "late", controller.next(), wait=0)


async def test_a_retried_step_attaches_to_the_one_under_way_and_sends_nothing_twice(
    backend: Backend,
) -> None:
    host = Host(wait_for_pause=True)
    driver, controller, run = await _handed_over(backend, host)
    step = controller.next()
    assert await driver.perform_remote(run, "1", step, wait=0.01) is None  # still running
    assert await driver.perform_remote(run, "1", step, wait=0.01) is None  # the same run
    host.request_pause()
    result = await driver.perform_remote(run, "1", step, wait=10)
    assert result is not None and host.runs == 1
    messages = [e for e in host.events if type(e).__name__ == "MessageEvent"]
    assert len(messages) == 1


async def test_a_stop_answers_the_step_under_way_and_waits_for_the_recorded_end(
    backend: Backend,
) -> None:
    host = Host(wait_for_pause=True)
    driver, controller, run = await _handed_over(backend, host)
    step = controller.next()
    pending = asyncio.ensure_future(driver.perform_remote(run, "1", step, wait=10))
    await asyncio.sleep(0)

    async def remote_controller() -> None:
        result = await pending
        assert isinstance(result, Stopped) and result.reason == "stopped by user"
        controller.advance(result)
        final = controller.next()
        assert await driver.perform_remote(run, "2", final, wait=10) is not None

    answering = asyncio.ensure_future(remote_controller())
    await driver.stop()
    await answering
    last = host.goal_statuses()[-1]
    assert (last["status"], last["reason"]) == ("interrupted", "stopped by user")
    assert not driver.active and backend.cancelled == []


async def test_a_remote_run_that_never_records_its_end_is_ended_by_the_server(
    backend: Backend,
) -> None:
    backend.stop_wait = 0.05
    host = Host(wait_for_pause=True)
    driver, _, _ = await _handed_over(backend, host)
    await driver.interrupt("user message")
    last = host.goal_statuses()[-1]
    assert (last["status"], last["reason"], last["active"]) == (
        "interrupted",
        "user message",
        False,
    )
    assert backend.cancelled == [host.id] and not driver.active


async def test_a_step_of_another_run_is_refused(backend: Backend) -> None:
    host = Host()
    driver, controller, _ = await _handed_over(backend, host)
    with pytest.raises(ConflictError, match="does not drive"):
        await driver.perform_remote("someone-else", "1", controller.next(), wait=0)


async def test_a_server_restart_interrupts_a_remote_goal_like_a_built_in_one(
    backend: Backend,
) -> None:
    host = Host()
    await _handed_over(backend, host)
    again = GoalDriver(host)  # the server came back: nothing of the run is in memory
    again.load_status()
    event = again.recover_after_restart()
    assert event is not None
    assert (event.value["status"], event.value["reason"]) == ("interrupted", "server restart")


async def test_statuses_riding_with_a_step_are_recorded_before_it(backend: Backend) -> None:
    host = Host()
    driver, controller, run = await _handed_over(backend, host)
    run_step = controller.next()
    result = await driver.perform_remote(run, "1", run_step, wait=10)
    assert result is not None
    controller.advance(result)
    judging = controller.next()
    assert isinstance(judging, RecordStatus)
    controller.advance(StatusRecorded())
    ask = controller.next()
    answer = await driver.perform_remote(run, "2", ask, wait=10, records=[judging])
    assert answer is not None
    assert [s["phase"] for s in host.goal_statuses()] == ["agent", "judging"]


async def test_a_step_that_outlasts_its_wait_is_announced_once_when_it_ends(
    backend: Backend,
) -> None:
    host = Host(wait_for_pause=True)
    driver, controller, run = await _handed_over(backend, host)
    step = controller.next()
    assert await driver.perform_remote(run, "1", step, wait=0.01) is None
    assert await driver.perform_remote(run, "1", step, wait=0.01) is None  # asked again
    assert backend.pushed == []
    host.request_pause()  # the agent's run ends
    await asyncio.wait_for(backend.push_arrived.wait(), 10)
    await asyncio.sleep(0)  # a second push, if one were due, is sent by now
    assert backend.pushed == [(host.id, "1")]
    # The run asks again (told, or after a lost word) and gets the result; nothing runs twice.
    result = await driver.perform_remote(run, "1", step, wait=0)
    assert isinstance(result, RunEnded) and result.status == "paused" and host.runs == 1


async def test_a_step_answered_in_its_call_is_not_announced(backend: Backend) -> None:
    host = Host()
    driver, controller, run = await _handed_over(backend, host)
    assert await driver.perform_remote(run, "1", controller.next(), wait=10) is not None
    assert backend.pushed == []


async def test_a_deleted_conversations_remote_goal_is_cancelled_and_records_nothing(
    backend: Backend,
) -> None:
    host = Host(wait_for_pause=True)
    driver, controller, run = await _handed_over(backend, host)
    pending = asyncio.ensure_future(driver.perform_remote(run, "1", controller.next(), wait=10))
    recorded = len(host.goal_statuses())
    await asyncio.sleep(0)
    backend.stop_wait = 0.05  # nobody plays the remote controller here
    await driver.discard()
    result = await pending
    assert isinstance(result, Stopped) and result.reason == "conversation deleted"
    assert backend.cancelled == [host.id]
    assert len(host.goal_statuses()) == recorded and driver.phase == GoalPhase.IDLE


async def test_a_snapshot_riding_with_a_step_is_taken_before_it(backend: Backend) -> None:
    host = Host()
    driver, controller, run = await _handed_over(backend, host)
    snapshot = TakeCheckpoint(label="round 1", goal_round=1)
    result = await driver.perform_remote(run, "1", controller.next(), wait=10, records=[snapshot])
    assert isinstance(result, RunEnded)
    assert host.checkpoints[-1] == ("round 1", 1) and host.runs == 1

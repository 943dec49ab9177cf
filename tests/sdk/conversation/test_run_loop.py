"""`RunLoop` alone, behind a `ConversationCore`: how a run ends when a step asks it to end.

The request to end after a step (`end_after_step`) belongs to the run loop: the agent asks
through its conversation (`wait_for_approval`, `wait_for_client`), the loop reads it once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from core_for_tests import CoreForTests, MakeCore
from openhands.sdk.conversation.approvals import Approvals
from openhands.sdk.conversation.client_calls import ClientCalls
from openhands.sdk.conversation.errors import ConversationClosedError
from openhands.sdk.conversation.run_loop import RunLoop
from openhands.sdk.conversation.state import ConversationExecutionStatus as Status
from openhands.sdk.conversation.stuck import StuckDetector
from openhands.sdk.conversation.types import StuckDetectionThresholds
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.llm.message import Message, TextContent

StepScript = Callable[[RunLoop], bool]
"""One scripted step: may ask the loop to end; True when the agent wants to finish."""


def _run_loop(core: CoreForTests, script: list[StepScript]) -> tuple[RunLoop, list[int]]:
    """A run loop whose steps are `script`, one per step; also the list of steps taken."""
    taken: list[int] = []
    steps: Iterator[StepScript] = iter(script)

    def step(on_event: Callable[[Event], None]) -> bool:
        taken.append(len(taken) + 1)
        on_event(
            MessageEvent(
                source="agent",
                llm_message=Message(role="assistant", content=[TextContent(text="working")]),
            )
        )
        return next(steps)(runs)

    runs = RunLoop(
        core,
        step=step,
        hooks=HookRunner(None, core.state.workspace.working_dir),
        stuck=StuckDetector(core.state, StuckDetectionThresholds()),
        approvals=Approvals(core),
        client_calls=ClientCalls(core),
    )
    return runs, taken


def _asks(status: Status) -> StepScript:
    def step(runs: RunLoop) -> bool:
        runs.end_after_step(status)
        return False

    return step


def _finishes(runs: RunLoop) -> bool:
    return True


def _goes_on(runs: RunLoop) -> bool:
    return False


@pytest.mark.parametrize("status", [Status.WAITING_FOR_CONFIRMATION, Status.PAUSED])
def test_a_step_that_asks_to_end_the_run_ends_it_with_that_status(
    make_core: MakeCore, status: Status
) -> None:
    core = make_core()
    runs, taken = _run_loop(core, [_asks(status), _finishes])

    runs.run()

    assert core.state.execution_status == status
    assert taken == [1]
    assert not runs.is_running


def test_the_request_is_spent_with_its_step(make_core: MakeCore) -> None:
    core = make_core()
    runs, taken = _run_loop(core, [_asks(Status.PAUSED), _goes_on, _finishes])

    runs.run()
    runs.run()

    assert core.state.execution_status == Status.FINISHED
    assert taken == [1, 2, 3]


def test_a_request_made_outside_a_step_does_not_end_the_next_run(make_core: MakeCore) -> None:
    core = make_core()
    runs, taken = _run_loop(core, [_goes_on, _finishes])

    runs.end_after_step(Status.WAITING_FOR_CONFIRMATION)
    runs.run()

    assert core.state.execution_status == Status.FINISHED
    assert taken == [1, 2]


def test_the_first_request_of_a_step_stands(make_core: MakeCore) -> None:
    core = make_core()

    def asks_twice(runs: RunLoop) -> bool:
        runs.end_after_step(Status.WAITING_FOR_CONFIRMATION)
        runs.end_after_step(Status.PAUSED)
        return False

    runs, _ = _run_loop(core, [asks_twice])

    runs.run()

    assert core.state.execution_status == Status.WAITING_FOR_CONFIRMATION


def test_a_closed_conversation_neither_runs_nor_pauses(make_core: MakeCore) -> None:
    core = make_core()
    runs, taken = _run_loop(core, [_finishes])
    core.is_closed = True

    with pytest.raises(ConversationClosedError, match="reopen it"):
        runs.run()
    runs.pause()
    runs.interrupt()

    assert taken == []
    assert core.state.execution_status == Status.IDLE

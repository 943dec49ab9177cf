"""`run_goal`: a thin synchronous driver of `GoalController` around a conversation you own.

Every turn (objective, agent work, follow-ups) lands in `conversation.state.events`. On a
conversation in this process, each status the loop records (start, each phase change, each
judged round, the end) is appended as a `ConversationStateUpdateEvent(key="goal")`, as the
agent server does, and handed to the optional `on_status` callback. Budgets are enforced
during a run too: when the time limit or the cost budget runs out, the conversation is
paused, and that round is judged as the last one. The rules are the controller's; this
module only moves messages, runs and status events.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from openhands.sdk.contracts import DrivableConversation, ObservableConversation
from openhands.sdk.conversation.errors import ConversationError, ConversationRunError
from openhands.sdk.conversation.goal.controller import GoalController
from openhands.sdk.conversation.goal.errors import NoResumableGoalError
from openhands.sdk.conversation.goal.models import (
    DRIVER_ERROR,
    DRIVER_STOPPED,
    GoalDone,
    GoalOutcome,
    GoalPhase,
    GoalStatus,
    RunEnd,
)
from openhands.sdk.conversation.goal.options import DEFAULT_MAX_ITERATIONS, GoalRequest
from openhands.sdk.conversation.goal.status import (
    GoalStatusWriter,
    goal_status_from,
    last_goal_event,
    last_goal_status,
)
from openhands.sdk.conversation.goal.verify import Verifier
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event
from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm import LLM

logger = logging.getLogger(__name__)

StatusCallback = Callable[[GoalStatus], None]
"""`on_status(status)`: called with every status the loop records (its `phase` included)."""


def agent_cost_of(conversation: DrivableConversation) -> float:
    """The agent LLM's accumulated cost in USD."""
    return float(conversation.agent.llm.metrics.accumulated_cost)


class _StatusRecorder:
    """Records statuses: as goal events when the conversation takes them, and to `on_status`."""

    def __init__(
        self, conversation: DrivableConversation, on_status: StatusCallback | None
    ) -> None:
        self._conversation = conversation
        self._on_status = on_status
        self._writer = GoalStatusWriter()

    def continue_goal(self, objective: str) -> None:
        """A resumed goal refers to the objective its start already wrote (not a new copy)."""
        events = self._conversation.state.events
        event = last_goal_event(events)
        if event is not None and goal_status_from(event, events).objective == objective:
            self._writer.adopt(event, objective)

    def __call__(self, status: GoalStatus) -> None:
        if isinstance(self._conversation, ObservableConversation):
            event = self._writer.event(status)
            self._conversation.append_event(event)
            self._writer.written(event)
        if self._on_status is not None:
            self._on_status(status)


class _BudgetGuard:
    """Pauses the conversation mid-run when the goal's time or cost budget runs out.

    `LocalConversation.run()` drops a pause requested before it starts, so a budget that runs
    out before the run is under way (a goal resumed with no time left, a timer firing before
    `run()` begins) is kept pending and delivered from the callback once the run is running.
    Whether a budget ran out is the controller's call (`check_budget`, `time_up`).
    """

    def __init__(self, conversation: ObservableConversation, controller: GoalController) -> None:
        self._conversation = conversation
        self._controller = controller
        self._lock = threading.Lock()
        self._armed = False
        self._delivered = False
        self._cost_before = 0.0
        self._watching = controller.max_cost is not None or controller.time_limit is not None
        if self._watching:
            conversation.add_callback(self._on_event)

    def close(self) -> None:
        """Stop watching the conversation's events (the goal has ended)."""
        if self._watching:
            self._conversation.remove_callback(self._on_event)
        self._watching = False

    @contextlib.contextmanager
    def armed(self, cost_before: float) -> Iterator[None]:
        """Watch the budgets while the body (one agent run) executes."""
        timer: threading.Timer | None = None
        time_left = self._controller.time_left()
        with self._lock:
            self._delivered = False
            self._cost_before = cost_before
            self._armed = True
        if time_left is not None:
            timer = threading.Timer(max(time_left, 0.0), self._time_up)
            timer.daemon = True
            timer.start()
        try:
            yield
        finally:
            with self._lock:
                self._armed = False
            if timer is not None:
                timer.cancel()

    def _on_event(self, event: Event) -> None:
        if not self._armed:
            return
        if self._controller.budget_tripped is None:
            spent = agent_cost_of(self._conversation) - self._cost_before
            if self._controller.check_budget(spent) is not None:
                self._deliver()
            return
        self._deliver()

    def _time_up(self) -> None:
        if self._armed and self._controller.time_up() is not None:
            self._deliver()

    def _deliver(self) -> None:
        """Pause the conversation for a tripped budget, once its run is really running."""
        with self._lock:
            running = (
                self._conversation.state.execution_status == ConversationExecutionStatus.RUNNING
            )
            if not self._armed or self._delivered or not running:
                return
            self._delivered = True
        self._conversation.pause()


def _run_once(conversation: DrivableConversation) -> RunEnd:
    """Run the agent once and say how the run ended."""
    try:
        conversation.run()
    except ConversationRunError as exc:
        return RunEnd(
            status=ConversationExecutionStatus.ERROR,
            error=f"{exc.code}: {exc.detail}",
            code=exc.code,
        )
    state = conversation.state
    return RunEnd.after_run(state.execution_status, state.events)


APPROVAL_POLL_SECONDS = 0.1
"""How often a goal waiting for approval looks whether the call was approved or rejected."""


def _wait_for_decision(conversation: DrivableConversation) -> RunEnd | None:
    """Block until the conversation leaves `waiting_for_confirmation`: a person approved
    (`approve_pending_actions`), rejected (`reject_pending_actions`) or paused it. A
    `run()` from elsewhere would approve and run it at once, so the goal never calls it here.
    None when the goal goes on with a run; how the round ended when it was paused.
    """
    waiting = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
    while conversation.state.execution_status == waiting:
        time.sleep(APPROVAL_POLL_SECONDS)
    status = conversation.state.execution_status
    # Paused meanwhile: that ends the wait like a run that ended paused (no run here).
    return RunEnd(status=status) if status == ConversationExecutionStatus.PAUSED else None


def _pending_approval(
    conversation: DrivableConversation, controller: GoalController, record: _StatusRecorder
) -> RunEnd | None:
    """A goal started while a tool call waits for approval waits for the same answer.

    A run would approve the call, so nothing runs until a person approves or rejects it;
    then the agent goes on from there (asking again if it must) before the goal's first
    message. None when nothing waited; else how that run ended.
    """
    waiting = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
    if conversation.state.execution_status != waiting:
        return None
    end = RunEnd(status=waiting)
    while controller.awaits_approval(end):
        record(controller.running_status())
        decided = _wait_for_decision(conversation)
        if decided is not None:
            return decided
        controller.enter_phase("agent")
        record(controller.running_status())
        end = _run_once(conversation)
    return end


def _count_judge_cost(conversation: DrivableConversation, judge_llm: LLM) -> None:
    """Register the judge's LLM in the conversation's stats, so its cost is kept with it.

    Only for a `LocalConversation` (a server keeps its own stats); the stats are recorded at
    the end of each run and of the goal. A judge sharing the usage_id of another registered
    LLM (the agent's) is not registered: its counts would replace that LLM's.
    """
    if not isinstance(conversation, LocalConversation):
        return
    stats = conversation.conversation_stats
    registered = stats.usage_to_metrics.get(judge_llm.usage_id)
    if registered is not None and registered is not judge_llm.metrics:
        logger.warning(
            "the goal judge's LLM has usage_id %r, like another LLM of this conversation; its "
            "cost is not kept in the conversation's stats (give it its own usage_id, e.g. "
            "'goal-judge')",
            judge_llm.usage_id,
        )
        return
    stats.register_llm(judge_llm)


def drive_goal(
    conversation: DrivableConversation,
    controller: GoalController,
    *,
    resume: bool = False,
    on_status: StatusCallback | None = None,
) -> GoalOutcome:
    """Run the goal loop of `controller` on `conversation` until it completes, caps or fails.

    `resume=True` starts with the controller's resume prompt instead of the objective. The
    agent cost given to the controller each round is the agent LLM's cost delta over the run.
    How a run's end, a pause or a limit is treated is the controller's decision.
    """
    record = _StatusRecorder(conversation, on_status)
    if resume:
        record.continue_goal(controller.objective)
    guard = (
        _BudgetGuard(conversation, controller)
        if isinstance(conversation, ObservableConversation)
        else None
    )

    def on_phase(_phase: GoalPhase) -> None:
        record(controller.running_status())

    message = controller.resume_prompt() if resume else controller.start()
    record(controller.running_status())
    outcome: GoalOutcome | None = None
    try:
        before = _pending_approval(conversation, controller, record)
        interruption = None if before is None else controller.classify_run_end(before)
        if interruption is not None:
            outcome = controller.interrupt(interruption)
        while outcome is None:
            conversation.send_message(message)
            cost_before = agent_cost_of(conversation)
            with guard.armed(cost_before) if guard else contextlib.nullcontext():
                end = _run_once(conversation)
                while controller.awaits_approval(end):
                    record(controller.running_status())
                    decided = _wait_for_decision(conversation)
                    if decided is not None:
                        end = decided
                        break
                    controller.enter_phase("agent")
                    record(controller.running_status())
                    end = _run_once(conversation)
            spent = agent_cost_of(conversation) - cost_before
            interruption = controller.classify_run_end(end)
            if interruption is not None:
                outcome = controller.interrupt(interruption, agent_cost=spent)
                break
            step = controller.on_run_finished(
                conversation.state.events, agent_cost=spent, on_phase=on_phase
            )
            if isinstance(step, GoalDone):
                outcome = step.outcome
                break
            # A pause that came while the round was judged ends the goal here.
            interruption = controller.classify_run_end(
                RunEnd(status=conversation.state.execution_status)
            )
            if interruption is not None:
                outcome = controller.interrupt(interruption)
                break
            record(controller.running_status())
            message = step.followup
    except (ConversationError, LLMError) as exc:
        # e.g. a UserPromptSubmit hook blocked the follow-up, or someone else is running it.
        outcome = controller.interrupted(f"{type(exc).__name__}: {exc}", reason=DRIVER_ERROR)
    except BaseException as exc:
        # Ctrl-C or a bug: record it so the chip never shows a dead loop as running.
        failed = controller.interrupted(f"{type(exc).__name__}: {exc}", reason=DRIVER_STOPPED)
        record(controller.final_status(failed))
        raise
    finally:
        if guard is not None:
            guard.close()
    if isinstance(conversation, LocalConversation):
        conversation.record_stats()  # the last judge call came after the last run's record
    record(controller.final_status(outcome))
    return outcome


def run_goal(
    conversation: DrivableConversation,
    objective: str,
    judge_llm: LLM,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    *,
    verify: str | None = None,
    max_cost: float | None = None,
    time_limit: float | None = None,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
    on_status: StatusCallback | None = None,
) -> GoalOutcome:
    """Work on `objective` in `conversation` until an independent judge says it is complete.

    After each run the judge audits the transcript; if `verify` is set (e.g. "pytest -q") it
    runs in the workspace (or `working_dir`) and must exit 0. Ends `capped` at
    `max_iterations` rounds, `max_cost` USD (agent + judge) or `time_limit` seconds (0 or
    None: unlimited). `on_status(status)` gets every status the loop records, live: the
    start, each phase change (`status.phase`: "agent", "verifying", "judging"), each judged
    round (`status.last_round`) and the end. Invalid arguments raise `InvalidGoalError` (a
    ValueError) before anything is sent.
    """
    request = GoalRequest.checked(
        objective=objective,
        verify=verify,
        max_iterations=max_iterations,
        max_cost=max_cost,
        time_limit=time_limit,
    )
    controller = GoalController.from_request(
        request,
        judge_llm,
        working_dir=working_dir or conversation.workspace.working_dir,
        verifier=verifier,
    )
    _count_judge_cost(conversation, judge_llm)
    return drive_goal(conversation, controller, on_status=on_status)


def resume_goal(
    conversation: DrivableConversation,
    judge_llm: LLM,
    *,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
    on_status: StatusCallback | None = None,
) -> GoalOutcome:
    """Continue the goal last recorded in `conversation` (interrupted, or its driver died).

    Raises `NoResumableGoalError` (a ValueError) when the conversation has no goal or its
    goal already ended. `on_status` is as in `run_goal`.
    """
    status = last_goal_status(conversation.state.events)
    if status is None:
        raise NoResumableGoalError(
            "This conversation has no goal to resume; start one with run_goal()."
        )
    if not status.resumable:
        raise NoResumableGoalError(
            f"The last goal ended {status.status!r}; only an interrupted goal can be resumed. "
            "Start a new one with run_goal()."
        )
    controller = GoalController.from_status(
        status,
        judge_llm,
        working_dir=working_dir or conversation.workspace.working_dir,
        verifier=verifier,
    )
    _count_judge_cost(conversation, judge_llm)
    return drive_goal(conversation, controller, resume=True, on_status=on_status)

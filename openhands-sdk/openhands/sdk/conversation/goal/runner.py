"""`run_goal`: the synchronous driver of `GoalController` on a conversation you own.

The driver is the interpreter loop of `goal/steps.py`, with one I/O function per step
(`ConversationSteps`): record a status (appended as `ConversationStateUpdateEvent(key="goal")`
on a conversation in this process, and given to `on_status`), send a message and run the
agent (pausing it when the step's limit is reached), wait for a person's approval, run verify,
ask the judge. Every rule is the controller's; this module only performs steps.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from openhands.sdk.contracts import (
    CheckpointingConversation,
    DrivableConversation,
    ObservableConversation,
)
from openhands.sdk.conversation.errors import (
    ConversationError,
    ConversationRunError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.goal.controller import GoalController
from openhands.sdk.conversation.goal.judge import GoalJudge
from openhands.sdk.conversation.goal.models import (
    DRIVER_ERROR,
    DRIVER_STOPPED,
    STOPPED,
    USER_MESSAGE,
    GoalOutcome,
    GoalStatus,
    RunEnd,
)
from openhands.sdk.conversation.goal.options import DEFAULT_MAX_ITERATIONS, GoalRequest
from openhands.sdk.conversation.goal.resuming import GoalLimitsChange, resume_limits
from openhands.sdk.conversation.goal.status import (
    GOAL_SENDER,
    GoalStatusWriter,
    goal_status_from,
    interrupted_by_restart,
    last_goal_event,
    last_goal_status,
    rewound_since_goal,
)
from openhands.sdk.conversation.goal.steps import (
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    CheckpointTaken,
    DriverStep,
    Finish,
    Judged,
    MessageRefused,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    RunWatch,
    StatusRecorded,
    StepResult,
    Stopped,
    TakeCheckpoint,
    Verified,
)
from openhands.sdk.conversation.goal.verify import Verifier, perform_verify
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.errors import InvalidArgumentError, OpenHandsError
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm import LLM

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

StatusCallback = Callable[[GoalStatus], None]
"""`on_status(status)`: called with every status the loop records (its `phase` included)."""

APPROVAL_RECHECK_SECONDS = 0.5
"""How often a goal waiting for approval re-reads the status (events wake it sooner)."""


class GoalStop:
    """Stops a goal `run_goal` drives in another thread: `request()` pauses the conversation
    (the agent stops after its current step) and ends the goal `interrupted` with `reason`
    ("stopped by user" by default), as POST /goal/stop does on the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def reason(self) -> str | None:
        """Why the goal was stopped, once it was."""
        return self._reason

    def request(self, reason: str = STOPPED) -> None:
        """Stop the goal (once; later requests change nothing)."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def _listen(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)
            stopped = self._reason is not None
        if stopped:
            listener()

    def _forget(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)


def agent_cost_of(conversation: DrivableConversation) -> float:
    """The agent LLM's accumulated cost in USD."""
    return float(conversation.agent.llm.metrics.accumulated_cost)


class ConversationSteps:
    """Performs a goal's steps on a conversation driven by this thread.

    On a conversation in this process (`ObservableConversation`) it also watches the events:
    the agent's spending while a run has a cost limit, the status while an approval waits,
    and user messages it did not send (a person interjected: the step is then answered
    `Stopped(USER_MESSAGE)`, as on the server). A `GoalStop` request pauses the conversation
    and answers the step under way `Stopped` with its reason.
    """

    def __init__(
        self,
        conversation: DrivableConversation,
        judge: GoalJudge,
        *,
        verifier: Verifier | None = None,
        on_status: StatusCallback | None = None,
        stop: GoalStop | None = None,
    ) -> None:
        self._conversation = conversation
        self._stop = stop
        self._judge = judge
        self._verifier = verifier
        self._on_status = on_status
        self._writer = GoalStatusWriter()
        self._perform: dict[type, Callable[..., StepResult]] = {
            RecordStatus: self.record,
            RunAgent: self.run,
            AwaitApproval: self.await_approval,
            RunVerify: self.verify,
            AskJudge: self.judge,
            TakeCheckpoint: self.take_checkpoint,
        }
        self._lock = threading.Lock()
        self._status_changed = threading.Condition(self._lock)
        self._driver = threading.get_ident()
        self._sending = False
        self._interjection = False
        self._watch: RunWatch | None = None
        self._cost_before = 0.0
        self._pause_due = False
        self._observed = isinstance(conversation, ObservableConversation)
        if isinstance(conversation, ObservableConversation):
            conversation.add_callback(self._on_event)
        if stop is not None:
            stop._listen(self._stopped)

    def close(self) -> None:
        """Stop watching the conversation's events."""
        if isinstance(self._conversation, ObservableConversation):
            self._conversation.remove_callback(self._on_event)
        if self._stop is not None:
            self._stop._forget(self._stopped)

    def continue_goal(self, objective: str) -> None:
        """A resumed goal refers to the objective its start already wrote (not a new copy)."""
        events = self._conversation.state.events
        event = last_goal_event(events)
        if event is not None and goal_status_from(event, events).objective == objective:
            self._writer.adopt(event, objective)

    def perform(self, step: DriverStep) -> StepResult:
        """Perform `step`; a step cut by a user message someone else sent is `Stopped`."""
        if isinstance(step, RecordStatus):
            return self.record(step)
        cut = self._cut()
        if cut is not None:
            return Stopped(reason=cut)
        result = self._perform[type(step)](step)
        cut = self._cut()
        if cut is not None:
            spent = result.agent_cost if isinstance(result, RunEnded) else 0.0
            return Stopped(reason=cut, agent_cost=spent)
        return result

    def _cut(self) -> str | None:
        """Why the goal must stop now: a stop request, or a user message someone else sent."""
        if self._stop is not None and self._stop.reason is not None:
            return self._stop.reason
        return USER_MESSAGE if self._interjection else None

    def _stopped(self) -> None:
        # The agent stops after its current step; a wait for approval ends with the pause.
        self._conversation.pause()

    # -- the steps ----------------------------------------------------------------------------

    def record(self, step: RecordStatus) -> StatusRecorded:
        """Append the status as a goal event (in this process) and give it to `on_status`."""
        if isinstance(self._conversation, ObservableConversation):
            event = self._writer.event(step.status)
            self._conversation.append_event(event)
            self._writer.written(event)
        if self._on_status is not None:
            self._on_status(step.status)
        return StatusRecorded()

    def run(self, step: RunAgent) -> RunEnded | MessageRefused:
        """Send the message, run the agent, pause it when the step's limit is reached."""
        conversation = self._conversation
        if step.message is not None:
            self._sending = True
            try:
                conversation.send_message(step.message, sender=GOAL_SENDER)
            except UserPromptBlockedError as exc:
                return MessageRefused(error=str(exc))
            finally:
                self._sending = False
        before = agent_cost_of(conversation)
        watch = RunWatch(step)
        timer = self._arm(watch, before)
        try:
            end = _run_once(conversation)
        finally:
            with self._lock:
                self._watch = None
            if timer is not None:
                timer.cancel()
        return RunEnded.of(
            end, agent_cost=agent_cost_of(conversation) - before, limit=watch.reached
        )

    def await_approval(self, step: AwaitApproval) -> ApprovalDecided:
        """Block until the conversation leaves `waiting_for_confirmation` (a person approved,
        rejected or paused); never `run()` here: that would approve the calls at once."""
        waiting = Status.WAITING_FOR_CONFIRMATION
        with self._status_changed:
            while self._conversation.state.execution_status == waiting:
                self._status_changed.wait(APPROVAL_RECHECK_SECONDS)
        return ApprovalDecided(status=self._conversation.state.execution_status)

    def take_checkpoint(self, step: TakeCheckpoint) -> CheckpointTaken:
        """Snapshot the workspace when the conversation keeps snapshots; never fails the goal."""
        conversation = self._conversation
        if not isinstance(conversation, CheckpointingConversation):
            return CheckpointTaken(error="this conversation keeps no checkpoints")
        try:
            checkpoint = conversation.checkpoint(step.label, goal_round=step.goal_round)
        except OpenHandsError as exc:  # off, not persisted, too many files, a server's 400
            logger.info("goal checkpoint %r not taken: %s", step.label, exc)
            return CheckpointTaken(error=str(exc))
        return CheckpointTaken(checkpoint_id=checkpoint.id)

    def verify(self, step: RunVerify) -> Verified:
        """Run the verify command (or the given verifier) here."""
        result = perform_verify(step, self._verifier)
        return Verified(result=result, conversation_status=self._status())

    def judge(self, step: AskJudge) -> Judged:
        """Ask the judge about the conversation's events."""
        answer = self._judge.answer(step, self._conversation.state.events)
        return Judged.of(answer, self._status())

    # -- watching -----------------------------------------------------------------------------

    def _status(self) -> Status:
        return self._conversation.state.execution_status

    def _arm(self, watch: RunWatch, cost_before: float) -> threading.Timer | None:
        if not watch.watching:
            return None
        with self._lock:
            self._watch, self._cost_before, self._pause_due = watch, cost_before, False
        if watch.step.time_left is None:
            return None
        timer = threading.Timer(max(0.0, watch.step.time_left), self._time_up, (watch,))
        timer.daemon = True
        timer.start()
        return timer

    def _time_up(self, watch: RunWatch) -> None:
        if watch.time_up() is not None:
            self._pause_when_running(watch)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "execution_status":
            with self._status_changed:
                self._status_changed.notify_all()
        if (
            isinstance(event, MessageEvent)
            and event.source == "user"
            and not (self._sending and threading.get_ident() == self._driver)
        ):
            self._interjection = True
        watch = self._watch
        if watch is None:
            return
        if watch.reached is None:
            spent = agent_cost_of(self._conversation) - self._cost_before
            if watch.spent(spent) is None:
                return
        self._pause_when_running(watch)

    def _pause_when_running(self, watch: RunWatch) -> None:
        """Pause for a reached limit once the run is running: `LocalConversation.run()` drops a
        pause requested before it starts, so an early one is delivered by the next event."""
        with self._lock:
            running = self._status() == Status.RUNNING
            if self._watch is not watch or self._pause_due or (self._observed and not running):
                return
            self._pause_due = True
        self._conversation.pause()


def _run_once(conversation: DrivableConversation) -> RunEnd:
    """Run the agent once and say how the run ended."""
    try:
        conversation.run()
    except ConversationRunError as exc:
        return RunEnd(status=Status.ERROR, error=f"{exc.code}: {exc.detail}", code=exc.code)
    state = conversation.state
    return RunEnd.after_run(state.execution_status, state.events)


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
    verifier: Verifier | None = None,
    stop: GoalStop | None = None,
) -> GoalOutcome:
    """Drive `controller`'s goal on `conversation` until it completes, caps or is interrupted.

    `resume=True` sends the resume prompt instead of the objective. The judge is the
    controller's `judge_llm`. A conversation error (another thread runs it, ...) ends the
    goal `interrupted` (reason `driver error`); Ctrl-C or a bug records `driver stopped` and
    propagates. `stop.request()` from another thread ends it `interrupted` too.
    """
    if controller.judge_llm is None:
        raise InvalidArgumentError(
            "drive_goal needs a controller with a judge_llm: build it with GoalController(..., "
            "judge_llm=LLM(...))"
        )
    steps = ConversationSteps(
        conversation,
        GoalJudge(controller.judge_llm),
        verifier=verifier,
        on_status=on_status,
        stop=stop,
    )
    if resume:
        steps.continue_goal(controller.objective)
    try:
        controller.begin(
            resume=resume,
            conversation_status=conversation.state.execution_status,
            rewound_to=rewound_since_goal(conversation.state.events) if resume else None,
        )
        while not isinstance(step := controller.next(), Finish):
            try:
                result = steps.perform(step)
            except (ConversationError, LLMError) as exc:
                result = Stopped(reason=DRIVER_ERROR, error=f"{type(exc).__name__}: {exc}")
            except BaseException as exc:
                # Ctrl-C or a bug: record it, so the chip never shows a dead loop as running.
                controller.advance(
                    Stopped(reason=DRIVER_STOPPED, error=f"{type(exc).__name__}: {exc}")
                )
                final = controller.next()
                if isinstance(final, RecordStatus):
                    steps.record(final)
                raise
            controller.advance(result)
    finally:
        steps.close()
    if isinstance(conversation, LocalConversation):
        conversation.record_stats()  # the last judge call came after the last run's record
    return step.outcome


def run_goal(
    conversation: DrivableConversation,
    objective: str | GoalRequest,
    judge_llm: LLM,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    *,
    verify: str | None = None,
    max_cost: float | None = None,
    time_limit: float | None = None,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
    on_status: StatusCallback | None = None,
    stop: GoalStop | None = None,
) -> GoalOutcome:
    """Work on `objective` in `conversation` until an independent judge says it is complete.

    After each run the judge audits the transcript; if `verify` is set (e.g. "pytest -q") it
    runs in the workspace (or `working_dir`) and must exit 0. Ends `capped` at
    `max_iterations` rounds, `max_cost` USD (agent + judge) or `time_limit` seconds (0 or
    None: unlimited). `objective` may be a whole `GoalRequest` instead (then leave the
    options at their defaults). `on_status(status)` gets every status the loop records,
    live; `stop` (a `GoalStop`) lets another thread stop the goal. Invalid arguments raise
    `InvalidGoalError` (a ValueError) before anything is sent.
    """
    if isinstance(objective, GoalRequest):
        request = objective
    else:
        request = GoalRequest.checked(
            objective=objective,
            verify=verify,
            max_iterations=max_iterations,
            max_cost=max_cost,
            time_limit=time_limit,
        )
    controller = GoalController.from_request(
        request, judge_llm, working_dir=working_dir or conversation.workspace.working_dir
    )
    _count_judge_cost(conversation, judge_llm)
    return drive_goal(conversation, controller, on_status=on_status, verifier=verifier, stop=stop)


def resume_goal(
    conversation: DrivableConversation,
    judge_llm: LLM,
    *,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
    on_status: StatusCallback | None = None,
    stop: GoalStop | None = None,
    limits: GoalLimitsChange | None = None,
) -> GoalOutcome:
    """Continue the goal last recorded in `conversation` (interrupted, or its driver died), or
    a capped one with new `limits` (e.g. `GoalLimitsChange(max_iterations=8)`: 8 in all).

    A goal its dead driver left `running` is first recorded `interrupted` (reason `server
    restart`), as the agent server does. Raises `NoResumableGoalError` (a ValueError) when
    the conversation has no goal, its goal is complete, or it was capped and `limits` gives
    none; `InvalidGoalError` when new limits leave a capped goal no room. `on_status` is as
    in `run_goal`.
    """
    status = last_goal_status(conversation.state.events)
    new_limits = resume_limits(status, limits, start_hint="start a new one with run_goal()")
    assert status is not None  # resume_limits refused a missing one
    recovered = interrupted_by_restart(status)
    if recovered is not None and isinstance(conversation, ObservableConversation):
        writer = GoalStatusWriter()
        event = last_goal_event(conversation.state.events)
        if event is not None:
            writer.adopt(event, status.objective)
        conversation.append_event(writer.event(recovered))
    controller = GoalController.from_status(
        recovered or status,
        judge_llm,
        working_dir=working_dir or conversation.workspace.working_dir,
        limits=new_limits,
    )
    _count_judge_cost(conversation, judge_llm)
    return drive_goal(
        conversation,
        controller,
        resume=True,
        on_status=on_status,
        verifier=verifier,
        stop=stop,
    )

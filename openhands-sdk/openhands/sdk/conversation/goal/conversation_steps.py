"""`ConversationSteps`: each goal step's I/O on a conversation in this process.

The interpreter loop (`runner.drive_goal`) asks the controller for a step and gives it to
`ConversationSteps.perform`: record a status (appended as
`ConversationStateUpdateEvent(key="goal")` and given to `on_status`), send a message and run
the agent (pausing it when the step's limit is reached), wait for a person's approval, take
a checkpoint, run verify, ask the judge. `GoalStop` lets another thread stop the goal.
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
    ConversationRunError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.goal.judge import GoalJudge
from openhands.sdk.conversation.goal.models import (
    STOPPED,
    USER_MESSAGE,
    GoalStatus,
    RunEnd,
)
from openhands.sdk.conversation.goal.status import (
    GOAL_SENDER,
    GoalStatusWriter,
    goal_status_from,
    last_goal_event,
)
from openhands.sdk.conversation.goal.steps import (
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    CheckpointTaken,
    DriverStep,
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
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.workspace.checkpoints.errors import CheckpointUnavailableError

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
        # Why this conversation keeps no snapshots, once it said so (checkpoints off, not
        # persisted, no git): every later TakeCheckpoint gets the same answer without asking.
        self._no_snapshots: str | None = None
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
        if self._no_snapshots is not None:
            return CheckpointTaken(error=self._no_snapshots)
        try:
            checkpoint = conversation.checkpoint(step.label, goal_round=step.goal_round)
        except OpenHandsError as exc:  # off, not persisted, too many files, a server's 400
            logger.info("goal checkpoint %r not taken: %s", step.label, exc)
            if isinstance(exc, CheckpointUnavailableError):
                self._no_snapshots = str(exc)
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

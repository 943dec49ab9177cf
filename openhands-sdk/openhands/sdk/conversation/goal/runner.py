"""`run_goal`: a thin synchronous driver of `GoalController` around a conversation you own.

Every turn (objective, agent work, follow-ups) lands in `conversation.state.events`, and each
lifecycle point appends a `ConversationStateUpdateEvent(key="goal")` holding a `GoalStatus`,
as the agent server does. Budgets are enforced during a run too: when the time limit or the
cost budget runs out, the conversation is paused, and that round is judged as the last one.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from openhands.sdk.conversation.errors import ConversationError, ConversationRunError
from openhands.sdk.conversation.goal.controller import GoalController
from openhands.sdk.conversation.goal.models import GoalDone, GoalOutcome, GoalStatus
from openhands.sdk.conversation.goal.transcript import read_range
from openhands.sdk.conversation.goal.verify import Verifier
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm import LLM

GOAL_STATE_KEY = "goal"
"""The `key` of the `ConversationStateUpdateEvent`s that carry a `GoalStatus`."""

ROUND_ENDING_ERRORS = frozenset({"MaxIterationsReached"})
"""`ConversationRunError` codes that just end a round (it is judged); others interrupt."""

RESUMABLE = frozenset({"running", "interrupted"})


def agent_cost_of(conversation: Any) -> float:
    """The agent LLM's accumulated cost in USD (0 when the conversation does not expose it)."""
    try:
        return float(conversation.agent.llm.metrics.accumulated_cost)
    except AttributeError:
        return 0.0


def publish_goal_status(conversation: Any, status: GoalStatus) -> None:
    """Append the goal chip event to `conversation` (if it accepts outside events)."""
    append = getattr(conversation, "append_event", None)
    if callable(append):
        append(
            ConversationStateUpdateEvent(key=GOAL_STATE_KEY, value=status.model_dump(mode="json"))
        )


def last_goal_status(events: Any) -> GoalStatus | None:
    """The newest `GoalStatus` recorded in an event history, or None."""
    stop = len(events)
    while stop > 0:
        start = max(0, stop - 256)
        for event in reversed(read_range(events, start, stop)):
            if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY:
                return GoalStatus.model_validate(event.value)
        stop = start
    return None


def _working_dir(conversation: Any) -> str | None:
    workspace = getattr(conversation, "workspace", None) or getattr(
        getattr(conversation, "state", None), "workspace", None
    )
    return getattr(workspace, "working_dir", None)


def _is_running(conversation: Any) -> bool:
    status = getattr(getattr(conversation, "state", None), "execution_status", None)
    # A conversation that does not expose its status is paused without waiting for it.
    return status is None or status == ConversationExecutionStatus.RUNNING


def _is_paused(conversation: Any) -> bool:
    status = getattr(getattr(conversation, "state", None), "execution_status", None)
    return status == ConversationExecutionStatus.PAUSED


class _BudgetGuard:
    """Pauses the conversation mid-run when the goal's time or cost budget runs out.

    `LocalConversation.run()` drops a pause requested before it starts, so a budget that runs
    out before the run is under way (a goal resumed with no time left, a timer firing before
    `run()` begins) is kept pending and delivered from the callback once the run is running.
    """

    def __init__(self, conversation: Any, controller: GoalController) -> None:
        self._conversation = conversation
        self._controller = controller
        self._lock = threading.Lock()
        self._armed = False
        self._delivered = False
        self._cost_before = 0.0
        self.tripped: str | None = None
        add_callback = getattr(conversation, "add_callback", None)
        watched = controller.max_cost is not None or controller.time_limit is not None
        self._watching = False
        if watched and callable(add_callback):
            add_callback(self._on_event)
            self._watching = True

    def close(self) -> None:
        """Stop watching the conversation's events (the goal has ended)."""
        remove_callback = getattr(self._conversation, "remove_callback", None)
        if self._watching and callable(remove_callback):
            remove_callback(self._on_event)
        self._watching = False

    @contextlib.contextmanager
    def armed(self, cost_before: float) -> Iterator[None]:
        """Watch the budgets while the body (one agent run) executes."""
        timer: threading.Timer | None = None
        time_left = self._controller.time_left()
        with self._lock:
            self.tripped = None
            self._delivered = False
            self._cost_before = cost_before
            self._armed = True
        if time_left is not None:
            timer = threading.Timer(max(time_left, 0.0), self._trip, args=("time limit",))
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
        if self.tripped is None:
            spent = agent_cost_of(self._conversation) - self._cost_before
            left = self._controller.cost_left(spent)
            if left is not None and left <= 0:
                self._trip("cost budget")
            return
        self._deliver()

    def _trip(self, why: str) -> None:
        with self._lock:
            if not self._armed or self.tripped is not None:
                return
            self.tripped = why
        self._deliver()

    def _deliver(self) -> None:
        """Pause the conversation for a tripped budget, once its run is really running."""
        with self._lock:
            if not self._armed or self._delivered or not _is_running(self._conversation):
                return
            self._delivered = True
        self._conversation.pause()


def drive_goal(
    conversation: Any, controller: GoalController, *, resume: bool = False
) -> GoalOutcome:
    """Run the goal loop of `controller` on `conversation` until it completes, caps or fails.

    `resume=True` starts with the controller's resume prompt instead of the objective. The
    agent cost given to the controller each round is the agent LLM's cost delta over the run.
    An agent failure (e.g. its LLM keeps erroring) or a user pause ends the goal
    `interrupted`; a run that hits `max_iteration_per_run` is just a round, and is judged.
    """
    guard = _BudgetGuard(conversation, controller)
    message = controller.resume_prompt() if resume else controller.start()
    publish_goal_status(conversation, controller.status(active=True, status="running"))
    outcome: GoalOutcome | None = None
    try:
        while outcome is None:
            conversation.send_message(message)
            cost_before = agent_cost_of(conversation)
            failure: str | None = None
            with guard.armed(cost_before):
                try:
                    conversation.run()
                except ConversationRunError as exc:
                    if exc.code not in ROUND_ENDING_ERRORS:
                        failure = f"{exc.code}: {exc.detail}"
            spent = agent_cost_of(conversation) - cost_before
            if failure is not None:
                outcome = controller.interrupted(
                    failure, agent_cost=spent, reason="the agent's run failed"
                )
            elif _is_paused(conversation) and guard.tripped is None:
                outcome = controller.interrupted(
                    "the conversation was paused while the goal was running",
                    agent_cost=spent,
                    reason="paused",
                )
            else:
                step = controller.on_run_finished(conversation.state.events, agent_cost=spent)
                if isinstance(step, GoalDone):
                    outcome = step.outcome
                else:
                    publish_goal_status(
                        conversation, controller.status(active=True, status="running")
                    )
                    message = step.followup
    except (ConversationError, LLMError) as exc:
        # e.g. a UserPromptSubmit hook blocked the follow-up, or someone else is running it.
        outcome = controller.interrupted(f"{type(exc).__name__}: {exc}", reason="driver error")
    except BaseException as exc:
        # Ctrl-C or a bug: record it so the chip never shows a dead loop as running.
        failed = controller.interrupted(f"{type(exc).__name__}: {exc}", reason="driver stopped")
        publish_goal_status(
            conversation,
            controller.status(
                active=False, status="interrupted", error=failed.error, reason=failed.reason
            ),
        )
        raise
    finally:
        guard.close()
    publish_goal_status(
        conversation,
        controller.status(
            active=False, status=outcome.status, error=outcome.error, reason=outcome.reason
        ),
    )
    return outcome


def run_goal(
    conversation: Any,
    objective: str,
    judge_llm: LLM,
    max_iterations: int = 10,
    *,
    verify: str | None = None,
    max_cost: float | None = None,
    time_limit: float | None = None,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
) -> GoalOutcome:
    """Work on `objective` in `conversation` until an independent judge says it is complete.

    After each run the judge audits the transcript; if `verify` is set (e.g. "pytest -q") it
    runs in the workspace (or `working_dir`) and must exit 0. Ends `capped` at
    `max_iterations` rounds, `max_cost` USD (agent + judge) or `time_limit` seconds.
    Invalid arguments raise ValueError before anything is sent.
    """
    controller = GoalController(
        objective,
        judge_llm,
        max_iterations=max_iterations,
        verify=verify,
        working_dir=working_dir or _working_dir(conversation),
        max_cost=max_cost,
        time_limit=time_limit,
        verifier=verifier,
    )
    return drive_goal(conversation, controller)


def resume_goal(
    conversation: Any,
    judge_llm: LLM,
    *,
    working_dir: str | None = None,
    verifier: Verifier | None = None,
) -> GoalOutcome:
    """Continue the goal last recorded in `conversation` (interrupted, or its driver died).

    Raises ValueError when the conversation has no goal or its goal already ended.
    """
    status = last_goal_status(conversation.state.events)
    if status is None:
        raise ValueError("This conversation has no goal to resume; start one with run_goal().")
    if status.status not in RESUMABLE:
        raise ValueError(
            f"The last goal ended {status.status!r}; only an interrupted goal can be resumed. "
            "Start a new one with run_goal()."
        )
    controller = GoalController.from_status(
        status,
        judge_llm,
        working_dir=working_dir or _working_dir(conversation),
        verifier=verifier,
    )
    return drive_goal(conversation, controller, resume=True)

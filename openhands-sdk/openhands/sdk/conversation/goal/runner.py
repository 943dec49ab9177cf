"""`run_goal`: the synchronous driver of `GoalController` on a conversation you own.

The driver is the interpreter loop of `goal/steps.py`; each step's I/O is
`ConversationSteps` (`conversation_steps.py`). Every rule is the controller's; this module
only asks it for steps, has them performed and records how the goal ended.
"""

from __future__ import annotations

import logging

from openhands.sdk.contracts import (
    DrivableConversation,
    ObservableConversation,
)
from openhands.sdk.conversation.errors import (
    ConversationError,
)
from openhands.sdk.conversation.goal.controller import GoalController
from openhands.sdk.conversation.goal.conversation_steps import (
    APPROVAL_RECHECK_SECONDS,
    ConversationSteps,
    GoalStop,
    StatusCallback,
    agent_cost_of,
)
from openhands.sdk.conversation.goal.judge import GoalJudge
from openhands.sdk.conversation.goal.limits import GoalLimitsChange
from openhands.sdk.conversation.goal.models import (
    DRIVER_ERROR,
    DRIVER_STOPPED,
    GoalOutcome,
)
from openhands.sdk.conversation.goal.options import DEFAULT_MAX_ITERATIONS, GoalRequest
from openhands.sdk.conversation.goal.resuming import resume_limits
from openhands.sdk.conversation.goal.status import (
    GoalStatusWriter,
    interrupted_by_restart,
    last_goal_event,
    last_goal_status,
    rewound_since_goal,
)
from openhands.sdk.conversation.goal.steps import (
    Finish,
    RecordStatus,
    Stopped,
)
from openhands.sdk.conversation.goal.verify import Verifier
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm import LLM

logger = logging.getLogger(__name__)

# The step I/O moved to conversation_steps.py; its names stay importable from here.
__all__ = [
    "APPROVAL_RECHECK_SECONDS",
    "ConversationSteps",
    "GoalStop",
    "StatusCallback",
    "agent_cost_of",
    "drive_goal",
    "resume_goal",
    "run_goal",
]


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

"""REST routes of a conversation's goal: start, status, stop, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends
from openhands.agent_server.api.deps import live_conversation, registry, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.goals.judges import JUDGE_USAGE_ID
from openhands.agent_server.services.credentials import goal_judge
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.wire import (
    GoalStepAnswer,
    GoalStepRequest,
    ResumeGoalRequest,
    StartGoalRequest,
    Success,
)

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/goal", tags=["goals"], route_class=CheckedRoute
)

Live = Annotated[LiveConversation, Depends(live_conversation)]
Registry = Annotated[ConversationRegistry, Depends(registry)]
Stores = Annotated[ServerSettings, Depends(server_settings)]


@router.post("", response_model=Success, responses=error_responses(404, 409, *STORAGE))
async def start_goal(
    request: StartGoalRequest, conversation: Live, conversations: Registry, stores: Stores
) -> Success:
    """Start a goal loop in the background once its `running` status is on disk.

    Its status streams as `key="goal"` events.
    """
    requested = request.judge_llm
    if request.judge_llm_profile is not None:
        requested = stores.llm_defaults.profile_llm(
            request.judge_llm_profile, usage_id=JUDGE_USAGE_ID, field=("judge_llm_profile",)
        )
    async with goal_judge(
        conversations.credentials, conversations.pools.controls, conversation.id, requested
    ) as judge:
        await conversation.start_goal_loop(request, judge_llm=judge)
    return Success()


@router.get("", response_model=GoalStatus | None, responses=error_responses(404))
async def get_goal(conversation: Live) -> GoalStatus | None:
    """The latest goal status, or null if no goal was ever started."""
    return conversation.goal.status


@router.post("/steps", response_model=GoalStepAnswer, responses=error_responses(404, 409, *STORAGE))
async def perform_goal_step(request: GoalStepRequest, conversation: Live) -> GoalStepAnswer:
    """Perform one step of the goal for its remote run (OH_GOAL_BACKEND=temporal: the workers
    interpret the steps), exactly as the built-in driver would. A long poll: the answer comes
    when the step ends or after `wait` seconds (`result: null`; ask again with the same
    `step_id`). 409 when `run` does not drive this conversation's goal."""
    result = await conversation.goal.perform_remote(
        request.run, request.step_id, request.step, request.wait, request.records
    )
    return GoalStepAnswer(result=result)


@router.post("/stop", response_model=Success, responses=error_responses(404, *STORAGE))
async def stop_goal(conversation: Live) -> Success:
    """Stop the goal loop and pause the agent (recorded as `interrupted`, resumable)."""
    await conversation.stop_goal_loop()
    return Success()


@router.post("/resume", response_model=Success, responses=error_responses(400, 404, 409, *STORAGE))
async def resume_goal(
    conversation: Live,
    conversations: Registry,
    request: Annotated[ResumeGoalRequest | None, Body()] = None,
) -> Success:
    """Continue an interrupted goal from its last status; a capped one with new limits
    (`max_iterations`, `max_cost`, `time_limit`: 422 naming one that leaves it no room)."""
    requested = request.judge_llm if request is not None else None
    limits = request.limits_change() if request is not None else None
    async with goal_judge(
        conversations.credentials,
        conversations.pools.controls,
        conversation.id,
        requested,
        resume=True,
    ) as judge:
        await conversation.resume_goal_loop(judge_llm=judge, limits=limits)
    return Success()

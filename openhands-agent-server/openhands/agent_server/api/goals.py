"""REST routes of a conversation's goal: start, status, stop, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends
from openhands.agent_server.api.deps import live_conversation, registry, server_settings
from openhands.agent_server.api.models import STORAGE, StartGoalRequest, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.goals.judges import JUDGE_USAGE_ID
from openhands.agent_server.services.credentials import goal_judge
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.wire import GoalRoundRequest, ResumeGoalRequest, Success

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
        await conversation.start_goal_loop(
            request.objective,
            judge_llm=judge,
            max_iterations=request.max_iterations,
            verify=request.verify,
            max_cost=request.max_cost,
            time_limit=request.time_limit,
        )
    return Success()


@router.get("", response_model=GoalStatus | None, responses=error_responses(404))
async def get_goal(conversation: Live) -> GoalStatus | None:
    """The latest goal status, or null if no goal was ever started."""
    return conversation.goal.status


@router.post("/status", response_model=Success, responses=error_responses(404, *STORAGE))
async def record_goal_status(status: GoalStatus, conversation: Live) -> Success:
    """Record a goal status sent by the goal's remote run (OH_GOAL_BACKEND=temporal: the
    workers call it at each phase); it is what GET /goal and the socket show."""
    await conversation.goal.record_remote(status)
    return Success()


@router.post("/run", response_model=Success, responses=error_responses(404, 409, *STORAGE))
async def run_goal_round(request: GoalRoundRequest, conversation: Live) -> Success:
    """Send a round's message (if given) and run the agent, for the goal's remote run
    (OH_GOAL_BACKEND=temporal); 409 when no remote run drives a goal here, or it runs."""
    await conversation.run_remote_round(request.message)
    return Success()


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
    """Continue an interrupted goal from its last status."""
    requested = request.judge_llm if request is not None else None
    async with goal_judge(
        conversations.credentials,
        conversations.pools.controls,
        conversation.id,
        requested,
        resume=True,
    ) as judge:
        await conversation.resume_goal_loop(judge_llm=judge)
    return Success()

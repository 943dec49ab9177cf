"""REST routes of a conversation's goal: start, status, stop, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from openhands.agent_server.deps import event_service
from openhands.agent_server.events.service import EventService
from openhands.agent_server.goals.models import ResumeGoalRequest, StartGoalRequest
from openhands.agent_server.models import Success, error_responses
from openhands.agent_server.routing import CheckedRoute
from openhands.sdk.conversation.goal.models import GoalStatus
from openhands.sdk.llm import LLM

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/goal", tags=["goals"], route_class=CheckedRoute
)

Live = Annotated[EventService, Depends(event_service)]


@router.post("", response_model=Success, responses=error_responses(404, 409))
async def start_goal(request: StartGoalRequest, service: Live, http: Request) -> Success:
    """Start a goal loop in the background; its status streams as `key="goal"` events."""
    await service.start_goal_loop(
        request.objective,
        judge_llm=_with_server_defaults(request.judge_llm, http),
        max_iterations=request.max_iterations,
        verify=request.verify,
        max_cost=request.max_cost,
        time_limit=request.time_limit,
    )
    return Success()


@router.get("", response_model=GoalStatus | None, responses=error_responses(404))
async def get_goal(service: Live) -> GoalStatus | None:
    """The latest goal status, or null if no goal was ever started."""
    return service.goal.status


@router.post("/stop", response_model=Success, responses=error_responses(404))
async def stop_goal(service: Live) -> Success:
    """Stop the goal loop and pause the agent (recorded as `interrupted`, resumable)."""
    await service.stop_goal_loop()
    return Success()


@router.post("/resume", response_model=Success, responses=error_responses(400, 404, 409))
async def resume_goal(
    service: Live, http: Request, request: Annotated[ResumeGoalRequest | None, Body()] = None
) -> Success:
    """Continue an interrupted goal from its last status."""
    judge = _with_server_defaults(request.judge_llm if request else None, http)
    await service.resume_goal_loop(judge_llm=judge)
    return Success()


def _with_server_defaults(judge: LLM | None, http: Request) -> LLM | None:
    """A requested judge, given the server's LLM_API_KEY / LLM_BASE_URL where it has none."""
    if judge is not None:
        http.app.state.config.fill_llm(judge)
    return judge

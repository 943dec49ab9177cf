"""REST route of client-defined tools: the client answers a call that waits for it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from openhands.agent_server.api.deps import live_conversation
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.live import LiveConversation
from openhands.sdk.wire import ClientToolResponseRequest, Success

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/client_tools",
    tags=["client tools"],
    route_class=CheckedRoute,
)

Live = Annotated[LiveConversation, Depends(live_conversation)]


@router.post("/respond", response_model=Success, responses=error_responses(404, 409, *STORAGE))
async def respond_to_client_tool(request: ClientToolResponseRequest, conversation: Live) -> Success:
    """Answer a client tool call that stopped the run (`wait_for_result`): the answer is the
    call's observation, and with `run` (default) the agent goes on. 404: no such call waits;
    409: a run is going."""
    await conversation.respond_to_client_tool(
        request.tool_call_id, request.content, is_error=request.is_error, run=request.run
    )
    return Success()

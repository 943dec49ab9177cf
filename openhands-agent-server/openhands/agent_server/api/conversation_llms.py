"""REST routes about a conversation's LLM: switch it (`switch_llm`, `switch_profile`) and ask
it a question outside the conversation (`ask_agent`). Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from openhands.agent_server.api.deps import live_conversation, registry, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services import conversation_llms
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.wire import (
    AskAgentRequest,
    AskAgentResponse,
    Success,
    SwitchLLMRequest,
    SwitchProfileRequest,
)

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Live = Annotated[LiveConversation, Depends(live_conversation)]
Registry = Annotated[ConversationRegistry, Depends(registry)]
Stores = Annotated[ServerSettings, Depends(server_settings)]


@router.post(
    "/{conversation_id}/switch_llm",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def switch_llm(
    request: SwitchLLMRequest, conversation: Live, conversations: Registry
) -> Success:
    """Drive the agent with this LLM from its next LLM call on; the history is kept. Its key
    is sealed with the conversation (a restart keeps it) and never answered; an LLM sent
    without one gets the stored key of the same model and base URL."""
    await conversation_llms.switch_llm(conversation, conversations.credentials, request.llm)
    return Success()


@router.post(
    "/{conversation_id}/switch_profile",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def switch_profile(
    request: SwitchProfileRequest, conversation: Live, conversations: Registry, stores: Stores
) -> Success:
    """Drive the agent with a stored LLM profile (/api/profiles) from its next LLM call on;
    its usage is counted under `profile:<name>`. 404 for an unknown profile."""
    await conversation_llms.switch_profile(
        conversation, conversations.credentials, stores, request.profile_name
    )
    return Success()


@router.post(
    "/{conversation_id}/ask_agent",
    response_model=AskAgentResponse,
    responses=error_responses(400, 404, 502),
)
async def ask_agent(request: AskAgentRequest, conversation: Live) -> AskAgentResponse:
    """Ask the agent's LLM a question about the conversation so far. Nothing is recorded:
    no event, no status change, and the agent does not remember it. Safe during a run."""
    return AskAgentResponse(
        response=await conversation_llms.ask_agent(conversation, request.question)
    )

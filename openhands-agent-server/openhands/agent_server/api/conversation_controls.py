"""REST routes that change or read a live conversation besides runs and goals: PATCH (title,
tags), interrupt, navigate, secrets, condense, load_plugin, the final response, the runtime,
and the batch reads of conversations and events. Loaded on first use (api/lazy.py)."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query, Response
from openhands.agent_server.api.deps import live_conversation, registry
from openhands.agent_server.api.models import STORAGE, AnyEvent, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.errors import BadRequestError, NotFoundError
from openhands.agent_server.services import conversation_controls as controls
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.wire import (
    AgentResponseResult,
    ConversationInfo,
    ConversationRuntimeInfo,
    LoadPluginRequest,
    NavigateConversationRequest,
    Success,
    UpdateConversationRequest,
    UpdateSecretsRequest,
)

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Registry = Annotated[ConversationRegistry, Depends(registry)]
Live = Annotated[LiveConversation, Depends(live_conversation)]
JSON = "application/json"

MAX_BATCH = 99
"""How many ids one batch read takes (the reference's limit)."""


@router.get(
    "",
    response_model=list[ConversationInfo | None],
    responses=error_responses(),
)
async def batch_get_conversations(
    conversations: Registry,
    ids: Annotated[
        list[uuid.UUID],
        Query(max_length=MAX_BATCH, description="Up to 99 conversation ids."),
    ],
) -> Response:
    """The conversations with these ids, in order; null for an id that is not one. Nothing is
    opened: a stored conversation is answered from its summary."""

    async def one(conversation_id: uuid.UUID) -> ConversationInfo | None:
        if conversation_id not in conversations:
            return None
        try:
            return await conversations.info(conversation_id)
        except NotFoundError:  # deleted meanwhile
            return None

    infos = await asyncio.gather(*(one(cid) for cid in ids))
    body = "[" + ",".join("null" if i is None else i.model_dump_json() for i in infos) + "]"
    return Response(body, media_type=JSON)


@router.patch(
    "/{conversation_id}", response_model=Success, responses=error_responses(400, 404, *STORAGE)
)
async def update_conversation(request: UpdateConversationRequest, conversation: Live) -> Success:
    """Set the title and/or replace the tags (saved before the answer)."""
    if request.title is None and request.tags is None:
        raise BadRequestError("Nothing to change: give `title`, `tags` or both.")
    await controls.update_metadata(conversation, title=request.title, tags=request.tags)
    return Success()


@router.post(
    "/{conversation_id}/interrupt",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def interrupt_conversation(conversation: Live) -> Success:
    """Stop the run now, not after its step: an LLM reply still on its way is dropped (a tool
    call already running finishes first). The conversation ends `paused`; run it again to go
    on."""
    await controls.interrupt(conversation)
    return Success()


@router.post(
    "/{conversation_id}/navigate",
    response_model=ConversationInfo,
    responses=error_responses(404, 409, *STORAGE),
)
async def navigate_conversation(
    request: NavigateConversationRequest, conversation: Live
) -> Response:
    """Move the HEAD to an event (null: an empty tree): the agent's context becomes the
    branch from the root to it, and the next event starts a sibling branch there. Nothing is
    deleted. 404 for an unknown event, 409 during a run."""
    await controls.navigate(conversation, request.event_id)
    return Response(conversation.info().model_dump_json(), media_type=JSON)


@router.post(
    "/{conversation_id}/secrets",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def update_conversation_secrets(
    request: UpdateSecretsRequest, conversation: Live, conversations: Registry
) -> Success:
    """Add or replace secrets: a terminal command naming `$NAME` gets the value, and its
    output shows `<secret-hidden>` instead. They are sealed in the conversation's folder (a
    restart or a fork keeps them) and never enter its events."""
    await controls.add_secrets(conversation, conversations.secrets, dict(request.secrets))
    return Success()


@router.post(
    "/{conversation_id}/condense",
    response_model=Success,
    responses=error_responses(404, 409, *STORAGE),
)
async def condense_conversation(conversation: Live) -> Success:
    """Condense the history now: the agent's condenser summarizes the older part of what
    the LLM sees (the log keeps every event). 409 when the agent has no condenser that
    condenses on request (an LLMSummarizingCondenser does), or while it runs."""
    await controls.condense(conversation)
    return Success()


@router.post(
    "/{conversation_id}/load_plugin",
    response_model=Success,
    responses=error_responses(400, 404, 409, *STORAGE),
)
async def load_plugin(request: LoadPluginRequest, conversation: Live) -> Success:
    """Load a plugin into the conversation between runs (a folder on the server, a git URL,
    `github:owner/repo`): its skills, MCP servers (all of them are started again) and hooks
    apply from the next message on, and a reopened conversation has it too. 400 for a plugin
    that cannot be fetched or read, 409 during a run."""
    await controls.load_plugin(conversation, request.plugin_ref)
    return Success()


@router.get(
    "/{conversation_id}/agent_final_response",
    response_model=AgentResponseResult,
    responses=error_responses(404),
)
async def agent_final_response(conversation: Live) -> AgentResponseResult:
    """The agent's last answer on the active branch: its last `finish` message or text reply
    ("" if it has given none yet)."""
    return AgentResponseResult(response=await controls.agent_final_response(conversation))


@router.get(
    "/{conversation_id}/runtime",
    response_model=ConversationRuntimeInfo,
    responses=error_responses(404),
)
async def conversation_runtime(
    conversation_id: uuid.UUID, conversations: Registry
) -> ConversationRuntimeInfo:
    """Where the conversation runs: in this server's process, always available."""
    _known(conversation_id, conversations)
    return ConversationRuntimeInfo()


@router.post(
    "/{conversation_id}/runtime/reprovision",
    response_model=ConversationRuntimeInfo,
    responses=error_responses(404),
)
async def reprovision_runtime(
    conversation_id: uuid.UUID, conversations: Registry
) -> ConversationRuntimeInfo:
    """Nothing to provision: the agent runs in this server's process (answers the runtime)."""
    _known(conversation_id, conversations)
    return ConversationRuntimeInfo()


@router.get(
    "/{conversation_id}/events",
    response_model=list[AnyEvent | None],
    responses=error_responses(404),
)
async def batch_get_events(
    conversation: Live,
    event_ids: Annotated[list[str], Body(max_length=100, description="Up to 100 event ids.")],
) -> Response:
    """The events with these ids, in order; null for an id that is not one of its events."""
    found: list[str] = []
    for event_id in event_ids:
        try:
            found.append(conversation.get_event(event_id).model_dump_json())
        except NotFoundError:
            found.append(json.dumps(None))
    return Response("[" + ",".join(found) + "]", media_type=JSON)


def _known(conversation_id: uuid.UUID, conversations: ConversationRegistry) -> None:
    if conversation_id not in conversations:
        raise NotFoundError(f"Conversation {conversation_id} does not exist.")

"""REST routes under /api/conversations: create, list, count, read, delete, run, pause."""

from __future__ import annotations

import threading
import uuid
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response, status
from openhands.agent_server.api.deps import live_conversation, registry, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.agent_server.services.stored_llms import with_llm_profile
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.security.approval_rules import AllowRule, suggested_rules
from openhands.sdk.wire import (
    ApprovalRulesRequest,
    ApprovalSuggestions,
    ConversationInfo,
    ConversationPage,
    DeleteConversationResponse,
    ForkConversationRequest,
    SetConfirmationPolicyRequest,
    SetSecurityAnalyzerRequest,
    StartConversationRequest,
    Success,
)
from pydantic import BaseModel

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Registry = Annotated[ConversationRegistry, Depends(registry)]
Live = Annotated[LiveConversation, Depends(live_conversation)]
Stores = Annotated[ServerSettings, Depends(server_settings)]


@router.post(
    "",
    response_model=ConversationInfo,
    status_code=status.HTTP_201_CREATED,
    responses={
        **error_responses(*STORAGE),
        200: {"model": ConversationInfo, "description": "That id already existed."},
    },
)
async def start_conversation(
    request: StartConversationRequest, conversations: Registry, stores: Stores, http: Request
) -> Response:
    """Create a conversation (201), or return the existing one with that id (200)."""
    if request.agent_profile_id is not None:
        from openhands.agent_server.api.agent_profiles import agent_profiles
        from openhands.agent_server.services.agent_profile_launch import with_agent_profile

        request = with_agent_profile(request, await agent_profiles(http), stores)
    request = with_llm_profile(request, stores.llm_defaults)
    if request.parent_conversation_id is not None:
        from openhands.agent_server.services.children import check_parent

        request = check_parent(conversations, request)
    conversation_id, created = await conversations.start(request)
    info = await conversations.info(conversation_id)
    return _json(info, status.HTTP_201_CREATED if created else status.HTTP_200_OK)


@router.get("/search", response_model=ConversationPage, responses=error_responses())
async def search_conversations(
    conversations: Registry,
    page_id: Annotated[str | None, Query(description="next_page_id of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    status: Annotated[
        ConversationExecutionStatus | None, Query(description="Only this execution status.")
    ] = None,
) -> Response:
    """Conversations, newest first, one page at a time."""
    items, next_page_id = await conversations.search(page_id=page_id, limit=limit, status=status)
    return _json(ConversationPage(items=items, next_page_id=next_page_id))


@router.get("/count", response_model=int, responses=error_responses())
async def count_conversations(
    conversations: Registry,
    status: Annotated[ConversationExecutionStatus | None, Query()] = None,
) -> int:
    """How many conversations there are (with that execution status, if given)."""
    return conversations.count(status)


@router.get("/{conversation_id}", response_model=ConversationInfo, responses=error_responses(404))
async def get_conversation(conversation_id: uuid.UUID, conversations: Registry) -> Response:
    """One conversation."""
    info = await conversations.info(conversation_id)
    live = conversations.find(conversation_id)
    if live is not None:
        live.remind_run_ended()
    return _json(info)


@router.delete(
    "/{conversation_id}",
    response_model=DeleteConversationResponse,
    responses=error_responses(404, *STORAGE),
)
async def delete_conversation(
    conversation_id: uuid.UUID, conversations: Registry
) -> DeleteConversationResponse:
    """Stop the conversation's goal and agent, forget it and delete its files.

    Also deletes its working directory if the server made it for this conversation (no
    `workspace` was given, and the folder did not exist) and no other conversation (a fork)
    uses it; the answer lists what was removed and what was kept, and why.
    """
    return await conversations.delete(conversation_id)


@router.post("/{conversation_id}/run", response_model=Success, responses=error_responses(404, 409))
async def run_conversation(conversation: Live, background: BackgroundTasks) -> Success:
    """Run the agent in the background until it finishes, pauses or fails.

    The agent starts once this answer is sent: a client may wait for the run's end only after
    the answer (the reference's client does), so a quick run must not end before it.
    """
    answered = threading.Event()
    await conversation.start_run(answered=answered)
    background.add_task(answered.set)
    return Success()


@router.post(
    "/{conversation_id}/pause", response_model=Success, responses=error_responses(404, *STORAGE)
)
async def pause_conversation(conversation: Live) -> Success:
    """Ask the agent to stop after its current step."""
    await conversation.pause()
    return Success()


@router.post(
    "/{conversation_id}/fork",
    response_model=ConversationInfo,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(404, *STORAGE),
)
async def fork_conversation(
    conversation_id: uuid.UUID,
    conversations: Registry,
    request: ForkConversationRequest | None = None,
) -> Response:
    """A new conversation with a copy of this one's history, up to `from_event_id` if given
    (idle; its usage starts at zero unless `reset_metrics` is false). 404 for an unknown
    `from_event_id`, 409 for an `id` already in use."""
    body = request or ForkConversationRequest()
    fork_id = await conversations.fork(
        conversation_id,
        title=body.title,
        tags=body.tags,
        fork_id=body.id,
        reset_metrics=body.reset_metrics,
        from_event_id=body.from_event_id,
    )
    return _json(await conversations.info(fork_id), status.HTTP_201_CREATED)


@router.post(
    "/{conversation_id}/confirmation_policy",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def set_confirmation_policy(
    request: SetConfirmationPolicyRequest, conversation: Live
) -> Success:
    """Choose which tool calls wait for approval (AlwaysConfirm, NeverConfirm, ConfirmRisky)."""
    await conversation.set_confirmation_policy(request.policy)
    return Success()


@router.post(
    "/{conversation_id}/security_analyzer",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def set_security_analyzer(request: SetSecurityAnalyzerRequest, conversation: Live) -> Success:
    """Choose what rates each tool call's risk for the confirmation policy (null: none)."""
    await conversation.set_security_analyzer(request.security_analyzer)
    return Success()


@router.get(
    "/{conversation_id}/approval_rules",
    response_model=list[AllowRule],
    responses=error_responses(404),
)
async def get_approval_rules(conversation: Live) -> list[AllowRule]:
    """The standing approvals: calls they match run without asking (unless rated HIGH)."""
    return conversation.conversation.approval_rules


@router.get(
    "/{conversation_id}/approval_rules/suggested",
    response_model=ApprovalSuggestions,
    responses=error_responses(404),
)
async def suggested_approval_rules(conversation: Live) -> ApprovalSuggestions:
    """The rules "always allow" would add for the calls waiting now (empty lists when none
    waits), for a page or client to offer."""
    waiting = conversation.conversation.pending_actions
    return ApprovalSuggestions(
        like_these=suggested_rules(waiting, whole_tools=False),
        tools=suggested_rules(waiting, whole_tools=True),
    )


@router.post(
    "/{conversation_id}/approval_rules",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def add_approval_rule(rule: AllowRule, conversation: Live, request: Request) -> Success:
    """Always allow a tool (or, with `command_prefix`, the commands starting with it) in this
    conversation. The calls waiting now still need an answer (respond_to_confirmation).
    `422` when the conversation holds OH_MAX_APPROVAL_RULES already."""
    await conversation.add_approval_rule(rule, limit=request.app.state.config.max_approval_rules)
    return Success()


@router.put(
    "/{conversation_id}/approval_rules",
    response_model=Success,
    responses=error_responses(404, *STORAGE),
)
async def set_approval_rules(
    body: ApprovalRulesRequest, conversation: Live, request: Request
) -> Success:
    """Replace the standing approvals ([] asks again for every call the policy covers); `422`
    for more than OH_MAX_APPROVAL_RULES different rules."""
    limit = request.app.state.config.max_approval_rules
    await conversation.set_approval_rules(body.rules, limit=limit)
    return Success()


def _json(model: BaseModel, status_code: int = status.HTTP_200_OK) -> Response:
    """`model` serialized once by its own class (the route's response_model documents it)."""
    return Response(model.model_dump_json(), status_code, media_type="application/json")

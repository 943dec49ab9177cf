"""Child conversations: a conversation started by another one's agent, on this server.

`start_child` makes a conversation with the parent's whole configuration (agent, limits,
hooks, approval policy and rules, secrets) and a fresh history whose first message is the
task, and runs it. Its working directory is the parent's (`shared`), or with `worktree` a
git worktree of the parent's repository (`worktrees.py`), on a branch of its own from the
repository's default branch, in the folder the server gives new conversations; deleting the
child removes that folder (not the branch).

The child is linked to its parent (`parent_conversation_id`, in its configuration from its
first save on), and listed in the parent's `sub_conversation_ids`. `check_parent` holds the
same rules for a conversation created with a `parent_conversation_id`.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.worktrees import make_worktree, remove_worktree
from openhands.sdk.llm import Message, TextContent
from openhands.sdk.wire import StartConversationRequest
from openhands.sdk.wire.children import (
    ChildIsolation,
    StartChildConversationRequest,
    StartChildConversationResponse,
)
from openhands.sdk.workspace import LocalWorkspace

__all__ = ["check_parent", "start_child"]


async def start_child(
    conversations: ConversationRegistry,
    parent_id: uuid.UUID,
    request: StartChildConversationRequest,
) -> StartChildConversationResponse:
    """Start and run a child of `parent_id` (a `NotFoundError` when there is none)."""
    parent = (await conversations.get(parent_id)).conversation
    config = parent.state.config
    child_id = uuid.uuid4()
    working_dir, isolation = config.workspace.working_dir, "shared"
    made = None
    if request.isolation == "worktree":
        target = conversations.default_workspace(child_id)
        made = await conversations.pools.controls.run_to_completion(
            make_worktree,
            config.workspace.working_dir,
            target,
            f"openhands/child-{child_id.hex[:8]}",
        )
        if made is not None:
            working_dir, isolation = made.working_dir, "worktree"
    start = StartConversationRequest(
        agent=config.agent,  # type: ignore[arg-type]  # an Agent: the server makes no other
        workspace=LocalWorkspace(working_dir=working_dir),
        conversation_id=child_id,
        parent_conversation_id=parent_id,
        max_iterations=config.max_iterations,
        hook_config=config.hook_config,
        confirmation_policy=config.confirmation_policy,
        security_analyzer=config.security_analyzer,
    )
    try:
        await conversations.start(start, worktree_git_dir=made.git_dir if made else None)
    except BaseException:
        if made is not None:  # made for a child that does not exist: not kept
            await conversations.pools.controls.run_to_completion(
                remove_worktree, conversations.default_workspace(child_id)
            )
        raise
    child = await conversations.get(child_id)

    def inherit() -> None:
        conversation = child.conversation
        for rule in config.approval_rules:
            conversation.add_approval_rule(rule)
        sources = parent.state.secret_registry.sources()
        if sources:
            conversation.update_secrets(sources)
        if conversations.secrets is not None:
            conversations.secrets.copy(
                conversations.path / parent_id.hex, conversations.path / child_id.hex
            )
        if request.title:
            with conversation.state.lock:
                conversation.state.title = request.title

    await conversations.pools.controls.run_to_completion(inherit)
    await child.send_message(
        Message(role="user", content=[TextContent(text=request.task)]), run=True
    )
    info = await conversations.info(child_id)
    return StartChildConversationResponse(
        conversation_id=child_id,
        parent_conversation_id=parent_id,
        status=info.execution_status.value,
        title=info.title,
        workspace=working_dir,
        isolation=_isolation(isolation),
    )


def check_parent(
    conversations: ConversationRegistry, request: StartConversationRequest
) -> StartConversationRequest:
    """`request` (with the parent's working directory when it names none) if its
    `parent_conversation_id` may own it: an existing conversation, not itself, working in the
    same folder; else an `InvalidRequestError` (422) naming the field."""
    parent_id = request.parent_conversation_id
    if parent_id is None:
        return request
    field = ("body", "parent_conversation_id")
    if parent_id == request.conversation_id:
        raise InvalidRequestError("a conversation cannot be its own parent", field)
    parent_dir = conversations.working_dir_of(parent_id)
    if parent_dir is None:
        raise InvalidRequestError(f"parent conversation {parent_id} not found", field)
    if request.workspace is None:
        workspace = LocalWorkspace(working_dir=parent_dir)
        return request.model_copy(update={"workspace": workspace})
    if Path(request.workspace.working_dir).resolve() != Path(parent_dir).resolve():
        raise InvalidRequestError(
            f"parent conversation {parent_id} works in {parent_dir}, not in "
            f"{request.workspace.working_dir}: a child shares its parent's folder (leave "
            "`workspace` out), or start it with POST /{id}/children for a worktree",
            field,
        )
    return request


def _isolation(value: str) -> ChildIsolation:
    return "worktree" if value == "worktree" else "shared"

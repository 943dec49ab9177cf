"""What a fork copies: the events (all, or one branch) and the agent (with fresh metrics).

`LocalConversation.fork()` uses these; a server route that forks a stored conversation can
use them too.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import as_conversation_id
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.conversation.types import validate_tags
from openhands.sdk.event.base import Event, event_from_json

__all__ = ["copy_agent", "events_to_fork", "fork_state"]


def copy_agent(agent: AgentBase) -> AgentBase:
    """An independent copy of `agent`: same configuration and key, its own LLM metrics.

    The LLM is rebuilt from its fields (`LLM.copy_for`, same class and usage_id), so a fork
    counts its own cost; the rest of the agent is copied field by field.
    """
    fields: dict[str, Any] = {}
    for name in type(agent).model_fields:
        if name != "llm":
            fields[name] = copy.deepcopy(getattr(agent, name))
    fields["llm"] = agent.llm.copy_for(agent.llm.usage_id)
    return agent.model_copy(update=fields)


def fork_state(
    source: ConversationState,
    *,
    agent: AgentBase,
    conversation_id: uuid.UUID | str | None = None,
    title: str | None = None,
    tags: dict[str, str] | None = None,
    reset_metrics: bool = True,
    from_event_id: str | None = None,
) -> ConversationState:
    """Create the state of a fork of `source` (see `LocalConversation.fork`), on disk next to
    it when it persists. Call with the source's state lock held.

    Raises ValueError for an id in use or bad tags, `UnknownEventError` for an unknown
    `from_event_id`; nothing is created then.
    """
    fork_id = as_conversation_id(conversation_id) or uuid.uuid4()
    fork_tags = validate_tags(tags)
    if title is not None:
        fork_tags["title"] = validate_tags({"title": title})["title"]
    if fork_id == source.id:
        raise ValueError("A fork needs a conversation_id other than its source's.")
    folder = None if source.folder is None else source.folder.parent / fork_id.hex
    if folder is not None and folder.exists():
        raise ValueError(
            f"Conversation {fork_id} already exists in {folder.parent}; fork with another "
            "conversation_id (or none, for a new one)."
        )
    events = events_to_fork(source, from_event_id)
    return ConversationState.create(
        fork_id,
        agent,
        source.workspace,
        persistence_dir=folder,
        max_iterations=source.max_iterations,
        stuck_detection=source.stuck_detection,
        hook_config=source.hook_config,
        tags=fork_tags,
        title=title if title is not None else source.title,
        events=events,
        # Through JSON: Metrics hold locks, which cannot be copied.
        stats=None
        if reset_metrics
        else ConversationStats.model_validate(source.stats.model_dump()),
    )


def events_to_fork(state: ConversationState, from_event_id: str | None) -> list[Event]:
    """Copies of the events a fork starts with: the whole log, or the branch up to an event.

    Events are copied through their JSON (like a reload), keeping ids and parents. Raises
    `UnknownEventError` (a ValueError) for a `from_event_id` that is not in the log. Call with
    the source's state lock held.
    """
    if from_event_id is None:
        source = state.events.read()
    else:
        state.require_event(from_event_id)
        source = state.branch_to(from_event_id)
    return [event_from_json(event.model_dump_json()) for event in source]

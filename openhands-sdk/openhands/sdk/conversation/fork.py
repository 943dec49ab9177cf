"""What a fork copies: the events (all, or one branch) and the agent (with fresh metrics).

`LocalConversation.fork()` uses these; a server route that forks a stored conversation can
use them too.
"""

from __future__ import annotations

import copy
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event.base import Event, event_from_json

__all__ = ["copy_agent", "events_to_fork"]


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

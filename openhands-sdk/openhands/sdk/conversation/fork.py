"""What a fork copies: the events (all, or one branch), the whole configuration and the agent
(with fresh metrics).

`LocalConversation.fork()` uses these; a server route that forks a stored conversation can
use them too.
"""

from __future__ import annotations

import copy
import os
import shutil
import uuid
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import as_conversation_id
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.conversation.types import validate_tags
from openhands.sdk.errors import InvalidArgumentError, storage_error
from openhands.sdk.event.base import Event, event_from_json
from openhands.sdk.io import fsync_dir
from openhands.sdk.llm.llm import LLM
from pydantic import BaseModel

__all__ = [
    "FORK_STAGING_PREFIX",
    "copy_agent",
    "copy_config",
    "events_to_fork",
    "fork_state",
]

FORK_STAGING_PREFIX = ".forking-"
"""A fork is written in `<persistence_dir>/.forking-<id.hex>-<random>` and renamed once complete."""


def copy_agent(agent: AgentBase) -> AgentBase:
    """An independent copy of `agent`: same configuration and keys, its own LLM metrics.

    Every LLM in it (the agent's, a condenser's, ...) is rebuilt from its fields
    (`LLM.copy_for`, same class and usage_id), so a fork counts its own cost; the rest of the
    agent is deep-copied field by field.
    """
    memo: dict[int, Any] = {id(llm): llm.copy_for(llm.usage_id) for llm in _llms_in(agent)}
    fields: dict[str, Any] = {
        name: copy.deepcopy(getattr(agent, name), memo) for name in type(agent).model_fields
    }
    return agent.model_copy(update=fields)


def _llms_in(value: Any) -> list[LLM]:
    """Every LLM held by `value`'s pydantic fields, lists and dicts (each once)."""
    found: dict[int, LLM] = {}
    stack: list[Any] = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, LLM):
            found[id(item)] = item
        elif isinstance(item, BaseModel):
            stack.extend(getattr(item, name, None) for name in type(item).model_fields)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return list(found.values())


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

    The fork gets the source's whole configuration (`source.config`: policy, analyzer, hooks,
    workspace, limits; the agent is `agent`). A persisted fork is written in a staging folder
    and renamed into place once complete, so a crash leaves either the whole fork or only a
    staging folder (`FORK_STAGING_PREFIX`, never listed; `remove_unfinished` removes it).
    Raises ValueError for an id in use or bad tags, `UnknownEventError` for an unknown
    `from_event_id`; nothing is created then.
    """
    fork_id = as_conversation_id(conversation_id) or uuid.uuid4()
    fork_tags = validate_tags(tags)
    if title is not None:
        fork_tags["title"] = validate_tags({"title": title})["title"]
    if fork_id == source.id:
        raise InvalidArgumentError("A fork needs a conversation_id other than its source's.")
    folder = None if source.folder is None else source.folder.parent / fork_id.hex
    if folder is not None and folder.exists():
        raise InvalidArgumentError(
            f"Conversation {fork_id} already exists in {folder.parent}; fork with another "
            "conversation_id (or none, for a new one)."
        )
    events = events_to_fork(source, from_event_id)
    config = copy_config(source.config, agent)
    options: dict[str, Any] = {
        "config": config,
        "tags": fork_tags,
        "title": title if title is not None else source.title,
        "events": events,
        # Through JSON: Metrics hold locks, which cannot be copied.
        "stats": None
        if reset_metrics
        else ConversationStats.model_validate(source.stats.model_dump()),
    }
    if folder is None:
        return ConversationState.create(fork_id, **options)
    staging = folder.parent / f"{FORK_STAGING_PREFIX}{fork_id.hex}-{uuid.uuid4().hex[:8]}"
    try:
        ConversationState.create(fork_id, persistence_dir=staging, **options).close()
        try:
            os.rename(staging, folder)
            fsync_dir(folder.parent)
        except OSError as exc:
            raise storage_error("create", folder, exc) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        state = ConversationState.create(fork_id, agent, persistence_dir=folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    state.mark_created()
    return state


def copy_config(config: ConversationConfig, agent: AgentBase) -> ConversationConfig:
    """A copy of `config` with `agent`: every other field deep-copied, so the two
    conversations never share a mutable setting."""
    fields: dict[str, Any] = {
        name: agent if name == "agent" else copy.deepcopy(value)
        for name, value in config.fields().items()
    }
    return ConversationConfig.model_construct(None, **fields)


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

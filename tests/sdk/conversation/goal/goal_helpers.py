"""Builders of scripted agent and judge replies for the goal-loop tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from openhands.sdk import (
    ActionEvent,
    ConversationStateUpdateEvent,
    Event,
    LocalConversation,
    Message,
    MessageEvent,
    MessageToolCall,
    ObservationEvent,
    SystemPromptEvent,
    TextContent,
)
from openhands.sdk.tool import Observation
from openhands.sdk.tool.stored import action_from_data

GoalConversation = Callable[..., LocalConversation]
"""The `goal_conversation` fixture: `build(replies, *, costs, persist, tools, **kwargs)`."""


def judge_json(
    score: float = 0.0,
    complete: bool = False,
    missing: Sequence[str] | str = (),
    requirements: list[dict[str, Any]] | None = None,
) -> Message:
    """A judge reply holding a strict JSON verdict."""
    data: dict[str, Any] = {
        "score": score,
        "complete": complete,
        "missing": missing if isinstance(missing, str) else list(missing),
    }
    if requirements is not None:
        data["requirements"] = requirements
    return Message(role="assistant", content=[TextContent(text=json.dumps(data))])


def text(reply: str) -> Message:
    """An assistant reply with plain text (it ends an agent run)."""
    return Message(role="assistant", content=[TextContent(text=reply)])


def finish(message: str = "done", call_id: str = "finish_1") -> Message:
    """An assistant reply calling `finish`."""
    return tool_call("finish", {"message": message}, call_id)


def think(thought: str, call_id: str = "think_1") -> Message:
    """An assistant reply calling `think`."""
    return tool_call("think", {"thought": thought}, call_id)


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Message:
    """An assistant reply calling tool `name`."""
    return Message(
        role="assistant",
        tool_calls=[MessageToolCall(id=call_id, name=name, arguments=json.dumps(arguments))],
    )


def user_event(message: str) -> MessageEvent:
    """A user message event."""
    return MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text=message)])
    )


def agent_event(message: str) -> MessageEvent:
    """An assistant message event."""
    return MessageEvent(
        source="agent",
        llm_message=Message(role="assistant", content=[TextContent(text=message)]),
    )


def tool_events(name: str, arguments: dict[str, Any], output: str, call_id: str) -> list[Event]:
    """A tool call and its observation."""
    call = MessageToolCall(id=call_id, name=name, arguments=json.dumps(arguments))
    action = ActionEvent(
        tool_name=name, tool_call_id=call_id, tool_call=call, action=action_from_data(arguments)
    )
    observation = ObservationEvent(
        tool_name=name,
        tool_call_id=call_id,
        action_id=action.id,
        observation=Observation.from_text(output),
    )
    return [action, observation]


def sample_history(objective: str = "Create hello.txt") -> list[Event]:
    """A small conversation: system prompt, objective, a tool call with output, a reply."""
    return [
        SystemPromptEvent(system_prompt=TextContent(text="SECRET SYSTEM PROMPT")),
        user_event(objective),
        ConversationStateUpdateEvent(key="execution_status", value="running"),
        *tool_events("terminal", {"command": "cat hello.txt"}, "hello world", "call_cat"),
        agent_event("hello.txt now contains 'hello world'."),
    ]


def goal_chips(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The `GoalStatus` values of the goal chip events, oldest first."""
    return [
        event.value
        for event in events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "goal"
    ]


def user_texts(events: Sequence[Event]) -> list[str]:
    """The texts of the user messages, oldest first."""
    return [
        event.llm_message.text
        for event in events
        if isinstance(event, MessageEvent) and event.llm_message.role == "user"
    ]

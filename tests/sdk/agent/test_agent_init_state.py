"""`Agent.init_state`: the system prompt of a state built by hand, as a conversation starts it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from openhands.sdk import (
    Agent,
    AgentContext,
    LocalConversation,
    Message,
    MessageEvent,
    SystemPromptEvent,
    TextContent,
    Tool,
)
from openhands.sdk.agent.base import EventOrderError
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event import Event
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace import LocalWorkspace


def _state(agent: Agent, folder: Path) -> ConversationState:
    return ConversationState.create(
        id=uuid.uuid4(), agent=agent, workspace=LocalWorkspace(working_dir=str(folder))
    )


def _agent() -> Agent:
    return Agent(
        llm=TestLLM.from_messages([]),
        tools=[Tool(name="terminal")],
        agent_context=AgentContext(system_message_suffix="Say yay.", current_datetime=None),
    )


def test_it_emits_the_same_system_prompt_a_conversation_starts_with(tmp_path: Path) -> None:
    import openhands.tools.terminal  # noqa: F401  (registers the terminal tool)

    agent = _agent()
    emitted: list[Event] = []

    agent.init_state(_state(agent, tmp_path), on_event=emitted.append)

    [event] = emitted
    assert isinstance(event, SystemPromptEvent)
    conversation = LocalConversation(agent, str(tmp_path))
    started = next(e for e in conversation.state.events if isinstance(e, SystemPromptEvent))
    conversation.close()
    assert event.system_prompt == started.system_prompt
    assert event.dynamic_context == started.dynamic_context
    assert event.tools == started.tools
    assert "terminal" in [tool["title"] for tool in event.tools]


def test_a_state_that_has_its_system_prompt_is_left_alone(tmp_path: Path) -> None:
    agent = Agent(llm=TestLLM.from_messages([]))
    state = _state(agent, tmp_path)
    state.events.append(SystemPromptEvent(system_prompt=TextContent(text="x"), tools=[]))
    emitted: list[Event] = []

    agent.init_state(state, on_event=emitted.append)

    assert emitted == []


def test_a_user_message_before_any_system_prompt_is_refused(tmp_path: Path) -> None:
    agent = Agent(llm=TestLLM.from_messages([]))
    state = _state(agent, tmp_path)
    state.events.append(
        MessageEvent(
            source="user", llm_message=Message(role="user", content=[TextContent(text="hi")])
        )
    )

    with pytest.raises(EventOrderError, match="user message exists before SystemPromptEvent"):
        agent.init_state(state, on_event=lambda _event: None)

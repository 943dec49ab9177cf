"""`LocalConversation.execute_tool`: run a tool directly, outside the agent loop."""

from __future__ import annotations

import pytest
from openhands.sdk.tool.builtins import ThinkAction


def test_a_tool_runs_directly_and_nothing_is_recorded(make_conversation, echo_received) -> None:
    conversation, llm = make_conversation(tools=["echo"])
    before = len(conversation.state.events)
    action = conversation.tools["echo"].action_type.model_validate({"text": "hi", "times": 2})

    observation = conversation.execute_tool("echo", action)

    assert "hi hi" in observation.model_dump_json()
    assert not observation.is_error
    assert [a.text for a in echo_received] == ["hi"]
    assert len(conversation.state.events) == before
    assert llm.calls == []


def test_an_unknown_tool_is_a_key_error_naming_the_tools(make_conversation) -> None:
    conversation, _ = make_conversation()

    with pytest.raises(KeyError, match="finish, think"):
        conversation.execute_tool("nope", ThinkAction(thought="x"))

"""`Event.visualize`: an event as plain text for a person."""

from __future__ import annotations

from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    MessageEvent,
    PauseEvent,
)
from openhands.sdk.llm import Message, MessageToolCall, TextContent


def _action(**fields: object) -> ActionEvent:
    call = MessageToolCall(id="c1", name="terminal", arguments='{"command": "ls"}')
    return ActionEvent(
        tool_name="terminal",
        tool_call_id="c1",
        tool_call=call,
        thought=[TextContent(text="look around")],
        **fields,  # type: ignore[arg-type]
    )


def test_an_action_shows_its_summary_thought_call_and_risk() -> None:
    text = _action(summary="list the files", security_risk="LOW").visualize

    assert text.splitlines() == [
        "[ActionEvent from agent]",
        "Summary: list the files",
        "Thought: look around",
        'Action: terminal {"command": "ls"}',
        "Risk: LOW",
    ]


def test_an_action_without_summary_or_stated_risk_leaves_those_lines_out() -> None:
    text = _action().visualize

    assert "Summary:" not in text and "Risk:" not in text
    assert 'Action: terminal {"command": "ls"}' in text


def test_a_message_shows_what_was_said() -> None:
    event = MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text="hi there")])
    )

    assert event.visualize == "[MessageEvent from user]\nhi there"


def test_an_error_shows_its_text_and_a_bare_event_its_kind() -> None:
    error = AgentErrorEvent(tool_name="terminal", tool_call_id="c1", error="no such tool")

    assert error.visualize.startswith("[AgentErrorEvent from agent]\n")
    assert "no such tool" in error.visualize
    assert PauseEvent().visualize == "[PauseEvent from user]"


def test_a_reply_with_thinking_counts_its_blocks_and_str_shows_the_same() -> None:
    from openhands.sdk.llm import ThinkingBlock

    reply = Message(
        role="assistant",
        content=[TextContent(text="42")],
        thinking_blocks=[
            ThinkingBlock(thinking="first", signature="s1"),
            ThinkingBlock(thinking="second", signature="s2"),
        ],
    )
    event = MessageEvent(source="agent", llm_message=reply, activated_skills=["math"])

    assert event.visualize.splitlines() == [
        "[MessageEvent from agent]",
        "42",
        "[Activated skills: math]",
        "[Thinking blocks: 2]",
    ]
    assert str(event) == event.visualize
    assert "first" not in str(event)

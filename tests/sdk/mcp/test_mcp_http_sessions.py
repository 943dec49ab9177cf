"""MCP over streamable HTTP against a real session-based server: the session ends on close,
tool annotations reach the approval logic, content keeps its order, and a restarted server
is reconnected to on the next call."""

from __future__ import annotations

import json

import pytest
from mcp_test_servers import MakeMCPConversation, SessionServer, wait_for
from openhands.sdk import ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.confirmation import unmatched_actions
from openhands.sdk.event import ActionEvent, ObservationEvent
from openhands.sdk.mcp import MCPError, MCPServer
from openhands.sdk.mcp.client import MCPClient
from openhands.sdk.mcp.utils import create_mcp_tools
from openhands.sdk.security import ConfirmRisky, SecurityRisk

pytestmark = pytest.mark.slow


def _call(name: str, call_id: str = "call_1", **arguments: object) -> Message:
    return Message(
        role="assistant",
        tool_calls=[MessageToolCall(id=call_id, name=name, arguments=json.dumps(arguments))],
    )


def _done() -> Message:
    return Message(role="assistant", content=[TextContent(text="done")])


def _text(result: object) -> str:
    return "".join(getattr(block, "text", "") for block in getattr(result, "content", []))


# -- 1. closing ends the session ----------------------------------------------------------------


def test_closing_a_client_ends_its_http_session(session_server: SessionServer) -> None:
    client = MCPClient("s", MCPServer(url=session_server.url))
    client.connect()
    assert _text(client.call_tool("echo", {"text": "hi"})).startswith("hi from")

    client.close()

    assert wait_for(lambda: session_server.requests("DELETE") == 1), (
        "the session-termination request (DELETE) never reached the server"
    )


def test_closing_a_conversation_ends_its_http_session(
    session_server: SessionServer, make_mcp_conversation: MakeMCPConversation
) -> None:
    conversation, _ = make_mcp_conversation([], mcp_config={"s": {"url": session_server.url}})

    conversation.close()

    assert wait_for(lambda: session_server.requests("DELETE") == 1)


# -- 2. annotations -----------------------------------------------------------------------------


def test_the_servers_tool_annotations_are_kept(session_server: SessionServer) -> None:
    tools = {tool.name: tool for tool in create_mcp_tools({"s": {"url": session_server.url}})}
    try:
        lookup, wipe, echo = tools["lookup"], tools["wipe"], tools["echo"]
        assert lookup.annotations is not None and lookup.annotations.readOnlyHint
        assert lookup.annotations.openWorldHint is False
        assert wipe.annotations is not None and not wipe.annotations.readOnlyHint
        assert wipe.annotations.destructiveHint
        assert echo.annotations is None
        # Read-only tools are not asked for a security risk; the others are.
        schema = lookup.to_openai_tool(add_security_risk_prediction=True)
        assert "security_risk" not in schema["function"]["parameters"]["properties"]
        schema = wipe.to_openai_tool(add_security_risk_prediction=True)
        assert "security_risk" in schema["function"]["parameters"]["properties"]
    finally:
        for tool in tools.values():
            tool.close()


def test_a_read_only_tool_runs_without_approval_where_a_destructive_one_waits(
    session_server: SessionServer, make_mcp_conversation: MakeMCPConversation
) -> None:
    conversation, _ = make_mcp_conversation(
        [_call("lookup", key="k"), _call("wipe", "call_2", target="all"), _done()],
        mcp_config={"s": {"url": session_server.url}},
    )
    conversation.set_confirmation_policy(ConfirmRisky(threshold=SecurityRisk.MEDIUM))
    conversation.send_message("look it up, then wipe it")

    conversation.run()

    status = conversation.state.execution_status
    assert status == ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
    results = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert [r.tool_name for r in results] == ["lookup"]  # it ran; wipe waits
    assert [a.tool_name for a in unmatched_actions(conversation.state.events)] == ["wipe"]


# -- 3. content order ---------------------------------------------------------------------------


def test_text_image_text_arrive_in_the_servers_order(
    session_server: SessionServer, make_mcp_conversation: MakeMCPConversation
) -> None:
    conversation, llm = make_mcp_conversation(
        [_call("mixed"), _done()], mcp_config={"s": {"url": session_server.url}}
    )
    conversation.send_message("show me")

    conversation.run()

    [result] = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    parts = result.observation.content
    assert [type(p) for p in parts] == [TextContent, ImageContent, TextContent]
    assert isinstance(parts[0], TextContent) and parts[0].text == "before the image"
    assert isinstance(parts[2], TextContent) and parts[2].text == "after the image"
    # The LLM's next request holds the tool result in that order too.
    tool_message = next(m for m in llm.calls[1] if m.role == "tool")
    assert [type(p) for p in tool_message.content] == [TextContent, ImageContent, TextContent]


# -- 4. reconnect after a restart ---------------------------------------------------------------


def test_a_restarted_server_is_reconnected_to_on_the_next_call(
    session_server: SessionServer,
) -> None:
    with MCPClient("s", MCPServer(url=session_server.url)) as client:
        client.connect()
        first = _text(client.call_tool("echo", {"text": "a"}))
        session_server.stop()
        session_server.start()

        second = _text(client.call_tool("echo", {"text": "b"}))

    assert first.startswith("a from ") and second.startswith("b from ")
    assert first.split()[-1] != second.split()[-1]  # another server process answered


def test_a_call_while_the_server_is_down_fails_and_the_next_one_reconnects(
    session_server: SessionServer, make_mcp_conversation: MakeMCPConversation
) -> None:
    conversation, _ = make_mcp_conversation(
        [_call("echo", text="one"), _done(), _call("echo", "call_2", text="two"), _done()],
        mcp_config={"s": {"url": session_server.url, "startup_timeout": 5}},
    )
    session_server.stop()
    conversation.send_message("echo one")
    conversation.run()
    session_server.start()
    conversation.send_message("echo two")
    conversation.run()

    results = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert results[0].is_error
    assert not results[1].is_error and results[1].text.startswith("two from ")


def test_a_closed_client_does_not_reconnect(session_server: SessionServer) -> None:
    client = MCPClient("s", MCPServer(url=session_server.url))
    client.connect()
    client.close()

    with pytest.raises(MCPError, match="closed"):
        client.call_tool("echo", {"text": "x"})
    assert session_server.requests("POST") <= 4  # nothing sent after close


def test_actions_of_mcp_tools_keep_their_names(
    session_server: SessionServer, make_mcp_conversation: MakeMCPConversation
) -> None:
    conversation, _ = make_mcp_conversation(
        [_call("lookup", key="k"), _done()], mcp_config={"s": {"url": session_server.url}}
    )
    conversation.send_message("look")
    conversation.run()

    [action] = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
    assert action.tool_name == "lookup"

"""Client-defined tools in a local conversation: acknowledged at once, or the run stops until
the client answers (also after a reopen); arguments checked against the client's schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import Agent, LocalConversation, Message, MessageToolCall, TextContent
from openhands.sdk.event import ActionEvent, AgentErrorEvent, ObservationEvent
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import ClientTool, ClientToolSpec, ToolAnnotations
from openhands.sdk.tool.client_tool import ClientToolRegistrationError, register_client_tools
from openhands.sdk.tool.tool import SUMMARY_PROPERTY

PARAMS = {
    "type": "object",
    "properties": {"route": {"type": "string", "pattern": "^/"}},
    "required": ["route"],
    "additionalProperties": False,
}
NAVIGATE = ClientToolSpec(name="navigate_to", description="Go to a route.", parameters=PARAMS)
PICK = ClientToolSpec(
    name="pick_file",
    description="Let the user pick a file.",
    parameters={"type": "object", "properties": {"kind": {"type": "string"}}},
    wait_for_result=True,
)


def _call(name: str, call_id: str, **arguments: object) -> Message:
    return Message(
        role="assistant",
        tool_calls=[MessageToolCall(id=call_id, name=name, arguments=json.dumps(arguments))],
    )


def _text(text: str) -> Message:
    return Message(role="assistant", content=[TextContent(text=text)])


def _conversation(
    replies: list[Message], workspace: Path, **kwargs
) -> tuple[LocalConversation, TestLLM]:
    llm = TestLLM.from_messages(replies)
    return LocalConversation(
        Agent(llm=llm, tools=[]), workspace, client_tools=[NAVIGATE, PICK], **kwargs
    ), llm


def test_the_llm_gets_the_clients_schema_verbatim(workspace_dir: Path) -> None:
    conversation, _ = _conversation([], workspace_dir)
    try:
        functions: list[Any] = [schema["function"] for schema in conversation.tool_schemas]
        [function] = [f for f in functions if f["name"] == "navigate_to"]
        # The client's schema as given, with the optional summary asked of every tool.
        assert function["parameters"] == {
            **PARAMS,
            "properties": {**PARAMS["properties"], "summary": SUMMARY_PROPERTY},
        }
        assert function["description"] == "Go to a route."
    finally:
        conversation.close()


def test_a_call_that_does_not_wait_is_acknowledged_and_the_run_goes_on(workspace_dir: Path) -> None:
    conversation, llm = _conversation(
        [_call("navigate_to", "c1", route="/files"), _text("ok")], workspace_dir
    )
    conversation.send_message("go to files")
    conversation.run()

    [action] = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
    assert action.action is not None and action.action.model_dump()["route"] == "/files"
    [result] = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert result.observation.text == "Tool call dispatched to client."
    assert conversation.state.execution_status.value == "finished" and len(llm.calls) == 2
    conversation.close()


def test_arguments_that_break_the_schema_never_reach_the_client(workspace_dir: Path) -> None:
    conversation, _ = _conversation(
        [_call("navigate_to", "c1", route="files"), _text("ok")], workspace_dir
    )
    conversation.send_message("go")
    conversation.run()

    [error] = [e for e in conversation.state.events if isinstance(e, AgentErrorEvent)]
    assert "does not match" in error.error and "route" in error.error
    conversation.close()


def test_a_waiting_call_stops_the_run_until_answered_even_after_a_reopen(
    workspace_dir: Path, tmp_path: Path
) -> None:
    conversation, llm = _conversation(
        [_call("pick_file", "c1", kind="csv"), _text("got it")],
        workspace_dir,
        persistence_dir=tmp_path / "c",
    )
    conversation.send_message("pick a csv")
    conversation.run()
    assert conversation.state.execution_status.value == "paused"
    assert [a.tool_call_id for a in conversation.pending_client_calls] == ["c1"]

    conversation.run()  # nothing answered yet: no LLM call, still paused
    assert len(llm.calls) == 1 and conversation.state.execution_status.value == "paused"
    conversation.close()

    reopened = LocalConversation(  # a new agent object: its client tools are given again
        Agent(llm=llm, tools=[]),
        workspace_dir,
        persistence_dir=tmp_path / "c",
        conversation_id=conversation.id,
        client_tools=[NAVIGATE, PICK],
    )
    assert [a.tool_call_id for a in reopened.pending_client_calls] == ["c1"]
    with pytest.raises(ValueError, match="c9"):
        reopened.respond_to_client_tool("c9", "x")
    reopened.respond_to_client_tool("c1", "data.csv", run=True)

    assert reopened.state.execution_status.value == "finished"
    tool_message = next(m for m in llm.calls[1] if m.role == "tool")
    assert tool_message.text == "data.csv"
    assert reopened.pending_client_calls == []
    reopened.close()


def test_other_calls_of_the_same_reply_run_before_the_run_stops(workspace_dir: Path) -> None:
    both = Message(
        role="assistant",
        tool_calls=[
            MessageToolCall(id="a", name="pick_file", arguments="{}"),
            MessageToolCall(id="b", name="navigate_to", arguments=json.dumps({"route": "/x"})),
        ],
    )
    conversation, _ = _conversation([both], workspace_dir)
    conversation.send_message("both")
    conversation.run()

    results = [e.tool_call_id for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert results == ["b"]
    assert [a.tool_call_id for a in conversation.pending_client_calls] == ["a"]
    conversation.close()


def test_registration_refuses_clashes_and_duplicates() -> None:
    with pytest.raises(ClientToolRegistrationError, match="finish"):
        register_client_tools([ClientToolSpec(name="finish", description="x")])
    with pytest.raises(ClientToolRegistrationError, match="twice"):
        register_client_tools([NAVIGATE, NAVIGATE])
    register_client_tools([NAVIGATE])  # this process now knows navigate_to's schema
    other = {"type": "object", "properties": {"path": {"type": "string"}}}
    with pytest.raises(ClientToolRegistrationError, match="other parameters"):
        register_client_tools(
            [ClientToolSpec(name="navigate_to", description="x", parameters=other)]
        )
    with pytest.raises(ValueError, match="object"):
        ClientToolSpec(name="x", description="d", parameters={"type": "array"})


def test_read_only_annotations_keep_the_risk_question_away() -> None:
    spec = ClientToolSpec(
        name="peek_ui", description="Read the UI.", annotations=ToolAnnotations(readOnlyHint=True)
    )
    tool = ClientTool.from_spec(spec)

    schema = tool.to_openai_tool(add_security_risk_prediction=True)
    assert "security_risk" not in schema["function"]["parameters"]["properties"]

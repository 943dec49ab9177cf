"""Structured output: a `response_schema` on any tool spec, and reading it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.event import ActionEvent
from openhands.sdk.llm import MessageToolCall
from openhands.sdk.tool import (
    FinishTool,
    InvalidToolSpecError,
    Tool,
    ToolContext,
    ToolDefinition,
    resolve_tool,
)
from openhands.sdk.tool.builtins.finish import FinishAction
from pydantic import BaseModel, Field, ValidationError


class Facts(BaseModel):
    """What the agent must report when it finishes."""

    description: str = Field(description="One paragraph.")
    facts: list[str] = Field(description="Three facts.")


class Clash(BaseModel):
    message: str


class Reserved(BaseModel):
    summary: str


@pytest.fixture
def context(tmp_path: Path) -> ToolContext:
    return ToolContext(working_dir=str(tmp_path))


def _finish(context: ToolContext, schema: Any = Facts) -> ToolDefinition:
    [tool] = resolve_tool(Tool(name="FinishTool", params={"response_schema": schema}), context)
    return tool


def _call(arguments: dict[str, Any]) -> ActionEvent:
    call = MessageToolCall(id="c1", name="finish", arguments=json.dumps(arguments))
    action = FinishAction(message=arguments.get("message", ""))
    return ActionEvent(tool_name="finish", tool_call_id="c1", tool_call=call, action=action)


def test_the_schema_fields_join_the_tools_parameters(context: ToolContext) -> None:
    tool = _finish(context)

    parameters = tool.to_openai_tool()["function"]["parameters"]

    assert isinstance(tool, FinishTool)
    assert set(parameters["properties"]) == {"message", "description", "facts", "summary"}
    assert {"description", "facts"} <= set(parameters["required"])


def test_arguments_split_into_the_action_and_the_structured_output(context: ToolContext) -> None:
    tool = _finish(context)

    action = tool.action_from_arguments(
        {"message": "done", "description": "a repo", "facts": ["a", "b", "c"]}
    )

    assert isinstance(action, FinishAction) and action.message == "done"
    assert action.structured_output == {"description": "a repo", "facts": ["a", "b", "c"]}
    assert tool.parse_response(action) == Facts(description="a repo", facts=["a", "b", "c"])


def test_missing_structured_fields_fail_validation(context: ToolContext) -> None:
    with pytest.raises(ValidationError, match="facts"):
        _finish(context).action_from_arguments({"message": "done", "description": "x"})


def test_parse_last_response_reads_the_latest_call(context: ToolContext) -> None:
    tool = _finish(context)
    events = [
        _call({"message": "1", "description": "old", "facts": []}),
        _call({"message": "2", "description": "new", "facts": ["f"]}),
    ]

    assert tool.parse_last_response(events) == Facts(description="new", facts=["f"])
    assert tool.parse_last_response([]) is None


@pytest.mark.parametrize(("schema", "why"), [(Clash, "collide"), (Reserved, "reserved")])
def test_a_schema_clashing_with_the_tool_is_refused(
    context: ToolContext, schema: type[BaseModel], why: str
) -> None:
    with pytest.raises(InvalidToolSpecError, match=why):
        _finish(context, schema)


def test_a_spec_building_several_tools_cannot_take_a_schema(context: ToolContext) -> None:
    from openhands.sdk.tool import ThinkTool, register_tool

    register_tool("pair", lambda ctx, **params: [FinishTool(), ThinkTool()])

    with pytest.raises(InvalidToolSpecError, match="exactly one tool"):
        resolve_tool(Tool(name="pair", params={"response_schema": Facts}), context)


def test_the_spec_stores_the_schema_as_json_schema_and_still_resolves(
    context: ToolContext,
) -> None:
    spec = Tool(name="FinishTool", params={"response_schema": Facts})

    stored = json.loads(spec.model_dump_json())
    [tool] = resolve_tool(Tool.model_validate(stored), context)

    assert stored["params"]["response_schema"]["properties"]["facts"]["type"] == "array"
    action = tool.action_from_arguments({"message": "m", "description": "d", "facts": []})
    assert tool.parse_response(action) == {"description": "d", "facts": []}
    with pytest.raises(ValueError, match="does not match"):
        tool.action_from_arguments({"message": "m", "description": "d", "facts": "no"})


def test_an_agent_run_records_structured_output_that_can_be_read_back(
    workspace_dir: Path, persistence_dir: Path
) -> None:
    from openhands.sdk import Agent, LocalConversation, Message
    from openhands.sdk.testing import TestLLM

    arguments = {"message": "done", "description": "a demo", "facts": ["x", "y", "z"]}
    reply = Message(
        role="assistant",
        tool_calls=[MessageToolCall(id="c1", name="finish", arguments=json.dumps(arguments))],
    )
    spec = Tool(name="FinishTool", params={"response_schema": Facts})
    agent = Agent(llm=TestLLM.from_messages([reply]), tools=[spec])
    conversation = LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
    try:
        conversation.send_message("report")
        conversation.run()
        events = list(conversation.state.events)
        finish = conversation.tools["finish"]
    finally:
        conversation.close()

    assert finish.parse_last_response(events) == Facts(description="a demo", facts=["x", "y", "z"])

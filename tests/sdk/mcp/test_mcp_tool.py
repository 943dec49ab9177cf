"""MCP tools as agent tools: schema given to the LLM, argument checks, observations."""

from __future__ import annotations

from types import SimpleNamespace

import mcp_types
import pytest
from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.mcp import MCPServer
from openhands.sdk.mcp.client import MCPClient
from openhands.sdk.mcp.tool import MCPToolDefinition, MCPToolObservation
from openhands.sdk.mcp.utils import mcp_tool_name
from openhands.sdk.tool.tool import SUMMARY_PROPERTY
from pydantic import ValidationError

SCHEMA = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "What to fetch."},
        "max_length": {"type": "integer", "minimum": 1},
        "options": {"type": "object", "properties": {"raw": {"type": "boolean"}}},
    },
    "required": ["url"],
}


def _tool(name: str = "fetch", schema: dict | None = None) -> MCPToolDefinition:
    mcp_tool = mcp_types.Tool(
        name=name, description="Fetch a URL.", input_schema=SCHEMA if schema is None else schema
    )
    # Never connected: these tests only build definitions and validate arguments.
    client = MCPClient("web", MCPServer(command="unused"))
    return MCPToolDefinition.create(mcp_tool, client)[0]


def _with_summary(schema: dict) -> dict:
    """`schema` as the LLM sees it: the optional summary asked of every tool added."""
    return {**schema, "properties": {**schema.get("properties", {}), "summary": SUMMARY_PROPERTY}}


def test_the_llm_gets_the_servers_input_schema_unchanged_but_for_the_summary() -> None:
    function = _tool().to_openai_tool()["function"]

    assert function["name"] == "fetch"
    assert function["description"] == "Fetch a URL."
    assert function["parameters"] == _with_summary(SCHEMA)
    assert _tool().to_mcp_tool()["inputSchema"] == SCHEMA  # an MCP client never sees it


def test_the_servers_meta_is_kept_on_the_tool() -> None:
    listed = mcp_types.Tool(name="fetch", input_schema=SCHEMA, _meta={"version": "1.0"})

    [tool] = MCPToolDefinition.create(listed, MCPClient("web", MCPServer(command="unused")))

    assert tool.meta == {"version": "1.0"}
    assert tool.model_copy(update={"meta": {"version": "2"}}).meta == {"version": "2"}


def test_a_tool_in_the_mcp_1_shape_is_read_too() -> None:
    # mcp 1.x (what the reference SDK pins) names the schema `inputSchema`; a stand-in client
    # (a test double) may lack `name`.
    legacy = SimpleNamespace(
        name="fetch",
        title=None,
        description="Fetch a URL.",
        inputSchema=SCHEMA,
        annotations=None,
        meta=None,
    )

    [tool] = MCPToolDefinition.create(legacy, SimpleNamespace())  # type: ignore[arg-type]

    assert tool.to_openai_tool()["function"]["parameters"] == _with_summary(SCHEMA)
    assert tool.server_name == ""


def test_a_schema_without_type_is_given_as_an_object() -> None:
    parameters = _tool(schema={}).to_openai_tool()["function"]["parameters"]

    assert parameters == {"type": "object", "properties": {"summary": SUMMARY_PROPERTY}}


def test_valid_arguments_are_sent_as_given() -> None:
    action = _tool().action_type.model_validate({"url": "https://x", "options": {"raw": True}})

    assert action.to_mcp_arguments() == {"url": "https://x", "options": {"raw": True}}  # type: ignore[attr-defined]


def test_null_arguments_are_dropped_as_unset() -> None:
    action = _tool().action_type.model_validate({"url": "https://x", "max_length": None})

    assert action.to_mcp_arguments() == {"url": "https://x"}  # type: ignore[attr-defined]


def test_arguments_that_break_the_schema_are_refused_with_the_reason() -> None:
    with pytest.raises(ValidationError) as caught:
        _tool().action_type.model_validate({"max_length": 0})

    message = str(caught.value)
    assert "'url' is a required property" in message
    assert "less than the minimum of 1 (at max_length)" in message


def test_tool_names_are_made_acceptable_to_llm_providers() -> None:
    assert _tool(name="repo.search/v2").name == "repo_search_v2"


def test_several_servers_prefix_tool_names_with_the_server_name() -> None:
    assert mcp_tool_name("fetch", "fetch", prefixed=True) == "fetch_fetch"
    assert mcp_tool_name("fetch", "fetch", prefixed=False) == "fetch"


def test_text_and_image_blocks_become_text_and_an_image_the_llm_sees() -> None:
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text="a red pixel:"),
            mcp_types.ImageContent(type="image", data="iVBORw0K", mime_type="image/png"),
        ]
    )

    observation = MCPToolObservation.from_call_tool_result("pixel", result)

    assert observation.to_llm_content == [
        TextContent(text="a red pixel:"),
        ImageContent(image_urls=["data:image/png;base64,iVBORw0K"]),
    ]
    assert not observation.is_error


def test_the_stored_observation_keeps_the_image_for_a_reopened_conversation() -> None:
    result = mcp_types.CallToolResult(
        content=[mcp_types.ImageContent(type="image", data="QUJD", mime_type="image/png")]
    )
    stored = MCPToolObservation.from_call_tool_result("pixel", result).model_dump(mode="json")

    reloaded = MCPToolObservation.model_validate(stored)

    assert reloaded.to_llm_content == [ImageContent(image_urls=["data:image/png;base64,QUJD"])]


def test_a_tool_error_result_is_an_error_observation() -> None:
    result = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="no such page")], is_error=True
    )

    observation = MCPToolObservation.from_call_tool_result("fetch", result)

    assert observation.is_error and observation.text == "no such page"


def test_structured_only_and_empty_results_still_say_something() -> None:
    structured = mcp_types.CallToolResult(content=[], structured_content={"n": 3})
    empty = mcp_types.CallToolResult(content=[])

    assert MCPToolObservation.from_call_tool_result("t", structured).text == '{"n": 3}'
    assert "no content" in MCPToolObservation.from_call_tool_result("t", empty).text

"""MCP tools as agent tools: the action (the server's inputSchema), the observation, the tool.

Each tool a server lists becomes one `MCPToolDefinition` subclass built at run time: its
`name` is what the LLM calls, its parameters are the server's `inputSchema` unchanged, and
its executor forwards the call to the server through the conversation's `MCPClient`.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any, ClassVar

import mcp_types
from openhands.sdk.llm.message import ImageContent, TextContent
from openhands.sdk.mcp.client import MCPClient
from openhands.sdk.mcp.errors import MCPError
from openhands.sdk.tool.json_schema_action import JsonSchemaAction, object_schema, schema_function
from openhands.sdk.tool.tool import (
    Action,
    Observation,
    ToolAnnotations,
    ToolConversation,
    ToolDefinition,
)
from pydantic import ConfigDict, Field, model_validator

logger = logging.getLogger(__name__)

_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def llm_tool_name(name: str) -> str:
    """`name` as LLM providers accept it: letters, digits, `_` and `-` (others become `_`)."""
    return _UNSAFE_NAME_CHARS.sub("_", name) or "_"


class MCPToolAction(JsonSchemaAction):
    """The arguments of one MCP tool call, as the LLM sent them (any JSON object).

    Each tool's subclass checks them against the server's `inputSchema` (top-level nulls are
    dropped first: LLMs send them for optional parameters). Frozen, as in the reference SDK;
    the generic class itself is built as the reference's is, `MCPToolAction(data={...})`,
    and takes no other field.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _reference_data(cls, value: Any) -> Any:
        if cls is not MCPToolAction or not isinstance(value, dict):
            return value
        unknown = sorted(set(value) - {"data", "kind"})
        if unknown:
            raise ValueError(f"MCPToolAction takes only `data`, got {unknown}")
        data = value.get("data") or {}
        if not isinstance(data, dict):
            raise ValueError("MCPToolAction.data must be a JSON object")
        return dict(data)

    @property
    def data(self) -> dict[str, Any]:
        """The arguments (the reference's name)."""
        return self.arguments()

    def to_mcp_arguments(self) -> dict[str, Any]:
        """The arguments to send to the server: `data`."""
        return self.arguments()


class MCPToolObservation(Observation):
    """What an MCP tool returned: its text and images, in the order the LLM reads them."""

    tool_name: str = Field(default="", description="The tool's name on its server.")

    @classmethod
    def from_call_tool_result(
        cls, tool_name: str, result: mcp_types.CallToolResult
    ) -> MCPToolObservation:
        """The result's blocks in the server's order: text blocks (adjacent ones joined by a
        newline) and images the LLM sees; anything else becomes a short note."""
        parts: list[TextContent | ImageContent] = []
        pending: list[str] = []  # adjacent text blocks, joined into one part

        def flush() -> None:
            if pending:
                parts.append(TextContent(text="\n".join(pending)))
                pending.clear()

        for block in result.content:
            if isinstance(block, mcp_types.ImageContent):
                flush()
                parts.append(
                    ImageContent(image_urls=[f"data:{block.mime_type};base64,{block.data}"])
                )
            else:
                pending.append(_block_text(block))
        flush()
        if not parts and result.structured_content is not None:
            parts.append(
                TextContent(text=json.dumps(result.structured_content, ensure_ascii=False))
            )
        if not parts or not any(isinstance(part, ImageContent) or part.text for part in parts):
            parts = [TextContent(text="(the tool returned no content)")]
        return cls(content=parts, is_error=bool(result.is_error), tool_name=tool_name)

    @classmethod
    def from_error(cls, tool_name: str, message: str) -> MCPToolObservation:
        """An error the agent reads instead of a result (server gone, timeout...)."""
        return cls.from_text(message, is_error=True, tool_name=tool_name)


def _block_text(block: Any) -> str:
    """A non-image content block as the text the LLM reads."""
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return resource.text
        return f"[binary resource {resource.uri} ({resource.mime_type}) omitted]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[resource link: {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content omitted]"


def tool_annotations(mcp_tool: mcp_types.Tool) -> ToolAnnotations | None:
    """The server's annotations of a tool (readOnlyHint, destructiveHint...), or None.

    A hint the server leaves out keeps the MCP default (not read-only, destructive,
    not idempotent, open world); a server-side title is kept.
    """
    given = mcp_tool.annotations
    if given is None:
        return None
    hints = given.model_dump(by_alias=True, exclude_none=True)
    known = {name: hints[name] for name in ToolAnnotations.model_fields if name in hints}
    if "title" not in known and mcp_tool.title:
        known["title"] = mcp_tool.title
    return ToolAnnotations(**known)


class MCPToolExecutor:
    """Calls one tool of one server; a failure becomes an error observation, never a raise."""

    def __init__(self, tool_name: str, client: MCPClient) -> None:
        self.tool_name = tool_name
        self.client = client

    def __call__(
        self, action: Any, conversation: ToolConversation | None = None
    ) -> MCPToolObservation:
        arguments = action.to_mcp_arguments() if isinstance(action, MCPToolAction) else {}
        try:
            result = self.client.call_tool(self.tool_name, arguments)
        except MCPError as exc:
            logger.warning("MCP tool %r: %s", self.tool_name, exc)
            return MCPToolObservation.from_error(self.tool_name, str(exc))
        return MCPToolObservation.from_call_tool_result(self.tool_name, result)

    def close(self) -> None:
        """Close the server connection (shared by the server's tools; closing twice is fine)."""
        self.client.close()


def _input_schema(mcp_tool: Any) -> Any:
    # `input_schema` in mcp 2; `inputSchema` in mcp 1 (what the reference SDK's users hold).
    schema = getattr(mcp_tool, "input_schema", None)
    return schema if schema is not None else getattr(mcp_tool, "inputSchema", None)


class MCPToolDefinition(ToolDefinition):
    """A tool an MCP server lists. Build them with `MCPToolDefinition.create`."""

    observation_type = MCPToolObservation
    mcp_tool: ClassVar[mcp_types.Tool]
    server_name: ClassVar[str] = ""

    executor: MCPToolExecutor | None

    @classmethod
    def create(  # type: ignore[override]
        cls, mcp_tool: mcp_types.Tool, mcp_client: MCPClient, *, name: str | None = None
    ) -> Sequence[MCPToolDefinition]:
        """The tool `mcp_tool` of `mcp_client`'s server, called `name` by the LLM.

        `name` defaults to the server's name for it (made LLM-safe).
        """
        tool_name = llm_tool_name(name or mcp_tool.name)
        schema = object_schema(_input_schema(mcp_tool))
        camel = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", tool_name))
        action_type = type(
            f"MCP{camel}Action", (MCPToolAction,), {"__module__": __name__, "input_schema": schema}
        )
        definition = type(
            f"MCP{camel}Tool",
            (cls,),
            {
                # pydantic's metaclass reads the module of a class it builds.
                "__module__": __name__,
                "name": tool_name,
                "description": mcp_tool.description
                or mcp_tool.title
                or f"MCP tool {mcp_tool.name}",
                "action_type": action_type,
                "mcp_tool": mcp_tool,
                "server_name": getattr(mcp_client, "name", ""),
            },
        )
        return [
            definition(
                MCPToolExecutor(mcp_tool.name, mcp_client),
                annotations=tool_annotations(mcp_tool),
                meta=getattr(mcp_tool, "meta", None),
            )
        ]

    def to_openai_tool(
        self, add_security_risk_prediction: bool = False, action_type: type[Action] | None = None
    ) -> dict[str, Any]:
        return schema_function(
            self.name,
            self.description,
            self.action_type.input_schema,  # type: ignore[attr-defined]
            read_only=bool(self.annotations and self.annotations.readOnlyHint),
            add_security_risk_prediction=add_security_risk_prediction,
        )

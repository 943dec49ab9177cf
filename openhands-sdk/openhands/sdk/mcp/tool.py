"""MCP tools as agent tools: the action (the server's inputSchema), the observation, the tool.

Each tool a server lists becomes one `MCPToolDefinition` subclass built at run time: its
`name` is what the LLM calls, its parameters are the server's `inputSchema` unchanged, and
its executor forwards the call to the server through the conversation's `MCPClient`.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import mcp_types
from openhands.sdk.llm.message import ImageContent, TextContent
from openhands.sdk.mcp.client import MCPClient
from openhands.sdk.mcp.errors import MCPError
from openhands.sdk.tool.tool import SECURITY_RISK_PROPERTY, Action, Observation, ToolDefinition
from pydantic import ConfigDict, Field, field_validator, model_validator

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

logger = logging.getLogger(__name__)

_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def llm_tool_name(name: str) -> str:
    """`name` as LLM providers accept it: letters, digits, `_` and `-` (others become `_`)."""
    return _UNSAFE_NAME_CHARS.sub("_", name) or "_"


MAX_ERRORS = 5
"""How many schema violations one invalid call reports."""


def _describe(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message} (at {where})" if where else error.message


class MCPToolAction(Action):
    """The arguments of one MCP tool call, as the LLM sent them (any JSON object), in `data`.

    As in the reference SDK, `to_mcp_arguments()` is `data` itself, and the action is frozen
    and takes no other field. Each tool's subclass checks `data` against the server's
    `inputSchema` (top-level nulls are dropped first: LLMs send them for optional
    parameters). Stored actions from before `data` (arguments at the top level) read back.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_schema: ClassVar[dict[str, Any]] = {}
    _validator: ClassVar[Any] = None

    data: dict[str, Any] = Field(
        default_factory=dict, description="The tool's arguments, sent to the server as they are."
    )

    @model_validator(mode="before")
    @classmethod
    def _arguments_in_data(cls, value: Any) -> Any:
        # A stored action from before `data` held its arguments at the top level.
        if isinstance(value, dict) and "data" not in value and set(value) - {"kind"}:
            return {"data": {key: item for key, item in value.items() if key != "kind"}}
        return value

    @field_validator("data")
    @classmethod
    def _check_schema(cls, data: dict[str, Any]) -> dict[str, Any]:
        data = {key: value for key, value in data.items() if value is not None}
        validator = cls._schema_validator()
        if validator is not None:
            import jsonschema.exceptions

            errors = sorted(validator.iter_errors(data), key=jsonschema.exceptions.relevance)
            if errors:
                raise ValueError("; ".join(_describe(error) for error in errors[:MAX_ERRORS]))
        return data

    @classmethod
    def _schema_validator(cls) -> Any:
        if cls._validator is None and cls.input_schema:
            import jsonschema.exceptions
            import jsonschema.validators

            try:
                validator_class = jsonschema.validators.validator_for(cls.input_schema)
                validator_class.check_schema(cls.input_schema)
                cls._validator = validator_class(cls.input_schema)
            except jsonschema.exceptions.SchemaError as exc:
                # The server's own problem: let the server judge the arguments.
                logger.warning("ignoring the invalid inputSchema of %s: %s", cls.__name__, exc)
                cls._validator = False
        return cls._validator or None

    def to_mcp_arguments(self) -> dict[str, Any]:
        """The arguments to send to the server: `data`."""
        return self.data


class MCPToolObservation(Observation):
    """What an MCP tool returned: its text and images, in the order the LLM reads them."""

    tool_name: str = Field(default="", description="The tool's name on its server.")

    @classmethod
    def from_call_tool_result(
        cls, tool_name: str, result: mcp_types.CallToolResult
    ) -> MCPToolObservation:
        """Text blocks become text, image blocks images the LLM sees, anything else a note."""
        texts: list[str] = []
        images: list[ImageContent] = []
        for block in result.content:
            if isinstance(block, mcp_types.TextContent):
                texts.append(block.text)
            elif isinstance(block, mcp_types.ImageContent):
                images.append(
                    ImageContent(image_urls=[f"data:{block.mime_type};base64,{block.data}"])
                )
            elif isinstance(block, mcp_types.EmbeddedResource):
                resource = block.resource
                if isinstance(resource, mcp_types.TextResourceContents):
                    texts.append(resource.text)
                else:
                    texts.append(f"[binary resource {resource.uri} ({resource.mime_type}) omitted]")
            elif isinstance(block, mcp_types.ResourceLink):
                texts.append(f"[resource link: {block.uri}]")
            else:
                texts.append(f"[{getattr(block, 'type', 'unknown')} content omitted]")
        if not texts and not images and result.structured_content is not None:
            texts.append(json.dumps(result.structured_content, ensure_ascii=False))
        text = "\n".join(texts)
        if not text and not images:
            text = "(the tool returned no content)"
        parts: list[TextContent | ImageContent] = [TextContent(text=text)] if text else []
        parts.extend(images)
        return cls(content=parts, is_error=bool(result.is_error), tool_name=tool_name)

    @classmethod
    def from_error(cls, tool_name: str, message: str) -> MCPToolObservation:
        """An error the agent reads instead of a result (server gone, timeout...)."""
        return cls.from_text(message, is_error=True, tool_name=tool_name)


class MCPToolExecutor:
    """Calls one tool of one server; a failure becomes an error observation, never a raise."""

    def __init__(self, tool_name: str, client: MCPClient) -> None:
        self.tool_name = tool_name
        self.client = client

    def __call__(
        self, action: Any, conversation: BaseConversation | None = None
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
        schema = _parameters(mcp_tool.input_schema)
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
                "server_name": mcp_client.name,
            },
        )
        return [definition(MCPToolExecutor(mcp_tool.name, mcp_client))]

    def action_from_arguments(self, arguments: dict[str, Any]) -> Action:
        """The action holding the LLM's `arguments` in `data` (checked against the schema)."""
        return self.action_type.model_validate({"data": arguments})

    def to_openai_tool(
        self, add_security_risk_prediction: bool = False, action_type: type[Action] | None = None
    ) -> dict[str, Any]:
        parameters = copy.deepcopy(self.action_type.input_schema)  # type: ignore[attr-defined]
        read_only = bool(self.annotations and self.annotations.readOnlyHint)
        if add_security_risk_prediction and not read_only:
            parameters.setdefault("properties", {})["security_risk"] = dict(SECURITY_RISK_PROPERTY)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


def _parameters(input_schema: dict[str, Any] | None) -> dict[str, Any]:
    """The server's inputSchema as function parameters: always an object with properties."""
    schema = copy.deepcopy(input_schema) if input_schema else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.pop("title", None)
    return schema

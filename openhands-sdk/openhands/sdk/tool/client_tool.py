"""Client-defined tools: described as JSON by the caller, run by the caller, not the SDK.

A `ClientToolSpec` (name, description, a JSON-schema `parameters` object, optional MCP-style
`annotations`) becomes a tool the agent can call, passed as `Conversation(...,
client_tools=[...])` or in the `client_tools` field of `POST /api/conversations`. The caller
sees each call as an `ActionEvent` (a callback, or the events socket). Two modes:

- `wait_for_result=False` (the default, as the reference SDK does): the call is answered at
  once with "Tool call dispatched to client." and the run goes on; the client acts on the
  event (a UI action, a notification).
- `wait_for_result=True`: the run stops (`paused`) right after that step, the call waiting
  for its answer; the client answers with `respond_to_client_tool(tool_call_id, result)`
  (`POST /api/conversations/{id}/client_tools/respond` on the server), which records the
  result as the call's observation, and the run goes on (`run=True`, or the next `run()`).
  A `run()` while a call still waits ends at once, `paused` again: the answer is never
  skipped.

Arguments are checked against `parameters` (JSON Schema) before the client sees them.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.tool.json_schema_action import JsonSchemaAction, object_schema, schema_function
from openhands.sdk.tool.registry import InvalidToolSpecError
from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.spec import Tool
from openhands.sdk.tool.tool import ToolAnnotations, ToolContext, ToolDefinition
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from openhands.sdk.tool.tool import ToolConversation

__all__ = [
    "DISPATCHED_TEXT",
    "ClientTool",
    "ClientToolAction",
    "ClientToolObservation",
    "ClientToolRegistrationError",
    "ClientToolSpec",
    "extract_client_tool_specs",
    "register_client_tools",
    "waits_for_client",
    "with_client_tools",
]

DISPATCHED_TEXT = "Tool call dispatched to client."
"""What the agent reads for a call of a client tool that does not wait for its result."""

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ClientToolRegistrationError(OpenHandsError, ValueError):
    """Client tools that cannot be registered: a bad or duplicate name, a name another tool
    has, or a name reused with another schema. A 422 on the server, naming the tool."""


class ClientToolSpec(BaseModel):
    """A tool the client runs: what the LLM is told, and whether the run waits for it."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(description="The name the agent calls (letters, digits, _ and -).")
    description: str = Field(description="When and how to use it, for the LLM.")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="A JSON Schema of type object describing its arguments.",
    )
    annotations: ToolAnnotations | None = Field(
        default=None,
        description="MCP-style hints; `readOnlyHint` makes it read-only for approval "
        "(None: treated as able to change things).",
    )
    wait_for_result: bool = Field(
        default=False,
        description="Stop the run until the client answers the call (False: answered at "
        "once with an acknowledgement).",
    )

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        if _NAME.match(value) is None:
            raise ValueError(
                f"client tool name {value!r} must be 1-64 letters, digits, '_' or '-' "
                "(what LLM providers accept)"
            )
        return value

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type") != "object":
            raise ValueError(
                'parameters must be a JSON Schema object: {"type": "object", "properties": '
                f"{{...}}}}, got type={value.get('type')!r}"
            )
        return value


class ClientToolObservation(Observation):
    """The result of a client tool call: the acknowledgement, or what the client answered."""


class ClientToolAction(JsonSchemaAction):
    """The arguments of a client tool call, checked against the spec's `parameters`."""


class ClientTool(ToolDefinition):
    """A tool whose calls the client runs. Build it with `ClientTool.from_spec(spec)`."""

    observation_type = ClientToolObservation
    wait_for_result: bool = Field(
        default=False, description="Whether a call stops the run until the client answers."
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ClientTool]:
        """The tool of `params["spec"]` (a ClientToolSpec or its JSON)."""
        raw = params.get("spec")
        if raw is None:
            raise InvalidToolSpecError("a client tool needs params {'spec': <ClientToolSpec JSON>}")
        spec = raw if isinstance(raw, ClientToolSpec) else ClientToolSpec.model_validate(raw)
        return [cls.from_spec(spec)]

    @classmethod
    def from_spec(cls, spec: ClientToolSpec) -> ClientTool:
        """The tool `spec` describes (its class is made once per name and process)."""
        return _tool_class(spec)(
            _acknowledge,
            description=spec.description,
            annotations=spec.annotations,
            wait_for_result=spec.wait_for_result,
        )

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


def _acknowledge(action: Any, conversation: ToolConversation | None = None) -> Observation:
    return ClientToolObservation.from_text(DISPATCHED_TEXT)


_lock = threading.RLock()
_tool_classes: dict[str, tuple[dict[str, Any], type[ClientTool]]] = {}
_client_names: set[str] = set()


def _tool_class(spec: ClientToolSpec) -> type[ClientTool]:
    """The tool class of `spec.name` (one per name and process: its action kind is global).

    Raises ClientToolRegistrationError when the name was registered with another schema.
    """
    with _lock:
        known = _tool_classes.get(spec.name)
        if known is not None:
            if known[0] != spec.parameters:
                raise ClientToolRegistrationError(
                    f"Client tool {spec.name!r} is registered already with other parameters; "
                    "a name keeps one schema per process (rename the tool)"
                )
            return known[1]
        action_type = type(
            f"ClientAction_{spec.name}",
            (ClientToolAction,),
            {"__module__": __name__, "input_schema": object_schema(spec.parameters)},
        )
        tool_class = type(
            f"ClientTool_{spec.name}",
            (ClientTool,),
            {"__module__": __name__, "name": spec.name, "action_type": action_type},
        )
        _tool_classes[spec.name] = (copy.deepcopy(spec.parameters), tool_class)
        return tool_class


def _client_tool_factory(context: ToolContext, **params: Any) -> Sequence[ClientTool]:
    return ClientTool.create(context, **params)


def register_client_tools(specs: Sequence[ClientToolSpec | Mapping[str, Any]]) -> list[Tool]:
    """Register the specs' tools by name and return the `Tool` specs an agent lists.

    Each spec travels in its `Tool(name, params={"spec": ...})`, so a conversation saved with
    client tools gets them back when reopened. Raises ClientToolRegistrationError.
    """
    from openhands.sdk.tool.registry import register_tool, registered_tools

    parsed: list[ClientToolSpec] = []
    for raw in specs:
        try:
            spec = raw if isinstance(raw, ClientToolSpec) else ClientToolSpec.model_validate(raw)
        except ValidationError as exc:
            raise ClientToolRegistrationError(f"Invalid client tool: {exc}") from None
        if any(spec.name == other.name for other in parsed):
            raise ClientToolRegistrationError(f"Client tool {spec.name!r} is given twice")
        parsed.append(spec)
    with _lock:
        taken = set(registered_tools())
        for spec in parsed:
            if spec.name in taken and spec.name not in _client_names:
                raise ClientToolRegistrationError(
                    f"Client tool {spec.name!r} has the name of a tool of this SDK or a "
                    "plugin; give it another name"
                )
            _tool_class(spec)
        for spec in parsed:
            if spec.name not in _client_names:
                register_tool(spec.name, _client_tool_factory)
                _client_names.add(spec.name)
    return [Tool(name=spec.name, params={"spec": spec.model_dump(mode="json")}) for spec in parsed]


def extract_client_tool_specs(tools: Sequence[Tool]) -> list[ClientToolSpec]:
    """The client tool specs carried by an agent's `Tool` entries (see `register_client_tools`)."""
    found: list[ClientToolSpec] = []
    for tool in tools:
        raw = tool.params.get("spec")
        if not isinstance(raw, dict):
            continue
        try:
            spec = ClientToolSpec.model_validate(raw)
        except ValidationError:
            continue
        if spec.name == tool.name:
            found.append(spec)
    return found


class _WithTools(Protocol):
    """An agent as far as its tools go (`AgentBase`, which sits above the tools)."""

    @property
    def tools(self) -> Sequence[Tool]:
        """The agent's tool specs."""
        ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with the fields of `update` changed."""
        ...


AgentT = TypeVar("AgentT", bound=_WithTools)


def with_client_tools(agent: AgentT, specs: Sequence[ClientToolSpec | Mapping[str, Any]]) -> AgentT:
    """A copy of `agent` that also has the client tools of `specs` (replacing same names)."""
    tools = register_client_tools(specs)
    names = {tool.name for tool in tools}
    kept = [tool for tool in agent.tools if tool.name not in names]
    return agent.model_copy(update={"tools": [*kept, *tools]})


def waits_for_client(tool: Any) -> bool:
    """Whether calls of `tool` stop the run until the client answers them."""
    return bool(getattr(tool, "wait_for_result", False))

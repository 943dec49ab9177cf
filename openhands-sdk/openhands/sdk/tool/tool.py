"""Tool contracts: `ToolDefinition`, `ToolExecutor`, `ToolAnnotations` and `ToolContext`.

A `ToolDefinition` is a frozen pydantic model: a description, the `Action` model the LLM's
arguments are validated into, the `Observation` model it returns, optional annotations and
an executor. `ToolDefinition[MyAction, MyObservation]` and `ToolExecutor[MyAction,
MyObservation]` are generic for type checkers. A tool class sets its fields either as
annotated fields or as plain class attributes (`description = "..."`), and builds instances
for a conversation in `create(context, **params)`.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import FunctionType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar, runtime_checkable

from openhands.sdk.errors import InvalidArgumentError, InvalidArgumentTypeError
from openhands.sdk.tool.resources import DeclaredResources
from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.spec import Tool
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic._internal._model_construction import ModelMetaclass
from pydantic.json_schema import SkipJsonSchema

if TYPE_CHECKING:
    from openhands.sdk.llm.message import MessageToolCall
    from openhands.sdk.tool.response_schema import ResponseSchema
    from openhands.sdk.workspace.local import LocalWorkspace

__all__ = [
    "Action",
    "Observation",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutor",
]

ActionT = TypeVar("ActionT", bound=Action)
ObservationT = TypeVar("ObservationT", bound=Observation)

SECURITY_RISK_PROPERTY: dict[str, Any] = {
    "type": "string",
    "enum": ["LOW", "MEDIUM", "HIGH"],
    "description": "Your assessment of this action's security risk.",
}

SUMMARY_PROPERTY: dict[str, Any] = {
    "type": "string",
    "description": "A few words saying what this call does and why, shown to the user "
    "beside it (e.g. 'list the tests that failed').",
}
"""Asked of every tool call (optional): the agent keeps it as `ActionEvent.summary`."""


def with_summary(parameters: dict[str, Any]) -> dict[str, Any]:
    """`parameters` (a JSON schema, changed in place) with the optional `summary` property,
    unless the tool has a `summary` argument of its own."""
    properties = parameters.setdefault("properties", {})
    if "summary" not in properties:
        properties["summary"] = dict(SUMMARY_PROPERTY)
    return parameters


class ToolAnnotations(BaseModel):
    """Hints about a tool's behaviour (the MCP tool annotations)."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    title: str | None = Field(default=None, description="A human-readable title.")
    readOnlyHint: bool = Field(default=False, description="It changes nothing.")
    destructiveHint: bool = Field(default=True, description="It may destroy data.")
    idempotentHint: bool = Field(default=False, description="Repeating it changes nothing.")
    openWorldHint: bool = Field(default=True, description="It reaches outside systems.")


class ToolConversation(Protocol):
    """The conversation a tool call runs in, as the tool layer names it (the conversation
    layer sits above the tools). It is a `BaseConversation` (`openhands.sdk.conversation`):
    an executor that reads more than the id annotates its parameter as one."""

    @property
    def id(self) -> uuid.UUID:
        """The conversation's id."""
        ...


class ToolExecutor(ABC, Generic[ActionT, ObservationT]):
    """Runs one validated action and returns its observation.

    Subclassing is optional: any callable `(action, conversation=None) -> Observation` can be
    a tool's executor. `close()` releases resources; `interrupt()` may stop a running call
    from another thread. Both do nothing by default.
    """

    @abstractmethod
    def __call__(
        self, action: ActionT, conversation: ToolConversation | None = None
    ) -> ObservationT:
        """Execute `action` on behalf of `conversation`."""

    def close(self) -> None:
        """Release processes, files or connections held by the executor."""

    def interrupt(self) -> None:
        """Stop an execution in progress (called from another thread; idempotent)."""

    def process_ids(self) -> list[int]:
        """The processes this executor keeps running between calls (a terminal's shell, whose
        tree holds the agent's background jobs), for a caller that must hold them still while
        it changes the workspace (a rewind). None by default."""
        return []


@runtime_checkable
class RecordedToolCall(Protocol):
    """An event that records a call of a tool (an `ActionEvent`), as the tool reads it back:
    the tool's name, the model's raw call and the validated action (None if invalid)."""

    tool_name: str
    tool_call: MessageToolCall
    action: Action | None


@dataclass
class ToolContext:
    """What a tool factory may use when it builds tools for one conversation.

    It also answers the reference SDK's conversation-state names: `workspace.working_dir`,
    `persistence_dir` (the conversation's own folder, or None) and `id`.
    """

    working_dir: str
    persistence_dir: str | None = None
    conversation_id: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    _workspace: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def workspace(self) -> LocalWorkspace:
        """The conversation's workspace (a `LocalWorkspace` on `working_dir`)."""
        given = self.extras.get("workspace")
        if given is not None:
            return given
        if self._workspace is None:
            from openhands.sdk.workspace.local import LocalWorkspace

            self._workspace = LocalWorkspace(working_dir=self.working_dir)
        return self._workspace

    @property
    def id(self) -> Any:
        """The conversation id (a `uuid.UUID` when it is one, else the string, or None)."""
        if self.conversation_id is None:
            return None

        try:
            return uuid.UUID(str(self.conversation_id))
        except ValueError:
            return self.conversation_id

    @classmethod
    def of(cls, given: Any) -> ToolContext:
        """The context a tool factory was given: a `ToolContext`, the reference SDK's
        `conv_state` (a `ConversationState`: its workspace, folder and id are read), or
        None (the current directory, for tools that need no conversation)."""
        if isinstance(given, ToolContext):
            return given
        if given is None:
            return cls(working_dir=os.getcwd())
        workspace = getattr(given, "workspace", None)
        working_dir = getattr(workspace, "working_dir", None) or getattr(given, "working_dir", None)
        if working_dir is None:
            raise InvalidArgumentTypeError(
                f"a tool's create() takes a ToolContext or a ConversationState, got "
                f"{type(given).__name__}"
            )
        ident = getattr(given, "id", None)
        folder = getattr(given, "persistence_dir", None)
        return cls(
            working_dir=str(working_dir),
            persistence_dir=None if folder is None else str(folder),
            conversation_id=None if ident is None else str(ident),
            extras={"workspace": workspace} if workspace is not None else {},
        )


def _takes_any_context(create: Any) -> Any:
    """`create` taking, as its context, whatever `ToolContext.of` reads (also by the
    reference's keyword `conv_state`), so reference-style calls work on every tool."""
    func = create.__func__

    @functools.wraps(func)
    def create_with_any_context(
        cls: Any, context: Any = None, *args: Any, conv_state: Any = None, **params: Any
    ) -> Any:
        return func(
            cls, ToolContext.of(conv_state if context is None else context), *args, **params
        )

    create_with_any_context.takes_any_context = True  # type: ignore[attr-defined]
    return classmethod(create_with_any_context)


def _snake_name(class_name: str) -> str:
    """`TerminalTool` -> `terminal`, `BashAndGrepToolSet` -> `bash_and_grep_tool_set`."""
    spaced = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", spaced).lower()
    return snake.removesuffix("_tool") or snake


# Fields a tool class may set with a plain class attribute (`description = "..."`).
_CLASS_LEVEL_FIELDS: dict[str, Any] = {
    "description": str,
    "action_type": type[Action],
    "observation_type": type[Observation] | None,
    "annotations": ToolAnnotations | None,
    "meta": dict[str, Any] | None,
}


class _ToolMeta(ModelMetaclass):
    """Lets tool classes set fields with plain class attributes, as they always could."""

    def __new__(
        mcs, cls_name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> type:
        annotations = dict(namespace.get("__annotations__", {}))
        for name, annotation in _CLASS_LEVEL_FIELDS.items():
            if name not in namespace or name in annotations:
                continue
            if isinstance(namespace[name], property | classmethod | staticmethod | FunctionType):
                continue
            annotations[name] = annotation
        namespace["__annotations__"] = annotations
        return super().__new__(mcs, cls_name, bases, namespace, **kwargs)


class ToolDefinition(BaseModel, Generic[ActionT, ObservationT], metaclass=_ToolMeta):
    """A tool the agent can call: its name, description, Action model and executor.

    `name` is the snake_case class name without `Tool` (`TerminalTool.name == "terminal"`)
    unless the class sets it. Subclasses override `create` to build the tool for a
    conversation from a `ToolContext` and params, or `__call__` to run inline.
    """

    model_config = ConfigDict(
        defer_build=True, frozen=True, arbitrary_types_allowed=True, extra="forbid"
    )

    name: ClassVar[str] = ""

    description: str = Field(default="", description="What the tool does, for the LLM.")
    action_type: type[Action] = Field(default=Action, description="The arguments' model.")
    observation_type: type[Observation] | None = Field(
        default=None, description="The result's model (None: any Observation)."
    )
    annotations: ToolAnnotations | None = None
    meta: dict[str, Any] | None = None
    executor: SkipJsonSchema[Any] = Field(default=None, exclude=True, repr=False)
    response_schema: SkipJsonSchema[Any] = Field(default=None, exclude=True, repr=False)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = _snake_name(cls.__name__)
        create = cls.__dict__.get("create")
        if (
            isinstance(create, classmethod)
            and not getattr(create.__func__, "takes_any_context", False)
            and list(inspect.signature(create.__func__).parameters)[1:2] == ["context"]
        ):
            cls.create = _takes_any_context(create)  # type: ignore[method-assign]

    if not TYPE_CHECKING:

        def __class_getitem__(cls, params: Any) -> Any:
            # `ToolDefinition[A, O]` is for type checkers; no field depends on A or O, so at
            # run time it is the class itself (pydantic's parametrized subclasses would cost
            # a model build per tool class at import).
            return cls

    if TYPE_CHECKING:
        # `ToolDefinition(executor)` positionally, as before it became a model.
        def __init__(self, executor: Any = None, /, **data: Any) -> None: ...
    else:

        def __init__(self, executor: Any = None, /, **data: Any) -> None:
            if executor is not None:
                data["executor"] = executor
            super().__init__(**data)

    # -- JSON (the reference's shape: tool_json.py) -----------------------------------------

    @computed_field
    @property
    def kind(self) -> str:
        """The tool's class name: what its JSON is read back by."""
        return type(self).__name__

    @computed_field
    @property
    def title(self) -> str:
        """The annotations' title, or the tool's name."""
        if self.annotations is not None and self.annotations.title:
            return self.annotations.title
        return self.name

    @model_validator(mode="wrap")
    @classmethod
    def _by_kind(cls, data: Any, handler: Any) -> Any:
        from openhands.sdk.tool.tool_json import read_tool

        return read_tool(cls, data, handler)

    @field_validator("action_type", mode="before")
    @classmethod
    def _action_class(cls, value: Any) -> Any:
        from openhands.sdk.tool.tool_json import schema_class

        return schema_class(value, Action)

    @field_validator("observation_type", mode="before")
    @classmethod
    def _observation_class(cls, value: Any) -> Any:
        from openhands.sdk.tool.tool_json import schema_class

        return schema_class(value, Observation)

    @field_serializer("action_type")
    def _action_name(self, value: type[Action]) -> str:
        return value.__name__

    @field_serializer("observation_type")
    def _observation_name(self, value: type[Observation] | None) -> str | None:
        return None if value is None else value.__name__

    @field_validator("executor")
    @classmethod
    def _callable_executor(cls, value: Any) -> Any:
        if value is not None and not callable(value):
            raise ValueError(f"executor must be callable, got {type(value).__name__}")
        return value

    @field_validator("response_schema")
    @classmethod
    def _valid_response_schema(cls, value: Any) -> Any:
        if value is not None:
            from openhands.sdk.tool.response_schema import schema_json

            schema_json(value)
        return value

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls, context: ToolContext | Any = None, *, conv_state: Any = None, **params: Any
    ) -> Sequence[Self]:
        """Build this tool for one conversation; the default takes no params.

        `context` may also be the reference SDK's `conv_state` or nothing (`ToolContext.of`).
        """
        del context, conv_state  # the default tool needs no conversation
        if params:
            raise InvalidArgumentError(f"Tool {cls.name!r} takes no params, got {sorted(params)}")
        return [cls()]

    @classmethod
    def is_usable(cls) -> bool:
        """Whether the tool can work here (e.g. its program is installed); True by default."""
        return True

    def set_executor(self, executor: Any) -> Self:
        """A copy of this tool that runs with `executor`."""
        return self.model_copy(update={"executor": executor})

    def set_response_schema(self, response_schema: ResponseSchema | None) -> Self:
        """A copy whose calls must also fill `response_schema`'s fields (None removes it)."""
        from openhands.sdk.tool import response_schema as rs

        if response_schema is not None:
            own = set(self.action_type.model_json_schema().get("properties", {}))
            rs.check_response_schema(response_schema, own)
        return self.model_copy(update={"response_schema": response_schema})

    # -- the LLM's view ------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        """Who this tool is, in the reference SDK's `ToolDefinition` JSON: `kind` (the class
        name), `title`, `description`, `action_type` and `observation_type` (class names).

        A `SystemPromptEvent` records each tool as its LLM schema plus these keys, so the
        reference's clients can read this SDK's events.
        """
        return {
            "kind": type(self).__name__,
            "title": self.name,
            "description": self.description,
            "action_type": self.action_type.__name__,
            "observation_type": None
            if self.observation_type is None
            else (self.observation_type.__name__),
        }

    def declared_resources(self, action: Action) -> DeclaredResources:
        """What a call with `action` touches, so calls of one reply may run at the same time.

        By default nothing is declared and this tool's calls take turns; a tool whose calls
        share nothing returns `DeclaredResources(declared=True)`, one that touches files
        returns their keys (e.g. `file:/abs/path`).
        """
        return DeclaredResources()

    def to_openai_tool(
        self,
        add_security_risk_prediction: bool = False,
        action_type: type[Action] | None = None,
    ) -> dict[str, Any]:
        """The function schema given to the LLM, derived from `action_type`.

        With `add_security_risk_prediction`, a tool that is not read-only asks the LLM for a
        `security_risk` (LOW, MEDIUM, HIGH) too. A response schema's fields are merged in.
        """
        schema = (action_type or self.action_type).model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        read_only = self.annotations is not None and self.annotations.readOnlyHint
        if add_security_risk_prediction and not read_only:
            schema.setdefault("properties", {})["security_risk"] = dict(SECURITY_RISK_PROPERTY)
        if self.response_schema is not None:
            from openhands.sdk.tool.response_schema import merge_into

            schema = merge_into(schema, self.response_schema)
        with_summary(schema)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description or (type(self).__doc__ or "").strip(),
                "parameters": schema,
            },
        }

    def to_responses_tool(
        self,
        add_security_risk_prediction: bool = False,
        action_type: type[Action] | None = None,
    ) -> dict[str, Any]:
        """The same schema as `to_openai_tool`, in the Responses API's `function` tool shape
        (flat `name`, `description`, `parameters`; `strict` false)."""
        function = self.to_openai_tool(add_security_risk_prediction, action_type)["function"]
        return {
            "type": "function",
            "name": function["name"],
            "description": function["description"],
            "parameters": function["parameters"],
            "strict": False,
        }

    def to_mcp_tool(self) -> dict[str, Any]:
        """This tool in the MCP tool-listing shape (name, description, inputSchema...)."""
        function = self.to_openai_tool()["function"]
        parameters = function["parameters"]
        if not self.declares_summary():  # an MCP client calls the tool itself: no summary
            parameters["properties"].pop("summary", None)
        out: dict[str, Any] = {
            "name": self.name,
            "description": function["description"],
            "inputSchema": parameters,
        }
        if self.annotations is not None:
            out["annotations"] = self.annotations.model_dump(exclude_none=True)
        if self.meta is not None:
            out["_meta"] = self.meta
        return out

    # -- calls ---------------------------------------------------------------------------------

    def declares_summary(self) -> bool:
        """Whether `summary` is one of this tool's own arguments (then the agent leaves it in
        the call), rather than the summary asked of every call."""
        if "summary" in self.action_type.model_fields:
            return True
        schema = getattr(self.action_type, "input_schema", None)  # MCP and client tools
        return isinstance(schema, dict) and "summary" in (schema.get("properties") or {})

    def action_from_arguments(self, arguments: dict[str, Any]) -> Action:
        """The validated Action for the LLM's `arguments` (response-schema fields split off).

        Raises pydantic's ValidationError (a ValueError) when they do not fit.
        """
        from openhands.sdk.tool import response_schema as rs

        own, structured = rs.split_arguments(arguments, self.response_schema)
        action = self.action_type.model_validate(own)
        if structured is None:
            return action
        # model_copy, not assignment: some actions are frozen (MCPToolAction, as the reference's).
        return action.model_copy(update={"structured_output": structured})

    def parse_response(self, action: Action) -> BaseModel | dict[str, Any]:
        """The structured output `action` carried, as the response schema's model."""
        from openhands.sdk.tool import response_schema as rs

        if self.response_schema is None:
            raise InvalidArgumentError(f"Tool {self.name!r} has no response_schema")
        if action.structured_output is None:
            raise InvalidArgumentError(f"{type(action).__name__} carries no structured output")
        return rs.parse_output(self.response_schema, action.structured_output)

    def parse_last_response(self, events: Sequence[Any]) -> BaseModel | dict[str, Any] | None:
        """The structured output of this tool's latest call in `events`, or None."""
        from openhands.sdk.tool import response_schema as rs

        if self.response_schema is None:
            return None
        for event in reversed(events):
            if (
                isinstance(event, RecordedToolCall)
                and event.tool_name == self.name
                and event.action
            ):
                arguments = json.loads(event.tool_call.arguments or "{}")
                _, structured = rs.split_arguments(arguments, self.response_schema)
                return (
                    None
                    if structured is None
                    else rs.parse_output(self.response_schema, structured)
                )
        return None

    def __call__(self, action: Action, conversation: ToolConversation | None = None) -> Observation:
        """Run the action through this tool's executor; its answer is made an Observation
        (of `observation_type` when set): a dict or another model is validated into one, by
        its `kind` when no type is set. TypeError for any other answer."""
        if self.executor is None:
            raise NotImplementedError(f"Tool {self.name!r} has no executor")
        return _as_observation(self.executor(action, conversation), self.observation_type)

    def close(self) -> None:
        """Release resources held by the executor (processes, files)."""
        closer = getattr(self.executor, "close", None)
        if callable(closer):
            closer()

    def process_ids(self) -> list[int]:
        """The processes the executor keeps running between calls (`ToolExecutor`)."""
        names = getattr(self.executor, "process_ids", None)
        found = names() if callable(names) else []
        return [pid for pid in found if isinstance(pid, int)] if isinstance(found, list) else []


def _as_observation(result: Any, expected: type[Observation] | None) -> Observation:
    if isinstance(result, expected or Observation):
        return result
    if isinstance(result, BaseModel):
        result = result.model_dump()
    if not isinstance(result, dict):
        raise InvalidArgumentTypeError(
            f"Output must be dict or BaseModel (an Observation), got {type(result).__name__}"
        )
    if expected is not None:
        return expected.model_validate({k: v for k, v in result.items() if k != "kind"})
    from openhands.sdk.tool.schema import observation_from_data

    return observation_from_data(result)

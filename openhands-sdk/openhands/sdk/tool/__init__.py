"""Tools: the Action/Observation contract, definitions, the registry and built-ins."""

from typing import TYPE_CHECKING, Any

from openhands.sdk.tool.builtins import (
    BUILT_IN_TOOL_CLASSES,
    BUILT_IN_TOOLS,
    BUILTIN_TOOLS,
    FinishAction,
    FinishObservation,
    FinishTool,
    ThinkAction,
    ThinkObservation,
    ThinkTool,
)
from openhands.sdk.tool.registry import (
    InvalidToolSpecError,
    UnknownToolError,
    list_registered_tools,
    register_tool,
    registered_tools,
    resolve_tool,
)
from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.spec import Tool
from openhands.sdk.tool.tool import (
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)

if TYPE_CHECKING:
    from openhands.sdk.tool.client_tool import ClientTool, ClientToolObservation, ClientToolSpec
    from openhands.sdk.tool.unknown import UnknownAction, UnknownObservation

_CLIENT_TOOL_NAMES = ("ClientTool", "ClientToolObservation", "ClientToolSpec")

for _builtin in BUILT_IN_TOOLS:
    register_tool(_builtin.name, _builtin)


def __getattr__(name: str) -> Any:
    # Defined on first use: few programs read events whose tool classes are missing.
    if name in ("UnknownAction", "UnknownObservation"):
        from openhands.sdk.tool import unknown

        return getattr(unknown, name)
    if name in _CLIENT_TOOL_NAMES:  # client-defined tools: rarely used, loaded on demand
        from openhands.sdk.tool import client_tool

        return getattr(client_tool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUILTIN_TOOLS",
    "BUILT_IN_TOOLS",
    "BUILT_IN_TOOL_CLASSES",
    "Action",
    "ClientTool",
    "ClientToolObservation",
    "ClientToolSpec",
    "FinishAction",
    "FinishObservation",
    "FinishTool",
    "InvalidToolSpecError",
    "Observation",
    "ThinkAction",
    "ThinkObservation",
    "ThinkTool",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutor",
    "UnknownAction",
    "UnknownObservation",
    "UnknownToolError",
    "list_registered_tools",
    "register_tool",
    "registered_tools",
    "resolve_tool",
]

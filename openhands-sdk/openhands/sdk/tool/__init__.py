"""Tools: the Action/Observation contract, definitions, the registry and built-ins."""

from typing import TYPE_CHECKING

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
from openhands.sdk.tool.resources import DeclaredResources
from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.spec import Tool
from openhands.sdk.tool.tool import (
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.tool.client_tool import (
        ClientTool,
        ClientToolObservation,
        ClientToolRegistrationError,
        ClientToolSpec,
        register_client_tools,
    )
    from openhands.sdk.tool.unknown import UnknownAction, UnknownObservation

for _builtin in BUILT_IN_TOOLS:
    register_tool(_builtin.name, _builtin)


# Defined on first use: few programs read events whose tool classes are missing, and few
# define client tools.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "UnknownAction": "openhands.sdk.tool.unknown",
        "UnknownObservation": "openhands.sdk.tool.unknown",
        "ClientTool": "openhands.sdk.tool.client_tool",
        "ClientToolObservation": "openhands.sdk.tool.client_tool",
        "ClientToolSpec": "openhands.sdk.tool.client_tool",
        "ClientToolRegistrationError": "openhands.sdk.tool.client_tool",
        "register_client_tools": "openhands.sdk.tool.client_tool",
    },
)


__all__ = [
    "BUILTIN_TOOLS",
    "BUILT_IN_TOOLS",
    "BUILT_IN_TOOL_CLASSES",
    "Action",
    "ClientTool",
    "ClientToolObservation",
    "ClientToolRegistrationError",
    "ClientToolSpec",
    "DeclaredResources",
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
    "register_client_tools",
    "register_tool",
    "registered_tools",
    "resolve_tool",
]

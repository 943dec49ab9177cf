"""Tools: the Action/Observation contract, definitions, the registry and built-ins."""

from openhands.sdk.tool.builtins import (
    BUILTIN_TOOLS,
    FinishAction,
    FinishTool,
    ThinkAction,
    ThinkTool,
)
from openhands.sdk.tool.registry import (
    InvalidToolSpecError,
    UnknownToolError,
    register_tool,
    registered_tools,
    resolve_tool,
)
from openhands.sdk.tool.tool import (
    Action,
    Observation,
    Tool,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)

for _builtin in BUILTIN_TOOLS:
    register_tool(_builtin.name, _builtin)

__all__ = [
    "Action",
    "FinishAction",
    "FinishTool",
    "InvalidToolSpecError",
    "Observation",
    "ThinkAction",
    "ThinkTool",
    "Tool",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutor",
    "UnknownToolError",
    "register_tool",
    "registered_tools",
    "resolve_tool",
]

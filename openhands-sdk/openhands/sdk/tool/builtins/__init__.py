"""Built-in tools every agent may have: `finish` ends a run, `think` records a thought.

`BUILT_IN_TOOL_CLASSES` maps class names to classes: the names `Agent(include_default_tools=
[...])` takes.
"""

from openhands.sdk.tool.builtins.finish import (
    FinishAction,
    FinishExecutor,
    FinishObservation,
    FinishTool,
)
from openhands.sdk.tool.builtins.think import (
    ThinkAction,
    ThinkExecutor,
    ThinkObservation,
    ThinkTool,
)
from openhands.sdk.tool.tool import ToolDefinition

BUILT_IN_TOOLS: list[type[ToolDefinition]] = [FinishTool, ThinkTool]
"""The tools an agent gets by default."""

BUILT_IN_TOOL_CLASSES: dict[str, type[ToolDefinition]] = {
    tool.__name__: tool for tool in BUILT_IN_TOOLS
}
"""Built-in tool classes by class name."""

BUILTIN_TOOLS: tuple[type[ToolDefinition], ...] = tuple(BUILT_IN_TOOLS)
"""The same tools as `BUILT_IN_TOOLS` (this SDK's earlier name)."""

__all__ = [
    "BUILTIN_TOOLS",
    "BUILT_IN_TOOLS",
    "BUILT_IN_TOOL_CLASSES",
    "FinishAction",
    "FinishExecutor",
    "FinishObservation",
    "FinishTool",
    "ThinkAction",
    "ThinkExecutor",
    "ThinkObservation",
    "ThinkTool",
]

"""Built-in tools every agent may have: `finish` ends a run, `think` records a thought, and
the opt-in `switch_llm` moves the agent to another saved LLM profile.

`BUILT_IN_TOOL_CLASSES` maps class names to classes: the names `Agent(include_default_tools=
[...])` takes (`BUILT_IN_TOOLS` are the default ones).
"""

from openhands.sdk.tool.builtins.finish import (
    FinishAction,
    FinishExecutor,
    FinishObservation,
    FinishTool,
)
from openhands.sdk.tool.builtins.switch_llm import (
    SwitchLLMAction,
    SwitchLLMExecutor,
    SwitchLLMObservation,
    SwitchLLMTool,
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

OPTIONAL_BUILT_IN_TOOLS: list[type[ToolDefinition]] = [SwitchLLMTool]
"""Built-in tools an agent gets only when `include_default_tools` names them."""

BUILT_IN_TOOL_CLASSES: dict[str, type[ToolDefinition]] = {
    tool.__name__: tool for tool in [*BUILT_IN_TOOLS, *OPTIONAL_BUILT_IN_TOOLS]
}
"""Built-in tool classes by class name."""

BUILTIN_TOOLS: tuple[type[ToolDefinition], ...] = tuple(BUILT_IN_TOOLS)
"""The same tools as `BUILT_IN_TOOLS` (this SDK's earlier name)."""

__all__ = [
    "BUILTIN_TOOLS",
    "BUILT_IN_TOOLS",
    "BUILT_IN_TOOL_CLASSES",
    "OPTIONAL_BUILT_IN_TOOLS",
    "FinishAction",
    "FinishExecutor",
    "FinishObservation",
    "FinishTool",
    "SwitchLLMAction",
    "SwitchLLMExecutor",
    "SwitchLLMObservation",
    "SwitchLLMTool",
    "ThinkAction",
    "ThinkExecutor",
    "ThinkObservation",
    "ThinkTool",
]

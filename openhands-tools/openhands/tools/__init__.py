"""Tools for coding agents: `terminal`, `file_editor`, `task_tracker`, and sub-agents
(`task`, `delegate`, `workflow`), plus the default presets.

The tools are declared in this package's `openhands.tools` entry points (pyproject.toml), so
`Tool(name="terminal")` and `{"name": "TerminalTool"}` resolve through
`openhands.sdk.tool.resolve_tool` without importing this package first. Importing it stays
cheap: no litellm, no rich, no processes; a shell starts on a conversation's first terminal
command.
"""

from openhands.tools.delegate import DelegateTool, DelegationVisualizer
from openhands.tools.file_editor import FileEditorTool
from openhands.tools.preset.default import (
    get_default_agent,
    get_default_tools,
    register_builtins_agents,
    register_default_tools,
)
from openhands.tools.task import TaskTool, TaskToolSet
from openhands.tools.task_tracker import TaskTrackerTool
from openhands.tools.terminal import TerminalTool
from openhands.tools.workflow import WorkflowTool, WorkflowToolSet

__all__ = [
    "DelegateTool",
    "DelegationVisualizer",
    "FileEditorTool",
    "TaskTool",
    "TaskToolSet",
    "TaskTrackerTool",
    "TerminalTool",
    "WorkflowTool",
    "WorkflowToolSet",
    "get_default_agent",
    "get_default_tools",
    "register_builtins_agents",
    "register_default_tools",
]

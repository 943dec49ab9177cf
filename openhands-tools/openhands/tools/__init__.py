"""Tools for coding agents: `terminal`, `file_editor`, `task_tracker`, and sub-agents
(`task`, `delegate`, `workflow`), plus the default presets.

The tools are declared in this package's `openhands.tools` entry points (pyproject.toml), so
`Tool(name="terminal")` and `{"name": "TerminalTool"}` resolve through
`openhands.sdk.tool.resolve_tool` without importing this package first. Importing it stays
cheap: no litellm, no rich, no processes; a shell starts on a conversation's first terminal
command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
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

# Each name loads its own tool on first use: a process that needs one tool (the server's
# sandbox self-check needs the terminal) does not import the others and the presets.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DelegateTool": "openhands.tools.delegate",
        "DelegationVisualizer": "openhands.tools.delegate",
        "FileEditorTool": "openhands.tools.file_editor",
        "TaskTool": "openhands.tools.task",
        "TaskToolSet": "openhands.tools.task",
        "TaskTrackerTool": "openhands.tools.task_tracker",
        "TerminalTool": "openhands.tools.terminal",
        "WorkflowTool": "openhands.tools.workflow",
        "WorkflowToolSet": "openhands.tools.workflow",
        "get_default_agent": "openhands.tools.preset.default",
        "get_default_tools": "openhands.tools.preset.default",
        "register_builtins_agents": "openhands.tools.preset.default",
        "register_default_tools": "openhands.tools.preset.default",
    },
)

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

"""Tools for coding agents: `terminal`, `file_editor` and `task` (sub-agents).

The tools are declared in this package's `openhands.tools` entry points (pyproject.toml), so
`Tool(name="terminal")` and `{"name": "TerminalTool"}` resolve through
`openhands.sdk.tool.resolve_tool` without importing this package first. Importing it stays
cheap: no litellm, no processes; a shell starts on a conversation's first terminal command.
"""

from openhands.tools.file_editor import FileEditorTool
from openhands.tools.task import TaskTool, TaskToolSet
from openhands.tools.terminal import TerminalTool

__all__ = ["FileEditorTool", "TaskTool", "TaskToolSet", "TerminalTool"]

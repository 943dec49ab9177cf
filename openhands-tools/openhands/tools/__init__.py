"""Tools for coding agents: `terminal`, `file_editor` and `task` (sub-agents).

Importing this package registers the tools, so `Tool(name="terminal")` and
`{"name": "TerminalTool"}` resolve through `openhands.sdk.tool.resolve_tool`. It stays cheap:
no litellm, no processes; a shell starts on a conversation's first terminal command.
"""

from openhands.sdk.tool import register_tool
from openhands.tools.file_editor import FileEditorTool
from openhands.tools.task import TaskTool, TaskToolSet
from openhands.tools.terminal import TerminalTool

register_tool(TerminalTool.name, TerminalTool)
register_tool(FileEditorTool.name, FileEditorTool)
register_tool(TaskTool.name, TaskTool)
register_tool(TaskToolSet.name, TaskToolSet.create)

__all__ = ["FileEditorTool", "TaskTool", "TaskToolSet", "TerminalTool"]

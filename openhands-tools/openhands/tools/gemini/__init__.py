"""Gemini-style file tools: `read_file`, `write_file`, `edit`, `list_directory`.

The file tools Gemini models are trained on (gemini-cli's), an alternative to `file_editor`:
`Agent(tools=[Tool(name="terminal"), *GEMINI_FILE_TOOLS])`. Paths are relative to the
workspace (absolute ones must lie inside it); writes replace files atomically.
"""

from openhands.sdk.tool import Tool
from openhands.tools.gemini.edit import EditAction, EditObservation, EditTool
from openhands.tools.gemini.list_directory import (
    FileEntry,
    ListDirectoryAction,
    ListDirectoryObservation,
    ListDirectoryTool,
)
from openhands.tools.gemini.read_file import ReadFileAction, ReadFileObservation, ReadFileTool
from openhands.tools.gemini.write_file import WriteFileAction, WriteFileObservation, WriteFileTool

GEMINI_FILE_TOOLS: list[Tool] = [
    Tool(name=ReadFileTool.name),
    Tool(name=WriteFileTool.name),
    Tool(name=EditTool.name),
    Tool(name=ListDirectoryTool.name),
]
"""The four tools, to put where `Tool(name="file_editor")` would be."""

__all__ = [
    "GEMINI_FILE_TOOLS",
    "EditAction",
    "EditObservation",
    "EditTool",
    "FileEntry",
    "ListDirectoryAction",
    "ListDirectoryObservation",
    "ListDirectoryTool",
    "ReadFileAction",
    "ReadFileObservation",
    "ReadFileTool",
    "WriteFileAction",
    "WriteFileObservation",
    "WriteFileTool",
]

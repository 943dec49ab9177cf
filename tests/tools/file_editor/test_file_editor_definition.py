"""The file_editor tool as the agent gets it: its description and the files it declares."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.tool import DeclaredResources, Tool, ToolContext, resolve_tool
from openhands.tools.file_editor import FileEditorAction


def _tool(workspace: Path):
    [tool] = resolve_tool(Tool(name="file_editor"), ToolContext(working_dir=str(workspace)))
    return tool


def test_the_description_names_the_working_directory(workspace: Path) -> None:
    assert f"Your current working directory is: {workspace}" in _tool(workspace).description


def test_each_command_declares_the_file_it_touches_relative_paths_in_the_workspace(
    workspace: Path,
) -> None:
    tool = _tool(workspace)

    view = tool.declared_resources(FileEditorAction(command="view", path="src/a.py"))
    edit = tool.declared_resources(
        FileEditorAction(command="str_replace", path=str(workspace / "src" / "a.py"))
    )
    other = tool.declared_resources(FileEditorAction(command="create", path="b.py"))

    assert view == edit == DeclaredResources(keys=(f"file:{workspace}/src/a.py",), declared=True)
    assert other.keys == (f"file:{workspace}/b.py",)

"""The tools resolve by name through the SDK registry and show the agreed action fields."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openhands.tools
import pytest
from openhands.sdk.tool import Tool, ToolContext, resolve_tool


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("terminal", "terminal"),
        ("TerminalTool", "terminal"),
        ("file_editor", "file_editor"),
        ("FileEditorTool", "file_editor"),
        ("task", "task"),
        ("TaskTool", "task"),
        ("TaskToolSet", "task"),
        ("task_tracker", "task_tracker"),
        ("TaskTrackerTool", "task_tracker"),
        ("delegate", "delegate"),
        ("DelegateTool", "delegate"),
        ("workflow", "workflow"),
        ("WorkflowToolSet", "workflow"),
        ("glob", "glob"),
        ("grep", "grep"),
        ("planning_file_editor", "planning_file_editor"),
    ],
)
def test_tool_resolves_by_name_and_class_name(name: str, expected: str, tmp_path: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(tmp_path)))
    assert tool.name == expected
    tool.close()


def test_task_tool_set_name_resolves_to_the_task_tool(tmp_path: Path) -> None:
    from openhands.tools.task import TaskToolSet

    [tool] = resolve_tool(Tool(name=TaskToolSet.name), ToolContext(working_dir=str(tmp_path)))
    assert tool.name == "task"


def test_dict_spec_resolves_too(tmp_path: Path) -> None:
    [tool] = resolve_tool({"name": "TerminalTool"}, ToolContext(working_dir=str(tmp_path)))
    assert tool.name == "terminal"


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("terminal", {"command", "is_input", "timeout", "reset", "summary"}),
        (
            "file_editor",
            {"command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range"}
            | {"summary"},
        ),
        ("task", {"prompt", "description", "subagent_type", "resume", "summary"}),
    ],
)
def test_action_schema_has_the_agreed_fields(name: str, fields: set[str], tmp_path: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(tmp_path)))
    schema = tool.to_openai_tool()["function"]
    assert set(schema["parameters"]["properties"]) == fields
    assert schema["description"]


def test_unknown_params_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timeout"):
        resolve_tool(Tool(name="terminal", params={"tiemout": 5}), ToolContext(str(tmp_path)))


@pytest.mark.parametrize(
    ("name", "params", "named"),
    [
        ("terminal", {"timeout": -1}, "timeout"),
        ("terminal", {"max_output_chars": 0}, "max_output_chars"),
        ("terminal", {"env": {"A": 1}}, "env.A"),
        ("task", {"max_iterations": 0}, "max_iterations"),
        ("task", {"max_iterations": "many"}, "max_iterations"),
    ],
)
def test_bad_param_values_are_refused_naming_the_param(
    tmp_path: Path, name: str, params: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=f"Bad {name} params \\({named}:"):
        resolve_tool(Tool(name=name, params=params), ToolContext(str(tmp_path)))


def test_terminal_params_are_applied(tmp_path: Path) -> None:
    spec = Tool(name="terminal", params={"timeout": 5, "max_output_chars": 100})
    [tool] = resolve_tool(spec, ToolContext(working_dir=str(tmp_path)))
    executor = tool.executor
    assert getattr(executor, "default_timeout", None) == 5
    assert getattr(executor, "max_output_chars", None) == 100


def test_importing_the_tools_does_not_import_litellm() -> None:
    code = "import sys, openhands.tools, openhands.tools.preset; sys.exit('litellm' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60, check=False).returncode == 0


def test_openhands_is_a_namespace_package() -> None:
    package_dir = Path(openhands.tools.__file__).parent
    assert not (package_dir.parent / "__init__.py").exists()


def test_tools_resolve_by_name_without_importing_the_tools_package() -> None:
    code = (
        "import sys\n"
        "from openhands.sdk.tool import Tool, ToolContext, resolve_tool\n"
        "assert 'openhands.tools' not in sys.modules, 'the SDK imported the tools'\n"
        "[a] = resolve_tool(Tool(name='terminal'), ToolContext(working_dir='.'))\n"
        "[b] = resolve_tool({'name': 'TerminalTool'}, ToolContext(working_dir='.'))\n"
        "[c] = resolve_tool({'name': 'TaskToolSet'}, ToolContext(working_dir='.'))\n"
        "print(a.name, b.name, c.name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["terminal", "terminal", "task"]


def test_the_tools_are_declared_as_entry_points() -> None:
    from importlib.metadata import entry_points

    declared = {entry.name for entry in entry_points(group="openhands.tools")}

    assert {"terminal", "TerminalTool", "file_editor", "FileEditorTool", "task"} <= declared
    assert {
        "task_tracker",
        "delegate",
        "workflow",
        "workflow_tool_set",
        "WorkflowToolSet",
    } <= declared
    assert {"glob", "grep", "planning_file_editor"} <= declared

"""The planning file editor: it views anything and edits only the plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.tool import Tool, ToolContext, resolve_tool
from openhands.tools.file_editor import FileEditorAction
from openhands.tools.planning_file_editor import PlanningFileEditorTool
from openhands.tools.preset.planning import plan_headers


def _tool(workspace: Path, **params: str) -> PlanningFileEditorTool:
    [tool] = resolve_tool(
        Tool(name="planning_file_editor", params=params), ToolContext(working_dir=str(workspace))
    )
    assert isinstance(tool, PlanningFileEditorTool)
    return tool


def test_building_it_writes_the_plan_headers(workspace: Path) -> None:
    _tool(workspace)
    plan = workspace / ".agents_tmp" / "PLAN.md"
    assert plan.read_text(encoding="utf-8") == plan_headers()
    assert "# 1. OBJECTIVE" in plan_headers()


def test_an_existing_plan_is_kept(workspace: Path) -> None:
    plan = workspace / ".agents_tmp" / "PLAN.md"
    plan.parent.mkdir()
    plan.write_text("my plan", encoding="utf-8")
    _tool(workspace)
    assert plan.read_text(encoding="utf-8") == "my plan"


def test_the_plan_can_be_edited(workspace: Path) -> None:
    tool = _tool(workspace)
    action = FileEditorAction(
        command="str_replace",
        path=".agents_tmp/PLAN.md",
        old_str="# 1. OBJECTIVE\n",
        new_str="# 1. OBJECTIVE\nShip it.\n",
    )
    observation = tool(action)
    assert not observation.is_error, observation.text
    assert "Ship it." in (workspace / ".agents_tmp" / "PLAN.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["create", "str_replace", "insert", "undo_edit"])
def test_editing_any_other_file_is_refused(workspace: Path, command: str) -> None:
    (workspace / "app.py").write_text("x = 1\n", encoding="utf-8")
    tool = _tool(workspace)
    action = FileEditorAction.model_validate(
        {
            "command": command,
            "path": "app.py" if command != "create" else "new.py",
            "file_text": "y",
            "old_str": "x",
            "new_str": "y",
            "insert_line": 0,
        }
    )
    observation = tool(action)
    assert observation.is_error and "only the plan" in observation.text
    assert (workspace / "app.py").read_text(encoding="utf-8") == "x = 1\n"
    assert not (workspace / "new.py").exists()


def test_any_file_can_be_viewed(workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n", encoding="utf-8")
    observation = _tool(workspace)(FileEditorAction(command="view", path="app.py"))
    assert not observation.is_error and "x = 1" in observation.text


def test_a_custom_plan_path_must_be_absolute(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"plan_path must be an absolute path, got: plans/PLAN.md"):
        _tool(workspace, plan_path="plans/PLAN.md")
    custom = tmp_path / "plans" / "PLAN.md"
    tool = _tool(workspace, plan_path=str(custom))
    assert custom.read_text(encoding="utf-8") == plan_headers()
    assert str(custom) in tool.to_openai_tool()["function"]["description"]

"""Tools declared by installed packages (`openhands.tools` entry points) resolve by name.

Each test runs a fresh interpreter with a small package installed into a temporary folder on
its path (a module plus a `.dist-info` with `entry_points.txt`), as pip would install it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TOOL_MODULE = """
from openhands.sdk.tool import Action, Observation, ToolDefinition, register_tool

class GreetAction(Action):
    name: str = ""

class GreetTool(ToolDefinition):
    description = "Greet someone."
    action_type = GreetAction

    def __call__(self, action, conversation=None):
        return Observation(content="hello " + action.name)

def make_greeters(context, **params):
    return [GreetTool()]

register_tool("self_registered", GreetTool)
"""


def _install(site: Path, entry_points: dict[str, str]) -> None:
    (site / "greet_tools.py").write_text(TOOL_MODULE)
    info = site / "greet_tools-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: greet-tools\nVersion: 1.0\n")
    lines = [f"{name} = {target}" for name, target in entry_points.items()]
    (info / "entry_points.txt").write_text("[openhands.tools]\n" + "\n".join(lines) + "\n")


def _run(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_declared_tool_class_is_loaded_on_first_resolve(tmp_path: Path) -> None:
    _install(tmp_path, {"greet": "greet_tools:GreetTool"})

    done = _run(
        tmp_path,
        """
        import sys
        from openhands.sdk.tool import Tool, ToolContext, registered_tools, resolve_tool
        assert "greet" in registered_tools()
        assert "greet_tools" not in sys.modules
        [tool] = resolve_tool(Tool(name="greet"), ToolContext(working_dir="."))
        [again] = resolve_tool({"name": "GreetTool"}, ToolContext(working_dir="."))
        print(type(tool).__name__, type(again).__name__)
        """,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["GreetTool", "GreetTool"]


def test_a_declared_factory_is_used_as_the_tool_factory(tmp_path: Path) -> None:
    _install(tmp_path, {"greeters": "greet_tools:make_greeters"})

    done = _run(
        tmp_path,
        """
        from openhands.sdk.tool import Tool, ToolContext, resolve_tool
        [tool] = resolve_tool(Tool(name="greeters"), ToolContext(working_dir="."))
        print(tool.name)
        """,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "greet"


def test_a_declared_module_that_registers_its_tool_works(tmp_path: Path) -> None:
    _install(tmp_path, {"self_registered": "greet_tools"})

    done = _run(
        tmp_path,
        """
        from openhands.sdk.tool import Tool, ToolContext, resolve_tool
        [tool] = resolve_tool(Tool(name="self_registered"), ToolContext(working_dir="."))
        print(tool.name)
        """,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "greet"


def test_a_broken_entry_point_is_an_unknown_tool_with_a_warning(tmp_path: Path) -> None:
    _install(tmp_path, {"broken": "greet_tools:NoSuchThing"})

    done = _run(
        tmp_path,
        """
        from openhands.sdk.tool import Tool, ToolContext, resolve_tool
        from openhands.sdk.tool.registry import UnknownToolError
        try:
            resolve_tool(Tool(name="broken"), ToolContext(working_dir="."))
        except UnknownToolError as exc:
            print("unknown:", exc)
        """,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("unknown: No tool registered as 'broken'")
    assert "failed to load" in done.stderr

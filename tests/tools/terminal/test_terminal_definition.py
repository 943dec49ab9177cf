"""`TerminalTool.create` with a shared executor, and what a `TerminalObservation` holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.llm import TextContent
from openhands.sdk.tool import InvalidToolSpecError, Tool, ToolContext, resolve_tool
from openhands.tools.terminal import (
    TerminalAction,
    TerminalExecutor,
    TerminalObservation,
    TerminalTool,
)


def test_create_uses_a_given_executor(workspace: Path) -> None:
    shared = TerminalExecutor(str(workspace))
    try:
        [tool] = TerminalTool.create(ToolContext(working_dir=str(workspace)), executor=shared)

        assert tool.executor is shared
        assert isinstance(tool, TerminalTool) and tool.name == "terminal"
    finally:
        shared.close()


def test_params_are_still_checked_when_an_executor_is_given(workspace: Path) -> None:
    shared = TerminalExecutor(str(workspace))
    try:
        with pytest.raises(ValueError, match="tiemout"):
            TerminalTool.create(ToolContext(working_dir=str(workspace)), executor=shared, tiemout=3)
    finally:
        shared.close()


def test_text_is_the_output_and_the_llm_also_reads_the_notes(
    terminal: TerminalExecutor, workspace: Path
) -> None:
    observation = terminal(TerminalAction(command="echo one; echo two"))

    assert isinstance(observation, TerminalObservation)
    assert observation.text == "one\ntwo"
    assert observation.notes == [f"Exit code: 0. Working directory: {workspace}"]
    [shown] = observation.to_llm_content
    assert isinstance(shown, TextContent)
    assert shown.text == f"one\ntwo\n[Exit code: 0. Working directory: {workspace}]"


def test_a_spec_cannot_pass_an_executor_as_a_param(workspace: Path) -> None:
    spec = Tool(name="terminal", params={"executor": "bash"})

    with pytest.raises(InvalidToolSpecError):
        [tool] = resolve_tool(spec, ToolContext(working_dir=str(workspace)))
        tool.close()

"""Terminal params from the reference SDK: `no_change_timeout_seconds` and `username`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.llm import TextContent
from openhands.sdk.tool import Observation, Tool, ToolContext, resolve_tool
from openhands.tools.terminal import TerminalAction, TerminalExecutor, TerminalObservation


@pytest.fixture
def quiet_terminal(workspace: Path) -> Iterator[TerminalExecutor]:
    """A terminal that returns after 0.5 s without new output (default timeout 30 s)."""
    executor = TerminalExecutor(str(workspace), default_timeout=30, no_change_timeout_seconds=0.5)
    yield executor
    executor.close()


def shown(observation: Observation) -> str:
    """The text the LLM reads for `observation` (the output, then the notes)."""
    return "".join(p.text for p in observation.to_llm_content if isinstance(p, TextContent))


def run(terminal: TerminalExecutor, command: str, **fields: object) -> TerminalObservation:
    return terminal(TerminalAction(command=command, **fields))  # type: ignore[arg-type]


def test_a_command_whose_output_stops_returns_and_keeps_running(
    quiet_terminal: TerminalExecutor,
) -> None:
    obs = run(quiet_terminal, "echo first; sleep 30; echo never")

    assert obs.timed_out and obs.exit_code is None
    assert "first" in shown(obs)
    assert "no new output for 0.5 s" in shown(obs)
    interrupted = run(quiet_terminal, "C-c", is_input=True, timeout=30)
    assert interrupted.exit_code == 130


def test_waiting_for_more_also_returns_when_the_output_stops(
    quiet_terminal: TerminalExecutor,
) -> None:
    run(quiet_terminal, "sleep 30")

    more = run(quiet_terminal, "", is_input=True)

    assert more.timed_out
    assert "no new output" in shown(more)
    run(quiet_terminal, "C-c", is_input=True, timeout=30)


def test_an_explicit_timeout_is_waited_in_full(quiet_terminal: TerminalExecutor) -> None:
    obs = run(quiet_terminal, "sleep 1.5; echo done", timeout=30)

    assert obs.exit_code == 0
    assert "done" in shown(obs)


def test_the_param_is_accepted_in_a_tool_spec(workspace: Path) -> None:
    spec = Tool(name="terminal", params={"no_change_timeout_seconds": 3})

    [tool] = resolve_tool(spec, ToolContext(working_dir=str(workspace)))

    assert getattr(tool.executor, "no_change_timeout_seconds", None) == 3


def test_an_unknown_username_is_refused_when_the_tool_is_built(workspace: Path) -> None:
    spec = Tool(name="terminal", params={"username": "no-such-user-4f2a"})

    with pytest.raises(ValueError, match=r"username: .*no user 'no-such-user-4f2a'"):
        resolve_tool(spec, ToolContext(working_dir=str(workspace)))


@pytest.mark.parametrize("name", ["INVALID-NAME", "1ST", "A B", ""])
def test_an_env_name_bash_cannot_read_is_refused_when_the_tool_is_built(
    workspace: Path, name: str
) -> None:
    spec = Tool(name="terminal", params={"env": {"GOOD_1": "x", name: "value"}})

    with pytest.raises(ValueError, match=r"env: .*Invalid terminal environment variable name"):
        resolve_tool(spec, ToolContext(working_dir=str(workspace)))


def test_env_names_bash_reads_reach_the_shell(workspace: Path) -> None:
    spec = Tool(name="terminal", params={"env": {"_PLAIN": "one", "Mixed_2": "two"}})
    [tool] = resolve_tool(spec, ToolContext(working_dir=str(workspace)))
    try:
        observation = tool(TerminalAction(command='echo "$_PLAIN-$Mixed_2"'))
        assert "one-two" in shown(observation)
    finally:
        tool.executor.close()  # type: ignore[union-attr]


@pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root")
def test_the_shell_runs_as_the_named_user(workspace: Path) -> None:
    spec = Tool(name="terminal", params={"username": "nobody"})
    [tool] = resolve_tool(spec, ToolContext(working_dir=str(workspace)))
    try:
        obs = tool(TerminalAction(command='id -un; echo "$HOME"'))
    finally:
        tool.close()

    assert isinstance(obs, TerminalObservation)
    assert shown(obs).splitlines()[:2] == ["nobody", "/nonexistent"]
    assert obs.exit_code == 0

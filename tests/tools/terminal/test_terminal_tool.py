"""The terminal tool against a real bash: state, timeouts, interrupts, input, truncation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from child_processes import Sleeper
from openhands.sdk.llm import TextContent
from openhands.sdk.tool import Observation
from openhands.tools.terminal import TerminalAction, TerminalExecutor


def shown(observation: Observation) -> str:
    """The text the LLM reads for `observation` (the output, then the notes)."""
    return "".join(p.text for p in observation.to_llm_content if isinstance(p, TextContent))


def run(terminal: TerminalExecutor, command: str, **fields: object):
    return terminal(TerminalAction(command=command, **fields))  # type: ignore[arg-type]


def test_commands_run_in_the_workspace(terminal: TerminalExecutor, workspace: Path) -> None:
    obs = run(terminal, "pwd")
    assert shown(obs).splitlines()[0] == str(workspace)
    assert obs.working_dir == str(workspace)


def test_cd_and_exported_variables_persist_between_calls(
    terminal: TerminalExecutor, workspace: Path
) -> None:
    (workspace / "sub").mkdir()
    run(terminal, "cd sub && export GREETING=hello-there")
    obs = run(terminal, 'echo "$GREETING"; pwd')
    assert shown(obs).splitlines()[:2] == ["hello-there", str(workspace / "sub")]


def test_exit_code_is_reported(terminal: TerminalExecutor) -> None:
    obs = run(terminal, "echo partial; (exit 7)")
    assert obs.exit_code == 7
    assert "partial" in shown(obs)
    assert "Exit code: 7" in shown(obs)
    assert not obs.is_error


def test_multiline_script_with_heredoc_runs_as_one_command(terminal: TerminalExecutor) -> None:
    obs = run(terminal, "X=1\ncat <<'EOF'\nliteral $X\nEOF\necho \"expanded $X\"")
    assert shown(obs).splitlines()[:2] == ["literal $X", "expanded 1"]
    assert obs.exit_code == 0


GATED = "echo started; until [ -e gate ]; do sleep 0.05; done; echo finished"


def test_timeout_returns_partial_output_and_leaves_command_running(
    terminal: TerminalExecutor,
) -> None:
    first = run(terminal, GATED, timeout=1)
    assert first.timed_out
    assert first.exit_code is None
    assert "still running" in shown(first)
    seen = shown(first)
    for _ in range(100):  # the gate is shut, so every wait times out; gather the output
        if "started" in seen:
            break
        more = run(terminal, "", is_input=True, timeout=0.5)
        assert more.timed_out
        seen += shown(more)
    assert "started" in seen
    assert "finished" not in seen


def test_waiting_after_a_timeout_collects_only_the_new_output(
    terminal: TerminalExecutor, workspace: Path
) -> None:
    seen = shown(run(terminal, GATED, timeout=1))
    while "started" not in seen:
        seen += shown(run(terminal, "", is_input=True, timeout=0.5))
    (workspace / "gate").touch()
    last = run(terminal, "", is_input=True, timeout=30)
    assert "finished" in shown(last)
    assert "started" not in shown(last)
    assert last.exit_code == 0


def test_ctrl_c_interrupts_a_running_sleep(terminal: TerminalExecutor) -> None:
    assert run(terminal, "sleep 60; echo not-reached", timeout=0.3).timed_out
    obs = run(terminal, "C-c", is_input=True, timeout=30)
    assert not obs.timed_out
    assert obs.exit_code == 130
    assert "not-reached" not in shown(obs)


def test_session_still_works_after_an_interrupted_timeout(terminal: TerminalExecutor) -> None:
    run(terminal, "export KEPT=yes; sleep 60", timeout=0.3)
    run(terminal, "C-c", is_input=True, timeout=30)
    obs = run(terminal, "echo $KEPT")
    assert shown(obs).splitlines()[0] == "yes"
    assert obs.exit_code == 0


def test_new_command_while_one_is_running_is_refused(terminal: TerminalExecutor) -> None:
    run(terminal, "sleep 60", timeout=0.3)
    obs = run(terminal, "echo second")
    assert obs.is_error
    assert "NOT run" in shown(obs)
    run(terminal, "C-c", is_input=True, timeout=30)


def test_input_text_goes_to_the_running_command(terminal: TerminalExecutor) -> None:
    assert run(terminal, "read answer; echo got-$answer", timeout=0.3).timed_out
    obs = run(terminal, "forty-two", is_input=True, timeout=30)
    assert "got-forty-two" in shown(obs)
    assert obs.exit_code == 0


def test_input_without_a_running_command_is_an_error(terminal: TerminalExecutor) -> None:
    obs = run(terminal, "hello", is_input=True)
    assert obs.is_error
    assert "No command is running" in shown(obs)


def test_empty_command_is_an_error(terminal: TerminalExecutor) -> None:
    obs = run(terminal, "   ")
    assert obs.is_error


def test_long_output_is_truncated_keeping_head_and_tail(workspace: Path) -> None:
    terminal = TerminalExecutor(str(workspace), max_output_chars=2000)
    try:
        obs = run(terminal, "seq 1 200000")
    finally:
        terminal.close()
    lines = shown(obs).splitlines()
    assert lines[:3] == ["1", "2", "3"]
    assert "200000" in lines
    assert "output truncated" in shown(obs)
    assert len(shown(obs)) < 3000
    assert obs.exit_code == 0


def test_ansi_colour_codes_are_stripped(terminal: TerminalExecutor) -> None:
    obs = run(terminal, r"printf '\033[1;31mred\033[0m plain\n'")
    assert shown(obs).splitlines()[0] == "red plain"
    assert "\x1b" not in shown(obs)


def test_exit_ends_the_shell_and_the_next_command_gets_a_new_one(
    terminal: TerminalExecutor, workspace: Path
) -> None:
    run(terminal, "cd / && exit 3")
    obs = run(terminal, "pwd")
    assert obs.exit_code == 0
    assert str(workspace) in shown(obs).splitlines()[0]
    assert "new shell" in shown(obs)


def test_close_kills_background_processes(workspace: Path, sleeper: Sleeper) -> None:
    terminal = TerminalExecutor(str(workspace))
    run(terminal, f"{sleeper.command} &")
    assert sleeper.started()
    terminal.close()
    assert sleeper.gone()


def test_commands_after_close_are_refused(workspace: Path) -> None:
    terminal = TerminalExecutor(str(workspace))
    terminal.close()
    assert run(terminal, "echo hi").is_error


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z" and os.path.exists(f"/proc/{pid}")


def test_reset_replaces_a_stuck_shell_with_a_fresh_one_in_the_workspace(
    terminal: TerminalExecutor, workspace: Path, sleeper: Sleeper
) -> None:
    run(terminal, f"export GONE=yes; cd /; {sleeper.command}", timeout=0.3)
    assert sleeper.started()

    obs = run(terminal, 'echo "[$GONE]"; pwd', reset=True)

    assert sleeper.gone()  # the stuck command went with the old shell
    assert obs.command == '[RESET] echo "[$GONE]"; pwd'
    lines = obs.text.splitlines()
    assert lines[0].startswith("Terminal session has been reset")
    assert lines[1:] == ["[]", str(workspace)]
    assert obs.metadata.exit_code == 0 and obs.metadata.working_dir == str(workspace)


def test_a_reset_alone_runs_nothing_and_reset_with_input_is_refused(
    terminal: TerminalExecutor,
) -> None:
    obs = run(terminal, "", reset=True)
    assert obs.command == "[RESET]" and not obs.is_error
    assert "Terminal session has been reset" in obs.text
    with pytest.raises(ValueError, match="Cannot use reset=True with is_input=True"):
        run(terminal, "", reset=True, is_input=True)


def test_the_metadata_names_how_the_command_ended(terminal: TerminalExecutor) -> None:
    done = run(terminal, "(exit 3)")
    assert (done.metadata.exit_code, done.timeout) == (3, False)
    assert done.metadata.suffix.endswith("]") and "Exit code: 3" in done.metadata.suffix
    running = run(terminal, "sleep 60", timeout=0.3)
    assert (running.metadata.exit_code, running.timeout) == (-1, True)
    run(terminal, "C-c", is_input=True, timeout=30)

"""`run_shell`: the one runner for commands that run to an end (workspace, verify, hooks)."""

from __future__ import annotations

from pathlib import Path

import pytest
from child_processes import Sleeper
from openhands.sdk.workspace import kill_process_group, run_shell, sandbox_status
from openhands.sdk.workspace.processes import registered_process_groups


def test_stdin_reaches_the_command(tmp_path: Path) -> None:
    result = run_shell("tr a-z A-Z", tmp_path, timeout=10, stdin="hello")

    assert result.exit_code == 0
    assert result.output == "HELLO"


def test_stderr_can_be_kept_apart(tmp_path: Path) -> None:
    result = run_shell("echo out; echo err >&2", tmp_path, timeout=10, separate_stderr=True)

    assert result.output == "out\n"
    assert result.stderr == "err\n"


def test_a_nul_byte_in_the_command_is_exit_127_not_an_exception(tmp_path: Path) -> None:
    result = run_shell("echo a\x00b", tmp_path, timeout=10)

    assert result.exit_code == 127
    assert "cannot start" in result.output


def test_the_command_does_not_see_this_process_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-parent-only")

    result = run_shell("echo ${LLM_API_KEY:-absent}", tmp_path, timeout=10)

    assert result.output == "absent\n"


def test_an_explicit_env_is_the_whole_environment(tmp_path: Path) -> None:
    result = run_shell(
        "echo ${ONLY:-unset} ${HOME:-nohome}", tmp_path, timeout=10, env={"ONLY": "given"}
    )

    assert result.output == "given nohome\n"


def test_a_finished_command_is_no_longer_guarded(tmp_path: Path) -> None:
    result = run_shell("echo $$", tmp_path, timeout=10)

    assert int(result.output) not in registered_process_groups()


def test_a_background_job_left_running_stays_guarded(tmp_path: Path, sleeper: Sleeper) -> None:
    result = run_shell(f"{sleeper.command} > /dev/null 2>&1 & echo $$", tmp_path, timeout=10)
    if sandbox_status().active:
        # The sandbox's PID namespace ends with the command: its jobs end with it.
        assert sleeper.gone()
        return
    group = int(result.output)
    assert sleeper.started()  # the job may not have exec'd `sleep` yet when the shell ends
    [job] = sleeper.running()
    try:
        assert job.is_running()
        assert group in registered_process_groups()
    finally:
        kill_process_group(group)
    assert group not in registered_process_groups()


@pytest.mark.slow
@pytest.mark.timeout(30)
def test_a_timeout_returns_although_an_escaped_grandchild_holds_the_pipe(
    tmp_path: Path, sleeper: Sleeper
) -> None:
    # The subshell exits at once, so the `setsid` child is neither in the group nor a
    # descendant any more: nothing kills it, and it keeps the output pipe open (the
    # `sleeper` fixture kills it afterwards; in a sandbox it dies with the PID namespace).
    command = f"(setsid bash -c 'exec {sleeper.command}' &); sleep 60"
    result = run_shell(command, tmp_path, timeout=0.5, stdin="")

    assert result.timed_out
    assert result.exit_code == 124

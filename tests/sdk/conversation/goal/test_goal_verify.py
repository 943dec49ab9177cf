"""The default verifier: a real shell command in the working dir, with a timeout and a tail."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.conversation.goal import run_verify_command


def test_a_passing_command_reports_exit_zero_and_its_output(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("ok")
    result = run_verify_command("cat marker.txt && echo passed", str(tmp_path))
    assert result.exit_code == 0 and result.passed
    assert "ok" in result.output_tail and "passed" in result.output_tail


def test_a_failing_command_reports_its_exit_code_and_stderr(tmp_path: Path) -> None:
    result = run_verify_command("echo 'boom' >&2; exit 3", str(tmp_path))
    assert result.exit_code == 3 and not result.passed
    assert "boom" in result.output_tail


def test_the_command_runs_in_the_working_dir(tmp_path: Path) -> None:
    result = run_verify_command("pwd", str(tmp_path))
    assert result.output_tail.strip() == str(tmp_path.resolve())


def test_only_the_tail_of_a_long_output_is_kept(tmp_path: Path) -> None:
    result = run_verify_command(
        "for i in $(seq 1 20000); do echo line $i; done", str(tmp_path), tail_chars=500
    )
    assert "line 20000" in result.output_tail
    assert "line 1\n" not in result.output_tail
    assert len(result.output_tail) < 600


def test_a_hanging_command_is_killed_with_its_children(tmp_path: Path) -> None:
    result = run_verify_command("sleep 30 & sleep 30; wait", str(tmp_path), timeout=0.5)
    assert result.timed_out and result.exit_code == 124
    assert not result.passed
    assert "timed out" in result.output_tail


def test_a_missing_working_dir_fails_without_raising(tmp_path: Path) -> None:
    result = run_verify_command("true", str(tmp_path / "nope"))
    assert result.exit_code == 127
    assert "does not exist" in result.output_tail

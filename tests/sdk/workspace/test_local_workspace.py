"""LocalWorkspace: a folder where commands run."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from openhands.sdk import LocalWorkspace, RemoteWorkspace
from pydantic import SecretStr, ValidationError


def test_commands_run_in_the_working_dir(workspace_dir: Path) -> None:
    workspace = LocalWorkspace(working_dir=str(workspace_dir))

    result = workspace.execute_command("pwd; echo hi > made.txt")

    assert result.exit_code == 0
    assert result.output.splitlines()[0] == str(workspace_dir)
    assert (workspace_dir / "made.txt").read_text() == "hi\n"


def test_stdout_and_stderr_are_both_captured(workspace_dir: Path) -> None:
    result = LocalWorkspace(working_dir=str(workspace_dir)).execute_command(
        "echo out; echo err >&2; exit 3"
    )

    assert result.exit_code == 3
    assert result.output.split() == ["out", "err"]
    assert not result.timed_out


def test_a_slow_command_times_out_without_raising(workspace_dir: Path) -> None:
    result = LocalWorkspace(working_dir=str(workspace_dir)).execute_command(
        "echo started; sleep 20", timeout=0.5
    )

    assert result.timed_out
    assert result.exit_code == 124
    assert "started" in result.output
    assert "timed out" in result.output


@pytest.mark.slow
def test_a_timed_out_command_is_killed_with_its_children(workspace_dir: Path) -> None:
    workspace = LocalWorkspace(working_dir=str(workspace_dir))

    result = workspace.execute_command("(sleep 1; touch late.txt) & sleep 20", timeout=0.3)
    time.sleep(1.5)  # the background child would have written by now

    assert result.timed_out
    assert not (workspace_dir / "late.txt").exists()


def test_a_missing_working_dir_is_created(tmp_path: Path) -> None:
    workspace = LocalWorkspace(working_dir=str(tmp_path / "new" / "dir"))

    result = workspace.execute_command("true")

    assert result.exit_code == 0
    assert (tmp_path / "new" / "dir").is_dir()


def test_a_file_as_working_dir_is_a_clear_error(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")

    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        LocalWorkspace(working_dir=str(a_file)).ensure_exists()


def test_working_dir_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    assert LocalWorkspace(working_dir="project").working_dir == str(tmp_path / "project")


def test_a_blank_working_dir_is_refused() -> None:
    with pytest.raises(ValidationError, match="must not be blank"):
        LocalWorkspace(working_dir="  ")


def test_workspaces_serialize_with_their_kind(workspace_dir: Path) -> None:
    data = LocalWorkspace(working_dir=str(workspace_dir)).model_dump()

    assert data == {"kind": "LocalWorkspace", "working_dir": str(workspace_dir)}


def test_remote_workspace_needs_an_http_url() -> None:
    with pytest.raises(ValidationError, match="http"):
        RemoteWorkspace(host="127.0.0.1:8000")


def test_remote_workspace_keeps_its_key_out_of_json() -> None:
    remote = RemoteWorkspace(host="http://127.0.0.1:8000/", api_key=SecretStr("session-key-9f3"))

    assert remote.host == "http://127.0.0.1:8000"
    assert "session-key-9f3" not in remote.model_dump_json()


def test_a_path_is_accepted_as_working_dir(tmp_path: Path) -> None:
    workspace = LocalWorkspace(working_dir=tmp_path / "project")

    assert workspace.working_dir == str((tmp_path / "project").resolve())
    assert LocalWorkspace.model_validate_json(workspace.model_dump_json()) == workspace


def test_a_sandbox_choice_round_trips_and_is_left_out_when_unset(workspace_dir: Path) -> None:
    chosen = LocalWorkspace(working_dir=workspace_dir, sandbox="bwrap")

    assert LocalWorkspace.model_validate_json(chosen.model_dump_json()).sandbox == "bwrap"
    assert "sandbox" not in LocalWorkspace(working_dir=workspace_dir).model_dump()

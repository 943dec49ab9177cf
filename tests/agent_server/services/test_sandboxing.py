"""The server's sandbox at start: its policy from OH_SANDBOX*, the self-check, the fallback.

In-process `start_sandbox` with real bubblewrap (skipped where it cannot run). A broken
sandbox is made for real: OH_SETTINGS_PATH (a folder the server hides from the agent) names
the folder of this process's Python, so the terminal's launcher is missing in the sandbox.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.sandboxing import (
    refuse_unsafe_workspace,
    sandbox_policy_of,
    start_sandbox,
    stop_sandbox,
)
from openhands.sdk.workspace import SandboxPolicy, sandbox_status
from openhands.sdk.workspace.sandbox import sandbox_policy
from sandbox_support import needs_bwrap

INTERPRETER_FOLDER = os.path.dirname(os.path.abspath(sys.executable))


def _config(tmp_path: Path, **env: str) -> ServerConfig:
    return ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "data" / "conversations"),
            "OH_WORKSPACE_PATH": str(tmp_path / "projects"),
            **env,
        }
    )


@pytest.fixture
def started() -> Iterator[list[ServerConfig]]:
    """Configs a test started the sandbox with; stopped at the end whatever happened."""
    configs: list[ServerConfig] = []
    yield configs
    for config in configs:
        stop_sandbox(config)


@needs_bwrap
def test_a_working_sandbox_passes_its_self_check(
    tmp_path: Path, started: list[ServerConfig]
) -> None:
    config = _config(tmp_path, OH_SANDBOX="bwrap")
    started.append(config)

    status = start_sandbox(config)

    assert status.active and status.self_check == "passed" and status.warning is None


@needs_bwrap
def test_auto_falls_back_without_a_sandbox_and_says_why(
    tmp_path: Path, started: list[ServerConfig], caplog: pytest.LogCaptureFixture
) -> None:
    config = _config(tmp_path, OH_SANDBOX="auto", OH_SETTINGS_PATH=INTERPRETER_FOLDER)
    started.append(config)

    status = start_sandbox(config)

    assert status.self_check == "failed" and not status.active and status.network == "host"
    assert status.warning is not None and "WITHOUT a sandbox" in status.warning
    assert "the terminal could not start" in status.warning and sys.executable in status.warning
    assert not sandbox_status().active  # the agent's processes now run without one
    [record] = [r for r in caplog.records if "self-check failed" in r.getMessage()]
    assert record.levelname == "ERROR"


@needs_bwrap
def test_bwrap_refuses_to_start_when_the_self_check_fails(tmp_path: Path) -> None:
    config = _config(tmp_path, OH_SANDBOX="bwrap", OH_SETTINGS_PATH=INTERPRETER_FOLDER)

    with pytest.raises(ServerConfigError, match=r"self-check failed: .*terminal could not start"):
        start_sandbox(config)
    assert sandbox_policy() == SandboxPolicy.from_env()  # undone: the environment's policy


def test_off_runs_no_check(tmp_path: Path, started: list[ServerConfig]) -> None:
    config = _config(tmp_path, OH_SANDBOX="off")
    started.append(config)

    status = start_sandbox(config)

    assert status.self_check == "skipped" and not status.active and status.warning is None


def test_a_writable_folder_holding_the_data_stops_the_server(tmp_path: Path) -> None:
    config = _config(tmp_path, OH_SANDBOX_WRITABLE=str(tmp_path))

    with pytest.raises(ServerConfigError, match=r"^OH_SANDBOX_WRITABLE: .*the server's own data"):
        sandbox_policy_of(config)


def test_an_unsafe_writable_folder_is_refused_when_the_settings_are_read(tmp_path: Path) -> None:
    with pytest.raises(ServerConfigError, match=r"^OH_SANDBOX_WRITABLE: / is the whole file"):
        _config(tmp_path, OH_SANDBOX_WRITABLE="/")
    with pytest.raises(ServerConfigError, match="separate folders with commas"):
        _config(tmp_path, OH_SANDBOX_WRITABLE=f"{tmp_path}:/opt")


@needs_bwrap
def test_an_unsafe_workspace_is_a_422_at_the_field(
    tmp_path: Path, started: list[ServerConfig]
) -> None:
    config = _config(tmp_path, OH_SANDBOX="bwrap")
    started.append(config)
    start_sandbox(config)

    with pytest.raises(InvalidRequestError) as refused:
        refuse_unsafe_workspace("/", ("body", "cwd"))
    refuse_unsafe_workspace(tmp_path / "projects" / "mine", ("body", "cwd"))

    assert refused.value.loc == ("body", "cwd") and "/ is the whole file system" in str(
        refused.value
    )

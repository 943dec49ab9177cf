"""The reference SDK (1.57.0 and 1.58.2, from PyPI, run with the reference's Python) drives
this server's working surface: conversation controls through its `RemoteConversation`
methods, and the settings, workspace and gateway routes, every answer validated by the
reference's own models (reference_clients/surface.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interop_env import ReferenceRunner, ServerProcess
from interop_script import ANSWER

pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def drive(
    any_reference_python: Path,
    reference_runner: Callable[[Path], ReferenceRunner],
    our_server: ServerProcess,
    client_config: dict[str, str],
    tmp_path: Path,
) -> Any:
    def run(flow: str) -> dict[str, Any]:
        config = {**client_config, "host": our_server.url}
        runner = reference_runner(any_reference_python)
        return runner.run(flow, config, tmp_path, script="surface.py")

    return run


def test_its_remote_conversation_drives_the_conversation_controls(drive: Any) -> None:
    result = drive("conversation")

    assert result["title"] == "Interop title" and result["unknown"] is None
    assert result["final"] == "done" and result["runtime"] == "available"
    assert result["served"]
    assert result["asked"] == ANSWER and result["answer"] == ANSWER
    assert result["picked"][0] == "SystemPromptEvent" and result["picked"][1] is None
    assert result["navigated"] and result["switched"]
    assert "notes" in result["plugin_skills"]
    assert result["model"].endswith("-switched")
    assert result["condense_without_condenser"] == 409
    assert result["interrupted"] == "paused"


def test_its_models_read_every_settings_answer(drive: Any) -> None:
    result = drive("settings")

    assert result["done"] == [
        "llm catalogue",
        "provider connections",
        "profiles",
        "agent profiles",
        "meta profiles",
        "settings",
        "mcp test",
        "workspaces",
        "server",
    ]
    assert result["some_models"] and result["renamed"] and result["valid"]
    assert result["probe_ok"] is False and result["workspaces"] == ["/interop"]
    assert result["profile_valid"] is True and result["meta_applied"] in (False, None)
    assert result["ready"] == {"status": "ready"} and result["uptime"]


def test_its_models_read_the_gateways_answers(drive: Any) -> None:
    result = drive("gateway")

    assert "openhands_interop-gateway" in result["models"]
    assert result["text"] == "done"
    assert (result["status"], result["error"]) == (404, ["code", "message", "param", "type"])

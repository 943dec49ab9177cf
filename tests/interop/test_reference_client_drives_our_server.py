"""The reference SDK's own clients (its `Workspace(host=...)` and `RemoteConversation`, from
PyPI, run with the reference's Python) drive this project's agent server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interop_env import ReferenceRunner, ServerProcess

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def drive(
    reference_python: Path,
    reference_runner: Callable[[Path], ReferenceRunner],
    our_server: ServerProcess,
    client_config: dict[str, str],
    tmp_path: Path,
) -> Any:
    def run(flow: str) -> dict[str, Any]:
        config = {**client_config, "host": our_server.url}
        return reference_runner(reference_python).run(flow, config, tmp_path)

    return run


def test_execute_command_runs_on_our_server(drive: Any) -> None:
    result = drive("execute")
    assert (result["exit_code"], result["stdout"]) == (0, "hi\n")


def test_a_default_agent_conversation_runs_to_finished_with_events_over_rest_and_socket(
    drive: Any,
) -> None:
    result = drive("run")

    assert result["status"] == "finished"
    assert result["agent_texts"][-1] == "done"
    assert result["observations"] == ["hi"]
    for kinds in (result["rest_kinds"], result["local_kinds"]):
        assert [k for k in dict.fromkeys(kinds) if k != "ConversationStateUpdateEvent"] == [
            "SystemPromptEvent",
            "MessageEvent",
            "ActionEvent",
            "ObservationEvent",
        ]
    assert {"ActionEvent", "ObservationEvent", "MessageEvent"} <= set(result["socket_kinds"])


def test_pause_stops_a_run_and_a_new_message_runs_again(drive: Any) -> None:
    result = drive("pause")
    assert (result["paused"], result["status"]) == ("paused", "finished")


def test_fork_copies_the_history_and_then_diverges(drive: Any) -> None:
    result = drive("fork")
    assert result == {
        "different_id": True,
        "fork_has_history": True,
        "fork_status": "finished",
        "source_unchanged": True,
        "fork_longer": True,
    }


def test_a_confirmation_round_waits_then_runs_the_approved_call(drive: Any) -> None:
    result = drive("confirm")
    assert (result["waiting"], result["ran_before_approval"]) == (
        "waiting_for_confirmation",
        False,
    )
    assert (result["status"], result["observations"]) == ("finished", ["hi"])


def test_a_goal_started_over_the_reference_route_completes(drive: Any) -> None:
    result = drive("goal")
    assert (result["goal"], result["iteration"]) == ("complete", 1)


def test_get_llm_brings_no_key_and_our_server_puts_the_stored_one_back(
    reference_python: Path,
    reference_runner: Callable[[Path], ReferenceRunner],
    our_server: ServerProcess,
    client_config: dict[str, str],
    fake_llm: Any,
    tmp_path: Path,
) -> None:
    key = "sk-stored-for-interop-71c2"
    config = {**client_config, "host": our_server.url, "settings_key": key}
    result = reference_runner(reference_python).run("settings", config, tmp_path)

    assert result["key_sent_back"] is False
    assert (result["profile_usage_id"], result["profile_key_sent_back"]) == (
        "profile:interop",
        False,
    )
    assert result["status"] == "finished"
    assert "INTEROP_TOKEN" in result["secrets"]
    assert result["lookup_url"] == f"{our_server.url}/api/settings/secrets/INTEROP_TOKEN"
    model = result["model"].split("/")[-1]
    sent = [
        headers.get("authorization")
        for body, headers in zip(fake_llm.requests, fake_llm.request_headers, strict=True)
        if body.get("model") == model
    ]
    assert sent and set(sent) == {f"Bearer {key}"}

"""Answers of either server are read by this SDK's wire models (and ours add, never rename)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from openhands.sdk.wire import BashOutput, ConversationInfo

HERE = Path(__file__).parent


def test_a_reference_servers_conversation_info_is_read() -> None:
    body = json.loads((HERE / "reference_conversation_info.json").read_text())
    body["agent"] = json.loads((HERE / "reference_default_agent.json").read_text())

    info = ConversationInfo.model_validate(body)

    assert info.execution_status == "finished"
    assert info.max_iterations == 500
    assert set(info.metrics) == set(body["stats"]["usage_to_metrics"])  # from `stats`
    assert [t.name for t in info.agent.tools] == ["terminal", "file_editor", "task_tracker"]


def test_our_conversation_info_carries_the_reference_fields_its_clients_read() -> None:
    body = json.loads((HERE / "reference_conversation_info.json").read_text())
    body["agent"] = json.loads((HERE / "reference_default_agent.json").read_text())
    dumped = json.loads(ConversationInfo.model_validate(body).model_dump_json())

    for field in ("id", "agent", "workspace", "execution_status", "confirmation_policy"):
        assert field in dumped
    for field in ("stats", "max_iterations", "security_analyzer", "hook_config", "tags"):
        assert field in dumped
    assert dumped["stats"]["usage_to_metrics"].keys() == body["stats"]["usage_to_metrics"].keys()
    assert ConversationInfo.model_validate(dumped).metrics.keys() == dumped["metrics"].keys()


def test_a_reference_bash_output_becomes_a_command_result() -> None:
    output = BashOutput.model_validate(
        {
            "kind": "BashOutput",
            "id": uuid.uuid4().hex,
            "timestamp": "2026-11-25T13:57:12.183565",
            "command_id": uuid.uuid4().hex,
            "order": 0,
            "exit_code": 2,
            "stdout": "hi\n",
            "stderr": None,
        }
    )
    result = output.to_result("echo hi; exit 2")
    assert (result.exit_code, result.stdout, result.stderr, result.timed_out) == (
        2,
        "hi\n",
        "",
        False,
    )


def test_an_output_still_running_reads_as_the_reference_clients_timeout_code() -> None:
    output = BashOutput(command_id=uuid.uuid4())
    assert output.to_result("sleep 9").exit_code == -1

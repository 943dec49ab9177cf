"""The version-skew rule of `openhands.sdk.wire`: fields from other versions are dropped with
one log line, known-but-unsupported ones are refused saying so, bad known ones still fail."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.wire import SendMessageRequest, StartConversationRequest
from pydantic import ValidationError

HERE = Path(__file__).parent


def _reference_create_body() -> dict[str, Any]:
    """The body the reference SDK 1.57's RemoteConversation sends for its default agent."""
    return {
        "agent": json.loads((HERE / "reference_default_agent.json").read_text()),
        "initial_message": None,
        "max_iterations": 500,
        "stuck_detection": True,
        "workspace": {"kind": "LocalWorkspace", "working_dir": "/tmp/project"},
        "tool_module_qualnames": {"terminal": "openhands.tools.terminal.definition"},
        "agent_definitions": [],
        "plugins": None,
        "hook_config": None,
        "client_tools": [],
        "tags": {},
        "observability_metadata": {},
        "observability_tags": [],
        "observability_span_name": "conversation",
        "observability_parent_span_context": None,
        "user_id": None,
    }


def test_a_reference_clients_create_body_is_read_with_one_log_line_naming_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="openhands.sdk.wire"):
        request = StartConversationRequest.model_validate(_reference_create_body())

    assert [t.name for t in request.agent.tools] == ["terminal", "file_editor", "task_tracker"]
    assert type(request.agent.condenser).__name__ == "LLMSummarizingCondenser"
    [line] = [r.getMessage() for r in caplog.records if r.name == "openhands.sdk.wire"]
    for field in ("agent.critic", "stuck_detection", "user_id", "tool_module_qualnames"):
        assert field in line


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("agent_definitions", [{"name": "helper"}]),
        ("secrets_encrypted", True),
        ("tags", {"team": "a"}),
        ("worktree", True),
    ],
)
def test_a_known_but_unsupported_field_with_a_value_is_refused_saying_so(
    field: str, value: Any
) -> None:
    with pytest.raises(ValidationError) as refused:
        StartConversationRequest.model_validate({**_reference_create_body(), field: value})
    [error] = refused.value.errors()
    assert error["loc"] == (field,)
    assert "not supported by this server yet" in error["msg"]


def test_an_unsupported_nested_field_is_refused_by_its_path() -> None:
    body = _reference_create_body()
    body["agent"]["critic"] = {"kind": "AgentFinishedCritic"}
    with pytest.raises(ValidationError) as refused:
        StartConversationRequest.model_validate(body)
    assert refused.value.errors()[0]["loc"] == ("agent", "critic")


def test_a_bad_known_field_is_still_a_validation_error_naming_it() -> None:
    body = {**_reference_create_body(), "max_iterations": 0, "from_the_future": 1}
    with pytest.raises(ValidationError) as refused:
        StartConversationRequest.model_validate(body)
    assert [e["loc"] for e in refused.value.errors()] == [("max_iterations",)]


def test_an_unknown_field_inside_a_message_part_is_dropped() -> None:
    request = SendMessageRequest.model_validate(
        {"content": [{"type": "text", "text": "hi", "cache_prompt": False}], "sender": "bob"}
    )
    assert request.to_message().text == "hi"


def test_a_nested_request_logs_its_unknown_fields_in_the_outer_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    body = {
        **_reference_create_body(),
        "initial_message": {"content": [{"type": "text", "text": "hi"}], "sender": "bob"},
    }
    with caplog.at_level(logging.INFO, logger="openhands.sdk.wire"):
        StartConversationRequest.model_validate(body)
    lines = [r.getMessage() for r in caplog.records if r.name == "openhands.sdk.wire"]
    assert len(lines) == 1
    assert "initial_message.sender" in lines[0]

"""Public behaviour the reference SDK's scripts rely on, pinned name by name.

Each test is one difference that `docs/compatibility.md` does not list as deliberate: the
same call gives the same result here as with the reference SDK.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import LLM, Agent
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event import ActionEvent, Event
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import Message, MessageToolCall, TextContent
from openhands.sdk.mcp import MCPToolAction
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.confirmation_policy import (
    AlwaysConfirm,
    ConfirmationPolicyBase,
    ConfirmRisky,
)
from openhands.sdk.security.ensemble import EnsembleSecurityAnalyzer
from openhands.sdk.security.risk import SecurityRisk
from openhands.sdk.tool.builtins import FinishTool
from openhands.sdk.workspace import LocalWorkspace
from pydantic import ValidationError


class RatesLow(SecurityAnalyzerBase):
    """A user's own analyzer, as in the reference's examples: no `kind` field of its own."""

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        return SecurityRisk.LOW


class Broken(SecurityAnalyzerBase):
    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        raise RuntimeError("analyzer bug")


def _action() -> ActionEvent:
    call = MessageToolCall(id="c1", name="terminal", arguments='{"command": "ls"}')
    return ActionEvent(tool_name="terminal", tool_call_id="c1", tool_call=call, action=None)


def test_the_agent_is_frozen() -> None:
    agent = Agent(llm=LLM(model="openai/x"))
    with pytest.raises(ValidationError):
        agent.system_prompt = "changed"  # type: ignore[misc]


def test_a_policy_is_read_back_from_the_base_class_by_kind() -> None:
    assert ConfirmationPolicyBase.model_validate_json('{"kind": "AlwaysConfirm"}') == (
        AlwaysConfirm()
    )
    risky = ConfirmationPolicyBase.model_validate({"kind": "ConfirmRisky", "threshold": "LOW"})
    assert risky == ConfirmRisky(threshold=SecurityRisk.LOW)


def test_an_unknown_policy_kind_is_refused_naming_it() -> None:
    with pytest.raises(ValidationError, match="Nope"):
        ConfirmationPolicyBase.model_validate({"kind": "Nope"})


def test_an_ensemble_takes_a_users_analyzer_and_reads_it_back_by_kind() -> None:
    ensemble = EnsembleSecurityAnalyzer(analyzers=[RatesLow()])
    again = SecurityAnalyzerBase.model_validate_json(ensemble.model_dump_json())
    assert again == ensemble
    assert again.security_risk(_action()) is SecurityRisk.LOW


def test_an_analyzer_that_raises_rates_the_call_high() -> None:
    [(_, risk)] = Broken().analyze_pending_actions([_action()])
    assert risk is SecurityRisk.HIGH


def test_mcp_arguments_are_the_actions_data_and_the_action_is_frozen() -> None:
    data = {"path": "/tmp", "depth": 2}
    action = MCPToolAction(data=data)  # type: ignore[call-arg]  (the reference's call)
    assert action.to_mcp_arguments() == data
    with pytest.raises(ValidationError):
        MCPToolAction(data=data, other=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        action.data = {}  # type: ignore[misc]


def test_an_assistant_message_with_tool_calls_and_no_text_has_no_content_key() -> None:
    call = MessageToolCall(id="c1", name="terminal", arguments="{}")
    message = Message(role="assistant", content=[TextContent(text="")], tool_calls=[call])
    assert "content" not in message.to_chat_dict()
    spoken = Message(role="assistant", content=[TextContent(text="hi")], tool_calls=[call])
    assert spoken.to_chat_dict()["content"] == "hi"


@pytest.mark.parametrize(
    "call",
    [
        {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}},
        type(
            "ChatToolCall",
            (),
            {
                "id": "c1",
                "type": "function",
                "function": type("Fn", (), {"name": "terminal", "arguments": "{}"})(),
            },
        )(),
    ],
)
def test_a_tool_call_is_built_from_a_chat_completions_call(call: Any) -> None:
    assert MessageToolCall.from_chat_tool_call(call) == MessageToolCall(
        id="c1", name="terminal", arguments="{}", origin="completion"
    )


def test_a_chat_call_that_is_not_a_function_is_refused() -> None:
    with pytest.raises(ValueError, match="function"):
        MessageToolCall.from_chat_tool_call({"id": "c", "type": "custom", "function": None})


def test_a_tool_call_always_says_which_api_made_it() -> None:
    call = MessageToolCall(id="c1", name="terminal", arguments="{}")
    assert call.model_dump()["origin"] == "completion"


def test_loading_hooks_from_a_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    assert HookConfig.load(tmp_path / "missing.json") == HookConfig()


def test_a_tool_is_created_from_a_conversation_state(tmp_path: Path) -> None:
    from openhands.tools.terminal import TerminalTool

    state = ConversationState.create(
        id=uuid.uuid4(),
        agent=Agent(llm=LLM(model="openai/x")),
        workspace=LocalWorkspace(working_dir=str(tmp_path)),
    )
    reference_style: Any = state  # the reference's scripts pass a ConversationState
    [positional] = TerminalTool.create(reference_style)
    [keyword] = TerminalTool.create(conv_state=reference_style)  # type: ignore[call-arg]
    for tool in (positional, keyword):
        assert tool.executor is not None
        assert tool.executor.working_dir == str(tmp_path)  # type: ignore[attr-defined]
        tool.executor.close()  # type: ignore[attr-defined]


def test_finish_tool_is_created_without_arguments() -> None:
    [tool] = FinishTool.create()
    assert tool.name == "finish"


def test_a_reference_conversation_error_event_is_read() -> None:
    event = Event.model_validate(
        {
            "kind": "ConversationErrorEvent",
            "id": "e1",
            "source": "environment",
            "code": "X",
            "detail": "d",
            "classification": {"kind": "unknown", "retryable": False},
        }
    )
    assert (event.code, event.detail) == ("X", "d")  # type: ignore[attr-defined]

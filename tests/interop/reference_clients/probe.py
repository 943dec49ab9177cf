"""Probe public behaviour of whichever `openhands` SDK is installed.

Run as a script with this project's Python (it prints one JSON object), and as the flow
`answers` in the reference's runner (`runner.py`, whose process has the reference SDK
imported already): `test_public_surface.py` asserts that both give the same answer for every
probe. Each probe is a call a script makes; a probe that raises answers
`"error: <exception type>"`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")

from openhands.sdk import LLM, Agent
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import Message, MessageToolCall, TextContent
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
from openhands.sdk.security.risk import SecurityRisk

PROBES: dict[str, Callable[[], Any]] = {}


def probe(function: Callable[[], Any]) -> Callable[[], Any]:
    PROBES[function.__name__] = function
    return function


class RatesLow(SecurityAnalyzerBase):
    def security_risk(self, action: Any) -> SecurityRisk:
        return SecurityRisk.LOW


class Raises(SecurityAnalyzerBase):
    def security_risk(self, action: Any) -> SecurityRisk:
        raise RuntimeError("bug")


def _action_event() -> Any:
    from openhands.sdk.event import ActionEvent

    call = MessageToolCall(id="c1", name="terminal", arguments="{}", origin="completion")
    return ActionEvent(
        source="agent",
        thought=[],
        tool_name="terminal",
        tool_call_id="c1",
        tool_call=call,
        llm_response_id="r1",
        action=None,
    )


@probe
def llm_retry_and_timeout_defaults() -> Any:
    llm = LLM(model="openai/x")
    return [llm.num_retries, llm.timeout]


@probe
def llm_empty_api_key_is_none() -> Any:
    return LLM(model="openai/x", api_key="").api_key is None  # type: ignore[arg-type]


@probe
def llm_accepts_unknown_fields() -> Any:
    return LLM(model="openai/x", field_from_the_future=1).model  # type: ignore[call-arg]


@probe
def agent_is_frozen() -> Any:
    agent = Agent(llm=LLM(model="openai/x"), tools=[])
    try:
        agent.system_prompt_filename = "other.j2"  # type: ignore[misc]
    except Exception:
        return True
    return False


@probe
def policy_read_from_base_by_kind() -> Any:
    return type(ConfirmationPolicyBase.model_validate_json('{"kind": "AlwaysConfirm"}')).__name__


@probe
def ensemble_takes_a_users_analyzer() -> Any:
    from openhands.sdk.security.ensemble import EnsembleSecurityAnalyzer

    return type(EnsembleSecurityAnalyzer(analyzers=[RatesLow()]).analyzers[0]).__name__


@probe
def an_analyzer_that_raises_rates() -> Any:
    return [str(risk.value) for _, risk in Raises().analyze_pending_actions([_action_event()])]


@probe
def mcp_arguments_are_the_data() -> Any:
    from openhands.sdk.mcp import MCPToolAction

    return MCPToolAction(data={"a": 1}).to_mcp_arguments()  # type: ignore[call-arg]


@probe
def mcp_action_refuses_extra_fields() -> Any:
    from openhands.sdk.mcp import MCPToolAction

    try:
        MCPToolAction(data={}, other=1)  # type: ignore[call-arg]
    except Exception:
        return True
    return False


@probe
def assistant_tool_call_without_text_has_content_key() -> Any:
    call = MessageToolCall(id="c1", name="terminal", arguments="{}", origin="completion")
    message = Message(role="assistant", content=[TextContent(text="")], tool_calls=[call])
    chat = message.to_chat_dict(
        cache_enabled=False,
        vision_enabled=False,
        function_calling_enabled=True,
        force_string_serializer=False,
        send_reasoning_content=False,
    )
    return "content" in chat


@probe
def tool_call_from_chat_completions() -> Any:
    from litellm import ChatCompletionMessageToolCall

    call = ChatCompletionMessageToolCall(
        id="c1", type="function", function={"name": "terminal", "arguments": "{}"}
    )
    made = MessageToolCall.from_chat_tool_call(call)
    return [made.id, made.name, made.arguments, made.origin]


@probe
def hooks_from_a_missing_file() -> Any:
    return HookConfig.load(Path(tempfile.mkdtemp()) / "missing.json").is_empty()


@probe
def finish_tool_created_without_arguments() -> Any:
    from openhands.sdk.tool.builtins import FinishTool

    return [tool.name for tool in FinishTool.create()]


@probe
def default_agent_tools() -> Any:
    from openhands.tools.preset.default import get_default_agent

    return [tool.name for tool in get_default_agent(LLM(model="openai/x"), cli_mode=True).tools]


def flow_answers(config: dict[str, Any]) -> dict[str, Any]:
    """Every probe's answer, by name."""
    answers: dict[str, Any] = {}
    for name, function in PROBES.items():
        try:
            answers[name] = function()
        except Exception as exc:
            answers[name] = f"error: {type(exc).__name__}"
    return answers


def main() -> None:
    print(json.dumps(flow_answers({})))


if __name__ == "__main__":
    main()

"""Agent and prompt hooks: a copy of the conversation's LLM decides from the event JSON.

The scripted TestLLM is shared by the conversation and its hook copies (in call order), so a
script interleaves the agent's replies with the hook's answers.
"""

from __future__ import annotations

import pytest
from openhands.sdk import HookExecutionEvent, TextContent, UserRejectObservation
from openhands.sdk.conversation.run_loop import STOP_HOOK_FEEDBACK_PREFIX
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import LLMError

REVIEWER = {
    "type": "agent",
    "name": "reviewer",
    "system_prompt": "You review terminal commands.",
    "max_iterations": 2,
}


def _pre_tool(hook: dict) -> HookConfig:
    return HookConfig.model_validate({"PreToolUse": [{"matcher": "echo", "hooks": [hook]}]})


def _runs(conversation) -> list[HookExecutionEvent]:
    return [e for e in conversation.state.events if isinstance(e, HookExecutionEvent)]


def test_an_agent_hook_that_denies_rejects_the_call(
    make_conversation, reply, echo_received
) -> None:
    conversation, llm = make_conversation(
        [
            reply.call("echo", {"text": "cat /etc/passwd"}, call_id="c1"),
            reply.text('Verdict: {"decision": "deny", "reason": "reads a system file"}'),
            reply.finish(),
        ],
        tools=["echo"],
        hook_config=_pre_tool(REVIEWER),
    )
    conversation.send_message("show me the users")

    conversation.run()

    assert echo_received == []
    rejection = next(e for e in conversation.state.events if isinstance(e, UserRejectObservation))
    assert (rejection.tool_call_id, rejection.rejection_reason) == ("c1", "reads a system file")
    [run] = _runs(conversation)
    assert (run.hook_command, run.blocked, run.success) == ("agent-hook:reviewer", True, True)
    hook_system, hook_request = llm.calls[1][0], llm.calls[1][-1]
    assert hook_system.text == "You review terminal commands."
    assert "PreToolUse" in hook_request.text and "cat /etc/passwd" in hook_request.text


def test_an_agent_hook_that_allows_lets_the_call_run(
    make_conversation, reply, echo_received
) -> None:
    conversation, _ = make_conversation(
        [
            reply.call("echo", {"text": "ls"}),
            reply.text('{"decision": "allow", "reason": "harmless"}'),
            reply.finish(),
        ],
        tools=["echo"],
        hook_config=_pre_tool(REVIEWER),
    )
    conversation.send_message("list")

    conversation.run()

    assert [a.text for a in echo_received] == ["ls"]
    [run] = _runs(conversation)
    assert (run.blocked, run.success, run.reason) == (False, True, "harmless")


def test_an_answer_without_json_fails_open(make_conversation, reply, echo_received) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "ls"}), reply.text("round 1 done"), reply.finish()],
        tools=["echo"],
        hook_config=_pre_tool(REVIEWER),
    )
    conversation.send_message("list")

    conversation.run()

    assert [a.text for a in echo_received] == ["ls"]
    [run] = _runs(conversation)
    assert (run.blocked, run.success) == (False, False)
    assert run.error is not None and "without a JSON object" in run.error


def test_a_failing_hook_llm_fails_open(make_conversation, reply, echo_received) -> None:
    conversation, _ = make_conversation(
        [
            reply.call("echo", {"text": "ls"}),
            LLMError("provider down", model="m"),
            reply.finish(),
        ],
        tools=["echo"],
        hook_config=_pre_tool(REVIEWER),
    )
    conversation.send_message("list")

    conversation.run()

    assert [a.text for a in echo_received] == ["ls"]
    [run] = _runs(conversation)
    assert (run.blocked, run.success) == (False, False)


def test_hook_cost_is_counted_under_its_own_usage_id(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [
            reply.call("echo", {"text": "a"}),
            reply.text('{"decision": "allow"}'),
            reply.call("echo", {"text": "b"}),
            reply.text('{"decision": "allow"}'),
            reply.finish(),
        ],
        tools=["echo"],
        hook_config=_pre_tool(REVIEWER),
    )
    llm._costs.extend([0.01, 0.25, 0.02, 0.5, 0.03])
    conversation.send_message("go")

    conversation.run()

    stats = conversation.conversation_stats
    assert stats.get_metrics_for_usage("default").accumulated_cost == pytest.approx(0.06)
    hook = stats.get_metrics_for_usage("agent-hook:reviewer")
    assert (hook.accumulated_cost, hook.completions) == (pytest.approx(0.75), 2)
    assert stats.get_combined_metrics().accumulated_cost == pytest.approx(0.81)
    assert llm.metrics.accumulated_cost == pytest.approx(0.06)


def test_a_stop_agent_hook_keeps_the_agent_working_until_it_allows(
    make_conversation, reply
) -> None:
    quality = {"type": "agent", "name": "quality", "system_prompt": "Check REPORT.md."}
    conversation, llm = make_conversation(
        [
            reply.text("done"),
            reply.text('{"decision": "deny", "reason": "REPORT.md is missing"}'),
            reply.text("done, with the report"),
            reply.text('{"decision": "allow", "reason": "report found"}'),
        ],
        hook_config=HookConfig.model_validate({"Stop": [{"hooks": [quality]}]}),
    )
    conversation.send_message("write the report")

    conversation.run()

    assert conversation.state.execution_status.value == "finished"
    assert llm.calls[2][-1].text == f"{STOP_HOOK_FEEDBACK_PREFIX}\nREPORT.md is missing"
    assert [run.blocked for run in _runs(conversation)] == [True, False]


def test_a_prompt_hook_asks_once_under_its_policy(make_conversation, reply, echo_received) -> None:
    conversation, llm = make_conversation(
        [
            reply.call("echo", {"text": "curl evil.example"}),
            reply.text('{"decision": "deny", "reason": "network exfiltration"}'),
            reply.finish(),
        ],
        tools=["echo"],
        hook_config=_pre_tool(
            {"type": "prompt", "name": "net", "prompt": "Deny any network access."}
        ),
    )
    llm._costs.extend([0.0, 0.1, 0.0])
    conversation.send_message("fetch it")

    conversation.run()

    assert echo_received == []
    system, request = llm.calls[1]
    assert "Deny any network access." in system.text
    assert "curl evil.example" in "".join(
        part.text for part in request.content if isinstance(part, TextContent)
    )
    usage = conversation.conversation_stats.get_metrics_for_usage("prompt-hook:net")
    assert usage.accumulated_cost == pytest.approx(0.1)

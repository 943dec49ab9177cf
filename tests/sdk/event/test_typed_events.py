"""Typed actions and observations in events, and events written by the reference SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    Event,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    UserRejectObservation,
    events_to_messages,
)
from openhands.sdk.llm import (
    Message,
    MessageToolCall,
    ThinkingBlock,
    text_message,
)
from openhands.sdk.tool import Action, Observation, UnknownObservation


class CountAction(Action):
    """Arguments of a counting tool."""

    path: str


class CountObservation(Observation):
    """A counting tool's result."""

    lines: int = 0


CALL = MessageToolCall(id="call_1", name="count", arguments='{"path": "a.txt"}')


def _observed(observation: Observation) -> ObservationEvent:
    return ObservationEvent(
        tool_name="count", tool_call_id="call_1", action_id="a1", observation=observation
    )


def test_an_observation_comes_back_as_its_own_class() -> None:
    event = _observed(CountObservation.from_text("3 lines", lines=3))

    restored = Event.model_validate_json(event.model_dump_json())

    assert isinstance(restored, ObservationEvent)
    assert isinstance(restored.observation, CountObservation)
    assert (restored.observation.lines, restored.observation.text) == (3, "3 lines")
    assert (restored.text, restored.is_error) == ("3 lines", False)


def test_an_action_comes_back_as_its_own_class() -> None:
    event = ActionEvent(
        tool_name="count", tool_call_id="call_1", tool_call=CALL, action=CountAction(path="a.txt")
    )

    restored = Event.model_validate_json(event.model_dump_json())

    assert isinstance(restored, ActionEvent) and isinstance(restored.action, CountAction)
    assert restored.action.path == "a.txt"


def test_the_stored_form_names_the_kind() -> None:
    stored = json.loads(_observed(CountObservation(lines=1)).model_dump_json())

    assert stored["observation"]["kind"] == "CountObservation"
    assert "content" not in stored and "is_error" not in stored


def test_an_observation_of_an_unknown_class_keeps_its_fields_and_round_trips() -> None:
    written = {
        "kind": "ObservationEvent",
        "id": "e1",
        "timestamp": "2025-06-01T10:00:00",
        "source": "environment",
        "tool_name": "radar",
        "tool_call_id": "call_9",
        "action_id": "a9",
        "observation": {
            "kind": "RadarObservation",
            "content": [{"type": "text", "text": "page loaded"}],
            "is_error": False,
            "url": "https://example.org",
        },
    }

    event = Event.model_validate(written)

    assert isinstance(event.observation, UnknownObservation)
    assert event.observation.model_dump()["url"] == "https://example.org"
    assert event.text == "page loaded"
    assert json.loads(event.model_dump_json())["observation"] == written["observation"]


def test_a_log_written_before_observations_were_typed_still_loads() -> None:
    legacy = {
        "kind": "ObservationEvent",
        "id": "e2",
        "timestamp": "2025-06-01T10:00:00+00:00",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "call_2",
        "action_id": "a2",
        "content": [{"type": "text", "text": "hello\n[Exit code: 0]"}],
        "observation": {"content": "hello\n[Exit code: 0]", "is_error": False, "exit_code": 0},
        "is_error": False,
    }

    event = Event.model_validate_json(json.dumps(legacy))

    assert isinstance(event, ObservationEvent)
    assert event.to_llm_message().text == "hello\n[Exit code: 0]"
    assert event.observation.model_dump()["exit_code"] == 0
    assert Event.model_validate_json(event.model_dump_json()) == event


def test_a_legacy_action_dict_loads_with_its_fields() -> None:
    event = ActionEvent.model_validate(
        {"tool_name": "count", "tool_call_id": "c", "tool_call": CALL, "action": {"path": "b"}}
    )

    assert event.action is not None and event.action.model_dump() == {"path": "b"}


def test_events_the_reference_sdk_wrote_load() -> None:
    lines = [
        {
            "kind": "SystemPromptEvent",
            "id": "s1",
            "timestamp": "2025-06-01T10:00:00.000001",
            "source": "agent",
            "system_prompt": {"type": "text", "text": "You are helpful.", "cache_prompt": False},
            "tools": [{"kind": "FinishTool", "description": "d", "title": "finish"}],
            "dynamic_context": {"type": "text", "text": "Today is Monday."},
        },
        {
            "kind": "MessageEvent",
            "id": "m1",
            "timestamp": "2025-06-01T10:00:01",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            "llm_response_id": None,
            "activated_skills": ["git"],
            "extended_content": [{"type": "text", "text": "<skill>git tips</skill>"}],
            "sender": "lead",
            "critic_result": None,
        },
        {
            "kind": "ActionEvent",
            "id": "x1",
            "timestamp": "2025-06-01T10:00:02",
            "source": "agent",
            "thought": [{"type": "text", "text": "counting"}],
            "reasoning_content": "the file is small",
            "thinking_blocks": [{"type": "thinking", "thinking": "hm", "signature": "s"}],
            "responses_reasoning_item": None,
            "action": {"kind": "CountAction", "path": "a.txt"},
            "tool_name": "count",
            "tool_call_id": "call_1",
            "tool_call": {
                "id": "call_1",
                "name": "count",
                "arguments": '{"path": "a.txt"}',
                "origin": "completion",
            },
            "llm_response_id": "resp_1",
            "security_risk": "LOW",
            "critic_result": None,
            "summary": "count the lines",
        },
        {
            "kind": "ObservationEvent",
            "id": "o1",
            "timestamp": "2025-06-01T10:00:03",
            "source": "environment",
            "tool_name": "count",
            "tool_call_id": "call_1",
            "observation": {
                "kind": "CountObservation",
                "content": [{"type": "text", "text": "3"}],
                "is_error": False,
                "lines": 3,
            },
            "action_id": "x1",
            "extended_content": [],
        },
        {
            "kind": "UserRejectObservation",
            "id": "r1",
            "timestamp": "2025-06-01T10:00:04",
            "source": "hook",
            "tool_name": "count",
            "tool_call_id": "call_2",
            "rejection_reason": "blocked",
            "rejection_source": "hook",
            "action_id": "x2",
        },
        {
            "kind": "AgentErrorEvent",
            "id": "g1",
            "timestamp": "2025-06-01T10:00:05",
            "source": "agent",
            "tool_name": "count",
            "tool_call_id": "call_3",
            "error": "bad",
            "classification": {"kind": "agent_action", "retryable": False},
        },
    ]

    events = [Event.model_validate_json(json.dumps(line)) for line in lines]

    system, message, action, observation, rejected, error = events
    assert isinstance(system, SystemPromptEvent)
    assert [part.text for part in system.to_llm_message().content] == [  # type: ignore[union-attr]
        "You are helpful.",
        "Today is Monday.",
    ]
    assert isinstance(message, MessageEvent) and message.activated_skills == ["git"]
    assert message.to_llm_message().text == "hi\n<skill>git tips</skill>"
    assert isinstance(action, ActionEvent) and isinstance(action.action, CountAction)
    assert (action.security_risk, action.summary) == ("LOW", "count the lines")
    assert action.to_llm_message().reasoning_content == "the file is small"
    assert action.to_llm_message().thinking_blocks == [ThinkingBlock(thinking="hm", signature="s")]
    assert isinstance(observation, ObservationEvent)
    assert isinstance(observation.observation, CountObservation)
    assert isinstance(rejected, UserRejectObservation) and rejected.rejection_source == "hook"
    assert isinstance(error, AgentErrorEvent) and error.classification is not None


def test_fields_left_empty_are_not_written() -> None:
    event = ActionEvent(tool_name="count", tool_call_id="c", tool_call=CALL)

    stored = json.loads(event.model_dump_json())

    for name in ("reasoning_content", "thinking_blocks", "security_risk", "summary"):
        assert name not in stored


def test_events_to_messages_is_available_on_the_event_class() -> None:
    events = [MessageEvent(source="user", llm_message=text_message("user", "hi"))]

    assert LLMConvertibleEvent.events_to_messages(events) == events_to_messages(events)


def test_an_agent_keeps_the_replys_reasoning_on_its_first_action(
    workspace_dir: Path, persistence_dir: Path
) -> None:
    from openhands.sdk import Agent, LocalConversation
    from openhands.sdk.testing import TestLLM

    reply = Message(
        role="assistant",
        reasoning_content="think first",
        thinking_blocks=[ThinkingBlock(thinking="think first", signature="sig")],
        tool_calls=[
            MessageToolCall(id="t1", name="think", arguments='{"thought": "a"}'),
            MessageToolCall(id="t2", name="finish", arguments='{"message": "ok"}'),
        ],
    )
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([reply])), workspace_dir, persistence_dir=persistence_dir
    )
    try:
        conversation.send_message("go")
        conversation.run()
        actions = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
        observations = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    finally:
        conversation.close()

    assert [a.reasoning_content for a in actions] == ["think first", None]
    assert [len(a.thinking_blocks) for a in actions] == [1, 0]
    assert type(observations[0].observation).__name__ == "ThinkObservation"
    merged = events_to_messages(actions)
    assert merged[0].reasoning_content == "think first"


def test_a_fresh_process_reads_a_terminal_observation_typed(tmp_path: Path) -> None:
    from openhands.tools.terminal import TerminalObservation

    event = _observed(TerminalObservation.from_text("hi", exit_code=0, command="echo hi"))
    path = tmp_path / "event.json"
    path.write_text(event.model_dump_json())
    script = (
        "import sys\n"
        "from openhands.sdk.event import Event\n"
        "assert 'openhands.tools.terminal' not in sys.modules\n"
        f"event = Event.model_validate_json(open({str(path)!r}).read())\n"
        "print(type(event.observation).__module__, type(event.observation).__name__,"
        " event.observation.exit_code)\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )

    assert result.stdout.split() == [
        "openhands.tools.terminal.definition",
        "TerminalObservation",
        "0",
    ]

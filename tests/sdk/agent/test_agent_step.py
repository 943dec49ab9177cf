"""One agent step: ask the LLM, validate and run its tool calls, record what happened."""

from __future__ import annotations

import os
from typing import Any

import pytest
from openhands.sdk import (
    ActionEvent,
    Agent,
    AgentErrorEvent,
    ConversationExecutionStatus,
    LocalConversation,
    Message,
    MessageEvent,
    Observation,
    ObservationEvent,
    ToolDefinition,
    register_tool,
)
from openhands.sdk.testing import TestLLM

FINISHED = ConversationExecutionStatus.FINISHED


class BrokenTool(ToolDefinition):
    """Always raises, like a tool with a bug."""

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        raise RuntimeError("disk on fire")


class SloppyTool(ToolDefinition):
    """Returns a plain string instead of an Observation."""

    def __call__(self, action: Any, conversation: Any = None) -> Any:
        return "not an observation"


class UndecodableNameTool(ToolDefinition):
    """Reports a file name with a byte that is not UTF-8, as os.listdir gives it."""

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        return Observation.from_text(os.fsdecode(b"caf\xe9.txt"))


class UndecodableErrorTool(ToolDefinition):
    """Raises an error quoting a file name with a byte that is not UTF-8."""

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        raise FileNotFoundError(os.fsdecode(b"caf\xe9.txt"))


register_tool(BrokenTool.name, BrokenTool)
register_tool(SloppyTool.name, SloppyTool)
register_tool(UndecodableNameTool.name, UndecodableNameTool)
register_tool(UndecodableErrorTool.name, UndecodableErrorTool)


def _of(conversation: LocalConversation, kind: type) -> list[Any]:
    return [event for event in conversation.state.events if isinstance(event, kind)]


def _tool_messages(messages: list[Message]) -> list[Message]:
    return [message for message in messages if message.role == "tool"]


def test_content_only_reply_finishes_the_run(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.text("All done, nothing to change.")])
    conversation.send_message("Is anything left?")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    last_message = _of(conversation, MessageEvent)[-1]
    assert last_message.source == "agent"
    assert last_message.llm_message.text == "All done, nothing to change."
    assert len(llm.calls) == 1


def test_finish_call_ends_the_run_with_its_message(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.finish("wrote hello.txt")])
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert _of(conversation, ObservationEvent)[-1].text == "wrote hello.txt"
    assert llm.remaining == 0


def test_custom_tool_gets_validated_arguments_and_its_observation_is_recorded(
    make_conversation, reply, echo_received
) -> None:
    conversation, llm = make_conversation(
        [reply.call("echo", {"text": "hi", "times": 2}, call_id="c1"), reply.finish()],
        tools=["echo"],
    )
    conversation.send_message("echo hi twice")

    conversation.run()

    assert [action.model_dump() for action in echo_received] == [{"text": "hi", "times": 2}]
    action = _of(conversation, ActionEvent)[0]
    assert action.action is echo_received[0]
    observation = _of(conversation, ObservationEvent)[0]
    assert (observation.tool_call_id, observation.action_id) == ("c1", action.id)
    assert observation.text == "hi hi"
    answer = _tool_messages(llm.calls[1])[-1]
    assert (answer.tool_call_id, answer.text) == ("c1", "hi hi")


def test_defaults_are_filled_in_before_the_tool_runs(
    make_conversation, reply, echo_received
) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "once"}), reply.finish()], tools=["echo"]
    )
    conversation.send_message("go")

    conversation.run()

    assert echo_received[0].model_dump() == {"text": "once", "times": 1}


@pytest.mark.parametrize(
    ("name", "raw_arguments", "expected"),
    [
        ("echo", '{"text": "hi", ', "Invalid arguments for tool 'echo'"),
        ("echo", '["hi"]', "arguments must be a JSON object"),
        ("echo", '{"times": 2}', "text"),
        ("echo", '{"text": "hi", "times": 99}', "times"),
        ("echo", '{"text": "hi", "volume": 3}', "volume"),
        ("teleport", "{}", "Unknown tool 'teleport'"),
    ],
    ids=[
        "bad-json",
        "not-an-object",
        "missing-field",
        "out-of-range",
        "extra-field",
        "unknown-tool",
    ],
)
def test_invalid_call_reaches_the_agent_as_an_error_on_the_next_call(
    make_conversation, reply, echo_received, name: str, raw_arguments: str, expected: str
) -> None:
    conversation, llm = make_conversation(
        [reply.call(name, raw_arguments=raw_arguments, call_id="bad"), reply.finish()],
        tools=["echo"],
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert echo_received == []
    error = _of(conversation, AgentErrorEvent)[0]
    assert error.tool_call_id == "bad"
    assert expected in error.error
    assert _of(conversation, ActionEvent)[0].action is None
    answer = _tool_messages(llm.calls[1])[-1]
    assert answer.tool_call_id == "bad"
    assert answer.text.startswith("Error: ")
    assert expected in answer.text


def test_unknown_tool_error_lists_the_available_tools(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.call("nope"), reply.finish()], tools=["echo"])
    conversation.send_message("go")

    conversation.run()

    assert "echo, finish, think" in _of(conversation, AgentErrorEvent)[0].error


def test_a_tool_that_raises_becomes_an_error_the_agent_sees(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.call("broken"), reply.finish()], tools=["broken"])
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert "RuntimeError: disk on fire" in _tool_messages(llm.calls[1])[-1].text


def test_a_tool_returning_a_non_observation_is_an_error(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.call("sloppy"), reply.finish()], tools=["sloppy"])
    conversation.send_message("go")

    conversation.run()

    assert "not an Observation" in _of(conversation, AgentErrorEvent)[0].error


def test_an_observation_with_undecodable_bytes_is_recorded_not_fatal(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [reply.call("undecodable_name"), reply.finish()], tools=["undecodable_name"]
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert _of(conversation, ObservationEvent)[0].text == "caf\ufffd.txt"


def test_a_tool_error_with_undecodable_bytes_is_recorded_not_fatal(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [reply.call("undecodable_error"), reply.finish()], tools=["undecodable_error"]
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert "caf\ufffd.txt" in _of(conversation, AgentErrorEvent)[0].error


def test_parallel_calls_reach_the_llm_as_one_assistant_message(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [
            reply.calls(("echo", {"text": "a"}), ("teleport", {}), ("echo", {"text": "b"})),
            reply.finish(),
        ],
        tools=["echo"],
    )
    conversation.send_message("go")

    conversation.run()

    second_call = llm.calls[1]
    assistant = [message for message in second_call if message.tool_calls]
    assert len(assistant) == 1
    call_ids = [call.id for call in assistant[0].tool_calls or []]
    position = second_call.index(assistant[0])
    answers = second_call[position + 1 : position + 4]
    assert [answer.tool_call_id for answer in answers] == call_ids
    assert [answer.text for answer in answers][::2] == ["a", "b"]


def test_the_thought_of_a_reply_reaches_the_next_call(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.call("think", {"thought": "x"}, thought="First I plan."), reply.finish()]
    )
    conversation.send_message("go")

    conversation.run()

    assistant = next(message for message in llm.calls[1] if message.tool_calls)
    assert assistant.text == "First I plan."


def test_the_first_call_sees_system_prompt_then_user_message(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.text("hi")])
    conversation.send_message("hello")

    conversation.run()

    assert [message.role for message in llm.calls[0]] == ["system", "user"]
    assert llm.calls[0][1].text == "hello"


def test_tool_schemas_include_the_builtins_and_the_agents_tools(make_conversation) -> None:
    conversation, _ = make_conversation(tools=["echo"])

    names = [schema["function"]["name"] for schema in conversation.tool_schemas]

    assert sorted(names) == ["echo", "finish", "think"]


def test_builtins_can_be_left_out(workspace_dir) -> None:
    agent = Agent(llm=TestLLM.from_messages([]), tools=[], include_default_tools=[])

    with LocalConversation(agent, workspace_dir) as conversation:
        assert conversation.tool_schemas == []

"""`TestLLM` replays a script of messages and errors."""

from __future__ import annotations

import pytest
from openhands.sdk.llm import LLM, LLMTransientError, Message, MessageToolCall, text_message
from openhands.sdk.testing import TestLLM, TestLLMExhaustedError

HI = [text_message("user", "hi")]


def test_replies_come_in_scripted_order() -> None:
    llm = TestLLM.from_messages(
        [text_message("assistant", "first"), text_message("assistant", "second")]
    )

    assert llm.completion(HI).message.text == "first"
    assert llm.completion(HI).message.text == "second"
    assert llm.remaining == 0


def test_scripted_tool_calls_are_returned() -> None:
    call = MessageToolCall(id="call_1", name="finish", arguments='{"message": "done"}')
    llm = TestLLM.from_messages([Message(role="assistant", tool_calls=[call])])

    reply = llm.completion(HI).message

    assert reply.tool_calls == [call]


def test_running_out_raises_a_clear_error() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "only")], usage_id="judge")
    llm.completion(HI)

    with pytest.raises(TestLLMExhaustedError, match="'judge' ran out of scripted replies after 1"):
        llm.completion(HI)


def test_scripted_exception_is_raised() -> None:
    failure = LLMTransientError("provider down", model="test/scripted")
    llm = TestLLM.from_messages([failure, text_message("assistant", "after")])

    with pytest.raises(LLMTransientError, match="provider down"):
        llm.completion(HI)
    assert llm.completion(HI).message.text == "after"


def test_calls_record_the_messages_sent() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "ok")])

    llm.completion(HI)

    assert llm.calls == [HI]


def test_scripted_costs_reach_metrics() -> None:
    llm = TestLLM.from_messages(
        [text_message("assistant", "a"), text_message("assistant", "b")], costs=[0.25, 0.5]
    )

    llm.completion(HI)
    llm.completion(HI)

    assert llm.metrics.accumulated_cost == pytest.approx(0.75)
    assert llm.metrics.completions == 2


def test_non_assistant_messages_are_returned_as_assistant() -> None:
    llm = TestLLM.from_messages([text_message("user", "odd")])

    assert llm.completion(HI).message.role == "assistant"


def test_added_messages_extend_the_script() -> None:
    llm = TestLLM.from_messages([])
    llm.add_messages(text_message("assistant", "late"))

    assert llm.completion(HI).message.text == "late"


def test_test_llm_is_an_llm() -> None:
    assert isinstance(TestLLM.from_messages([]), LLM)

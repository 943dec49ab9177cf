"""`ParallelToolExecutor` on its own: results in call order, a failing call as an error event."""

from __future__ import annotations

import pytest
from openhands.sdk import ActionEvent, AgentErrorEvent, MessageToolCall, TextContent
from openhands.sdk.agent import ParallelToolExecutor


def _call(name: str, call_id: str) -> ActionEvent:
    return ActionEvent(
        thought=[TextContent(text="")],
        tool_name=name,
        tool_call_id=call_id,
        tool_call=MessageToolCall(id=call_id, name=name, arguments="{}"),
        llm_response_id="r1",
    )


@pytest.mark.parametrize("workers", [1, 3])
def test_a_call_that_raises_becomes_an_error_event_and_the_others_keep_their_results(
    workers: int,
) -> None:
    calls = [_call("a", "c0"), _call("b", "c1"), _call("c", "c2")]

    def run(call: ActionEvent) -> list[str]:
        if call.tool_call_id == "c1":
            raise RuntimeError("disk on fire")
        return [f"done {call.tool_call_id}"]

    results = ParallelToolExecutor(max_workers=workers).execute_batch(calls, run)

    assert results[0] == ["done c0"] and results[2] == ["done c2"]
    [error] = results[1]
    assert isinstance(error, AgentErrorEvent)
    assert (error.tool_name, error.tool_call_id) == ("b", "c1")
    assert "RuntimeError: disk on fire" in error.error

"""The stuck detector stops a run that repeats the same call with the same result."""

from __future__ import annotations

from openhands.sdk import ConversationErrorEvent, ConversationExecutionStatus
from openhands.sdk.conversation.stuck import REPEATS

Status = ConversationExecutionStatus


def test_repeating_the_same_call_and_result_ends_the_run_stuck(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.think("same") for _ in range(REPEATS + 3)])
    conversation.send_message("go")

    conversation.run()  # stuck is a status, not an exception

    assert conversation.state.execution_status == Status.STUCK
    assert len(llm.calls) == REPEATS
    error = conversation.state.events[-2]
    assert isinstance(error, ConversationErrorEvent)
    assert error.code == "Stuck"
    assert "send it a message" in error.detail


def test_repeated_errors_count_as_stuck_too(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.call("nope") for _ in range(REPEATS + 1)])
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.STUCK


def test_varying_calls_are_progress(make_conversation, reply) -> None:
    script = [reply.think(f"step {i}") for i in range(REPEATS * 3)] + [reply.finish()]
    conversation, _ = make_conversation(script)
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_fewer_repeats_than_the_threshold_are_not_stuck(make_conversation, reply) -> None:
    script = [reply.think("same") for _ in range(REPEATS - 1)] + [reply.finish()]
    conversation, _ = make_conversation(script)
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_a_user_message_gives_a_fresh_start(make_conversation, reply) -> None:
    script = [reply.think("same") for _ in range(REPEATS)]
    script += [reply.think("same") for _ in range(REPEATS - 1)] + [reply.finish()]
    conversation, _ = make_conversation(script)
    conversation.send_message("go")
    conversation.run()
    assert conversation.state.execution_status == Status.STUCK

    conversation.send_message("Try something else.")
    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_detection_can_be_switched_off(make_conversation, reply) -> None:
    script = [reply.think("same") for _ in range(REPEATS + 2)] + [reply.finish()]
    conversation, _ = make_conversation(script, stuck_detection=False)
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED

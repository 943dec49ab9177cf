"""The stuck detector ends a run that repeats itself: same call and result, same error,
alternating calls, or agent messages with no action (a monologue)."""

from __future__ import annotations

import pytest
from openhands.sdk import ConversationErrorEvent, ConversationExecutionStatus, HookConfig
from openhands.sdk.conversation import StuckDetectionThresholds
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


def _always_deny_stop() -> HookConfig:
    return HookConfig.model_validate(
        {
            "stop": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}
            ]
        }
    )


def test_the_stuck_detector_is_exposed_with_its_thresholds(make_conversation) -> None:
    conversation, _ = make_conversation(stuck_detection_thresholds={"monologue": 5})

    detector = conversation.stuck_detector

    assert detector is not None
    assert detector.thresholds == StuckDetectionThresholds(monologue=5)
    assert detector.is_stuck() is False


def test_there_is_no_stuck_detector_when_detection_is_off(make_conversation) -> None:
    conversation, _ = make_conversation(stuck_detection=False)

    assert conversation.stuck_detector is None


def test_the_detector_says_stuck_after_a_stuck_run(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("same") for _ in range(REPEATS)])
    conversation.send_message("go")
    conversation.run()

    assert conversation.stuck_detector is not None
    assert conversation.stuck_detector.is_stuck() is True


def test_a_stop_hook_that_always_denies_ends_the_run_stuck_not_at_the_cap(
    make_conversation, reply
) -> None:
    conversation, llm = make_conversation(
        [reply.text(f"round {i} done") for i in range(10)], hook_config=_always_deny_stop()
    )
    conversation.send_message("go")

    conversation.run()  # no exception: stuck is a status

    assert conversation.state.execution_status == Status.STUCK
    assert len(llm.calls) == 3  # the default monologue threshold
    error = conversation.state.events[-2]
    assert isinstance(error, ConversationErrorEvent)
    assert "messages in a row" in error.detail


def test_the_monologue_threshold_is_configurable(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.text(f"round {i} done") for i in range(10)],
        hook_config=_always_deny_stop(),
        stuck_detection_thresholds=StuckDetectionThresholds(monologue=5),
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.STUCK
    assert len(llm.calls) == 5


def test_tool_calls_between_agent_messages_are_not_a_monologue(make_conversation, reply) -> None:
    script = []
    for index in range(4):
        script += [reply.think(f"plan {index}"), reply.text(f"round {index} done")]
    conversation, llm = make_conversation(
        script, hook_config=_always_deny_stop(), max_iteration_per_run=8
    )
    conversation.send_message("go")

    conversation.run()

    assert len(llm.calls) == 8
    assert conversation.state.execution_status == Status.ERROR  # the step cap, not stuck


def test_the_same_failing_call_is_stuck_one_past_the_error_threshold(
    make_conversation, reply
) -> None:
    thresholds = StuckDetectionThresholds(action_error=2)
    conversation, llm = make_conversation(
        [reply.call("nope") for _ in range(6)], stuck_detection_thresholds=thresholds
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.STUCK
    assert len(llm.calls) == 3


def test_two_alternating_calls_with_the_same_results_are_stuck(make_conversation, reply) -> None:
    script = [reply.think("a" if index % 2 == 0 else "b") for index in range(10)]
    conversation, llm = make_conversation(script)
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.STUCK
    assert len(llm.calls) == 6  # the default alternating_pattern threshold


def test_thresholds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="monologue"):
        StuckDetectionThresholds(monologue=0)

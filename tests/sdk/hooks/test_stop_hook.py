"""Stop hooks: exit 2 denies the stop, its output reaches the agent, and the run goes on."""

from __future__ import annotations

import json

from openhands.sdk import (
    ConversationErrorEvent,
    ConversationExecutionStatus,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
)
from openhands.sdk.conversation.run_loop import STOP_HOOK_FEEDBACK_PREFIX

Status = ConversationExecutionStatus

# Blocks the first stop only: a marker file remembers that it already did.
STOP_ONCE = (
    "cat > stop_payload.json; echo called >> stop_calls.log; "
    "if [ -f stop_marker ]; then exit 0; fi; touch stop_marker; "
    "echo 'Write summary.txt before stopping.' >&2; exit 2"
)


def test_a_stop_hook_that_blocks_once_makes_the_run_continue_then_finish(
    make_conversation, reply, hook_config, workspace_dir
) -> None:
    hook_calls_when_finished: list[int] = []

    def watch(event: Event) -> None:
        if isinstance(event, ConversationStateUpdateEvent) and event.value == "finished":
            calls = workspace_dir / "stop_calls.log"
            hook_calls_when_finished.append(
                len(calls.read_text().splitlines()) if calls.exists() else 0
            )

    conversation, llm = make_conversation(
        [reply.finish("done"), reply.finish("done, summary written")],
        hook_config=hook_config("Stop", STOP_ONCE),
        callbacks=[watch],
    )
    conversation.send_message("Do the task")

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED
    assert len(llm.calls) == 2
    feedback = llm.calls[1][-1]
    assert feedback.role == "user"
    assert feedback.text == f"{STOP_HOOK_FEEDBACK_PREFIX}\nWrite summary.txt before stopping."
    # `finished` was published exactly once, after the hook had run both times.
    assert hook_calls_when_finished == [2]


def test_the_feedback_is_recorded_as_a_hook_message(make_conversation, reply, hook_config) -> None:
    conversation, _ = make_conversation(
        [reply.text("done"), reply.text("really done")], hook_config=hook_config("Stop", STOP_ONCE)
    )
    conversation.send_message("go")

    conversation.run()

    hook_messages = [
        e for e in conversation.state.events if isinstance(e, MessageEvent) and e.source == "hook"
    ]
    assert len(hook_messages) == 1
    assert hook_messages[0].llm_message.text.startswith(STOP_HOOK_FEEDBACK_PREFIX)


def test_no_status_other_than_running_is_published_while_the_hook_decides(
    make_conversation, reply, hook_config
) -> None:
    conversation, _ = make_conversation(
        [reply.finish(), reply.finish()], hook_config=hook_config("Stop", STOP_ONCE)
    )
    conversation.send_message("go")

    conversation.run()

    statuses = [
        e.value
        for e in conversation.state.events
        if isinstance(e, ConversationStateUpdateEvent) and e.key == "execution_status"
    ]
    assert statuses == ["running", "finished"]


def test_the_stop_hook_gets_a_json_payload(
    make_conversation, reply, hook_config, workspace_dir
) -> None:
    conversation, _ = make_conversation(
        [reply.finish()], hook_config=hook_config("Stop", "cat > stop_payload.json")
    )
    conversation.send_message("go")

    conversation.run()

    payload = json.loads((workspace_dir / "stop_payload.json").read_text())
    assert payload["hook_event_name"] == "Stop"
    assert payload["session_id"] == conversation.id.hex
    assert payload["cwd"] == str(workspace_dir)


def test_a_stop_hook_that_always_blocks_is_bounded_by_the_step_cap(
    make_conversation, reply, hook_config
) -> None:
    conversation, llm = make_conversation(
        [reply.finish(f"attempt {i}") for i in range(3)],
        hook_config=hook_config("Stop", "echo no >&2; exit 2"),
        max_iteration_per_run=3,
    )
    conversation.send_message("go")

    conversation.run()

    assert len(llm.calls) == 3
    assert conversation.state.execution_status == Status.ERROR
    error = conversation.state.events[-2]
    assert isinstance(error, ConversationErrorEvent)
    assert error.code == "MaxIterationsReached"


def test_a_stop_hook_that_allows_finishes_at_once(make_conversation, reply, hook_config) -> None:
    conversation, llm = make_conversation(
        [reply.finish()], hook_config=hook_config("Stop", "exit 0")
    )
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED
    assert len(llm.calls) == 1

"""PreToolUse, PostToolUse and UserPromptSubmit hooks on a real conversation."""

from __future__ import annotations

import json
import logging

import pytest
from openhands.sdk import ObservationEvent, UserRejectObservation
from openhands.sdk.conversation import UserPromptBlockedError


def test_pre_tool_use_exit_2_rejects_the_call(
    make_conversation, reply, hook_config, echo_received
) -> None:
    conversation, llm = make_conversation(
        [reply.call("echo", {"text": "rm -rf /"}, call_id="c1"), reply.finish()],
        tools=["echo"],
        hook_config=hook_config("PreToolUse", "echo 'dangerous text' >&2; exit 2", matcher="echo"),
    )
    conversation.send_message("go")

    conversation.run()

    assert echo_received == []
    rejection = next(e for e in conversation.state.events if isinstance(e, UserRejectObservation))
    assert (rejection.source, rejection.tool_call_id) == ("hook", "c1")
    assert rejection.rejection_reason == "dangerous text"
    answer = llm.calls[1][-1]
    assert (answer.role, answer.tool_call_id) == ("tool", "c1")
    assert answer.text == "Action rejected: dangerous text"


def test_pre_tool_use_matcher_limits_which_tools_are_checked(
    make_conversation, reply, hook_config
) -> None:
    conversation, _ = make_conversation(
        [reply.think("fine"), reply.finish()],
        tools=["echo"],
        hook_config=hook_config("PreToolUse", "exit 2", matcher="ec.*"),
    )
    conversation.send_message("go")

    conversation.run()

    assert not any(isinstance(e, UserRejectObservation) for e in conversation.state.events)


def test_pre_tool_use_gets_the_tool_input(
    make_conversation, reply, hook_config, workspace_dir
) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "hi"}), reply.finish()],
        tools=["echo"],
        hook_config=hook_config("PreToolUse", "cat > pre.json", matcher="echo"),
    )
    conversation.send_message("go")

    conversation.run()

    payload = json.loads((workspace_dir / "pre.json").read_text())
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "echo"
    assert payload["tool_input"] == {"text": "hi", "times": 1}


def test_post_tool_use_gets_the_tool_response(
    make_conversation, reply, hook_config, workspace_dir
) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "hi", "times": 2}), reply.finish()],
        tools=["echo"],
        hook_config=hook_config("PostToolUse", "cat > post.json", matcher="echo"),
    )
    conversation.send_message("go")

    conversation.run()

    payload = json.loads((workspace_dir / "post.json").read_text())
    assert payload["hook_event_name"] == "PostToolUse"
    assert payload["tool_response"] == "hi hi"


def test_post_tool_use_cannot_block(make_conversation, reply, hook_config) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "hi"}), reply.finish()],
        tools=["echo"],
        hook_config=hook_config("PostToolUse", "exit 2"),
    )
    conversation.send_message("go")

    conversation.run()

    assert any(
        isinstance(e, ObservationEvent) and e.text == "hi" for e in conversation.state.events
    )


def test_user_prompt_submit_exit_2_blocks_the_message_and_records_only_the_hook_run(
    make_conversation, hook_config, workspace_dir
) -> None:
    conversation, _ = make_conversation(
        hook_config=hook_config(
            "UserPromptSubmit", "cat > prompt.json; echo 'no secrets in prompts' >&2; exit 2"
        )
    )
    before = len(conversation.state.events)

    with pytest.raises(UserPromptBlockedError) as info:
        conversation.send_message("my password is hunter2")

    assert info.value.feedback == "no secrets in prompts"
    added = list(conversation.state.events)[before:]
    assert [(e.kind, e.blocked) for e in added] == [("HookExecutionEvent", True)]
    assert "hunter2" not in added[0].model_dump_json()
    payload = json.loads((workspace_dir / "prompt.json").read_text())
    assert payload["hook_event_name"] == "UserPromptSubmit"
    assert payload["prompt"] == "my password is hunter2"


def test_user_prompt_submit_exit_0_lets_the_message_through(make_conversation, hook_config) -> None:
    conversation, _ = make_conversation(hook_config=hook_config("UserPromptSubmit", "exit 0"))

    conversation.send_message("hello")

    assert conversation.state.events[-1].llm_message.text == "hello"


def test_other_exit_codes_are_logged_and_do_not_block(
    make_conversation, hook_config, caplog: pytest.LogCaptureFixture
) -> None:
    conversation, _ = make_conversation(
        hook_config=hook_config("UserPromptSubmit", "echo oops >&2; exit 1")
    )

    with caplog.at_level(logging.WARNING):
        conversation.send_message("hello")

    assert conversation.state.events[-1].llm_message.text == "hello"
    assert "exited 1 (not blocking)" in caplog.text
    assert "oops" in caplog.text

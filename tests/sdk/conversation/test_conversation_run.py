"""LocalConversation runs: status transitions, step cap, failures and usage errors."""

from __future__ import annotations

import gc
import threading
import uuid
from typing import Any

import pytest
from openhands.sdk import (
    ActionEvent,
    Agent,
    Conversation,
    ConversationErrorEvent,
    ConversationExecutionStatus,
    ConversationRunError,
    ConversationStateUpdateEvent,
    LocalConversation,
    Message,
    Observation,
    ObservationEvent,
    TextContent,
    Tool,
    ToolDefinition,
    register_tool,
)
from openhands.sdk.conversation import ConversationAlreadyRunningError, ConversationClosedError
from openhands.sdk.llm import LLMTransientError
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import UnknownToolError

Status = ConversationExecutionStatus


class InterruptingTool(ToolDefinition):
    """Raises KeyboardInterrupt, like Ctrl-C arriving mid-step."""

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        raise KeyboardInterrupt


register_tool(InterruptingTool.name, InterruptingTool)


def _statuses(conversation: LocalConversation) -> list[str]:
    return [
        event.value
        for event in conversation.state.events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "execution_status"
    ]


def test_factory_builds_a_local_conversation_for_a_folder(workspace_dir) -> None:
    conversation = Conversation(Agent(llm=TestLLM.from_messages([])), workspace=str(workspace_dir))
    try:
        assert isinstance(conversation, LocalConversation)
        assert conversation.workspace.working_dir == str(workspace_dir)
    finally:
        conversation.close()


def test_a_new_conversation_starts_idle_with_its_system_prompt(make_conversation, kinds) -> None:
    conversation, _ = make_conversation()

    assert conversation.state.execution_status == Status.IDLE
    assert kinds(conversation) == ["SystemPromptEvent"]


def test_a_run_goes_running_then_finished(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("a"), reply.finish()])
    conversation.send_message("go")

    conversation.run()

    assert _statuses(conversation) == ["running", "finished"]
    assert conversation.state.execution_status == Status.FINISHED
    assert not conversation.is_running


def test_calls_after_finish_in_one_reply_are_dropped_never_run(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.calls(("think", {"thought": "before"}), ("finish", {}), ("think", {"thought": "x"}))]
    )
    conversation.send_message("go")

    conversation.run()

    calls = [e.tool_call_id for e in conversation.state.events if isinstance(e, ActionEvent)]
    assert calls == ["call_0_think", "call_1_finish"]
    answered = [
        e.tool_call_id for e in conversation.state.events if isinstance(e, ObservationEvent)
    ]
    assert answered == ["call_0_think", "call_1_finish"]
    assert conversation.state.execution_status == Status.FINISHED
    assert len(llm.calls) == 1


def test_with_state_holds_the_lock_a_run_needs_to_change_it(make_conversation) -> None:
    conversation, _ = make_conversation()

    def lock_is_free_for_another_thread() -> bool:
        answer: list[bool] = []

        def probe() -> None:
            got = conversation.state.lock.acquire(blocking=False)
            if got:
                conversation.state.lock.release()
            answer.append(got)

        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        return answer[0]

    with conversation.state as state:
        assert state is conversation.state
        assert not lock_is_free_for_another_thread()
    assert lock_is_free_for_another_thread()


def test_a_new_message_after_finishing_starts_a_new_turn(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.text("first"), reply.text("second")])
    conversation.send_message("one")
    conversation.run()

    conversation.send_message("two")
    assert conversation.state.execution_status == Status.IDLE
    conversation.run()

    assert _statuses(conversation) == ["running", "finished", "idle", "running", "finished"]
    assert [message.text for message in llm.calls[1]][-3:] == ["one", "first", "two"]


def test_the_step_cap_ends_the_run_in_error_without_raising(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.think(f"thought {i}") for i in range(5)], max_iteration_per_run=3
    )
    conversation.send_message("go")

    conversation.run()  # as in the reference SDK: a status and an error event, no exception

    assert len(llm.calls) == 3
    assert conversation.state.execution_status == Status.ERROR
    error = [e for e in conversation.state.events if isinstance(e, ConversationErrorEvent)][-1]
    assert error.code == "MaxIterationsReached"
    assert "max_iteration_per_run" in error.detail


def test_an_llm_failure_is_recorded_and_raised_with_its_detail(make_conversation, reply) -> None:
    failure = LLMTransientError("provider returned 503 after 4 retries", model="test/scripted")
    conversation, _ = make_conversation([reply.think("a"), failure])
    conversation.send_message("go")

    with pytest.raises(ConversationRunError) as info:
        conversation.run()

    assert info.value.code == "LLMTransientError"
    assert "503 after 4 retries" in info.value.detail
    assert info.value.__cause__ is failure
    error = conversation.state.events[-2]
    assert isinstance(error, ConversationErrorEvent)
    assert (error.code, error.detail) == ("LLMTransientError", info.value.detail)
    assert conversation.state.execution_status == Status.ERROR
    assert _statuses(conversation)[-1] == "error"


def test_a_failed_conversation_can_continue_after_a_new_message(make_conversation, reply) -> None:
    conversation, _ = make_conversation([RuntimeError("flaky"), reply.text("recovered")])
    conversation.send_message("go")
    with pytest.raises(ConversationRunError):
        conversation.run()

    conversation.send_message("try again")
    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_an_exhausted_script_is_a_run_error_not_a_hang(make_conversation) -> None:
    conversation, _ = make_conversation([])
    conversation.send_message("go")

    with pytest.raises(ConversationRunError, match="ran out of scripted replies"):
        conversation.run()


def test_run_while_running_is_refused(make_conversation, reply, gate) -> None:
    conversation, _ = make_conversation([reply.call("gated"), reply.finish()], tools=["gated"])
    conversation.send_message("go")
    errors: list[BaseException] = []

    def second_run() -> None:
        try:
            conversation.run()
        except BaseException as exc:
            errors.append(exc)

    runner = threading.Thread(target=conversation.run)
    runner.start()
    assert gate.started.wait(5)
    second = threading.Thread(target=second_run)
    second.start()
    second.join(5)
    gate.release.set()
    runner.join(5)

    assert len(errors) == 1
    assert isinstance(errors[0], ConversationAlreadyRunningError)
    assert conversation.state.execution_status == Status.FINISHED


def test_closed_conversation_refuses_messages_and_runs(make_conversation) -> None:
    conversation, _ = make_conversation()
    conversation.close()

    with pytest.raises(ConversationClosedError, match="reopen"):
        conversation.send_message("hello")
    with pytest.raises(ConversationClosedError):
        conversation.run()
    conversation.close()  # closing twice is fine


def test_blank_messages_are_refused(make_conversation) -> None:
    conversation, _ = make_conversation()

    with pytest.raises(ValueError, match="non-blank"):
        conversation.send_message("   ")


def test_only_user_messages_can_be_sent(make_conversation) -> None:
    conversation, _ = make_conversation()

    with pytest.raises(ValueError, match="role 'assistant'"):
        conversation.send_message(Message(role="assistant", content=[TextContent(text="x")]))


def test_the_first_message_becomes_the_title(make_conversation) -> None:
    conversation, _ = make_conversation()

    conversation.send_message("Fix the failing test\nin module x")
    conversation.send_message("and then the docs")

    assert conversation.state.title == "Fix the failing test"


def test_step_cap_must_be_positive(workspace_dir) -> None:
    with pytest.raises(ValueError, match="max_iteration_per_run"):
        LocalConversation(
            Agent(llm=TestLLM.from_messages([])), workspace_dir, max_iteration_per_run=0
        )


def test_conversation_id_is_kept(make_conversation) -> None:
    wanted = uuid.uuid4()

    conversation, _ = make_conversation(conversation_id=wanted)

    assert conversation.id == wanted
    assert conversation.state.id == wanted


def test_conversation_id_may_be_given_as_a_string(workspace_dir) -> None:
    wanted = uuid.uuid4()

    conversation = Conversation(
        Agent(llm=TestLLM.from_messages([])), workspace=workspace_dir, conversation_id=str(wanted)
    )
    try:
        assert conversation.id == wanted
    finally:
        conversation.close()


def test_a_malformed_conversation_id_is_a_clear_value_error(workspace_dir) -> None:
    with pytest.raises(ValueError, match="conversation_id must be a UUID"):
        LocalConversation(
            Agent(llm=TestLLM.from_messages([])), workspace_dir, conversation_id="1234"
        )


def test_an_interrupted_step_leaves_the_conversation_paused_and_runnable(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [reply.call("interrupting"), reply.finish()], tools=["interrupting"]
    )
    conversation.send_message("go")

    with pytest.raises(KeyboardInterrupt):
        conversation.run()

    assert conversation.state.execution_status == Status.PAUSED
    assert not conversation.is_running
    conversation.run()
    assert conversation.state.execution_status == Status.FINISHED


def test_an_unknown_tool_fails_construction_without_leaking_the_log(
    workspace_dir, persistence_dir
) -> None:
    agent = Agent(llm=TestLLM.from_messages([]), tools=[Tool(name="no_such_tool")])

    with pytest.raises(UnknownToolError, match="no_such_tool"):
        LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
    gc.collect()  # an events.jsonl handle left open would warn here (warnings are errors)

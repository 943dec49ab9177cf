"""Other threads acting on a running conversation: pause, close, messages, the next run."""

from __future__ import annotations

import threading

from openhands.sdk import (
    ConversationExecutionStatus,
    ConversationStateUpdateEvent,
    Event,
    ObservationEvent,
    PauseEvent,
)

Status = ConversationExecutionStatus


def _start(conversation) -> threading.Thread:
    runner = threading.Thread(target=conversation.run, daemon=True)
    runner.start()
    return runner


def test_pause_from_another_thread_stops_after_the_current_step(
    make_conversation, reply, gate
) -> None:
    conversation, llm = make_conversation(
        [reply.call("gated", {"label": "one"}), reply.think("never reached"), reply.finish()],
        tools=["gated"],
    )
    conversation.send_message("go")
    runner = _start(conversation)
    assert gate.started.wait(5)

    conversation.pause()
    gate.release.set()
    runner.join(5)

    assert not runner.is_alive()
    assert conversation.state.execution_status == Status.PAUSED
    assert len(llm.calls) == 1  # the step in flight completed; no further LLM call
    observations = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert [o.text for o in observations] == ["passed one"]


def test_a_paused_run_resumes_where_it_stopped(make_conversation, reply, gate) -> None:
    conversation, llm = make_conversation(
        [reply.call("gated"), reply.finish("resumed")], tools=["gated"]
    )
    conversation.send_message("go")
    runner = _start(conversation)
    assert gate.started.wait(5)
    conversation.pause()
    gate.release.set()
    runner.join(5)

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED
    assert llm.remaining == 0


def test_pausing_an_idle_conversation_marks_it_paused_once(make_conversation) -> None:
    conversation, _ = make_conversation()

    conversation.pause()
    conversation.pause()

    assert conversation.state.execution_status == Status.PAUSED
    assert sum(isinstance(e, PauseEvent) for e in conversation.state.events) == 1


def test_a_pause_before_run_does_not_block_the_next_run(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.text("hi")])
    conversation.send_message("go")
    conversation.pause()

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_a_callback_that_sees_finished_can_start_the_next_run(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.text("first"), reply.text("second")])
    triggered = threading.Event()
    done = threading.Event()
    outcome: list[BaseException | None] = []
    running_when_finished: list[bool] = []

    def next_turn() -> None:
        try:
            conversation.send_message("again")
            conversation.run()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)
        done.set()

    def on_event(event: Event) -> None:
        # What a goal driver does: it sees `finished` and immediately starts another turn.
        finished = isinstance(event, ConversationStateUpdateEvent) and event.value == "finished"
        if finished:
            running_when_finished.append(conversation.is_running)
        if finished and not triggered.is_set():
            triggered.set()
            threading.Thread(target=next_turn, daemon=True).start()

    conversation.add_callback(on_event)
    conversation.send_message("go")
    conversation.run()

    assert done.wait(5)
    assert outcome == [None]
    assert running_when_finished == [False, False]
    assert conversation.state.execution_status == Status.FINISHED


def test_close_waits_for_the_running_step_and_leaves_it_paused(
    make_conversation, reply, gate
) -> None:
    conversation, _ = make_conversation([reply.call("gated"), reply.finish()], tools=["gated"])
    conversation.send_message("go")
    runner = _start(conversation)
    assert gate.started.wait(5)

    def release_once_closing() -> None:
        while not conversation.is_closed:
            threading.Event().wait(0.01)
        gate.release.set()

    threading.Thread(target=release_once_closing, daemon=True).start()
    conversation.close()

    runner.join(5)
    assert not runner.is_alive()
    assert conversation.state.execution_status == Status.PAUSED
    assert isinstance(conversation.state.events[-1], ConversationStateUpdateEvent)


def test_a_message_sent_during_the_final_step_is_answered_before_finishing(
    make_conversation, reply, gate
) -> None:
    conversation, llm = make_conversation(
        [reply.calls(("gated", {}), ("finish", {"message": "done"})), reply.text("Also done: X")],
        tools=["gated"],
    )
    conversation.send_message("Do the task")
    runner = _start(conversation)
    assert gate.started.wait(5)

    conversation.send_message("Please also do X")
    gate.release.set()
    runner.join(5)

    assert conversation.state.execution_status == Status.FINISHED
    assert len(llm.calls) == 2
    assert llm.calls[1][-1].text == "Please also do X"

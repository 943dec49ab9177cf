"""Callbacks see every event once, in log order, after it is on disk, one at a time."""

from __future__ import annotations

import logging
import threading

import pytest
from openhands.sdk import ActionEvent, ConversationExecutionStatus, Event

Status = ConversationExecutionStatus


def _log_ids(conversation) -> list[str]:
    return [event.id for event in conversation.state.events]


def test_callbacks_see_every_event_in_log_order(make_conversation, reply) -> None:
    seen: list[str] = []
    conversation, _ = make_conversation(
        [reply.think("a"), reply.finish()], callbacks=[lambda event: seen.append(event.id)]
    )
    conversation.send_message("go")

    conversation.run()

    assert seen == _log_ids(conversation)


def test_an_event_is_on_disk_before_callbacks_see_it(make_conversation, reply) -> None:
    on_disk: list[bool] = []
    conversation, _ = make_conversation([reply.think("a"), reply.finish()])
    events_file = conversation.state.folder / "events.jsonl"

    def check(event: Event) -> None:
        last_line = events_file.read_text().splitlines()[-1]
        on_disk.append(event.id in last_line)

    conversation.add_callback(check)
    conversation.send_message("go")
    conversation.run()

    assert on_disk and all(on_disk)


def test_a_failing_callback_is_logged_and_the_others_still_run(
    make_conversation, reply, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: Event) -> None:
        raise RuntimeError("callback bug")

    seen: list[str] = []
    conversation, _ = make_conversation(
        [reply.finish()], callbacks=[broken, lambda event: seen.append(event.id)]
    )
    conversation.send_message("go")

    with caplog.at_level(logging.ERROR):
        conversation.run()

    assert conversation.state.execution_status == Status.FINISHED
    assert seen == _log_ids(conversation)
    assert "callback failed" in caplog.text


def test_events_emitted_by_a_callback_keep_log_order_for_all_callbacks(
    make_conversation, reply
) -> None:
    first: list[str] = []
    second: list[str] = []
    conversation, _ = make_conversation([reply.think("a"), reply.think("b"), reply.finish()])

    def pauses_on_first_action(event: Event) -> None:
        first.append(event.id)
        if isinstance(event, ActionEvent) and len(first) < 8:
            conversation.pause()  # appends a PauseEvent while this event is being delivered

    conversation.add_callback(pauses_on_first_action)
    conversation.add_callback(lambda event: second.append(event.id))
    conversation.send_message("go")

    conversation.run()

    assert conversation.state.execution_status == Status.PAUSED
    assert first == second == _log_ids(conversation)[1:]  # added after the system prompt


def test_callbacks_never_overlap_when_threads_emit_at_once(make_conversation, reply, gate) -> None:
    busy = threading.Lock()
    overlaps: list[str] = []
    seen: list[str] = []

    def exclusive(event: Event) -> None:
        if not busy.acquire(blocking=False):
            overlaps.append(event.kind)
            return
        try:
            seen.append(event.id)
            threading.Event().wait(0.001)  # widen the window a concurrent call would hit
        finally:
            busy.release()

    conversation, _ = make_conversation(
        # Notes that land during the final step get answered: script enough replies for that.
        [reply.call("gated"), reply.finish(), *(reply.text("noted") for _ in range(4))],
        tools=["gated"],
        callbacks=[exclusive],
    )
    conversation.send_message("go")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    assert gate.started.wait(5)
    senders = [
        threading.Thread(target=conversation.send_message, args=(f"note {i}",)) for i in range(4)
    ]
    for sender in senders:
        sender.start()
    gate.release.set()
    for sender in senders:
        sender.join(5)
    runner.join(5)

    assert overlaps == []
    assert seen == _log_ids(conversation)


def test_a_removed_callback_sees_no_later_event(make_conversation, reply) -> None:
    seen: list[Event] = []
    conversation, _ = make_conversation([reply.finish()])
    conversation.add_callback(seen.append)
    conversation.remove_callback(seen.append)
    conversation.remove_callback(seen.append)  # removing twice is harmless

    conversation.send_message("go")
    conversation.run()

    assert seen == []

"""`visualizer=`: an instance or a class, shown every event after the callbacks."""

from __future__ import annotations

import pytest
from openhands.sdk import Event, LocalConversation, MessageEvent
from openhands.sdk.conversation import ConversationVisualizerBase


class Recorder(ConversationVisualizerBase):
    """Records what it is shown, and when (into a log shared with a callback)."""

    created: list[Recorder] = []

    def __init__(self, log: list[str] | None = None) -> None:
        super().__init__()
        self.log = log if log is not None else []
        self.kinds: list[str] = []
        Recorder.created.append(self)

    def on_event(self, event: Event) -> None:
        self.kinds.append(event.kind)
        self.log.append(f"visualizer:{event.kind}")


def test_a_visualizer_instance_sees_every_event_after_the_callbacks(
    make_conversation, reply
) -> None:
    log: list[str] = []
    visualizer = Recorder(log)
    conversation, _ = make_conversation(
        [reply.text("hi")],
        callbacks=[lambda event: log.append(f"callback:{event.kind}")],
        visualizer=visualizer,
    )
    conversation.send_message("hello")
    conversation.run()

    assert visualizer.kinds == [event.kind for event in conversation.state.events]
    assert log[:2] == ["callback:SystemPromptEvent", "visualizer:SystemPromptEvent"]
    assert all(
        log[index].startswith("callback:") and log[index + 1].startswith("visualizer:")
        for index in range(0, len(log), 2)
    )


def test_a_visualizer_class_is_instantiated_and_attached(make_conversation, reply) -> None:
    Recorder.created.clear()
    conversation, _ = make_conversation([reply.text("hi")], visualizer=Recorder)
    conversation.send_message("hello")
    conversation.run()

    assert len(Recorder.created) == 1
    assert conversation.visualizer is Recorder.created[0]
    assert "MessageEvent" in Recorder.created[0].kinds


def test_the_visualizer_reads_the_conversation_stats(make_conversation, reply) -> None:
    visualizer = Recorder()
    conversation, _ = make_conversation([reply.text("hi")], visualizer=visualizer)

    assert visualizer.conversation_stats is conversation.conversation_stats


def test_without_a_visualizer_nothing_is_shown(make_conversation) -> None:
    conversation, _ = make_conversation()

    assert conversation.visualizer is None


def test_a_visualizer_that_is_not_one_is_refused_before_anything_is_created(
    workspace_dir, persistence_dir, reply
) -> None:
    from openhands.sdk import Agent
    from openhands.sdk.testing import TestLLM

    with pytest.raises(TypeError, match="ConversationVisualizerBase"):
        LocalConversation(
            Agent(llm=TestLLM.from_messages([])),
            workspace_dir,
            persistence_dir=persistence_dir,
            visualizer=print,  # type: ignore[arg-type]
        )

    assert not persistence_dir.exists() or not any(persistence_dir.iterdir())


def test_a_failing_visualizer_does_not_stop_the_run(make_conversation, reply) -> None:
    class Broken(ConversationVisualizerBase):
        def on_event(self, event: Event) -> None:
            raise RuntimeError("cannot draw")

    conversation, _ = make_conversation([reply.text("hi")], visualizer=Broken())
    conversation.send_message("hello")
    conversation.run()

    assert isinstance(conversation.state.events[-3], MessageEvent)

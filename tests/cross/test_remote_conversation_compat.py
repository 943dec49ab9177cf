"""RemoteConversation matches a local one: the step cap, `conversation_stats`, `visualizer=`."""

from __future__ import annotations

import threading

from live_server import Models
from openhands.sdk import Agent, ConversationErrorEvent, Event
from openhands.sdk.conversation import ConversationExecutionStatus, ConversationVisualizerBase
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer, FakeReply


class Seen(ConversationVisualizerBase):
    def __init__(self, order: list[str]) -> None:
        super().__init__()
        self.kinds: list[str] = []
        self.order = order
        self.lock = threading.Lock()

    def on_event(self, event: Event) -> None:
        with self.lock:
            self.kinds.append(event.kind)
            self.order.append(f"visualizer:{event.kind}")


def test_the_step_cap_ends_the_run_in_error_without_raising(
    fake_llm: FakeOpenAIServer, models: Models, agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    fake_llm.set_responder(
        models.agent, lambda _body: FakeReply.tool_call("think", {"thought": "more"})
    )
    conversation = RemoteConversation(agent, remote_workspace, max_iteration_per_run=2)
    try:
        conversation.send_message("keep going")
        conversation.run()  # as a local run: a status and an error event, no exception

        assert conversation.state.execution_status == ConversationExecutionStatus.ERROR
        errors = [e for e in conversation.state.events if isinstance(e, ConversationErrorEvent)]
        assert [e.code for e in errors] == ["MaxIterationsReached"]
    finally:
        conversation.close()


def test_conversation_stats_come_from_the_server(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models, agent: Agent
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("hello")])
    conversation.send_message("hi")
    conversation.run()

    stats = conversation.conversation_stats

    assert stats.get_metrics_for_usage(agent.llm.usage_id).completions == 1
    assert stats.get_combined_metrics().completions == 1


def test_a_visualizer_sees_the_new_events_after_the_callbacks(
    fake_llm: FakeOpenAIServer, models: Models, agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("hello")])
    order: list[str] = []
    visualizer = Seen(order)
    conversation = RemoteConversation(
        agent,
        remote_workspace,
        callbacks=[lambda event: order.append(f"callback:{event.kind}")],
        visualizer=visualizer,
    )
    try:
        conversation.send_message("hi")
        conversation.run()

        assert visualizer.conversation_stats is not None
        assert "MessageEvent" in visualizer.kinds
        first = order.index("callback:MessageEvent")
        assert order[first + 1] == "visualizer:MessageEvent"
    finally:
        conversation.close()

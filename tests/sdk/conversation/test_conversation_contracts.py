"""The conversation seams of `openhands.sdk.contracts`: what drivers may rely on, checked."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Agent, LocalConversation
from openhands.sdk.contracts import (
    DrivableConversation,
    EventHistory,
    ObservableConversation,
)
from openhands.sdk.conversation import BaseConversation, InMemoryEventLog
from openhands.sdk.remote import RemoteConversation
from openhands.sdk.testing import TestLLM


def _as_observable(conversation: LocalConversation) -> ObservableConversation:
    return conversation  # pyright checks that a local conversation fits the protocol


def _as_drivable(conversation: RemoteConversation) -> DrivableConversation:
    return conversation  # pyright checks that a remote conversation fits (run_goal drives it)


def test_a_local_conversation_can_be_driven_and_observed(workspace_dir: Path) -> None:
    conversation = LocalConversation(Agent(llm=TestLLM(), tools=[]), workspace=str(workspace_dir))
    try:
        assert isinstance(_as_observable(conversation), ObservableConversation)
        assert isinstance(conversation.state.events, EventHistory)
        assert conversation.workspace.working_dir == str(workspace_dir)
    finally:
        conversation.close()


def test_every_conversation_exposes_its_state_agent_and_workspace() -> None:
    assert {"state", "agent", "workspace", "send_message", "run", "pause"} <= (
        BaseConversation.__abstractmethods__
    )


def test_a_plain_list_is_not_an_event_history_but_a_log_is() -> None:
    assert not isinstance([], EventHistory)
    assert isinstance(InMemoryEventLog(), EventHistory)

"""Fixtures of the conversation tests: a `ConversationCore` without a `LocalConversation`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from core_for_tests import CoreForTests, MakeCore
from openhands.sdk import Agent, Tool
from openhands.sdk.conversation.lifecycle import start_tools
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace.local import LocalWorkspace


@pytest.fixture
def make_core(workspace_dir: Path, persistence_dir: Path) -> Iterator[MakeCore]:
    """`make_core(tools=("echo",), persist=False)`: a `CoreForTests` around a new state.

    Its agent has the named tools (made for the state, as a conversation makes them) and an
    LLM with no replies; it persists under `persistence_dir` when `persist=True`.
    """
    states: list[ConversationState] = []

    def build(*, tools: Sequence[str] = (), persist: bool = False) -> CoreForTests:
        agent = Agent(llm=TestLLM.from_messages([]), tools=[Tool(name=name) for name in tools])
        conversation_id = uuid.uuid4()
        state = ConversationState.create(
            conversation_id,
            agent,
            LocalWorkspace(working_dir=str(workspace_dir)),
            persistence_dir=persistence_dir / conversation_id.hex if persist else None,
        )
        states.append(state)
        return CoreForTests(state, start_tools(state))

    yield build
    for state in states:
        state.close()

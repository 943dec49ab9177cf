"""Fixtures for goal-loop tests: local conversations with a scripted agent, the fake server."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from goal_helpers import GoalConversation
from openhands.sdk import Agent, LocalConversation, Message, Tool
from openhands.sdk.testing import FakeOpenAIServer, TestLLM


@pytest.fixture
def goal_conversation(workspace_dir: Path, persistence_dir: Path) -> Iterator[GoalConversation]:
    """Build a LocalConversation whose agent (usage_id "agent") replays `replies`.

    `costs` are the USD of each agent reply; `persist=True` stores it under persistence_dir;
    `tools` are tool names; other keyword arguments go to LocalConversation.
    """
    made: list[LocalConversation] = []

    def build(
        replies: Sequence[Message | Exception],
        *,
        costs: Sequence[float] = (),
        persist: bool = False,
        tools: Sequence[str] = (),
        **kwargs: Any,
    ) -> LocalConversation:
        llm = TestLLM.from_messages(list(replies), usage_id="agent", costs=list(costs))
        if persist:
            kwargs.setdefault("persistence_dir", str(persistence_dir))
        conversation = LocalConversation(
            Agent(llm=llm, tools=[Tool(name=name) for name in tools]),
            workspace=str(workspace_dir),
            **kwargs,
        )
        made.append(conversation)
        return conversation

    yield build
    for conversation in made:
        conversation.close()


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server, stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server

"""LiveConversation in-process: the names the design gives it drive a real goal to its end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from openhands.agent_server.blocking import Pools
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.live import EventService, LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry, ConversationService
from openhands.sdk import Agent, Message, TextContent
from openhands.sdk.testing import TestLLM
from openhands.sdk.wire import StartConversationRequest


def _reply(text: str) -> Message:
    return Message(role="assistant", content=[TextContent(text=text)])


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[ConversationRegistry]:
    """A registry on an empty folder, closed after the test."""
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
            "OH_WORKSPACE_PATH": str(tmp_path / "workspaces"),
        }
    )
    pools = Pools.create(2, 2)
    conversations = ConversationRegistry(config, pools)
    await conversations.load_all()
    yield conversations
    await conversations.close_all()
    pools.shutdown()


def test_the_design_names_are_the_live_conversation_and_the_registry() -> None:
    assert EventService is LiveConversation
    assert ConversationService is ConversationRegistry


async def test_start_goal_loop_runs_the_goal_and_keeps_its_task_and_outcome(
    registry: ConversationRegistry,
) -> None:
    agent = Agent(llm=TestLLM.from_messages([_reply("the file is written")]))
    cid, _ = await registry.start(StartConversationRequest(agent=agent))
    live = await registry.get(cid)
    verdict = json.dumps({"score": 1.0, "complete": True, "missing": []})
    judge = TestLLM.from_messages([_reply(verdict)], usage_id="goal-judge")

    await live.start_goal_loop("write the file", judge_llm=judge, max_iterations=2)
    task = live._goal_loop_task
    assert task is not None
    await asyncio.wait_for(task, timeout=30)

    outcome = live._goal_loop_outcome
    assert outcome is not None and (outcome.status, outcome.iterations) == ("complete", 1)
    assert live.info().metrics["goal-judge"].completions == 1

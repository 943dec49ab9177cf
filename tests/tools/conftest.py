"""Fixtures for the tool tests: a workspace folder, scripted tool-call messages, and an
isolated sub-agent registry."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import Message, MessageToolCall, TextContent
from openhands.sdk.subagent import registry as agent_registry

ToolCallFactory = Callable[..., Message]


@pytest.fixture
def workspace(workspace_dir: Path) -> Path:
    """The empty working directory of tests/conftest.py, under the tool tests' shorter name."""
    return workspace_dir


@pytest.fixture
def tool_call() -> ToolCallFactory:
    """Build an assistant message calling one tool: `tool_call("terminal", command="ls")`."""
    counter = itertools.count(1)

    def make(name: str, **arguments: Any) -> Message:
        return Message(
            role="assistant",
            content=[],
            tool_calls=[
                MessageToolCall(
                    id=f"call_{next(counter)}", name=name, arguments=json.dumps(arguments)
                )
            ],
        )

    return make


@pytest.fixture
def reply() -> Callable[[str], Message]:
    """Build a plain assistant text message (which ends a run like `finish`)."""

    def make(text: str) -> Message:
        return Message(role="assistant", content=[TextContent(text=text)])

    return make


@pytest.fixture
def isolated_agents() -> Iterator[None]:
    """The process-wide sub-agent registry, emptied for the test and restored afterwards."""
    saved = dict(agent_registry._agents)
    agent_registry._agents.clear()
    try:
        yield
    finally:
        agent_registry._agents.clear()
        agent_registry._agents.update(saved)

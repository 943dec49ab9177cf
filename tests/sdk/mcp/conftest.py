"""Fixtures for MCP tests: real MCP servers (stdio and streamable HTTP) written with `mcp`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp_test_servers import (
    TOOLS_SERVER,
    MakeMCPConversation,
    SessionServer,
    server_processes,
)
from openhands.sdk import Agent, LocalConversation, Message
from openhands.sdk.testing import TestLLM
from ports import free_port, start_serving


@pytest.fixture(scope="module")
def http_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test server over streamable HTTP on a free loopback port, shared by a module."""
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"

    def spawn(port: int) -> subprocess.Popen[bytes]:
        with open(log, "ab") as out:
            return subprocess.Popen(
                [sys.executable, str(TOOLS_SERVER), "http", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    process, port = start_serving(spawn, free_port(), log=log, what="the HTTP MCP server")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(autouse=True)
def no_server_left() -> Iterator[None]:
    """Every test must leave no stdio test server running (closing is part of the behaviour)."""
    yield
    leftover = server_processes()
    for process in leftover:
        process.kill()
    assert not leftover, f"MCP servers left running: {leftover}"


@pytest.fixture
def make_mcp_conversation(workspace_dir: Path) -> Iterator[MakeMCPConversation]:
    """`make(replies, mcp_config=..., **agent_fields)`: a conversation of a scripted agent.

    Closed at teardown (a test that checks closing closes it itself).
    """
    opened: list[LocalConversation] = []

    def build(
        replies: Sequence[Message | Exception] = (),
        *,
        mcp_config: dict[str, Any],
        persistence_dir: Path | None = None,
        **agent_fields: Any,
    ) -> tuple[LocalConversation, TestLLM]:
        llm = TestLLM.from_messages(replies)
        agent = Agent(llm=llm, mcp_config=mcp_config, **agent_fields)
        conversation = LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
        opened.append(conversation)
        return conversation, llm

    yield build
    for conversation in opened:
        conversation.close()


@pytest.fixture
def session_server(tmp_path: Path) -> Iterator[SessionServer]:
    """The session-based streamable-HTTP test server, started; stopped at teardown."""
    server = SessionServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()

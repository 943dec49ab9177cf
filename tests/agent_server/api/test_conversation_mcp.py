"""A conversation created over REST with `agent.mcp_config`: its tools work, secrets stay
hidden, and its MCP servers stop when it is deleted or the server stops (even by SIGKILL)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import ServerProcess, llm_spec, unique, wait_until

pytestmark = pytest.mark.slow

TOOLS_SERVER = Path(__file__).parents[2] / "sdk" / "mcp" / "servers" / "tools_server.py"


def _mcp_config() -> dict[str, Any]:
    return {
        "mcpServers": {
            "t": {
                "command": sys.executable,
                "args": [str(TOOLS_SERVER)],
                "env": {"SERVICE_TOKEN": "tok-never-shown"},
            }
        }
    }


def _create(client: httpx.Client, fake_llm: FakeOpenAIServer, model: str) -> str:
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, model), "mcp_config": _mcp_config()}
    response = client.post("/api/conversations", json={"agent": agent})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _mcp_servers_of(server: ServerProcess) -> list[psutil.Process]:
    assert server.process is not None
    found = []
    for child in psutil.Process(server.process.pid).children(recursive=True):
        try:
            command = child.cmdline()
        except psutil.NoSuchProcess:  # a short-lived child (a probe, a git call) just ended
            continue
        # The server itself, not the sandbox around it (bwrap names it in its command line too).
        if command[1:2] == [str(TOOLS_SERVER)]:
            found.append(child)
    return found


def _gone(process: psutil.Process) -> Callable[[], bool]:
    def check() -> bool:
        try:
            return process.status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    return check


def _events(client: httpx.Client, cid: str, kind: str) -> list[dict[str, Any]]:
    response = client.get(
        f"/api/conversations/{cid}/events/search", params={"kind": kind, "limit": 100}
    )
    assert response.status_code == 200, response.text
    return response.json()["items"]


def test_mcp_tools_of_a_rest_conversation_are_offered_and_run(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    cid = _create(client, fake_llm, agent_model)
    fake_llm.script(
        agent_model, [FakeReply.tool_call("add", {"a": 40, "b": 2}), FakeReply.text("42")]
    )

    body = {"role": "user", "content": [{"type": "text", "text": "add"}], "run": True}
    assert client.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
    observations = wait_until(lambda: _events(client, cid, "ObservationEvent"), what="a result")

    assert observations[0]["observation"]["content"] == [{"type": "text", "text": "42"}]
    [prompt] = _events(client, cid, "SystemPromptEvent")
    assert "add" in {tool["function"]["name"] for tool in prompt["tools"]}


def test_conversation_info_names_mcp_secrets_without_their_values(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    cid = _create(client, fake_llm, agent_model)

    info = client.get(f"/api/conversations/{cid}")

    assert info.json()["agent"]["mcp_config"]["t"]["env"] == {"SERVICE_TOKEN": None}
    assert "tok-never-shown" not in info.text
    assert "tok-never-shown" not in client.get("/api/conversations/search").text


def test_deleting_a_conversation_stops_its_mcp_servers(
    server: ServerProcess, client: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    before = {p.pid for p in _mcp_servers_of(server)}
    cid = _create(client, fake_llm, unique("agent"))
    [started] = [p for p in _mcp_servers_of(server) if p.pid not in before]

    assert client.delete(f"/api/conversations/{cid}").status_code == 200

    assert wait_until(_gone(started), what="the MCP server to stop")


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_mcp_servers_stop_with_the_agent_server(
    server_root: Path, fake_llm: FakeOpenAIServer, how: str
) -> None:
    own = ServerProcess(server_root / "conversations").start()
    try:
        with own.client() as client:
            _create(client, fake_llm, unique("agent"))
        [started] = _mcp_servers_of(own)

        if how == "stop":
            own.stop()
        else:
            own.kill()

        assert wait_until(_gone(started), what="the MCP server to stop")
    finally:
        own.stop()


def test_an_unusable_mcp_config_is_a_422_naming_the_server_field(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake_llm, agent_model),
        "mcp_config": {"mcpServers": {"broken": {"args": ["x"]}}},
    }

    response = client.post("/api/conversations", json={"agent": agent})

    assert response.status_code == 422
    assert "mcp_config" in response.text and "'command'" in response.text


def test_a_server_that_cannot_start_still_gives_a_conversation(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake_llm, agent_model),
        "mcp_config": {"gone": {"command": "no-such-mcp-server-here"}},
    }

    response = client.post("/api/conversations", json={"agent": agent})

    assert response.status_code == 201, response.text
    [prompt] = _events(client, response.json()["id"], "SystemPromptEvent")
    assert {tool["function"]["name"] for tool in prompt["tools"]} == {"finish", "think"}

"""The server's LLM_API_KEY goes only where it is configured for, never to a URL a client names.

A client that may create conversations (a session key holder, a page on a server without
keys) sends a keyless agent LLM whose `base_url` is a server of its own; before the fix the
server filled in its LLM_API_KEY and that server received `Authorization: Bearer <key>`. Both
servers here are scripted OpenAI-compatible fakes on loopback; the "attacker" one records the
headers it gets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, unique, verdict, wait_goal_end, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

SERVER_KEY = "sk-server-only-7f3a9c"


@pytest.fixture
def configured() -> Iterator[FakeOpenAIServer]:
    """The endpoint LLM_BASE_URL names."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def attacker() -> Iterator[FakeOpenAIServer]:
    """A server a client names as its LLM's base_url."""
    with FakeOpenAIServer() as server:
        yield server


def _run(server: ServerProcess, llm: Mapping[str, object]) -> str:
    """Create a conversation with `llm` as its agent's LLM, run one message, wait for its end."""
    body = {
        "agent": {"kind": "Agent", "llm": {"num_retries": 0, **llm}},
        "initial_message": {"content": [{"type": "text", "text": "hello"}]},
    }
    with server.client() as http:
        created = http.post("/api/conversations", json=body)
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        wait_until(
            lambda: (
                http.get(f"/api/conversations/{cid}").json()["execution_status"]
                in ("finished", "error")
            ),
            what="the run's end",
        )
    return cid


def _bearers(fake: FakeOpenAIServer) -> list[str]:
    return [headers.get("authorization", "") for headers in fake.request_headers]


def test_a_client_named_base_url_never_gets_the_servers_key(
    tmp_path: Path, configured: FakeOpenAIServer, attacker: FakeOpenAIServer
) -> None:
    model = unique("served")
    env = {
        "LLM_MODEL": f"openai/{model}",
        "LLM_BASE_URL": configured.base_url,
        "LLM_API_KEY": SERVER_KEY,
    }
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        stolen = unique("stolen")
        attacker.script(stolen, [FakeReply.text("thanks for the key")])
        _run(server, {"model": f"openai/{stolen}", "base_url": attacker.base_url})
        # The same model as the server's, at another URL: still not the server's endpoint.
        attacker.script(model, [FakeReply.text("thanks again")])
        _run(server, {"model": f"openai/{model}", "base_url": attacker.base_url + "/"})

        configured.script(model, [FakeReply.text("served")])
        _run(server, {"model": f"openai/{model}"})
    finally:
        server.stop()

    assert all(SERVER_KEY not in value for value in _bearers(attacker))
    # The configured endpoint still gets it (URL filled from LLM_BASE_URL, key from the env).
    assert _bearers(configured) == [f"Bearer {SERVER_KEY}"]
    assert "LLM_API_KEY is not given to the LLM" in server.log()
    assert SERVER_KEY not in server.log()


def test_without_llm_base_url_the_key_goes_to_no_url_at_all(
    tmp_path: Path, attacker: FakeOpenAIServer
) -> None:
    server = ServerProcess(tmp_path / "conversations", env={"LLM_API_KEY": SERVER_KEY}).start()
    try:
        stolen = unique("stolen")
        attacker.script(stolen, [FakeReply.text("thanks for the key")])
        _run(server, {"model": f"openai/{stolen}", "base_url": attacker.base_url})
        # A keyless judge the client names, beside an agent that brings its own key.
        agent, judge = unique("agent"), unique("judge")
        attacker.script(agent, [FakeReply.text("done"), FakeReply.text("done again")])
        attacker.script(judge, [verdict(True)])
        own = {"model": f"openai/{agent}", "base_url": attacker.base_url, "api_key": "client-own"}
        cid = _run(server, own)
        judge_llm = {"model": f"openai/{judge}", "base_url": attacker.base_url, "num_retries": 0}
        with server.client() as http:
            started = http.post(
                f"/api/conversations/{cid}/goal", json={"objective": "x", "judge_llm": judge_llm}
            )
            assert started.status_code == 200, started.text
            ended = wait_goal_end(lambda: http.get(f"/api/conversations/{cid}/goal").json())
    finally:
        server.stop()

    bearers = _bearers(attacker)
    assert "Bearer client-own" in bearers  # the client's own key goes where it says
    assert all(SERVER_KEY not in value for value in bearers)
    # Without a key the judge cannot answer: the goal cannot complete on a borrowed key.
    assert ended["status"] != "complete"

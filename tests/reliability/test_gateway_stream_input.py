"""The gateway's streaming path (`/v1/chat/completions` with `stream: true`) under hostile input.

Odd, wrong-typed and oversized bodies are refused before a conversation is made, each with a
4xx naming what is wrong (an unknown model's name is not echoed back in full: a 100,000-
character name made a 200 KB answer); clients that drop the connection in the middle of a
stream leave the server healthy, with every agent run finishing on its own and no error
logged; a new stream then works as before. One real server and a scripted LLM on loopback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agent_server.harness import ServerProcess, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

URL = "/v1/chat/completions"
DROPPED = 20


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def gateway(
    tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAIServer
) -> Iterator[tuple[ServerProcess, str]]:
    root = tmp_path_factory.mktemp("gateway")
    env = {"OH_GATEWAY_KEEPALIVE_SECONDS": "1"}
    server = ServerProcess(root / "conversations", env=env).start()
    profile = unique("gw")
    llm = {
        "model": f"openai/{profile}",
        "base_url": fake.base_url,
        "api_key": "k",
        "num_retries": 0,
    }
    with server.client() as http:
        assert http.post(f"/api/profiles/{profile}", json={"llm": llm}).status_code == 201
    yield server, f"openhands_{profile}"
    server.stop()


def _body(model: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        **extra,
    }


def _surrogate_body(model: str) -> bytes:
    """A body whose text is a lone UTF-16 surrogate (valid JSON, invalid Unicode)."""
    head = json.dumps({"model": model, "stream": True})[:-1]
    return (head + ', "messages": [{"role": "user", "content": "\\ud800"}]}').encode()


def _hostile(model: str) -> list[tuple[str, Any, int, str]]:
    """(case, body, status, what the answer must name)."""
    msg = [{"role": "user", "content": "hi"}]
    return [
        ("not JSON", b"{nope", 422, "JSON"),
        ("a list", [1, 2], 422, "body"),
        ("stream as object", _body(model, stream={}), 422, "body.stream"),
        ("messages as text", _body(model, messages="hi"), 422, "body.messages"),
        ("no messages", _body(model, messages=[]), 422, "body.messages"),
        (
            "content a number",
            _body(model, messages=[{"role": "user", "content": 5}]),
            422,
            "body.messages.0.content",
        ),
        (
            "unknown part",
            _body(model, messages=[{"role": "user", "content": [{"type": "audio"}]}]),
            422,
            "type 'audio'",
        ),
        (
            "unknown role",
            _body(model, messages=[{"role": "root", "content": "x"}]),
            422,
            "body.messages.0.role",
        ),
        (
            "lone surrogate",
            _surrogate_body(model),
            422,
            "surrogate",
        ),
        ("bad goal", _body(model, openhands_goal={"max_iterations": -1}), 422, "max_iterations"),
        ("bad progress", _body(model, openhands_progress="loud"), 422, "openhands_progress"),
        ("bad stream_options", _body(model, stream_options=[1]), 422, "stream_options"),
        ("too many items", _body(model, messages=msg * 12000), 413, "OH_MAX_JSON_ITEMS"),
        ("too deep", b'{"x": ' + b"[" * 30000 + b"]" * 30000 + b"}", 413, "OH_MAX_JSON_ITEMS"),
        ("unknown model", _body("openhands_nobody"), 404, "openhands_nobody"),
        ("huge model name", _body("openhands_" + "x" * 100_000), 404, "does not exist"),
    ]


def test_hostile_bodies_get_a_4xx_naming_the_problem(
    gateway: tuple[ServerProcess, str],
) -> None:
    server, model = gateway
    with server.client() as http:
        for case, body, status, named in _hostile(model):
            if isinstance(body, bytes):
                answer = http.post(URL, content=body, headers={"content-type": "application/json"})
            else:
                answer = http.post(URL, json=body)
            assert answer.status_code == status, (case, answer.text[:500])
            # /v1 answers in OpenAI's error shape, the message naming the field.
            assert named in answer.json()["error"]["message"], (case, answer.text[:500])
            assert len(answer.content) < 20_000, (case, len(answer.content))
        assert http.get("/api/conversations/count").json() == 0  # nothing was started
    assert "Traceback" not in server.log()


def _drop_after_first_chunk(server: ServerProcess, body: dict[str, Any], ids: list[str]) -> None:
    client = httpx.Client(base_url=server.url, timeout=60)
    with client, client.stream("POST", URL, json=body) as answer:
        assert answer.status_code == 200
        ids.append(answer.headers["X-OpenHands-ServerConversation-ID"])
        for line in answer.iter_lines():
            if line.startswith("data:"):
                return  # leaves the stream (and the connection) in the middle


def test_clients_leaving_mid_stream_leave_the_server_healthy(
    gateway: tuple[ServerProcess, str], fake: FakeOpenAIServer
) -> None:
    server, model = gateway
    fake.set_responder(
        model.removeprefix("openhands_"), lambda body: FakeReply.text("late").delayed(2.0)
    )
    ids: list[str] = []
    clients = [
        threading.Thread(target=_drop_after_first_chunk, args=(server, _body(model), ids))
        for _ in range(DROPPED)
    ]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    assert len(ids) == DROPPED

    with server.client() as http:
        # Every run goes on without its client and ends on its own.
        def statuses() -> list[str] | None:
            found = [
                http.get(f"/api/conversations/{cid}").json()["execution_status"] for cid in ids
            ]
            return found if all(s in ("finished", "error") for s in found) else None

        assert set(wait_until(statuses, what="the abandoned runs")) == {"finished"}
        fake.set_responder(model.removeprefix("openhands_"), lambda body: FakeReply.text("fresh"))
        answer = http.post(URL, json=_body(model), timeout=120)
    chunks = [
        json.loads(line.removeprefix("data: "))
        for line in answer.text.splitlines()
        if line.startswith("data: {")
    ]
    assert (
        "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
        == "fresh"
    )
    assert answer.text.rstrip().endswith("data: [DONE]")
    log = server.log()
    assert "Traceback" not in log and " ERROR " not in log

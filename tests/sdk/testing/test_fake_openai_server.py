"""`FakeOpenAIServer` speaks the OpenAI chat-completions wire format."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

import httpx
import pytest
from openhands.sdk.llm import LLM
from openhands.sdk.llm.message import text_message
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr


def _chat(client: httpx.Client, model: str = "agent", **extra: Any) -> httpx.Response:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], **extra}
    return client.post("/chat/completions", json=body)


def _sse_events(response: httpx.Response) -> list[str]:
    return [line.removeprefix("data: ") for line in response.text.splitlines() if line]


def test_text_reply_is_a_chat_completion(server: FakeOpenAIServer, client: httpx.Client) -> None:
    server.script("agent", [FakeReply.text("hello", prompt_tokens=3, completion_tokens=2)])

    response = _chat(client)

    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["id"]
    assert body["model"] == "agent"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "hello"}
    assert choice["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


def test_tool_calls_carry_ids_and_json_arguments(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script(
        "agent",
        [FakeReply.tool_calls([("think", {"thought": "a"}), ("finish", {"message": "ok"})])],
    )

    choice = _chat(client).json()["choices"][0]

    calls = choice["message"]["tool_calls"]
    assert choice["finish_reason"] == "tool_calls"
    assert [c["function"]["name"] for c in calls] == ["think", "finish"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"thought": "a"},
        {"message": "ok"},
    ]
    assert all(c["type"] == "function" for c in calls)
    assert len({c["id"] for c in calls}) == 2


def test_error_reply_has_status_and_openai_error_body(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.error(429, "slow down")])

    response = _chat(client)

    assert response.status_code == 429
    error = response.json()["error"]
    assert error["message"] == "slow down"
    assert error["type"] == "rate_limit_error"
    assert error["code"] == "rate_limit_exceeded"


def test_replies_come_in_script_order_per_model(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.text("a1"), FakeReply.text("a2")])
    server.script("judge", [FakeReply.text("j1")])

    contents = [
        _chat(client, m).json()["choices"][0]["message"]["content"]
        for m in ("agent", "judge", "agent")
    ]

    assert contents == ["a1", "j1", "a2"]


def test_empty_queue_answers_400_naming_the_model(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    response = _chat(client, "agent")

    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "fake server: no scripted reply left for model 'agent'"
    )


def test_star_queue_answers_any_model(server: FakeOpenAIServer, client: httpx.Client) -> None:
    server.script("*", [FakeReply.text("anyone")])

    assert _chat(client, "whatever").json()["choices"][0]["message"]["content"] == "anyone"


def test_responder_answers_once_the_queue_is_empty(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("judge", [FakeReply.text("scripted")])
    server.set_responder(
        "judge", lambda body: FakeReply.text(f"saw {len(body['messages'])} messages")
    )

    first = _chat(client, "judge").json()["choices"][0]["message"]["content"]
    second = _chat(client, "judge").json()["choices"][0]["message"]["content"]

    assert (first, second) == ("scripted", "saw 1 messages")


def test_failing_responder_gives_a_500_naming_the_error(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    def broken(body: dict[str, Any]) -> FakeReply:
        raise RuntimeError("responder bug")

    server.set_responder("judge", broken)

    response = _chat(client, "judge")

    assert response.status_code == 500
    assert "responder bug" in response.json()["error"]["message"]


def test_requests_record_bodies_in_order(server: FakeOpenAIServer, client: httpx.Client) -> None:
    server.script("*", [FakeReply.text("x")] * 2)

    _chat(client, "one")
    _chat(client, "two", temperature=0.5)

    assert [body["model"] for body in server.requests] == ["one", "two"]
    assert server.requests[1]["temperature"] == 0.5
    assert [body["model"] for body in server.requests_for("two")] == ["two"]


def test_stream_sends_chunks_ending_with_done(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.text("hello world")])

    response = _chat(client, stream=True)

    assert response.headers["content-type"].startswith("text/event-stream")
    events = _sse_events(response)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
    text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks)
    assert text == "hello world"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_stream_splits_tool_call_arguments_across_chunks(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.tool_call("terminal", {"command": "ls -la /tmp"})])

    chunks = [json.loads(e) for e in _sse_events(_chat(client, stream=True))[:-1]]

    deltas = [d for c in chunks for d in c["choices"][0]["delta"].get("tool_calls") or []]
    assert deltas[0]["function"]["name"] == "terminal"
    assert len(deltas) > 2
    arguments = "".join(d["function"].get("arguments", "") for d in deltas)
    assert json.loads(arguments) == {"command": "ls -la /tmp"}


def test_models_endpoint_lists_scripted_models(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.text("x")])
    server.set_responder("judge", lambda body: FakeReply.text("y"))

    body = client.get("/models").json()

    assert body["object"] == "list"
    assert [model["id"] for model in body["data"]] == ["agent", "judge"]


def test_unknown_path_is_404(client: httpx.Client) -> None:
    assert client.post("/embeddings", json={}).status_code == 404


def test_invalid_json_is_400(client: httpx.Client) -> None:
    response = client.post(
        "/chat/completions", content=b"{not json", headers={"content-type": "application/json"}
    )

    assert response.status_code == 400
    assert "invalid JSON" in response.json()["error"]["message"]


def test_delayed_reply_still_answers(server: FakeOpenAIServer, client: httpx.Client) -> None:
    server.script("agent", [FakeReply.text("late").delayed(0.05)])

    assert _chat(client).json()["choices"][0]["message"]["content"] == "late"


def test_concurrent_requests_each_get_one_distinct_reply(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    count = 12
    server.script("agent", [FakeReply.text(f"r{i}") for i in range(count)])
    results: list[str] = []
    lock = threading.Lock()

    def call() -> None:
        content = _chat(client).json()["choices"][0]["message"]["content"]
        with lock:
            results.append(content)

    threads = [threading.Thread(target=call) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert sorted(results) == sorted(f"r{i}" for i in range(count))
    assert len(server.requests) == count


def test_two_servers_get_different_free_ports() -> None:
    with FakeOpenAIServer() as first, FakeOpenAIServer() as second:
        assert first.port != second.port
        assert first.base_url == f"http://127.0.0.1:{first.port}/v1"


def test_stop_frees_the_port() -> None:
    server = FakeOpenAIServer().start()
    base_url = server.base_url
    server.stop()
    server.stop()

    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base_url}/models", timeout=2.0)


def test_base_url_before_start_says_what_to_do() -> None:
    with pytest.raises(RuntimeError, match="start"):
        _ = FakeOpenAIServer().base_url


def test_error_reply_rejects_success_status() -> None:
    with pytest.raises(ValueError, match="4xx or 5xx"):
        FakeReply.error(200, "fine")


def test_script_rejects_non_replies(server: FakeOpenAIServer) -> None:
    with pytest.raises(TypeError, match="FakeReply"):
        server.script("agent", ["hello"])  # type: ignore[list-item]


def test_a_required_key_refuses_requests_without_it_with_401(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("agent", [FakeReply.text("hello")])
    server.require_api_key("sk-right")

    missing = _chat(client)
    wrong = client.post(
        "/chat/completions",
        json={"model": "agent", "messages": []},
        headers={"Authorization": "Bearer sk-wrong"},
    )
    right = client.post(
        "/chat/completions",
        json={"model": "agent", "messages": []},
        headers={"Authorization": "Bearer sk-right"},
    )

    assert (missing.status_code, wrong.status_code) == (401, 401)
    assert missing.json()["error"]["code"] == "invalid_api_key"
    assert right.status_code == 200  # the scripted reply was kept for the right key


def test_a_models_own_required_key_overrides_the_servers(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    server.script("judge", [FakeReply.text("ok")])
    server.require_api_key("sk-agent")
    server.require_api_key("sk-judge", model="judge")

    agent_key = {"Authorization": "Bearer sk-agent"}
    judge_key = {"Authorization": "Bearer sk-judge"}
    body = {"model": "judge", "messages": []}
    assert client.post("/chat/completions", json=body, headers=agent_key).status_code == 401
    assert client.post("/chat/completions", json=body, headers=judge_key).status_code == 200


def test_a_reported_cost_is_the_completions_cost(server: FakeOpenAIServer) -> None:
    server.script("unpriced-model", [replace(FakeReply.text("hi", prompt_tokens=9), cost=0.25)])
    llm = LLM(model="openai/unpriced-model", base_url=server.base_url, api_key=SecretStr("k"))

    reply = llm.completion([text_message("user", "hello")])

    assert reply.cost == pytest.approx(0.25)


def test_a_raw_reply_is_sent_exactly_and_streams_as_one_chunk(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    body = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "reasoning": "hm", "content": "x"},
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "odd_field": True},
    }
    server.script("agent", [FakeReply.raw(body), FakeReply.raw(body)])

    assert _chat(client).json() == body
    (chunk,) = [json.loads(e) for e in _sse_events(_chat(client, stream=True))[:-1]]
    assert chunk["object"] == "chat.completion.chunk"
    assert chunk["choices"][0]["delta"] == body["choices"][0]["message"]
    assert (chunk["choices"][0]["finish_reason"], chunk["usage"]) == ("length", body["usage"])


def test_reasoning_and_more_usage_fields_are_reported(
    server: FakeOpenAIServer, client: httpx.Client
) -> None:
    reply = FakeReply.text("42", reasoning="think").with_usage(
        completion_tokens_details={"reasoning_tokens": 9}
    )
    server.script("agent", [reply, reply])

    plain = _chat(client).json()
    streamed = [json.loads(e) for e in _sse_events(_chat(client, stream=True))[:-1]]

    assert plain["choices"][0]["message"]["reasoning_content"] == "think"
    assert plain["usage"]["completion_tokens_details"] == {"reasoning_tokens": 9}
    pieces = [c["choices"][0]["delta"].get("reasoning_content") or "" for c in streamed]
    assert "".join(pieces) == "think"
    assert streamed[-1]["usage"]["completion_tokens_details"] == {"reasoning_tokens": 9}

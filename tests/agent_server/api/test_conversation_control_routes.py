"""The reference's conversation controls through the app: title and tags, the batch read,
interrupt, navigate, secrets, condense, the final response, switching the LLM, asking the
agent. Each with the features it touches: a restart keeps what was acknowledged, a switched
key is sealed, a secret reaches the terminal masked."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import HeldReplies, unique, wait_until
from .surface_app import agent, surface_client

TOOLS_SERVER = Path(__file__).parents[2] / "sdk" / "mcp" / "servers" / "tools_server.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def client(root: Path) -> Iterator[TestClient]:
    with surface_client(root) as http:
        yield http


def _create(client: TestClient, spec: dict[str, Any], text: str | None = None) -> str:
    body: dict[str, Any] = {"agent": spec}
    if text is not None:
        body["initial_message"] = {"content": [{"type": "text", "text": text}]}
    created = client.post("/api/conversations", json=body)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def _status(client: TestClient, cid: str) -> str:
    return client.get(f"/api/conversations/{cid}").json()["execution_status"]


def _wait(client: TestClient, cid: str, *statuses: str) -> str:
    def reached() -> str | None:
        status = _status(client, cid)
        return status if status in statuses else None

    return wait_until(reached, what=f"status in {statuses}")


def _say(client: TestClient, cid: str, text: str) -> None:
    sent = client.post(
        f"/api/conversations/{cid}/events",
        json={"content": [{"type": "text", "text": text}], "run": True},
    )
    assert sent.status_code == 200, sent.text


def _events(client: TestClient, cid: str) -> list[dict[str, Any]]:
    return client.get(f"/api/conversations/{cid}/events/search", params={"limit": 100}).json()[
        "items"
    ]


def test_title_and_tags_are_kept_across_a_restart_and_read_in_a_batch(
    root: Path, fake: FakeOpenAIServer
) -> None:
    with surface_client(root) as client:
        cid = _create(client, agent(fake.base_url, unique("m")))
        changed = client.patch(
            f"/api/conversations/{cid}", json={"title": " Release notes ", "tags": {"team": "a"}}
        )
        assert changed.status_code == 200, changed.text

    with surface_client(root) as client:
        unknown = str(uuid.uuid4())
        batch = client.get("/api/conversations", params={"ids": [unknown, cid]})
        opened = client.get("/server_info").json()["open_conversations"]

        assert batch.status_code == 200
        first, second = batch.json()
        assert first is None
        assert second["id"] == cid and second["title"] == "Release notes"
        assert second["tags"] == {"team": "a"}
        assert opened == 0  # a batch read opens nothing


def test_the_final_response_is_the_agents_last_answer(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("final")
    fake.script(model, [FakeReply.text("first answer"), FakeReply.text("second answer")])
    cid = _create(client, agent(fake.base_url, model))

    before = client.get(f"/api/conversations/{cid}/agent_final_response")
    _say(client, cid, "one")
    _wait(client, cid, "finished")
    _say(client, cid, "two")
    _wait(client, cid, "finished")
    after = client.get(f"/api/conversations/{cid}/agent_final_response")

    assert before.json() == {"response": ""}
    assert after.json() == {"response": "second answer"}
    assert client.get(f"/api/conversations/{cid}/runtime").json() == {
        "runtime_status": "available",
        "can_resume": True,
        "runtime_error": None,
    }


def test_interrupt_ends_a_run_at_once_and_drops_the_late_reply(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("slow")
    replies = HeldReplies(FakeReply.text("too late"), FakeReply.text("resumed"))
    fake.set_responder(model, replies)  # the first answer comes only after the interrupt
    cid = _create(client, agent(fake.base_url, model), text="start")
    try:
        wait_until(lambda: fake.requests_for(model), what="the LLM request")
        interrupted = client.post(f"/api/conversations/{cid}/interrupt")
    finally:
        replies.release()  # a request already sent cannot be taken back: the run waits for it
    _wait(client, cid, "paused")

    assert interrupted.status_code == 200
    texts = [e for e in _events(client, cid) if e["kind"] == "MessageEvent"]
    assert all("too late" not in str(e) for e in texts)
    _say(client, cid, "go on")
    _wait(client, cid, "finished")
    answer = client.get(f"/api/conversations/{cid}/agent_final_response").json()
    assert answer == {"response": "resumed"}


def test_navigate_moves_the_head_and_the_next_run_sees_that_branch(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("branch")
    fake.script(model, [FakeReply.text("A1"), FakeReply.text("A2"), FakeReply.text("B2")])
    cid = _create(client, agent(fake.base_url, model), text="first question")
    _wait(client, cid, "finished")
    _say(client, cid, "second question")
    _wait(client, cid, "finished")
    first_answer = next(
        e["id"] for e in _events(client, cid) if e["kind"] == "MessageEvent" and "A1" in str(e)
    )

    moved = client.post(f"/api/conversations/{cid}/navigate", json={"event_id": first_answer})
    _say(client, cid, "another second question")
    _wait(client, cid, "finished")

    assert moved.status_code == 200 and moved.json()["id"] == cid
    sent = [
        (m["role"], str(m["content"]))
        for m in fake.requests_for(model)[-1]["messages"]
        if m["role"] != "system"
    ]
    assert sent == [
        ("user", "first question"),
        ("assistant", "A1"),
        ("user", "another second question"),
    ]
    unknown = client.post(f"/api/conversations/{cid}/navigate", json={"event_id": "nope"})
    assert unknown.status_code == 404


def test_secrets_reach_the_terminal_masked_and_survive_a_restart(
    root: Path, fake: FakeOpenAIServer
) -> None:
    model = unique("secret")
    value = "s3cret-" + uuid.uuid4().hex[:8]
    spec = agent(fake.base_url, model)
    spec["tools"] = [{"name": "terminal"}]
    call = FakeReply.tool_call("terminal", {"command": 'echo "token=$API_TOKEN"'})
    fake.script(model, [call, FakeReply.text("done"), call, FakeReply.text("done again")])
    with surface_client(root) as client:
        cid = _create(client, spec)
        added = client.post(
            f"/api/conversations/{cid}/secrets", json={"secrets": {"API_TOKEN": value}}
        )
        _say(client, cid, "print it")
        _wait(client, cid, "finished")
        first = _events(client, cid)

    with surface_client(root) as client:
        _say(client, cid, "print it again")
        _wait(client, cid, "finished")
        second = _events(client, cid)

    assert added.status_code == 200
    outputs = [str(e) for e in second if e["kind"] == "ObservationEvent"]
    assert len(outputs) == 2 and all("token=<secret-hidden>" in o for o in outputs)
    assert value not in str(first) + str(second)
    assert all(value.encode() not in p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_condense_needs_a_condenser_and_then_summarizes_the_history(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    plain = _create(client, agent(fake.base_url, unique("plain")))
    refused = client.post(f"/api/conversations/{plain}/condense")

    model, summarizer = unique("long"), unique("summary")
    fake.script(model, [FakeReply.text(f"answer {i}") for i in range(4)])
    fake.script(summarizer, [FakeReply.text("THE SUMMARY")])
    spec = agent(fake.base_url, model)
    condenser_llm = agent(fake.base_url, summarizer, usage_id="condenser")["llm"]
    spec["condenser"] = {"kind": "LLMSummarizingCondenser", "llm": condenser_llm, "max_size": 40}
    cid = _create(client, spec)
    for i in range(3):
        _say(client, cid, f"question {i}")
        _wait(client, cid, "finished")

    condensed = client.post(f"/api/conversations/{cid}/condense")
    _say(client, cid, "last question")
    _wait(client, cid, "finished")

    assert refused.status_code == 409 and "condenser" in refused.json()["message"]
    assert condensed.status_code == 200, condensed.text
    kinds = [e["kind"] for e in _events(client, cid)]
    assert "Condensation" in kinds
    assert "THE SUMMARY" in str(fake.requests_for(model)[-1]["messages"])


def test_a_switched_llm_drives_the_next_run_and_keeps_its_key_after_a_restart(
    root: Path, fake: FakeOpenAIServer
) -> None:
    first, second = unique("before"), unique("after")
    key = "sk-switched-" + uuid.uuid4().hex[:8]
    fake.script(first, [FakeReply.text("from the first")])
    fake.script(second, [FakeReply.text("from the second"), FakeReply.text("still second")])
    fake.require_api_key(key, second)
    with surface_client(root) as client:
        cid = _create(client, agent(fake.base_url, first), text="hello")
        _wait(client, cid, "finished")
        switched = client.post(
            f"/api/conversations/{cid}/switch_llm",
            json={"llm": {"model": f"openai/{second}", "base_url": fake.base_url, "api_key": key}},
        )
        _say(client, cid, "again")
        _wait(client, cid, "finished")
        shown = client.get(f"/api/conversations/{cid}").json()["agent"]["llm"]

    with surface_client(root) as client:
        _say(client, cid, "after the restart")
        _wait(client, cid, "finished", "error")
        answer = client.get(f"/api/conversations/{cid}/agent_final_response").json()

    assert switched.status_code == 200
    assert shown["model"] == f"openai/{second}" and shown.get("api_key") is None
    assert answer == {"response": "still second"}
    assert all(key.encode() not in p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_switch_profile_uses_a_stored_profile_and_refuses_an_unknown_one(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    first, stored = unique("first"), unique("profile")
    fake.script(first, [FakeReply.text("first")])
    fake.script(stored, [FakeReply.text("from the profile")])
    profile_llm = agent(fake.base_url, stored)["llm"]
    assert client.post("/api/profiles/fast", json={"llm": profile_llm}).status_code == 201
    cid = _create(client, agent(fake.base_url, first), text="hello")
    _wait(client, cid, "finished")

    unknown = client.post(f"/api/conversations/{cid}/switch_profile", json={"profile_name": "x"})
    switched = client.post(
        f"/api/conversations/{cid}/switch_profile", json={"profile_name": "fast"}
    )
    _say(client, cid, "again")
    _wait(client, cid, "finished")

    assert unknown.status_code == 404 and "fast" in unknown.json()["message"]
    assert switched.status_code == 200
    info = client.get(f"/api/conversations/{cid}").json()
    assert info["agent"]["llm"]["usage_id"] == "profile:fast"
    assert client.get(f"/api/conversations/{cid}/agent_final_response").json() == {
        "response": "from the profile"
    }


def test_ask_agent_answers_without_recording_anything(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("ask")
    fake.script(model, [FakeReply.text("the work"), FakeReply.text("it is about tests")])
    cid = _create(client, agent(fake.base_url, model), text="do the work")
    _wait(client, cid, "finished")
    count = client.get(f"/api/conversations/{cid}/events/count").json()

    asked = client.post(f"/api/conversations/{cid}/ask_agent", json={"question": "what is it?"})

    assert asked.status_code == 200 and asked.json() == {"response": "it is about tests"}
    assert client.get(f"/api/conversations/{cid}/events/count").json() == count
    assert _status(client, cid) == "finished"
    assert "what is it?" in str(fake.requests_for(model)[-1]["messages"])
    failing = unique("down")
    fake.script(failing, [FakeReply.error(401, "bad key")])
    other = _create(client, agent(fake.base_url, failing))
    refused = client.post(f"/api/conversations/{other}/ask_agent", json={"question": "hi?"})
    assert refused.status_code == 502 and "LLM" in refused.json()["message"]


def test_events_are_read_in_a_batch_with_null_for_an_unknown_id(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("batch")
    fake.script(model, [FakeReply.text("hi")])
    cid = _create(client, agent(fake.base_url, model), text="hello")
    _wait(client, cid, "finished")
    ids = [e["id"] for e in _events(client, cid)][:2]

    batch = client.request("GET", f"/api/conversations/{cid}/events", json=[ids[1], "nope", ids[0]])

    assert batch.status_code == 200
    second, missing, first = batch.json()
    assert (second["id"], missing, first["id"]) == (ids[1], None, ids[0])


def test_a_plugin_loaded_into_a_conversation_gives_it_the_plugins_tools(
    client: TestClient, fake: FakeOpenAIServer, root: Path
) -> None:
    plugin = root / "plugins" / "adder"
    (plugin / ".plugin").mkdir(parents=True)
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps({"name": "adder"}))
    servers = {"tools": {"command": sys.executable, "args": [str(TOOLS_SERVER)]}}
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    model = unique("plugin")
    call = FakeReply.tool_call("add", {"a": 2, "b": 40})
    fake.script(model, [call, FakeReply.text("it is 42")])
    spec = agent(fake.base_url, model)
    spec["tools"] = []
    cid = _create(client, spec)

    missing = client.post(
        f"/api/conversations/{cid}/load_plugin", json={"plugin_ref": str(root / "nope")}
    )
    loaded = client.post(f"/api/conversations/{cid}/load_plugin", json={"plugin_ref": str(plugin)})
    _say(client, cid, "add 2 and 40")
    _wait(client, cid, "finished")

    assert missing.status_code == 400 and "nope" in missing.json()["message"]
    assert loaded.status_code == 200, loaded.text
    outputs = [e for e in _events(client, cid) if e["kind"] == "ObservationEvent"]
    assert len(outputs) == 1 and "42" in str(outputs[0])
    info = client.get(f"/api/conversations/{cid}").json()
    assert "tools" in info["agent"]["mcp_config"]

"""kill -9 during a condensation: nothing acknowledged is lost and the next run condenses.

A real server with an `LLMSummarizingCondenser` (max 4 messages) and the fake LLM server. The
server is killed while the summarizer's reply is held (before the `Condensation` event is
written) and while the agent's reply after a written condensation is held. After each
restart the conversation reopens, every event before the kill is there, and a new message
runs to the end on a condensed view with well-formed condensations.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from .goal_restarts import HELD

pytestmark = pytest.mark.timeout(300)

RUN_WITHIN = EVENT_WAIT
"""Seconds a run may take to finish on a loaded machine."""


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server (held replies sleep in its daemon threads)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; killed at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.kill()


def _start(servers: list[ServerProcess], root: Path) -> ServerProcess:
    process = ServerProcess(root / "conversations").start()
    servers.append(process)
    return process


def _say(server: ServerProcess, cid: str, text: str) -> None:
    body = {"role": "user", "content": [{"type": "text", "text": text}], "run": True}
    with server.client() as http:
        assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200


def _status(server: ServerProcess, cid: str) -> str:
    with server.client() as http:
        return http.get(f"/api/conversations/{cid}").json()["execution_status"]


def _events(server: ServerProcess, cid: str) -> list[dict[str, Any]]:
    with server.client() as http:
        items: list[dict[str, Any]] = []
        page: str | None = None
        while True:
            params: dict[str, Any] = {"limit": 100, **({"page_id": page} if page else {})}
            answer = http.get(f"/api/conversations/{cid}/events/search", params=params).json()
            items += answer["items"]
            page = answer["next_page_id"]
            if page is None:
                return items


def _finished(server: ServerProcess, cid: str) -> None:
    wait_until(lambda: _status(server, cid) == "finished", RUN_WITHIN, "the run to finish")


def _user_texts(events: list[dict[str, Any]]) -> list[str]:
    return [
        e["llm_message"]["content"][0]["text"]
        for e in events
        if e["kind"] == "MessageEvent" and e["source"] == "user"
    ]


@pytest.mark.parametrize("held", ["summarizer", "agent"])
def test_a_kill_9_during_a_condensation_loses_nothing_and_the_next_run_condenses(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess], held: str
) -> None:
    model, summarizer = unique("agent"), unique("summary")
    condenser = {
        "kind": "LLMSummarizingCondenser",
        "llm": {**llm_spec(fake_llm, summarizer), "usage_id": "condenser"},
        "max_size": 4,
        "keep_first": 1,
    }
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, model), "condenser": condenser}
    server = _start(servers, tmp_path)
    with server.client() as http:
        cid = http.post("/api/conversations", json={"agent": agent}).json()["id"]
    fake_llm.script(model, [FakeReply.text("one"), FakeReply.text("two")])
    for text in ("first", "second"):
        _say(server, cid, text)
        _finished(server, cid)

    # The third step's view has 5 messages: it condenses first.
    if held == "summarizer":
        fake_llm.script(summarizer, [FakeReply.text("summary one").delayed(HELD)])
        wanted, calls = summarizer, len(fake_llm.requests_for(summarizer))
    else:
        fake_llm.script(summarizer, [FakeReply.text("summary one")])
        fake_llm.script(model, [FakeReply.text("three").delayed(HELD)])
        wanted, calls = model, len(fake_llm.requests_for(model))
    _say(server, cid, "third")
    wait_until(lambda: len(fake_llm.requests_for(wanted)) > calls, RUN_WITHIN, f"the {held} call")
    before = _events(server, cid)
    server.kill()

    server = _start(servers, tmp_path)
    after = _events(server, cid)
    assert [e["id"] for e in after[: len(before)]] == [e["id"] for e in before]
    condensed = [e for e in after if e["kind"] == "Condensation"]
    assert len(condensed) == (1 if held == "agent" else 0)
    assert _status(server, cid) == "error"  # the run the kill cut short (RunLost)

    fake_llm.script(summarizer, [FakeReply.text("summary two")] * 3)
    fake_llm.script(model, [FakeReply.text("four")])
    _say(server, cid, "fourth")
    _finished(server, cid)

    final = _events(server, cid)
    assert _user_texts(final) == ["first", "second", "third", "fourth"]
    summaries = [e["summary"] for e in final if e["kind"] == "Condensation"]
    assert summaries and summaries[-1] in ("summary one", "summary two")
    last_request = fake_llm.requests_for(model)[-1]
    sent = " ".join(str(message.get("content")) for message in last_request["messages"])
    assert summaries[-1] in sent  # the agent saw the condensed view
    assert "one" not in [m.get("content") for m in last_request["messages"]]

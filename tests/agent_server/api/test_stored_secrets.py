"""Stored secrets reach an agent's commands by name, never its events or its LLM, across
restarts, rotation and forks (a real server, a scripted LLM, a real terminal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from ..harness import ServerProcess, llm_spec, unique, wait_until

pytestmark = pytest.mark.slow

SESSION = "secrets-session-key"
ENV = {"OH_SESSION_API_KEYS": SESSION, "OH_SECRET_KEY": "secrets-sealing-key-" + "s" * 40}
VALUE = "tok-first-7d1c5a"
ROTATED = "tok-rotated-e20b94"


def _run_command(fake: FakeOpenAIServer, model: str, command: str) -> None:
    fake.script(
        model, [FakeReply.tool_call("terminal", {"command": command}), FakeReply.text("ok")]
    )


def _finished(rest: httpx.Client, cid: str) -> None:
    def done() -> bool:
        return rest.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished"

    wait_until(done, timeout=EVENT_WAIT, what="the run to finish")


def _say(rest: httpx.Client, cid: str, text: str) -> None:
    body = {"content": [{"type": "text", "text": text}], "run": True}
    assert rest.post(f"/api/conversations/{cid}/events", json=body).status_code == 200


def _events_text(rest: httpx.Client, cid: str) -> str:
    items: list[Any] = []
    page_id = None
    while True:
        params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
        page = rest.get(f"/api/conversations/{cid}/events/search", params=params).json()
        items += page["items"]
        page_id = page["next_page_id"]
        if not page_id:
            return json.dumps(items)


def test_a_stored_secret_named_by_lookup_reaches_commands_only(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    model = unique("secrets")
    server = ServerProcess(tmp_path / "conversations", env=ENV).start()
    try:
        with server.client() as rest:
            rest.put("/api/settings/secrets", json={"name": "PROJECT_TOKEN", "value": VALUE})
            lookup = {
                "kind": "LookupSecret",
                "url": f"{server.url}/api/settings/secrets/PROJECT_TOKEN",
                "headers": {"X-Session-API-Key": SESSION},
            }
            _run_command(fake_llm, model, "echo $PROJECT_TOKEN > seen.txt; echo $PROJECT_TOKEN")
            created = rest.post(
                "/api/conversations",
                json={
                    "agent": {
                        "kind": "Agent",
                        "llm": llm_spec(fake_llm, model),
                        "tools": [{"name": "terminal"}],
                    },
                    "workspace": {"kind": "LocalWorkspace", "working_dir": str(work)},
                    "secrets": {"PROJECT_TOKEN": lookup},
                    "initial_message": {
                        "content": [{"type": "text", "text": "save the token"}],
                        "run": True,
                    },
                },
            )
            assert created.status_code == 201, created.text
            cid = created.json()["id"]
            _finished(rest, cid)
            first_events = _events_text(rest, cid)
            rest.put("/api/settings/secrets", json={"name": "PROJECT_TOKEN", "value": ROTATED})
        server.stop()
        conversation_files = "".join(
            p.read_text(errors="replace")
            for p in (tmp_path / "conversations").rglob("*")
            if p.is_file()
        )

        server = ServerProcess(tmp_path / "conversations", env=ENV).start()
        with server.client() as rest:
            _run_command(fake_llm, model, "echo $PROJECT_TOKEN > again.txt")
            _say(rest, cid, "once more, after the restart")
            _finished(rest, cid)
            fork = rest.post(f"/api/conversations/{cid}/fork", json={}).json()["id"]
            _run_command(fake_llm, model, "echo $PROJECT_TOKEN > fork.txt")
            _say(rest, fork, "and in the fork")
            _finished(rest, fork)
            later_events = _events_text(rest, cid) + _events_text(rest, fork)
    finally:
        server.stop()

    assert (work / "seen.txt").read_text().strip() == VALUE
    # looked up when the command runs: after the restart, the rotated value
    assert (work / "again.txt").read_text().strip() == ROTATED
    assert (work / "fork.txt").read_text().strip() == ROTATED
    assert "<secret-hidden>" in first_events
    for text in (first_events, later_events, conversation_files, json.dumps(fake_llm.requests)):
        assert (
            VALUE not in text
            and ROTATED not in text
            and SESSION not in text.replace('"X-Session-API-Key"', "")
        )


def test_bad_secrets_in_a_start_request_are_422_naming_them(
    server: ServerProcess, client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}
    bad_name = client.post("/api/conversations", json={"agent": agent, "secrets": {"1X": "v"}})
    bad_kind = client.post(
        "/api/conversations", json={"agent": agent, "secrets": {"X": {"kind": "Vault"}}}
    )

    assert bad_name.status_code == 422 and bad_name.json()["detail"][0]["loc"][:2] == [
        "body",
        "secrets",
    ]
    assert bad_kind.status_code == 422 and "secrets" in bad_kind.json()["message"]
    assert client.get("/api/conversations/count").json() == 0

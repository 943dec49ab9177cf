"""Keys a client sends survive a kill -9 sealed, never in clear, and a wrong key is explained.

Real server processes on one folder, the fake LLM server requiring each model's key, and
no LLM_API_KEY on the server: a call after a restart succeeds only with an unsealed key.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, unique, verdict, wait_goal_end, wait_until
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from .goal_restarts import (
    AGENT_KEY,
    HELD,
    JUDGE_KEY,
    Phase,
    create_conversation,
    files_holding,
    goal,
    judge_spec,
    keyed_models,
)

SEALING_KEY = "sealing-key-" + "7" * 40
OTHER_SEALING_KEY = "other-sealing-key-" + "3" * 40
DONE = FakeReply.text("done")


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


def _start(servers: list[ServerProcess], root: Path, **env: str) -> ServerProcess:
    process = ServerProcess(root / "conversations", env=env).start()
    servers.append(process)
    return process


def _answers(server: ServerProcess, cid: str) -> str:
    """What clients can read of the conversation: its info, events and goal."""
    with server.client() as http:
        paths = ("", "/events/search?limit=100", "/goal")
        return "".join(http.get(f"/api/conversations/{cid}{path}").text for path in paths)


def _authorizations(fake: FakeOpenAIServer, model: str) -> list[str | None]:
    bodies, headers = fake.requests, fake.request_headers
    return [
        h.get("authorization") for b, h in zip(bodies, headers, strict=True) if b["model"] == model
    ]


def test_a_goal_resumes_after_kill_9_with_the_agent_key_sent_at_create(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    model = unique("agent")
    keyed_models(fake_llm, model, unique("unused"))
    held = Phase()
    # The default judge is a copy of the agent's LLM: the same model answers both.
    replies = iter([DONE.delayed(HELD), DONE, verdict(True)])
    fake_llm.set_responder(model, lambda _: next(replies))
    first = _start(servers, tmp_path)
    cid = create_conversation(first, fake_llm, model)
    with first.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal", json={"objective": "x"}).is_success
    wait_until(lambda: fake_llm.requests_for(model), what="the agent's LLM call")
    first.kill()
    held.release()

    second = _start(servers, tmp_path)
    with second.client() as http:
        resumed = http.post(f"/api/conversations/{cid}/goal/resume")
    assert resumed.status_code == 200, resumed.text
    assert wait_goal_end(lambda: goal(second, cid))["status"] == "complete"
    assert set(_authorizations(fake_llm, model)) == {f"Bearer {AGENT_KEY}"}
    assert files_holding(tmp_path, AGENT_KEY) == []  # conversations, key file, server logs
    assert AGENT_KEY not in _answers(second, cid)


def test_the_judge_sent_with_post_goal_judges_again_after_kill_9_with_its_own_key(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    agent_model, judge_model = unique("agent"), unique("judge")
    keyed_models(fake_llm, agent_model, judge_model)
    held = Phase()
    fake_llm.set_responder(agent_model, lambda _: DONE)
    fake_llm.set_responder(judge_model, held.replies(verdict(True).delayed(HELD), verdict(True)))
    first = _start(servers, tmp_path, OH_SECRET_KEY=SEALING_KEY)
    cid = create_conversation(first, fake_llm, agent_model)
    body = {"objective": "x", "judge_llm": judge_spec(fake_llm, judge_model)}
    with first.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal", json=body).is_success
    wait_until(lambda: fake_llm.requests_for(judge_model), what="the judge's call")
    first.kill()
    held.release()

    second = _start(servers, tmp_path, OH_SECRET_KEY=SEALING_KEY)
    with second.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal/resume").status_code == 200
    final = wait_goal_end(lambda: goal(second, cid))
    assert final["status"] == "complete", final
    # Judged again by the same model, URL and key (the default judge would ask the agent's).
    assert _authorizations(fake_llm, judge_model) == [f"Bearer {JUDGE_KEY}"] * 2
    assert len(fake_llm.requests_for(agent_model)) == 2
    for secret in (AGENT_KEY, JUDGE_KEY, SEALING_KEY):
        assert files_holding(tmp_path, secret) == []
        assert secret not in _answers(second, cid)


def test_a_wrong_secret_key_after_a_restart_answers_409_naming_the_fix_and_the_old_key_heals_it(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    model = unique("agent")
    keyed_models(fake_llm, model, unique("unused"))
    replies = iter([DONE.delayed(HELD), DONE, verdict(True)])
    fake_llm.set_responder(model, lambda _: next(replies))
    first = _start(servers, tmp_path, OH_SECRET_KEY=SEALING_KEY)
    cid = create_conversation(first, fake_llm, model)
    with first.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal", json={"objective": "x"}).is_success
    wait_until(lambda: fake_llm.requests_for(model), what="the agent's LLM call")
    first.kill()

    wrong = _start(servers, tmp_path, OH_SECRET_KEY=OTHER_SEALING_KEY)
    with wrong.client() as http:
        assert [c["id"] for c in http.get("/api/conversations/search").json()["items"]] == [cid]
        assert http.get(f"/api/conversations/{cid}/events/search").status_code == 200
        refusals = [
            http.post(f"/api/conversations/{cid}/goal/resume"),
            http.post(f"/api/conversations/{cid}/run"),
            http.post(
                f"/api/conversations/{cid}/events",
                json={"role": "user", "content": [{"type": "text", "text": "go"}], "run": True},
            ),
        ]
        for refused in refusals:
            assert refused.status_code == 409, refused.text
            answer = refused.json()
            assert answer["detail"] == "sealed_keys_unreadable"
            assert "OH_SECRET_KEY" in answer["message"] and "LLM_API_KEY" in answer["message"]
        assert http.get("/health").status_code == 200
    assert "Traceback" not in wrong.log(), wrong.log()
    wrong.stop()

    # The fix the answer names: the old key listed after the new one.
    healed = _start(servers, tmp_path, OH_SECRET_KEY=f"{OTHER_SEALING_KEY},{SEALING_KEY}")
    with healed.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal/resume").status_code == 200
    assert wait_goal_end(lambda: goal(healed, cid))["status"] == "complete"


def test_without_oh_secret_key_a_0600_key_file_is_made_beside_the_conversations_folder(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path)
    server.stop()

    key_file = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert not list((tmp_path / "conversations").rglob(KEY_FILE_NAME))
    key = key_file.read_text().strip()
    assert len(key) >= 32
    assert key not in server.log()
    again = _start(servers, tmp_path)
    again.stop()
    assert key_file.read_text().strip() == key  # generated once, then reused

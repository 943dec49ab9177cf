"""`ask_oracle` on the agent server: the Oracle is the server's own profile `oracle`
(/api/profiles, its key sealed on the server's disk), never the server user's
`~/.openhands/profiles`, and it stays so after a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk import LLM
from openhands.sdk.llm import LLMProfileStore
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

pytestmark = pytest.mark.slow

ORACLE_KEY = "oracle-key-kept-sealed"
QUESTION = {"question": "Rewrite or patch?", "context": "900 lines"}


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def decoy(tmp_path: Path, fake_llm: FakeOpenAIServer) -> tuple[Path, str]:
    """A home folder whose user profiles hold another `oracle` (the server must not use it)."""
    home = tmp_path / "home"
    model = unique("decoy")
    fake_llm.script(model, [FakeReply.text("the decoy answered")] * 4)
    store = LLMProfileStore(home / ".openhands" / "profiles")
    store.save(
        "oracle",
        LLM(model=f"openai/{model}", base_url=fake_llm.base_url, api_key=SecretStr("decoy")),
        include_secrets=True,
    )
    return home, model


def _ask(http: httpx.Client, fake_llm: FakeOpenAIServer, workspace: Path) -> dict[str, Any]:
    """A conversation whose agent asks the Oracle once; the observation it got."""
    model = unique("asker")
    fake_llm.script(model, [FakeReply.tool_call("ask_oracle", QUESTION), FakeReply.text("thanks")])
    created = http.post(
        "/api/conversations",
        json={
            "agent": {
                "kind": "Agent",
                "llm": llm_spec(fake_llm, model),
                "tools": [{"name": "ask_oracle"}],
            },
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(workspace)},
            "initial_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        },
    )
    assert created.status_code == 201, created.text
    cid = created.json()["id"]

    def observation() -> dict[str, Any] | None:
        found = http.get(
            f"/api/conversations/{cid}/events/search",
            params={"kind": "ObservationEvent", "limit": 10},
        ).json()["items"]
        status = http.get(f"/api/conversations/{cid}").json()["execution_status"]
        return found[0]["observation"] if found and status == "finished" else None

    return wait_until(observation, what="the Oracle's answer and the run's end")


def _text(observation: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in observation["content"])


def test_the_server_oracle_is_its_own_sealed_profile_across_a_restart(
    tmp_path: Path, fake_llm: FakeOpenAIServer, decoy: tuple[Path, str]
) -> None:
    home, decoy_model = decoy
    oracle_model = unique("oracle")
    fake_llm.require_api_key(ORACLE_KEY, model=oracle_model)
    fake_llm.script(oracle_model, [FakeReply.text("Patch it."), FakeReply.text("Still patch.")])
    root = tmp_path / "server"
    root.mkdir()
    server = ServerProcess(root / "conversations", env={"HOME": str(home)}).start()
    try:
        with server.client() as http:
            missing = _ask(http, fake_llm, tmp_path / "w1")
            saved = http.post(
                "/api/profiles/oracle",
                json={"llm": llm_spec(fake_llm, oracle_model, api_key=ORACLE_KEY)},
            )
            assert saved.status_code in (200, 201), saved.text
            answered = _ask(http, fake_llm, tmp_path / "w2")
        server.stop()
        server = ServerProcess(root / "conversations", env={"HOME": str(home)}).start()
        with server.client() as http:
            after_restart = _ask(http, fake_llm, tmp_path / "w3")
    finally:
        server.stop()

    # Before the server had an `oracle` profile the agent is told to save one there, although
    # the server user's own folder has one.
    assert missing["is_error"] and "POST /api/profiles/oracle" in _text(missing)
    assert not answered["is_error"] and _text(answered) == "Patch it."
    assert not after_restart["is_error"] and _text(after_restart) == "Still patch."
    assert fake_llm.requests_for(decoy_model) == []
    oracle_headers = [
        headers
        for body, headers in zip(fake_llm.requests, fake_llm.request_headers, strict=True)
        if body.get("model") == oracle_model
    ]
    assert [h["authorization"] for h in oracle_headers] == [f"Bearer {ORACLE_KEY}"] * 2
    # The key is sealed on the server's disk: no file there holds it in clear.
    leaked = [
        path
        for path in root.rglob("*")
        if path.is_file() and ORACLE_KEY.encode() in path.read_bytes()
    ]
    assert leaked == []

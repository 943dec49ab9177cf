"""Agent profiles and meta profiles through the app: a profile keeps its id across saves and
renames, some profile is always active, materialize says what is missing, a conversation is
created from a profile (its LLM profile's key, its tools, its prompt suffix, its secrets)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import unique, wait_until
from .surface_app import agent, surface_client

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with surface_client(tmp_path) as http:
        yield http


def _ids(client: TestClient) -> dict[str, str]:
    return {p["name"]: p["id"] for p in client.get("/api/agent-profiles").json()["profiles"]}


def test_a_default_profile_is_made_and_kept_active(tmp_path: Path) -> None:
    with surface_client(tmp_path) as client:
        first = client.get("/api/agent-profiles").json()
        client.post("/api/agent-profiles/other", json={"llm_profile_ref": "x"})
        deleted = client.delete("/api/agent-profiles/default")
        after = client.get("/api/agent-profiles").json()

    with surface_client(tmp_path) as client:
        again = client.get("/api/agent-profiles").json()

    assert [p["name"] for p in first["profiles"]] == ["default"]
    assert first["active_agent_profile_id"] == first["profiles"][0]["id"]
    assert deleted.status_code == 200
    other = next(p for p in after["profiles"] if p["name"] == "other")
    assert after["active_agent_profile_id"] == other["id"]  # the pointer moved on
    assert again == after


def test_saves_and_renames_keep_the_id_and_count_revisions(client: TestClient) -> None:
    body = {"llm_profile_ref": "main", "tools": [{"name": "terminal"}]}
    assert list(_ids(client)) == ["default"]
    client.post("/api/agent-profiles/coder", json={**body, "id": str(uuid.uuid4()), "revision": 9})
    first = _ids(client)["coder"]
    client.post("/api/agent-profiles/coder", json={**body, "system_message_suffix": "Be brief."})
    renamed = client.post("/api/agent-profiles/coder/rename", json={"new_name": "writer"})
    activated = client.post(f"/api/agent-profiles/{first}/activate")
    shown = client.get("/api/agent-profiles/writer").json()["profile"]

    assert renamed.json()["name"] == "writer" and _ids(client)["writer"] == first
    assert shown["revision"] == 1 and shown["system_message_suffix"] == "Be brief."
    assert activated.json() == {
        "id": first,
        "message": f"Agent profile '{first}' activated",
        "agent_settings_applied": False,
    }
    assert client.get("/api/agent-profiles").json()["active_agent_profile_id"] == first
    assert client.post("/api/agent-profiles/nope/activate").status_code == 404
    assert (
        client.post("/api/agent-profiles/writer/rename", json={"new_name": "default"}).status_code
        == 409
    )


def test_what_this_server_does_not_do_is_refused_by_name(client: TestClient) -> None:
    persona = client.post("/api/agent-profiles/p", json={"llm_profile_ref": "m", "persona": "x"})
    acp = client.post("/api/agent-profiles/p", json={"agent_kind": "acp", "acp_server": "claude"})

    assert persona.status_code == 422 and "persona" in persona.json()["message"]
    assert acp.status_code == 422 and "agent_kind" in str(acp.json()["detail"])
    assert "p" not in _ids(client)


def test_materialize_names_what_is_missing(client: TestClient, fake: FakeOpenAIServer) -> None:
    llm = agent(fake.base_url, unique("m"))["llm"]
    client.post("/api/profiles/main", json={"llm": llm})
    client.post("/api/settings/mcp/docs", json={"command": "python"})
    client.post(
        "/api/agent-profiles/ok", json={"llm_profile_ref": "main", "mcp_server_refs": ["docs"]}
    )

    good = client.post("/api/agent-profiles/ok/materialize").json()
    draft = client.post(
        "/api/agent-profiles/ok/materialize",
        json={
            "profile": {
                "llm_profile_ref": "gone",
                "mcp_server_refs": ["docs", "x"],
                "tools": [{"name": "no_tool"}],
            }
        },
    ).json()

    assert (
        good["valid"] and good["llm_api_key_set"] and good["resolved_mcp_config_keys"] == ["docs"]
    )
    assert good["resolved_settings"]["llm"]["api_key"] is None
    assert not draft["valid"] and draft["resolved_settings"] is None
    assert draft["dangling_mcp_server_refs"] == ["x"] and draft["unusable_tools"] == ["no_tool"]
    assert any("gone" in e for e in draft["errors"])


@pytest.mark.slow
def test_a_conversation_is_created_from_a_profile(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    model = unique("profiled")
    fake.script(model, [FakeReply.text("profiled answer")])
    client.post("/api/profiles/main", json={"llm": agent(fake.base_url, model)["llm"]})
    client.post(
        "/api/agent-profiles/coder",
        json={
            "llm_profile_ref": "main",
            "system_message_suffix": "Answer like a pirate.",
            "secret_refs": ["KEEP"],
            "tools": [],
        },
    )
    profile_id = _ids(client)["coder"]

    created = client.post(
        "/api/conversations",
        json={
            "agent_profile_id": profile_id,
            "secrets": {"KEEP": "k", "DROP": "d"},
            "initial_message": {"content": [{"type": "text", "text": "hello"}]},
        },
    )
    cid = created.json()["id"]
    wait_until(
        lambda: client.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished",
        what="the run",
    )
    by_name = client.post("/api/conversations", json={"agent_profile_id": "coder"})
    unknown = client.post("/api/conversations", json={"agent_profile_id": "nope"})

    assert created.status_code == 201 and by_name.status_code == 201
    assert created.json()["agent"]["llm"]["usage_id"] == "profile:main"
    system = str(fake.requests_for(model)[0]["messages"][0])
    assert "Answer like a pirate." in system
    tools = [t["function"]["name"] for t in fake.requests_for(model)[0].get("tools", [])]
    assert "terminal" not in tools and "file_editor" not in tools  # `tools: []`: none of them
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == [
        "body",
        "agent_profile_id",
    ]


def test_meta_profiles_are_stored_but_never_active(tmp_path: Path) -> None:
    body = {"classifier_model": "fast", "classes": [{"description": "UI work", "model": "vision"}]}
    with surface_client(tmp_path) as client:
        saved = client.post("/api/meta-profiles/route", json=body)
        empty = client.post("/api/meta-profiles/bad", json={"classifier_model": "fast"})
        activated = client.post("/api/meta-profiles/route/activate")

    with surface_client(tmp_path) as client:
        listed = client.get("/api/meta-profiles").json()
        one = client.get("/api/meta-profiles/route").json()
        deleted = client.delete("/api/meta-profiles/route")
        gone = client.get("/api/meta-profiles/route")

    assert saved.status_code == 201
    assert empty.status_code == 422 and "classes" in empty.json()["message"]
    assert activated.json()["applied"] is False
    assert listed == {
        "meta_profiles": [{"name": "route", "classifier_model": "fast", "num_classes": 1}],
        "active_meta_profile": None,
    }
    assert one["config"]["classes"] == body["classes"]
    assert deleted.status_code == 200 and gone.status_code == 404

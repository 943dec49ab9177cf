"""The reference's settings surface through the app: saved workspaces, the LLM catalogue,
profile rename and validation, provider connections, the settings forms, named MCP servers
and the MCP check. What is stored survives a restart; no answer holds a key."""

from __future__ import annotations

import sys
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

TOOLS_SERVER = Path(__file__).parents[2] / "sdk" / "mcp" / "servers" / "tools_server.py"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with surface_client(tmp_path) as http:
        yield http


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_saved_workspaces_are_deduplicated_and_kept_across_a_restart(tmp_path: Path) -> None:
    item = {"id": "/src/app", "name": "app", "path": "/src/app", "parentPath": "/src"}
    with surface_client(tmp_path) as client:
        added = client.post("/api/workspaces", json={"workspaces": [item, item]})
        again = client.post("/api/workspaces", json={"workspaces": [{**item, "name": "other"}]})
        parents = client.post(
            "/api/workspaces/parents",
            json={"parents": [{"id": "/src", "name": "src", "path": "/src"}]},
        )

    with surface_client(tmp_path) as client:
        listed = client.get("/api/workspaces").json()
        removed = client.delete("/api/workspaces", params={"path": "/src/app"})
        gone = client.delete("/api/workspaces", params={"path": "/src/app"})
        left = client.get("/api/workspaces").json()

    assert added.json()["workspaces"] == [item]
    assert again.json()["workspaces"] == [item]  # the first one under that path is kept
    assert parents.json()["workspaceParents"] == [{"id": "/src", "name": "src", "path": "/src"}]
    assert listed == {"workspaces": [item], "workspaceParents": parents.json()["workspaceParents"]}
    assert removed.json() == {"deleted": True} and gone.status_code == 404
    assert left["workspaces"] == [] and len(left["workspaceParents"]) == 1


def test_the_workspace_limit_is_a_409_that_writes_nothing(tmp_path: Path) -> None:
    with surface_client(tmp_path, OH_MAX_WORKSPACES="2") as client:
        items = [{"id": f"/w{i}", "name": f"w{i}", "path": f"/w{i}"} for i in range(3)]
        assert client.post("/api/workspaces", json={"workspaces": items[:2]}).status_code == 200
        before = (tmp_path / "settings" / "workspaces.json").read_bytes()

        refused = client.post("/api/workspaces", json={"workspaces": items[2:]})

        assert refused.status_code == 409 and "OH_MAX_WORKSPACES" in refused.json()["message"]
        assert (tmp_path / "settings" / "workspaces.json").read_bytes() == before


def test_a_damaged_workspaces_file_is_a_409_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "settings").mkdir()
    (tmp_path / "settings" / "workspaces.json").write_text("{not json")
    with surface_client(tmp_path) as client:
        read = client.get("/api/workspaces")
        write = client.post("/api/workspaces", json={"workspaces": []})

    assert read.status_code == 409 and write.status_code == 409
    assert (tmp_path / "settings" / "workspaces.json").read_text() == "{not json"


def test_the_llm_catalogue_lists_providers_and_models(client: TestClient) -> None:
    providers = client.get("/api/llm/providers").json()["providers"]
    every = client.get("/api/llm/models").json()["models"]
    anthropic = client.get("/api/llm/models", params={"provider": "anthropic"}).json()["models"]
    unknown = client.get("/api/llm/models", params={"provider": "no-such-provider"}).json()
    verified = client.get("/api/llm/models/verified").json()["models"]

    assert {"openai", "anthropic", "gemini"} <= set(providers) and providers == sorted(providers)
    assert "gpt-4o" in every and every == sorted(every)
    assert anthropic and all("claude" in m for m in anthropic)
    assert unknown == {"models": []}
    assert "gpt-5" in verified["openai"]
    assert all(m in every or f"{p}/{m}" in every for p, ms in verified.items() for m in ms)


def test_a_renamed_profile_keeps_its_key_and_stays_active(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    model = unique("renamed")
    key = "sk-renamed-profile-31"
    fake.require_api_key(key, model)
    fake.script(model, [FakeReply.text("from the renamed profile")])
    llm = {**agent(fake.base_url, model)["llm"], "api_key": key}
    with surface_client(tmp_path) as client:
        assert client.post("/api/profiles/old", json={"llm": llm}).status_code == 201
        assert client.patch("/api/settings", json={"active_profile": "old"}).status_code == 200
        taken = client.post("/api/profiles/taken", json={"llm": llm})
        conflict = client.post("/api/profiles/old/rename", json={"new_name": "taken"})
        renamed = client.post("/api/profiles/old/rename", json={"new_name": "new"})

    with surface_client(tmp_path) as client:
        names = [p["name"] for p in client.get("/api/profiles").json()["profiles"]]
        active = client.get("/api/settings").json()["active_profile"]
        created = client.post(
            "/api/conversations",
            json={
                "llm_profile": "new",
                "initial_message": {"content": [{"type": "text", "text": "hi"}]},
            },
        )
        cid = created.json()["id"]
        wait_until(
            lambda: (
                client.get(f"/api/conversations/{cid}").json()["execution_status"]
                in ("finished", "error")
            ),
            what="the run",
        )
        answer = client.get(f"/api/conversations/{cid}/agent_final_response").json()

    assert taken.status_code == 201 and conflict.status_code == 409
    assert renamed.json() == {"name": "new", "message": "Profile 'old' renamed to 'new'"}
    assert sorted(names) == ["new", "taken"] and active == "new"
    assert answer == {"response": "from the renamed profile"}


def test_validate_says_which_drafts_work(client: TestClient, fake: FakeOpenAIServer) -> None:
    good, refusing = unique("good"), unique("refusing")
    fake.script(good, [FakeReply.text("pong")])
    fake.require_api_key("sk-right", refusing)
    fake.script(refusing, [FakeReply.text("never sent")])
    base = fake.base_url

    works = client.post("/api/profiles/p/validate", json={"llm": agent(base, good)["llm"]})
    wrong_key = client.post(
        "/api/profiles/p/validate", json={"llm": {**agent(base, refusing)["llm"], "api_key": "no"}}
    )
    down = client.post(
        "/api/profiles/p/validate",
        json={"llm": {"model": "openai/x", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}},
    )

    assert works.json() == {"valid": True, "error": None}
    assert wrong_key.json()["valid"] is False
    assert wrong_key.json()["error"]["type"] == "LLMAuthenticationError"
    assert down.json()["valid"] is False and "127.0.0.1:9" in down.json()["error"]["message"]
    assert client.get("/api/profiles").json()["profiles"] == []  # nothing saved


def test_a_provider_connection_gives_linked_profiles_its_key(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    model = unique("linked")
    key = "sk-connection-" + unique("k")
    fake.require_api_key(key, model)
    fake.script(model, [FakeReply.text("linked answer")])
    with surface_client(tmp_path) as client:
        created = client.post(
            "/api/llm/provider-connections",
            json={
                "display_name": "Fake",
                "provider": "openai",
                "api_key": key,
                "base_url": fake.base_url,
            },
        )
        cid = created.json()["id"]
        linked = {"model": f"openai/{model}", "provider_connection_id": cid, "num_retries": 0}
        assert client.post("/api/profiles/linked", json={"llm": linked}).status_code == 201

    with surface_client(tmp_path) as client:  # the connection is read again at start
        listed = client.get("/api/llm/provider-connections").json()
        refused = client.delete(f"/api/llm/provider-connections/{cid}")
        conversation = client.post(
            "/api/conversations",
            json={
                "llm_profile": "linked",
                "initial_message": {"content": [{"type": "text", "text": "hi"}]},
            },
        ).json()["id"]
        wait_until(
            lambda: (
                client.get(f"/api/conversations/{conversation}").json()["execution_status"]
                in ("finished", "error")
            ),
            what="the run",
        )
        answer = client.get(f"/api/conversations/{conversation}/agent_final_response").json()
        client.delete("/api/profiles/linked")
        deleted = client.delete(f"/api/llm/provider-connections/{cid}")

    assert created.status_code == 201 and created.json()["api_key_set"] is True
    assert [c["id"] for c in listed] == [cid] and key not in str(listed)
    assert refused.status_code == 409 and "linked" in refused.json()["message"]
    assert answer == {"response": "linked answer"}
    assert deleted.status_code == 200 and deleted.json()["api_key_set"] is False
    assert key.encode() not in _all_bytes(tmp_path)


def test_the_settings_forms_describe_the_settings(client: TestClient) -> None:
    agent_form = client.get("/api/settings/agent-schema").json()
    conversation_form = client.get("/api/settings/conversation-schema").json()

    fields = {f["key"]: f for s in agent_form["sections"] for f in s["fields"]}
    assert agent_form["model_name"] == "OpenHandsAgentSettings"
    assert fields["llm.model"]["value_type"] == "string" and fields["llm.api_key"]["secret"]
    assert fields["tool_concurrency_limit"]["value_type"] == "integer"
    kinds = {c["value"] for c in fields["condenser.condenser_kind"]["choices"]}
    assert kinds == {"llm_summarizing", "no_op"}
    general = conversation_form["sections"][0]["fields"]
    assert {"key": "max_iterations", "default": 500}.items() <= general[0].items()


def test_named_mcp_servers_are_added_changed_and_removed(tmp_path: Path) -> None:
    server = {"command": "python", "args": ["-m", "srv"], "env": {"TOKEN": "mcp-secret-42"}}
    with surface_client(tmp_path) as client:
        added = client.post("/api/settings/mcp/tools", json=server)
        twice = client.post("/api/settings/mcp/tools", json=server)
        patched = client.patch("/api/settings/mcp/tools", json={"args": ["-m", "other"]})

    with surface_client(tmp_path) as client:
        kept = client.get("/api/settings").json()["agent_settings"]["mcp_config"]
        removed = client.delete("/api/settings/mcp/tools")
        missing = client.delete("/api/settings/mcp/tools")

    assert added.status_code == 201 and twice.status_code == 409
    assert patched.json()["agent_settings"]["mcp_config"]["tools"]["args"] == ["-m", "other"]
    assert kept == {"tools": {"command": "python", "args": ["-m", "other"], "env": {"TOKEN": None}}}
    assert removed.json()["agent_settings"]["mcp_config"] == {} and missing.status_code == 404
    assert b"mcp-secret-42" not in _all_bytes(tmp_path)


@pytest.mark.slow
def test_the_mcp_check_lists_tools_calls_one_and_reports_failures(client: TestClient) -> None:
    stdio = {"type": "stdio", "command": sys.executable, "args": [str(TOOLS_SERVER)]}

    works = client.post(
        "/api/mcp/test",
        json={"server": stdio, "tool_call": {"name": "add", "arguments": {"a": 2, "b": 3}}},
    )
    missing = client.post("/api/mcp/test", json={"server": {"command": "/no/such/program"}})
    unreachable = client.post(
        "/api/mcp/test", json={"server": {"url": "http://127.0.0.1:9/mcp"}, "timeout": 5}
    )

    assert works.json()["ok"] is True and "add" in works.json()["tools"]
    assert works.json()["tool_result"] == {"is_error": False, "text": "5"}
    assert missing.json()["ok"] is False and missing.json()["error_kind"] == "connection"
    assert "/no/such/program" in missing.json()["error"]
    assert unreachable.json()["ok"] is False

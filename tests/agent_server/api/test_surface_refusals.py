"""Every route of the reference's working surface refuses what it must, and a refused request
writes nothing: 401 without the session key, 404 for an unknown conversation or item, 422
naming the field of a bad input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from .surface_app import HEADERS, agent, files, surface_client

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

CID = "{cid}"
"""Stands for an existing conversation's id in the paths below."""

UNKNOWN = "5f0c1d2e-0000-4000-8000-00000000a404"
"""An id no conversation has (fixed: test ids must be the same in every xdist worker)."""

# (method, path, body) of every new route, for the 401 check.
ROUTES: list[tuple[str, str, object]] = [
    ("GET", "/api/conversations?ids=" + UNKNOWN, None),
    ("PATCH", f"/api/conversations/{CID}", {"title": "x"}),
    ("POST", f"/api/conversations/{CID}/interrupt", None),
    ("POST", f"/api/conversations/{CID}/navigate", {"event_id": None}),
    ("POST", f"/api/conversations/{CID}/secrets", {"secrets": {"A": "b"}}),
    ("POST", f"/api/conversations/{CID}/condense", None),
    ("POST", f"/api/conversations/{CID}/load_plugin", {"plugin_ref": "/p"}),
    ("GET", f"/api/conversations/{CID}/agent_final_response", None),
    ("GET", f"/api/conversations/{CID}/runtime", None),
    ("POST", f"/api/conversations/{CID}/runtime/reprovision", None),
    ("GET", f"/api/conversations/{CID}/events", ["x"]),
    ("GET", f"/api/conversations/{CID}/workspace", None),
    ("GET", f"/api/conversations/{CID}/workspace/a.txt", None),
    ("POST", f"/api/conversations/{CID}/switch_llm", {"llm": {"model": "openai/x"}}),
    ("POST", f"/api/conversations/{CID}/switch_profile", {"profile_name": "p"}),
    ("POST", f"/api/conversations/{CID}/ask_agent", {"question": "why?"}),
    ("GET", "/api/llm/providers", None),
    ("GET", "/api/llm/models", None),
    ("GET", "/api/llm/models/verified", None),
    ("GET", "/api/llm/provider-connections", None),
    ("POST", "/api/llm/provider-connections", {"display_name": "d", "api_key": "k"}),
    ("PATCH", "/api/llm/provider-connections/abc", {"display_name": "d"}),
    ("DELETE", "/api/llm/provider-connections/abc", None),
    ("POST", "/api/profiles/p/rename", {"new_name": "q"}),
    ("POST", "/api/profiles/p/validate", {"llm": {"model": "openai/x"}}),
    ("GET", "/api/settings/agent-schema", None),
    ("GET", "/api/settings/conversation-schema", None),
    ("POST", "/api/settings/mcp/s", {"command": "true"}),
    ("PATCH", "/api/settings/mcp/s", {"args": []}),
    ("DELETE", "/api/settings/mcp/s", None),
    ("POST", "/api/mcp/test", {"server": {"command": "true"}}),
    ("GET", "/api/agent-profiles", None),
    ("GET", "/api/agent-profiles/p", None),
    ("POST", "/api/agent-profiles/p", {"llm_profile_ref": "m"}),
    ("DELETE", "/api/agent-profiles/p", None),
    ("POST", "/api/agent-profiles/p/rename", {"new_name": "q"}),
    ("POST", "/api/agent-profiles/p/activate", None),
    ("POST", "/api/agent-profiles/p/materialize", None),
    ("GET", "/api/meta-profiles", None),
    ("GET", "/api/meta-profiles/m", None),
    (
        "POST",
        "/api/meta-profiles/m",
        {"classifier_model": "c", "prompt_template": "{{ instance_text }}"},
    ),
    ("DELETE", "/api/meta-profiles/m", None),
    ("POST", "/api/meta-profiles/m/activate", None),
    ("GET", "/api/workspaces", None),
    ("POST", "/api/workspaces", {"workspaces": []}),
    ("DELETE", "/api/workspaces?path=/a", None),
    ("POST", "/api/workspaces/parents", {"parents": []}),
    ("DELETE", "/api/workspaces/parents?path=/a", None),
    ("POST", "/v1/responses", {"model": "m", "input": "x"}),
]

# (method, path, body, the field the 422 names): bad input to an existing conversation, a
# malformed id, or a bad body.
BAD_INPUT: list[tuple[str, str, object, str]] = [
    ("GET", "/api/conversations?ids=not-a-uuid", None, "ids"),
    ("PATCH", f"/api/conversations/{CID}", {"title": "   "}, "title"),
    ("PATCH", f"/api/conversations/{CID}", {"tags": {"Bad Key": "v"}}, "tags"),
    ("POST", "/api/conversations/not-a-uuid/interrupt", None, "conversation_id"),
    ("POST", f"/api/conversations/{CID}/navigate", {"event_id": 7}, "event_id"),
    ("POST", f"/api/conversations/{CID}/secrets", {"secrets": {"1BAD": "v"}}, "secrets"),
    ("POST", "/api/conversations/not-a-uuid/condense", None, "conversation_id"),
    ("POST", f"/api/conversations/{CID}/load_plugin", {"plugin_ref": ""}, "plugin_ref"),
    ("GET", "/api/conversations/not-a-uuid/agent_final_response", None, "conversation_id"),
    ("GET", "/api/conversations/not-a-uuid/runtime", None, "conversation_id"),
    ("GET", "/api/conversations/not-a-uuid/workspace/a.txt", None, "conversation_id"),
    ("GET", f"/api/conversations/{CID}/events", {"not": "a list"}, "body"),
    ("POST", f"/api/conversations/{CID}/switch_llm", {"llm": {"api_key": "k"}}, "model"),
    ("POST", f"/api/conversations/{CID}/switch_profile", {"profile_name": "-x"}, "profile_name"),
    ("POST", f"/api/conversations/{CID}/ask_agent", {"question": "  "}, "question"),
    ("GET", "/api/llm/models?provider=" + "x" * 101, None, "provider"),
    ("POST", "/api/llm/provider-connections", {"display_name": "", "api_key": "k"}, "display_name"),
    ("POST", "/api/llm/provider-connections", {"display_name": "d", "api_key": " "}, "api_key"),
    ("POST", "/api/profiles/p/rename", {"new_name": "-bad"}, "new_name"),
    ("POST", "/api/profiles/p/validate", {"llm": {"api_key": "k"}}, "model"),
    ("POST", "/api/settings/mcp/-bad", {"command": "true"}, "settings_key"),
    ("POST", "/api/settings/mcp/s", {"command": "true", "timeout": -1}, "timeout"),
    ("POST", "/api/mcp/test", {"server": {"command": "true"}, "timeout": 0}, "timeout"),
    ("POST", "/api/workspaces", {"workspaces": [{"id": "", "name": "n", "path": "/p"}]}, "id"),
    (
        "POST",
        "/api/workspaces/parents",
        {"parents": [{"id": "i", "name": "", "path": "/"}]},
        "name",
    ),
    ("DELETE", "/api/workspaces", None, "path"),
    ("POST", "/api/agent-profiles/-bad", {"llm_profile_ref": "m"}, "name"),
    ("POST", "/api/agent-profiles/p", {"llm_profile_ref": ""}, "llm_profile_ref"),
    ("POST", "/api/agent-profiles/p", {"llm_profile_ref": "m", "persona": "x"}, "persona"),
    ("POST", "/api/agent-profiles/p/rename", {"new_name": ""}, "new_name"),
    ("POST", "/api/meta-profiles/m", {"classifier_model": "c"}, "classes"),
    ("POST", "/api/conversations", {"agent_profile_id": ""}, "agent_profile_id"),
]

# (method, path, body) that name something unknown: answered 404.
UNKNOWN_ITEMS: list[tuple[str, str, object]] = [
    ("PATCH", f"/api/conversations/{UNKNOWN}", {"title": "x"}),
    ("POST", f"/api/conversations/{UNKNOWN}/interrupt", None),
    ("POST", f"/api/conversations/{UNKNOWN}/navigate", {"event_id": None}),
    ("POST", f"/api/conversations/{UNKNOWN}/secrets", {"secrets": {"A": "b"}}),
    ("POST", f"/api/conversations/{UNKNOWN}/condense", None),
    ("POST", f"/api/conversations/{UNKNOWN}/load_plugin", {"plugin_ref": "/p"}),
    ("GET", f"/api/conversations/{UNKNOWN}/agent_final_response", None),
    ("GET", f"/api/conversations/{UNKNOWN}/runtime", None),
    ("POST", f"/api/conversations/{UNKNOWN}/runtime/reprovision", None),
    ("GET", f"/api/conversations/{UNKNOWN}/events", ["x"]),
    ("GET", f"/api/conversations/{UNKNOWN}/workspace", None),
    ("GET", f"/api/conversations/{UNKNOWN}/workspace/index.html", None),
    ("POST", f"/api/conversations/{UNKNOWN}/switch_llm", {"llm": {"model": "openai/x"}}),
    ("POST", f"/api/conversations/{UNKNOWN}/switch_profile", {"profile_name": "p"}),
    ("POST", f"/api/conversations/{UNKNOWN}/ask_agent", {"question": "why?"}),
    ("POST", f"/api/conversations/{CID}/navigate", {"event_id": "no-such-event"}),
    ("POST", f"/api/conversations/{CID}/switch_profile", {"profile_name": "no-such-profile"}),
    ("PATCH", "/api/llm/provider-connections/no-such-id", {"display_name": "d"}),
    ("DELETE", "/api/llm/provider-connections/no-such-id", None),
    ("POST", "/api/profiles/no-such-profile/rename", {"new_name": "q"}),
    ("PATCH", "/api/settings/mcp/no-such-server", {"args": []}),
    ("DELETE", "/api/settings/mcp/no-such-server", None),
    ("DELETE", "/api/workspaces?path=/no/such", None),
    ("GET", "/api/agent-profiles/no-such-profile", None),
    ("POST", "/api/agent-profiles/no-such-profile/rename", {"new_name": "q"}),
    ("POST", "/api/agent-profiles/no-such-id/activate", None),
    ("POST", "/api/agent-profiles/no-such-profile/materialize", None),
    ("GET", "/api/meta-profiles/no-such-profile", None),
    ("POST", "/api/meta-profiles/no-such-profile/activate", None),
    ("DELETE", "/api/workspaces/parents?path=/no/such", None),
    ("POST", "/v1/responses", {"model": "no_such_model", "input": "x"}),
    ("POST", "/v1/responses", {"model": "no_such_model", "input": "x"}),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("refusals")


@pytest.fixture(scope="module")
def client(root: Path) -> Iterator[TestClient]:
    with surface_client(root) as http:
        yield http


@pytest.fixture(scope="module")
def cid(client: TestClient) -> str:
    created = client.post("/api/conversations", json={"agent": agent("http://127.0.0.1:9/v1", "m")})
    assert created.status_code == 201, created.text
    return created.json()["id"]


def _send(
    client: TestClient, method: str, path: str, body: object, headers: dict[str, str] | None = None
) -> httpx2.Response:
    return client.request(method, path, json=body, headers=headers)


def test_every_route_needs_the_session_key(client: TestClient, cid: str, root: Path) -> None:
    before = files(root)
    answers = {
        (method, path): _send(
            client, method, path.replace(CID, cid), body, headers={"X-Session-API-Key": "wrong"}
        ).status_code
        for method, path, body in ROUTES
    }

    assert {route: status for route, status in answers.items() if status != 401} == {}
    assert files(root) == before


@pytest.mark.parametrize(("method", "path", "body", "field"), BAD_INPUT)
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, cid: str, root: Path, method: str, path: str, body: object, field: str
) -> None:
    before = files(root)

    answer = _send(client, method, path.replace(CID, cid), body)

    assert answer.status_code == 422, answer.text
    named = [part for problem in answer.json()["detail"] for part in problem["loc"]]
    assert field in named or field in answer.json()["message"], answer.text
    assert files(root) == before


@pytest.mark.parametrize(("method", "path", "body"), UNKNOWN_ITEMS)
def test_an_unknown_item_is_a_404(
    client: TestClient, cid: str, root: Path, method: str, path: str, body: object
) -> None:
    before = files(root)

    answer = _send(client, method, path.replace(CID, cid), body)

    assert answer.status_code == 404, answer.text
    assert files(root) == before


def test_the_responses_api_answers_errors_in_openai_shape(client: TestClient) -> None:
    unknown = client.post("/v1/responses", json={"model": "no_such_model", "input": "x"})
    invalid = client.post("/v1/responses", json={"model": "m"})
    no_key = client.post(
        "/v1/responses", json={"model": "m", "input": "x"}, headers={"X-Session-API-Key": "no"}
    )
    no_route = client.get("/v1/no-such-route")

    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "not_found_error"
    assert "no_such_model" in unknown.json()["error"]["message"]
    assert invalid.status_code == 422 and invalid.json()["error"]["param"] == "input"
    assert no_key.status_code == 401 and no_key.json()["error"]["code"] == "invalid_api_key"
    assert no_route.status_code == 404 and set(no_route.json()["error"]) == {
        "message",
        "type",
        "code",
        "param",
    }
    assert HEADERS  # the fixture's client sends the key: only the bad key above is refused

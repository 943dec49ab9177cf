"""Session API keys: every REST and WebSocket route needs one, except /health and /alive."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openhands.agent_server.auth import key_matches
from openhands.sdk.testing import FakeOpenAIServer
from waits import EVENT_WAIT
from websockets.exceptions import ConnectionClosed, InvalidStatus

from .harness import ServerProcess, llm_spec, unique

KEY = "s3cret-key"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("keyed")
    process = ServerProcess(
        root / "conversations", env={"OH_SESSION_API_KEYS": f"other,{KEY}"}
    ).start()
    yield process
    process.stop()


@pytest.fixture
def conversation(keyed_server: ServerProcess, fake_llm: FakeOpenAIServer) -> str:
    with keyed_server.client(api_key=KEY) as http:
        body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, unique("agent"))}}
        response = http.post("/api/conversations", json=body)
        assert response.status_code == 201, response.text
        return response.json()["id"]


def test_key_matches_any_configured_key() -> None:
    assert key_matches("b", ("a", "b"))
    assert not key_matches("c", ("a", "b"))
    assert not key_matches(None, ("a",))
    assert key_matches(None, ())


def test_health_and_alive_need_no_key(keyed_server: ServerProcess) -> None:
    assert httpx.get(f"{keyed_server.url}/health").status_code == 200
    assert httpx.get(f"{keyed_server.url}/alive").status_code == 200


@pytest.mark.parametrize(
    "path", ["/api/conversations/search", "/api/conversations/count", "/server_info"]
)
def test_rest_without_key_is_401(keyed_server: ServerProcess, path: str) -> None:
    response = httpx.get(f"{keyed_server.url}{path}")
    assert response.status_code == 401
    assert "X-Session-API-Key" in response.json()["message"]


def test_rest_with_wrong_key_is_401(keyed_server: ServerProcess) -> None:
    with keyed_server.client(api_key="wrong") as http:
        assert http.get("/api/conversations/count").status_code == 401


def test_rest_with_any_configured_key_works(keyed_server: ServerProcess) -> None:
    for key in ("other", KEY):
        with keyed_server.client(api_key=key) as http:
            assert http.get("/api/conversations/count").status_code == 200


def test_creating_without_key_is_401(
    keyed_server: ServerProcess, fake_llm: FakeOpenAIServer
) -> None:
    body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, "x")}}
    assert httpx.post(f"{keyed_server.url}/api/conversations", json=body).status_code == 401


def test_socket_without_key_must_send_it_first_or_is_closed_4001(
    keyed_server: ServerProcess, conversation: str
) -> None:
    # As the reference server: a socket without a key is accepted and waits for an auth frame.
    with keyed_server.socket(conversation, api_key="", resend_all="true") as socket:
        socket.connection.send(json.dumps({"type": "auth", "session_api_key": "wrong"}))
        with pytest.raises(ConnectionClosed) as closed:
            socket.next()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4001


def test_socket_authenticated_by_its_first_frame_streams(
    keyed_server: ServerProcess, conversation: str
) -> None:
    with keyed_server.socket(conversation, api_key="", resend_all="true") as socket:
        socket.connection.send(json.dumps({"type": "auth", "session_api_key": KEY}))
        assert socket.next()["kind"] == "SystemPromptEvent"


def test_socket_whose_first_frame_is_not_auth_is_closed_4001(
    keyed_server: ServerProcess, conversation: str
) -> None:
    with keyed_server.socket(conversation, api_key="") as socket:
        socket.connection.send(json.dumps({"role": "user", "content": []}))
        with pytest.raises(ConnectionClosed) as closed:
            socket.next()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4001


def test_socket_to_an_unknown_conversation_authenticates_before_saying_not_found(
    keyed_server: ServerProcess,
) -> None:
    with keyed_server.socket(str(uuid.uuid4()), api_key="") as socket:
        socket.connection.send(json.dumps({"type": "auth", "session_api_key": KEY}))
        with pytest.raises(ConnectionClosed) as closed:
            socket.next()
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4004, "Conversation not found")


def test_socket_with_wrong_key_is_refused(keyed_server: ServerProcess, conversation: str) -> None:
    with pytest.raises(InvalidStatus):
        keyed_server.socket(conversation, api_key="wrong")


def test_socket_with_key_header_streams(keyed_server: ServerProcess, conversation: str) -> None:
    with keyed_server.socket(conversation, api_key=KEY, resend_all="true") as socket:
        assert socket.next()["kind"] == "SystemPromptEvent"


def test_socket_accepts_the_key_as_query_parameter(
    keyed_server: ServerProcess, conversation: str, tmp_path: Path
) -> None:
    with keyed_server.socket(
        conversation, api_key="", resend_all="true", session_api_key=KEY
    ) as socket:
        assert socket.next()["kind"] == "SystemPromptEvent"


def test_query_parameter_key_is_not_written_to_the_server_log(
    keyed_server: ServerProcess, conversation: str
) -> None:
    with keyed_server.socket(
        conversation, api_key="", resend_all="true", session_api_key=KEY
    ) as socket:
        socket.next()
    log = keyed_server.log()
    assert "session_api_key=***" in log
    assert KEY not in log


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/static/app.js",
        "/docs",
        "/docs/init.js",
        "/docs/assets/swagger-ui.css",
        "/openapi.json",
    ],
)
def test_page_and_docs_need_no_key(keyed_server: ServerProcess, path: str) -> None:
    # /openapi.json is built on its first read (every route family loaded): seconds under load.
    assert httpx.get(f"{keyed_server.url}{path}", timeout=EVENT_WAIT).status_code == 200


def test_key_is_checked_before_the_body_is_parsed(keyed_server: ServerProcess) -> None:
    response = httpx.post(
        f"{keyed_server.url}/api/conversations",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 401


def test_unknown_paths_need_a_key_too(keyed_server: ServerProcess) -> None:
    assert httpx.get(f"{keyed_server.url}/api/not-a-route").status_code == 401
    with keyed_server.client(api_key=KEY) as http:
        assert http.get("/api/not-a-route").status_code == 404

"""No web page can drive the server: Host (DNS rebinding) and Origin (CSRF) checks on a real
server in its default setup (loopback, no key), the settings that widen them, and the
security headers every answer carries."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any, cast

import httpx
import pytest
from agent_server.harness import ServerProcess
from ports import free_port
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The default setup: 127.0.0.1, no session key, no extra hosts or origins."""
    process = ServerProcess(tmp_path_factory.mktemp("guard") / "conversations").start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def widened(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server that also answers agents.example, *.corp.example and https://app.example."""
    env = {
        "OH_ALLOWED_HOSTS": "agents.example,*.corp.example",
        "OH_ALLOWED_ORIGINS": "https://app.example",
    }
    process = ServerProcess(tmp_path_factory.mktemp("widened") / "conversations", env=env)
    yield process.start()
    process.stop()


def conversation_body(**extra: Any) -> dict[str, Any]:
    """A conversation whose Stop hook would run a command (what an attacker wants)."""
    llm = {"model": "openai/unused", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}
    hooks = {"stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "touch pwned"}]}]}
    return {"agent": {"kind": "Agent", "llm": llm}, "hook_config": hooks, **extra}


def count(server: ServerProcess) -> int:
    with server.client() as client:
        return client.get("/api/conversations/count").json()


def open_socket(
    server: ServerProcess, *, host: str | None = None, origin: str | None = None
) -> ClientConnection:
    """Open the event socket of an unknown conversation (the route, once the guard lets it
    through, accepts it and closes it with 4004)."""
    path = "/sockets/events/00000000-0000-0000-0000-000000000000"
    name = host or f"127.0.0.1:{server.port}"
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return connect(
        f"ws://{name}{path}", sock=sock, origin=cast(Origin | None, origin), open_timeout=10
    )


def refusal_status(server: ServerProcess, **options: str) -> int:
    with pytest.raises(InvalidStatus) as refused:
        open_socket(server, **options)
    return refused.value.response.status_code


def reaches_the_route(server: ServerProcess, **options: str) -> bool:
    """Whether the socket got past the guard: the route accepted it and closed it, saying
    the (unknown) conversation is not found."""
    with open_socket(server, **options) as connection, pytest.raises(ConnectionClosed) as closed:
        connection.recv(timeout=30)
    received = closed.value.rcvd
    return received is not None and (received.code, received.reason) == (
        4004,
        "Conversation not found",
    )


# -- Host ------------------------------------------------------------------------------------


def test_request_naming_another_host_is_421_naming_the_setting(server: ServerProcess) -> None:
    with server.client() as client:
        response = client.get(
            "/api/conversations/count", headers={"Host": f"attacker.example:{server.port}"}
        )
    assert response.status_code == 421
    assert "OH_ALLOWED_HOSTS" in response.json()["message"]


def test_dns_rebinding_page_cannot_create_a_conversation(server: ServerProcess) -> None:
    before = count(server)
    with server.client() as client:
        response = client.post(
            "/api/conversations",
            json=conversation_body(),
            headers={
                "Host": f"attacker.example:{server.port}",
                "Origin": f"http://attacker.example:{server.port}",
            },
        )
    assert response.status_code == 421
    assert count(server) == before


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "[::1]", "LocalHost.", "127.0.0.2"])
def test_loopback_names_are_accepted(server: ServerProcess, name: str) -> None:
    with server.client() as client:
        response = client.get("/api/conversations/count", headers={"Host": f"{name}:{server.port}"})
    assert response.status_code == 200


def test_socket_naming_another_host_is_refused_421(server: ServerProcess) -> None:
    assert refusal_status(server, host=f"attacker.example:{server.port}") == 421


# -- Origin ----------------------------------------------------------------------------------


def test_cross_origin_post_is_403_naming_the_setting(server: ServerProcess) -> None:
    before = count(server)
    with server.client() as client:
        response = client.post(
            "/api/conversations", json=conversation_body(), headers={"Origin": EVIL}
        )
    assert response.status_code == 403
    assert "OH_ALLOWED_ORIGINS" in response.json()["message"]
    assert count(server) == before


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH"])
def test_cross_origin_state_changes_of_any_method_are_403(
    server: ServerProcess, method: str
) -> None:
    with server.client() as client:
        path = "/api/conversations/00000000-0000-0000-0000-000000000000"
        response = client.request(method, path, headers={"Origin": EVIL})
    assert response.status_code == 403


def test_same_origin_post_is_accepted(server: ServerProcess) -> None:
    with server.client() as client:
        origin = f"http://127.0.0.1:{server.port}"
        response = client.post(
            "/api/conversations", json=conversation_body(), headers={"Origin": origin}
        )
    assert response.status_code == 201


def test_page_on_another_local_port_is_cross_origin(server: ServerProcess) -> None:
    with server.client() as client:
        response = client.post(
            "/api/conversations",
            json=conversation_body(),
            headers={"Origin": f"http://127.0.0.1:{free_port()}"},
        )
    assert response.status_code == 403


def test_null_origin_is_refused(server: ServerProcess) -> None:
    with server.client() as client:
        response = client.post(
            "/api/conversations", json=conversation_body(), headers={"Origin": "null"}
        )
    assert response.status_code == 403


def test_cross_origin_read_is_answered_without_cors_headers(server: ServerProcess) -> None:
    with server.client() as client:
        response = client.get("/api/conversations/count", headers={"Origin": EVIL})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_cross_origin_socket_is_refused_403(server: ServerProcess) -> None:
    assert refusal_status(server, origin=EVIL) == 403


def test_same_origin_socket_reaches_the_route(server: ServerProcess) -> None:
    assert reaches_the_route(server, origin=f"http://127.0.0.1:{server.port}")


def test_socket_without_origin_reaches_the_route(server: ServerProcess) -> None:
    assert reaches_the_route(server)


# -- settings that widen the checks ----------------------------------------------------------


@pytest.mark.parametrize("name", ["agents.example", "build.corp.example"])
def test_allowed_hosts_are_accepted(widened: ServerProcess, name: str) -> None:
    with widened.client() as client:
        response = client.get("/api/conversations/count", headers={"Host": name})
    assert response.status_code == 200


def test_hosts_not_listed_are_still_refused(widened: ServerProcess) -> None:
    with widened.client() as client:
        response = client.get("/api/conversations/count", headers={"Host": "corp.example.evil"})
    assert response.status_code == 421


def test_allowed_origin_may_post_and_open_sockets(widened: ServerProcess) -> None:
    with widened.client() as client:
        response = client.post(
            "/api/conversations",
            json=conversation_body(),
            headers={"Origin": "https://app.example"},
        )
    assert response.status_code == 201
    assert reaches_the_route(widened, origin="https://app.example")


def test_origins_not_listed_are_still_refused(widened: ServerProcess) -> None:
    with widened.client() as client:
        response = client.post(
            "/api/conversations",
            json=conversation_body(),
            headers={"Origin": "http://app.example"},  # another scheme: another origin
        )
    assert response.status_code == 403


# -- security headers ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/docs", "/health", "/api/conversations/count"])
def test_every_answer_carries_the_security_headers(server: ServerProcess, path: str) -> None:
    headers = httpx.get(f"{server.url}{path}").headers
    policy = headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


def test_refusals_carry_the_security_headers(server: ServerProcess) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Host": "attacker.example"})
    assert response.status_code == 421
    assert response.headers["x-frame-options"] == "DENY"

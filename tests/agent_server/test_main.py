"""The command line: options, refusing bad settings, the unprotected-bind warning, start-up."""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path

import pytest
from litellm_guard import describe, reports
from openhands.agent_server.__main__ import (
    QuietPolls,
    bind_port,
    load_config,
    main,
    parse_args,
    unprotected_bind_warning,
)
from openhands.agent_server.config import ServerConfig
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from .harness import ServerProcess, wait_until


def test_defaults_bind_loopback_port_8000() -> None:
    config = load_config(parse_args([]), {})
    assert (config.host, config.port) == ("127.0.0.1", 8000)


def test_host_and_port_come_from_the_environment() -> None:
    config = load_config(parse_args([]), {"OH_HOST": "0.0.0.0", "OH_PORT": "9000"})
    assert (config.host, config.port) == ("0.0.0.0", 9000)


def test_command_line_overrides_the_environment() -> None:
    args = parse_args(["--host", "127.0.0.2", "--port", "9001"])
    config = load_config(args, {"OH_HOST": "0.0.0.0", "OH_PORT": "9000"})
    assert (config.host, config.port) == ("127.0.0.2", 9001)


def test_public_bind_without_key_warns() -> None:
    warning = unprotected_bind_warning("0.0.0.0", ServerConfig.from_env({}))
    assert warning is not None
    assert "OH_SESSION_API_KEYS" in warning


def test_public_bind_with_key_does_not_warn() -> None:
    config = ServerConfig.from_env({"OH_SESSION_API_KEYS": "secret"})
    assert unprotected_bind_warning("0.0.0.0", config) is None


def test_loopback_bind_without_key_does_not_warn() -> None:
    assert unprotected_bind_warning("127.0.0.1", ServerConfig.from_env({})) is None


def test_server_refuses_to_start_when_the_session_keys_hold_no_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OH_SESSION_API_KEYS", " , ")
    with pytest.raises(SystemExit) as stopped:
        main(["--port", "0"])
    assert "OH_SESSION_API_KEYS" in str(stopped.value.code)


def test_server_refuses_to_start_with_a_malformed_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OH_MAX_BODY_BYTES", "a lot")
    with pytest.raises(SystemExit) as stopped:
        main(["--port", "0"])
    assert "OH_MAX_BODY_BYTES" in str(stopped.value.code)


@pytest.mark.slow
def test_a_server_for_an_openai_compatible_model_never_imports_litellm(tmp_path: Path) -> None:
    imports = tmp_path / "imports"
    imports.mkdir()
    with FakeOpenAIServer() as fake:
        fake.script("fake", [FakeReply.text("hello from the fake")])
        env = {
            "LLM_MODEL": "openai/fake",
            "LLM_BASE_URL": fake.base_url,
            "LLM_API_KEY": "k",
            "OH_TEST_IMPORT_REPORT": str(imports),  # the import probe of tests/litellm_guard.py
        }
        server = ServerProcess(tmp_path / "conversations", env=env).start()
        try:
            agent = {"kind": "Agent", "llm": {"model": "openai/fake", "num_retries": 0}}
            hello = {"content": [{"type": "text", "text": "hi"}], "run": True}
            with server.client() as http:
                created = http.post(
                    "/api/conversations", json={"agent": agent, "initial_message": hello}
                )
                cid = created.json()["id"]
                wait_until(
                    lambda: (
                        http.get(f"/api/conversations/{cid}").json()["execution_status"]
                        == "finished"
                    ),
                    what="the run's end",
                )
                cost = http.get(f"/api/conversations/{cid}").json()["metrics"]
        finally:
            server.stop()
    assert len(fake.requests) == 1 and cost is not None
    assert "litellm preloaded" not in server.log()
    found = reports(imports)
    assert not found, "\n".join(describe(report) for report in found)


@pytest.mark.slow
def test_litellm_is_preloaded_when_a_configured_model_needs_it(tmp_path: Path) -> None:
    imports = tmp_path / "imports"
    imports.mkdir()
    env = {"LLM_MODEL": "anthropic/claude-sonnet-4-5", "OH_TEST_IMPORT_REPORT": str(imports)}
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        wait_until(lambda: "litellm preloaded" in server.log(), what="litellm's import")
    finally:
        server.stop()
    assert "anthropic/claude-sonnet-4-5" in server.log()
    (found,) = reports(imports)
    assert "agent_server" in " ".join(found["argv"])  # type: ignore[arg-type]


def test_a_port_in_use_is_named_with_how_to_choose_another() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]

        with pytest.raises(SystemExit) as stopped:
            main(["--port", str(port)])

    message = str(stopped.value.code)
    assert f"port {port} on 127.0.0.1 is already in use" in message
    assert f"PORT={port + 1} make serve" in message and "--port" in message


def _access(method: str, path: str, status: int) -> logging.LogRecord:
    return logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", method, path, "1.1", status),
        None,
    )


@pytest.mark.parametrize(
    ("method", "path", "status", "shown"),
    [
        ("GET", "/api/conversations/search?limit=100", 200, False),
        ("GET", "/api/conversations/0b8f2d5e7a5b4f0e8e7b0c1d2e3f4a5b", 200, False),
        ("GET", "/api/conversations/0b8f2d5e7a5b4f0e8e7b0c1d2e3f4a5b/goal", 200, False),
        ("GET", "/api/conversations/search", 401, True),
        ("POST", "/api/conversations", 201, True),
        ("GET", "/api/conversations/0b8f2d5e7a5b4f0e8e7b0c1d2e3f4a5b/events/search", 200, True),
    ],
)
def test_the_pages_repeated_reads_are_logged_at_debug_only(
    method: str, path: str, status: int, shown: bool
) -> None:
    logging.getLogger("uvicorn.access").setLevel(logging.INFO)

    assert QuietPolls().filter(_access(method, path, status)) is shown


def test_connections_to_the_listener_send_small_writes_at_once() -> None:
    """asyncio switches Nagle's algorithm off only on sockets that say IPPROTO_TCP; with it on,
    each answer on a kept-alive connection waited for the client's delayed ACK (~40 ms)."""
    listener = bind_port("127.0.0.1", 0)
    nodelay: list[int] = []

    async def accept_one() -> None:
        accepted = asyncio.Event()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                accepted.set()
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", listener.getsockname()[1])
            await asyncio.wait_for(accepted.wait(), EVENT_WAIT)
            writer.close()

    asyncio.run(accept_one())

    assert nodelay and nodelay[0] != 0

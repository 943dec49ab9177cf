"""The command line: options, refusing bad settings, the unprotected-bind warning, start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.__main__ import (
    load_config,
    main,
    parse_args,
    unprotected_bind_warning,
)
from openhands.agent_server.config import ServerConfig

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
def test_litellm_is_imported_in_the_background_once_the_server_listens(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "conversations").start()
    try:
        wait_until(lambda: "litellm preloaded" in server.log(), 120, "litellm's import")
    finally:
        server.stop()

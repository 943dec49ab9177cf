"""The command line: options and the warning about an unprotected public bind."""

from __future__ import annotations

from openhands.agent_server.__main__ import load_config, parse_args, unprotected_bind_warning
from openhands.agent_server.config import ServerConfig


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

"""ServerConfig.from_env and the loopback check."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig, is_loopback


def test_defaults_without_env() -> None:
    config = ServerConfig.from_env({})
    assert config.session_api_keys == ()
    assert config.conversations_path == Path("workspace/conversations")
    assert not config.auth_enabled


def test_session_keys_are_split_on_commas_and_trimmed() -> None:
    config = ServerConfig.from_env({"OH_SESSION_API_KEYS": " a, b ,,"})
    assert config.session_api_keys == ("a", "b")
    assert config.auth_enabled


def test_paths_come_from_env() -> None:
    config = ServerConfig.from_env(
        {"OH_CONVERSATIONS_PATH": "/data/conv", "OH_WORKSPACE_PATH": "/data/ws"}
    )
    assert config.conversations_path == Path("/data/conv")
    assert config.workspace_path == Path("/data/ws")


def test_bad_thread_count_names_the_variable() -> None:
    with pytest.raises(ValueError, match="OH_MAX_RUN_THREADS"):
        ServerConfig.from_env({"OH_MAX_RUN_THREADS": "many"})


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.1.2.3"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "example.com"])
def test_public_hosts(host: str) -> None:
    assert not is_loopback(host)


def test_out_of_range_nice_names_the_variable() -> None:
    with pytest.raises(ValueError, match="OH_WORKER_NICE"):
        ServerConfig.from_env({"OH_WORKER_NICE": "40"})

"""ServerConfig: every setting from the environment, refused with its name when malformed."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig, ServerConfigError, is_loopback
from openhands.sdk.errors import OpenHandsError


def test_defaults_without_env() -> None:
    config = ServerConfig.from_env({})
    assert config.session_api_keys == ()
    assert config.conversations_path == Path("workspace/conversations")
    assert not config.auth_enabled


def test_session_keys_are_split_on_commas_and_trimmed() -> None:
    config = ServerConfig.from_env({"OH_SESSION_API_KEYS": " a, b ,,"})
    assert config.session_api_keys == ("a", "b")
    assert config.auth_enabled


@pytest.mark.parametrize("name", ["SESSION_API_KEY", "OH_SESSION_API_KEYS_0"])
def test_the_reference_servers_key_variables_are_read_when_ours_is_unset(name: str) -> None:
    assert ServerConfig.from_env({name: "k1"}).session_api_keys == ("k1",)
    both = ServerConfig.from_env({name: "k1", "OH_SESSION_API_KEYS": "k2,k3"})
    assert both.session_api_keys == ("k2", "k3")


def test_stored_settings_and_the_init_record_default_beside_the_conversations() -> None:
    config = ServerConfig.from_env({"OH_CONVERSATIONS_PATH": "/data/conv"})
    assert config.settings_folder == Path("/data/settings")
    assert config.init_record_file == Path("/data/.init.sealed")
    moved = ServerConfig.from_env({"OH_SETTINGS_PATH": "/etc/oh", "OH_INIT_RECORD_PATH": "/r"})
    assert (moved.settings_folder, moved.init_record_file) == (Path("/etc/oh"), Path("/r"))


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


@pytest.mark.parametrize("value", [" , ", ",", "   "])
def test_session_keys_holding_no_key_are_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(ServerConfigError, match="OH_SESSION_API_KEYS: holds no key"):
        ServerConfig.from_env({"OH_SESSION_API_KEYS": value})


def test_empty_session_keys_mean_no_keys() -> None:
    assert ServerConfig.from_env({"OH_SESSION_API_KEYS": ""}).session_api_keys == ()


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OH_MAX_BODY_BYTES", "-1"),
        ("OH_MAX_BODY_BYTES", "lots"),
        ("OH_PORT", "70000"),
        ("OH_ALLOWED_HOSTS", "evil.example:8000"),
        ("OH_ALLOWED_ORIGINS", "evil.example"),
        ("OH_ALLOWED_ORIGINS", "https://app.example/path"),
        ("OH_AGENT_ENV", "NOT-A-NAME"),
        ("OH_PRELOAD_LITELLM", "maybe"),
        ("OH_SHUTDOWN_RUN_WAIT_SECONDS", "-3"),
        ("OH_GRACEFUL_SHUTDOWN_SECONDS", "soon"),
    ],
)
def test_malformed_setting_names_its_variable(variable: str, value: str) -> None:
    with pytest.raises(ServerConfigError, match=f"^{variable}: "):
        ServerConfig.from_env({variable: value})


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ServerConfigError) as error:
        ServerConfig.from_env({"OH_PORT": "x", "OH_MAX_BODY_BYTES": "-1"})
    assert "OH_PORT" in str(error.value) and "OH_MAX_BODY_BYTES" in str(error.value)


def test_config_errors_are_value_errors_under_the_project_root() -> None:
    assert issubclass(ServerConfigError, ValueError)
    assert issubclass(ServerConfigError, OpenHandsError)


def test_lists_are_comma_separated_and_normalized() -> None:
    config = ServerConfig.from_env(
        {
            "OH_ALLOWED_HOSTS": " Agents.Example. , *.corp.example",
            "OH_ALLOWED_ORIGINS": "https://App.example/, http://[::1]:8080",
            "OH_AGENT_ENV": "GITHUB_TOKEN, PIP_INDEX_URL",
        }
    )
    assert config.allowed_hosts == ("agents.example", "*.corp.example")
    assert config.allowed_origins == ("https://app.example:443", "http://[::1]:8080")
    assert config.agent_env == ("GITHUB_TOKEN", "PIP_INDEX_URL")


def test_secret_key_is_a_secret() -> None:
    key = "sealing-key-" + "k" * 32
    config = ServerConfig.from_env({"OH_SECRET_KEY": key})
    assert config.secret_key is not None
    assert config.secret_key.get_secret_value() == key
    assert key not in repr(config)


def test_from_env_reads_only_the_given_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_MAX_BODY_BYTES", "123")
    assert (
        ServerConfig.from_env({}).max_body_bytes
        == ServerConfig.model_fields["max_body_bytes"].default
    )
    assert ServerConfig.from_env().max_body_bytes == 123


def test_every_setting_has_a_description() -> None:
    missing = [name for name, info in ServerConfig.model_fields.items() if not info.description]
    assert missing == []


def test_docs_describe_every_setting() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "agent-server.md").read_text()
    undocumented = [env for env in ServerConfig.env_names().values() if f"`{env}`" not in docs]
    assert undocumented == []


def test_a_temporal_task_timeout_no_longer_than_a_step_call_is_refused_naming_both() -> None:
    with pytest.raises(ServerConfigError) as refused:
        ServerConfig.from_env(
            {"OH_TEMPORAL_STEP_WAIT_SECONDS": "3", "OH_TEMPORAL_TASK_TIMEOUT_SECONDS": "3"}
        )
    assert "OH_TEMPORAL_TASK_TIMEOUT_SECONDS" in str(refused.value)
    assert "OH_TEMPORAL_STEP_WAIT_SECONDS (3)" in str(refused.value)
    config = ServerConfig.from_env({"OH_TEMPORAL_TASK_TIMEOUT_SECONDS": "3"})
    assert config.temporal_task_timeout_seconds == 3.0

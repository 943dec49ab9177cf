"""`MCPServer` and `Agent.mcp_config`: the accepted JSON shapes, clear refusals, secrets."""

from __future__ import annotations

import json
import sys

import pytest
from openhands.sdk import Agent
from openhands.sdk.mcp import MCPServer, coerce_mcp_config, enabled_mcp_servers
from openhands.sdk.testing import TestLLM
from pydantic import SecretStr, ValidationError

FETCH = {"command": "uvx", "args": ["mcp-server-fetch"]}


def test_mcp_servers_wrapper_and_plain_mapping_read_the_same() -> None:
    wrapped = coerce_mcp_config({"mcpServers": {"fetch": FETCH}})
    plain = coerce_mcp_config({"fetch": FETCH})
    objects = coerce_mcp_config({"fetch": MCPServer(command="uvx", args=["mcp-server-fetch"])})

    assert wrapped == plain == objects
    assert wrapped["fetch"].command == "uvx"


@pytest.mark.parametrize(
    ("server", "transport"),
    [
        ({"command": "uvx"}, "stdio"),
        ({"url": "https://example.org/mcp"}, "http"),
        ({"url": "https://example.org/sse"}, "sse"),
        ({"url": "https://example.org/sse", "transport": "http"}, "http"),
        ({"url": "https://example.org/mcp", "transport": "streamable-http"}, "http"),
        ({"url": "https://example.org/mcp", "type": "shttp"}, "http"),
        ({"url": "https://example.org/x", "type": "sse"}, "sse"),
    ],
)
def test_transport_is_explicit_or_implied_by_command_and_url(
    server: dict[str, str], transport: str
) -> None:
    assert MCPServer.model_validate(server).effective_transport == transport


@pytest.mark.parametrize(
    ("server", "field"),
    [
        ({}, "command"),
        ({"transport": "stdio", "url": "https://example.org/mcp"}, "command"),
        ({"transport": "http", "command": "uvx"}, "url"),
        ({"command": "uvx", "url": "https://example.org/mcp"}, "transport"),
        ({"command": "uvx", "comand": "typo"}, "comand"),
        ({"command": "uvx", "timeout": 0}, "timeout"),
        ({"command": "uvx", "startup_timeout": -1}, "startup_timeout"),
    ],
)
def test_a_server_that_cannot_be_used_is_refused_naming_the_field(
    server: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError, match=field):
        coerce_mcp_config({"s": server})


def test_auth_is_refused_with_the_header_to_use_instead() -> None:
    with pytest.raises(ValidationError, match="Authorization"):
        MCPServer.model_validate({"url": "https://x/mcp", "auth": "oauth"})


def test_a_config_copied_from_another_client_is_read() -> None:
    servers = coerce_mcp_config(
        {"mcpServers": {"a": {**FETCH, "disabled": True, "autoApprove": ["fetch"]}}}
    )

    assert servers["a"].enabled is False
    assert enabled_mcp_servers(servers) == {}


def test_a_non_mapping_config_is_refused_with_the_shape_to_use() -> None:
    with pytest.raises(ValueError, match="mcpServers"):
        coerce_mcp_config(["fetch"])


def test_env_and_header_values_stay_out_of_json_and_repr() -> None:
    server = MCPServer(
        command="srv",
        env={"TOKEN": SecretStr("env-secret")},
        headers={"Authorization": SecretStr("Bearer header-secret")},
    )

    dumped = server.model_dump_json()
    assert "env-secret" not in dumped and "header-secret" not in dumped
    assert json.loads(dumped)["env"] == {"TOKEN": None}
    assert "secret" not in repr(server) and "secret" not in str(server)


def test_secrets_are_dumped_only_when_asked_for() -> None:
    server = MCPServer(command="srv", env={"TOKEN": SecretStr("env-secret")})

    exposed = server.model_dump(mode="json", context={"expose_secrets": True})

    assert exposed["env"] == {"TOKEN": "env-secret"}
    assert MCPServer.model_validate(exposed).env == {"TOKEN": SecretStr("env-secret")}


def test_a_dumped_config_reloads_without_the_secret_values() -> None:
    server = MCPServer.model_validate({"command": "srv", "env": {"TOKEN": "env-secret", "M": "x"}})

    reloaded = MCPServer.model_validate_json(server.model_dump_json())

    assert reloaded.env == {}


def test_a_dump_holds_only_what_was_set() -> None:
    assert MCPServer(command="srv").model_dump(mode="json") == {"command": "srv"}


def test_agent_takes_mcp_servers_json_and_keeps_it_typed() -> None:
    agent = Agent.model_validate({"llm": TestLLM(), "mcp_config": {"mcpServers": {"fetch": FETCH}}})

    assert isinstance(agent.mcp_config["fetch"], MCPServer)
    reloaded = Agent.model_validate_json(agent.model_dump_json())
    assert reloaded.mcp_config == agent.mcp_config


def test_agent_json_never_holds_mcp_secrets() -> None:
    server = MCPServer(command=sys.executable, env={"API_TOKEN": SecretStr("tok-123")})
    agent = Agent(llm=TestLLM(), mcp_config={"s": server})

    assert "tok-123" not in agent.model_dump_json()
    sent = agent.model_dump(mode="json", context={"expose_secrets": True})
    assert sent["mcp_config"]["s"]["env"] == {"API_TOKEN": "tok-123"}


def test_agent_refuses_an_invalid_filter_regex() -> None:
    with pytest.raises(ValidationError, match="filter_tools_regex"):
        Agent(llm=TestLLM(), filter_tools_regex="(unclosed")

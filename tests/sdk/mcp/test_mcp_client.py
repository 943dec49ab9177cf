"""`MCPClient` against real servers: stdio and streamable HTTP, failures, timeouts, clean-up."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest
from mcp_test_servers import (
    gone,
    marked,
    server_processes,
    silent_config,
    stdio_config,
    wait_for,
)
from openhands.sdk.mcp import MCPError, MCPServer, MCPTimeoutError
from openhands.sdk.mcp.client import MCPClient
from pydantic import SecretStr

pytestmark = pytest.mark.slow


def _text(result: object) -> str:
    return "".join(getattr(block, "text", "") for block in getattr(result, "content", []))


def test_stdio_server_lists_its_tools_and_runs_them() -> None:
    with MCPClient("tools", MCPServer.model_validate(stdio_config())) as client:
        names = {tool.name for tool in client.connect()}
        result = client.call_tool("add", {"a": 2, "b": 3})

    assert {"add", "red_pixel", "crash"} <= names
    assert _text(result) == "5"


def test_http_server_lists_its_tools_and_runs_them(http_server_url: str) -> None:
    with MCPClient("tools", MCPServer(url=http_server_url)) as client:
        names = {tool.name for tool in client.connect()}
        result = client.call_tool("add", {"a": 20, "b": 22})

    assert "add" in names
    assert _text(result) == "42"


def test_http_server_gets_the_configured_headers(http_server_url: str) -> None:
    server = MCPServer(url=http_server_url, headers={"X-Team-Token": SecretStr("t-123")})
    with MCPClient("tools", server) as client:
        client.connect()
        seen = _text(client.call_tool("header", {"name": "X-Team-Token"}))

    assert seen == "t-123"


def test_stdio_server_gets_the_agent_environment_plus_its_env(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "server-secret")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    server = MCPServer.model_validate(stdio_config(env={"SERVICE_TOKEN": "for-the-server"}))
    with MCPClient("tools", server) as client:
        client.connect()
        seen = {
            name: _text(client.call_tool("echo_env", {"name": name}))
            for name in ("OPENAI_API_KEY", "PLAIN_SETTING", "SERVICE_TOKEN")
        }

    assert seen == {
        "OPENAI_API_KEY": "<unset>",
        "PLAIN_SETTING": "visible",
        "SERVICE_TOKEN": "for-the-server",
    }


def test_stdio_server_runs_in_the_workspace_unless_cwd_says_otherwise(
    workspace_dir: Path,
) -> None:
    (workspace_dir / "sub").mkdir()
    default = MCPClient(
        "a", MCPServer.model_validate(stdio_config()), working_dir=str(workspace_dir)
    )
    relative = MCPClient(
        "b", MCPServer.model_validate(stdio_config(cwd="sub")), working_dir=str(workspace_dir)
    )
    with default, relative:
        default.connect()
        relative.connect()
        assert _text(default.call_tool("whoami", {})).split()[1] == str(workspace_dir)
        assert _text(relative.call_tool("whoami", {})).split()[1] == str(workspace_dir / "sub")


def test_a_missing_command_fails_at_once_naming_it() -> None:
    client = MCPClient("gone", MCPServer(command="no-such-mcp-server-command"))

    with pytest.raises(MCPError, match="'no-such-mcp-server-command' not found"):
        client.connect()


def test_a_server_that_exits_at_start_reports_its_exit_code_and_stderr() -> None:
    server = MCPServer.model_validate(
        {"command": "sh", "args": ["-c", "echo 'missing API key' >&2; exit 7"]}
    )

    with pytest.raises(
        MCPError, match=r"exited during start-up \(exit code 7; stderr: missing API key"
    ):
        MCPClient("broken", server).connect()


def test_a_server_that_never_answers_the_handshake_times_out_and_is_stopped() -> None:
    client = MCPClient("silent", MCPServer.model_validate(silent_config(startup_timeout=1)))

    with pytest.raises(MCPTimeoutError, match="did not start within 1 s") as caught:
        client.connect()

    assert caught.value.timeout == 1
    assert client.pid is not None and gone(client.pid)


def test_an_unreachable_http_server_fails_with_the_reason() -> None:
    client = MCPClient("remote", MCPServer(url="http://127.0.0.1:9/mcp?token=hidden"))

    with pytest.raises(
        MCPError, match=re.escape("http http://127.0.0.1:9/mcp) could not be started")
    ) as caught:
        client.connect()

    assert "hidden" not in str(caught.value)


def test_a_call_longer_than_the_timeout_ends_and_the_server_stays_usable() -> None:
    server = MCPServer.model_validate(stdio_config(timeout=0.5))
    with MCPClient("tools", server) as client:
        client.connect()
        with pytest.raises(MCPTimeoutError, match=re.escape("did not answer within 0.5 s")):
            client.call_tool("sleep", {"seconds": 30})
        assert _text(client.call_tool("add", {"a": 1, "b": 1})) == "2"


def test_a_crash_mid_call_names_the_exit_code_and_later_calls_fail_fast() -> None:
    with MCPClient("tools", MCPServer.model_validate(stdio_config())) as client:
        client.connect()
        with pytest.raises(MCPError, match=r"stopped during the call to 'crash' \(exit code 3\)"):
            client.call_tool("crash", {})
        with pytest.raises(MCPError, match="not running any more"):
            client.call_tool("add", {"a": 1, "b": 1})
        assert not client.is_connected


def test_close_kills_the_server_and_the_processes_it_started() -> None:
    client = MCPClient("tools", MCPServer.model_validate(stdio_config()))
    client.connect()
    marker = _text(client.call_tool("spawn_child", {}))
    server_pid = client.pid
    assert server_pid is not None
    assert wait_for(lambda: marked(marker))

    client.close()

    assert gone(server_pid)
    assert wait_for(lambda: not marked(marker))


def test_a_client_dropped_without_close_stops_its_server() -> None:
    client = MCPClient("tools", MCPServer.model_validate(stdio_config()))
    client.connect()
    pid = client.pid
    assert pid is not None

    del client
    gc.collect()

    assert wait_for(lambda: gone(pid))
    assert wait_for(lambda: not server_processes())


def test_closing_twice_and_calling_after_close_are_clear() -> None:
    client = MCPClient("tools", MCPServer.model_validate(stdio_config()))
    client.connect()
    client.close()
    client.close()

    with pytest.raises(MCPError, match="'tools' is closed"):
        client.call_tool("add", {"a": 1, "b": 1})

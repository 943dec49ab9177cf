"""The agent's processes (terminal, verify, hooks) never see this process's secrets.

Each test sets secrets in this process's environment, runs a real process the agent controls
and reads the environment that process really had (`env`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, verdict, wait_goal_end
from openhands.sdk.conversation.goal import run_verify_command
from openhands.sdk.hooks import HookConfig, HookEventType, HookRunner
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from openhands.sdk.tool import Tool, ToolContext, resolve_tool
from openhands.tools.terminal import TerminalAction

SECRETS = {
    "OH_SESSION_API_KEYS": "session-key-3b1f",
    "OH_SECRET_KEY": "sealing-key-8c2d",
    "LLM_API_KEY": "sk-llm-5e7a",
    "OPENAI_API_KEY": "sk-openai-9d4c",
    "ANTHROPIC_API_KEY": "sk-ant-1a6b",
    "GITHUB_TOKEN": "ghp-passed-0f3e",
}
PASSED = "GITHUB_TOKEN"
"""Listed in OH_AGENT_ENV, so it reaches the agent although it matches the deny list."""


@pytest.fixture(autouse=True)
def server_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OH_AGENT_ENV", PASSED)


def _check(seen: str) -> None:
    """`seen` (an `env` listing) has no denied secret and has the passed-through one."""
    assert "PATH=" in seen  # it really is the environment listing
    for name, value in SECRETS.items():
        if name == PASSED:
            assert f"{name}={value}" in seen
        else:
            assert value not in seen, f"{name} reached the agent"


def test_the_terminal_shell_does_not_inherit_the_secrets(workspace_dir: Path) -> None:
    [terminal] = resolve_tool(Tool(name="terminal"), ToolContext(working_dir=str(workspace_dir)))
    try:
        observation = terminal(TerminalAction(command="env"))
    finally:
        terminal.close()

    _check(observation.text)


def test_verify_does_not_inherit_the_secrets(workspace_dir: Path) -> None:
    result = run_verify_command("env", str(workspace_dir), tail_chars=100_000)

    assert result.exit_code == 0
    _check(result.output_tail)


def test_hooks_do_not_inherit_the_secrets(workspace_dir: Path) -> None:
    config = HookConfig.model_validate({"stop": [{"hooks": [{"command": "env > seen.txt"}]}]})

    HookRunner(config, str(workspace_dir)).run(HookEventType.STOP, {})

    _check((workspace_dir / "seen.txt").read_text())


def test_a_servers_verify_command_sees_none_of_the_servers_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # End to end: what issue 8 saw (`verify "env"` showed them in the goal status and log).
    monkeypatch.delenv("OH_AGENT_ENV")
    secrets = {
        "OH_SESSION_API_KEYS": "session-key-4c9e",
        "LLM_API_KEY": "sk-llm-server-2b7f",
        "OH_SECRET_KEY": "sealing-key-" + "5" * 40,
    }
    verify = "printenv OH_SESSION_API_KEYS LLM_API_KEY OH_SECRET_KEY; echo checked"
    with FakeOpenAIServer() as fake:
        model = unique("agent")
        fake.script(model, [FakeReply.text("done"), verdict(True)])
        server = ServerProcess(tmp_path / "conversations", env=secrets).start()
        try:
            with server.client() as http:
                body = {"agent": {"kind": "Agent", "llm": llm_spec(fake, model)}}
                cid = http.post("/api/conversations", json=body).json()["id"]
                goal = {"objective": "x", "verify": verify}
                assert http.post(f"/api/conversations/{cid}/goal", json=goal).is_success
                final = wait_goal_end(lambda: http.get(f"/api/conversations/{cid}/goal").json())
                log = http.get(f"/api/conversations/{cid}/events/search").text
        finally:
            server.stop()
    assert final["status"] == "complete"
    assert "checked" in final["verify"]["output_tail"]
    for value in secrets.values():
        assert value not in final["verify"]["output_tail"]
        assert value not in log

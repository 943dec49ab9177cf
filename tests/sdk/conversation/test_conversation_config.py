"""`ConversationConfig`: one object that a fork and a reopen carry whole, field by field."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import Agent, LocalConversation, Tool
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.conversation import ConversationConfig
from openhands.sdk.hooks import HookConfig
from openhands.sdk.mcp import MCPServer
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import AlwaysConfirm, ConfirmRisky
from openhands.sdk.security.defense_in_depth import PatternSecurityAnalyzer
from openhands.sdk.security.risk import SecurityRisk
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace import LocalWorkspace
from pydantic import SecretStr

HOOKS = HookConfig.model_validate(
    {"pre_tool_use": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]}
)


def _agent() -> Agent:
    llm = TestLLM.from_messages([], usage_id="agent")
    return Agent(
        llm=llm,
        mcp_config={
            "calc": MCPServer(command="no-such-mcp-server", env={"TOKEN": SecretStr("t-1")})
        },
        condenser=LLMSummarizingCondenser(llm=llm.copy_for("condenser"), max_size=40),
    )


def _non_default_config(workspace: Path) -> dict[str, Any]:
    """A value for every configuration field that differs from its default."""
    return {
        "agent": _agent(),
        "workspace": LocalWorkspace(working_dir=workspace),
        "created_workspace": True,
        "worktree": True,
        "worktree_git_dir": str(workspace / "repo" / ".git" / "worktrees" / "child"),
        "parent_conversation_id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "max_iterations": 7,
        "stuck_detection": False,
        "hook_config": HOOKS,
        "confirmation_policy": ConfirmRisky(threshold=SecurityRisk.MEDIUM),
        "security_analyzer": PatternSecurityAnalyzer(),
        "approval_rules": [AllowRule(tool="terminal", command_prefix="pytest")],
    }


def _comparable(config: ConversationConfig) -> dict[str, Any]:
    """The configuration as JSON, with the agent's secrets included."""
    return config.model_dump(mode="json", context={"expose_secrets": True})


def test_the_fixture_sets_every_configuration_field(workspace_dir: Path) -> None:
    # A field added to ConversationConfig must get a non-default value here, so that the
    # tests below prove it is carried.
    values = _non_default_config(workspace_dir)
    defaults = ConversationConfig.model_construct()
    assert set(values) == set(ConversationConfig.model_fields)
    for name, value in values.items():
        assert getattr(defaults, name, None) != value, name


def test_a_fork_carries_every_configuration_field(
    workspace_dir: Path, persistence_dir: Path
) -> None:
    source = LocalConversation(
        None,
        persistence_dir=persistence_dir,
        config=ConversationConfig(**_non_default_config(workspace_dir)),
    )
    fork = source.fork()
    try:
        assert _comparable(fork.state.config) == _comparable(source.state.config)
        assert fork.state.config.agent is not source.state.config.agent
    finally:
        fork.close()
        source.close()


def test_a_reopened_fork_still_has_every_configuration_field(
    workspace_dir: Path, persistence_dir: Path
) -> None:
    source = LocalConversation(
        None,
        persistence_dir=persistence_dir,
        config=ConversationConfig(**_non_default_config(workspace_dir)),
    )
    fork = source.fork()
    expected = _comparable(fork.state.config)
    fork_id = fork.id
    fork.close()
    source.close()

    reopened = LocalConversation(_agent(), persistence_dir=persistence_dir, conversation_id=fork_id)
    try:
        assert _comparable(reopened.state.config) == expected
    finally:
        reopened.close()


def test_an_always_confirm_fork_waits_for_approval(
    workspace_dir: Path, persistence_dir: Path, reply
) -> None:
    source = LocalConversation(
        Agent(llm=TestLLM.from_messages([])), workspace_dir, persistence_dir=persistence_dir
    )
    source.set_confirmation_policy(AlwaysConfirm())
    # finish and think never wait; a tool that acts does.
    echo = reply.call("echo", {"text": "x"})
    fork = source.fork(agent=Agent(llm=TestLLM.from_messages([echo]), tools=[Tool(name="echo")]))
    try:
        fork.send_message("echo")
        fork.run()
        assert fork.state.execution_status == "waiting_for_confirmation"
        assert isinstance(fork.state.confirmation_policy, AlwaysConfirm)
    finally:
        fork.close()
        source.close()


def test_a_new_conversation_takes_a_whole_configuration(
    workspace_dir: Path, persistence_dir: Path
) -> None:
    config = ConversationConfig(**_non_default_config(workspace_dir))

    conversation = LocalConversation(None, persistence_dir=persistence_dir, config=config)
    try:
        assert _comparable(conversation.state.config) == _comparable(config)
    finally:
        conversation.close()


@pytest.mark.parametrize("existed", [True, False])
def test_created_workspace_says_whether_the_folder_was_made(
    tmp_path: Path, persistence_dir: Path, existed: bool
) -> None:
    folder = tmp_path / "work"
    if existed:
        folder.mkdir()

    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([])), folder, persistence_dir=persistence_dir
    )
    conversation.close()

    assert conversation.state.created_workspace is not existed

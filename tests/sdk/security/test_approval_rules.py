"""Standing approvals ("always allow this tool / command prefix"): which calls they let run
without asking, and how a conversation keeps and applies them."""

from __future__ import annotations

from typing import Any

import pytest
from openhands.sdk import Action, LocalConversation, Observation, ToolDefinition, register_tool
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.action import ObservationEvent
from openhands.sdk.security import AllowRule, AlwaysConfirm, PatternSecurityAnalyzer
from openhands.sdk.security.approval_rules import allowed_by, suggested_prefix
from pydantic import Field, ValidationError

WAITING = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
FINISHED = ConversationExecutionStatus.FINISHED


class CommandAction(Action):
    """Arguments of `terminal_like`."""

    command: str = Field(description="A command line.")


class TerminalLikeTool(ToolDefinition):
    """Pretends to run a command (nothing runs): answers with the command."""

    description = "Run a command."
    action_type = CommandAction

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        return Observation.from_text(f"ran {action.command}")


register_tool(TerminalLikeTool.name, TerminalLikeTool)


def _terminal(command: str) -> dict[str, Any]:
    return {"command": command}


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("pytest", True),
        ("pytest -q tests/", True),
        ("  pytest   -x ", True),
        ("pytester", False),
        ("python -m pytest", False),
        ("pytest && rm -rf build", False),
        ("pytest; pytest -x", True),
        ("pytest $(rm -rf /)", False),
        ("pytest `whoami`", False),
        ("pytest > out.txt", True),
    ],
)
def test_a_prefix_rule_allows_only_commands_starting_with_it(command: str, allowed: bool) -> None:
    rule = AllowRule(tool="terminal", command_prefix="pytest")

    assert rule.matches("terminal", _terminal(command)) is allowed


def test_every_command_of_a_chain_needs_an_allowed_prefix() -> None:
    rules = [
        AllowRule(tool="terminal", command_prefix="pytest"),
        AllowRule(tool="terminal", command_prefix="git status"),
    ]

    assert allowed_by(rules, "terminal", _terminal("git status && pytest -q"))
    assert not allowed_by(rules, "terminal", _terminal("git status && git push"))


def test_a_tool_rule_allows_every_call_of_that_tool_only() -> None:
    rule = AllowRule(tool="file_editor")

    assert rule.matches("file_editor", {"command": "create", "path": "/x"})
    assert not rule.matches("terminal", _terminal("ls"))


def test_a_rule_needs_a_tool_and_a_real_prefix() -> None:
    with pytest.raises(ValidationError, match="tool"):
        AllowRule(tool=" ")
    with pytest.raises(ValidationError, match="command_prefix"):
        AllowRule(tool="terminal", command_prefix="   ")


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("ls -la", "ls"),
        ("git status --short", "git status"),
        ("git --no-pager log", "git"),
        ("python -m pytest -q", "python -m pytest"),
        ("npm test", "npm test"),
        ("ls && rm x", None),
    ],
)
def test_the_suggested_prefix_is_the_commands_first_words(command: str, prefix: str) -> None:
    assert suggested_prefix("terminal", _terminal(command)) == prefix


def _asking(make_conversation, reply, *commands: str) -> LocalConversation:
    replies = [reply.call("terminal_like", {"command": c}) for c in commands]
    conversation, _ = make_conversation([*replies, reply.text("done")], tools=["terminal_like"])
    conversation.set_confirmation_policy(AlwaysConfirm())
    return conversation


def _ran(conversation: LocalConversation) -> list[str]:
    return [
        event.observation.text
        for event in conversation.state.events
        if isinstance(event, ObservationEvent)
    ]


def test_a_call_a_rule_allows_runs_without_asking(make_conversation, reply) -> None:
    conversation = _asking(make_conversation, reply, "pytest -q")
    conversation.add_approval_rule(AllowRule(tool="terminal_like", command_prefix="pytest"))

    conversation.send_message("test it")
    conversation.run()

    assert conversation.state.execution_status == FINISHED
    assert _ran(conversation) == ["ran pytest -q"]


def test_a_call_no_rule_allows_still_asks(make_conversation, reply) -> None:
    conversation = _asking(make_conversation, reply, "make deploy")
    conversation.add_approval_rule(AllowRule(tool="terminal_like", command_prefix="pytest"))

    conversation.send_message("ship it")
    conversation.run()

    assert conversation.state.execution_status == WAITING


def test_a_high_risk_call_asks_even_when_a_rule_allows_its_tool(make_conversation, reply) -> None:
    conversation = _asking(make_conversation, reply, "rm -rf /")
    conversation.set_security_analyzer(PatternSecurityAnalyzer())
    conversation.add_approval_rule(AllowRule(tool="terminal_like"))

    conversation.send_message("clean up")
    conversation.run()

    assert conversation.state.execution_status == WAITING


def test_finish_never_waits_for_approval(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.finish("all done")])
    conversation.set_confirmation_policy(AlwaysConfirm())

    conversation.send_message("finish")
    conversation.run()

    assert conversation.state.execution_status == FINISHED


def test_rules_are_saved_with_the_conversation(
    make_conversation, reply, persistence_dir, workspace_dir
) -> None:
    conversation = _asking(make_conversation, reply)
    rule = AllowRule(tool="terminal_like", command_prefix="pytest")
    conversation.add_approval_rule(rule)
    conversation.add_approval_rule(rule)  # once only
    conversation.close()

    reopened = LocalConversation(
        None, workspace_dir, persistence_dir=persistence_dir, conversation_id=conversation.id
    )
    try:
        assert reopened.approval_rules == [rule]
        reopened.remove_approval_rule(rule)
        assert reopened.approval_rules == []
    finally:
        reopened.close()


def test_setting_many_rules_keeps_each_once_in_order_and_saves_once(
    make_conversation, reply, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openhands.sdk.conversation import state as state_module

    conversation = _asking(make_conversation, reply)
    rules = [AllowRule(tool="terminal_like", command_prefix=f"tool{n}") for n in range(5000)]
    saves: list[str] = []
    real = state_module.write_atomic

    def counting(path: Any, data: Any) -> None:
        saves.append(str(path))
        real(path, data)

    monkeypatch.setattr(state_module, "write_atomic", counting)
    conversation.set_approval_rules([*rules, *reversed(rules)])

    assert conversation.approval_rules == rules
    # One write of base_state.json, not one per rule (5,000 writes of a growing file).
    assert len([p for p in saves if p.endswith("base_state.json")]) == 1


def test_unique_rules_refuses_what_is_not_a_rule() -> None:
    from openhands.sdk.errors import InvalidArgumentTypeError
    from openhands.sdk.security.approval_rules import unique_rules

    rule = AllowRule(tool="terminal")
    assert unique_rules([rule, rule]) == [rule]
    with pytest.raises(InvalidArgumentTypeError, match="expected an AllowRule"):
        unique_rules([rule, {"tool": "terminal"}])  # type: ignore[list-item]

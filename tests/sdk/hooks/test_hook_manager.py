"""`HookManager`: hooks asked outside a conversation (prompt hooks on a real LLM copy)."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Message, TextContent
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.hooks import HookConfig, HookDefinition, HookManager, HookMatcher, HookType
from openhands.sdk.testing import TestLLM

POLICY = "Deny commands that delete files recursively; allow tests and builds."


def _answer(text: str) -> Message:
    return Message(role="assistant", content=[TextContent(text=text)])


def _prompt_hooks() -> HookConfig:
    return HookConfig(
        pre_tool_use=[
            HookMatcher(
                matcher="terminal",
                hooks=[HookDefinition(type=HookType.PROMPT, name="safety", prompt=POLICY)],
            )
        ]
    )


def test_a_prompt_hook_allows_and_denies_tool_calls(tmp_path: Path) -> None:
    llm = TestLLM.from_messages(
        [
            _answer('{"decision": "allow", "reason": "runs the tests"}'),
            _answer('{"decision": "deny", "reason": "deletes every file"}'),
        ]
    )
    stats = ConversationStats()
    manager = HookManager(
        config=_prompt_hooks(),
        working_dir=str(tmp_path),
        session_id="s1",
        llm=llm,
        conversation_stats=stats,
    )

    allowed, allow_results = manager.run_pre_tool_use("terminal", {"command": "pytest -q"})
    denied, deny_results = manager.run_pre_tool_use(
        "terminal", {"command": "find / -type f -delete"}
    )

    assert allowed and allow_results[0].reason == "runs the tests"
    assert not denied and deny_results[0].reason == "deletes every file"
    assert manager.get_blocking_reason(deny_results) == "deletes every file"
    policy_prompt = llm.calls[1][0].text
    assert POLICY in policy_prompt
    assert "find / -type f -delete" in llm.calls[1][-1].text
    assert "prompt-hook:safety" in stats.usage_to_metrics


def test_other_tools_and_events_without_hooks_pass(tmp_path: Path) -> None:
    manager = HookManager(config=_prompt_hooks(), working_dir=str(tmp_path), llm=None)

    assert manager.run_pre_tool_use("file_editor", {"path": "x"}) == (True, [])
    assert manager.run_stop() == (True, [])
    assert manager.run_user_prompt_submit("hi") == (True, None, [])


def test_command_hooks_run_in_the_working_dir(tmp_path: Path) -> None:
    config = HookConfig.model_validate(
        {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "pwd > seen.txt; exit 2"}]}
            ]
        }
    )
    manager = HookManager(config=config, working_dir=str(tmp_path))

    ok, _, results = manager.run_user_prompt_submit("do it")

    assert not ok and not results[0].should_continue
    assert (tmp_path / "seen.txt").read_text().strip() == str(tmp_path)

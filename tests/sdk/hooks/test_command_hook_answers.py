"""What a command hook says beyond its exit code: JSON on stdout, and what it is given."""

from __future__ import annotations

import json
import time
from pathlib import Path

from openhands.sdk import Event, HookExecutionEvent
from openhands.sdk.hooks import HookConfig, HookEventType, HookRunner


def _runner(tmp_path: Path, event: str, *commands: str, sink: list[Event] | None = None):
    config = HookConfig.model_validate({event: [{"hooks": [{"command": c} for c in commands]}]})
    return HookRunner(
        config,
        str(tmp_path),
        session_id="s1",
        on_event=None if sink is None else sink.append,
    )


def test_a_deny_decision_blocks_even_with_exit_0(tmp_path: Path) -> None:
    command = """echo '{"decision": "deny", "reason": "rm -rf is blocked"}'"""

    outcome = _runner(tmp_path, "pre_tool_use", command).run(HookEventType.PRE_TOOL_USE, {})

    assert outcome.blocked
    assert outcome.feedback == "rm -rf is blocked"


def test_continue_false_blocks(tmp_path: Path) -> None:
    outcome = _runner(tmp_path, "stop", """echo '{"continue": false}'""").run(
        HookEventType.STOP, {}
    )

    assert outcome.blocked


def test_an_allow_decision_with_exit_0_lets_it_through(tmp_path: Path) -> None:
    command = """echo '{"decision": "allow", "reason": "fine"}'"""

    assert not _runner(tmp_path, "stop", command).run(HookEventType.STOP, {}).blocked


def test_stop_feedback_is_the_added_context_of_a_denying_hook(tmp_path: Path) -> None:
    command = (
        """echo '{"decision": "deny", "additionalContext": "Create summary.txt first."}'; exit 2"""
    )

    outcome = _runner(tmp_path, "stop", command).run(HookEventType.STOP, {})

    assert outcome.blocked
    assert outcome.feedback == "Create summary.txt first."


def test_added_context_of_every_hook_is_joined(tmp_path: Path) -> None:
    runner = _runner(
        tmp_path,
        "user_prompt_submit",
        """echo '{"additionalContext": "git: clean"}'""",
        "echo not json",
        """echo '{"additionalContext": "branch: main"}'""",
    )

    outcome = runner.run(HookEventType.USER_PROMPT_SUBMIT, {"prompt": "hi"})

    assert not outcome.blocked
    assert outcome.additional_context == "git: clean\nbranch: main"


def test_the_hook_gets_the_openhands_variables(tmp_path: Path) -> None:
    runner = _runner(tmp_path, "post_tool_use", "env | grep ^OPENHANDS_ | sort > env.txt")

    runner.run(HookEventType.POST_TOOL_USE, {}, tool_name="terminal")

    assert (tmp_path / "env.txt").read_text().splitlines() == [
        "OPENHANDS_EVENT_TYPE=PostToolUse",
        f"OPENHANDS_PROJECT_DIR={tmp_path}",
        "OPENHANDS_SESSION_ID=s1",
        "OPENHANDS_TOOL_NAME=terminal",
    ]


def test_post_tool_use_cannot_block(tmp_path: Path) -> None:
    runner = _runner(tmp_path, "post_tool_use", "exit 2", "touch second-ran")

    outcome = runner.run(HookEventType.POST_TOOL_USE, {}, tool_name="x")

    assert not outcome.blocked
    assert (tmp_path / "second-ran").exists()


def test_each_hook_run_is_recorded_as_an_event(tmp_path: Path) -> None:
    sink: list[Event] = []
    runner = _runner(
        tmp_path,
        "pre_tool_use",
        "echo looked",
        """echo '{"decision": "deny", "reason": "no"}' ; echo oops >&2; exit 2""",
        sink=sink,
    )

    runner.run(
        HookEventType.PRE_TOOL_USE,
        {"tool_name": "terminal", "tool_input": {"command": "ls"}},
        tool_name="terminal",
        action_id="act-1",
    )

    first, second = sink
    assert isinstance(first, HookExecutionEvent) and isinstance(second, HookExecutionEvent)
    assert (first.hook_event_type, first.hook_command, first.success, first.blocked) == (
        "PreToolUse",
        "echo looked",
        True,
        False,
    )
    assert (second.blocked, second.exit_code, second.reason, second.stderr) == (
        True,
        2,
        "no",
        "oops\n",
    )
    assert (second.tool_name, second.action_id, second.source) == ("terminal", "act-1", "hook")
    assert second.hook_input is not None and second.hook_input["tool_input"] == {"command": "ls"}
    assert json.loads(second.model_dump_json())["kind"] == "HookExecutionEvent"


def test_an_async_hook_does_not_wait_and_cannot_block(tmp_path: Path) -> None:
    config = HookConfig.model_validate(
        {"stop": [{"hooks": [{"command": "cat > got.json; exit 2", "async": True}]}]}
    )

    outcome = HookRunner(config, str(tmp_path)).run(HookEventType.STOP, {"n": 1})

    assert not outcome.blocked
    assert outcome.results[0].async_started
    written = tmp_path / "got.json"
    deadline = time.monotonic() + 10
    while not (written.exists() and written.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert json.loads(written.read_text())["n"] == 1  # it ran, in the background

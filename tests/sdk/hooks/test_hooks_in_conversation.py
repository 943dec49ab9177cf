"""Hooks in a real conversation: the events they leave, the context they add, the session
hooks, and the variables scripts read (as in the reference's hook example scripts)."""

from __future__ import annotations

import json
from pathlib import Path

from openhands.sdk import HookExecutionEvent, MessageEvent, TextContent
from openhands.sdk.conversation.run_loop import STOP_HOOK_FEEDBACK_PREFIX
from openhands.sdk.hooks import HookConfig


def _script(folder: Path, name: str, body: str) -> Path:
    """An executable script in `folder` (the workspace: a sandboxed hook sees nothing else
    of the test's folder)."""
    path = folder / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return path


def _hook_events(conversation) -> list[HookExecutionEvent]:
    return [e for e in conversation.state.events if isinstance(e, HookExecutionEvent)]


def test_user_prompt_submit_context_joins_the_users_message(
    make_conversation, reply, workspace_dir
) -> None:
    script = _script(
        workspace_dir,
        "inject.sh",
        """input=$(cat)
if echo "$input" | grep -qi changes; then echo '{"additionalContext": "git status: clean"}'; fi
exit 0
""",
    )
    conversation, llm = make_conversation(
        [reply.text("ok"), reply.text("ok")],
        hook_config=HookConfig.model_validate(
            {"UserPromptSubmit": [{"hooks": [{"command": str(script)}]}]}
        ),
    )

    conversation.send_message("What changes are there?")
    conversation.run()
    conversation.send_message("Thanks")
    conversation.run()

    first, second = [
        e for e in conversation.state.events if isinstance(e, MessageEvent) and e.source == "user"
    ]
    assert first.llm_message.text == "What changes are there?"
    assert first.extended_content == [TextContent(text="git status: clean")]
    assert second.extended_content == []
    sent = llm.calls[0][-1]
    assert [p.text for p in sent.content if isinstance(p, TextContent)] == [
        "What changes are there?",
        "git status: clean",
    ]
    runs = _hook_events(conversation)
    assert [(e.hook_event_type, e.message_id) for e in runs] == [
        ("UserPromptSubmit", first.id),
        ("UserPromptSubmit", second.id),
    ]
    assert runs[0].additional_context == "git status: clean"


def test_a_stop_hook_denying_in_json_gives_its_context_as_feedback(
    make_conversation, reply, workspace_dir
) -> None:
    script = _script(
        workspace_dir,
        "require_summary.sh",
        """if [ ! -f summary.txt ]; then
  echo '{"decision": "deny", "additionalContext": "Create summary.txt first."}'
  touch summary.txt
  exit 2
fi
exit 0
""",
    )
    conversation, llm = make_conversation(
        [reply.text("done"), reply.text("done now")],
        hook_config=HookConfig.model_validate({"Stop": [{"hooks": [{"command": str(script)}]}]}),
    )
    conversation.send_message("Summarize the repo")

    conversation.run()

    assert llm.calls[1][-1].text == f"{STOP_HOOK_FEEDBACK_PREFIX}\nCreate summary.txt first."
    denied, allowed = _hook_events(conversation)
    assert (denied.hook_event_type, denied.blocked, denied.exit_code) == ("Stop", True, 2)
    assert (allowed.blocked, allowed.success) == (False, True)


def test_tool_hooks_are_recorded_with_their_action_and_see_the_tool_name(
    make_conversation, reply, workspace_dir, echo_received
) -> None:
    log_file = workspace_dir / "tool_usage.log"
    script = _script(
        workspace_dir,
        "log_tools.sh",
        'echo "Tool used: $OPENHANDS_TOOL_NAME" >> "${LOG_FILE:-/dev/null}"\nexit 0\n',
    )
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "hi"}), reply.finish()],
        tools=["echo"],
        hook_config=HookConfig.model_validate(
            {
                "PreToolUse": [{"matcher": "echo", "hooks": [{"command": "exit 0"}]}],
                "PostToolUse": [{"hooks": [{"command": f"LOG_FILE={log_file} {script}"}]}],
            }
        ),
    )
    conversation.send_message("go")

    conversation.run()

    assert log_file.read_text().splitlines() == ["Tool used: echo", "Tool used: finish"]
    action_ids = [e.id for e in conversation.state.events if e.kind == "ActionEvent"]
    assert [(e.hook_event_type, e.tool_name, e.action_id) for e in _hook_events(conversation)] == [
        ("PreToolUse", "echo", action_ids[0]),
        ("PostToolUse", "echo", action_ids[0]),
        ("PostToolUse", "finish", action_ids[1]),
    ]


def test_session_hooks_run_when_the_conversation_opens_and_closes(
    make_conversation, workspace_dir
) -> None:
    conversation, _ = make_conversation(
        hook_config=HookConfig.model_validate(
            {
                "SessionStart": [{"hooks": [{"command": "cat > start.json"}]}],
                "SessionEnd": [{"hooks": [{"command": "echo $OPENHANDS_EVENT_TYPE > end.txt"}]}],
            }
        )
    )

    assert json.loads((workspace_dir / "start.json").read_text())["hook_event_name"] == (
        "SessionStart"
    )
    assert not (workspace_dir / "end.txt").exists()
    conversation.close()
    assert (workspace_dir / "end.txt").read_text().strip() == "SessionEnd"
    assert [e.hook_event_type for e in _hook_events(conversation)] == [
        "SessionStart",
        "SessionEnd",
    ]

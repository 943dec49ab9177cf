"""Secrets in the terminal: exported when a command names them, never in its output."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Agent, LocalConversation, ObservationEvent, Tool
from openhands.sdk.secret import SecretSource
from openhands.sdk.testing import TestLLM


class Computed(SecretSource):
    def get_value(self) -> str:
        return "computed-secret-value"


def _run(workspace: Path, persistence: Path, tool_call, reply, *commands: str) -> LocalConversation:
    script = [tool_call("terminal", command=command) for command in commands] + [reply("done")]
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages(script), tools=[Tool(name="terminal")]),
        workspace,
        persistence_dir=persistence,
    )
    conversation.update_secrets({"SECRET_TOKEN": "static-secret-value", "COMPUTED": Computed()})
    conversation.send_message("go")
    conversation.run()
    return conversation


def _outputs(conversation: LocalConversation) -> list[str]:
    return [e.text for e in conversation.state.events if isinstance(e, ObservationEvent)]


def test_a_named_secret_reaches_the_command_and_its_value_is_masked(
    workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    conversation = _run(
        workspace,
        tmp_path / "conversations",
        tool_call,
        reply,
        'test "$SECRET_TOKEN" = static-secret-value && echo matched; echo "$SECRET_TOKEN"',
        'echo "${COMPUTED}"',
    )
    try:
        first, second = _outputs(conversation)
        assert first.splitlines()[:2] == ["matched", "<secret-hidden>"]
        assert second.splitlines()[0] == "<secret-hidden>"
    finally:
        conversation.close()


def test_secret_values_never_reach_the_conversation_files(
    workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    folder = tmp_path / "conversations"
    conversation = _run(workspace, folder, tool_call, reply, 'echo "$SECRET_TOKEN $COMPUTED"')
    conversation.close()

    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert "static-secret-value" not in text, path
            assert "computed-secret-value" not in text, path

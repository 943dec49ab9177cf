"""The GPT-5 preset: apply_patch instead of file_editor, driven through a conversation."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import LocalConversation, TextContent
from openhands.sdk.event import ObservationEvent
from openhands.sdk.testing import TestLLM
from openhands.tools.preset.gpt5 import get_gpt5_agent


def test_the_gpt5_agent_edits_files_with_apply_patch(workspace: Path, tool_call, reply) -> None:
    (workspace / "hello.py").write_text("print('hi')\n")
    patch = (
        "*** Begin Patch\n*** Update File: hello.py\n-print('hi')\n+print('hello')\n*** End Patch"
    )
    llm = TestLLM.from_messages([tool_call("apply_patch", patch=patch), reply("done")])
    agent = get_gpt5_agent(llm)
    conversation = LocalConversation(agent, workspace)
    try:
        assert "apply_patch" in conversation.tools and "file_editor" not in conversation.tools
        conversation.send_message("Say hello")
        conversation.run()
    finally:
        conversation.close()

    assert (workspace / "hello.py").read_text() == "print('hello')\n"
    [observation] = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert observation.observation.text.startswith("Done. Changed files:")
    assert isinstance(observation.observation.content[0], TextContent)

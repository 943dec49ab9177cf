"""`ask_oracle`: the agent asks the `oracle` profile's model, which sees only the question."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk import LLM, Agent, LocalConversation, ObservationEvent, Tool
from openhands.sdk.llm import LLMProfileStore
from openhands.sdk.testing import FakeOpenAIServer, FakeReply, TestLLM
from openhands.tools.ask_oracle import AskOracleObservation, AskOracleTool
from pydantic import SecretStr


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of the test's own (the profile store's default is under it)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def _ask(workspace: Path, tool_call, reply) -> tuple[LocalConversation, AskOracleObservation]:
    script = [
        tool_call("ask_oracle", question="Rewrite or patch?", context="The module is 900 lines."),
        reply("done"),
    ]
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages(script), tools=[Tool(name=AskOracleTool.name)]),
        workspace,
    )
    conversation.send_message("Secret plans: do not leak this message.")
    conversation.run()
    found = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert isinstance(found[0], AskOracleObservation)
    return conversation, found[0]


def test_the_oracle_answers_from_the_question_alone(
    home: Path, workspace: Path, tool_call, reply
) -> None:
    with FakeOpenAIServer() as server:
        server.script("oracle-model", [FakeReply.text("Patch it: the tests cover it.")])
        LLMProfileStore().save(
            "oracle",
            LLM(model="openai/oracle-model", base_url=server.base_url, api_key=SecretStr("k")),
            include_secrets=True,
        )
        conversation, answer = _ask(workspace, tool_call, reply)
        try:
            sent = server.requests_for("oracle-model")
            stats = conversation.conversation_stats.get_metrics_for_usage("oracle:oracle")
        finally:
            conversation.close()

    assert not answer.is_error and answer.text == "Patch it: the tests cover it."
    assert len(sent) == 1
    roles = [message["role"] for message in sent[0]["messages"]]
    text = str(sent[0]["messages"])
    assert roles == ["system", "user"] and "tools" not in sent[0]
    assert "Rewrite or patch?" in text and "900 lines" in text
    assert "Secret plans" not in text  # no history reaches the Oracle
    assert stats.completions == 1  # counted in the conversation, under its own usage_id


def test_without_an_oracle_profile_the_agent_is_told_what_to_save(
    home: Path, workspace: Path, tool_call, reply
) -> None:
    conversation, answer = _ask(workspace, tool_call, reply)
    conversation.close()

    assert answer.is_error
    assert "no LLM profile named 'oracle'" in answer.text and "Save one" in answer.text


def test_the_tool_takes_no_params(tmp_path: Path) -> None:
    from openhands.sdk.tool import InvalidToolSpecError, ToolContext, resolve_tool

    with pytest.raises(InvalidToolSpecError, match="oracle"):
        resolve_tool(
            Tool(name="ask_oracle", params={"model": "x"}), ToolContext(working_dir=str(tmp_path))
        )

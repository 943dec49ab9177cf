"""Tom: a clear error without the outside package or a model; with it (a stand-in package),
the agent's question and the stored conversations reach Tom."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk import Agent, LocalConversation, ObservationEvent, Tool
from openhands.sdk.testing import TestLLM
from openhands.tools.tom_consult import (
    ConsultTomObservation,
    SleeptimeComputeAction,
    SleeptimeComputeObservation,
)

FAKE_TOM = Path(__file__).with_name("fake_tom")


@pytest.fixture
def tom_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list]:
    """The stand-in `tom_swe` on sys.path; yields the Tom agents it makes."""
    monkeypatch.syspath_prepend(str(FAKE_TOM))
    from tom_swe import tom_agent  # type: ignore[import-not-found]

    tom_agent.CREATED.clear()
    yield tom_agent.CREATED
    for name in [m for m in sys.modules if m.startswith("tom_swe")]:
        del sys.modules[name]


def _consult(workspace: Path, tmp_path: Path, tool_call, reply, **params) -> list[object]:
    script = [tool_call("tom_consult", reason="The ask is vague."), reply("done")]
    tools = [Tool(name="tom_consult", params={"data_dir": str(tmp_path / "tom"), **params})]
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages(script), tools=tools), workspace
    )
    conversation.send_message("fix the thing")
    conversation.run()
    conversation.close()
    return [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]


def test_without_the_package_tom_says_what_to_install(
    workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    (answer,) = _consult(workspace, tmp_path, tool_call, reply, llm_model="openai/x")

    assert isinstance(answer, ConsultTomObservation) and answer.is_error
    assert "pip install tom-swe" in answer.text


def test_without_a_model_tom_says_which_params_to_give(
    tom_installed: list, workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    (answer,) = _consult(workspace, tmp_path, tool_call, reply)

    assert answer.is_error and "llm_model" in answer.text  # type: ignore[attr-defined]
    assert tom_installed == []


def test_tom_gets_the_question_and_the_user_message(
    tom_installed: list, workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    (answer,) = _consult(
        workspace, tmp_path, tool_call, reply, llm_model="openai/tom", api_key="k", enable_rag=False
    )

    assert isinstance(answer, ConsultTomObservation) and not answer.is_error
    assert answer.suggestions == "Ask which file they mean." and answer.confidence == 0.8
    assert "Confidence: 80%" in answer.to_llm_content[0].text  # type: ignore[union-attr]
    (agent,) = tom_installed
    assert agent.settings["llm_model"] == "openai/tom" and agent.settings["enable_rag"] is False
    (query,) = agent.queries
    assert query["query"].endswith(
        "The ask is vague. I need to consult ToM agent about the user's message: fix the thing"
    )
    assert {"role": "user", "content": [{"text": "fix the thing"}]} in query["messages"]
    assert (tmp_path / "tom" / "usermodeling" / "notes.md").read_text() == "prefers small diffs"


def test_sleeptime_indexes_each_stored_conversation_once(
    tom_installed: list, workspace: Path, tmp_path: Path, tool_call, reply
) -> None:
    data = tmp_path / "tom"
    stored = LocalConversation(
        Agent(llm=TestLLM.from_messages([reply("hello back")]), tools=[]),
        workspace,
        persistence_dir=data / "conversations",
    )
    stored.send_message("hello Tom")
    stored.run()
    stored.close()
    tools = [Tool(name="sleeptime_compute", params={"data_dir": str(data), "llm_model": "m"})]
    conversation = LocalConversation(Agent(llm=TestLLM.from_messages([]), tools=tools), workspace)
    try:
        first = conversation.execute_tool("sleeptime_compute", SleeptimeComputeAction())
        second = conversation.execute_tool("sleeptime_compute", SleeptimeComputeAction())
    finally:
        conversation.close()

    assert isinstance(first, SleeptimeComputeObservation) and first.sessions_processed == 1
    assert isinstance(second, SleeptimeComputeObservation) and second.sessions_processed == 0
    (agent,) = tom_installed
    (sessions,) = agent.indexed
    assert sessions[0]["session_id"] == stored.id.hex
    assert [m["content"] for m in sessions[0]["conversation_messages"]] == [
        "hello Tom",
        "hello back",
    ]

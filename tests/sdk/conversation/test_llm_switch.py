"""Switching the agent's model mid-conversation: by profile, by the agent's own tool, saved
with the conversation; each model's usage counted apart. Profiles point at the fake
OpenAI-compatible server, so the switched model is called over the real LLM path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk import LLM, Agent, LLMProfileStore, LocalConversation
from openhands.sdk.event import ObservationEvent
from openhands.sdk.testing import FakeOpenAIServer
from openhands.sdk.testing.fake_reply import FakeReply
from pydantic import SecretStr

pytestmark = pytest.mark.slow  # the fake OpenAI server and litellm


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LLMProfileStore:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return LLMProfileStore()


def _llm(server: FakeOpenAIServer, model: str, usage_id: str = "default") -> LLM:
    return LLM(
        model=f"openai/{model}",
        base_url=server.base_url,
        api_key=SecretStr("k"),
        num_retries=0,
        usage_id=usage_id,
    )


def test_switch_profile_drives_the_next_run_and_counts_usage_apart(
    workspace_dir: Path, profiles: LLMProfileStore, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    server.script("first", [FakeReply.text("hello")])
    server.script("second", [FakeReply.text("goodbye")])
    profiles.save("second", _llm(server, "second"), include_secrets=True)
    conversation = LocalConversation(
        Agent(llm=_llm(server, "first", usage_id="agent"), tools=[]),
        workspace_dir,
        persistence_dir=tmp_path / "c",
    )
    conversation.send_message("Say hello")
    conversation.run()

    conversation.switch_profile("second")
    conversation.send_message("Say goodbye")
    conversation.run()

    assert conversation.agent.llm.model == "openai/second"
    [first_call] = server.requests_for("first")
    [second_call] = server.requests_for("second")
    seen = json.dumps(second_call["messages"])
    assert "Say hello" in seen and "Say goodbye" in seen  # the new model reads the history
    assert "Say goodbye" not in json.dumps(first_call["messages"])
    usage = conversation.state.stats.usage_to_metrics
    assert set(usage) >= {"agent", "profile:second"}
    assert usage["profile:second"].accumulated_token_usage is not None
    conversation.close()

    reopened = LocalConversation(
        None, workspace_dir, persistence_dir=tmp_path / "c", conversation_id=conversation.id
    )
    assert reopened.agent.llm.model == "openai/second"  # the switch was saved
    assert reopened.agent.llm.api_key is None  # never its key: give it again on reopen
    reopened.close()


def test_an_unknown_profile_names_the_ones_there_are(
    workspace_dir: Path, profiles: LLMProfileStore, server: FakeOpenAIServer
) -> None:
    profiles.save("fast", _llm(server, "fast"))
    conversation = LocalConversation(Agent(llm=_llm(server, "first"), tools=[]), workspace_dir)

    with pytest.raises(FileNotFoundError, match="fast"):
        conversation.switch_profile("missing")
    assert conversation.agent.llm.model == "openai/first"
    conversation.close()


def test_the_agent_switches_itself_with_the_switch_llm_tool(
    workspace_dir: Path, profiles: LLMProfileStore, server: FakeOpenAIServer
) -> None:
    profiles.save("claude", _llm(server, "claude"), include_secrets=True)
    server.script(
        "gpt",
        [FakeReply.tool_call("switch_llm", {"profile_name": "claude", "reason": "harder"})],
    )
    server.script("claude", [FakeReply.text("now on claude")])
    agent = Agent(
        llm=_llm(server, "gpt"), tools=[], include_default_tools=["FinishTool", "SwitchLLMTool"]
    )
    conversation = LocalConversation(agent, workspace_dir)
    assert "- claude" in conversation.tools["switch_llm"].description
    conversation.send_message("switch to claude")

    conversation.run()

    [result] = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert not result.is_error and "openai/claude" in result.text
    assert conversation.agent.llm.model == "openai/claude"
    assert len(server.requests_for("claude")) == 1  # the step after the switch used it
    conversation.close()


def test_the_switch_llm_tool_reports_an_unknown_profile_to_the_agent(
    workspace_dir: Path, profiles: LLMProfileStore, server: FakeOpenAIServer
) -> None:
    server.script(
        "gpt",
        [
            FakeReply.tool_call("switch_llm", {"profile_name": "nope"}),
            FakeReply.text("staying"),
        ],
    )
    agent = Agent(
        llm=_llm(server, "gpt"), tools=[], include_default_tools=["FinishTool", "SwitchLLMTool"]
    )
    conversation = LocalConversation(agent, workspace_dir)
    conversation.send_message("switch")

    conversation.run()

    [result] = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert result.is_error and "nope" in result.text
    assert conversation.agent.llm.model == "openai/gpt"
    conversation.close()


def test_the_switch_alone_replaces_the_llm_counts_it_and_saves(make_core) -> None:
    from openhands.sdk.conversation.llm_switch import LLMSwitching
    from openhands.sdk.testing import TestLLM

    core = make_core()
    other = TestLLM.from_messages([]).model_copy(update={"usage_id": "other"})

    LLMSwitching(core).switch_llm(other)

    assert core.state.agent.llm.usage_id == "other"
    assert "other" in core.state.stats.usage_to_metrics
    assert core.configs_saved == 1


class _Profiles:
    """A profile source of the host's own (as the agent server sets its sealed store)."""

    def __init__(self, **profiles: LLM) -> None:
        self.profiles = profiles
        self.loads: list[str] = []

    def load(self, name: str) -> LLM:
        self.loads.append(name)
        if name not in self.profiles:
            raise FileNotFoundError(f"no profile {name!r} here (profiles: {sorted(self.profiles)})")
        return self.profiles[name]


def test_a_host_profile_store_replaces_the_users_folder(
    workspace_dir: Path, profiles: LLMProfileStore, server: FakeOpenAIServer
) -> None:
    profiles.save("second", _llm(server, "users-second"), include_secrets=True)
    server.script("hosts-second", [FakeReply.text("from the host's profile")])
    conversation = LocalConversation(Agent(llm=_llm(server, "first"), tools=[]), workspace_dir)
    conversation.profile_store = _Profiles(second=_llm(server, "hosts-second"))

    conversation.switch_profile("second")
    conversation.send_message("hi")
    conversation.run()

    assert conversation.agent.llm.model == "openai/hosts-second"
    assert server.requests_for("users-second") == []
    conversation.close()


def test_a_profile_llm_for_a_tool_leaves_the_agent_and_is_loaded_once(
    workspace_dir: Path, server: FakeOpenAIServer
) -> None:
    host = _Profiles(oracle=_llm(server, "strong"))
    conversation = LocalConversation(Agent(llm=_llm(server, "first"), tools=[]), workspace_dir)
    conversation.profile_store = host

    first = conversation.get_or_create_profile_llm("oracle", "oracle:oracle")
    again = conversation.get_or_create_profile_llm("oracle", "oracle:oracle")

    assert first is again and host.loads == ["oracle"]
    assert first.model == "openai/strong" and first.usage_id == "oracle:oracle"
    assert conversation.agent.llm.model == "openai/first"
    assert "oracle:oracle" in conversation.state.stats.usage_to_metrics
    with pytest.raises(FileNotFoundError, match="oracle"):
        conversation.get_or_create_profile_llm("missing", "x")
    conversation.close()

"""`OpenHandsAgentSettings`: an agent as JSON settings, and the agent they build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import (
    LLM,
    Conversation,
    Message,
    MessageToolCall,
    OpenHandsAgentSettings,
    TextContent,
    Tool,
)
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.settings import (
    LLMSummarizingCondenserSettings,
    NoOpCondenserSettings,
    validate_agent_settings,
)
from openhands.sdk.testing import TestLLM
from pydantic import SecretStr, ValidationError


def _settings(**fields: Any) -> OpenHandsAgentSettings:
    return OpenHandsAgentSettings(
        llm=LLM(model="openai/x", api_key=SecretStr("sk-secret")), **fields
    )


def test_settings_round_trip_through_json_without_the_key() -> None:
    settings = _settings(
        tools=[Tool(name="terminal"), Tool(name="file_editor")],
        condenser=LLMSummarizingCondenserSettings(enabled=True, max_size=50),
        mcp_config={"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}},
    )

    payload = json.loads(json.dumps(settings.model_dump(mode="json")))
    restored = OpenHandsAgentSettings.model_validate(payload)

    assert "sk-secret" not in json.dumps(payload)
    assert restored.condenser == LLMSummarizingCondenserSettings(enabled=True, max_size=50)
    assert [t.name for t in restored.tools or []] == ["terminal", "file_editor"]
    assert list(restored.mcp_config) == ["fetch"]
    assert restored.schema_version == 1


def test_the_agent_gets_the_tools_and_a_condenser_on_its_own_usage_id() -> None:
    agent = _settings(
        tools=[Tool(name="terminal")],
        condenser=LLMSummarizingCondenserSettings(max_size=50, keep_first=3),
    ).create_agent()

    assert [t.name for t in agent.tools] == ["terminal"]
    assert isinstance(agent.condenser, LLMSummarizingCondenser)
    assert (agent.condenser.max_size, agent.condenser.keep_first) == (50, 3)
    assert agent.condenser.llm.usage_id == "condenser"
    assert agent.llm.usage_id == "default"


@pytest.mark.parametrize(
    "condenser", [LLMSummarizingCondenserSettings(enabled=False), NoOpCondenserSettings()]
)
def test_a_disabled_condenser_gives_none(condenser: Any) -> None:
    assert _settings(condenser=condenser).create_agent().condenser is None


def test_without_tools_the_default_ones_and_sub_agents_when_asked() -> None:
    assert [t.name for t in _settings().create_agent().tools] == [
        "terminal",
        "file_editor",
        "task_tracker",
    ]
    assert "task" in [t.name for t in _settings(enable_sub_agents=True).create_agent().tools]


def test_bad_settings_name_the_field() -> None:
    with pytest.raises(ValidationError, match="condenser"):
        validate_agent_settings({"condenser": {"condenser_kind": "magic"}})
    with pytest.raises(ValidationError, match="tool_concurrency_limit"):
        validate_agent_settings({"tool_concurrency_limit": 0})


def test_an_agent_built_from_settings_runs_a_conversation(workspace_dir: Path) -> None:
    llm = TestLLM.from_messages(
        [
            Message(
                role="assistant",
                tool_calls=[
                    MessageToolCall(
                        id="c1",
                        name="terminal",
                        arguments=json.dumps({"command": "echo 'settings work' > out.txt"}),
                    )
                ],
            ),
            Message(role="assistant", content=[TextContent(text="done")]),
        ]
    )
    settings = OpenHandsAgentSettings(llm=llm, tools=[Tool(name="terminal")])
    conversation = Conversation(settings.create_agent(), workspace=str(workspace_dir))
    try:
        conversation.send_message("write it")
        conversation.run()
    finally:
        conversation.close()

    assert (workspace_dir / "out.txt").read_text() == "settings work\n"

"""HookDefinition: command, prompt and agent hooks, and which fields each needs."""

from __future__ import annotations

import pytest
from openhands.sdk.hooks import HookConfig, HookDefinition, HookEventType, HookType
from pydantic import ValidationError


def test_an_agent_hook_needs_no_command() -> None:
    hook = HookDefinition(
        type=HookType.AGENT, name="reviewer", system_prompt="Review.", tools=["file_editor"]
    )

    assert hook.command == ""
    assert (hook.timeout, hook.max_iterations) == (60, 3)
    assert hook.display_command == "agent-hook:reviewer"


def test_a_command_hook_needs_its_command() -> None:
    with pytest.raises(ValidationError, match="'command' is required"):
        HookDefinition()


def test_a_prompt_hook_needs_its_prompt() -> None:
    with pytest.raises(ValidationError, match="'prompt' is required"):
        HookDefinition(type=HookType.PROMPT)


def test_an_llm_hook_refuses_a_command() -> None:
    with pytest.raises(ValidationError, match="use 'system_prompt' instead"):
        HookDefinition(type=HookType.AGENT, command="true")


def test_async_is_read_from_its_json_name_and_only_for_commands() -> None:
    assert HookDefinition.model_validate({"command": "x", "async": True}).async_
    with pytest.raises(ValidationError, match="'async' is not supported for prompt hooks"):
        HookDefinition.model_validate({"type": "prompt", "prompt": "p", "async": True})


def test_the_hooks_json_wrapper_and_session_events_are_accepted() -> None:
    config = HookConfig.from_dict(
        {
            "hooks": {
                "SessionStart": [{"hooks": [{"command": "a"}]}],
                "session_end": [{"hooks": [{"command": "b"}]}],
            }
        }
    )

    assert [h.command for h in config.hooks_for(HookEventType.SESSION_START)] == ["a"]
    assert config.has_hooks_for_event(HookEventType.SESSION_END)
    assert not config.has_hooks_for_event(HookEventType.STOP)


def test_an_explicit_regex_matcher_is_slash_delimited() -> None:
    config = HookConfig.model_validate(
        {"pre_tool_use": [{"matcher": "/term.*/", "hooks": [{"command": "x"}]}]}
    )

    assert config.hooks_for(HookEventType.PRE_TOOL_USE, "terminal")
    assert not config.hooks_for(HookEventType.PRE_TOOL_USE, "file_editor")


def test_a_config_round_trips_through_json() -> None:
    config = HookConfig.model_validate(
        {"stop": [{"hooks": [{"type": "agent", "name": "q", "system_prompt": "s"}]}]}
    )

    assert HookConfig.model_validate_json(config.model_dump_json()) == config


def test_load_reads_the_projects_hooks_json(tmp_path) -> None:
    folder = tmp_path / ".openhands"
    folder.mkdir()
    (folder / "hooks.json").write_text('{"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}')

    assert HookConfig.load(working_dir=tmp_path).hooks_for(HookEventType.STOP)[0].command == "x"
    assert HookConfig.load(working_dir=tmp_path / "elsewhere").is_empty()

"""The agent's system prompt: built-in, inline, or a template file with kwargs."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk import Agent, LocalConversation, SystemPromptEvent
from openhands.sdk.agent import DEFAULT_SYSTEM_PROMPT
from openhands.sdk.agent.prompts import PromptTemplateError
from openhands.sdk.testing import TestLLM
from pydantic import ValidationError


def _llm() -> TestLLM:
    return TestLLM.from_messages([])


def test_the_default_is_the_built_in_prompt() -> None:
    agent = Agent(llm=_llm())

    assert agent.system_prompt is None
    assert agent.system_prompt_filename == "system_prompt.j2"
    assert agent.static_system_message == DEFAULT_SYSTEM_PROMPT


def test_an_inline_prompt_is_used_verbatim() -> None:
    assert Agent(llm=_llm(), system_prompt="Be terse.").static_system_message == "Be terse."


def test_a_template_file_is_rendered_with_the_kwargs(tmp_path: Path) -> None:
    template = tmp_path / "custom.j2"
    template.write_text(
        "You work on {{ repo }}.{% if cli_mode %} Answer in plain text.{% endif %} "
        "Model: {{ model_name }}."
    )

    agent = Agent(
        llm=_llm(),
        system_prompt_filename=str(template),
        system_prompt_kwargs={"repo": "my-project", "cli_mode": True},
    )

    assert agent.static_system_message == (
        "You work on my-project. Answer in plain text. Model: test/scripted."
    )


def test_the_rendered_template_is_the_conversations_system_prompt(
    tmp_path: Path, workspace_dir: Path
) -> None:
    template = tmp_path / "custom.j2"
    template.write_text("Custom for {{ who }}.")
    agent = Agent(
        llm=_llm(), system_prompt_filename=str(template), system_prompt_kwargs={"who": "me"}
    )

    conversation = LocalConversation(agent, workspace_dir)

    event = next(e for e in conversation.state.events if isinstance(e, SystemPromptEvent))
    assert event.system_prompt.text == "Custom for me."
    conversation.close()


def test_a_missing_template_is_a_clear_error_when_the_conversation_starts(
    workspace_dir: Path,
) -> None:
    agent = Agent(llm=_llm(), system_prompt_filename="/nowhere/prompt.j2")

    with pytest.raises(PromptTemplateError, match=r"/nowhere/prompt\.j2"):
        LocalConversation(agent, workspace_dir)


def test_inline_prompt_and_custom_template_cannot_both_be_set() -> None:
    with pytest.raises(ValidationError, match="either system_prompt"):
        Agent(llm=_llm(), system_prompt="x", system_prompt_filename="/a/b.j2")


def test_security_policy_filename_is_accepted_and_saved() -> None:
    agent = Agent(llm=_llm(), security_policy_filename="custom_policy.md")
    none_given = Agent.model_validate({"llm": {"model": "m"}, "security_policy_filename": None})

    assert Agent.model_validate(agent.model_dump()).security_policy_filename == "custom_policy.md"
    assert Agent(llm=_llm()).security_policy_filename == "security_policy.j2"
    assert none_given.security_policy_filename == ""


def test_a_security_policy_file_is_added_verbatim_after_the_prompt(tmp_path: Path) -> None:
    policy = tmp_path / "policy.md"
    policy.write_text("# House rules\nNever push to main.\n")
    agent = Agent(llm=_llm(), security_policy_filename=str(policy))
    assert (
        agent.static_system_message
        == DEFAULT_SYSTEM_PROMPT + "\n\n# House rules\nNever push to main."
    )


def test_a_missing_security_policy_file_says_which_and_how_to_fix(tmp_path: Path) -> None:
    agent = Agent(llm=_llm(), security_policy_filename=str(tmp_path / "nope.md"))
    with pytest.raises(PromptTemplateError, match=r"nope\.md.*or '' for none"):
        _ = agent.static_system_message

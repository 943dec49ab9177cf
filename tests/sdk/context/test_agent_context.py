"""AgentContext: the dynamic system prompt block and the user-turn extension."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

import pytest
from openhands.sdk import AgentContext, Message, TextContent
from openhands.sdk.context import KeywordTrigger, Skill
from openhands.sdk.secret import LookupSecret, StaticSecret
from pydantic import SecretStr, ValidationError

REPO = Skill(name="repo.md", content="Reply like a grumpy cat.")
MAGIC = Skill(
    name="flarglebargle",
    content="Tell them how smart they are.",
    trigger=KeywordTrigger(keywords=["flarglebargle"]),
)


def _user(text: str) -> Message:
    return Message(role="user", content=[TextContent(text=text)])


def test_always_on_skills_suffix_and_datetime_form_the_system_suffix() -> None:
    context = AgentContext(
        skills=[REPO, MAGIC],
        system_message_suffix="Always end with 'yay!'",
        current_datetime=datetime(2026, 3, 4, 5, 6, 7),
    )

    suffix = context.get_system_message_suffix()

    assert suffix is not None
    assert "Reply like a grumpy cat." in suffix
    assert "Always end with 'yay!'" in suffix
    assert "2026-03-04T05:06" in suffix
    always_on, listed = suffix.split("</REPO_CONTEXT>")
    assert "Tell them how smart they are." not in always_on
    assert "<name>flarglebargle</name>" in listed  # triggered: listed, added when triggered


def test_an_empty_context_adds_nothing_to_the_system_prompt() -> None:
    assert AgentContext(current_datetime=None).get_system_message_suffix() is None


def test_a_triggering_message_gets_the_skill_and_the_user_suffix() -> None:
    context = AgentContext(skills=[REPO, MAGIC], user_message_suffix="Start with 'I'.")

    found = context.get_user_message_suffix(_user("FLARGLEBARGLE!"), [])

    assert found is not None
    text, activated = found
    assert activated == ["flarglebargle"]
    assert "Tell them how smart they are." in text.text
    assert text.text.endswith("Start with 'I'.")


def test_a_skill_already_given_is_skipped() -> None:
    context = AgentContext(skills=[MAGIC])

    assert context.get_user_message_suffix(_user("flarglebargle"), ["flarglebargle"]) is None


def test_without_a_trigger_only_the_user_suffix_is_added() -> None:
    context = AgentContext(skills=[MAGIC], user_message_suffix="Be brief.")

    found = context.get_user_message_suffix(_user("hello"), [])

    assert found is not None
    assert (found[0].text, found[1]) == ("Be brief.", [])


def test_duplicate_skill_names_are_refused() -> None:
    with pytest.raises(ValidationError, match=r"Duplicate skill name found: repo\.md"):
        AgentContext(skills=[REPO, REPO])


def test_disabled_skills_are_dropped() -> None:
    context = AgentContext(skills=[REPO, MAGIC], disabled_skills=["repo.md", "not-there"])

    assert [skill.name for skill in context.skills] == ["flarglebargle"]


def test_user_skills_are_loaded_and_explicit_ones_win_a_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skills_dir = tmp_path / ".openhands" / "skills"
    skills_dir.mkdir(parents=True)
    (skills_dir / "repo.md.md").write_text("user version")  # named "repo.md" too
    (skills_dir / "mine.md").write_text("from home")
    monkeypatch.setenv("HOME", str(tmp_path))

    context = AgentContext(skills=[REPO], load_user_skills=True)

    contents = {skill.name: skill.content for skill in context.skills}
    assert contents == {"repo.md": "Reply like a grumpy cat.", "mine": "from home"}


def test_public_skills_are_skipped_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        context = AgentContext(load_public_skills=True)

    assert context.skills == []
    assert "load_public_skills: skipped" in caplog.text


def test_vendor_skills_only_reach_their_own_models() -> None:
    claude = Skill(name="claude", content="CLAUDE RULES")
    context = AgentContext(skills=[claude], current_datetime=None)

    assert "CLAUDE RULES" in (context.get_system_message_suffix("anthropic/claude-x") or "")
    assert context.get_system_message_suffix("openai/gpt-x") is None


def test_memory_context_is_never_saved() -> None:
    context = AgentContext(load_memory=True, memory_context="secret-ish notes")

    assert "memory_context" not in context.model_dump()
    assert AgentContext.model_validate(context.model_dump()).memory_context is None


def test_secrets_are_named_with_their_descriptions_never_their_values() -> None:
    context = AgentContext(
        current_datetime=None,
        secrets={
            "GITHUB_TOKEN": StaticSecret(value=SecretStr("ghp_1"), description="GitHub access"),
            "PLAIN": "plain-value",
        },
    )

    assert context.get_secret_infos() == [
        {"name": "GITHUB_TOKEN", "description": "GitHub access"},
        {"name": "PLAIN", "description": None},
    ]
    suffix = context.get_system_message_suffix(
        additional_secret_infos=[{"name": "PLAIN", "description": "from the conversation"}]
    )
    assert suffix is not None and suffix.startswith("<CUSTOM_SECRETS>")
    assert "* **$GITHUB_TOKEN** - GitHub access" in suffix
    assert "* **$PLAIN** - from the conversation" in suffix
    assert "ghp_1" not in suffix and "plain-value" not in suffix


def test_secret_values_are_masked_in_dumps_unless_exposed_and_read_back() -> None:
    context = AgentContext(
        secrets={
            "PLAIN": "plain-value",
            "LOOKUP": LookupSecret(url="https://vault.example/t", description="rotating"),
            "STATIC": StaticSecret(value=SecretStr("static-value")),
        }
    )

    assert "plain-value" not in context.model_dump_json()
    assert "static-value" not in context.model_dump_json()
    assert context.model_dump(mode="json")["secrets"]["PLAIN"] == "**********"
    exposed = context.model_dump(mode="json", context={"expose_secrets": True})
    assert exposed["secrets"]["PLAIN"] == "plain-value"
    assert exposed["secrets"]["STATIC"]["value"] == "static-value"

    again = AgentContext.model_validate(exposed)
    assert again.secrets is not None
    assert isinstance(again.secrets["LOOKUP"], LookupSecret)
    assert again.usable_secrets()["PLAIN"] == "plain-value"
    masked = AgentContext.model_validate(context.model_dump(mode="json"))
    assert "PLAIN" not in masked.usable_secrets()  # a mask is no value to hand out

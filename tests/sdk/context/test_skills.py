"""Skills: what triggers them and how they are classified."""

from __future__ import annotations

import pytest
from openhands.sdk.context import KeywordTrigger, Skill, TaskTrigger
from pydantic import ValidationError


def test_keyword_matches_whole_words_in_any_case() -> None:
    skill = Skill(name="git", content="...", trigger=KeywordTrigger(keywords=["git"]))

    assert skill.match_trigger("Show me the GIT log") == "git"
    assert skill.match_trigger("open github.com") is None
    assert skill.match_trigger("nothing here") is None


def test_task_trigger_matches_a_slash_command() -> None:
    skill = Skill(name="deploy", content="...", trigger=TaskTrigger(triggers=["/deploy"]))

    assert skill.match_trigger("please /deploy now") == "/deploy"
    assert skill.match_trigger("deploy it") is None


def test_an_always_on_skill_matches_nothing() -> None:
    skill = Skill(name="repo", content="be nice")

    assert skill.match_trigger("repo") is None
    assert skill.get_skill_type() == "repo"


def test_skill_types_follow_the_trigger_and_format() -> None:
    keyword = Skill(name="k", content="", trigger=KeywordTrigger(keywords=["x"]))
    folder = Skill(name="f", content="", is_agentskills_format=True)

    assert keyword.get_skill_type() == "knowledge"
    assert folder.get_skill_type() == "agentskills"


def test_a_trigger_needs_at_least_one_word() -> None:
    with pytest.raises(ValidationError, match="keywords"):
        KeywordTrigger(keywords=[])


def test_a_skill_round_trips_through_json() -> None:
    skill = Skill(name="k", content="c", trigger=KeywordTrigger(keywords=["x"]), source="/s.md")

    assert Skill.model_validate_json(skill.model_dump_json()) == skill

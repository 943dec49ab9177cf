"""Reading skills from files: front matter, SKILL.md folders, user and project folders."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from openhands.sdk.context import (
    KeywordTrigger,
    Skill,
    SkillValidationError,
    TaskTrigger,
    load_project_skills,
    load_skills_from_dir,
    load_user_skills,
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_front_matter_triggers_make_a_keyword_skill(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "docker.md",
        "---\ntriggers:\n  - docker\n  - container\ndescription: Docker tips\n---\nUse compose.\n",
    )

    skill = Skill.load(path)

    assert skill.name == "docker"
    assert skill.trigger == KeywordTrigger(keywords=["docker", "container"])
    assert skill.content == "Use compose.\n"
    assert (skill.description, skill.source) == ("Docker tips", str(path))


def test_a_file_without_front_matter_is_always_on(tmp_path: Path) -> None:
    skill = Skill.load(_write(tmp_path / "style.md", "# Style\nTabs are banned.\n"))

    assert skill.trigger is None
    assert skill.content == "# Style\nTabs are banned.\n"


def test_inputs_make_a_task_skill_triggered_by_its_slash_name(tmp_path: Path) -> None:
    skill = Skill.load(
        _write(tmp_path / "release.md", "---\ninputs:\n  - name: VERSION\n---\nTag ${VERSION}.\n")
    )

    assert skill.trigger == TaskTrigger(triggers=["/release"])


def test_front_matter_name_wins_over_the_file_name(tmp_path: Path) -> None:
    skill = Skill.load(_write(tmp_path / "a.md", "---\nname: better\n---\nx\n"))

    assert skill.name == "better"


def test_bad_front_matter_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SkillValidationError, match="triggers"):
        Skill.load(_write(tmp_path / "bad.md", "---\ntriggers: docker\n---\nx\n"))


@pytest.mark.parametrize(
    ("front_matter", "problem"),
    [
        ("name: wrong_name", "lowercase letters, digits and single hyphens"),
        ("name: other-skill", "must match its folder 'my-skill'"),
        ("metadata: text", "metadata must be a dictionary"),
        ("allowed-tools: 123", "allowed-tools must be a list"),
    ],
)
def test_an_agentskills_file_breaking_the_format_is_refused_by_field(
    tmp_path: Path, front_matter: str, problem: str
) -> None:
    path = _write(tmp_path / "my-skill" / "SKILL.md", f"---\n{front_matter}\n---\nx\n")

    with pytest.raises(SkillValidationError, match=problem):
        Skill.load(path)


def test_a_description_must_be_text_and_a_long_one_is_cut_to_the_format_limit(
    tmp_path: Path,
) -> None:
    listed = _write(tmp_path / "a" / "SKILL.md", "---\ndescription:\n  - list\n---\nx\n")
    with pytest.raises(ValueError, match="description"):
        Skill.load(listed)

    long = _write(tmp_path / "b" / "SKILL.md", f"---\ndescription: {'A' * 2000}\n---\nx\n")
    assert Skill.load(long).description == "A" * 1024


def test_a_folder_sorts_skills_by_kind_and_names_nested_files_by_path(tmp_path: Path) -> None:
    _write(tmp_path / "always.md", "always on")
    _write(tmp_path / "sub" / "deep.md", "---\ntriggers: [deep]\n---\nx")
    _write(tmp_path / "pdf-tools" / "SKILL.md", "---\ndescription: Read PDFs\n---\nSteps")
    _write(tmp_path / "README.md", "not a skill")

    repo, knowledge, agentskills = load_skills_from_dir(tmp_path)

    assert list(repo) == ["always"]
    assert list(knowledge) == ["sub/deep"]
    assert list(agentskills) == ["pdf-tools"]
    assert agentskills["pdf-tools"].is_agentskills_format


def test_a_broken_file_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _write(tmp_path / "good.md", "fine")
    _write(tmp_path / "broken.md", "---\n: : :\n  - [\n---\nx")

    with caplog.at_level(logging.WARNING):
        repo, _, _ = load_skills_from_dir(tmp_path)

    assert list(repo) == ["good"]
    assert "broken.md" in caplog.text


def test_user_skills_come_from_the_home_skill_folders_first_one_wins(tmp_path: Path) -> None:
    _write(tmp_path / ".agents" / "skills" / "same.md", "from .agents")
    _write(tmp_path / ".openhands" / "skills" / "same.md", "from .openhands")
    _write(tmp_path / ".openhands" / "microagents" / "old.md", "legacy")

    skills = {skill.name: skill.content for skill in load_user_skills(tmp_path)}

    assert skills == {"same": "from .agents", "old": "legacy"}


def test_project_skills_include_agents_md_and_the_skills_folder(tmp_path: Path) -> None:
    _write(tmp_path / "AGENTS.md", "Run make test.")
    _write(tmp_path / ".openhands" / "skills" / "db.md", "---\ntriggers: [postgres]\n---\nx")

    skills = {skill.name: skill for skill in load_project_skills(tmp_path)}

    assert skills["agents"].content == "Run make test."
    assert skills["agents"].trigger is None
    assert skills["db"].trigger == KeywordTrigger(keywords=["postgres"])


def test_project_skills_are_also_read_from_the_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / "AGENTS.md", "root rules")
    _write(tmp_path / "pkg" / "AGENTS.md", "package rules")
    _write(tmp_path / ".openhands" / "skills" / "root-only.md", "x")

    skills = {skill.name: skill.content for skill in load_project_skills(tmp_path / "pkg")}

    assert skills == {"agents": "package rules", "root-only": "x"}

"""AgentSkills folders: SKILL.md with YAML front matter, resources, progressive disclosure."""

from __future__ import annotations

from pathlib import Path

from extension_helpers import write_skill
from openhands.sdk import Agent, AgentContext, LocalConversation, Message, TextContent
from openhands.sdk.event import MessageEvent, SystemPromptEvent
from openhands.sdk.skills import (
    RESOURCE_DIRECTORIES,
    discover_skill_resources,
    load_skills_from_dir,
    to_prompt,
    validate_skill_name,
)
from openhands.sdk.testing import TestLLM


def test_a_skill_folder_gives_its_fields_and_its_resources(tmp_path: Path) -> None:
    folder = write_skill(
        tmp_path,
        "rot13",
        "Encrypt and decrypt with ROT13.",
        body="Run scripts/encrypt.sh.\n",
        license="MIT",
        compatibility="Requires bash",
        metadata={"author": "me", "version": 1.5},
        triggers=["encrypt", "decrypt"],
    )
    (folder / "scripts").mkdir()
    (folder / "scripts" / "encrypt.sh").write_text("tr a-z n-za-m\n")
    (folder / "references" / "more").mkdir(parents=True)
    (folder / "references" / "more" / "examples.md").write_text("# Examples\n")

    _, _, skills = load_skills_from_dir(tmp_path)
    skill = skills["rot13"]

    assert skill.is_agentskills_format and skill.description == "Encrypt and decrypt with ROT13."
    assert (skill.license, skill.compatibility) == ("MIT", "Requires bash")
    assert skill.metadata == {"author": "me", "version": "1.5"}
    assert skill.get_triggers() == ["encrypt", "decrypt"]
    assert skill.content == "Run scripts/encrypt.sh.\n"
    assert skill.resources is not None
    assert skill.resources.skill_root == str(folder.resolve())
    assert skill.resources.scripts == ["encrypt.sh"]
    assert skill.resources.references == ["more/examples.md"]
    assert skill.resources.assets == []
    assert RESOURCE_DIRECTORIES == ("scripts", "references", "assets")


def test_markdown_inside_a_skill_folder_is_never_a_skill_of_its_own(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "deep" / "nest", "pdf-tools", "Read PDFs.")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("not a skill")
    (tmp_path / "style.md").write_text("Use tabs.")

    repo, knowledge, agentskills = load_skills_from_dir(tmp_path)

    assert list(agentskills) == ["pdf-tools"]
    assert list(repo) == ["style"] and knowledge == {}


def test_a_folder_that_is_itself_a_skill_loads_as_that_skill(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "solo", "One skill.")

    assert list(load_skills_from_dir(folder)[2]) == ["solo"]


def test_discover_resources_of_a_folder_without_any() -> None:
    resources = discover_skill_resources(Path("/nonexistent/skill"))
    assert not resources.has_resources()


def test_skill_names_follow_the_agentskills_rules() -> None:
    assert validate_skill_name("pdf-tools") == []
    assert validate_skill_name("pdf-tools", "pdf-tools") == []
    assert validate_skill_name("PDF_tools")
    assert validate_skill_name("a--b")
    assert validate_skill_name("x" * 65)
    assert "differs" in validate_skill_name("a", "b")[0]


def test_the_prompt_lists_names_descriptions_and_locations_and_bodies_come_on_use(
    tmp_path: Path, workspace_dir: Path
) -> None:
    write_skill(
        tmp_path, "rot13", "Encrypt with ROT13.", body="SECRET BODY rot13\n", triggers=["encrypt"]
    )
    write_skill(tmp_path, "style-guide", "Project coding standards.", body="SECRET BODY style\n")
    skills = list(load_skills_from_dir(tmp_path)[2].values())
    llm = TestLLM.from_messages([Message(role="assistant", content=[TextContent(text="ok")])])
    agent = Agent(llm=llm, tools=[], agent_context=AgentContext(skills=skills))
    conversation = LocalConversation(agent, workspace_dir)
    conversation.send_message("Please encrypt 'hello'.")
    conversation.run()
    conversation.close()

    [system] = [e for e in conversation.state.events if isinstance(e, SystemPromptEvent)]
    dynamic = system.dynamic_context.text if system.dynamic_context else ""
    for skill in skills:
        assert f"<name>{skill.name}</name>" in dynamic
        assert f"<location>{skill.source}</location>" in dynamic
    assert "Encrypt with ROT13." in dynamic and "SECRET BODY" not in dynamic
    assert to_prompt(skills) in dynamic
    # The trigger word brings that skill's body (only that one) into the user turn.
    [message] = [
        e for e in conversation.state.events if isinstance(e, MessageEvent) and e.source == "user"
    ]
    assert message.activated_skills == ["rot13"]
    extended = "".join(part.text for part in message.extended_content)
    assert "SECRET BODY rot13" in extended and "SECRET BODY style" not in extended

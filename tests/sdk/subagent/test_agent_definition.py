"""`AgentDefinition.load`: a Markdown agent file becomes a definition, or a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.hooks import HookConfig
from openhands.sdk.subagent import AgentDefinition, AgentDefinitionError

FULL = """---
name: code-reviewer
description: |
  Reviews code changes.
  <example>please review this PR</example>
  <Example>security review?</Example>
tools:
  - terminal
  - file_editor
skills: lint, style
model: inherit
color: purple
permission_mode: Confirm_Risky
max_iteration_per_run: "7"
max_budget_per_run: 1.5
hooks:
  Stop:
    - hooks:
        - command: echo done
mcp_servers:
  fetch:
    command: uvx
    args: [mcp-server-fetch]
audience: maintainers
---

You are a meticulous code reviewer.
"""


def _write(tmp_path: Path, text: str, name: str = "agent.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_front_matter_key_lands_in_its_field(tmp_path: Path) -> None:
    path = _write(tmp_path, FULL)
    definition = AgentDefinition.load(path)
    assert definition.name == "code-reviewer"
    assert definition.description.startswith("Reviews code changes.")
    assert definition.tools == ["terminal", "file_editor"]
    assert definition.skills == ["lint", "style"]
    assert definition.model == "inherit"
    assert definition.color == "purple"
    assert definition.permission_mode == "confirm_risky"
    assert definition.max_iteration_per_run == 7
    assert definition.max_budget_per_run == 1.5
    assert definition.hooks == HookConfig.model_validate(
        {"stop": [{"hooks": [{"command": "echo done"}]}]}
    )
    assert definition.mcp_config == {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}
    assert definition.system_prompt == "You are a meticulous code reviewer."
    assert definition.source == path.as_posix()
    assert definition.level is None


def test_example_tags_become_when_to_use_examples(tmp_path: Path) -> None:
    definition = AgentDefinition.load(_write(tmp_path, FULL))
    assert definition.when_to_use_examples == ["please review this PR", "security review?"]


def test_unknown_keys_are_kept_in_metadata(tmp_path: Path) -> None:
    definition = AgentDefinition.load(_write(tmp_path, FULL))
    assert definition.metadata == {"audience": "maintainers"}


def test_a_minimal_file_takes_its_name_from_the_file(tmp_path: Path) -> None:
    definition = AgentDefinition.load(_write(tmp_path, "Just a prompt.\n", name="helper.md"))
    assert definition.name == "helper"
    assert definition.system_prompt == "Just a prompt."
    assert definition.tools == [] and definition.model == "inherit"


def test_a_single_tool_name_is_a_list_of_one(tmp_path: Path) -> None:
    definition = AgentDefinition.load(_write(tmp_path, "---\ntools: terminal\n---\nx\n"))
    assert definition.tools == ["terminal"]


@pytest.mark.parametrize(
    ("front", "names"),
    [
        ("permission_mode: sometimes", "permission_mode"),
        ("max_iteration_per_run: 0", "max_iteration_per_run"),
        ("mcp_config: [a, b]", "mcp_config must map server names"),
        ("hooks:\n  stop: [1]", "hooks"),
        ("tools: {a: b}", "expected a name or a list of names"),
        ("name: x\nname: y", "duplicate key"),
    ],
)
def test_invalid_files_are_refused_naming_the_file(tmp_path: Path, front: str, names: str) -> None:
    path = _write(tmp_path, f"---\n{front}\n---\nbody\n")
    with pytest.raises(AgentDefinitionError, match=names) as caught:
        AgentDefinition.load(path)
    assert str(path) in str(caught.value)


def test_an_unreadable_file_is_an_agent_definition_error(tmp_path: Path) -> None:
    with pytest.raises(AgentDefinitionError, match="Cannot read agent file"):
        AgentDefinition.load(tmp_path / "missing.md")


def test_python_definitions_refuse_unknown_fields() -> None:
    with pytest.raises(ValueError, match="colour"):
        AgentDefinition.model_validate({"name": "x", "colour": "red"})

"""The AgentSkills folder layout: where SKILL.md is, what a skill ships, which names are valid.

Finding a skill's parts (`find_skill_md`, `discover_skill_resources`) lives beside the skill
loader in `openhands.sdk.context.skill_resources`; this module hands those names on and owns
the rules for a skill's name.
"""

from __future__ import annotations

import re

from openhands.sdk.context.skill_resources import (
    RESOURCE_DIRECTORIES,
    SKILL_FILE,
    discover_skill_resources,
    find_skill_md,
)

__all__ = [
    "RESOURCE_DIRECTORIES",
    "SKILL_FILE",
    "SKILL_NAME_PATTERN",
    "discover_skill_resources",
    "find_skill_md",
    "validate_skill_name",
]

SKILL_NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
"""AgentSkills names: lowercase letters and digits in groups joined by single hyphens."""

MAX_SKILL_NAME_LENGTH = 64


def validate_skill_name(name: str, directory_name: str | None = None) -> list[str]:
    """What is wrong with `name` as an AgentSkills name ([] when it is valid).

    With `directory_name`, the name must also equal the skill's folder name.
    """
    if not name:
        return ["the name is empty"]
    problems: list[str] = []
    if len(name) > MAX_SKILL_NAME_LENGTH:
        problems.append(f"the name has {len(name)} characters (at most {MAX_SKILL_NAME_LENGTH})")
    if not SKILL_NAME_PATTERN.match(name):
        problems.append(
            "the name must be lowercase letters and digits joined by single hyphens "
            "(e.g. 'pdf-tools')"
        )
    if directory_name is not None and name != directory_name:
        problems.append(f"the name {name!r} differs from its folder {directory_name!r}")
    return problems

"""Find Markdown agent definitions in folders.

Folders, highest priority first (the first definition of a name wins):
`<project>/.agents/agents/`, `<project>/.openhands/agents/`, `~/.agents/agents/`,
`~/.openhands/agents/`. Only top-level `*.md` files are read (README.md is skipped), in
name order. A file that cannot be read or parsed is logged with the reason and skipped:
one bad file never hides the others.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from openhands.sdk.subagent.schema import AgentDefinition, AgentDefinitionError

__all__ = ["discover_agents", "load_agents_from_dir", "load_project_agents", "load_user_agents"]

logger = logging.getLogger(__name__)

AGENT_DIRS: Final[tuple[str, ...]] = (".agents/agents", ".openhands/agents")
"""Agent folders under a project or the home folder, highest priority first."""

_SKIPPED: Final[frozenset[str]] = frozenset({"readme.md"})


def load_agents_from_dir(agents_dir: str | Path) -> list[AgentDefinition]:
    """Every agent defined by a top-level `*.md` file of `agents_dir` (none if it is absent)."""
    folder = Path(agents_dir)
    if not folder.is_dir():
        return []
    definitions: list[AgentDefinition] = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() != ".md" or path.name.lower() in _SKIPPED:
            continue
        try:
            definitions.append(AgentDefinition.load(path, root=folder))
        except AgentDefinitionError as exc:
            logger.warning("Skipping agent file: %s", exc)
    return definitions


def load_project_agents(project_dir: str | Path) -> list[AgentDefinition]:
    """The agents of `<project>/.agents/agents` then `<project>/.openhands/agents`, by name."""
    root = Path(project_dir)
    return _first_of_each_name(load_agents_from_dir(root / sub) for sub in AGENT_DIRS)


def load_user_agents() -> list[AgentDefinition]:
    """The agents of `~/.agents/agents` then `~/.openhands/agents`, by name."""
    home = Path.home()
    return _first_of_each_name(load_agents_from_dir(home / sub) for sub in AGENT_DIRS)


def discover_agents(
    project_dir: str | Path | None,
    *,
    include_project: bool = True,
    include_user: bool = True,
) -> list[AgentDefinition]:
    """Project and user agents with their `level` set, without registering any.

    A project agent wins over a user agent of the same name.
    """
    groups: list[list[AgentDefinition]] = []
    if include_project and project_dir is not None:
        groups.append(
            [d.model_copy(update={"level": "project"}) for d in load_project_agents(project_dir)]
        )
    if include_user:
        groups.append([d.model_copy(update={"level": "user"}) for d in load_user_agents()])
    return _first_of_each_name(groups)


def _first_of_each_name(groups: Iterable[list[AgentDefinition]]) -> list[AgentDefinition]:
    seen: set[str] = set()
    result: list[AgentDefinition] = []
    for group in groups:
        for definition in group:
            if definition.name in seen:
                logger.debug("Agent %r from %s is shadowed", definition.name, definition.source)
                continue
            seen.add(definition.name)
            result.append(definition)
    return result

"""What an agent may be built from, for `/api/hooks`, `/api/tools` and `/api/sub-agents`.

A project's hooks (`.openhands/hooks.json`) and sub-agents are read from a folder the
request names, only as far as the agent's sandbox sees it: a file the sandbox hides (a link
to the server's key) is left out. Tools are the registered ones (`openhands.tools` entry
points and the built-ins); describing them imports their packages, on the first request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.subagent.schema import AgentDefinition
from openhands.sdk.wire.agent_parts import ToolCatalogEntry

logger = logging.getLogger(__name__)

NOT_SELECTABLE = frozenset({"finish", "think"})
"""Tools every agent has; a client does not pick them."""
BUILTIN_TOOLS = ("finish", "think")


def project_hooks(project_dir: Path, hidden: Callable[[str | Path], bool]) -> HookConfig | None:
    """The project's hooks, or None (no file, an empty or unreadable one, or a hidden one)."""
    path = project_dir / ".openhands" / "hooks.json"
    if not path.is_file() or hidden(path):
        return None
    try:
        config = HookConfig.load(path=path)
    except (OSError, ValueError) as exc:
        logger.warning("Ignoring the hooks of %s: %s", path, exc)
        return None
    return None if config.is_empty() else config


def tool_names() -> list[str]:
    """Every name a tool resolves by (class names and tool names)."""
    from openhands.sdk.tool.registry import list_registered_tools

    return list_registered_tools()


def tool_catalog() -> list[ToolCatalogEntry]:
    """One entry per tool (by its tool name), with its description."""
    from openhands.sdk.tool.registry import load_declared_tools, registered_tools

    load_declared_tools()
    defaults = _default_names()
    names = [n for n in registered_tools() if n == n.lower()]
    entries: list[ToolCatalogEntry] = []
    for name in sorted({*names, *BUILTIN_TOOLS}):
        entries.append(
            ToolCatalogEntry(
                name=name,
                user_selectable=name not in NOT_SELECTABLE,
                usable=True,
                description=_description(name),
                in_default_set=name in defaults,
            )
        )
    return entries


def sub_agents(
    *,
    project_dir: Path | None,
    load_user: bool,
    load_builtin: bool,
    hidden: Callable[[str | Path], bool],
) -> list[AgentDefinition]:
    """Project, user and built-in sub-agents; the first of a name wins (in that order)."""
    from openhands.sdk.subagent.load import discover_agents

    found = discover_agents(
        project_dir, include_project=project_dir is not None, include_user=load_user
    )
    found = [d for d in found if d.level != "project" or d.source is None or not hidden(d.source)]
    if load_builtin:
        from openhands.tools.preset.default import discover_builtin_agents

        found += discover_builtin_agents()
    seen: dict[str, AgentDefinition] = {}
    for definition in found:
        seen.setdefault(definition.name, definition)
    return list(seen.values())


def _default_names() -> set[str]:
    from openhands.tools.preset.default import get_default_tools

    return {tool.name for tool in get_default_tools(enable_task=True)}


def _description(name: str) -> str:
    """The first line of the tool's description ("" when it cannot be read)."""
    from importlib import metadata

    from openhands.sdk.tool.builtins import FinishTool, ThinkTool
    from openhands.sdk.tool.registry import ENTRY_POINT_GROUP

    targets: list[object] = {"finish": [FinishTool], "think": [ThinkTool]}.get(name, [])
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            targets.append(entry.load())
        except Exception as exc:  # a broken tool package: listed, undescribed
            logger.warning("Tool %s cannot be described: %s", name, exc)
    for target in targets:
        owner = getattr(target, "__self__", target)  # `SomeToolSet.create` -> the class
        field = getattr(owner, "model_fields", {}).get("description")
        text = field.default if field is not None else getattr(owner, "description", "")
        if isinstance(text, str) and text.strip():
            return text.strip().splitlines()[0]
    return ""

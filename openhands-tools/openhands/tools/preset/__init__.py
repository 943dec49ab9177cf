"""Ready-made agents built from the standard tools, and the built-in sub-agents."""

from openhands.tools.preset.default import (
    discover_builtin_agents,
    get_default_agent,
    get_default_tools,
    register_builtins_agents,
    register_default_tools,
)
from openhands.tools.preset.planning import get_planning_agent, get_planning_tools

__all__ = [
    "discover_builtin_agents",
    "get_default_agent",
    "get_default_tools",
    "get_planning_agent",
    "get_planning_tools",
    "register_builtins_agents",
    "register_default_tools",
]

"""Ready-made agents built from the standard tools, and the built-in sub-agents.

Which preset for which model: `default` (file_editor) for Claude-class and most models,
`gpt5` (apply_patch) for GPT-5-class models, `gemini` (the Gemini file tools) for Gemini;
see docs/tools.md.
"""

from openhands.tools.preset.default import (
    discover_builtin_agents,
    get_default_agent,
    get_default_tools,
    register_builtins_agents,
    register_default_tools,
)
from openhands.tools.preset.gemini import get_gemini_agent, get_gemini_tools
from openhands.tools.preset.gpt5 import get_gpt5_agent, get_gpt5_tools
from openhands.tools.preset.planning import get_planning_agent, get_planning_tools

__all__ = [
    "discover_builtin_agents",
    "get_default_agent",
    "get_default_tools",
    "get_gemini_agent",
    "get_gemini_tools",
    "get_gpt5_agent",
    "get_gpt5_tools",
    "get_planning_agent",
    "get_planning_tools",
    "register_builtins_agents",
    "register_default_tools",
]

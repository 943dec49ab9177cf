"""Ready-made agents built from the standard tools."""

from openhands.tools.preset.default import (
    get_default_agent,
    get_default_tools,
    register_default_tools,
)

__all__ = ["get_default_agent", "get_default_tools", "register_default_tools"]

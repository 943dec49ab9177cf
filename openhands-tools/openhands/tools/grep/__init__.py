"""The grep tool: find files whose content matches a regular expression (read-only)."""

from openhands.tools.grep.definition import GrepAction, GrepExecutor, GrepObservation, GrepTool

__all__ = ["GrepAction", "GrepExecutor", "GrepObservation", "GrepTool"]

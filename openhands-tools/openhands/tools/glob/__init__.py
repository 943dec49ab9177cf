"""The glob tool: find files by name pattern (read-only)."""

from openhands.tools.glob.definition import GlobAction, GlobExecutor, GlobObservation, GlobTool

__all__ = ["GlobAction", "GlobExecutor", "GlobObservation", "GlobTool"]

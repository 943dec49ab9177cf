"""The terminal tool: a persistent bash session per conversation."""

from openhands.tools.terminal.definition import (
    TerminalAction,
    TerminalExecutor,
    TerminalObservation,
    TerminalTool,
)
from openhands.tools.terminal.session import (
    NoCommandRunningError,
    ShellOutput,
    TerminalBusyError,
    TerminalSession,
    TerminalSessionError,
)

__all__ = [
    "NoCommandRunningError",
    "ShellOutput",
    "TerminalAction",
    "TerminalBusyError",
    "TerminalExecutor",
    "TerminalObservation",
    "TerminalSession",
    "TerminalSessionError",
    "TerminalTool",
]

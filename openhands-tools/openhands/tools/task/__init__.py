"""Sub-agent tasks: the task tool, its `TaskManager`, the persisted task index.

Sub-agent types come from the SDK registry (`openhands.sdk.subagent.register_agent`); the
built-in ones (general-purpose, bash-runner, code-explorer) need no set-up.
"""

from openhands.tools.task.definition import (
    TaskAction,
    TaskExecutor,
    TaskObservation,
    TaskTool,
    TaskToolSet,
)
from openhands.tools.task.index import TaskIndex, TaskRecord, TaskStatus
from openhands.tools.task.manager import (
    TaskBusyError,
    TaskError,
    TaskManager,
    UnknownTaskError,
    final_message,
)
from openhands.tools.task.subagents import (
    DEFAULT_SUBAGENT_TYPE,
    UnknownSubagentTypeError,
    available_subagents,
    describe_subagents,
    resolve_subagent,
)

__all__ = [
    "DEFAULT_SUBAGENT_TYPE",
    "TaskAction",
    "TaskBusyError",
    "TaskError",
    "TaskExecutor",
    "TaskIndex",
    "TaskManager",
    "TaskObservation",
    "TaskRecord",
    "TaskStatus",
    "TaskTool",
    "TaskToolSet",
    "UnknownSubagentTypeError",
    "UnknownTaskError",
    "available_subagents",
    "describe_subagents",
    "final_message",
    "resolve_subagent",
]

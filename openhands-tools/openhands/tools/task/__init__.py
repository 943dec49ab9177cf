"""Sub-agent tasks: the task tool, its `TaskManager`, the persisted task index."""

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
    SubagentType,
    UnknownSubagentTypeError,
    get_subagent_type,
    register_subagent_type,
    subagent_types,
)

__all__ = [
    "DEFAULT_SUBAGENT_TYPE",
    "SubagentType",
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
    "final_message",
    "get_subagent_type",
    "register_subagent_type",
    "subagent_types",
]

"""The task tracker tool: the agent keeps a visible plan of its work (`view` / `plan`)."""

from openhands.tools.task_tracker.definition import (
    TASKS_FILE,
    TaskItem,
    TaskTrackerAction,
    TaskTrackerExecutor,
    TaskTrackerObservation,
    TaskTrackerStatusType,
    TaskTrackerTool,
)

__all__ = [
    "TASKS_FILE",
    "TaskItem",
    "TaskTrackerAction",
    "TaskTrackerExecutor",
    "TaskTrackerObservation",
    "TaskTrackerStatusType",
    "TaskTrackerTool",
]

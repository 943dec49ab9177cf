"""The planning file editor: view any file, edit only the plan (PLAN.md)."""

from openhands.tools.planning_file_editor.definition import (
    DEFAULT_PLAN_DIR,
    PLAN_FILENAME,
    PlanningFileEditorAction,
    PlanningFileEditorExecutor,
    PlanningFileEditorObservation,
    PlanningFileEditorTool,
)

__all__ = [
    "DEFAULT_PLAN_DIR",
    "PLAN_FILENAME",
    "PlanningFileEditorAction",
    "PlanningFileEditorExecutor",
    "PlanningFileEditorObservation",
    "PlanningFileEditorTool",
]

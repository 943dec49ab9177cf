"""`PlanningFileEditorTool`: the file editor of a planning agent.

It views any file but edits only the plan: `<workspace>/.agents_tmp/PLAN.md` by default, or
the absolute `plan_path` param. The plan is created with its section headers (see
`openhands.tools.preset.planning`) when the tool is built, if it does not exist yet.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from openhands.sdk.tool import ToolContext, ToolDefinition
from openhands.tools.file_editor.definition import (
    DESCRIPTION as FILE_EDITOR_DESCRIPTION,
)
from openhands.tools.file_editor.definition import (
    FileEditorAction,
    FileEditorExecutor,
    FileEditorObservation,
)
from openhands.tools.file_editor.views import EditorError
from openhands.tools.params import parse_params
from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

DEFAULT_PLAN_DIR: Final[str] = ".agents_tmp"
PLAN_FILENAME: Final[str] = "PLAN.md"

DESCRIPTION = (
    FILE_EDITOR_DESCRIPTION
    + """
Planning restriction: `view` works on any file or folder, but `create`, `str_replace`,
`insert` and `undo_edit` work only on the plan file ({plan_path}). The plan already has
its section headers: fill them in."""
)


class PlanningFileEditorAction(FileEditorAction):
    """Arguments of `planning_file_editor` (those of `file_editor`)."""


class PlanningFileEditorObservation(FileEditorObservation):
    """The result of one planning_file_editor command."""


class PlanningParams(BaseModel):
    """The `params` of a `Tool(name="planning_file_editor")` spec."""

    model_config = ConfigDict(extra="forbid")

    plan_path: str | None = Field(
        default=None, description="The plan's absolute path; default <workspace>/.agents_tmp."
    )

    @field_validator("plan_path")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_absolute():
            raise ValueError(f"plan_path must be an absolute path, got: {value}")
        return value


class PlanningFileEditorExecutor:
    """A file editor that refuses every edit outside the plan file."""

    def __init__(self, working_dir: str, plan_path: str | Path) -> None:
        self.editor = FileEditorExecutor(working_dir)
        self.plan_path = Path(os.path.normpath(plan_path))

    def __call__(
        self, action: FileEditorAction, conversation: BaseConversation | None = None
    ) -> PlanningFileEditorObservation:
        """Run the command if it views, or edits the plan; otherwise answer an error."""
        if action.command != "view":
            try:
                target = self.editor.editor.resolve(action.path)
            except EditorError as exc:
                target, problem = None, str(exc)
            else:
                problem = ""
            if target is None or target != self.plan_path:
                return PlanningFileEditorObservation.from_text(
                    f"Error: {problem or f'only the plan ({self.plan_path}) may be edited'}"
                    f"; `{action.command}` on {action.path} was refused. View other files.",
                    is_error=True,
                    command=action.command,
                    path=action.path,
                )
        result = self.editor(action, conversation)
        return PlanningFileEditorObservation.model_validate(result.model_dump())


class PlanningFileEditorTool(ToolDefinition):
    """Views any file, edits only the plan."""

    description = DESCRIPTION
    action_type = PlanningFileEditorAction
    observation_type = PlanningFileEditorObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the tool for one conversation; writes the plan's headers if it is new.

        Params: `plan_path` (absolute; default `<workspace>/.agents_tmp/PLAN.md`).
        """
        settings = parse_params(PlanningParams, "planning_file_editor", params)
        plan = Path(
            settings.plan_path or Path(context.working_dir) / DEFAULT_PLAN_DIR / PLAN_FILENAME
        )
        if not plan.exists():
            from openhands.tools.preset.planning import plan_headers

            plan.parent.mkdir(parents=True, exist_ok=True)
            plan.write_text(plan_headers(), encoding="utf-8")
        return [
            cls(
                PlanningFileEditorExecutor(context.working_dir, plan),
                description=DESCRIPTION.replace("{plan_path}", str(plan)),
            )
        ]

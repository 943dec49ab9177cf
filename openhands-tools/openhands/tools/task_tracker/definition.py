"""`TaskTrackerTool`: a task list the agent plans and updates while it works.

`plan` replaces the whole list, `view` shows it. When the conversation persists, the list is
saved as `TASKS.json` (a JSON array of items) in the conversation's folder after every
`plan`, atomically, and read back when the tool is built again (a reopened conversation
keeps its plan). A missing file is an empty list; an unreadable or malformed one is logged
and ignored, never a crash.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from openhands.sdk.io import write_atomic
from openhands.sdk.tool import (
    Action,
    InvalidToolSpecError,
    Observation,
    ToolContext,
    ToolDefinition,
)
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

logger = logging.getLogger(__name__)

TASKS_FILE: Final[str] = "TASKS.json"
"""The file, in the conversation's folder, that holds the task list."""

TaskTrackerStatusType = Literal["todo", "in_progress", "done"]

_ICONS: Final[dict[str, str]] = {"todo": "⏳", "in_progress": "🔄", "done": "✅"}

DESCRIPTION = """Keep a task list for multi-step work, so you and the user can see the plan
and where you are in it.
* `view`: show the current list. Look at it before changing it.
* `plan`: replace the whole list with `task_list` (each item: `title`, optional `notes`,
  `status` todo / in_progress / done). Send every item you want to keep.
Use it when work has several steps or the user lists several requirements; skip it for a
single quick change or a question. Keep one item in_progress at a time, mark an item done
only when it is really finished (tests pass, nothing left), and add items for work you
discover on the way."""


class TaskItem(BaseModel):
    """One item of the task list."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, description="A short title for the task.")
    notes: str = Field(default="", description="Details or notes about the task.")
    status: TaskTrackerStatusType = Field(
        default="todo", description="One of 'todo', 'in_progress' or 'done'."
    )


_TASK_LIST = TypeAdapter(list[TaskItem])


class TaskTrackerAction(Action):
    """Arguments of `task_tracker`."""

    command: Literal["view", "plan"] = Field(
        default="view",
        description="`view` shows the task list; `plan` replaces it with `task_list`.",
    )
    task_list: list[TaskItem] = Field(
        default_factory=list, description="`plan`: the complete new task list."
    )


class TaskTrackerObservation(Observation):
    """The task list after a `view` or `plan`."""

    command: Literal["view", "plan"] = "view"
    task_list: list[TaskItem] = Field(default_factory=list)


def format_task_list(tasks: Sequence[TaskItem]) -> str:
    """The list as the agent reads it: `# Task List`, then numbered items with status icons."""
    lines = ["# Task List", ""]
    for number, task in enumerate(tasks, 1):
        lines.append(f"{number}. {_ICONS[task.status]} {task.title}")
        if task.notes:
            lines.append(f"   {task.notes}")
        lines.append("")
    return "\n".join(lines).strip()


class TaskTrackerExecutor:
    """Holds one conversation's task list; saves it to `save_dir/TASKS.json` if given."""

    def __init__(self, save_dir: str | Path | None = None) -> None:
        self.save_dir = Path(save_dir) if save_dir else None
        self._lock = threading.Lock()
        self._tasks: list[TaskItem] = self._load()

    @property
    def tasks(self) -> list[TaskItem]:
        """A copy of the current task list."""
        with self._lock:
            return list(self._tasks)

    def __call__(
        self, action: TaskTrackerAction, conversation: BaseConversation | None = None
    ) -> TaskTrackerObservation:
        """Show the list (`view`) or replace it (`plan`)."""
        if action.command == "plan":
            with self._lock:
                self._tasks = list(action.task_list)
                problem = self._save()
            text = f"Task list has been updated with {len(action.task_list)} item(s)."
            if problem:
                text += f" It is kept for this session only: saving it failed ({problem})."
            return TaskTrackerObservation.from_text(
                text, command="plan", task_list=list(action.task_list)
            )
        tasks = self.tasks
        if not tasks:
            text = 'No task list found. Use the "plan" command to create one.'
        else:
            text = format_task_list(tasks)
        return TaskTrackerObservation.from_text(text, command="view", task_list=tasks)

    # -- the file -----------------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        """Where the list is saved, or None when the conversation does not persist."""
        return self.save_dir / TASKS_FILE if self.save_dir else None

    def _load(self) -> list[TaskItem]:
        path = self.path
        if path is None:
            return []
        try:
            return _TASK_LIST.validate_json(path.read_bytes())
        except FileNotFoundError:
            return []
        except (OSError, ValidationError) as exc:
            logger.warning("Ignoring unreadable task list %s: %s", path, exc)
            return []

    def _save(self) -> str | None:
        """Write the list; the reason when the disk refused, else None."""
        path = self.path
        if path is None:
            return None
        payload = json.dumps([task.model_dump(mode="json") for task in self._tasks], indent=2)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, payload)
        except OSError as exc:
            logger.warning("Could not save the task list %s: %s", path, exc)
            return exc.strerror or str(exc)
        return None


class TaskTrackerTool(ToolDefinition):
    """Plans and tracks the agent's work as a task list (saved with the conversation)."""

    description = DESCRIPTION
    action_type = TaskTrackerAction
    observation_type = TaskTrackerObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the tracker for one conversation; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"task_tracker takes no params, got {sorted(params)}")
        return [cls(executor=TaskTrackerExecutor(save_dir=context.persistence_dir))]

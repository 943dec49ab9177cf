"""`TaskTool`: lets the agent delegate a self-contained task to a sub-agent, and resume it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from openhands.sdk.tool import Action, Observation, ToolContext, ToolDefinition, ToolExecutor
from openhands.tools.params import parse_params
from openhands.tools.task.index import TaskRecord
from openhands.tools.task.manager import DEFAULT_MAX_ITERATIONS, TaskError, TaskManager
from openhands.tools.task.parent import parent_llm, sub_visualizer
from openhands.tools.task.subagents import DEFAULT_SUBAGENT_TYPE, describe_subagents
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

DESCRIPTION = """Delegate a self-contained task to a sub-agent that works in the same workspace
with its own tools, and get back its final report.
* `prompt`: everything the sub-agent needs to know (it does not see this conversation): the
  goal, file paths, names, error messages, and what to report back.
* `description`: a 3-5 word label for the task.
* `subagent_type`: which kind of sub-agent to run (below); "general-purpose" by default.
* `resume`: a task_id from an earlier task call, to continue that sub-agent with a new prompt
  (it remembers its earlier work).
The call blocks until the sub-agent finishes. The answer names the task_id. Do simple
look-ups and single edits yourself: each sub-agent starts from nothing.

Available sub-agent types:
{agent_types}"""


class TaskAction(Action):
    """Arguments of `task`."""

    prompt: str = Field(min_length=1, description="The instructions for the sub-agent.")
    description: str = Field(default="", description="A short (3-5 word) label for the task.")
    subagent_type: str = Field(
        default=DEFAULT_SUBAGENT_TYPE, description="Which kind of sub-agent to run."
    )
    resume: str | None = Field(
        default=None, description="A task_id to continue instead of starting a new task."
    )


class TaskObservation(Observation):
    """The outcome of a task call: the task's id, status and the sub-agent's report."""

    task_id: str | None = None
    status: str | None = None
    conversation_id: str | None = None


class TaskExecutor(ToolExecutor[TaskAction, TaskObservation]):
    """Runs task actions through one `TaskManager`."""

    def __init__(self, manager: TaskManager) -> None:
        self.manager = manager

    def __call__(
        self, action: TaskAction, conversation: BaseConversation | None = None
    ) -> TaskObservation:
        """Start or resume the task and report what the sub-agent said."""
        llm = parent_llm(conversation)
        label = action.description or action.resume or action.subagent_type
        visualizer = sub_visualizer(conversation, label)
        try:
            if action.resume:
                record = self.manager.resume(
                    action.resume, action.prompt, llm=llm, visualizer=visualizer
                )
            else:
                record = self.manager.start(
                    action.prompt,
                    description=action.description,
                    subagent_type=action.subagent_type,
                    llm=llm,
                    visualizer=visualizer,
                )
        except (TaskError, ValueError) as exc:
            return TaskObservation.from_text(f"Error: {exc}", is_error=True, task_id=action.resume)
        return _observe(record)

    def close(self) -> None:
        """Close the manager's live sub-conversations."""
        self.manager.close()


def _observe(record: TaskRecord) -> TaskObservation:
    label = f" ({record.description})" if record.description else ""
    if record.status == "completed":
        head = f"Task {record.id}{label} completed. The sub-agent's final report:"
        body = record.result or "(the sub-agent gave no final message)"
    else:
        head = f"Task {record.id}{label} failed: {record.error}"
        body = f"Its last message: {record.result}" if record.result else ""
    tail = f"[To continue this sub-agent, call task with resume={record.id!r} and a new prompt.]"
    return TaskObservation.from_text(
        "\n\n".join(part for part in (head, body, tail) if part),
        is_error=record.status != "completed",
        task_id=record.id,
        status=record.status,
        conversation_id=record.conversation_id,
    )


class TaskParams(BaseModel):
    """The `params` of a `Tool(name="task")` spec."""

    model_config = ConfigDict(extra="forbid")

    max_iterations: int = Field(
        default=DEFAULT_MAX_ITERATIONS, ge=1, le=10_000, description="Sub-agent steps per run."
    )


class TaskTool(ToolDefinition[TaskAction, TaskObservation]):
    """Runs sub-agents for self-contained tasks; their tasks can be resumed by task_id.

    Its description lists the sub-agent types available when the tool is built.
    """

    description = DESCRIPTION
    action_type = TaskAction
    observation_type = TaskObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[TaskTool]:
        """Build the task tool and its `TaskManager` for one conversation.

        Params: `max_iterations` (sub-agent steps per run, default 100). Sub-conversations
        persist under the parent's folder when the parent persists.
        """
        settings = parse_params(TaskParams, "task", params)
        manager = TaskManager(
            context.working_dir,
            persistence_dir=context.persistence_dir,
            max_iterations=settings.max_iterations,
        )
        return [
            cls(
                TaskExecutor(manager),
                description=DESCRIPTION.format(agent_types=describe_subagents()),
            )
        ]


class TaskToolSet:
    """Registry factory for the task tool (`{"name": "TaskToolSet"}` resolves to `task`)."""

    # Reference-SDK scripts write `Tool(name=TaskToolSet.name)`; this is the registered name.
    name: ClassVar[str] = "TaskToolSet"

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """The same tools as `TaskTool.create`."""
        return TaskTool.create(context, **params)
